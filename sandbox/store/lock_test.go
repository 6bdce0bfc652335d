package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A second open of a file in use is refused, naming the file and the holder's pid;
// once the first closes, the file opens again.
func TestSecondOpenRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	before, _ := os.ReadFile(path)
	for _, opts := range []Options{{}, {Reset: true}} {
		_, err := OpenWith(path, opts)
		var locked *LockedError
		if !errors.As(err, &locked) || !strings.Contains(err.Error(), path) ||
			!strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
			t.Errorf("second open %+v: %v; want a *LockedError naming %s and this pid", opts, err, path)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the refused open changed the file")
	}
	mustClose(t, s)
	mustHaveAll(t, mustOpen(t, path))
}

// Another name of a file in use, a symbolic link to it or a hard link, is the file:
// its open is refused too, and the file is as it was.
func TestOpenThroughAnotherNameRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "real.db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	symlink, hardlink := filepath.Join(dir, "alias.db"), filepath.Join(dir, "hard.db")
	if err := os.Symlink("real.db", symlink); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, hardlink); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	for _, other := range []string{symlink, hardlink} {
		var locked *LockedError
		if _, err := Open(other); !errors.As(err, &locked) {
			t.Errorf("open %s while %s is open: %v, want a *LockedError", other, path, err)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a refused open changed the file")
	}
	mustClose(t, s)
}

// A store opened through a symbolic link writes the file it names, made before or
// yet to be made, and leaves the link a link when its clean close rewrites the file.
func TestOpenThroughASymlinkKeepsTheLink(t *testing.T) {
	for name, madeBefore := range map[string]bool{"to a file": true, "to no file yet": false} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path, link := filepath.Join(dir, "real.db"), filepath.Join(dir, "alias.db")
			if madeBefore {
				mustClose(t, mustOpen(t, path))
			}
			if err := os.Symlink("real.db", link); err != nil {
				t.Fatal(err)
			}
			s := mustOpen(t, link)
			mustPutAll(t, s)
			mustClose(t, s)
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s after a close: %v %v, want the link still", link, fi, err)
			}
			mustHaveAll(t, mustOpen(t, path))
		})
	}
}

// A relative link in a linked folder is read from where it is: ../ goes up from the
// folder the link is in, as the kernel reads it.
func TestRelativeLinkInALinkedFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real", "sub"), filepath.Join(dir, "a", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../target.db", filepath.Join(dir, "real", "sub", "db.lnk")); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, filepath.Join(dir, "a", "link", "db.lnk"))
	var locked *LockedError
	if _, err := Open(filepath.Join(dir, "real", "target.db")); !errors.As(err, &locked) {
		t.Errorf("the file the link names, opened by its name: %v, want a *LockedError", err)
	}
	mustClose(t, s)
}

// A compaction puts a new file at the path; a hard link made to it since is refused
// as the file it was made from was.
func TestHardLinkAfterACompactionRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "real.db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	s.file.shrink()
	hard := filepath.Join(dir, "hard.db")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	var locked *LockedError
	if _, err := Open(hard); !errors.As(err, &locked) {
		t.Errorf("open %s after a compaction: %v, want a *LockedError", hard, err)
	}
	mustClose(t, s)
}

// Snapshots stay beside the path given, a link, where they were saved before.
func TestSnapshotsBesideTheGivenPath(t *testing.T) {
	dir := t.TempDir()
	path, link := filepath.Join(dir, "real.db"), filepath.Join(dir, "alias.db")
	mustClose(t, mustOpen(t, path))
	if err := os.Symlink("real.db", link); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, link)
	if _, err := s.SaveSnapshot("saved", "", false); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	if _, err := os.Stat(filepath.Join(dir, "alias.db.snapshots")); err != nil {
		t.Errorf("snapshots not beside the link: %v", err)
	}
	if err := CheckSnapshot(link, "saved"); err != nil {
		t.Errorf("check beside the link: %v", err)
	}
}

// :memory: takes no lock: any number of memory stores open at once.
func TestMemoryTakesNoLock(t *testing.T) {
	mustOpen(t, ":memory:")
	mustOpen(t, ":memory:")
	if _, err := os.Stat(":memory:.lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a lock file for :memory:: %v", err)
	}
}

// A clean close removes the lock file; a start racing a stop never ends up holding
// the lock of a file the path no longer names while another holds the path's: at
// most one holder at any time, through many locks and removals.
func TestLockFileGoesAtCloseWithOneHolderAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	mustClose(t, mustOpen(t, path))
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock file after a clean close: %v", err)
	}
	var holders, taken atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				f, err := lockFile(path)
				var locked *LockedError
				if errors.As(err, &locked) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				if n := holders.Add(1); n != 1 {
					t.Errorf("%d holders at once", n)
				}
				taken.Add(1)
				runtime.Gosched() // let the others try while this one holds
				holders.Add(-1)
				unlockFile(f)
			}
		})
	}
	wg.Wait()
	if taken.Load() == 0 {
		t.Fatal("no goroutine ever took the lock")
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file after the last release: %v", err)
	}
}

// A path that names no regular file (a folder, a device) is refused before a lock
// file is made beside it: /dev/null would take every write and keep none.
func TestOpenRefusesWhatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{dir, os.DevNull} {
		_, err := Open(path)
		if err == nil || !strings.Contains(err.Error(), path+" is not a regular file") {
			t.Errorf("open %s: %v", path, err)
		}
		if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("open %s made %s.lock: %v", path, path, err)
		}
	}
}

// A path in a folder that does not exist is refused naming the folder, not the lock
// file the open would have made beside it.
func TestOpenNamesAMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	path := filepath.Join(dir, "x.db")
	_, err := Open(path)
	if want := "database file " + path + ": the folder " + dir + " does not exist"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("open %s: %v; want %q", path, err, want)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder was made: %v", err)
	}
	// A file where the folder should be is no folder, not a missing one.
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(filepath.Join(file, "x.db"))
	if want := file + " is not a folder"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("open under a file: %v; want %q", err, want)
	}
}
