package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// leafPaths lists the index paths of v's fields down through nested structs: the
// strings, numbers and bools, and the times, pointers and slices as wholes.
func leafPaths(v reflect.Type, prefix []int) [][]int {
	var out [][]int
	for i := range v.NumField() {
		path := append(append([]int(nil), prefix...), i)
		if f := v.Field(i).Type; f.Kind() == reflect.Struct && f != reflect.TypeFor[time.Time]() {
			out = append(out, leafPaths(f, path)...)
		} else {
			out = append(out, path)
		}
	}
	return out
}

// mustChangeTransaction stores before, then in another Update reads it (so the
// cache holds it) and stores after.
func mustChangeTransaction(t *testing.T, s *Store, before, after sandbox.Transaction) {
	t.Helper()
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(before) })
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		if _, err := tx.Transaction(before.ID); err != nil {
			return err
		}
		return tx.PutTransaction(after)
	})
}

// mustReadEverywhere checks that the transaction reads back as want through the
// cache, from the database with the cache cold, in the admin list and in a scan,
// and after the store is reopened; it returns the reopened store.
func mustReadEverywhere(t *testing.T, s *Store, want sandbox.Transaction) *Store {
	t.Helper()
	check := func(how string, got sandbox.Transaction, err error) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", how, err, got, want)
		}
	}
	read := func(how string) {
		t.Helper()
		mustView(t, s, func(tx sandbox.Tx) error {
			got, err := tx.Transaction(want.ID)
			check(how, got, err)
			return nil
		})
	}
	read("through the cache")
	s.cache.Clear()
	read("with the cache cold")
	mustView(t, s, func(tx sandbox.Tx) error {
		page, err := tx.TransactionPage("", 10)
		if len(page) != 1 {
			t.Fatalf("admin list: %d transactions, %v", len(page), err)
		}
		check("in the admin list", page[0], err)
		all, err := tx.Transactions()
		if len(all) != 1 {
			t.Fatalf("scan: %d transactions, %v", len(all), err)
		}
		check("in a scan", all[0], err)
		return nil
	})
	mustClose(t, s)
	s = mustOpen(t, s.path)
	read("after a reopen")
	return s
}

func mustHasKey(t *testing.T, s *Store, key string) bool {
	t.Helper()
	found := false
	err := s.db.View(func(tx *buntdb.Tx) error {
		_, err := tx.Get(key)
		found = err == nil
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// A change to any one field of a cached transaction reads back everywhere: a
// string, number or bool as a patch, anything else by rewriting the record. The
// fields are found by reflection, so a field added later is covered too.
func TestTransactionPatchEveryField(t *testing.T) {
	before := adjustedSale("TRN_patch")
	other := distinct(func(r *sandbox.Transaction) { r.ID = before.ID })
	for _, path := range leafPaths(reflect.TypeFor[sandbox.Transaction](), nil) {
		field := reflect.ValueOf(&before).Elem().FieldByIndex(path)
		name := reflect.TypeFor[sandbox.Transaction]().FieldByIndex(path).Name
		if name == "ID" {
			continue
		}
		t.Run(fmt.Sprint(name, path), func(t *testing.T) {
			after := cloneTransaction(before)
			reflect.ValueOf(&after).Elem().FieldByIndex(path).Set(reflect.ValueOf(other).FieldByIndex(path))
			s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
			mustChangeTransaction(t, s, before, after)
			switch field.Kind() {
			case reflect.String, reflect.Int, reflect.Bool:
				if !mustHasKey(t, s, "txp:"+before.ID) {
					t.Errorf("no patch for a change of %s", name)
				}
			default:
				if mustHasKey(t, s, "txp:"+before.ID) {
					t.Errorf("a patch for a change of %s, which a patch does not carry", name)
				}
			}
			mustReadEverywhere(t, s, after)
		})
	}
}

// A patch carries the fields of the patch before it; a change a patch cannot carry
// rewrites the record and drops the patch; so does a patch grown too long, and a
// change to a transaction the cache does not hold.
func TestTransactionPatchSequence(t *testing.T) {
	base := adjustedSale("TRN_patch")
	step := func(change func(*sandbox.Transaction)) sandbox.Transaction {
		next := cloneTransaction(base)
		change(&next)
		base = next
		return next
	}
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(base) })
	for _, tc := range []struct {
		name      string
		change    func(*sandbox.Transaction)
		coldCache bool
		wantPatch bool
		altered   bool // stored as JSON, which alters a string that is not UTF-8
	}{
		{"amount", func(r *sandbox.Transaction) { r.Amount = "1200" }, false, true, false},
		{"gratuity, amount carried", func(r *sandbox.Transaction) { r.GratuityAmount = "300" }, false, true, false},
		{"two in one update", func(r *sandbox.Transaction) { r.AdjustmentCount, r.BatchClosed = 7, true }, false, true, false},
		{"scenarios", func(r *sandbox.Transaction) { r.Scenarios = []string{"declines"} }, false, false, false},
		{"order amounts", func(r *sandbox.Transaction) {
			r.Order = &sandbox.OrderAmounts{Taxes: []sandbox.Tax{{Type: "VAT", Amount: "20"}}, DutyAmount: "5"}
		}, false, false, false},
		{"a tax of the order", func(r *sandbox.Transaction) {
			r.Order = &sandbox.OrderAmounts{Taxes: []sandbox.Tax{{Type: "VAT", Amount: "21"}}, DutyAmount: "5"}
		}, false, false, false},
		{"beside the order", func(r *sandbox.Transaction) { r.Amount = "1300" }, false, true, false},
		{"after a rewrite", func(r *sandbox.Transaction) { r.EMVTag = "9F26" }, false, true, false},
		{"not UTF-8", func(r *sandbox.Transaction) { r.Reference = "till\xff" }, false, false, true},
		{"patch again", func(r *sandbox.Transaction) { r.Reference = "till-43" }, false, true, false},
		{"too long for a patch", func(r *sandbox.Transaction) { r.MerchantName = strings.Repeat("n", maxPatch) }, false, false, false},
		{"not cached", func(r *sandbox.Transaction) { r.Status = sandbox.StatusCaptured + "X" }, true, false, false},
	} {
		want := step(tc.change)
		if tc.coldCache {
			s.cache.Clear()
		}
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			if !tc.coldCache {
				if _, err := tx.Transaction(want.ID); err != nil {
					return err
				}
			}
			return tx.PutTransaction(want)
		})
		if got := mustHasKey(t, s, "txp:"+want.ID); got != tc.wantPatch {
			t.Errorf("%s: patch stored %v, want %v", tc.name, got, tc.wantPatch)
		}
		if !tc.altered {
			s = mustReadEverywhere(t, s, want)
		}
	}
}

// Two writes of a transaction in one Update patch from the first write.
func TestTransactionPatchTwiceInOneUpdate(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	want := adjustedSale("TRN_patch")
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(want) })
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for _, amount := range []string{"1100", "1200"} {
			got, err := tx.Transaction(want.ID)
			if err != nil {
				return err
			}
			got.Amount = amount
			got.AdjustmentCount++
			if err := tx.PutTransaction(got); err != nil {
				return err
			}
		}
		return nil
	})
	want.Amount, want.AdjustmentCount = "1200", want.AdjustmentCount+2
	mustReadEverywhere(t, s, want)
}

// A patch that does not parse is an error when its transaction is read, not a
// panic or a half-patched transaction.
func TestTransactionPatchMalformed(t *testing.T) {
	for name, payload := range map[string]string{
		"empty":               "",
		"unknown format":      "\x02",
		"field past last":     "\x01\x2c\x01",
		"fields out of order": "\x01\x03\x011\x02\x011",
		"value cut short":     "\x01\x03\x05ab",
		"bool not 0 or 1":     "\x01\x2b\x02",
	} {
		t.Run(name, func(t *testing.T) {
			s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
			mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(adjustedSale("TRN_patch")) })
			mustSetRaw(t, s, "txp:TRN_patch", payload)
			s.cache.Clear()
			mustView(t, s, func(tx sandbox.Tx) error {
				if got, err := tx.Transaction("TRN_patch"); err == nil {
					t.Errorf("read %+v, want an error", got)
				}
				return nil
			})
		})
	}
}
