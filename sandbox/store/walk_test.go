package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// mustBeIndexed checks that every transaction has the sort record sortRecord gives
// it and that no other sort record is left, and that the counts are the merchants'.
func mustBeIndexed(t *testing.T, s *Store) {
	t.Helper()
	mustView(t, s, func(tx sandbox.Tx) error {
		counts := map[string]int{}
		n := 0
		err := ascendPrefix(s2t(tx), "txn:", func(key, value string) bool {
			var tr sandbox.Transaction
			if err := decode(key, value, &tr); err != nil {
				t.Fatal(err)
			}
			if got, err := s2t(tx).Get(sortKey(tr.ID)); err != nil || got != sortRecord(tr) {
				t.Errorf("%s: sort record %q (%v), want %q", key, got, err, sortRecord(tr))
			}
			counts[tr.MerchantID]++
			n++
			return true
		})
		if sorted, _ := countPrefix(s2t(tx), sortPrefix); sorted != n {
			t.Errorf("%d sort records for %d transactions", sorted, n)
		}
		for m, want := range counts {
			if got, _ := tx.CountTransactions(m); got != want {
				t.Errorf("%s: counted %d, want %d", m, got, want)
			}
		}
		return err
	})
}

// s2t is the buntdb transaction under a store's Tx.
func s2t(x sandbox.Tx) *buntdb.Tx { return x.(tx).t }

// forgetSortRecords deletes every sort record and count, as a file written before
// they existed has none.
func forgetSortRecords(t *testing.T, s *Store) {
	t.Helper()
	err := s.db.Update(func(t *buntdb.Tx) error {
		if err := deletePrefix(t, sortPrefix); err != nil {
			return err
		}
		return deletePrefix(t, countKey(""))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func putTransactions(t *testing.T, s *Store, trs ...sandbox.Transaction) {
	t.Helper()
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for _, tr := range trs {
			if err := tx.PutTransaction(tr); err != nil {
				return err
			}
		}
		return nil
	})
}

// Every write of a transaction keeps its sort record: a new one, a change of what a
// list orders by, a change of nothing a list orders by, a move to another merchant.
func TestSortRecordsFollowWrites(t *testing.T) {
	s := mustOpen(t, ":memory:")
	putTransactions(t, s,
		sandbox.Transaction{ID: "TRN_1", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(1), Type: "SALE", Status: "CAPTURED"},
		sandbox.Transaction{ID: "TRN_2", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(2), Type: "SALE", Status: "CAPTURED"})
	mustBeIndexed(t, s)
	putTransactions(t, s, sandbox.Transaction{ID: "TRN_1", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(3), Type: "REFUND", Status: "REVERSED"})
	mustBeIndexed(t, s)
	putTransactions(t, s, sandbox.Transaction{ID: "TRN_1", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(3), Type: "REFUND", Status: "REVERSED", Amount: "5"})
	mustBeIndexed(t, s)
	putTransactions(t, s, sandbox.Transaction{ID: "TRN_2", Holder: sandbox.Holder{MerchantID: "B"}, TimeCreated: ms(2), Type: "SALE", Status: "CAPTURED"})
	mustBeIndexed(t, s)
	if got := walkIDs(t, s, "TIME_CREATED", false, nil, -1, nil); got != "TRN_2,TRN_1" {
		t.Errorf("by time: %s", got)
	}
	err := s.Update(func(tx sandbox.Tx) error {
		return tx.PutTransaction(sandbox.Transaction{ID: "TRN_3", Status: "CAP\x00TURED"})
	})
	if err == nil {
		t.Error("a status holding a NUL byte was stored")
	}
}

// A sort record gives back each member an ordering compares, and the merchant whole;
// a time beyond the years 0 to 9999 sorts at their end, not inside them.
func TestSortRecordMembers(t *testing.T) {
	tr := sandbox.Transaction{ID: "TRN_1", TimeCreated: ms(7), Status: "CAPTURED", Type: "SALE", Holder: sandbox.Holder{MerchantID: "MER_\x00x"}}
	record := sortRecord(tr)
	for byType, want := range map[bool]string{false: "CAPTURED", true: "SALE"} {
		if member, id := sortMembers(record, byType); member != want || id != "TRN_1" {
			t.Errorf("by type %v: %q, %q; want %q, TRN_1", byType, member, id, want)
		}
	}
	if got := sortMerchant(record); got != tr.MerchantID {
		t.Errorf("merchant %q", got)
	}
	later, longer := tr, tr
	later.TimeCreated = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	longer.ID = "TRN_10"
	for _, after := range []sandbox.Transaction{later, longer} {
		if sortRecord(after) <= record {
			t.Errorf("%s at %s sorts before %s at %s", after.ID, after.TimeCreated, tr.ID, tr.TimeCreated)
		}
	}
}

// A file without sort records (written before they existed) has them written at
// open, the counts with them; so does a snapshot restored without them.
func TestSortRecordsWrittenWhenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	putTransactions(t, s,
		sandbox.Transaction{ID: "TRN_1", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(2), Type: "SALE", Status: "CAPTURED"},
		sandbox.Transaction{ID: "TRN_2", Holder: sandbox.Holder{MerchantID: "B"}, TimeCreated: ms(1), Type: "SALE", Status: "DECLINED"})
	forgetSortRecords(t, s)
	if _, err := s.SaveSnapshot("unsorted", "", false); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)

	s = mustOpen(t, path)
	mustBeIndexed(t, s)
	if got := walkIDs(t, s, "TIME_CREATED", false, nil, -1, nil); got != "TRN_2,TRN_1" {
		t.Errorf("by time after the open: %s", got)
	}
	putTransactions(t, s, sandbox.Transaction{ID: "TRN_3", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(0), Type: "SALE", Status: "CAPTURED"})
	if _, err := s.RestoreSnapshot("unsorted"); err != nil {
		t.Fatal(err)
	}
	mustBeIndexed(t, s)
	if got := walkIDs(t, s, "STATUS", true, nil, -1, nil); got != "TRN_2,TRN_1" {
		t.Errorf("by status after the restore: %s", got)
	}
}

// Every merchant's count follows its transactions, is kept in the file, and goes
// with them.
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
			if err := tx.PutTransaction(sandbox.Transaction{ID: string(rune('1' + i)), Holder: sandbox.Holder{MerchantID: m}}); err != nil {
				return err
			}
		}
		// An update stays one transaction; a move changes both counts.
		if err := tx.PutTransaction(sandbox.Transaction{ID: "1", Holder: sandbox.Holder{MerchantID: "A"}, Status: "REVERSED"}); err != nil {
			return err
		}
		return tx.PutTransaction(sandbox.Transaction{ID: "2", Holder: sandbox.Holder{MerchantID: "B"}})
	})
	want(s, map[string]int{"A": 2, "B": 2, "C": 0})
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	want(s, map[string]int{"A": 2, "B": 2, "C": 0})
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	want(s, map[string]int{"A": 0, "B": 0, "C": 0})
}

// A verification is counted by no list; a file whose counts are of the older layout
// (every transaction, verifications included, under count:txn:) is counted again at
// open and the old keys dropped.
func TestCountsLeaveVerificationsOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	putTransactions(t, s,
		sandbox.Transaction{ID: "TRN_1", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(1), Type: "SALE", Status: "CAPTURED"},
		sandbox.Transaction{ID: "TRN_2", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(2), Type: "SALE", Status: "VERIFIED"},
		sandbox.Transaction{ID: "TRN_3", Holder: sandbox.Holder{MerchantID: "A"}, TimeCreated: ms(3), Type: "SALE", Status: "NOT_VERIFIED"})
	count := func() int {
		var n int
		mustView(t, s, func(tx sandbox.Tx) error {
			var err error
			n, err = tx.CountTransactions("A")
			return err
		})
		return n
	}
	if got := count(); got != 1 {
		t.Errorf("count with two verifications: %d, want 1", got)
	}
	err := s.db.Update(func(t *buntdb.Tx) error {
		if err := deletePrefix(t, countKey("")); err != nil {
			return err
		}
		_, _, err := t.Set(legacyCountPrefix+"A", "3", nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	if got := count(); got != 1 {
		t.Errorf("count after opening a file of the older layout: %d, want 1", got)
	}
	if err := s.db.View(func(t *buntdb.Tx) error {
		if n, err := countPrefix(t, legacyCountPrefix); err != nil || n != 0 {
			return fmt.Errorf("%d old counts left (%v)", n, err)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}

// walkIDs walks the transactions in chunks of chunk, one View each, from after, and
// returns the ids given; between chunks it runs between.
func walkIDs(t *testing.T, s *Store, orderBy string, desc bool, after *sandbox.Transaction, chunk int, between func()) string {
	t.Helper()
	var ids []string
	for end := false; !end; {
		mustView(t, s, func(tx sandbox.Tx) error {
			var err error
			after, end, err = tx.WalkTransactions(orderBy, desc, after, chunk, func(tr sandbox.Transaction) bool {
				ids = append(ids, tr.ID)
				return true
			})
			return err
		})
		if between != nil {
			between()
		}
	}
	return strings.Join(ids, ",")
}

// A walk resumes right after the transaction it gave last, in every ordering and
// both directions, ties and all, at the place it was given at even if it changed
// since.
func TestWalkResumes(t *testing.T) {
	s := mustOpen(t, ":memory:")
	statuses := []string{"CAPTURED", "DECLINED", "CAPTURED", "PREAUTHORIZED", "CAPTURED", "DECLINED"}
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for i, st := range statuses {
			// Two transactions a millisecond: ties in time order, broken by id.
			tr := sandbox.Transaction{ID: fmt.Sprintf("TRN_%d", 9-i), TimeCreated: ms(i / 2), Type: "SALE", Status: st}
			if err := tx.PutTransaction(tr); err != nil {
				return err
			}
		}
		return nil
	})
	for _, orderBy := range sandbox.TransactionOrderings {
		for _, desc := range []bool{false, true} {
			whole := walkIDs(t, s, orderBy, desc, nil, -1, nil)
			if n := strings.Count(whole, ",") + 1; n != len(statuses) {
				t.Fatalf("%s desc=%v: %s, want %d transactions", orderBy, desc, whole, len(statuses))
			}
			if got := walkIDs(t, s, orderBy, desc, nil, 1, nil); got != whole {
				t.Errorf("%s desc=%v: in chunks of one %s, want %s", orderBy, desc, got, whole)
			}
		}
	}
	// By status TRN_5 and TRN_7 (CAPTURED) come first; TRN_7 turns AUTHORIZED, which
	// sorts before them, before the next chunk. Resuming from its new place would give
	// TRN_5 again.
	first := true
	got := walkIDs(t, s, "STATUS", false, nil, 2, func() {
		if first {
			first = false
			mustUpdate(t, s, func(tx sandbox.Tx) error {
				return tx.PutTransaction(sandbox.Transaction{ID: "TRN_7", TimeCreated: ms(1), Type: "SALE", Status: "AUTHORIZED"})
			})
		}
	})
	if want := "TRN_5,TRN_7,TRN_9,TRN_4,TRN_8,TRN_6"; got != want {
		t.Errorf("a walk across a change gave %s, want %s", got, want)
	}
	// For ID order, a transaction's id alone says where to resume.
	if got, want := walkIDs(t, s, "ID", false, &sandbox.Transaction{ID: "TRN_6"}, 2, nil), "TRN_7,TRN_8,TRN_9"; got != want {
		t.Errorf("after TRN_6 by id: %s, want %s", got, want)
	}
}
