// Package bounded is a size-bounded map for caches that may forget: when it is full,
// the next insertion starts it over. The sandbox's caches hold values that are cheap
// to rebuild (decoded records, authenticated callers), so a full reset is simpler than
// eviction and costs only a few misses.
package bounded

import "sync"

// Map is safe for concurrent use. The zero value is not ready: use New.
type Map[V any] struct {
	mu    sync.RWMutex
	m     map[string]V
	limit int
}

// New returns a map that holds at most limit entries.
func New[V any](limit int) *Map[V] { return &Map[V]{limit: limit} }

// Get returns the value at key.
func (b *Map[V]) Get(key string) (V, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	v, ok := b.m[key]
	return v, ok
}

// Put stores v at key, starting over when the map is full.
func (b *Map[V]) Put(key string, v V) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.put(key, v)
}

// Delete forgets key.
func (b *Map[V]) Delete(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, key)
}

// Clear forgets everything.
func (b *Map[V]) Clear() { b.Apply(true, nil) }

// Apply forgets everything first when clear is set, then stores entries, all under
// one lock: no reader sees half of it.
func (b *Map[V]) Apply(clear bool, entries map[string]V) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if clear {
		b.m = nil
	}
	for k, v := range entries {
		b.put(k, v)
	}
}

func (b *Map[V]) put(key string, v V) {
	if b.m == nil || len(b.m) >= b.limit {
		b.m = make(map[string]V)
	}
	b.m[key] = v
}
