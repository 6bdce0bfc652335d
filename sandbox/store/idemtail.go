package store

// The chunk an adjustment's key goes to is nearly always the one the Store wrote
// last, so the Store remembers what that chunk holds (chunkTail): the ids of its
// entries and its latest expiry. A new key then appends its entry to the chunk's
// bytes as they are, where the chunk was counted and every entry walked again on
// each write (a fifth of PutIdempotency's own time in BenchmarkAdjustmentUpdate).
//
// The memory describes one stored value, compared whole with what buntdb holds at
// the chunk's key before it is used (the comparison stops at once when both are the
// same string, as they are after the Store's own write): a rolled-back Update, a
// wipe, an expiry or a compaction can change what the key holds, never what that
// value says.
type chunkTail struct {
	key, stored string // the chunk's key and sealed value described ("": nothing)
	ids         [idemChunkEntries]idemID
	entries     int
	longest     uint64 // the latest expiry of its entries; 0 when one is kept for good
}

// describes returns whether the tail describes stored at key.
func (c *chunkTail) describes(key, stored string) bool {
	return stored != "" && c.key == key && c.stored == stored
}

// holds reports whether the chunk described has an entry of id.
func (c *chunkTail) holds(id idemID) bool {
	for _, e := range c.ids[:c.entries] {
		if e == id {
			return true
		}
	}
	return false
}

// remember describes the chunk whose sealed value stored, of payload, is at key;
// a chunk it cannot read is forgotten.
func (c *chunkTail) remember(key, stored, payload string) {
	*c = chunkTail{}
	entries, err := splitIdemChunk(payload)
	if err != nil {
		return
	}
	n, longest := 0, uint64(0)
	it := idemEntries{rest: entries}
	for it.next() {
		e, err := idemEntryExpiry(it.body)
		if err != nil || n == idemChunkEntries {
			return
		}
		longest = laterExpiry(longest, e, n == 0)
		c.ids[n] = it.id
		n++
	}
	if it.err != nil || n == 0 {
		return
	}
	c.key, c.stored, c.entries, c.longest = key, stored, n, longest
}

// appendEntry notes the entry of id, with its expiry, that stored (at the same key)
// appended to the chunk described.
func (c *chunkTail) appendEntry(stored string, id idemID, expires uint64) {
	c.stored = stored
	c.longest = laterExpiry(c.longest, expires, false)
	c.ids[c.entries] = id
	c.entries++
}

// laterExpiry is the latest of two expiries, 0 (kept for good) when either is;
// with first, e alone.
func laterExpiry(longest, e uint64, first bool) uint64 {
	if first {
		return e
	}
	if e == 0 || longest == 0 {
		return 0
	}
	return max(longest, e)
}
