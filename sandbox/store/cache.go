package store

import (
	"maps"
	"slices"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/bounded"
)

// recordCache keeps decoded records of the kinds every request reads (apps, merchants,
// pricing profiles, and transactions, the hottest write of a test run), of batches
// (every adjustment and capture reads its merchant's open one) and of notifications
// (which the notification worker reads on every pass), so that a request does not
// decode them every time, inside the single writer's lock for Updates. It only ever holds what the database holds:
//   - a read inside View or Update (buntdb excludes the one from the other) adds the
//     committed value it read;
//   - an Update's own writes are applied at the end of the Update, still under the
//     write lock, so no reader sees the database and the cache disagree; if the
//     commit fails after that, the cache is emptied.
//
// Values are copied in and out (deep enough for the domain's slices, maps and
// pointers), so callers never share memory with it. It is bounded: when full it
// starts over.
type recordCache = bounded.Map[any] // store key -> decoded record

const recordCacheSize = 10000

// applyWrites takes in what an Update wrote, under one lock: after a wipe, or when
// the Update wrote more than the cache holds, the cache starts cold. The
// transaction an Update's own written one replaces is kept in spare, for the next
// (see cachedPutTransaction).
func applyWrites(c *recordCache, w *pendingWrites, spare **sandbox.Transaction) {
	if w.overflow {
		c.Clear()
		return
	}
	if w.wiped || len(w.records) != 1 {
		c.Apply(w.wiped, w.records)
		return
	}
	for key, v := range w.records { // one record: an adjustment's transaction
		written, ok := v.(*sandbox.Transaction)
		old, _ := c.Get(key)
		c.Apply(false, w.records)
		if replaced, isTxn := old.(*sandbox.Transaction); ok && isTxn && replaced != written {
			*spare = replaced
		}
	}
}

// cachedValue is a record as the cache holds it: a value of type T or, for a
// transaction an Update wrote, a pointer to one (cachedPutTransaction).
func cachedValue[T any](v any) T {
	if p, ok := v.(*T); ok {
		return *p
	}
	return v.(T)
}

// pendingWrites are the cached kinds of records an Update wrote, for reads later in
// the same Update and for the cache once it is done.
type pendingWrites struct {
	records  map[string]any // nil until the first write
	wiped    bool           // DeleteAll ran: the cache's values are gone
	overflow bool           // more writes than the cache holds (a fixture load): records stopped
	// The idempotency entries the Update wrote, and the chunk it wrote last (0:
	// none), for the index once it commits (idemlog.go).
	idemPlaced  []idemPlacement
	idemCurrent uint64
	// The id of the last idempotency key looked up: an Update that checks a key
	// then writes it hashes it once.
	lastIdem struct {
		appID, key string
		id         idemID
		known      bool
	}
}

// start empties the writes of the Store's last Update for the next one, which one
// at a time reuse them: that spares an Update two allocations. A large map (a
// fixture load's) is let go rather than kept.
func (w *pendingWrites) start() *pendingWrites {
	records := w.records
	if len(records) > 64 {
		records = nil
	} else {
		clear(records)
	}
	*w = pendingWrites{records: records, idemPlaced: w.idemPlaced[:0]}
	return w
}

// cachedGet reads key through the Update's own writes, the cache (unless the Update
// wiped everything) and the database, adding what it decoded to the cache.
func cachedGet[T any](x tx, key string, clone func(T) T) (T, error) {
	if x.writes != nil {
		if x.writes.overflow {
			return get[T](x.t, key) // records stopped: only the database is current
		}
		if v, ok := x.writes.records[key]; ok {
			return clone(cachedValue[T](v)), nil
		}
		if x.writes.wiped {
			return get[T](x.t, key)
		}
	}
	if v, ok := x.cache.Get(key); ok {
		return clone(cachedValue[T](v)), nil
	}
	v, err := get[T](x.t, key)
	if err == nil {
		x.cache.Put(key, clone(v))
	}
	return v, err
}

// cachedPut writes v at key and notes it for the cache. The copy the cache keeps is
// the one encoded: boxing a record as an interface copies it to the heap, and
// transactions are large enough for that copy to be a tenth of what a request
// allocated, so it is made once.
func cachedPut[T any](x tx, key string, v T, clone func(T) T) error {
	if len(x.writes.records) >= recordCacheSize {
		x.writes.overflow = true
	}
	var record any
	if x.writes.overflow {
		record = v
	} else {
		record = clone(v)
	}
	if err := x.putRecord(key, record); err != nil {
		return err
	}
	if !x.writes.overflow {
		if x.writes.records == nil {
			x.writes.records = map[string]any{}
		}
		x.writes.records[key] = record
	}
	return nil
}

// cachedPutTransaction is cachedPut for a transaction, which the cache holds by
// pointer: an adjustment rewrites the same transaction on every request, and
// boxing a copy of it (776 bytes) for the cache was a third of the bytes an
// adjustment's Update allocated (BenchmarkAdjustmentUpdate). The copy the cache
// held before is taken back once the Update commits (applyWrites) and written
// over by the next Update that writes a transaction: by then it is neither in the
// cache nor read by anyone, every reader copying a cached record out under the
// database's lock (cachedGet, committedTransaction), which no View holds while an
// Update runs.
func (x tx) cachedPutTransaction(key string, t sandbox.Transaction) error {
	if x.spare == nil || x.writes.overflow || len(x.writes.records) >= recordCacheSize {
		return cachedPut(x, key, t, cloneTransaction)
	}
	p := *x.spare
	if p == nil {
		p = new(sandbox.Transaction)
	}
	*x.spare = nil
	*p = cloneTransaction(t)
	if err := x.putTransaction(key, p); err != nil {
		return err
	}
	if x.writes.records == nil {
		x.writes.records = map[string]any{}
	}
	x.writes.records[key] = p
	return nil
}

func cloneTransaction(t sandbox.Transaction) sandbox.Transaction {
	if t.PaymentMethod.BNPL != nil {
		bnpl := *t.PaymentMethod.BNPL
		t.PaymentMethod.BNPL = &bnpl
	}
	if t.Order != nil {
		order := *t.Order
		order.Taxes = slices.Clone(order.Taxes)
		t.Order = &order
	}
	t.Scenarios = slices.Clone(t.Scenarios)
	if t.Lodging != nil {
		l := *t.Lodging
		l.ChargeItems = slices.Clone(l.ChargeItems)
		for i := range l.ChargeItems {
			l.ChargeItems[i].Types = slices.Clone(l.ChargeItems[i].Types)
			l.ChargeItems[i].ProgramCodes = slices.Clone(l.ChargeItems[i].ProgramCodes)
		}
		t.Lodging = &l
	}
	return t
}

// cloneBatch drops Members, which the database does not keep either (json:"-"): a
// cached batch reads back as a stored one does.
func cloneBatch(b sandbox.Batch) sandbox.Batch {
	b.Members = nil
	return b
}

func cloneApp(a sandbox.App) sandbox.App {
	a.Merchants = slices.Clone(a.Merchants)
	a.Scenarios = slices.Clone(a.Scenarios)
	a.Accounts = slices.Clone(a.Accounts)
	a.Live.Operations = slices.Clone(a.Live.Operations)
	for i := range a.Accounts {
		a.Accounts[i].Permissions = slices.Clone(a.Accounts[i].Permissions)
	}
	return a
}

func cloneNotification(n sandbox.Notification) sandbox.Notification {
	n.Attempts = slices.Clone(n.Attempts)
	n.Order = cloneOrder(n.Order)
	return n
}

func cloneOrder(o sandbox.Order) sandbox.Order {
	r := &o.Request
	r.Products = slices.Clone(r.Products)
	r.Addresses = slices.Clone(r.Addresses)
	for i := range r.Addresses {
		r.Addresses[i].Functions = slices.Clone(r.Addresses[i].Functions)
	}
	if r.PaymentMethod != nil {
		p := *r.PaymentMethod
		r.PaymentMethod = &p
	}
	o.History = slices.Clone(o.History)
	return o
}

func cloneMerchant(m sandbox.Merchant) sandbox.Merchant {
	m.Scenarios = slices.Clone(m.Scenarios)
	return m
}

func clonePricingProfile(p sandbox.PricingProfile) sandbox.PricingProfile {
	p.Products = maps.Clone(p.Products)
	return p
}
