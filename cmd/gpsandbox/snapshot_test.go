package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// --snapshot naming a snapshot that does not exist stops the start, with --reset or
// without: the process exits non-zero naming it, and the database file stays byte
// for byte as it was (a token in it, whose lifetime a rewrite of the file would
// write anew).
func TestUnknownSnapshotStopsTheStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := testrun.Build(t)
	db := filepath.Join(t.TempDir(), "run.db")
	base, stop := mustRun(t, "--db", db)
	mustIssueToken(t, base)
	stop()
	before := mustReadFile(t, db)

	// --reset too: the start is refused before the reset wipes anything.
	for _, extra := range [][]string{nil, {"--reset"}} {
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--snapshot", "nope"}, extra...)
		out, err := exec.Command(bin, args...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Errorf("start %v with an unknown snapshot: %v, want a non-zero exit", extra, err)
		}
		if want := "gpsandbox: --snapshot nope: RESOURCE_NOT_FOUND 40008: Snapshot nope not found at this location."; !strings.Contains(string(out), want) {
			t.Errorf("start %v said %q; want %q", extra, out, want)
		}
		if after := mustReadFile(t, db); !bytes.Equal(after, before) {
			t.Errorf("the failed start %v changed the database file: %d bytes before, %d after", extra, len(before), len(after))
		}
	}
	// Nor is a database created for it.
	fresh := filepath.Join(t.TempDir(), "new.db")
	if out, err := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", fresh, "--snapshot", "nope").CombinedOutput(); err == nil {
		t.Errorf("start on a new file with an unknown snapshot served: %s", out)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed start created %s: %v", fresh, err)
	}
}
