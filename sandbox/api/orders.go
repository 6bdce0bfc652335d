package api

import (
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// orders is POST /merchants/{merchant_id}/orders: a device order, or with status
// FOR_REVIEW only its price. products is one object as the service document writes
// it, or an array of them as SDKs and partners send; errors name products.… alike.
var orders = operation{
	op:            sandbox.OpOrder,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	handler:       handle(createOrder),
}

// orderRequest is an order body.
type orderRequest struct {
	Products       []orderProduct `json:"products" gp:"or-one,max=100"`
	PricingProfile string         `json:"pricing_profile" gp:"max=255"`
	Status         string         `json:"status" gp:"enum=FOR_REVIEW"`
	Addresses      []orderAddress `json:"addresses" gp:"max=10"`
	PaymentMethod  *orderPayment  `json:"payment_method"` // nil when absent
	Notifications  struct {
		StatusURL string `json:"status_url" gp:"url,max=2048"`
	} `json:"notifications"`
	BatchCloseTime string `json:"batch_close_time" gp:"max=50"`
}

type orderProduct struct {
	ID     string `json:"id" gp:"max=50"`
	Name   string `json:"name" gp:"max=255"`
	Device struct {
		Quantity          int    `json:"quantity" gp:"or-string,min=1,max=9999"`
		ManufacturerModel string `json:"manufacturer_model" gp:"max=100"`
		AccountNameFormat string `json:"account_name_format" gp:"max=255"`
	} `json:"device"`
}

type orderAddress struct {
	Functions    []string `json:"functions" gp:"max=10"`
	Name         string   `json:"name" gp:"max=255"`
	Email        string   `json:"email" gp:"max=255"`
	Line1        string   `json:"line_1" gp:"max=255"`
	Line2        string   `json:"line_2" gp:"max=255"`
	Line3        string   `json:"line_3" gp:"max=255"`
	City         string   `json:"city" gp:"max=100"`
	State        string   `json:"state" gp:"max=100"`
	PostalCode   string   `json:"postal_code" gp:"max=20"`
	Country      string   `json:"country" gp:"max=3"`
	ContactPhone struct {
		CountryCode      string `json:"country_code" gp:"digits,max=5"`
		SubscriberNumber string `json:"subscriber_number" gp:"digits,max=20"`
	} `json:"contact_phone"`
}

type orderPayment struct {
	Name string `json:"name" gp:"max=255"`
	Card struct {
		Number        string `json:"number" gp:"digits,min=12,max=19"`
		CVV           string `json:"cvv" gp:"digits,min=3,max=4"`
		ExpiryMonth   string `json:"expiry_month" gp:"digits,min=2,max=2"`
		ExpiryYear    string `json:"expiry_year" gp:"digits,min=2,max=4"`
		AVSPostalCode string `json:"avs_postal_code" gp:"max=20"`
	} `json:"card"`
}

func createOrder(s *Server, c *call, req orderRequest) (any, error) {
	// The merchant's daily batch close, HH:MM in UTC on the sandbox clock [SB].
	if req.BatchCloseTime != "" && !sandbox.ValidBatchCloseTime(req.BatchCloseTime) {
		return nil, sandbox.InvalidField("batch_close_time")
	}
	merchantID, order := c.vars["merchant_id"], req.domain()
	if req.Status == sandbox.OrderForReview {
		q, err := s.svc.PriceOrder(c.caller, merchantID, c.version, order, c.idem)
		if err != nil {
			return nil, err
		}
		return newQuoteView(q), nil
	}
	o, err := s.svc.PlaceOrder(c.caller, merchantID, c.version, order, c.idem)
	if err != nil {
		return nil, err
	}
	return NewOrderView(o), nil
}

// domain converts the request into the domain's order request. The CVV is dropped
// here; the card number is masked where the order is built.
func (req orderRequest) domain() sandbox.OrderRequest {
	out := sandbox.OrderRequest{
		PricingProfile: req.PricingProfile, Status: req.Status,
		StatusURL: req.Notifications.StatusURL, BatchCloseTime: req.BatchCloseTime,
	}
	for _, p := range req.Products {
		out.Products = append(out.Products, sandbox.OrderProduct{
			ID: p.ID, Name: p.Name, Quantity: int(p.Device.Quantity),
			ManufacturerModel: p.Device.ManufacturerModel, AccountNameFormat: p.Device.AccountNameFormat,
		})
	}
	for _, a := range req.Addresses {
		out.Addresses = append(out.Addresses, sandbox.OrderAddress{
			Functions: a.Functions, Name: a.Name, Email: a.Email,
			Line1: a.Line1, Line2: a.Line2, Line3: a.Line3, City: a.City, State: a.State,
			PostalCode: a.PostalCode, Country: a.Country,
			PhoneCountry: a.ContactPhone.CountryCode, PhoneNumber: a.ContactPhone.SubscriberNumber,
		})
	}
	if pm := req.PaymentMethod; pm != nil {
		out.PaymentMethod = &sandbox.OrderPayment{
			Name: pm.Name, Number: pm.Card.Number,
			ExpiryMonth: pm.Card.ExpiryMonth, ExpiryYear: pm.Card.ExpiryYear,
			AVSPostalCode: pm.Card.AVSPostalCode,
		}
	}
	return out
}
