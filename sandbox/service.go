package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/bounded"
)

// IdempotencyWindow is how long a key that executed an action stays consumed [DOC].
const IdempotencyWindow = 24 * time.Hour

// expiredTokenRetention is how long an expired token is still recognised, so that it
// answers 40002 rather than 40001; after it the store forgets the token [SB].
const expiredTokenRetention = 24 * time.Hour

// idempotencyRetention is how long the store keeps a key's record in wall-clock time:
// the window itself is judged against the sandbox clock, and the extra day keeps a key
// consumed while a test holds the sandbox clock still.
const idempotencyRetention = 2 * IdempotencyWindow

// Service holds the sandbox's use cases. Every record lives in the Store, time comes
// from the Clock and identifiers from IDs; the Service keeps only a cache of callers
// (see Authenticate), the order schedule, whether any record binds a scenario, and
// its settings.
type Service struct {
	store    Store
	clock    Clock
	ids      IDs
	callers  *bounded.Map[Caller] // who a token belongs to; see Authenticate
	bound    atomic.Bool          // some stored record binds a scenario (see HasBindings)
	notified func()               // called after an outbox entry commits
	waiting  func()               // called after a terminal starts waiting for the customer

	orders    orderSchedule // the order schedule (delivery.go)
	snapshots Snapshots     // named copies of the state (snapshot.go); nil keeps none

	duplicateWindow atomic.Int64 // a time.Duration, see SetDuplicateWindow
	deposits        depositSettings
}

// callerCacheSize bounds the cache of authenticated callers.
const callerCacheSize = 10000

// NewService wires a Service.
func NewService(store Store, clock Clock, ids IDs) *Service {
	return &Service{store: store, clock: clock, ids: ids, callers: bounded.New[Caller](callerCacheSize)}
}

// Clock returns the sandbox clock the service reads.
func (s *Service) Clock() Clock { return s.clock }

// Caller is an authenticated API client: its token and its app.
type Caller struct {
	Token   Token
	App     App
	Request CallRequest // what the request carried, for its action record
	// Rehearsal runs an action's every check and write, then rolls the writes back
	// and answers ErrRehearsed: a scenario scripting an error in its place asks
	// whether GP would have refused the request first (A25).
	Rehearsal bool
}

// Sees reports whether the caller may see a record of merchant owner when asked through
// pathMerchant (the partner path's merchant; "" on a plain path): the app acts for the
// owner, and a partner path names the owner. Any other record is answered as unknown, so
// another merchant's record is indistinguishable from a missing one.
func (c Caller) Sees(owner, pathMerchant string) bool {
	return c.App.ActsFor(owner) && (pathMerchant == "" || pathMerchant == owner)
}

// merchantRecord is a record that belongs to one merchant.
type merchantRecord interface{ merchant() string }

func (t Transaction) merchant() string   { return t.MerchantID }
func (b Batch) merchant() string         { return b.MerchantID }
func (p PaymentMethod) merchant() string { return p.MerchantID }

// visible reads record id with get for a caller asking through pathMerchant: a missing
// record and one the caller does not see (Sees) are both notFound(id).
func visible[T merchantRecord](c Caller, pathMerchant, id string, get func(string) (T, error), notFound func(string) *Error) (T, error) {
	rec, err := get(id)
	if err != nil {
		return rec, notFoundAs(err, notFound(id))
	}
	if !c.Sees(rec.merchant(), pathMerchant) {
		var none T
		return none, notFound(id)
	}
	return rec, nil
}

// Operation names an API action, for authorization, the request journal and scenario
// rules (a rule's "operation" is one of these names). This is their one definition.
type Operation string

// The operations the sandbox serves.
const (
	OpAccessToken Operation = "accesstoken"
	OpAdjustment  Operation = "adjustment"
	OpOrder       Operation = "order"
)

// Operations lists every API operation the sandbox serves (not OpNotification, which
// is no request of a client), in the order the wire contract presents them.
func Operations() []Operation {
	ops := append([]Operation{OpAccessToken, OpAdjustment, OpOrder}, CardPresentOperations...)
	return append(append(append(ops, BoardingOperations...), SettlementOperations...), BackOfficeOperations...)
}

// Idempotency describes the idempotency key of a request and, in replay mode, what
// identifies the request, so that a true repeat can be told from a different request.
type Idempotency struct {
	Key     string
	Request string // replay mode: the request's identity, the same for a true repeat only (the api's digest of method, path and body)
	Replay  bool   // replay mode: a true repeat gets the original answer again
}

// Authenticate resolves a bearer token to its caller: 40001 when unknown, 40002 when
// known but expired.
func (s *Service) Authenticate(value string) (Caller, error) {
	if value == "" {
		return Caller{}, InvalidToken()
	}
	// A token never changes once issued and an app changes only when fixtures are
	// (re)loaded, which empties the cache; expiry is still judged on every request.
	// Reading both from the store on every request cost about a tenth of the keyed
	// adjustment's throughput (.ci/ab, this against it without the cache: at 64
	// connections -9.4% req/s and +11.2% CPU per request over 6 rounds, at one
	// -10.1% and +14.7% over 4).
	c, cached := s.callers.Get(value)
	if !cached {
		var err error
		if c, err = s.loadCaller(value); err != nil {
			return Caller{}, err
		}
	}
	// Judged on the sandbox clock, not on when the store happens to drop the record
	// (or the cache still holds it): past the retention a token is simply unknown.
	switch now := s.clock.Now(); {
	case !now.Before(c.Token.Expires.Add(expiredTokenRetention)):
		return Caller{}, s.forgetToken(value)
	case !now.Before(c.Token.Expires):
		return Caller{}, ExpiredToken()
	}
	return c, nil
}

// loadCaller reads a token and its app from the store into the caller cache. It is
// apart from Authenticate so that the cached path does not move its Caller to the
// heap for the closure.
func (s *Service) loadCaller(value string) (Caller, error) {
	var c Caller
	err := s.store.View(func(tx Tx) error {
		t, err := tx.Token(TokenHash(value))
		if err != nil {
			return notFoundAs(err, InvalidToken())
		}
		app, err := tx.App(t.AppID)
		if err != nil {
			return notFoundAs(err, InvalidToken())
		}
		c = Caller{Token: t, App: app}
		return nil
	})
	if err != nil {
		return Caller{}, err
	}
	s.callers.Put(value, c)
	return c, nil
}

// forgetToken deletes a token judged forgotten, from the store and the caller cache,
// so that it stays unknown even if the sandbox clock is later set back before its
// expiry: forgotten means gone. It answers what an unknown token answers.
func (s *Service) forgetToken(value string) error {
	if err := s.store.Update(func(tx Tx) error { return tx.DeleteToken(TokenHash(value)) }); err != nil {
		return err
	}
	s.callers.Delete(value)
	return InvalidToken()
}

// Authorize checks that the caller's token and app's live configuration allow op.
// The API asks it once per request, before it reads the body, as GP does; the
// actions the caller then asks for do not ask again.
func (s *Service) Authorize(c Caller, op Operation) error {
	switch op {
	case OpAdjustment:
		if c.Token.Has(PermAdjust) && c.App.Live.AdjustmentAllowed {
			return nil
		}
	case OpOrder:
		if c.Token.Has(PermOrder) && c.App.Live.OrdersAllowed {
			return nil
		}
	default:
		if err, ok := authorizeBackOffice(c, op); ok {
			return err
		}
		return authorizeCardPresent(c, op)
	}
	return PermissionDenied()
}

// execute runs one API action in one store transaction together with its idempotency
// bookkeeping: a key seen within the window refuses the action (or, in replay mode,
// returns the original answer); an action that fails writes nothing and leaves the
// key free; an action that succeeds consumes the key in the same commit. It reports
// whether the value is a replay, so that a replay has no side effect of its own.
//
// In replay mode the key's record keeps the action's typed value (JSON-encoded, as
// every record is), not the bytes sent: the api package renders the replayed value
// with the same views, so the client gets the first answer again byte for byte, and
// the domain never deals in wire shapes.
func execute[T any](s *Service, c Caller, idem Idempotency, kind string, action func(tx Tx, now time.Time) (string, T, error)) (T, bool, error) {
	run := &execution[T]{s: s, caller: c, appID: c.App.ID, idem: idem, kind: kind, action: action}
	err := s.update(c.Rehearsal, run.update)
	return run.value, run.replayed, err
}

// ErrRehearsed is what a rehearsed action answers when it would have succeeded: its
// writes were rolled back (Caller.Rehearsal).
var ErrRehearsed = errors.New("rehearsed: every check passed, nothing written")

// update runs fn in one store transaction; in a rehearsal fn runs whole and what it
// wrote is rolled back, ErrRehearsed standing for its success.
func (s *Service) update(rehearsal bool, fn func(Tx) error) error {
	if !rehearsal {
		return s.store.Update(fn)
	}
	return s.store.Update(func(tx Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return ErrRehearsed
	})
}

// execution is one call of execute: what its store transaction needs, and what it
// returns. A closure over execute's arguments and results put each of them on the
// heap, the caller's whole App included: one allocation instead of four per action.
type execution[T any] struct {
	s        *Service
	caller   Caller // whose action it is, for its action record
	appID    string
	idem     Idempotency
	kind     string
	action   func(tx Tx, now time.Time) (string, T, error)
	value    T
	replayed bool
}

func (r *execution[T]) update(tx Tx) error {
	now := r.s.clock.Now()
	idem := &r.idem
	rec, seen, err := recentKey(tx, r.appID, *idem, now)
	switch {
	case err != nil:
		return err
	case seen && idem.Replay && len(rec.Response) > 0 && rec.Request == idem.Request:
		r.replayed = true
		if err := json.Unmarshal(rec.Response, &r.value); err != nil {
			return fmt.Errorf("replay %s %s: %w", r.kind, rec.ResourceID, err)
		}
		return nil
	case seen:
		return duplicateOf(tx, rec, now)
	}
	id, v, err := r.action(tx, now)
	if err != nil {
		return err
	}
	r.value = v
	if err := recordAction(tx, r.caller, &r.value, now); err != nil {
		return err
	}
	if idem.Key == "" {
		return nil
	}
	rec = IdempotencyRecord{AppID: r.appID, Key: storedKey(idem.Key), ResourceID: id, Kind: r.kind, Time: now}
	if idem.Replay {
		// Only replay mode needs the request and the answer again: a day of keys
		// is kept, so outside it a key keeps only what a 409 names.
		rec.Request = idem.Request
		if rec.Response, err = json.Marshal(v); err != nil {
			return fmt.Errorf("keep %s %s for replay: %w", r.kind, id, err)
		}
	}
	return tx.PutIdempotency(rec, idempotencyRetention)
}

// RefuseUsedKey answers the 409 of an idempotency key that executed an action within
// the window, and nil for a key still free. The API asks it of a request whose body it
// refuses: GP looks the key up before it validates the body (A8).
func (s *Service) RefuseUsedKey(c Caller, key string) error {
	return s.store.View(func(tx Tx) error {
		return refuseUsedKey(tx, c.App.ID, Idempotency{Key: key}, s.clock.Now())
	})
}

// refuseUsedKey is the 409 of a key seen within the window (duplicateOf), nil for a
// free one.
func refuseUsedKey(tx Tx, appID string, idem Idempotency, now time.Time) error {
	rec, seen, err := recentKey(tx, appID, idem, now)
	if err != nil || !seen {
		return err
	}
	return duplicateOf(tx, rec, now)
}

// recentKey returns the record of the request's idempotency key when the key executed
// an action within the window; seen is false for a request without a key.
func recentKey(tx Tx, appID string, idem Idempotency, now time.Time) (rec IdempotencyRecord, seen bool, err error) {
	if idem.Key == "" {
		return rec, false, nil
	}
	rec, err = tx.Idempotency(appID, storedKey(idem.Key))
	switch {
	case errors.Is(err, ErrNotFound):
		return rec, false, nil
	case err != nil:
		return rec, false, err
	}
	return rec, now.Sub(rec.Time) < IdempotencyWindow, nil
}

// storedKey is an idempotency key as the store keeps it: a key is a client's free
// text, and one carrying card data is kept, and looked up, as its hash (see
// carddata.KeyWithout).
func storedKey(key string) string { return carddata.KeyWithout(key) }

// duplicateOf builds the 409 for a consumed key, naming the first resource and, for
// orders, boarded merchants and rate lookups, its current status [GP: .NET
// GpApiMerchantsOnboardTest BoardMerchant_WithIdempotency].
func duplicateOf(tx Tx, rec IdempotencyRecord, now time.Time) error {
	switch rec.Kind {
	case "currency_conversion":
		return duplicateRate(tx, rec)
	case "order":
		status := OrderInitiated
		if o, err := tx.Order(rec.ResourceID); err == nil {
			status = o.Status
		}
		return DuplicateAction(rec.ResourceID, status)
	case "merchant":
		if m, err := tx.Merchant(rec.ResourceID); err == nil && m.Boarding != nil {
			return DuplicateAction(rec.ResourceID, m.Boarding.StatusAt(now))
		}
	}
	return DuplicateAction(rec.ResourceID, "")
}

// Action types as GP's answers name them [GP]: a sale is AUTHORIZE, an authorization
// to capture later PREAUTHORIZE; a read answers an action of its own (the _SINGLE and
// _LIST types), not the last one the resource recorded.
const (
	ActionAuthorize        = "AUTHORIZE"
	ActionPreauthorize     = "PREAUTHORIZE"
	ActionRefund           = "REFUND"
	ActionVerify           = "VERIFY"
	ActionCapture          = "CAPTURE"
	ActionReverse          = "REVERSE"
	ActionReauthorization  = "REAUTHORIZATION"
	ActionIncrement        = "INCREMENT"
	ActionTransactionOne   = "TRANSACTION_SINGLE"
	ActionTransactionList  = "TRANSACTION_LIST"
	ActionPaymentMethodOne = "PAYMENT_METHOD_SINGLE"
	ActionBatchOne         = "BATCH_SINGLE"
)

// ReadAction is the action a read answers: GP records one for every request.
func (s *Service) ReadAction(c Caller, kind string) Action {
	return s.newAction(c, kind, s.clock.Now())
}

// newAction records what a request did, with a fresh ACT_ id.
func (s *Service) newAction(c Caller, kind string, now time.Time) Action {
	return Action{
		ID: "ACT_" + s.ids.Alphanumeric(30), Type: kind, TimeCreated: FormatTime(now),
		ResultCode: "SUCCESS", AppID: c.App.ID, AppName: c.App.Name,
	}
}

// notFoundAs maps ErrNotFound to the given GP error and passes other errors through.
func notFoundAs(err error, gp *Error) error {
	if errors.Is(err, ErrNotFound) {
		return gp
	}
	return err
}

// Fixtures is the seed data: what the sandbox knows before any request.
type Fixtures struct {
	Apps            []App
	Merchants       []Merchant
	PricingProfiles []PricingProfile
	Transactions    []Transaction
	Devices         []Device
	Accounts        []MerchantAccount // the merchants' accounts (merchant_accounts.go)
	Deposits        []Deposit
	Disputes        []Dispute
	Actions         []ActionRecord
}

const fixturesLoadedMeta = "fixtures_loaded"

// bindingsMeta is present once any stored record binds a scenario.
const bindingsMeta = "scenario_bindings"

// HasBindings reports whether any stored app, merchant or transaction binds a
// scenario. When none does and no scenario is named or global, a request needs no
// scenario lookups at all.
func (s *Service) HasBindings() bool { return s.bound.Load() }

// bindScenarios reports whether any record of the fixtures binds a scenario.
func (f Fixtures) bindScenarios() bool {
	for _, a := range f.Apps {
		if len(a.Scenarios) > 0 {
			return true
		}
	}
	for _, m := range f.Merchants {
		if len(m.Scenarios) > 0 {
			return true
		}
	}
	for _, t := range f.Transactions {
		if len(t.Scenarios) > 0 {
			return true
		}
	}
	return false
}

// FixturesLoaded reports whether fixtures were loaded into the store before.
func (s *Service) FixturesLoaded() (bool, error) {
	loaded := false
	err := s.store.View(func(tx Tx) error {
		_, err := tx.Meta(fixturesLoadedMeta)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		loaded = err == nil
		return err
	})
	return loaded, err
}

// LoadFixtures seeds the store in one transaction. Without reset it does nothing when
// fixtures were loaded before, so a restart keeps what the API changed; with reset it
// wipes everything first. It reports whether it loaded.
func (s *Service) LoadFixtures(f Fixtures, reset bool) (bool, error) {
	loaded, bound := false, false
	err := s.store.Update(func(tx Tx) error {
		if !reset {
			if _, err := tx.Meta(fixturesLoadedMeta); err == nil {
				_, err := tx.Meta(bindingsMeta)
				bound = err == nil
				return nil
			} else if !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if err := tx.DeleteAll(); err != nil {
			return err
		}
		if err := putFixtures(tx, f); err != nil {
			return err
		}
		if err := putDefaultMerchant(tx, f); err != nil {
			return err
		}
		loaded, bound = true, f.bindScenarios()
		if bound {
			if err := tx.PutMeta(bindingsMeta, "yes"); err != nil {
				return err
			}
		}
		return tx.PutMeta(fixturesLoadedMeta, FormatTime(s.clock.Now()))
	})
	if err == nil {
		s.bound.Store(bound)
	}
	if loaded && err == nil {
		// After the commit: a caller cached while the update ran is dropped too.
		s.callers.Clear()
		s.orders.forget()
	}
	return loaded, err
}

func putFixtures(tx Tx, f Fixtures) error {
	for _, p := range f.PricingProfiles {
		if err := tx.PutPricingProfile(p); err != nil {
			return err
		}
	}
	for _, m := range f.Merchants {
		if err := tx.PutMerchant(m); err != nil {
			return err
		}
	}
	for _, a := range f.Apps {
		if err := tx.PutApp(a); err != nil {
			return err
		}
	}
	closed := closedFixtureBatches(f)
	for _, t := range f.Transactions {
		t = t.withCardMembersMasked() // fixtures are data like any request's
		t.BatchClosed = t.BatchClosed || closed[t.BatchID]
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
	}
	if err := putFixtureBatches(tx, f); err != nil {
		return err
	}
	if err := putFixtureAccounts(tx, f.Accounts); err != nil {
		return err
	}
	if err := putFixtureDevices(tx, f.Devices); err != nil {
		return err
	}
	if err := putSettlementFixtures(tx, f); err != nil {
		return err
	}
	return putFixtureActions(tx, f.Actions)
}

// Action is the action block of a response: what the last request did.
type Action struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	TimeCreated string `json:"time_created"`
	ResultCode  string `json:"result_code"`
	AppID       string `json:"app_id"`
	AppName     string `json:"app_name"`
}

// IdempotencyRecord remembers what an idempotency key executed, for 24 hours: what a
// repeat's 409 names (the first resource, and for an order its status), and in replay
// mode what a true repeat gets again. The app and the key name the record in the store
// and are not kept again inside it: a day of keys can be millions of records.
type IdempotencyRecord struct {
	AppID      string          `json:"-"`
	Key        string          `json:"-"`
	ResourceID string          `json:"resource_id"`
	Kind       string          `json:"kind"` // "transaction" or "order": what ResourceID names
	Time       time.Time       `json:"time"`
	Request    string          `json:"request,omitempty"`  // replay mode only: Idempotency.Request of the first request
	Response   json.RawMessage `json:"response,omitempty"` // replay mode only: the action's typed value, JSON-encoded
}
