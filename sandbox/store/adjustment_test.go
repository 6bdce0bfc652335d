package store

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Every shape of entry reads back as written, from the compact encoding and from the
// JSON earlier versions wrote.
func TestAdjustmentEncodings(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	for _, a := range []sandbox.Adjustment{
		{Seq: 1, ActionID: "ACT_1", Time: "2025-03-14T12:00:00.000Z", AppID: "app1", Version: "2021-03-22",
			Changes: map[string]sandbox.Change{"amount": {From: "1000", To: "1200"}, "gratuity_amount": {From: "", To: "250"}}},
		{Seq: 2, ActionID: "ACT_2", Changes: map[string]sandbox.Change{}},
		{Seq: 300},
	} {
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutAdjustment("TRN_1", 0, a) })
		if got := mustAdjustments(t, s); !reflect.DeepEqual(got, []sandbox.Adjustment{a}) {
			t.Errorf("compact: read %#v, want %#v", got, a)
		}
		b, _ := json.Marshal(a)
		err := s.db.Update(func(tx *buntdb.Tx) error {
			_, _, err := tx.Set("adj:TRN_1:0", seal("adj:TRN_1:0", string(b)), nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := mustAdjustments(t, s); !reflect.DeepEqual(got, []sandbox.Adjustment{a}) {
			t.Errorf("JSON: read %#v, want %#v", got, a)
		}
	}
}

// An entry that does not parse is an error naming its key.
func TestAdjustmentMalformed(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	for _, payload := range []string{"", "\x02", "\x01\x01\x05ACT", "\x01\x01\x00\x00\x00\x00\x02\x01a"} {
		err := s.db.Update(func(tx *buntdb.Tx) error {
			_, _, err := tx.Set("adj:TRN_1:0", seal("adj:TRN_1:0", payload), nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.View(func(tx sandbox.Tx) error { _, err := tx.Adjustments("TRN_1"); return err })
		if !errors.Is(err, errAdjustment) {
			t.Errorf("payload %q: err = %v, want a malformed-entry error", payload, err)
		}
	}
}

func mustAdjustments(t *testing.T, s *Store) []sandbox.Adjustment {
	t.Helper()
	var got []sandbox.Adjustment
	mustView(t, s, func(tx sandbox.Tx) error {
		var err error
		got, err = tx.Adjustments("TRN_1")
		return err
	})
	return got
}
