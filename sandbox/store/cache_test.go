package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The decoded-transaction cache never answers what the database does not hold.
func TestTransactionCacheFollowsCommits(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "cache.db"))
	txn := sandbox.Transaction{ID: "TRN_1", Amount: "100", Order: &sandbox.OrderAmounts{Taxes: []sandbox.Tax{{Type: "VAT", Amount: "1"}}}}
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(txn) })
	amount := func() string {
		t.Helper()
		var got sandbox.Transaction
		mustView(t, s, func(tx sandbox.Tx) error {
			var err error
			got, err = tx.Transaction("TRN_1")
			return err
		})
		return got.Amount
	}
	if a := amount(); a != "100" {
		t.Fatalf("after commit: %q", a)
	}

	// A failed Update's write is not seen, by its own later reads it is.
	boom := errors.New("boom")
	err := s.Update(func(tx sandbox.Tx) error {
		changed := txn
		changed.Amount = "200"
		if err := tx.PutTransaction(changed); err != nil {
			return err
		}
		if got, _ := tx.Transaction("TRN_1"); got.Amount != "200" {
			t.Errorf("read after write in the same Update: %q", got.Amount)
		}
		return boom
	})
	if !errors.Is(err, boom) || amount() != "100" {
		t.Errorf("after a failed Update: err %v, amount %q", err, amount())
	}

	// What a caller does to a returned transaction does not reach the cache.
	mustView(t, s, func(tx sandbox.Tx) error {
		got, _ := tx.Transaction("TRN_1")
		got.Order.Taxes[0].Amount = "999"
		return nil
	})
	mustView(t, s, func(tx sandbox.Tx) error {
		got, _ := tx.Transaction("TRN_1")
		if got.Order.Taxes[0].Amount != "1" {
			t.Errorf("cache shares memory with callers: %+v", got.Order)
		}
		return nil
	})

	// A wipe empties it.
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	mustView(t, s, func(tx sandbox.Tx) error {
		if _, err := tx.Transaction("TRN_1"); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("after DeleteAll: %v", err)
		}
		return nil
	})
}

// Apps come out of the cache as copies too, down to their accounts' permissions.
func TestAppCacheCopies(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "cache.db"))
	app := sandbox.App{ID: "app1", Accounts: []sandbox.Account{{ID: "TRA_1", Permissions: []string{sandbox.PermAdjust}}}}
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutApp(app) })
	mustView(t, s, func(tx sandbox.Tx) error {
		got, _ := tx.App("app1")
		got.Accounts[0].Permissions[0] = "CHANGED"
		return nil
	})
	mustView(t, s, func(tx sandbox.Tx) error {
		if got, _ := tx.App("app1"); got.Accounts[0].Permissions[0] != sandbox.PermAdjust {
			t.Errorf("cache shares memory with callers: %+v", got.Accounts)
		}
		return nil
	})
}

// An Update writing more records than the cache holds (a big fixture load) still
// reads its own latest writes, and leaves the cache cold rather than stale.
func TestCacheOverflowingUpdate(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "cache.db"))
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(sandbox.Transaction{ID: "TRN_0", Amount: "1"}) })
	mustView(t, s, func(tx sandbox.Tx) error { _, err := tx.Transaction("TRN_0"); return err }) // cached
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for i := 1; i <= recordCacheSize+10; i++ {
			if err := tx.PutTransaction(sandbox.Transaction{ID: fmt.Sprint("TRN_", i), Amount: "5"}); err != nil {
				return err
			}
		}
		if err := tx.PutTransaction(sandbox.Transaction{ID: "TRN_1", Amount: "7"}); err != nil {
			return err
		}
		if err := tx.PutTransaction(sandbox.Transaction{ID: "TRN_0", Amount: "9"}); err != nil {
			return err
		}
		for id, want := range map[string]string{"TRN_1": "7", "TRN_0": "9"} {
			if got, _ := tx.Transaction(id); got.Amount != want {
				t.Errorf("%s in the same Update: %q, want %q", id, got.Amount, want)
			}
		}
		return nil
	})
	mustView(t, s, func(tx sandbox.Tx) error {
		for id, want := range map[string]string{"TRN_1": "7", "TRN_0": "9"} {
			if got, _ := tx.Transaction(id); got.Amount != want {
				t.Errorf("%s after the commit: %q, want %q", id, got.Amount, want)
			}
		}
		return nil
	})
}
