package store

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// merchantOf reads merchant_id from a transaction record as text: it must read what
// encoding/json wrote, whatever the members before it and the ids contain.
func TestMerchantOf(t *testing.T) {
	tr := sandbox.Transaction{
		ID: `TRN_"merchant_id":"x\` + "\u00e9", MerchantID: `MER_"merchant_id":"y\` + "\u00e9",
		Type: "SALE", Status: "CAPTURED", Reference: `"merchant_id":"NOT"`,
	}
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := merchantOf(string(raw)); got != tr.MerchantID {
		t.Errorf("merchant %q, want %q", got, tr.MerchantID)
	}
}

// A sort record's members read back as written, the id whatever it holds; the
// orders compare member by member.
func TestSortKey(t *testing.T) {
	tr := sandbox.Transaction{ID: "TRN_\x1fodd id", TimeCreated: ms(1500), Type: "SALE", Status: "CAPTURED"}
	k := sortKey(tr)
	for n, want := range []string{sandbox.FormatTime(ms(1500)), "CAPTURED", "SALE", tr.ID} {
		if got := sortField(k, n); got != want {
			t.Errorf("member %d: %q, want %q", n, got, want)
		}
	}
	later := sortKey(sandbox.Transaction{ID: "A", TimeCreated: ms(2500), Type: "REFUND", Status: "CAPTURED"})
	byTime, byType := sortLess([]int{sortTime, sortID}), sortLess([]int{sortType, sortID})
	if !byTime(k, later) || byTime(later, k) {
		t.Error("time order")
	}
	if !byType(later, k) || byType(k, later) {
		t.Error("type order")
	}
	if byTime(k, k) {
		t.Error("a record is less than itself")
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

// A file whose transactions have no sort records (records written by hand) gets them
// on open, and lists them.
func TestOpenSortsUnsortedTransactions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	err := s.db.Update(func(tx *buntdb.Tx) error {
		for _, id := range []string{"TRN_b", "TRN_a"} {
			raw, _ := json.Marshal(sandbox.Transaction{ID: id, MerchantID: "M", TimeCreated: ms(1000)})
			if _, _, err := tx.Set("txn:"+id, string(raw), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	if ids := listedIDs(t, s); ids != "TRN_a,TRN_b" {
		t.Errorf("listed %v, want TRN_a,TRN_b", ids)
	}
}

// A snapshot whose transactions lack sort records, restored, lists them all, and a
// sort record left without its transaction is passed over.
func TestRestoreSortsTransactions(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	defer mustClose(t, s)
	for _, id := range []string{"TRN_b", "TRN_a"} {
		err := s.Update(func(tx sandbox.Tx) error {
			return tx.PutTransaction(sandbox.Transaction{ID: id, MerchantID: "M", TimeCreated: ms(1000)})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err := s.db.Update(func(tx *buntdb.Tx) error {
		if _, err := tx.Delete(sortPrefix + "TRN_a"); err != nil {
			return err
		}
		_, _, err := tx.Set(sortPrefix+"TRN_gone", "1970-01-01T00:00:00.000Z\x1fCAPTURED\x1fSALE\x1fTRN_gone", nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveSnapshot("unsorted", "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreSnapshot("unsorted"); err != nil {
		t.Fatal(err)
	}
	if ids := listedIDs(t, s); ids != "TRN_a,TRN_b" {
		t.Errorf("listed %v after the restore, want TRN_a,TRN_b", ids)
	}
}

// listedIDs is the first page of the transaction list in id order, as "id,id,...".
func listedIDs(t *testing.T, s *Store) string {
	t.Helper()
	var ids []string
	mustView(t, s, func(tx sandbox.Tx) error {
		_, _, err := tx.WalkTransactions("ID", false, sandbox.TransactionCursor{}, 10, func(tr sandbox.Transaction) bool {
			ids = append(ids, tr.ID)
			return true
		})
		return err
	})
	return strings.Join(ids, ",")
}
