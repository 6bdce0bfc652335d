package sandbox

import "time"

// The admin API's use cases: reading and seeding state from outside. They bypass
// authentication by design; the api package guards them with the admin token.

// TransactionHistory returns a stored transaction and its adjustment history.
func (s *Service) TransactionHistory(id string) (Transaction, []Adjustment, error) {
	var t Transaction
	var history []Adjustment
	err := s.store.View(func(tx Tx) error {
		var err error
		if t, err = tx.Transaction(id); err != nil {
			return notFoundAs(err, NotFoundTransaction(id))
		}
		history, err = tx.Adjustments(id)
		return err
	})
	return t, history, err
}

// Order returns a stored order.
func (s *Service) Order(id string) (Order, error) {
	return view(s, func(tx Tx) (Order, error) {
		o, err := tx.Order(id)
		return o, notFoundAs(err, NotFoundOrder(id))
	})
}

// Reset wipes every record (orders, tokens, keys, the outbox) and loads the fixtures
// again, in one transaction: a concurrent request sees the state before or after.
func (s *Service) Reset(f Fixtures) error {
	_, err := s.LoadFixtures(f, true)
	return err
}

// MovableClock is a clock the admin API can steer; VirtualClock is one.
type MovableClock interface {
	Clock
	Frozen() bool
	Advance(d time.Duration) error
	Set(t time.Time) error
	Freeze(bool)
	Changed() <-chan struct{}
}
