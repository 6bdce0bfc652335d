package store

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/buntdb"
)

// New idempotency entries are appended to chunks, in the order they are written:
// idemlog:<16 hex digits, the chunk's sequence number>, each holding up to
// idemChunkEntries entries in the bucket format (a format byte, then entries; see
// idempotency.go), with a buntdb TTL as long as its longest-lived entry. An index
// in memory (idemIndex) says which chunk holds a key's newest entry.
//
// The profile chose this over hashed buckets: with 131,072 buckets every new key
// rewrote a bucket picked at random, whose tree nodes and bytes were cold in a heap
// of millions of keys, and moved it in buntdb's expiry tree; that was about a third
// of an adjustment's Update. A new key now rewrites the newest chunk, which is hot,
// and at the end of the expiry tree. What a write copies no longer grows with the
// keys kept (a chunk holds at most 8 entries, about 300 bytes on average, where a
// bucket held 8 at a million keys and 15 at two million). The index costs about 30
// bytes of heap per key: 129 bytes a key in all at a million keys, where buckets
// took 99 (BenchmarkRetainedIdempotencyKeys).
//
// The index is rebuilt from the chunks when the store opens, and changed only under
// the writer's lock: an Update stages its entries (pendingWrites) and they reach the
// index when it commits; buntdb's expiry of a chunk removes the chunk's entries
// (idemIndex.expire). It is a hint that is always checked: a lookup reads the chunk
// it names and searches it for the key, so an entry the index names wrongly (after
// a failed commit, until the next open) reads as missing, as it is. Entries stay in
// their chunk once expired, for the expiry to name them.
const (
	idemChunkPrefix  = "idemlog:"
	idemChunkEntries = 8
)

// idemIndex maps the id of each key written to chunks to the chunk holding its
// newest entry. It is read under buntdb's lock (View or Update) and written only
// under its write lock.
//
// It is kept small, about 28 bytes of heap per key and no pointers for the
// collector: a key is known by the first 8 bytes of its id and a chunk by the low 32
// bits of its number (seqOf). A lookup checks the whole id in the chunk, so two
// keys that share 8 bytes (about once in 10^7 runs of two million keys) must not
// share the slot: when a new key's 8 bytes are already held by another key's entry,
// the new key goes to overflow, by its whole id.
type idemIndex struct {
	chunks   map[idemIndexKey]uint32 // id's first 8 bytes -> chunk number, low 32 bits
	overflow map[idemID]uint64       // the rare keys whose first 8 bytes another key holds
	current  uint64                  // the chunk new entries go to
	tail     chunkTail               // what the chunk written last holds (idemtail.go)
}

type idemIndexKey [8]byte

func (id idemID) indexKey() idemIndexKey { return idemIndexKey(id[:8]) }

func newIdemIndex() *idemIndex {
	return &idemIndex{chunks: map[idemIndexKey]uint32{}, overflow: map[idemID]uint64{}}
}

// seqOf is the chunk number whose low 32 bits are low: the latest one at or before
// the current chunk. A chunk lives as long as its entries (two days for the API's
// keys), and 2^32 chunks are 34 billion keys, so no live chunk is that far behind.
func (ix *idemIndex) seqOf(low uint32) uint64 {
	return ix.current - uint64(uint32(ix.current)-low)
}

// idemPlacement is one entry an Update wrote: id's entry is in chunk seq, indexed
// in overflow or not.
type idemPlacement struct {
	id       idemID
	seq      uint64
	overflow bool
}

func idemChunkKey(seq uint64) string {
	var b [len(idemChunkPrefix) + 16]byte
	copy(b[:], idemChunkPrefix)
	const hex = "0123456789abcdef"
	for i := len(b) - 1; i >= len(idemChunkPrefix); i-- {
		b[i] = hex[seq&15]
		seq >>= 4
	}
	return string(b[:])
}

// idemChunkSeq is the sequence number of a chunk's key; false for other keys.
func idemChunkSeq(key string) (uint64, bool) {
	if len(key) != len(idemChunkPrefix)+16 || key[:len(idemChunkPrefix)] != idemChunkPrefix {
		return 0, false
	}
	seq, err := strconv.ParseUint(key[len(idemChunkPrefix):], 16, 64)
	return seq, err == nil
}

// load builds the index from the chunks in db; new entries go to a fresh chunk
// after the last one.
func (ix *idemIndex) load(db *buntdb.DB) error {
	return db.Update(func(t *buntdb.Tx) error { // the write lock: expire may run meanwhile
		var loadErr error
		err := t.AscendKeys(idemChunkPrefix+"*", func(key, value string) bool {
			loadErr = ix.add(t, key, value)
			return loadErr == nil
		})
		if err == nil {
			err = loadErr
		}
		ix.current++
		return err
	})
}

// add indexes the entries of the chunk at key, whose stored value is value. Chunks
// come in the order they were written, so a later entry of a key replaces an
// earlier one.
func (ix *idemIndex) add(t *buntdb.Tx, key, value string) error {
	seq, ok := idemChunkSeq(key)
	if !ok {
		return fmt.Errorf("store: %.40q: %w: not a chunk key", key, errIdemBucket)
	}
	ix.current = max(ix.current, seq)
	var full [idemChunkEntries]idemID // a chunk's worth on the stack: a restart adds every chunk
	ids := full[:0]
	if err := eachChunkEntry(key, value, func(id idemID) { ids = append(ids, id) }); err != nil {
		return err
	}
	for _, id := range ids {
		holder, held := ix.chunks[id.indexKey()]
		over := false
		if _, in := ix.overflow[id]; in {
			over = true
		} else if held {
			var err error
			if over, err = chunkHoldsOther(t, ix.seqOf(holder), id); err != nil {
				return err
			}
		}
		ix.place(idemPlacement{id: id, seq: seq, overflow: over})
	}
	return nil
}

// place indexes one entry.
func (ix *idemIndex) place(p idemPlacement) {
	if p.overflow {
		ix.overflow[p.id] = p.seq
	} else {
		ix.chunks[p.id.indexKey()] = uint32(p.seq)
	}
}

// chunkHoldsOther reports whether the chunk seq holds an entry of another id with
// the same first 8 bytes as id.
func chunkHoldsOther(t *buntdb.Tx, seq uint64, id idemID) (bool, error) {
	key := idemChunkKey(seq)
	stored, err := readBucket(t, key)
	if err != nil || stored == "" {
		return false, err
	}
	other := false
	err = eachChunkEntry(key, stored, func(e idemID) {
		other = other || e.indexKey() == id.indexKey() && e != id
	})
	return other, err
}

// unreadableChunk reports whether key names an idempotency chunk whose stored value
// does not parse.
func unreadableChunk(key, stored string) bool {
	if _, ok := idemChunkSeq(key); !ok {
		return false
	}
	return eachChunkEntry(key, stored, func(idemID) {}) != nil
}

// eachChunkEntry calls fn with the id of each entry of a chunk's stored value.
func eachChunkEntry(key, value string, fn func(idemID)) error {
	payload, err := unseal(key, value)
	if err != nil {
		return err
	}
	entries, err := splitIdemChunk(payload)
	if err != nil {
		return fmt.Errorf("store: idempotency chunk %s: %w", key, err)
	}
	it := idemEntries{rest: entries}
	for it.next() {
		fn(it.id)
	}
	if it.err != nil {
		return fmt.Errorf("store: idempotency chunk %s: %w", key, it.err)
	}
	return nil
}

// expire is buntdb's OnExpiredSync: it deletes an expired item, as buntdb does
// without one, and takes an expired chunk's entries out of the index (those whose
// newest entry it still holds).
func (ix *idemIndex) expire(key, value string, t *buntdb.Tx) error {
	if _, err := t.Delete(key); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
		return err
	}
	seq, ok := idemChunkSeq(key)
	if !ok {
		return nil
	}
	_ = eachChunkEntry(key, value, func(id idemID) { // a damaged chunk was refused at open
		if ix.overflow[id] == seq {
			delete(ix.overflow, id)
		}
		if k := id.indexKey(); ix.chunks[k] == uint32(seq) {
			delete(ix.chunks, k)
		}
	})
	return nil
}

// apply takes in what a committing Update wrote: after a wipe the index starts
// empty (the chunk numbers go on).
func (ix *idemIndex) apply(w *pendingWrites) {
	if w.wiped {
		clear(ix.chunks)
		clear(ix.overflow)
	}
	if w.idemCurrent != 0 {
		ix.current = w.idemCurrent
	}
	for _, p := range w.idemPlaced {
		ix.place(p)
	}
}

// idemChunkOf returns the chunk that holds id's newest entry, the Update's own
// writes first.
func (x tx) idemChunkOf(id idemID) (uint64, bool) {
	if x.writes != nil {
		for i := len(x.writes.idemPlaced) - 1; i >= 0; i-- {
			if x.writes.idemPlaced[i].id == id {
				return x.writes.idemPlaced[i].seq, true
			}
		}
		if x.writes.wiped {
			return 0, false
		}
	}
	if seq, ok := x.idem.overflow[id]; ok {
		return seq, true
	}
	low, ok := x.idem.chunks[id.indexKey()]
	return x.idem.seqOf(low), ok
}

// idemOverflows decides whether id's new entry goes to the index's overflow: when it
// is there already, or when the entry that holds its first 8 bytes in the index (the
// Update's own writes first) is another key's.
func (x tx) idemOverflows(id idemID) (bool, error) {
	for i := len(x.writes.idemPlaced) - 1; i >= 0; i-- {
		p := x.writes.idemPlaced[i]
		if p.id == id && p.overflow {
			return true, nil
		}
		if p.id.indexKey() == id.indexKey() && !p.overflow {
			return chunkHoldsOther(x.t, p.seq, id)
		}
	}
	if x.writes.wiped {
		return false, nil
	}
	if _, ok := x.idem.overflow[id]; ok {
		return true, nil
	}
	if low, ok := x.idem.chunks[id.indexKey()]; ok {
		return chunkHoldsOther(x.t, x.idem.seqOf(low), id)
	}
	return false, nil
}

// currentChunk is the chunk the Update's next entry goes to, unless it is full.
func (x tx) currentChunk() uint64 {
	if x.writes.idemCurrent != 0 {
		return x.writes.idemCurrent
	}
	return x.idem.current
}
