package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

func idemRec(key string) sandbox.IdempotencyRecord {
	return sandbox.IdempotencyRecord{AppID: "a", Key: key, ResourceID: "TRN_" + key, Kind: "transaction", Time: ms(1)}
}

func mustPutKeys(t *testing.T, s *Store, keep time.Duration, keys ...string) {
	t.Helper()
	for _, k := range keys {
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutIdempotency(idemRec(k), keep) })
	}
}

// mustFind checks which of keys are found, with their own record.
func mustFind(t *testing.T, s *Store, want bool, keys ...string) {
	t.Helper()
	mustView(t, s, func(tx sandbox.Tx) error {
		for _, k := range keys {
			got, err := tx.Idempotency("a", k)
			switch {
			case want && (err != nil || !reflect.DeepEqual(got, idemRec(k))):
				t.Errorf("key %q = %+v, %v; want its record", k, got, err)
			case !want && !errors.Is(err, sandbox.ErrNotFound):
				t.Errorf("key %q: err = %v, want ErrNotFound", k, err)
			}
		}
		return nil
	})
}

func keysFrom(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprint(prefix, i)
	}
	return keys
}

// Keys fill a chunk and then the next; after a reopen the index finds every key again
// and new keys go to a chunk of their own.
func TestIdempotencyChunksRollOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	first := keysFrom("first-", 3*idemChunkEntries+1)
	mustPutKeys(t, s, time.Hour, first...)
	if n := mustCountKeys(t, s, idemChunkPrefix+"*"); n != 4 {
		t.Errorf("%d chunks after %d keys, want 4", n, len(first))
	}
	mustClose(t, s)
	s = mustOpen(t, path)
	mustFind(t, s, true, first...)
	mustPutKeys(t, s, time.Hour, "after-reopen")
	if n := mustBucketEntries(t, s, mustChunkOf(t, s, "a", "after-reopen")); n != 1 {
		t.Errorf("the first key after a reopen shares a chunk with %d others, want a chunk of its own", n-1)
	}
	mustFind(t, s, true, append(first, "after-reopen")...)
}

// An Update that fails leaves neither the entry nor the index behind: the key is
// free, and the chunk's next write keeps what was committed.
func TestIdempotencyFailedUpdateLeavesNoEntry(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	mustPutKeys(t, s, time.Hour, "kept")
	errAction := errors.New("the action failed")
	err := s.Update(func(tx sandbox.Tx) error {
		if err := tx.PutIdempotency(idemRec("failed"), time.Hour); err != nil {
			return err
		}
		if _, err := tx.Idempotency("a", "failed"); err != nil {
			return fmt.Errorf("own write not seen: %w", err)
		}
		return errAction
	})
	if !errors.Is(err, errAction) {
		t.Fatalf("Update = %v, want the action's error", err)
	}
	mustFind(t, s, false, "failed")
	mustPutKeys(t, s, time.Hour, "next")
	mustFind(t, s, true, "kept", "next")
	if n := mustBucketEntries(t, s, mustChunkOf(t, s, "a", "next")); n != 2 {
		t.Errorf("chunk holds %d entries, want the 2 committed", n)
	}
}

// A wipe in an Update forgets the keys written before it, in that Update and before,
// index included.
func TestIdempotencyWipeForgetsKeys(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	mustPutKeys(t, s, time.Hour, "before")
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return errors.Join(tx.PutIdempotency(idemRec("same-update"), time.Hour), tx.DeleteAll(),
			tx.PutIdempotency(idemRec("after"), time.Hour))
	})
	mustFind(t, s, false, "before", "same-update")
	mustFind(t, s, true, "after")
	if n := mustIndexLen(t, s); n != 1 {
		t.Errorf("index holds %d keys after the wipe, want 1", n)
	}
}

// When buntdb expires a chunk, its keys leave the index, except a key whose newer
// entry is in a later chunk.
func TestIdempotencyExpiredChunkLeavesIndex(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	short := keysFrom("short-", idemChunkEntries) // one whole chunk
	mustPutKeys(t, s, 50*time.Millisecond, short...)
	mustPutKeys(t, s, time.Hour, short[0]) // a newer entry, in the next chunk
	deadline := time.Now().Add(5 * time.Second)
	for mustIndexLen(t, s) > 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // buntdb expires items once a second
	}
	if n := mustIndexLen(t, s); n != 1 {
		t.Fatalf("index holds %d keys after the chunk expired, want 1", n)
	}
	mustFind(t, s, true, short[0])
	mustFind(t, s, false, short[1:]...)
}

func mustIndexLen(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	if err := s.db.View(func(*buntdb.Tx) error { n = len(s.idem.chunks); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// A file written with format-2 buckets (131,072 of them, idemkeys:<5 hex digits>)
// keeps its keys: they are read there, and new keys go to chunks.
func TestIdempotencyFormat2BucketsRead(t *testing.T) {
	id := idemIDOf("a", "old")
	value := string(appendIdemEntry([]byte{idemFormat}, id, idemRec("old"), uint64(time.Now().Add(time.Hour).UnixMilli())))
	s := mustReopenWithLegacyBucket(t, id.bucketKey(), value)
	mustPutKeys(t, s, time.Hour, "new")
	mustFind(t, s, true, "old", "new")
	mustFind(t, s, false, "never-written")
	if n := mustCountKeys(t, s, idemBucketPrefix+"*"); n != 1 {
		t.Errorf("%d buckets, want the 1 written before: new keys go to chunks", n)
	}
}

// The index keeps a chunk's number in 32 bits: it reads back as the latest number
// with those bits, across the wrap.
func TestIdempotencyIndexChunkNumbers(t *testing.T) {
	for _, tc := range []struct{ current, want uint64 }{
		{1, 1},
		{5, 3},
		{1<<32 + 2, 1<<32 - 1},
		{1<<32 + 2, 1<<32 + 2},
		{7<<32 + 9, 7<<32 + 1},
	} {
		ix := idemIndex{current: tc.current}
		if got := ix.seqOf(uint32(tc.want)); got != tc.want {
			t.Errorf("current %#x: seqOf(%#x) = %#x, want %#x", tc.current, uint32(tc.want), got, tc.want)
		}
	}
}

// Two keys whose ids share the 8 bytes the index knows them by are both found: the
// second goes to the overflow, when written and again when the index is rebuilt.
func TestIdempotencyIndexPrefixCollision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutKeys(t, s, time.Hour, "before")
	idB := idemIDOf("a", "b")
	idC := idB
	idC[idemIDSize-1] ^= 0xff // another key's id, as a hash might give one
	expires := uint64(time.Now().Add(time.Hour).UnixMilli())
	err := s.db.Update(func(t *buntdb.Tx) error {
		seq := s.idem.current
		key := idemChunkKey(seq)
		stored, _ := t.Get(key)
		payload, _ := unseal(key, stored)
		value := appendIdemEntry([]byte(payload), idC, idemRec("c"), expires)
		s.idem.place(idemPlacement{id: idC, seq: seq})
		s.idem.current = seq + 1 // b goes to another chunk
		_, _, err := t.Set(key, sealBytes(key, value), nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	mustPutKeys(t, s, time.Hour, "b")
	check := func(s *Store) {
		t.Helper()
		mustFind(t, s, true, "before", "b")
		mustView(t, s, func(tx sandbox.Tx) error {
			if _, found, err := tx.(interface {
				chunkRecord(idemID) (sandbox.IdempotencyRecord, bool, error)
			}).chunkRecord(idC); !found || err != nil {
				t.Errorf("the key sharing b's 8 bytes: found %v, %v", found, err)
			}
			if len(s.idem.overflow) != 1 {
				t.Errorf("overflow holds %d keys, want 1", len(s.idem.overflow))
			}
			return nil
		})
	}
	check(s)
	mustClose(t, s)
	check(mustOpen(t, path))
}
