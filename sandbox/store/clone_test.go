package store

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Every cached record comes out of the cache as a copy that shares no memory with
// it: a caller that changes whatever a record reaches (slices, maps, pointers, down to
// nested ones) changes nothing for the next reader. The records are filled by
// reflection, so a field added later is covered without touching this test.
func TestCachedRecordsAreCopies(t *testing.T) {
	for _, tc := range []struct {
		name string
		put  func(sandbox.Tx) error
		get  func(sandbox.Tx) (any, error)
	}{
		{"transaction", func(tx sandbox.Tx) error {
			return tx.PutTransaction(distinct(func(r *sandbox.Transaction) { r.ID = "TRN_1" }))
		},
			func(tx sandbox.Tx) (any, error) { return tx.Transaction("TRN_1") }},
		{"app", func(tx sandbox.Tx) error {
			return tx.PutApp(distinct(func(r *sandbox.App) { r.ID = "app1" }))
		},
			func(tx sandbox.Tx) (any, error) { return tx.App("app1") }},
		{"merchant", func(tx sandbox.Tx) error {
			return tx.PutMerchant(distinct(func(r *sandbox.Merchant) { r.ID = "MER_1" }))
		},
			func(tx sandbox.Tx) (any, error) { return tx.Merchant("MER_1") }},
		{"pricing profile", func(tx sandbox.Tx) error {
			return tx.PutPricingProfile(distinct(func(r *sandbox.PricingProfile) { r.Name = "standard" }))
		}, func(tx sandbox.Tx) (any, error) { return tx.PricingProfile("standard") }},
		{"notification", func(tx sandbox.Tx) error {
			return tx.PutNotification(distinct(func(r *sandbox.Notification) { r.OrderID, r.Seq = "ORD_1", 1 }))
		}, func(tx sandbox.Tx) (any, error) { return tx.Notification("ORD_1", 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, filepath.Join(t.TempDir(), "clone.db"))
			mustUpdate(t, s, tc.put)
			var scribbled, after any
			read := func(into *any) {
				mustView(t, s, func(tx sandbox.Tx) (err error) { *into, err = tc.get(tx); return })
			}
			read(&scribbled)
			before := mustJSON(t, scribbled) // a snapshot that shares nothing
			if n := scribble(reflect.ValueOf(&scribbled).Elem().Elem(), false); n == 0 {
				t.Fatal("nothing reachable to change: the record has no shared parts to test")
			}
			read(&after)
			if got := mustJSON(t, after); got != before {
				t.Errorf("changing a returned record changed the cache:\nbefore %s\nafter  %s", before, got)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scribble changes every string and number reachable through a slice, map or
// pointer of v (shared is true below one) and returns how many it changed.
func scribble(v reflect.Value, shared bool) int {
	n := 0
	switch v.Kind() {
	case reflect.String:
		if shared && v.CanSet() {
			v.SetString("CHANGED")
			n++
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if shared && v.CanSet() {
			v.SetInt(99)
			n++
		}
	case reflect.Pointer:
		if !v.IsNil() {
			n += scribble(v.Elem(), true)
		}
	case reflect.Slice:
		for i := range v.Len() {
			n += scribble(v.Index(i), true)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			n += scribble(e, true) + 1
			v.SetMapIndex(k, e) // a map's value is changed by storing it again
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += scribble(v.Field(i), shared)
			}
		}
	}
	return n
}

// A cached batch reads back as the database gives it: without the members the admin
// API fills in (json:"-"), in the writing transaction and after it.
func TestCachedBatchIsTheStoredOne(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "batch.db"))
	b := distinct(func(r *sandbox.Batch) { r.ID = "BAT_1" })
	check := func(when string, tx sandbox.Tx) error {
		got, err := tx.Batch("BAT_1")
		if err != nil {
			return err
		}
		want := b
		want.Members = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", when, got, want)
		}
		got.Members = append(got.Members, "TRN_changed") // a reader's change stays its own
		return nil
	}
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		if err := tx.PutBatch(b); err != nil {
			return err
		}
		return check("in the writing transaction", tx)
	})
	mustView(t, s, func(tx sandbox.Tx) error { return check("after the commit", tx) })
	mustView(t, s, func(tx sandbox.Tx) error { return check("read again", tx) })
}
