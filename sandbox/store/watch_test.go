package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

func putMeta(s *Store, value string) error {
	return s.Update(func(tx sandbox.Tx) error { return tx.PutMeta("k", value) })
}

// A file deleted or replaced under the store refuses every later write with a GP
// SYSTEM_ERROR naming it, leaves the new file alone, and saves what the store held
// into a new file beside it, which the error names and which opens as a database.
func TestLostFileRefusesWrites(t *testing.T) {
	for name, lose := range map[string]func(path string) error{
		"deleted":  os.Remove,
		"replaced": func(path string) error { return os.Rename(path+".other", path) },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			s := mustOpen(t, path)
			told := make(chan string, 4)
			s.OnLost(func(err error) { told <- err.Error() })
			if err := putMeta(s, "before"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+".other", []byte("someone else's\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := lose(path); err != nil {
				t.Fatal(err)
			}
			lost := "database file " + path + " was deleted or replaced while the sandbox ran; "
			s.file.check() // what the watch does every 100 ms, and then rescues
			if err := putMeta(s, "after"); err == nil || !strings.HasPrefix(err.Error(), "SYSTEM_ERROR 50000: "+lost) {
				t.Errorf("write after the file was %s: %v", name, err)
			}
			if first := <-told; first != "SYSTEM_ERROR 50000: "+lost+"what it acknowledged is being saved beside it" {
				t.Errorf("OnLost told first %q", first)
			}
			second := <-told // the rescue's; a hung watch is go test's -timeout to report
			rescued, _ := filepath.Glob(path + ".rescued-*.db")
			if len(rescued) != 1 {
				t.Fatalf("rescued files: %v", rescued)
			}
			want := lost + "every write it acknowledged is saved in " + rescued[0] +
				": to go on from there, stop the sandbox, move that file to " + path + " and start it again"
			for range 2 {
				err := putMeta(s, "after")
				gp, ok := sandbox.AsError(err)
				if !ok || gp.Code != "SYSTEM_ERROR" || gp.Description != want {
					t.Errorf("write after the rescue: %v", err)
				}
			}
			if !strings.HasSuffix(second, want) || s.Check() == nil {
				t.Errorf("OnLost told %q, Check %v", second, s.Check())
			}
			s.file.shrinkIfDue(true) // never rewrites over a file that is not ours
			mustClose(t, s)
			if b, _ := os.ReadFile(path); name == "replaced" && string(b) != "someone else's\n" {
				t.Errorf("the file that replaced ours changed: %q", b)
			}
			r := mustOpen(t, rescued[0])
			if !r.proven {
				t.Error("the rescued file is not one a clean close wrote")
			}
			mustView(t, r, func(tx sandbox.Tx) error {
				if v, err := tx.Meta("k"); err != nil || v != "before" {
					t.Errorf("rescued: %q %v", v, err)
				}
				return nil
			})
		})
	}
}

// Every write Update reported, by writers racing the loss of the file, is in the
// rescued file: a write is refused or saved.
func TestRescueKeepsEveryAcknowledgedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	var mu sync.Mutex
	var acked []string
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Go(func() {
			for i := 0; ; i++ {
				key := fmt.Sprintf("w%d-%d", w, i)
				if err := s.Update(func(tx sandbox.Tx) error { return tx.PutMeta(key, "x") }); err != nil {
					return // refused from now on
				}
				mu.Lock()
				acked = append(acked, key)
				mu.Unlock()
			}
		})
	}
	testrun.WaitFor(t, "200 acknowledged writes", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 200
	})
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	writers.Wait() // the watch finds the loss by itself and rescues
	mustClose(t, s)
	rescued, _ := filepath.Glob(path + ".rescued-*.db")
	if len(rescued) != 1 {
		t.Fatalf("rescued files: %v", rescued)
	}
	r := mustOpen(t, rescued[0])
	mustView(t, r, func(tx sandbox.Tx) error {
		for _, key := range acked {
			if _, err := tx.Meta(key); err != nil {
				t.Errorf("acknowledged %s: %v", key, err)
			}
		}
		return nil
	})
	t.Logf("%d acknowledged writes, all in the rescued file", len(acked))
}

// The store's own rewrite changes the file's identity and is not taken for a loss.
func TestShrinkKeepsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	s.file.noIdleRewrite.Store(true)
	rewriteOneKey(t, s)
	before, _ := os.Stat(path)
	s.file.shrinkIfDue(false) // under load: not before it has grown busyGrowth
	if busy, _ := os.Stat(path); !os.SameFile(before, busy) {
		t.Fatal("rewritten under load at 2.4 MiB")
	}
	s.file.shrinkIfDue(true)
	after, _ := os.Stat(path)
	if os.SameFile(before, after) || after.Size() >= before.Size()/10 {
		t.Fatalf("not shrunk: %d bytes, then %d", before.Size(), after.Size())
	}
	if err := putMeta(s, "after the rewrite"); err != nil {
		t.Errorf("write after the store's own rewrite: %v", err)
	}
}

// A write reads what the last check found, and makes no system call of its own: the
// watch finds the loss by itself, without a write or a health check, and tells OnLost.
func TestWatchFindsALostFileByItself(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	told := make(chan error, 1)
	s.OnLost(func(err error) { told <- err })
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	<-told // the watch looks every 100 ms; a hung one is go test's -timeout to report
	if err := putMeta(s, "after"); err == nil {
		t.Error("a write after the watch found the file deleted was taken")
	}
}

// The store syncs the file itself, every second while it is open and once more when
// it stops, on a descriptor of the file at the path, the rewritten one after a
// rewrite.
func TestStoreSyncsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	if err := putMeta(s, "x"); err != nil {
		t.Fatal(err)
	}
	for s.file.syncs.Load() == 0 { // a hung loop is go test's -timeout to report
		time.Sleep(10 * time.Millisecond)
	}
	s.file.shrink()
	if synced, _ := s.file.file.Stat(); !os.SameFile(synced, mustStat(t, path)) {
		t.Error("after a rewrite the store syncs another file than the one at the path")
	}
	before := s.file.syncs.Load()
	s.file.stop() // as Close does first
	if s.file.syncs.Load() != before+1 {
		t.Errorf("%d syncs at stop, want 1", s.file.syncs.Load()-before)
	}
	mustClose(t, s)
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The watch rewrites a doubled file by itself in a second with no write, and in one
// with a few (a client polling a few times a second).
func TestWatchRewritesByItself(t *testing.T) {
	for name, write := range map[string]bool{"idle": false, "trickling": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "db")
			s := mustOpen(t, path)
			s.file.noIdleRewrite.Store(true) // no rewrite before the file has doubled
			rewriteOneKey(t, s)
			before, _ := os.Stat(path)
			s.file.noIdleRewrite.Store(false)
			for { // until the watch rewrites the file: a hung one is go test's -timeout to report
				now, err := os.Stat(path)
				if err == nil && !os.SameFile(before, now) {
					if now.Size() >= before.Size()/10 {
						t.Fatalf("rewritten to %d bytes of %d", now.Size(), before.Size())
					}
					return
				}
				if write {
					if err := putMeta(s, "trickle"); err != nil { // every 0.15 s: 7 writes a second
						t.Fatal(err)
					}
				}
				time.Sleep(150 * time.Millisecond)
			}
		})
	}
}

// rewriteOneKey writes 2.4 MiB of rewrites of one key: a file that has more than
// doubled since its open, holding one live record.
func rewriteOneKey(t *testing.T, s *Store) {
	t.Helper()
	value := strings.Repeat("x", 4096)
	for i := 0; i < 600; i++ {
		if err := putMeta(s, value+string(rune('a'+i%26))); err != nil {
			t.Fatal(err)
		}
	}
}
