package store

import (
	"sync"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// txnCache keeps decoded transactions, so that adjusting a transaction, the hottest
// write of a test run, does not parse its JSON every time inside the single writer's
// lock. It only ever holds what the database holds:
//   - a read inside View or Update (buntdb excludes the one from the other) adds the
//     committed value it read;
//   - an Update's own writes are applied at the end of the Update, still under the
//     write lock, so no reader sees the database and the cache disagree; if the
//     commit fails after that, the cache is emptied.
//
// It is bounded: when full it starts over.
type txnCache struct {
	mu sync.RWMutex
	m  map[string]sandbox.Transaction
}

const txnCacheSize = 10000

func (c *txnCache) get(id string) (sandbox.Transaction, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.m[id]
	return cloneTransaction(t), ok
}

func (c *txnCache) put(t sandbox.Transaction) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(t)
}

func (c *txnCache) putLocked(t sandbox.Transaction) {
	if c.m == nil || len(c.m) >= txnCacheSize {
		c.m = make(map[string]sandbox.Transaction)
	}
	c.m[t.ID] = cloneTransaction(t)
}

func (c *txnCache) clear() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

// apply takes in what an Update wrote: after a wipe, only that.
func (c *txnCache) apply(w *pendingWrites) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.wiped {
		c.m = nil
	}
	for _, t := range w.txns {
		c.putLocked(t)
	}
}

// pendingWrites are the transactions an Update wrote, for reads later in the same
// Update and for the cache once it is done.
type pendingWrites struct {
	txns  map[string]sandbox.Transaction
	wiped bool // DeleteAll ran: the cache's values are gone
}

// cloneTransaction copies what a transaction's pointers and slices reach, so that the
// cache and its callers never share memory.
func cloneTransaction(t sandbox.Transaction) sandbox.Transaction {
	if t.PaymentMethod.BNPL != nil {
		bnpl := *t.PaymentMethod.BNPL
		t.PaymentMethod.BNPL = &bnpl
	}
	if t.Order != nil {
		order := *t.Order
		order.Taxes = append([]sandbox.Tax(nil), order.Taxes...)
		t.Order = &order
	}
	t.Scenarios = append([]string(nil), t.Scenarios...)
	return t
}
