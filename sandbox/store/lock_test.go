package store

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// :memory: takes no lock: any number of memory stores open at once.
func TestMemoryTakesNoLock(t *testing.T) {
	mustOpen(t, ":memory:")
	mustOpen(t, ":memory:")
	if _, err := os.Stat(":memory:.lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a lock file for :memory:: %v", err)
	}
}
