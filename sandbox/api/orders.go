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
	body: []Field{
		{name: "products", kind: kObjects, max: 100, fields: []Field{
			Text("id", 50),
			Text("name", 255),
			{name: "device", kind: kObject, fields: []Field{
				{name: "quantity", kind: kCount, min: 1, max: 9999},
				Text("manufacturer_model", 100),
				Text("account_name_format", 255),
			}},
		}},
		Text("pricing_profile", 255),
		{name: "status", kind: kEnum, enum: []string{sandbox.OrderForReview}},
		{name: "addresses", kind: kArray, elem: kObject, max: 10, fields: []Field{
			{name: "functions", kind: kArray, elem: kString, max: 10},
			Text("name", 255), Text("email", 255),
			Text("line_1", 255), Text("line_2", 255), Text("line_3", 255),
			Text("city", 100), Text("state", 100), Text("postal_code", 20), Text("country", 3),
			{name: "contact_phone", kind: kObject, fields: []Field{
				{name: "country_code", kind: kDigits, min: 1, max: 5},
				{name: "subscriber_number", kind: kDigits, min: 1, max: 20},
			}},
		}},
		{name: "payment_method", kind: kObject, fields: []Field{
			Text("name", 255),
			{name: "card", kind: kObject, fields: []Field{
				{name: "number", kind: kDigits, min: 12, max: 19},
				{name: "cvv", kind: kDigits, min: 3, max: 4},
				{name: "expiry_month", kind: kDigits, min: 2, max: 2},
				{name: "expiry_year", kind: kDigits, min: 2, max: 4},
				Text("avs_postal_code", 20),
			}},
		}},
		{name: "notifications", kind: kObject, fields: []Field{
			{name: "status_url", kind: kURL, min: 1, max: 2048},
		}},
		Text("batch_close_time", 50),
	},
	handler: handle(createOrder),
}

// orderRequest is a checked order body.
type orderRequest struct {
	Products       oneOrMany[orderProduct] `json:"products"`
	PricingProfile string                  `json:"pricing_profile"`
	Status         string                  `json:"status"`
	Addresses      []orderAddress          `json:"addresses"`
	PaymentMethod  *orderPayment           `json:"payment_method"` // nil when absent
	Notifications  struct {
		StatusURL string `json:"status_url"`
	} `json:"notifications"`
	BatchCloseTime string `json:"batch_close_time"`
}

type orderProduct struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Device struct {
		Quantity          count  `json:"quantity"`
		ManufacturerModel string `json:"manufacturer_model"`
		AccountNameFormat string `json:"account_name_format"`
	} `json:"device"`
}

type orderAddress struct {
	Functions    []string `json:"functions"`
	Name         string   `json:"name"`
	Email        string   `json:"email"`
	Line1        string   `json:"line_1"`
	Line2        string   `json:"line_2"`
	Line3        string   `json:"line_3"`
	City         string   `json:"city"`
	State        string   `json:"state"`
	PostalCode   string   `json:"postal_code"`
	Country      string   `json:"country"`
	ContactPhone struct {
		CountryCode      string `json:"country_code"`
		SubscriberNumber string `json:"subscriber_number"`
	} `json:"contact_phone"`
}

type orderPayment struct {
	Name string `json:"name"`
	Card struct {
		Number        string `json:"number"`
		CVV           string `json:"cvv"`
		ExpiryMonth   string `json:"expiry_month"`
		ExpiryYear    string `json:"expiry_year"`
		AVSPostalCode string `json:"avs_postal_code"`
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
