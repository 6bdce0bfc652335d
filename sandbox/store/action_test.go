package store

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
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
