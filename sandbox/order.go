package sandbox

import (
	"encoding/json"
	"errors"
	"math/big"
	"time"
)

// OrderRequest is a validated device-order body. Card data arrives already masked:
// the api layer never hands a clear card number or a CVV to the domain.
type OrderRequest struct {
	Products       []OrderProduct `json:"products,omitempty"`
	PricingProfile string         `json:"pricing_profile,omitempty"`
	Status         string         `json:"status,omitempty"`
	Addresses      []OrderAddress `json:"addresses,omitempty"`
	PaymentMethod  *OrderPayment  `json:"payment_method,omitempty"`
	StatusURL      string         `json:"status_url,omitempty"`
	BatchCloseTime string         `json:"batch_close_time,omitempty"`
}

// OrderProduct is one product line of an order.
type OrderProduct struct {
	ID                string `json:"id,omitempty"`
	Name              string `json:"name,omitempty"`
	Quantity          int    `json:"quantity,omitempty"`
	ManufacturerModel string `json:"manufacturer_model,omitempty"`
	AccountNameFormat string `json:"account_name_format,omitempty"`
}

// OrderAddress is one address of an order (shipping, billing, ...).
type OrderAddress struct {
	Functions    []string `json:"functions,omitempty"`
	Name         string   `json:"name,omitempty"`
	Email        string   `json:"email,omitempty"`
	Line1        string   `json:"line_1,omitempty"`
	Line2        string   `json:"line_2,omitempty"`
	Line3        string   `json:"line_3,omitempty"`
	City         string   `json:"city,omitempty"`
	State        string   `json:"state,omitempty"`
	PostalCode   string   `json:"postal_code,omitempty"`
	Country      string   `json:"country,omitempty"`
	PhoneCountry string   `json:"contact_phone_country_code,omitempty"`
	PhoneNumber  string   `json:"contact_phone_subscriber_number,omitempty"`
}

// OrderPayment is how the merchant pays for the devices. The card number is kept as
// first six and last four digits only; the CVV is never kept.
type OrderPayment struct {
	Name          string `json:"name,omitempty"`
	MaskedNumber  string `json:"masked_number,omitempty"`
	ExpiryMonth   string `json:"expiry_month,omitempty"`
	ExpiryYear    string `json:"expiry_year,omitempty"`
	AVSPostalCode string `json:"avs_postal_code,omitempty"`
}

// MaskCardNumber keeps the first six and last four digits of a card number.
func MaskCardNumber(number string) string {
	if len(number) <= 10 {
		return "**********"[:len(number)]
	}
	masked := []byte(number)
	for i := 6; i < len(masked)-4; i++ {
		masked[i] = '*'
	}
	return string(masked)
}

// Price is what a FOR_REVIEW order would cost.
type Price struct {
	Amount   string      `json:"amount"`
	Currency string      `json:"currency"`
	Lines    []PriceLine `json:"lines"`
}

// PriceLine is the price of one product line.
type PriceLine struct {
	ProductID  string `json:"product_id"`
	Quantity   int    `json:"quantity"`
	UnitAmount string `json:"unit_amount"`
	Amount     string `json:"amount"`
}

type orderView struct {
	ID              string `json:"id"`
	MerchantID      string `json:"merchant_id"`
	MerchantName    string `json:"merchant_name"`
	Status          string `json:"status"`
	TimeCreated     string `json:"time_created"`
	TimeLastUpdated string `json:"time_last_updated"`
	Price           *Price `json:"price,omitempty"`
	Action          Action `json:"action"`
}

// View returns the order as the API shows it.
func (o Order) View() any { return o.view(nil) }

func (o Order) view(price *Price) orderView {
	return orderView{
		ID: o.ID, MerchantID: o.MerchantID, MerchantName: o.MerchantName, Status: o.Status,
		TimeCreated: FormatTime(o.TimeCreated), TimeLastUpdated: FormatTime(o.TimeLastUpdated),
		Price: price, Action: o.Action,
	}
}

// CreateOrder places a device order for a merchant (stored INITIATED) or, with status
// FOR_REVIEW, only prices it: nothing is stored and the idempotency key stays free.
func (s *Service) CreateOrder(c Caller, merchantID string, version string, req OrderRequest, idem Idempotency) (Result, error) {
	if err := s.Authorize(c, OpOrder); err != nil {
		return Result{}, err
	}
	req = req.WithCardDataMasked()
	if req.Status == OrderForReview {
		idem.Key = "" // a price quote executes no action
	}
	notified := false
	res, err := s.execute(c, idem, "order", func(tx Tx, now time.Time) (string, any, error) {
		m, err := s.orderMerchant(tx, c, merchantID)
		if err != nil {
			return "", nil, err
		}
		o := Order{
			ID: "ORD_" + s.ids.Alphanumeric(30), MerchantID: m.ID, MerchantName: m.Name,
			Status: OrderInitiated, TimeCreated: now, TimeLastUpdated: now, AppID: c.App.ID,
			Version: version, Request: req, Action: s.newAction(c, "ORDER_INITIATED", now),
		}
		if req.Status == OrderForReview {
			price, err := priceOrder(tx, m, req)
			if err != nil {
				return "", nil, err
			}
			o.Status = OrderForReview
			return o.ID, o.view(price), nil
		}
		o.History = []Action{o.Action}
		if err := tx.PutOrder(o); err != nil {
			return "", nil, err
		}
		if notified, err = s.enqueueNotification(tx, o, c.App.Key, now); err != nil {
			return "", nil, err
		}
		return o.ID, o.View(), nil
	})
	if err == nil && notified && !res.Replayed {
		s.notifyWritten()
	}
	return res, err
}

// orderTransitions is the order lifecycle [SB]: INITIATED → PROCESSING → SHIPPED →
// DELIVERED, one step at a time, and CANCELLED from any state before SHIPPED.
var orderTransitions = map[string][]string{
	OrderInitiated:  {OrderProcessing, OrderCancelled},
	OrderProcessing: {OrderShipped, OrderCancelled},
	OrderShipped:    {OrderDelivered},
}

// OrderStatuses lists the statuses an order can have, in lifecycle order.
var OrderStatuses = []string{OrderInitiated, OrderProcessing, OrderShipped, OrderDelivered, OrderCancelled}

func canMove(from, to string) bool {
	for _, s := range orderTransitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// ChangeOrderStatus moves an order one step along its lifecycle, records the change as
// an action of type ORDER_<status> in the name of the app that placed the order, and
// writes the notification in the same transaction. It returns the order as the API
// shows it.
func (s *Service) ChangeOrderStatus(id, status string) (Result, error) {
	var res Result
	notified := false
	err := s.store.Update(func(tx Tx) error {
		now := s.clock.Now()
		o, err := tx.Order(id)
		if err != nil {
			return notFoundAs(err, NotFoundOrder(id))
		}
		if !canMove(o.Status, status) {
			return InvalidTransition(o.Status, status)
		}
		app, err := tx.App(o.AppID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		o.Status, o.TimeLastUpdated = status, now
		o.Action = Action{
			ID: "ACT_" + s.ids.Alphanumeric(30), Type: "ORDER_" + status, TimeCreated: FormatTime(now),
			ResultCode: "SUCCESS", AppID: o.AppID, AppName: app.Name,
		}
		o.History = append(o.History, o.Action)
		if err := tx.PutOrder(o); err != nil {
			return err
		}
		if notified, err = s.enqueueNotification(tx, o, app.Key, now); err != nil {
			return err
		}
		res = Result{ResourceID: o.ID}
		res.Body, err = json.Marshal(o.View())
		return err
	})
	if err == nil && notified {
		s.notifyWritten()
	}
	return res, err
}

// orderMerchant returns the merchant if the caller's app may act for it, else 40041
// naming the caller's merchant-management account and the merchant.
func (s *Service) orderMerchant(tx Tx, c Caller, merchantID string) (Merchant, error) {
	m, err := tx.Merchant(merchantID)
	if err == nil && c.App.ActsFor(merchantID) {
		return m, nil
	}
	if err != nil && err != ErrNotFound {
		return Merchant{}, err
	}
	return Merchant{}, MerchantNotConfigured(accountFor(c.App, PermOrder), merchantID)
}

// accountFor returns the id of the app's first account holding the permission.
func accountFor(app App, permission string) string {
	for _, a := range app.Accounts {
		for _, p := range a.Permissions {
			if p == permission {
				return a.ID
			}
		}
	}
	return ""
}

// priceOrder prices each product line from the pricing profile the request names or,
// failing that, the merchant's. Amounts are computed exactly, in minor units.
func priceOrder(tx Tx, m Merchant, req OrderRequest) (*Price, error) {
	name := m.PricingProfile
	if req.PricingProfile != "" {
		name = req.PricingProfile
	}
	profile, err := tx.PricingProfile(name)
	if err != nil {
		return nil, notFoundAs(err, InvalidField("pricing_profile"))
	}
	total := new(big.Int)
	price := &Price{Currency: profile.Currency, Lines: []PriceLine{}}
	for _, p := range req.Products {
		unit, ok := profile.Products[p.ID]
		if !ok {
			return nil, InvalidField("products.id")
		}
		qty := p.Quantity
		if qty == 0 {
			qty = 1
		}
		u, _ := new(big.Int).SetString(unit, 10)
		line := new(big.Int).Mul(u, big.NewInt(int64(qty)))
		total.Add(total, line)
		price.Lines = append(price.Lines, PriceLine{
			ProductID: p.ID, Quantity: qty, UnitAmount: unit, Amount: line.String(),
		})
	}
	price.Amount = total.String()
	return price, nil
}
