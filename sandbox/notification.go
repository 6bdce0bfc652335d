package sandbox

import (
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
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
// change is never committed without its notification nor the other way round, and the
// body and signature are fixed at that moment. Entries of one order are numbered in
// the order of the changes and delivered in that order.
type Notification struct {
	OrderID     string            `json:"order_id"`
	Seq         int               `json:"seq"` // 1 for the creation, then one per change
	Action      string            `json:"action"`
	OrderStatus string            `json:"order_status"`
	URL         string            `json:"url"`
	Body        string            `json:"body"`
	Signature   string            `json:"signature"`
	Created     time.Time         `json:"created"`
	State       string            `json:"state"`
	Attempts    []DeliveryAttempt `json:"attempts"`
	NextAttempt time.Time         `json:"next_attempt"` // zero once the state is final
	Decided     bool              `json:"decided,omitempty"`
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
	if s.renderNotification == nil {
		return false, fmt.Errorf("notification of %s: no renderer set (RenderNotificationsWith)", o.ID)
	}
	body, err := s.renderNotification(o)
	if err != nil {
		return false, fmt.Errorf("encode notification of %s: %w", o.ID, err)
	}
	n := Notification{
		OrderID: o.ID, Seq: len(o.History), Action: o.Action.Type, OrderStatus: o.Status,
		URL: o.Request.StatusURL, Body: string(body), Signature: Sign(body, appKey),
		Created: now, State: NotificationPending, Attempts: []DeliveryAttempt{}, NextAttempt: now,
	}
	return true, tx.PutNotification(n)
}

// RenderNotificationsWith sets how an order becomes a notification body. The body is
// the order as the API shows it, a wire shape the api package owns; it is rendered
// here, inside the transaction that changes the order, because the body (and its
// signature) is fixed at that moment. api.NewServer sets it; call it before serving.
func (s *Service) RenderNotificationsWith(render func(Order) ([]byte, error)) {
	s.renderNotification = render
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
	out, err := view(s, func(tx Tx) ([]Notification, error) { return tx.Notifications(orderID) })
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
