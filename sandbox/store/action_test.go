package store

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// The newest keep actions are kept, whatever their ids, and the count survives a
// restart; the oldest falls out as each new one is kept, and each kept one is read
// by its id.
func TestActionsKeepTheNewest(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "actions.db")
	s := mustOpen(t, path)
	for _, id := range []string{"ACT_c", "ACT_a", "ACT_d"} {
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAction(sandbox.ActionRecord{ID: id}, 2) })
	}
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAction(sandbox.ActionRecord{ID: "ACT_b"}, 2) })
	if ids := actionIDs(t, s); !slices.Equal(ids, []string{"ACT_d", "ACT_b"}) {
		t.Errorf("kept %v, want the newest two, oldest first: ACT_d, ACT_b", ids)
	}
	wantActions(t, s, map[string]bool{"ACT_a": false, "ACT_c": false, "ACT_d": true, "ACT_b": true, "ACT_": false})
}

// An id is found as itself, not as text inside another record that holds it.
func TestActionIsReadByItsOwnID(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, filepath.Join(t.TempDir(), "actions.db"))
	defer mustClose(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutAction(sandbox.ActionRecord{ID: "ACT_first", ResourceID: "ACT_second", MessageReceived: `{"id":"ACT_second"}`}, 10)
	})
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutAction(sandbox.ActionRecord{ID: "ACT_second", Type: "AUTHORIZE"}, 10)
	})
	err := s.View(func(tx sandbox.Tx) error {
		a, err := tx.Action("ACT_second")
		if err != nil || a.Type != "AUTHORIZE" {
			t.Errorf("ACT_second: %+v, %v; want the record whose id it is", a, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A file written when actions were kept by id, their order in actseq: keys, opens
// with them at their keys of this layout, in the same order and each read by its
// id; a snapshot saved from such a file restores the same way. Of the layout before
// that, meta:action_seq goes too.
func TestActionsOfTheOlderLayoutAreMoved(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "actions.db")
	s := mustOpen(t, path)
	putOlder := func() {
		if err := s.db.Update(func(t *buntdb.Tx) error {
			if err := deletePrefix(t, actionPrefix); err != nil {
				return err
			}
			for key, value := range map[string]string{
				retiredActionSeqKey: `"7"`,
				// ACT_b was kept before ACT_a; 12345678901234567890 is an id that reads as a seq.
				"act:ACT_a": `{"id":"ACT_a","type":"CAPTURE"}`, "actseq:00000000000000000006": `"ACT_a"`,
				"act:ACT_b": `{"id":"ACT_b","type":"AUTHORIZE"}`, "actseq:00000000000000000005": `"ACT_b"`,
				"act:12345678901234567890": `{"id":"12345678901234567890"}`, "actseq:00000000000000000007": `"12345678901234567890"`,
			} {
				if _, _, err := t.Set(key, value, nil); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	moved := func(after string) {
		t.Helper()
		if ids := actionIDs(t, s); !slices.Equal(ids, []string{"ACT_b", "ACT_a", "12345678901234567890"}) {
			t.Errorf("after %s: actions %v, want ACT_b, ACT_a, 12345678901234567890", after, ids)
		}
		wantActions(t, s, map[string]bool{"ACT_a": true, "ACT_b": true, "12345678901234567890": true})
		var left []string
		if err := s.db.View(func(t *buntdb.Tx) error {
			return t.AscendKeys("*", func(key, _ string) bool {
				seq, isAction := strings.CutPrefix(key, actionPrefix)
				if key == retiredActionSeqKey || strings.HasPrefix(key, legacyActionSeqPrefix) ||
					isAction && (len(seq) != 20 || strings.Trim(seq, "0123456789") != "") {
					left = append(left, key)
				}
				return true
			})
		}); err != nil || len(left) > 0 {
			t.Errorf("after %s: keys of the older layout left: %v (%v)", after, left, err)
		}
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAction(sandbox.ActionRecord{ID: "ACT_new"}, 100) })
		if ids := actionIDs(t, s); len(ids) != 4 || ids[3] != "ACT_new" {
			t.Errorf("after %s, a new action: %v, want it after the moved ones", after, ids)
		}
	}
	putOlder()
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	moved("reopening")
	putOlder()
	if _, err := s.SaveSnapshot("older", "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreSnapshot("older"); err != nil {
		t.Fatal(err)
	}
	moved("restoring a snapshot of the older layout")
}

// actionIDs lists the ids of the actions kept, oldest first.
func actionIDs(t *testing.T, s *Store) []string {
	t.Helper()
	var ids []string
	err := s.View(func(tx sandbox.Tx) error {
		all, err := tx.Actions()
		for _, a := range all {
			ids = append(ids, a.ID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// wantActions checks which ids are read as kept actions.
func wantActions(t *testing.T, s *Store, kept map[string]bool) {
	t.Helper()
	err := s.View(func(tx sandbox.Tx) error {
		for id, want := range kept {
			a, err := tx.Action(id)
			switch {
			case want && (err != nil || a.ID != id):
				t.Errorf("action %s: %+v, %v; want it read", id, a, err)
			case !want && !errors.Is(err, sandbox.ErrNotFound):
				t.Errorf("action %s: %+v, %v; want ErrNotFound", id, a, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
