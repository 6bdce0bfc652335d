package sandbox

import (
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"sort"
	"time"
)

// Delivery states of a notification.
const (
	NotificationPending   = "PENDING"   // waiting for its first or next attempt
	NotificationDelivered = "DELIVERED" // the listener answered 2xx
	NotificationFailed    = "FAILED"    // every attempt failed
	NotificationDropped   = "DROPPED"   // a scenario dropped it: never sent
)

// Notification is one entry of the outbox: a status change of an order to POST to the
// order's status_url. It is written in the same store transaction as the change, so a
// change is never committed without its notification nor the other way round. It
// keeps the order as that change left it and the app key of that moment, so the body
// (rendered where it is sent, as the API shows the order) and its signature are the
// same bytes at every attempt, whatever the order or the app became since. Entries of
// one order are numbered in the order of the changes and delivered in that order.
//
// A device request that completes is notified the same way: DeviceRequest holds it
// as it completed, OrderID its id, Seq 1.
type Notification struct {
	OrderID     string            `json:"order_id"`
	Seq         int               `json:"seq"`     // 1 for the creation, then one per change
	Order       Order             `json:"order"`   // as the change left it, without the request and history no body shows
	AppKey      string            `json:"app_key"` // the key the body is signed with (see Sign)
	URL         string            `json:"url"`     // called and shown as given
	Created     time.Time         `json:"created"`
	State       string            `json:"state"`
	Attempts    []DeliveryAttempt `json:"attempts"`
	NextAttempt time.Time         `json:"next_attempt"` // zero once the state is final
	Decided     bool              `json:"decided,omitempty"`

	DeviceRequest *DeviceRequest `json:"device_request,omitempty"` // set for a device request's notification
	Dispute       *Dispute       `json:"dispute,omitempty"`        // set for a dispute's (dispute.go)
}

// Subject is the app and merchant a notification concerns, for scenario rules.
func (n Notification) Subject() (appID, merchantID string) {
	if d := n.DeviceRequest; d != nil {
		return d.AppID, d.MerchantID
	}
	if d := n.Dispute; d != nil {
		return d.AppID, d.MerchantID
	}
	return n.Order.AppID, n.Order.MerchantID
}

// DeliveryAttempt is one POST of a notification and how it ended.
type DeliveryAttempt struct {
	Time        time.Time `json:"time"`
	HTTPStatus  int       `json:"http_status,omitempty"`
	Error       string    `json:"error,omitempty"`
	NextAttempt time.Time `json:"next_attempt,omitzero"` // the retry it scheduled, if any
}

// Sign returns the X-GP-Signature of a notification body: lower-case hex SHA-512 of
// the body bytes followed by the app key [GP].
func Sign(body []byte, appKey string) string {
	h := sha512.New()
	h.Write(body)
	h.Write([]byte(appKey))
	return hex.EncodeToString(h.Sum(nil))
}

// enqueueNotification writes the outbox entry for the order's latest change, when the
// order has a status_url. It runs inside the Update that changes the order.
func (s *Service) enqueueNotification(tx Tx, o Order, appKey string, now time.Time) (bool, error) {
	if o.Request.StatusURL == "" {
		return false, nil
	}
	n := Notification{
		OrderID: o.ID, Seq: len(o.History), Order: o, AppKey: appKey, URL: o.Request.StatusURL,
		Created: now, State: NotificationPending, Attempts: []DeliveryAttempt{}, NextAttempt: now,
	}
	// The history grows with every change and the request may hold addresses: each
	// entry would copy them, and no notification shows them.
	n.Order.Request, n.Order.History = OrderRequest{}, nil
	return true, tx.PutNotification(n)
}

// enqueueDeviceNotification writes the outbox entry of a device request that has
// completed, when it has a status_url. It runs inside the Update that completes it.
func enqueueDeviceNotification(tx Tx, d DeviceRequest, appKey string, now time.Time) (bool, error) {
	if d.StatusURL == "" || d.Status == DeviceRequestInitiated {
		return false, nil
	}
	return true, tx.PutNotification(Notification{
		OrderID: d.ID, Seq: 1, DeviceRequest: &d, AppKey: appKey, URL: d.StatusURL,
		Created: now, State: NotificationPending, Attempts: []DeliveryAttempt{}, NextAttempt: now,
	})
}

// OnNotification registers fn to be called after a transaction that wrote an outbox
// entry commits, so that the delivery worker wakes at once. Call it before serving.
func (s *Service) OnNotification(fn func()) { s.notified = fn }

func (s *Service) notifyWritten() {
	if s.notified != nil {
		s.notified()
	}
}

// Notifications lists the outbox entries of one order, or of every order when orderID
// is empty, oldest first.
func (s *Service) Notifications(orderID string) ([]Notification, error) {
	out, err := inspect(s, func(_ Tx, in InspectTx) ([]Notification, error) { return in.Notifications(orderID) })
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, err
}

// NextNotifications returns, for each order with pending notifications, the oldest
// pending one: a later change of an order waits until the earlier one is settled.
func (s *Service) NextNotifications() ([]Notification, error) {
	var heads []Notification
	err := s.store.View(func(tx Tx) error {
		pending, err := tx.PendingNotifications()
		if err != nil {
			return err
		}
		// Ordered by order id, then seq: an order's entries are adjacent, so its head
		// is the first of a run, and the heads are kept in place without a set.
		heads = pending[:0]
		previous := ""
		for _, n := range pending {
			if n.OrderID != previous {
				heads, previous = append(heads, n), n.OrderID
			}
		}
		return nil
	})
	return heads, err
}

// UpdateNotification applies fn to a stored notification and stores the result. It
// returns ErrNotFound when the entry is gone (a reset wiped it while it was sent).
func (s *Service) UpdateNotification(orderID string, seq int, fn func(n *Notification, now time.Time)) (Notification, error) {
	var n Notification
	err := s.store.Update(func(tx Tx) error {
		var err error
		if n, err = tx.Notification(orderID, seq); err != nil {
			return err
		}
		fn(&n, s.clock.Now())
		return tx.PutNotification(n)
	})
	if errors.Is(err, ErrNotFound) {
		return n, ErrNotFound
	}
	return n, err
}
