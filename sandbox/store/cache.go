package store

import (
	"maps"
	"slices"
	"sync"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// recordCache keeps decoded records of the kinds every request reads (apps, merchants,
// pricing profiles, and transactions, the hottest write of a test run), so that a
// request does not parse their JSON every time, inside the single writer's lock for
// Updates. It only ever holds what the database holds:
//   - a read inside View or Update (buntdb excludes the one from the other) adds the
//     committed value it read;
//   - an Update's own writes are applied at the end of the Update, still under the
//     write lock, so no reader sees the database and the cache disagree; if the
//     commit fails after that, the cache is emptied.
//
// Values are copied in and out (deep enough for the domain's slices, maps and
// pointers), so callers never share memory with it. It is bounded: when full it
// starts over.
type recordCache struct {
	mu sync.RWMutex
	m  map[string]any // store key -> decoded record
}

const recordCacheSize = 10000

func (c *recordCache) get(key string) (any, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *recordCache) put(key string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, v)
}

func (c *recordCache) putLocked(key string, v any) {
	if c.m == nil || len(c.m) >= recordCacheSize {
		c.m = make(map[string]any)
	}
	c.m[key] = v
}

func (c *recordCache) clear() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

// apply takes in what an Update wrote: after a wipe, only that.
func (c *recordCache) apply(w *pendingWrites) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.wiped || w.overflow {
		c.m = nil
	}
	if w.overflow {
		return // more writes than the cache holds: start cold rather than copy them
	}
	for key, v := range w.records {
		c.putLocked(key, v)
	}
}

// pendingWrites are the cached kinds of records an Update wrote, for reads later in
// the same Update and for the cache once it is done.
type pendingWrites struct {
	records  map[string]any
	wiped    bool // DeleteAll ran: the cache's values are gone
	overflow bool // more writes than the cache holds (a fixture load): records stopped
}

// cachedGet reads key through the Update's own writes, the cache (unless the Update
// wiped everything) and the database, adding what it decoded to the cache.
func cachedGet[T any](x tx, key string, clone func(T) T) (T, error) {
	if x.writes != nil {
		if x.writes.overflow {
			return get[T](x.t, key) // records stopped: only the database is current
		}
		if v, ok := x.writes.records[key]; ok {
			return clone(v.(T)), nil
		}
		if x.writes.wiped {
			return get[T](x.t, key)
		}
	}
	if v, ok := x.cache.get(key); ok {
		return clone(v.(T)), nil
	}
	v, err := get[T](x.t, key)
	if err == nil {
		x.cache.put(key, clone(v))
	}
	return v, err
}

// cachedPut writes v at key and notes it for the cache.
func cachedPut[T any](x tx, key string, v T, clone func(T) T) error {
	if err := put(x.t, key, v); err != nil {
		return err
	}
	if len(x.writes.records) >= recordCacheSize {
		x.writes.overflow = true
	}
	if !x.writes.overflow {
		x.writes.records[key] = clone(v)
	}
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
	return t
}

func cloneApp(a sandbox.App) sandbox.App {
	a.Merchants = slices.Clone(a.Merchants)
	a.Scenarios = slices.Clone(a.Scenarios)
	a.Accounts = slices.Clone(a.Accounts)
	for i := range a.Accounts {
		a.Accounts[i].Permissions = slices.Clone(a.Accounts[i].Permissions)
	}
	return a
}

func cloneMerchant(m sandbox.Merchant) sandbox.Merchant {
	m.Scenarios = slices.Clone(m.Scenarios)
	return m
}

func clonePricingProfile(p sandbox.PricingProfile) sandbox.PricingProfile {
	p.Products = maps.Clone(p.Products)
	return p
}
