package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
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
	mustClose(t, s)
	s = mustOpen(t, path)
	defer mustClose(t, s)
	want(s, map[string]int{"A": 2, "B": 2, "C": 0})
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	want(s, map[string]int{"A": 0, "B": 0, "C": 0})
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
