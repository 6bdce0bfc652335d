package sandbox

import (
	"errors"
	"time"
)

// ErrNotFound is returned by Tx getters when the record does not exist.
var ErrNotFound = errors.New("not found")

// Store is the persistence the Service consumes. Every API action runs in exactly one
// Update, so the idempotency key, the resource change and the action record commit or
// vanish together.
type Store interface {
	View(fn func(Tx) error) error
	Update(fn func(Tx) error) error
	Close() error
}

// Tx is one store transaction. Getters return ErrNotFound for a missing record.
// Writes inside a failed Update are rolled back.
type Tx interface {
	App(id string) (App, error)
	PutApp(App) error
	Merchant(id string) (Merchant, error)
	PutMerchant(Merchant) error
	PricingProfile(name string) (PricingProfile, error)
	PutPricingProfile(PricingProfile) error

	Transaction(id string) (Transaction, error)
	PutTransaction(Transaction) error
	// Adjustments returns a transaction's adjustment history, oldest first. History
	// is kept apart from the transaction so that adjusting stays O(1) however often
	// a transaction is adjusted.
	Adjustments(transactionID string) ([]Adjustment, error)
	PutAdjustment(transactionID string, a Adjustment) error
	Order(id string) (Order, error)
	PutOrder(Order) error

	Token(value string) (Token, error)
	PutToken(Token) error
	Idempotency(appID, key string) (IdempotencyRecord, error)
	PutIdempotency(IdempotencyRecord) error

	// DeleteExpired removes tokens that expired before tokenCutoff and idempotency
	// records created before keyCutoff, and reports how many records went.
	DeleteExpired(tokenCutoff, keyCutoff time.Time) (int, error)
	// DeleteAll wipes every record, for --reset and the admin reset.
	DeleteAll() error

	// Meta reads and writes small sandbox bookkeeping values (e.g. fixtures loaded).
	Meta(key string) (string, error)
	PutMeta(key, value string) error

	// ScenarioStep returns how many requests of a scope (a session or an app) a
	// scenario's sequence rule has answered so far: 0 when none. PutScenarioStep
	// stores the new count; reading and writing in one Update makes concurrent
	// requests of one scope each consume exactly one step.
	ScenarioStep(scope, scenario string, rule int) (int, error)
	PutScenarioStep(scope, scenario string, rule int, n int) error
}
