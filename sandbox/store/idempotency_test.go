package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Many keys, many chunks: each key still reads back as its own record, in the same
// run and after a reopen, and the chunks are full ones.
func TestIdempotencyChunksHoldManyKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	const n = 100_003
	rec := func(i int) sandbox.IdempotencyRecord {
		return sandbox.IdempotencyRecord{AppID: "app1", Key: fmt.Sprint("key-", i), ResourceID: fmt.Sprint("TRN_", i),
			Kind: "transaction", Time: ms(i)}
	}
	for lo := 0; lo < n; lo += 1000 {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			for i := lo; i < min(lo+1000, n); i++ {
				if err := tx.PutIdempotency(rec(i), time.Hour); err != nil {
					return err
				}
			}
			return nil
		})
	}
	check := func(s *Store) {
		t.Helper()
		mustView(t, s, func(tx sandbox.Tx) error {
			for _, i := range []int{0, 1, idemChunkEntries, n/2 + 7, n - 1} {
				got, err := tx.Idempotency("app1", fmt.Sprint("key-", i))
				if err != nil {
					return fmt.Errorf("key-%d: %w", i, err)
				}
				if want := rec(i); !reflect.DeepEqual(got, want) {
					t.Errorf("key-%d = %+v, want %+v", i, got, want)
				}
			}
			if _, err := tx.Idempotency("app1", fmt.Sprint("key-", n)); !errors.Is(err, sandbox.ErrNotFound) {
				t.Errorf("a key never written: err = %v, want ErrNotFound", err)
			}
			return nil
		})
	}
	check(s)
	if chunks, want := mustCountKeys(t, s, idemChunkPrefix+"*"), (n+idemChunkEntries-1)/idemChunkEntries; chunks != want {
		t.Errorf("%d chunks, want %d", chunks, want)
	}
	mustClose(t, s)
	check(mustOpen(t, path))
}

// Writing a key again replaces its entry; the bucket does not keep both.
func TestIdempotencyPutReplaces(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	for _, res := range []string{"TRN_first", "TRN_second"} {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "k", ResourceID: res}, time.Hour)
		})
	}
	mustView(t, s, func(tx sandbox.Tx) error {
		got, err := tx.Idempotency("a", "k")
		if err != nil || got.ResourceID != "TRN_second" {
			t.Errorf("Idempotency = %+v, %v; want TRN_second", got, err)
		}
		return nil
	})
	if n := mustBucketEntries(t, s, mustChunkOf(t, s, "a", "k")); n != 1 {
		t.Errorf("chunk holds %d entries, want 1", n)
	}
}

// An expired entry reads as missing at once, while the live entries of its chunk
// stay; it stays in the chunk (so that the chunk's expiry still names it for the
// index) until the chunk's last entry expires and the chunk goes with it.
func TestIdempotencyExpiredEntriesLeave(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	short, long := "short", "long"
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		if err := tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: short, ResourceID: "r1"}, 20*time.Millisecond); err != nil {
			return err
		}
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: long, ResourceID: "r2"}, 700*time.Millisecond)
	})
	chunk := mustChunkOf(t, s, "a", short)
	time.Sleep(40 * time.Millisecond)
	mustView(t, s, func(tx sandbox.Tx) error {
		if _, err := tx.Idempotency("a", short); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("expired key: err = %v, want ErrNotFound", err)
		}
		if r, err := tx.Idempotency("a", long); err != nil || r.ResourceID != "r2" {
			t.Errorf("live key = %+v, %v; want r2", r, err)
		}
		return nil
	})
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: long, ResourceID: "r3"}, 700*time.Millisecond)
	})
	if n := mustBucketEntries(t, s, chunk); n != 2 {
		t.Errorf("chunk holds %d entries after a write, want both", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for mustIndexLen(t, s) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // buntdb expires items once a second
	}
	if n, chunks := mustIndexLen(t, s), mustCountKeys(t, s, idemChunkPrefix+"*"); n != 0 || chunks != 0 {
		t.Errorf("%d keys in the index and %d chunks once every entry expired, want none", n, chunks)
	}
}

// A write to a chunk that has expired but is not yet deleted starts the next chunk,
// so that the deletion still names the expired chunk's keys for the index.
func TestIdempotencyWriteAfterChunkExpired(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "old", ResourceID: "r1"}, 10*time.Millisecond)
	})
	first := mustChunkOf(t, s, "a", "old")
	time.Sleep(20 * time.Millisecond)
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "new", ResourceID: "r2"}, time.Hour)
	})
	if next := mustChunkOf(t, s, "a", "new"); next == first {
		t.Fatalf("the new key went to the expired chunk %s", first)
	}
	deadline := time.Now().Add(5 * time.Second)
	for mustIndexLen(t, s) > 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := mustIndexLen(t, s); n != 1 {
		t.Errorf("index holds %d keys once the old chunk went, want 1", n)
	}
}

// A file written by an earlier version keeps one JSON item per key, and has neither
// header nor checksums: it is refused as it is, and once carried over by Salvage its
// records are still found.
func TestIdempotencyLegacyRecordsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	old := sandbox.IdempotencyRecord{AppID: "a", Key: "old:key", ResourceID: "ORD_1", Kind: "order", Time: ms(3),
		Request: "POST /ucp/merchants/MER_1/orders ab"}
	db, err := buntdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(old)
	err = db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(legacyIdemKey("a", "old:key"), string(b), &buntdb.SetOptions{Expires: true, TTL: time.Hour})
		return err
	})
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("a file without the header was opened")
	}
	carried := filepath.Join(t.TempDir(), "carried")
	if _, err := Salvage(path, carried); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, carried)
	mustView(t, s, func(tx sandbox.Tx) error {
		got, err := tx.Idempotency("a", "old:key")
		if err != nil || !reflect.DeepEqual(got, old) {
			t.Errorf("legacy record = %+v, %v; want %+v", got, err, old)
		}
		if _, err := tx.Idempotency("a", "new"); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("missing key beside legacy ones: err = %v, want ErrNotFound", err)
		}
		return nil
	})
}

// A bucket or chunk whose bytes do not parse is an error naming it, never a wrong
// answer: a format-2 bucket when it is read, a chunk when it is written to, and a
// file with one at open (the index is built from the chunks), which repair then
// leaves out.
func TestIdempotencyDamagedBucket(t *testing.T) {
	damaged := []string{"\x03", "\x02short", "\x02" + strings.Repeat("x", idemIDSize) + "\x7f"}
	put := func(tx sandbox.Tx) error {
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "k"}, time.Hour)
	}
	for _, value := range damaged {
		path := filepath.Join(t.TempDir(), "db")
		s := mustOpen(t, path)
		bucket := idemIDOf("a", "k").bucketKey()
		chunk := idemChunkKey(s.idem.current)
		mustSetRaw(t, s, bucket, value)
		mustSetRaw(t, s, chunk, value)
		if err := s.Update(put); !errors.Is(err, errIdemBucket) || !strings.Contains(err.Error(), chunk) {
			t.Errorf("chunk %q: write err = %v, want a damaged-bucket error naming %s", value, err, chunk)
		}
		mustClose(t, s)
		if _, err := Open(path); !errors.Is(err, errIdemBucket) || !strings.Contains(err.Error(), chunk) || !strings.Contains(err.Error(), "gpsandbox repair") {
			t.Errorf("chunk %q: Open err = %v, want a damaged-bucket error naming %s and the repair", value, err, chunk)
		}
		repaired := path + ".repaired"
		rep, err := Salvage(path, repaired)
		if err != nil || len(rep.Dropped) != 1 || rep.Dropped[0].Key != chunk || !strings.Contains(rep.Dropped[0].Reason, "does not parse") {
			t.Errorf("chunk %q: Salvage = %+v, %v; want the chunk dropped as unparsable", value, rep, err)
		}
		mustClose(t, mustOpen(t, repaired))
	}
	for _, value := range damaged {
		path := filepath.Join(t.TempDir(), "db")
		s := mustOpen(t, path)
		bucket := idemIDOf("a", "k").bucketKey()
		mustSetRaw(t, s, bucket, value)
		mustClose(t, s)
		s = mustOpen(t, path)
		err := s.View(func(tx sandbox.Tx) error { _, err := tx.Idempotency("a", "k"); return err })
		if !errors.Is(err, errIdemBucket) || !strings.Contains(err.Error(), bucket) {
			t.Errorf("bucket %q: err = %v, want a damaged-bucket error naming %s", value, err, bucket)
		}
	}
}

func mustSetRaw(t *testing.T, s *Store, key, payload string) {
	t.Helper()
	err := s.db.Update(func(tx *buntdb.Tx) error { _, _, err := tx.Set(key, seal(key, payload), nil); return err })
	if err != nil {
		t.Fatal(err)
	}
}

// mustReopenWithLegacyBucket writes a bucket of an earlier layout, sealed and
// expiring in an hour, to a new file, and reopens it: the store must notice it.
func mustReopenWithLegacyBucket(t *testing.T, bucket, payload string) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	err := s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(bucket, seal(bucket, payload), &buntdb.SetOptions{Expires: true, TTL: time.Hour})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	s = mustOpen(t, path)
	if !s.legacyIdem {
		t.Fatalf("bucket %s of an earlier layout not noticed at open", bucket)
	}
	return s
}

// mustChunkOf names the chunk the index says holds app's key.
func mustChunkOf(t *testing.T, s *Store, app, key string) string {
	t.Helper()
	var seq uint64
	ok := false
	_ = s.db.View(func(*buntdb.Tx) error {
		var low uint32
		low, ok = s.idem.chunks[idemIDOf(app, key).indexKey()]
		seq = s.idem.seqOf(low)
		return nil
	})
	if !ok {
		t.Fatalf("no chunk holds %s's key %q", app, key)
	}
	return idemChunkKey(seq)
}

func mustCountKeys(t *testing.T, s *Store, pattern string) int {
	t.Helper()
	n := 0
	err := s.db.View(func(tx *buntdb.Tx) error {
		return tx.AscendKeys(pattern, func(string, string) bool { n++; return true })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sameBucketKeys finds two keys of app whose entries share a bucket.
func sameBucketKeys(t *testing.T, app string) (string, string) {
	t.Helper()
	seen := map[string]string{}
	for i := 0; ; i++ {
		k := fmt.Sprint("k", i)
		b := idemIDOf(app, k).bucketKey()
		if other, ok := seen[b]; ok {
			return other, k
		}
		seen[b] = k
	}
}

func mustBucketEntries(t *testing.T, s *Store, bucket string) int {
	t.Helper()
	n := 0
	err := s.db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get(bucket)
		if err == nil {
			v, err = unseal(bucket, v)
		}
		if err != nil {
			return err
		}
		_, entries, err := splitIdemBucket(v)
		if err != nil {
			return err
		}
		it := idemEntries{rest: entries}
		for it.next() {
			n++
		}
		return it.err
	})
	if err != nil {
		t.Fatalf("bucket %s: %v", bucket, err)
	}
	return n
}

// The one-copy encoder stores exactly what seal stores, and its checksum checks.
func TestSealedJSONIsSeal(t *testing.T) {
	for _, tc := range []struct {
		key string
		v   any
	}{
		{"meta:x", "2025-03-14T12:00:00.000Z"},
		{"txn:" + strings.Repeat("T", 200), map[string]int{"a": 1}}, // a long key
		{"", []string{"\x00"}},
	} {
		got, err := sealedJSON(tc.key, tc.v)
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(tc.v)
		if want := seal(tc.key, string(payload)); got != want {
			t.Errorf("sealedJSON(%q) = %q, want %q", tc.key, got, want)
		}
		if !sealedOK([]byte(tc.key), []byte(got)) {
			t.Errorf("sealedJSON(%q): checksum does not check", tc.key)
		}
		if upper := strings.ToUpper(got[:sumDigits]) + got[sumDigits:]; upper != got && sealedOK([]byte(tc.key), []byte(upper)) {
			t.Errorf("sealedJSON(%q): the checksum in upper case %q checks", tc.key, upper[:sumDigits])
		}
	}
}

// A file written with format-1 buckets (65,536 of them, idem#<4 hex digits>) keeps
// its keys: they are read there, and new keys go to chunks.
func TestIdempotencyFormat1BucketsRead(t *testing.T) {
	old := sandbox.IdempotencyRecord{AppID: "a", Key: "old", ResourceID: "TRN_1", Kind: "transaction",
		Time: base.Add(1500 * time.Nanosecond)}
	id := idemIDOf("a", "old")
	value := string(append([]byte{idemFormat1}, appendFormat1Entry(id, old, uint64(time.Now().Add(time.Hour).UnixMilli()))...))
	s := mustReopenWithLegacyBucket(t, id.format1BucketKey(), value)
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "new", ResourceID: "ORD_2", Kind: "order", Time: ms(2)}, time.Hour)
	})
	mustView(t, s, func(tx sandbox.Tx) error {
		if got, err := tx.Idempotency("a", "old"); err != nil || !reflect.DeepEqual(got, old) {
			t.Errorf("format-1 record = %+v, %v; want %+v", got, err, old)
		}
		if got, err := tx.Idempotency("a", "new"); err != nil || got.ResourceID != "ORD_2" || got.Kind != "order" || !got.Time.Equal(ms(2)) {
			t.Errorf("new record = %+v, %v", got, err)
		}
		return nil
	})
}

// A kind with no code of its own is spelled out, and read back as written.
func TestIdempotencyKindSpelledOut(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	for _, kind := range []string{"transaction", "order", "batch", ""} {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "k-" + kind, Kind: kind}, time.Hour)
		})
		mustView(t, s, func(tx sandbox.Tx) error {
			if got, err := tx.Idempotency("a", "k-"+kind); err != nil || got.Kind != kind {
				t.Errorf("kind %q read back as %q, %v", kind, got.Kind, err)
			}
			return nil
		})
	}
}

// appendFormat1Entry is the entry encoding of format 1, as that version wrote it.
func appendFormat1Entry(id idemID, r sandbox.IdempotencyRecord, expires uint64) []byte {
	var body []byte
	body = binary.AppendUvarint(body, expires)
	body = binary.AppendVarint(body, r.Time.Unix())
	body = binary.AppendUvarint(body, uint64(r.Time.Nanosecond()))
	body = binary.AppendUvarint(body, 200) // the HTTP status that version kept
	for _, s := range []string{r.Kind, r.ResourceID, "", "", r.Request, string(r.Response)} {
		body = binary.AppendUvarint(body, uint64(len(s)))
		body = append(body, s...)
	}
	b := append(id[:], binary.AppendUvarint(nil, uint64(len(body)))...)
	return append(b, body...)
}

// An Update that reads keys, writes others, and wipes the store in any order keeps
// exactly the keys it wrote last, for the next process too.
func TestIdempotencyWriteAfterReadInOneUpdate(t *testing.T) {
	first, second := sameBucketKeys(t, "a")
	put := func(tx sandbox.Tx, key string) error {
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: key, ResourceID: "TRN_" + key}, time.Hour)
	}
	read := func(tx sandbox.Tx, key string) error {
		if _, err := tx.Idempotency("a", key); err != nil && !errors.Is(err, sandbox.ErrNotFound) {
			return err
		}
		return nil
	}
	for _, tc := range []struct {
		name  string
		steps func(tx sandbox.Tx) error
		want  []string // the keys found afterwards, of first and second
	}{
		{"read, then write the key read", func(tx sandbox.Tx) error {
			return errors.Join(read(tx, first), put(tx, first))
		}, []string{first}},
		{"read one key, write the other, then the one read", func(tx sandbox.Tx) error {
			return errors.Join(read(tx, first), put(tx, second), put(tx, first))
		}, []string{first, second}},
		{"write one key, read the other, write it", func(tx sandbox.Tx) error {
			return errors.Join(put(tx, second), read(tx, first), put(tx, first))
		}, []string{first, second}},
		{"read, wipe, write", func(tx sandbox.Tx) error {
			return errors.Join(put(tx, second), read(tx, first), tx.DeleteAll(), put(tx, first))
		}, []string{first}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			s := mustOpen(t, path)
			mustUpdate(t, s, tc.steps)
			mustClose(t, s)
			s = mustOpen(t, path)
			mustView(t, s, func(tx sandbox.Tx) error {
				var found []string
				for _, key := range []string{first, second} {
					rec, err := tx.Idempotency("a", key)
					switch {
					case err == nil && rec.ResourceID == "TRN_"+key:
						found = append(found, key)
					case err != nil && !errors.Is(err, sandbox.ErrNotFound):
						return err
					}
				}
				if !reflect.DeepEqual(found, tc.want) {
					t.Errorf("keys found %q, want %q", found, tc.want)
				}
				return nil
			})
		})
	}
}
