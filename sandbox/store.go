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
	// Inspect runs fn in a read-only transaction, as View does, with the listings
	// only the admin inspector reads beside the Tx, in the same read.
	Inspect(fn func(Tx, InspectTx) error) error
	// Actions lists every action record kept, oldest first, and PaymentMethods every
	// card token in id order. They decode the records after their read: decoding
	// thousands inside one would hold up every write that long.
	Actions() ([]ActionRecord, error)
	PaymentMethods() ([]PaymentMethod, error)
	Close() error
}

// InspectTx lists records for the admin inspector, apart from Tx: no action reads
// them. Listings are in id order; BatchPage returns at most limit batches (all of
// them when limit < 0) whose id sorts after after ("" for the first page).
type InspectTx interface {
	BatchPage(after string, limit int) ([]Batch, error)
	Merchants() ([]Merchant, error)
	ScenarioSteps() ([]ScenarioStep, error)
	// Devices lists the terminals.
	Devices() ([]Device, error)
	// Notifications lists an order's outbox entries by seq, or every entry when
	// orderID is "".
	Notifications(orderID string) ([]Notification, error)
}

// Tx is one store transaction. Getters return ErrNotFound for a missing record.
// Writes inside a failed Update are rolled back.
type Tx interface {
	boardingTx
	settlementTx // deposits and disputes (settlement.go)
	actionTx
	rateTx
	App(id string) (App, error)
	PutApp(App) error
	Merchant(id string) (Merchant, error)
	PutMerchant(Merchant) error
	PricingProfile(name string) (PricingProfile, error)
	PutPricingProfile(PricingProfile) error

	Transaction(id string) (Transaction, error)
	PutTransaction(Transaction) error
	// Adjustments returns a transaction's adjustment history, oldest (lowest Seq)
	// first. History is kept apart from the transaction so that adjusting stays O(1)
	// however often a transaction is adjusted. AddAdjustment adds a to the history
	// and keeps only the newest keep entries, so that it cannot grow without bound.
	Adjustments(transactionID string) ([]Adjustment, error)
	AddAdjustment(transactionID string, a Adjustment, keep int) error
	// DeleteAdjustments forgets a transaction's history (the admin API replaced it).
	DeleteAdjustments(transactionID string) error
	Order(id string) (Order, error)
	PutOrder(Order) error

	// PaymentMethod reads a card token; PutPaymentMethod writes it and
	// DeletePaymentMethod forgets it (a missing one is no error).
	PaymentMethod(id string) (PaymentMethod, error)
	PutPaymentMethod(PaymentMethod) error
	DeletePaymentMethod(id string) error
	// Device reads a terminal; DeviceRequest reads a MiC request (a command sent to a
	// terminal).
	Device(id string) (Device, error)
	PutDevice(Device) error
	// BoundDevice reads the terminal of a merchant bound to an account, the lowest
	// id if several are; PendingDevices lists by id the terminals whose Pending names
	// a device request. Neither reads the other terminals.
	BoundDevice(merchantID, accountID string) (Device, error)
	PendingDevices() ([]Device, error)
	DeviceRequest(id string) (DeviceRequest, error)
	PutDeviceRequest(DeviceRequest) error

	// Batch reads a settlement batch; PutBatch writes it. BatchMembers lists the ids
	// of the transactions that joined a batch, by id; DeleteBatchMember takes one out.
	Batch(id string) (Batch, error)
	PutBatch(Batch) error
	BatchMembers(batchID string) ([]string, error)
	PutBatchMember(batchID, transactionID string) error
	DeleteBatchMember(batchID, transactionID string) error

	// Notification reads one outbox entry; PutNotification writes it, and keeps it in
	// the pending set exactly while its state is NotificationPending.
	Notification(orderID string, seq int) (Notification, error)
	PutNotification(Notification) error
	// PendingNotifications lists the pending entries ordered by order id, then seq.
	PendingNotifications() ([]Notification, error)

	// Tokens and idempotency records are kept for the given wall-clock duration and
	// then forgotten by the store itself, so the database does not grow with them.
	// Whether one is still valid is decided by the Service against the sandbox clock.
	// A token is found by its Hash (TokenHash of its value): the store never holds a
	// token's value.
	Token(hash string) (Token, error)
	PutToken(t Token, keep time.Duration) error
	// DeleteToken forgets a token for good; a missing token is no error.
	DeleteToken(hash string) error
	Idempotency(appID, key string) (IdempotencyRecord, error)
	PutIdempotency(r IdempotencyRecord, keep time.Duration) error
	// PaymentMark reads the last approved payment under a duplicate key (ErrNotFound
	// when none); PutPaymentMark replaces it, kept like an idempotency record.
	PaymentMark(key string) (PaymentMark, error)
	PutPaymentMark(m PaymentMark, keep time.Duration) error

	// DeleteAll wipes every record, for --reset and the admin reset.
	DeleteAll() error

	// Meta reads and writes small sandbox bookkeeping values (e.g. fixtures loaded).
	Meta(key string) (string, error)
	PutMeta(key, value string) error

	// ScenarioStep returns how many requests of a scope (a session or an app) a
	// scenario's counted rule (a sequence, or an outcome with a probability) has
	// reached so far: 0 when none. PutScenarioStep
	// stores the new count, kept for the given wall-clock duration from then;
	// reading and writing in one Update makes concurrent requests of one scope each
	// consume exactly one step.
	ScenarioStep(scope, scenario string, rule int) (int, error)
	PutScenarioStep(scope, scenario string, rule int, n int, keep time.Duration) error
	// TrimScenarioSteps drops the counters that would expire first (those whose scope
	// stepped longest ago) until at most keep are left.
	TrimScenarioSteps(keep int) error

	// Listings in id order. OrderPage returns at most limit orders (all of them when
	// limit < 0) whose id sorts after after ("" for the first page).
	OrderPage(after string, limit int) ([]Order, error)
	Apps() ([]App, error)

	// WalkTransactions calls fn with the transactions in the order orderBy names (one
	// of TransactionOrderings; ties in id order), descending when desc, starting after
	// the transaction after (nil: from the first) as it was given, at most limit of
	// them (all when limit < 0), until fn returns false. It returns the last
	// transaction it gave fn (after when none), and whether the walk reached the end.
	// A list reads in chunks, one short View each, rather than holding the store while
	// it reads everything: a transaction changed between two chunks keeps the place it
	// was given at. Of after, the walk reads only what the ordering compares: for ID
	// order, its id alone.
	WalkTransactions(orderBy string, desc bool, after *Transaction, limit int,
		fn func(Transaction) bool) (*Transaction, bool, error)
	// CountTransactions counts a merchant's listed transactions (Transaction.Listed)
	// without reading them.
	CountTransactions(merchantID string) (int, error)
}

// ScenarioStep is one sequence counter: how many requests of a scope a scenario's
// sequence rule has answered.
type ScenarioStep struct {
	Scenario string `json:"scenario"`
	Rule     int    `json:"rule"`
	Scope    string `json:"scope"`
	Count    int    `json:"count"`
}
