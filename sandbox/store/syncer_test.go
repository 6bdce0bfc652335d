package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The syncer fsyncs after a commit, once, and again after the next one, including
// when the file at its path was replaced as a compaction does.
func TestSyncerSyncsAfterCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startSyncer(path, 5*time.Millisecond)
	defer s.close()
	s.committed()
	mustSyncs(t, s, 1)
	time.Sleep(30 * time.Millisecond) // several intervals with nothing committed
	if n := s.syncs.Load(); n != 1 {
		t.Errorf("%d fsyncs with one commit, want 1", n)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	s.committed()
	mustSyncs(t, s, 2)
}

// While a compaction writes its new file, the syncer fsyncs that file too, with or
// without commits.
func TestSyncerSyncsCompactionFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path+".tmp", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startSyncer(path, 5*time.Millisecond)
	defer s.close()
	deadline := time.Now().Add(5 * time.Second)
	for s.compactionSyncs.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d fsyncs of the compaction file, want 2", s.compactionSyncs.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if n := s.syncs.Load(); n != 0 {
		t.Errorf("%d fsyncs of the database with nothing committed, want 0", n)
	}
}

func mustSyncs(t *testing.T, s *syncer, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.syncs.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d fsyncs, want %d", s.syncs.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
}
