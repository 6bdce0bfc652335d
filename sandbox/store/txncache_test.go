package store

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The copy of a transaction the cache held before an Update wrote it again is
// written over by a later Update: what any read returned before stays as it was,
// the committed value reads back while a later Update writes the spare copy, and
// an Update that fails leaves the committed value in place, also after an Update
// that wrote more than one record.
func TestTransactionCacheSpareCopy(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	base := adjustedSale("TRN_spare")
	base.Scenarios = []string{"first"}
	versions := make([]sandbox.Transaction, 5)
	for i := range versions {
		versions[i] = cloneTransaction(base)
		versions[i].AdjustmentCount = i + 1
		versions[i].GratuityAmount = string(rune('a' + i))
	}
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(versions[0]) })
	var reads []sandbox.Transaction
	errFailed := errors.New("the action failed")
	for i, v := range versions[1:] {
		fail := i == 2
		err := s.Update(func(sx sandbox.Tx) error {
			committed, err := sx.Transaction(v.ID)
			if err == nil {
				reads = append(reads, committed)
				err = sx.PutTransaction(v)
			}
			if err != nil {
				return err
			}
			if prev, ok := sx.(tx).committedTransaction("txn:" + v.ID); !ok || !reflect.DeepEqual(prev, v) {
				t.Errorf("version %d: the Update reads back %+v, want what it wrote", i+2, prev)
			}
			if fail {
				return errFailed
			}
			return nil
		})
		if fail != errors.Is(err, errFailed) || !fail && err != nil {
			t.Fatalf("version %d: Update = %v", i+2, err)
		}
		want := v
		if fail {
			want = versions[i]
		}
		mustView(t, s, func(tx sandbox.Tx) error {
			if got, err := tx.Transaction(want.ID); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("version %d: read %+v, %v; want %+v", i+2, got, err, want)
			}
			return nil
		})
		if i > 0 && !fail && s.spare == nil {
			t.Errorf("version %d: no spare copy kept after the transaction was written again", i+2)
		}
	}
	// An Update that writes two records takes the spare copy and keeps none; the
	// next Update's write must not land in the copy the cache now holds.
	last := versions[len(versions)-1]
	other := adjustedSale("TRN_other")
	mustUpdate(t, s, func(tx sandbox.Tx) error { return errors.Join(tx.PutTransaction(base), tx.PutTransaction(other)) })
	err := s.Update(func(tx sandbox.Tx) error { return errors.Join(tx.PutTransaction(last), errFailed) })
	if !errors.Is(err, errFailed) {
		t.Fatalf("failing Update = %v", err)
	}
	mustView(t, s, func(tx sandbox.Tx) error {
		if got, err := tx.Transaction(base.ID); err != nil || !reflect.DeepEqual(got, base) {
			t.Errorf("after a failed Update: read %+v, %v; want %+v", got, err, base)
		}
		return nil
	})
	for i, got := range reads { // the committed version each Update read first
		want := versions[i]
		if i == 3 {
			want = versions[2] // after the failed Update
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("read %d changed since: %+v, want %+v", i, got, want)
		}
	}
}
