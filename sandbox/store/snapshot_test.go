package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// A session's counters include those its scope: transaction and scope: order rules
// keep under it, and no other session's.
func TestIsStepOfSession(t *testing.T) {
	for key, want := range map[string]bool{
		stepKey("session:abc", "flaky", 0):                    true,
		stepKey("session:abc/transaction:TRN_1", "flaky", 1):  true,
		stepKey("session:abc/order:ORD_1", "flaky", 2):        true,
		stepKey("session:abcd", "flaky", 0):                   false,
		stepKey("session:abcd/transaction:TRN_1", "flaky", 0): false,
		stepKey("app:SandboxPartnerAppId", "flaky", 0):        false,
	} {
		if got := isStepOf(key, "session:abc"); got != want {
			t.Errorf("isStepOf(%q) = %v, want %v", key, got, want)
		}
	}
}

// A save that fails half way, after part of the copy reached its file, leaves nothing
// under the name: neither a half snapshot nor its temporary file, and a snapshot saved
// before under that name stays byte for byte as it was.
func TestFailedSaveLeavesNoFile(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	if err := s.Update(func(x sandbox.Tx) error { return x.PutMeta("k", "v") }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveSnapshot("kept", "", false); err != nil {
		t.Fatal(err)
	}
	sn := s.snapshots
	kept, err := os.ReadFile(sn.file("kept"))
	if err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	for _, name := range []string{"half", "kept"} {
		_, err := sn.write(name, "", func(w io.Writer) error {
			if err := s.db.Save(w); err != nil {
				t.Fatal(err)
			}
			return full
		})
		if !errors.Is(err, full) {
			t.Errorf("write %s: %v, want the save's error", name, err)
		}
	}
	entries, err := os.ReadDir(sn.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "kept.db" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after the failed saves the directory holds %v, want only kept.db", names)
	}
	if after, err := os.ReadFile(sn.file("kept")); err != nil || !bytes.Equal(after, kept) {
		t.Errorf("the snapshot saved before changed: %v", err)
	}
}

// A snapshot whose record was overwritten since it was saved is refused before
// anything is restored, naming the offset of that record, by a restore and by the
// check of a --snapshot start.
func TestDamagedSnapshotRecordRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	if _, err := s.SaveSnapshot("saved", "", false); err != nil {
		t.Fatal(err)
	}
	file := s.snapshots.file("saved")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	value, command := valueAt(t, b, "txn:TRN_1")
	copy(b[value:], "#####")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutMeta("fixtures", "changed since") })
	want := fmt.Sprintf("Snapshot saved is damaged at byte %d", command)
	for name, err := range map[string]error{
		"restore": func() error { _, err := s.RestoreSnapshot("saved"); return err }(),
		"check":   CheckSnapshot(path, "saved"),
	} {
		if gp, ok := sandbox.AsError(err); !ok || !strings.HasPrefix(gp.Description, want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	mustView(t, s, func(tx sandbox.Tx) error {
		if v, _ := tx.Meta("fixtures"); v != "changed since" {
			t.Errorf("a refused restore changed the state: %q", v)
		}
		return nil
	})
}

// A folder under a snapshot's name is refused with a message saying so, not an
// internal error, and changes nothing.
func TestSnapshotThatIsAFolderRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	if err := os.MkdirAll(s.snapshots.file("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"restore": func() error { _, err := s.RestoreSnapshot("dir"); return err }(),
		"check":   CheckSnapshot(path, "dir"),
	} {
		if gp, ok := sandbox.AsError(err); !ok || !strings.HasPrefix(gp.Description, "Snapshot dir cannot be read and was not restored: ") ||
			!strings.HasSuffix(gp.Description, "is not a file") {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := s.SaveSnapshot("dir", "", true)
	if gp, ok := sandbox.AsError(err); !ok || gp.Description != "Snapshot dir was not saved: "+s.snapshots.file("dir")+" is a folder" {
		t.Errorf("save over it: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(s.snapshots.file("dir")), ".dir.*")); len(leftovers) > 0 {
		t.Errorf("the refused save left %v", leftovers)
	}
	mustHaveAll(t, s)
}
