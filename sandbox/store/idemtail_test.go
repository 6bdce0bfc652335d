package store

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// A write to the chunk the Store wrote last appends to it from the Store's memory
// of it; the chunk must come out byte for byte as a rewrite of what buntdb held
// writes it, with the TTL of its longest-lived entry, whatever came before: entries
// kept for good, short and long ones, a key written again, a rolled-back Update and
// a roll-over to the next chunk.
func TestIdempotencyChunkTailWritesAsRewrite(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	errRollBack := errors.New("rolled back")
	steps := []struct {
		key  string
		keep time.Duration
		fail bool
	}{
		{"a", time.Hour, false}, {"b", 0, false}, {"c", 20 * time.Millisecond, false},
		{"a", 2 * time.Hour, false}, {"x", time.Hour, true}, {"d", time.Hour, false},
		{"e", 30 * time.Minute, false}, {"f", time.Hour, false}, {"g", time.Hour, false},
		{"h", time.Hour, false}, {"i", time.Hour, false}, {"j", 10 * time.Minute, false},
		{"k", time.Hour, false}, {"x", time.Hour, true}, {"l", 3 * time.Hour, false},
	}
	for _, step := range steps {
		err := s.Update(func(sx sandbox.Tx) error {
			x := sx.(tx)
			seq := x.currentChunk()
			before := mustChunkPayload(t, x.t, idemChunkKey(seq))
			if err := x.PutIdempotency(idemRec(step.key), step.keep); err != nil {
				return err
			}
			if x.writes.idemCurrent != seq { // rolled over to a new chunk
				seq, before = x.writes.idemCurrent, ""
			}
			mustMatchRewrite(t, x.t, idemChunkKey(seq), before, idemRec(step.key))
			if step.fail {
				return errRollBack
			}
			return nil
		})
		if step.fail != errors.Is(err, errRollBack) || !step.fail && err != nil {
			t.Fatalf("key %q: Update = %v", step.key, err)
		}
	}
	mustFind(t, s, true, "a", "b", "d", "e", "f", "g", "h", "i", "j", "k", "l")
	mustFind(t, s, false, "x")
}

// mustChunkPayload returns the payload of the chunk at key, "" when missing.
func mustChunkPayload(t *testing.T, bx *buntdb.Tx, key string) string {
	t.Helper()
	stored, err := readBucket(bx, key)
	if err == nil {
		stored, err = unsealChunk(key, stored)
	}
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

// mustMatchRewrite checks that the chunk at key holds what rewriteChunk makes of
// the chunk before (its payload) and r's entry, last in the chunk, and that its TTL
// is that of the longest-lived entry.
func mustMatchRewrite(t *testing.T, bx *buntdb.Tx, key, before string, r sandbox.IdempotencyRecord) {
	t.Helper()
	got := mustChunkPayload(t, bx, key)
	entries, err := splitIdemChunk(got)
	if err != nil {
		t.Fatal(err)
	}
	var last idemEntries
	for it := (idemEntries{rest: entries}); it.next(); {
		last = it
	}
	expires, err := idemEntryExpiry(last.body)
	if err != nil {
		t.Fatal(err)
	}
	want, longest, err := rewriteChunk(nil, before, idemIDOf(r.AppID, r.Key), r, expires)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("key %q: chunk %s = %x, want %x", r.Key, key, got, want)
	}
	ttl, err := bx.TTL(key)
	if err != nil {
		t.Fatal(err)
	}
	switch wantTTL := time.Until(time.UnixMilli(int64(longest))); {
	case longest == 0 && ttl >= 0:
		t.Errorf("key %q: chunk TTL %v, want none (an entry is kept for good)", r.Key, ttl)
	case longest != 0 && (ttl < wantTTL-time.Second || ttl > wantTTL+time.Second):
		t.Errorf("key %q: chunk TTL %v, want about %v", r.Key, ttl, wantTTL)
	}
}
