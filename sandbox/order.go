package sandbox

import (
	"cmp"
	"errors"
	"math/big"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// OrderRequest is a validated device-order body. Its one card member is the payment
// card's number, masked where the order is built (newOrder); the CVV never reaches the
// domain. Everything else is kept as sent.
type OrderRequest struct {
	Products       []OrderProduct `json:"products,omitempty"`
	PricingProfile string         `json:"pricing_profile,omitempty"`
	Status         string         `json:"status,omitempty"`
	Addresses      []OrderAddress `json:"addresses,omitempty"`
	PaymentMethod  *OrderPayment  `json:"payment_method,omitempty"`
	StatusURL      string         `json:"status_url,omitempty"` // where to call, as sent
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
	Number        string `json:"-"` // as sent; never kept: see withCardMasked
	MaskedNumber  string `json:"masked_number,omitempty"`
	ExpiryMonth   string `json:"expiry_month,omitempty"`
	ExpiryYear    string `json:"expiry_year,omitempty"`
	AVSPostalCode string `json:"avs_postal_code,omitempty"`
}

// Price is what a FOR_REVIEW order would cost, amounts in minor units.
type Price struct {
	Amount   string
	Currency string
	Lines    []PriceLine
}

// PriceLine is the price of one product line.
type PriceLine struct {
	ProductID  string
	Quantity   int
	UnitAmount string
	Amount     string
}

// Quote is the answer to a FOR_REVIEW order: the order as it would be placed (never
// stored) and its price.
type Quote struct {
	Order Order
	Price Price
}

// PlaceOrder places a device order for a merchant: it is stored INITIATED and, with a
// status_url, its first notification is written in the same transaction.
func (s *Service) PlaceOrder(c Caller, merchantID, version string, req OrderRequest, idem Idempotency) (Order, error) {
	notified := false
	o, replayed, err := execute(s, c, idem, "order", func(tx Tx, now time.Time) (string, Order, error) {
		o, m, err := s.newOrder(tx, c, merchantID, version, req, now)
		if err != nil {
			return "", o, err
		}
		if m.PricingProfile != "" || req.PricingProfile != "" {
			// A product the merchant's pricing does not know is refused as a priced
			// order refuses it [SB].
			if _, err := priceOrder(tx, m, req); err != nil {
				return "", o, err
			}
		}
		o.History = []Action{o.Action}
		if err := tx.PutOrder(o); err != nil {
			return "", o, err
		}
		if req.BatchCloseTime != "" {
			// From now on the merchant's open batches close at that time every day.
			m.BatchCloseTime = req.BatchCloseTime
			if err := tx.PutMerchant(m); err != nil {
				return "", o, err
			}
		}
		notified, err = s.enqueueNotification(tx, o, c.App.Key, now)
		return o.ID, o, err
	})
	if err == nil && notified && !replayed {
		s.notifyWritten()
	}
	if err == nil && !replayed {
		s.orders.placed(o.TimeLastUpdated)
	}
	return o, err
}

// PriceOrder answers a FOR_REVIEW order: the price of the products, from the pricing
// profile the request names or else the merchant's. Nothing is ordered, stored or
// notified, so a fresh idempotency key stays free; a key already consumed is refused
// as for any other request, since the key must not have been seen within the window.
func (s *Service) PriceOrder(c Caller, merchantID, version string, req OrderRequest, idem Idempotency) (Quote, error) {
	var q Quote
	err := s.store.View(func(tx Tx) error {
		now := s.clock.Now()
		if err := refuseUsedKey(tx, c.App.ID, idem, now); err != nil {
			return err
		}
		o, m, err := s.newOrder(tx, c, merchantID, version, req, now)
		if err != nil {
			return err
		}
		price, err := priceOrder(tx, m, req)
		if err != nil {
			return err
		}
		o.Status = OrderForReview
		q = Quote{Order: o, Price: price}
		return nil
	})
	return q, err
}

// newOrder builds an INITIATED order of the request for a merchant the caller may act
// for, with a fresh id and its ORDER_INITIATED action, and returns the merchant too.
func (s *Service) newOrder(tx Tx, c Caller, merchantID, version string, req OrderRequest, now time.Time) (Order, Merchant, error) {
	m, err := s.orderMerchant(tx, c, merchantID)
	if err != nil {
		return Order{}, m, err
	}
	return Order{
		ID: "ORD_" + s.ids.Alphanumeric(30), Holder: HolderOf(m, Account{}),
		Status: OrderInitiated, TimeCreated: now, TimeLastUpdated: now, AppID: c.App.ID,
		Version: version, Request: req.withCardMasked(), Action: s.newAction(c, "ORDER_INITIATED", now),
	}, m, nil
}

// withCardMasked is the request as an order keeps it: the payment card's number as
// its first six and last four digits, and not as sent.
func (r OrderRequest) withCardMasked() OrderRequest {
	if p := r.PaymentMethod; p != nil {
		kept := *p
		kept.MaskedNumber, kept.Number = carddata.MaskNumber(cmp.Or(p.Number, p.MaskedNumber)), ""
		r.PaymentMethod = &kept
	}
	return r
}

// orderTransitions is the order lifecycle [SB]: INITIATED → PROCESSING → SHIPPED →
// DELIVERED, one step at a time, and CANCELLED from any state before SHIPPED.
var orderTransitions = map[string][]string{
	OrderInitiated:  {OrderProcessing, OrderCancelled},
	OrderProcessing: {OrderShipped, OrderCancelled},
	OrderShipped:    {OrderDelivered},
}

// OrderStatuses lists the statuses an order can have, in lifecycle order.
func OrderStatuses() []string {
	return []string{OrderInitiated, OrderProcessing, OrderShipped, OrderDelivered, OrderCancelled}
}

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
// writes the notification in the same transaction. It returns the changed order.
func (s *Service) ChangeOrderStatus(id, status string) (Order, error) {
	o, _, err := s.changeOrder(id, func(o Order, now time.Time) (string, time.Time, error) {
		if !canMove(o.Status, status) {
			return "", now, InvalidTransition(o.Status, status)
		}
		return status, now, nil
	})
	return o, err
}

// changeOrder moves an order to the status next decides, as of the time it decides,
// in one store transaction with its notification and, on DELIVERED, its terminals. An
// empty status leaves the order as it is (moved is false).
func (s *Service) changeOrder(id string, next func(o Order, now time.Time) (string, time.Time, error)) (o Order, moved bool, err error) {
	notified := false
	err = s.store.Update(func(tx Tx) error {
		now := s.clock.Now()
		var err error
		if o, err = tx.Order(id); err != nil {
			return notFoundAs(err, NotFoundOrder(id))
		}
		status, at, err := next(o, now)
		if err != nil || status == "" {
			return err
		}
		app, err := tx.App(o.AppID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		o.Status, o.TimeLastUpdated = status, at
		o.Action = Action{
			ID: "ACT_" + s.ids.Alphanumeric(30), Type: "ORDER_" + status, TimeCreated: FormatTime(at),
			ResultCode: "SUCCESS", AppID: o.AppID, AppName: app.Name,
		}
		o.History = append(o.History, o.Action)
		if status == OrderDelivered {
			if err := s.deliverDevices(tx, o, app, at); err != nil {
				return err
			}
		}
		if err := tx.PutOrder(o); err != nil {
			return err
		}
		moved = true
		notified, err = s.enqueueNotification(tx, o, app.Key, now)
		return err
	})
	if err == nil && notified {
		s.notifyWritten()
	}
	return o, moved, err
}

// orderMerchant returns the merchant if the caller's app may act for it, else 40041
// naming the caller's merchant-management account and the merchant.
func (s *Service) orderMerchant(tx Tx, c Caller, merchantID string) (Merchant, error) {
	m, err := tx.Merchant(merchantID)
	if err == nil && c.App.ActsFor(merchantID) {
		return m, nil
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Merchant{}, err
	}
	return Merchant{}, MerchantNotConfigured(accountFor(c.App, PermOrder), merchantID)
}

// accountFor returns the id of the app's first account holding the permission.
func accountFor(app App, permission string) string {
	a, _ := appAccount(app, permission)
	return a.ID
}

// appAccount is the app's first account holding the permission.
func appAccount(app App, permission string) (Account, bool) {
	for _, a := range app.Accounts {
		if hasPermission(a, permission) {
			return a, true
		}
	}
	return Account{}, false
}

// priceOrder prices each product line from the pricing profile the request names or,
// failing that, the merchant's. Amounts are computed exactly, in minor units.
func priceOrder(tx Tx, m Merchant, req OrderRequest) (Price, error) {
	name := m.PricingProfile
	if req.PricingProfile != "" {
		name = req.PricingProfile
	}
	profile, err := tx.PricingProfile(name)
	if err != nil {
		return Price{}, notFoundAs(err, InvalidField("pricing_profile"))
	}
	total := new(big.Int)
	price := Price{Currency: profile.Currency, Lines: []PriceLine{}}
	for _, p := range req.Products {
		unit, ok := profile.Products[p.ID]
		if !ok {
			return Price{}, InvalidField("products.id")
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

// Order statuses: the request may ask only FOR_REVIEW; a placed order starts INITIATED.
const (
	OrderForReview  = "FOR_REVIEW"
	OrderInitiated  = "INITIATED"
	OrderProcessing = "PROCESSING"
	OrderShipped    = "SHIPPED"
	OrderDelivered  = "DELIVERED"
	OrderCancelled  = "CANCELLED"
)

// Order is a stored device order.
type Order struct {
	ID string `json:"id"`
	Holder
	Status          string       `json:"status"`
	TimeCreated     time.Time    `json:"time_created"`
	TimeLastUpdated time.Time    `json:"time_last_updated"`
	AppID           string       `json:"app_id"`
	Version         string       `json:"version,omitempty"`
	Request         OrderRequest `json:"request"`
	Action          Action       `json:"action"`
	History         []Action     `json:"history,omitempty"`
}

// PricingProfile prices device products for FOR_REVIEW orders.
type PricingProfile struct {
	Name     string            `json:"name"`
	Currency string            `json:"currency"`
	Products map[string]string `json:"products"` // product id -> unit amount in minor units
}
