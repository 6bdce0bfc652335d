package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --snapshot naming a snapshot that does not exist stops the start, with --reset or
// without: the start fails naming it, and the database file stays byte for byte as
// it was (a token in it, whose lifetime a rewrite of the file would write anew); on a
// path with no file, none is created.
func TestUnknownSnapshotStopsTheStart(t *testing.T) {
	mustRefuseSnapshotStarts(t, []string{"nope"}, func(string) string {
		return "--snapshot nope: RESOURCE_NOT_FOUND 40008: Snapshot nope not found at this location."
	})
}

// --snapshot with a name no snapshot can have (a path, a leading '-', too long) stops
// the start before the database is opened, with the name rule's words, leaving the
// files as TestUnknownSnapshotStopsTheStart does.
func TestInvalidSnapshotNameStopsTheStart(t *testing.T) {
	const rule = "INVALID_REQUEST_DATA 40213: name contains unexpected data: a snapshot name is 1 to 64 letters, digits, '_' or '-', not starting with '-' and holding no card number"
	mustRefuseSnapshotStarts(t, []string{"../x", "-x", strings.Repeat("a", 65)}, func(name string) string {
		return "--snapshot " + name + ": " + rule
	})
}

// mustRefuseSnapshotStarts starts the sandbox with --snapshot set to each name, over a
// database holding a token (with --reset and without) and on a path with no file. Each
// start must fail with the error want gives for the name, the database file must stay
// byte for byte as it was, and no file may be created on the new path.
func mustRefuseSnapshotStarts(t *testing.T, names []string, want func(name string) string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "run.db")
	base, stop := mustRun(t, "--db", db)
	mustIssueToken(t, base)
	stop()
	before := mustReadFile(t, db)

	fresh := filepath.Join(t.TempDir(), "new.db")
	for _, name := range names {
		for _, args := range [][]string{{"--db", db}, {"--db", db, "--reset"}, {"--db", fresh}} {
			_, err := runOnce(t, append([]string{"--addr", "127.0.0.1:0", "--snapshot=" + name}, args...)...)
			if w := want(name); err == nil || err.Error() != w {
				t.Errorf("start --snapshot %q %v: %v\nwant %s", name, args, err, w)
			}
		}
	}
	if after := mustReadFile(t, db); !bytes.Equal(after, before) {
		t.Errorf("a refused start changed the database file: %d bytes before, %d after", len(before), len(after))
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused start created %s: %v", fresh, err)
	}
}

// --snapshot with a name holding a card number is refused like any invalid name, and
// its message, written to the log, shows the number masked.
func TestCardNumberSnapshotNameStopsTheStartMasked(t *testing.T) {
	db := filepath.Join(t.TempDir(), "new.db")
	_, err := runOnce(t, "--addr", "127.0.0.1:0", "--db", db, "--snapshot", "before-4242424242424242")
	const want = "--snapshot before-424242******4242: INVALID_REQUEST_DATA 40213: name contains unexpected data"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "4242424242424242") {
		t.Errorf("start: %v\nwant %s...", err, want)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused start created %s: %v", db, err)
	}
}

// A start refused for its scenarios (an unknown global one, a scenario folder in
// error) or for its fixtures leaves the database file byte for byte as it was,
// --reset or not, and creates no file on a new path: they are read before the file
// is opened.
func TestScenarioProblemsStopTheStartBeforeTheFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "run.db")
	base, stop := mustRun(t, "--db", db)
	mustIssueToken(t, base)
	stop()
	before := mustReadFile(t, db)
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "broken.yaml"), []byte("version: 1\nname: broken\nrules: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "new.db")
	empty := filepath.Join(t.TempDir(), "empty.db") // as mktemp makes one
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runOnce(t, "--addr", "127.0.0.1:0", "--db", empty, "--fixtures", broken); err == nil {
		t.Errorf("start over an empty file with fixtures in error: no error")
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Errorf("the refused start wrote to the empty file: %v %v", st, err)
	}
	for _, bad := range [][]string{{"--scenario", "nope"}, {"--scenarios", broken}, {"--fixtures", broken}} {
		for _, args := range [][]string{{"--db", db}, {"--db", db, "--reset"}, {"--db", fresh}} {
			if bad[0] == "--fixtures" && len(args) == 2 && args[1] == db {
				continue // fixtures are read into a new database or a reset only: this start is good
			}
			if _, err := runOnce(t, append(append([]string{"--addr", "127.0.0.1:0"}, bad...), args...)...); err == nil {
				t.Errorf("start %v %v: no error", bad, args)
			}
		}
	}
	if after := mustReadFile(t, db); !bytes.Equal(after, before) {
		t.Errorf("a refused start changed the database file: %d bytes before, %d after", len(before), len(after))
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused start created %s: %v", fresh, err)
	}
}
