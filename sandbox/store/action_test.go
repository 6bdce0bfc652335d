package store

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// The newest keep actions are kept, whatever their ids, and the count survives a
// restart; the oldest falls out as each new one is kept.
func TestActionsKeepTheNewest(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "actions.db")
	s := mustOpen(t, path)
	for _, id := range []string{"ACT_c", "ACT_a", "ACT_d"} {
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAction(sandbox.ActionRecord{ID: id}, 2) })
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, path)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAction(sandbox.ActionRecord{ID: "ACT_b"}, 2) })
	var ids []string
	err := s.View(func(tx sandbox.Tx) error {
		all, err := tx.Actions()
		for _, a := range all {
			ids = append(ids, a.ID)
		}
		if _, err := tx.Action("ACT_a"); err != sandbox.ErrNotFound {
			t.Errorf("ACT_a, the second oldest: %v, want ErrNotFound", err)
		}
		return err
	})
	if err != nil || !slices.Equal(ids, []string{"ACT_b", "ACT_d"}) {
		t.Errorf("kept %v (%v), want the newest two: ACT_b, ACT_d", ids, err)
	}
}

// A file written when the last action's seq had a record of its own opens without
// it, and a snapshot saved from such a file restores without it.
func TestRetiredActionSeqIsDropped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "actions.db")
	s := mustOpen(t, path)
	putRetired := func() {
		if err := s.db.Update(func(t *buntdb.Tx) error {
			_, _, err := t.Set(retiredActionSeqKey, `"7"`, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	gone := func(after string) {
		if err := s.db.View(func(t *buntdb.Tx) error {
			_, err := t.Get(retiredActionSeqKey)
			return err
		}); !errors.Is(err, buntdb.ErrNotFound) {
			t.Errorf("%s after %s: %v, want it gone", retiredActionSeqKey, after, err)
		}
	}
	putRetired()
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	gone("reopening")
	putRetired()
	if _, err := s.SaveSnapshot("older", "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreSnapshot("older"); err != nil {
		t.Fatal(err)
	}
	gone("restoring a snapshot that held it")
}
