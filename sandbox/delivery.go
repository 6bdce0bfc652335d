package sandbox

import (
	"errors"
	"sync"
	"time"
)

// Devices from orders: a placed order is carried along its lifecycle by the admin API
// or by the order schedule on the sandbox clock, and once DELIVERED its devices are
// the merchant's terminals, reachable through POST /devices once bound to an account.

// MaxDeliveredDevices bounds the terminals one order makes [SB]: units beyond it are
// delivered on paper only, so that an order of 100 lines of 9999 units cannot fill
// the store in one transaction.
const MaxDeliveredDevices = 100

// orderSchedule is the order schedule: its step, and the earliest time a step falls
// due, so that the orders are read only when one does (placing an order, the load
// script's tenth request, must not cost a pass over every order).
type orderSchedule struct {
	step time.Duration // zero: orders move on the admin API only
	wake func()        // called when an order placed makes the next step earlier

	pass   sync.Mutex // one pass over the orders at a time
	mu     sync.Mutex // guards what follows
	known  bool       // next was computed by a pass over every order
	next   time.Time  // the earliest step due; zero: none
	recent time.Time  // the earliest step of the orders placed since the current pass began
	gen    uint64     // bumped by forget: a pass that began before it knows nothing
}

// placed counts an order placed at t.
func (q *orderSchedule) placed(t time.Time) {
	if q.step <= 0 {
		return
	}
	due := t.Add(q.step)
	q.mu.Lock()
	q.recent = earliest(q.recent, due)
	earlier := q.known && (q.next.IsZero() || due.Before(q.next))
	q.next = earliest(q.next, due)
	q.mu.Unlock()
	if earlier && q.wake != nil {
		q.wake()
	}
}

// forget makes the next pass read every order again: the stored orders were replaced
// (a reset, a snapshot restored), and the next step known may not be theirs.
func (q *orderSchedule) forget() {
	q.mu.Lock()
	q.known = false
	q.gen++
	q.mu.Unlock()
	if q.wake != nil && q.step > 0 {
		q.wake()
	}
}

// earliest is the earlier of two times, the zero time standing for none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// SetOrderStep sets the order schedule: a placed order moves one step along its
// lifecycle (INITIATED, PROCESSING, SHIPPED, DELIVERED) each step of sandbox time
// after its last change. Zero leaves orders where the admin API puts them. Call it
// before serving.
func (s *Service) SetOrderStep(step time.Duration) { s.orders.step = step }

// OnOrderPlaced registers fn to be called when an order placed makes the schedule's
// next step earlier, so that a worker waiting for it wakes. Call it before serving.
func (s *Service) OnOrderPlaced(fn func()) { s.orders.wake = fn }

// scheduledNext is the status the schedule moves an order to next, "" for none.
func scheduledNext(status string) string {
	switch status {
	case OrderInitiated:
		return OrderProcessing
	case OrderProcessing:
		return OrderShipped
	case OrderShipped:
		return OrderDelivered
	}
	return ""
}

// CarryOrders moves every order whose scheduled steps are due on the sandbox clock,
// each step in its own store transaction and as of the time it fell due, with its
// notification, as the admin API would. It returns when the next step falls due (zero
// when none). It reads the orders only when a step may be due (and at its first call);
// a step the admin API took meanwhile is not taken twice: each move reads the order
// again.
func (s *Service) CarryOrders() (time.Time, error) {
	q := &s.orders
	if q.step <= 0 {
		return time.Time{}, nil
	}
	q.pass.Lock()
	defer q.pass.Unlock()
	q.mu.Lock()
	if next := q.next; q.known && (next.IsZero() || next.After(s.clock.Now())) {
		q.mu.Unlock()
		return next, nil
	}
	q.recent = time.Time{}
	gen := q.gen
	q.mu.Unlock()
	next, err := s.carryDueOrders()
	if err != nil {
		return time.Time{}, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.next, q.known = earliest(next, q.recent), gen == q.gen
	return q.next, nil
}

// carryDueOrders is one pass of CarryOrders over every order.
func (s *Service) carryDueOrders() (next time.Time, err error) {
	due := func(o Order) (string, time.Time) {
		return scheduledNext(o.Status), o.TimeLastUpdated.Add(s.orders.step)
	}
	step := func(o Order, now time.Time) (string, time.Time, error) {
		to, at := due(o)
		if to == "" || at.After(now) {
			return "", now, nil
		}
		return to, at, nil
	}
	for after := ""; ; {
		var page []Order
		if err := s.store.View(func(tx Tx) (err error) { page, err = tx.OrderPage(after, 256); return }); err != nil {
			return time.Time{}, err
		}
		if len(page) == 0 {
			return next, nil
		}
		after = page[len(page)-1].ID
		for _, o := range page {
			for moved := scheduledNext(o.Status) != ""; moved; {
				o, moved, err = s.changeOrder(o.ID, step)
				if _, gone := AsError(err); gone {
					break // a reset took it meanwhile
				} else if err != nil {
					return time.Time{}, err
				}
			}
			if to, at := due(o); to != "" {
				next = earliest(next, at)
			}
		}
	}
}

// deliverDevices makes a delivered order's devices the merchant's terminals, one per
// unit of each product line, ACTIVE and answering in COMPLETE mode. The first is bound
// to the ordering app's transaction-processing account when no terminal of the
// merchant is bound to it; the others are spares (no account), which
// POST /_sandbox/devices/{id} binds [SB].
func (s *Service) deliverDevices(tx Tx, o Order, app App, at time.Time) error {
	account := accountFor(app, PermAuthorize)
	free := account != ""
	if free {
		_, bound, err := boundDevice(tx, o.MerchantID, account)
		if err != nil {
			return err
		}
		free = !bound
	}
	made := 0
	for _, p := range o.Request.Products {
		for range max(p.Quantity, 1) {
			if made == MaxDeliveredDevices {
				return nil
			}
			made++
			d := Device{
				ID: "DEV_" + s.ids.Alphanumeric(30), MerchantID: o.MerchantID, Model: orDefault(p.ManufacturerModel, p.Name, p.ID),
				ProductID: p.ID, Status: DeviceActive, Mode: DeviceModeComplete, OrderID: o.ID, TimeCreated: at,
			}
			if free {
				d.AccountID, free = account, false
			}
			if err := tx.PutDevice(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// boundDevice finds the terminal of a merchant bound to an account.
func boundDevice(tx Tx, merchantID, accountID string) (Device, bool, error) {
	d, err := tx.BoundDevice(merchantID, accountID)
	if errors.Is(err, ErrNotFound) {
		return Device{}, false, nil
	}
	return d, err == nil, err
}

// bindDevice binds a terminal to a transaction-processing account of an app that acts
// for the terminal's merchant; the terminal bound to that account until then becomes a
// spare, since a MiC request reaches exactly one terminal per merchant and account.
func bindDevice(tx Tx, dev *Device, accountID string) error {
	apps, err := tx.Apps()
	if err != nil {
		return err
	}
	usable := false
	for _, a := range apps {
		for _, acct := range a.Accounts {
			usable = usable || (acct.ID == accountID && hasPermission(acct, PermAuthorize) && a.ActsFor(dev.MerchantID))
		}
	}
	if !usable {
		return MerchantNotConfigured(accountID, dev.MerchantID)
	}
	old, bound, err := boundDevice(tx, dev.MerchantID, accountID)
	if err != nil || !bound || old.ID == dev.ID {
		dev.AccountID = accountID
		return err
	}
	old.AccountID = ""
	dev.AccountID = accountID
	return tx.PutDevice(old)
}
