package store

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

func TestCompactionDue(t *testing.T) {
	const mib = 1 << 20
	idle, allowance := 250*time.Millisecond, int64(512*mib)
	for _, tc := range []struct {
		name        string
		size, base  int64
		idleFor     time.Duration
		wantCompact bool
	}{
		{"grown fourfold, idle", 8 * mib, 2 * mib, time.Second, true},
		{"grown fourfold, busy", 8 * mib, 2 * mib, time.Millisecond, false},
		{"grown threefold, idle", 6 * mib, 2 * mib, time.Second, false},
		{"under the minimum, idle", mib - 1, 1000, time.Second, false},
		{"at the minimum from a tiny base, idle", mib, 1000, time.Second, true},
		{"busy past the allowance", 8*mib + allowance, 2 * mib, 0, true},
		{"busy just under the allowance", 8*mib + allowance - 1, 2 * mib, 0, false},
	} {
		if got := compactionDue(tc.size, tc.base, tc.idleFor, idle, allowance); got != tc.wantCompact {
			t.Errorf("%s: compactionDue = %v, want %v", tc.name, got, tc.wantCompact)
		}
	}
}

// mustGrowFile rewrites one record until the file holds at least size bytes,
// Updates following each other closely (a busy store).
func mustGrowFile(t testing.TB, s *Store, size int64) {
	t.Helper()
	value := strings.Repeat("x", 8<<10)
	for i := 0; fileSize(s.path) < size; i++ {
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutMeta("filler", value[:len(value)-i%7]) })
	}
}

func mustOpenCompacting(t *testing.T, when compaction) *Store {
	t.Helper()
	s, err := OpenWith(filepath.Join(t.TempDir(), "c.db"), Options{compaction: &when})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCompactorWaitsForIdleness(t *testing.T) {
	s := mustOpenCompacting(t, compaction{idle: time.Second, allowance: 1 << 40, every: 5 * time.Millisecond})
	mustGrowFile(t, s, 3<<20) // due at 1 MiB, written without a pause
	if n := s.compactor.runs.Load(); n != 0 {
		t.Fatalf("%d compactions while the store was busy", n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.compactor.runs.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no compaction once idle; file %d bytes", fileSize(s.path))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if size := fileSize(s.path); size > 64<<10 {
		t.Errorf("file %d bytes after compacting, want one record's worth", size)
	}
	mustView(t, s, func(tx sandbox.Tx) error {
		v, err := tx.Meta("filler")
		if err != nil || len(v) < 8<<10-7 {
			t.Errorf("after compaction: %d bytes, %v", len(v), err)
		}
		return nil
	})
}

func TestCompactorCompactsABusyStoreAtTheAllowance(t *testing.T) {
	s := mustOpenCompacting(t, compaction{idle: time.Hour, allowance: 1 << 20, every: 5 * time.Millisecond})
	mustGrowFile(t, s, 4<<20) // due at 1 MiB, forced at 2 MiB
	deadline := time.Now().Add(10 * time.Second)
	for s.compactor.runs.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a busy store past the allowance was never compacted; file %d bytes", fileSize(s.path))
		}
		mustGrowFile(t, s, fileSize(s.path)+64<<10) // still busy
	}
}
