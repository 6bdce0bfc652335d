package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// The live records of a file are each key's last set, unless a del or a flushdb
// came after it; the header is not one of them.
func TestLiveRecords(t *testing.T) {
	set := func(key string) []string { return []string{"set", key, "v"} }
	for _, tc := range []struct {
		name     string
		commands [][]string
		want     []span // the live spans, in order of their keys' first set
		relative bool
	}{
		{"last set wins", [][]string{set("a"), set("b"), set("a")}, []span{{20, 10}, {10, 10}}, false},
		{"deleted", [][]string{set("a"), set("b"), {"del", "a"}}, []span{{10, 10}}, false},
		{"set again after del", [][]string{set("a"), {"del", "a"}, set("a")}, []span{{20, 10}}, false},
		{"flushdb", [][]string{set("a"), {"flushdb"}, set("b")}, []span{{20, 10}}, false},
		{"header", [][]string{set(headerKey), set("a")}, []span{{10, 10}}, false},
		{"absolute expiry", [][]string{{"set", "a", "v", "ae", "1"}}, []span{{0, 10}}, false},
		{"relative expiry", [][]string{{"set", "a", "v", "ex", "1"}}, []span{{0, 10}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLiveRecords()
			for i, c := range tc.commands {
				var parts [][]byte
				for _, p := range c {
					parts = append(parts, []byte(p))
				}
				l.note(parts, int64(10*i), int64(10*i+10))
			}
			var got []span
			var bytes int64
			for _, s := range l.spans {
				if s.n > 0 {
					got = append(got, s)
					bytes += s.n
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || l.bytes != bytes || l.relative != tc.relative {
				t.Errorf("live %v (%d bytes), relative %v; want %v, relative %v", got, l.bytes, l.relative, tc.want, tc.relative)
			}
		})
	}
}

// mustNeverCompacting opens a store whose compactor never runs, so that its file
// keeps every command it was sent.
func mustNeverCompacting(t *testing.T, path string) *Store {
	t.Helper()
	never := compaction{idle: time.Hour, allowance: 1 << 50, every: time.Hour}
	s, err := OpenWith(path, Options{compaction: &never})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// mustItems loads the file at path into buntdb alone, as the store did before it
// compacted at open, and returns each item's value and time to live (to the minute).
func mustItems(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := buntdb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return mustDBItems(t, db)
}

func mustDBItems(t *testing.T, db *buntdb.DB) map[string]string {
	t.Helper()
	items := map[string]string{}
	err := db.View(func(tx *buntdb.Tx) error {
		return tx.AscendKeys("*", func(key, value string) bool {
			ttl, _ := tx.TTL(key)
			items[key] = fmt.Sprintf("%q ttl %v", value, ttl.Round(time.Minute))
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// A file left by kill -9 after many rewrites of the same keys is compacted when it
// opens, to what buntdb would have kept of it: the same items, the same values and
// times to live, in a file a fraction of its size.
func TestCompactAtOpenAfterCrash(t *testing.T) {
	dir := t.TempDir()
	s := mustNeverCompacting(t, filepath.Join(dir, "live"))
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutMeta("wiped", "x") })
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	mustPutAll(t, s)
	mustPutKeys(t, s, time.Hour, "k1", "k2", "k3")
	mustPutKeys(t, s, 0, "kept-for-good")
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutToken(sandbox.Token{Value: "gone"}, time.Hour) })
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteToken("gone") })
	mustGrowFile(t, s, 2<<20)

	crashed, plain := filepath.Join(dir, "crashed"), filepath.Join(dir, "plain")
	image := mustRead(t, s.path) // what kill -9 leaves: the file as it is while the store runs
	mustWrite(t, crashed, image)
	mustWrite(t, plain, image)
	mustWrite(t, crashed+".tmp", []byte("a copy an earlier crash left half written"))
	want := mustItems(t, plain)

	s2 := mustOpen(t, crashed)
	if size := fileSize(crashed); size > int64(len(image))/4 {
		t.Errorf("file of %d bytes after open, want a compacted one (it was %d)", size, len(image))
	}
	if _, err := os.Stat(crashed + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("the compaction's copy is still there: %v", err)
	}
	got := mustDBItems(t, s2.db)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("items after open:\n%v\nwant\n%v", got, want)
	}
	mustHaveAll(t, s2)
	mustFind(t, s2, true, "k1", "k2", "k3", "kept-for-good")
	mustClose(t, s2)
	mustHaveAll(t, mustOpen(t, crashed))
}

// A file mostly live, one under autoShrinkMinSize, or one holding a time to live
// relative to its modification time is opened as it is. Each case but the first is
// mostly dead, so only its own rule keeps it as it is.
func TestNoCompactAtOpen(t *testing.T) {
	filler := strings.Repeat("r", 4000)
	for _, tc := range []struct {
		name     string
		fill     func(t *testing.T, s *Store)
		relative bool // a command with a relative time to live is added
		large    bool // the file is at least autoShrinkMinSize
	}{
		{"mostly live", func(t *testing.T, s *Store) { mustPutOrders(t, s, 300, 1, filler) }, false, true},
		{"small, mostly dead", func(t *testing.T, s *Store) { mustPutOrders(t, s, 1, 100, filler) }, false, false},
		{"relative time to live, mostly dead", func(t *testing.T, s *Store) { mustGrowFile(t, s, 2<<20) }, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustNeverCompacting(t, filepath.Join(dir, "live"))
			mustPutAll(t, s)
			tc.fill(t, s)
			mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutMeta("fixtures", "again") })
			image := mustRead(t, s.path)
			if tc.relative {
				image = append(image, setCommand("ttl-from-mtime", seal("ttl-from-mtime", "x"), "ex", "3600")...)
			}
			if large := int64(len(image)) >= autoShrinkMinSize; large != tc.large {
				t.Fatalf("file of %d bytes: at least autoShrinkMinSize is %v, want %v", len(image), large, tc.large)
			}
			crashed := filepath.Join(dir, "crashed")
			mustWrite(t, crashed, image)
			mustOpen(t, crashed)
			if after := mustRead(t, crashed); !bytes.Equal(after, image) {
				t.Errorf("the file was rewritten at open: %d bytes, then %d", len(image), len(after))
			}
		})
	}
}

// mustPutOrders writes orders ORD_0000 to ORD_<n-1>, each rounds times, with
// merchantName as their merchant name.
func mustPutOrders(t *testing.T, s *Store, n, rounds int, merchantName string) {
	t.Helper()
	for range rounds {
		for i := range n {
			mustUpdate(t, s, func(tx sandbox.Tx) error {
				return tx.PutOrder(sandbox.Order{ID: fmt.Sprintf("ORD_%04d", i), MerchantName: merchantName})
			})
		}
	}
}

// setCommand is a set command as buntdb writes it to its file.
func setCommand(parts ...string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n$3\r\nset\r\n", len(parts)+1)
	for _, p := range parts {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(p), p)
	}
	return b
}

func TestWorthCompacting(t *testing.T) {
	dead := &liveRecords{bytes: 10}
	relative := &liveRecords{bytes: 10, relative: true}
	for _, tc := range []struct {
		name string
		live *liveRecords
		size int64
		want bool
	}{
		{"mostly dead, at the minimum", dead, autoShrinkMinSize, true},
		{"mostly dead, under the minimum", dead, autoShrinkMinSize - 1, false},
		{"relative time to live", relative, autoShrinkMinSize, false},
		{"mostly live", &liveRecords{bytes: autoShrinkMinSize/2 + 1}, autoShrinkMinSize, false},
		{"not noted", nil, autoShrinkMinSize, false},
	} {
		if got := tc.live.worthCompacting(tc.size); got != tc.want {
			t.Errorf("%s: worthCompacting = %v, want %v", tc.name, got, tc.want)
		}
	}
}
