package store

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// The index orders read the leading members of a transaction record as text: they
// must read what encoding/json wrote, whatever the nested records hold and whatever
// the ids contain.
func TestIndexedMembersLead(t *testing.T) {
	tr := sandbox.Transaction{
		ID: `TRN_"id":"x\` + "\u00e9", MerchantID: `MER_"merchant_id":"y`, TimeCreated: ms(1500),
		Type: "SALE", Status: "CAPTURED", Reference: `"status":"NOT"`,
	}
	tr.Action.ID, tr.Action.Type, tr.Action.TimeCreated = "ACT_x", "CLOSE", "2020-01-01T00:00:00.000Z"
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	record := string(raw)
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"id", "merchant_id", "time_created", "type", "status"} {
		var got string
		if err := json.Unmarshal([]byte(`"`+leadingMember(record, memberKey(name))+`"`), &got); err != nil || got != want[name] {
			t.Errorf("%s: %q (%v), want %q", name, got, err, want[name])
		}
	}
	if got := merchantOf(record); got != tr.MerchantID {
		t.Errorf("merchant %q", got)
	}
	if got, want := createdAt(record), sandbox.FormatTime(ms(1500)); got+"Z" != want {
		t.Errorf("created %q, want %q", got, want)
	}
}

// Every merchant's count follows its transactions, and is set right on open when the
// file's counts are wrong or missing.
func TestTransactionCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	want := func(s *Store, counts map[string]int) {
		t.Helper()
		mustView(t, s, func(tx sandbox.Tx) error {
			for m, n := range counts {
				if got, err := tx.CountTransactions(m); err != nil || got != n {
					t.Errorf("%s: %d transactions (%v), want %d", m, got, err, n)
				}
			}
			return nil
		})
	}
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for i, m := range []string{"A", "A", "B", "A"} {
			if err := tx.PutTransaction(sandbox.Transaction{ID: string(rune('1' + i)), MerchantID: m}); err != nil {
				return err
			}
		}
		// An update stays one transaction; a move changes both counts.
		if err := tx.PutTransaction(sandbox.Transaction{ID: "1", MerchantID: "A", Status: "REVERSED"}); err != nil {
			return err
		}
		return tx.PutTransaction(sandbox.Transaction{ID: "2", MerchantID: "B"})
	})
	want(s, map[string]int{"A": 2, "B": 2, "C": 0})
	err := s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(countKey("A"), "99", nil)
		if err == nil {
			_, _, err = tx.Set(countKey("C"), "5", nil)
		}
		if err == nil {
			_, err = tx.Delete(countKey("B"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	want(s, map[string]int{"A": 2, "B": 2, "C": 0})
}
