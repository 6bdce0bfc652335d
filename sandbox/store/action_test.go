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
	wantActions(t, s, map[string]bool{"ACT_a": false, "ACT_c": false, "ACT_d": true, "ACT_b": true, "ACT_": false, "": false})
}

// An id is found as itself, not as text inside another record that holds it; an id
// used twice reads as its newest record.
func TestActionIsReadByItsOwnID(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, filepath.Join(t.TempDir(), "actions.db"))
	defer mustClose(t, s)
	for _, kind := range []string{"CAPTURE", "AUTHORIZE"} { // an id used twice: the newest is read
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.PutAction(sandbox.ActionRecord{ID: "ACT_second", Type: kind}, 10)
		})
	}
	// Newer than both, and holding their id as text: a walk that stops at the first
	// record holding the id finds this one.
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutAction(sandbox.ActionRecord{ID: "ACT_first", ResourceID: "ACT_second", MessageReceived: `{"id":"ACT_second"}`}, 10)
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

// A file of an older layout opens with its actions at their keys of this one, each
// read by its id, in the order that layout kept: its actseq: keys' (from a1e406f,
// with meta:action_seq for a while), their time before that, and the ones from
// before it first in a file that has both. A snapshot saved from such a file
// restores the same way. An id of 20 digits is not taken for a seq, in either
// layout, even the one a moved action then gets.
func TestActionsOfAnOlderLayoutAreMoved(t *testing.T) {
	t.Parallel()
	for _, layout := range []struct {
		name    string
		records map[string]string
		want    []string
	}{{
		name: "actseq",
		records: map[string]string{
			retiredActionSeqKey: `"7"`,
			"act:ACT_a":         `{"id":"ACT_a","type":"CAPTURE"}`, "actseq:00000000000000000006": `"ACT_a"`,
			"act:ACT_b": `{"id":"ACT_b","type":"AUTHORIZE"}`, "actseq:00000000000000000005": `"ACT_b"`,
			"act:00000000000000000001": `{"id":"00000000000000000001"}`, "actseq:00000000000000000007": `"00000000000000000001"`,
		},
		want: []string{"ACT_b", "ACT_a", "00000000000000000001"},
	}, {
		name: "act by id",
		records: map[string]string{
			"act:ACT_y": `{"id":"ACT_y","time_created":"2026-12-01T10:00:02Z"}`,
			"act:ACT_x": `{"id":"ACT_x","time_created":"2026-12-01T10:00:01Z"}`,
			"act:5":     `{"id":"5","time_created":"2026-12-01T10:00:03Z"}`,
		},
		want: []string{"ACT_x", "ACT_y", "5"},
	}, {
		// A file written before a1e406f and then by it: the actions from before it
		// have no actseq: key, and are the oldest whatever their times say.
		name: "act by id, then actseq",
		records: map[string]string{
			"act:ACT_old":   `{"id":"ACT_old","time_created":"2026-12-01T10:00:05Z"}`,
			"act:ACT_older": `{"id":"ACT_older","time_created":"2026-12-01T10:00:04Z"}`,
			"act:ACT_new":   `{"id":"ACT_new","time_created":"2026-12-01T10:00:01Z"}`, "actseq:00000000000000000001": `"ACT_new"`,
			"act:ACT_newer": `{"id":"ACT_newer","time_created":"2026-12-01T10:00:00Z"}`, "actseq:00000000000000000002": `"ACT_newer"`,
		},
		want: []string{"ACT_older", "ACT_old", "ACT_new", "ACT_newer"},
	}} {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "actions.db")
			s := mustOpen(t, path)
			putOlder := func() {
				if err := s.db.Update(func(t *buntdb.Tx) error {
					if err := deletePrefix(t, actionPrefix); err != nil {
						return err
					}
					for key, value := range layout.records {
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
				if ids := actionIDs(t, s); !slices.Equal(ids, layout.want) {
					t.Errorf("after %s: actions %v, want %v", after, ids, layout.want)
				}
				kept := map[string]bool{"ACT_none": false}
				for _, id := range layout.want {
					kept[id] = true
				}
				wantActions(t, s, kept)
				var left []string
				if err := s.db.View(func(t *buntdb.Tx) error {
					return t.AscendKeys("*", func(key, _ string) bool {
						_, isSeq := actionSeq(key)
						if key == retiredActionSeqKey || strings.HasPrefix(key, legacyActionSeqPrefix) ||
							strings.HasPrefix(key, actionPrefix) && !isSeq {
							left = append(left, key)
						}
						return true
					})
				}); err != nil || len(left) > 0 {
					t.Errorf("after %s: keys of the older layout left: %v (%v)", after, left, err)
				}
				mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAction(sandbox.ActionRecord{ID: "ACT_new"}, 100) })
				if ids := actionIDs(t, s); len(ids) != len(layout.want)+1 || ids[len(ids)-1] != "ACT_new" {
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
		})
	}
}

// An upgrade keeps the newest keep actions, counting those already kept in this
// layout: PutAction forgets one a write, so none left over would ever go.
func TestUpgradeKeepsTheNewest(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, filepath.Join(t.TempDir(), "actions.db"))
	defer mustClose(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAction(sandbox.ActionRecord{ID: "ACT_kept"}, 10) })
	if err := s.db.Update(func(t *buntdb.Tx) error {
		for key, value := range map[string]string{
			"act:ACT_a": `{"id":"ACT_a","time_created":"2026-12-01T10:00:01Z"}`,
			"act:ACT_b": `{"id":"ACT_b","time_created":"2026-12-01T10:00:02Z"}`,
		} {
			if _, _, err := t.Set(key, value, nil); err != nil {
				return err
			}
		}
		return upgradeActions(t, 2)
	}); err != nil {
		t.Fatal(err)
	}
	if ids := actionIDs(t, s); !slices.Equal(ids, []string{"ACT_a", "ACT_b"}) {
		t.Errorf("after an upgrade keeping 2: %v, want ACT_a, ACT_b", ids)
	}
}

// An upgrade that keeps fewer than a file holds keeps the newest by that file's
// order: an action an actseq: key names over one written before a1e406f.
func TestUpgradeKeepsTheNamedNewest(t *testing.T) {
	t.Parallel()
	s := mustOpen(t, filepath.Join(t.TempDir(), "actions.db"))
	defer mustClose(t, s)
	if err := s.db.Update(func(t *buntdb.Tx) error {
		for key, value := range map[string]string{
			"act:ACT_old": `{"id":"ACT_old","time_created":"2020-01-01T00:00:00Z"}`,
			"act:ACT_new": `{"id":"ACT_new","time_created":"2026-12-01T10:00:00Z"}`, "actseq:00000000000000000001": `"ACT_new"`,
		} {
			if _, _, err := t.Set(key, value, nil); err != nil {
				return err
			}
		}
		return upgradeActions(t, 1)
	}); err != nil {
		t.Fatal(err)
	}
	if ids := actionIDs(t, s); !slices.Equal(ids, []string{"ACT_new"}) {
		t.Errorf("after an upgrade keeping 1: %v, want ACT_new", ids)
	}
}

// actionIDs lists the ids of the actions kept, oldest first.
func actionIDs(t *testing.T, s *Store) []string {
	t.Helper()
	all, err := s.Actions()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range all {
		ids = append(ids, a.ID)
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
