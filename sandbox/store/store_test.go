package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// base is a whole second, so base+100ms encodes as "…:00.1Z" and base as "…:00Z": the
// times whose text order differs from their time order.
var base = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }

func mustOpen(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() }) // a second Close just reports ErrDatabaseClosed
	return s
}

func mustUpdate(t *testing.T, s *Store, fn func(sandbox.Tx) error) {
	t.Helper()
	if err := s.Update(fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func mustView(t *testing.T, s *Store, fn func(sandbox.Tx) error) {
	t.Helper()
	if err := s.View(fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func mustClose(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func mustDeleteExpired(t *testing.T, s *Store, tokenCutoff, keyCutoff time.Time) int {
	t.Helper()
	var n int
	mustUpdate(t, s, func(tx sandbox.Tx) (err error) {
		n, err = tx.DeleteExpired(tokenCutoff, keyCutoff)
		return err
	})
	return n
}

// record is one record of each type: how to write it, how to read it back, and what
// reading it back must give.
type record struct {
	name string
	put  func(sandbox.Tx) error
	get  func(sandbox.Tx) (any, error)
	want any
}

func records() []record {
	app := sandbox.App{
		ID: "app1", Key: "secret", Name: "Till", Email: "dev@example.com", MerchantID: "MER_1",
		Merchants: []string{"MER_1", "MER_2"},
		Accounts:  []sandbox.Account{{ID: "TRA_1", Name: "transaction_processing", Permissions: []string{sandbox.PermAdjust}}},
		Live:      sandbox.LiveConfig{AdjustmentAllowed: true, OrdersAllowed: true},
		Scenarios: []string{"decline"},
	}
	merchant := sandbox.Merchant{ID: "MER_1", Name: "Corner Shop", PricingProfile: "std", Scenarios: []string{"slow"}}
	pricing := sandbox.PricingProfile{Name: "std", Currency: "USD", Products: map[string]string{"A920": "29900"}}
	txn := sandbox.Transaction{
		ID: "TRN_1", MerchantID: "MER_1", TimeCreated: ms(123), Type: "SALE", Status: sandbox.StatusCaptured,
		Amount: "1000", GratuityAmount: "150", Currency: "USD", Country: "US", Reference: "ref",
		PaymentMethod: sandbox.PaymentResult{Result: "00", Message: "APPROVED",
			Card: sandbox.CardResult{Authcode: "123456", BrandReference: "BR"}, BNPL: &sandbox.BNPLResult{Provider: "AFFIRM"}},
		Order:   &sandbox.OrderAmounts{Taxes: []sandbox.Tax{{Type: "STATE", Amount: "80"}}, ShippingAmount: "500"},
		BatchID: "BAT_1", EMVTag: "9F02",
		Action: sandbox.Action{ID: "ACT_1", Type: "ADJUST", TimeCreated: sandbox.FormatTime(ms(123)), ResultCode: "SUCCESS", AppID: "app1", AppName: "Till"},
	}
	order := sandbox.Order{
		ID: "ORD_1", MerchantID: "MER_1", MerchantName: "Corner Shop", Status: sandbox.OrderInitiated,
		TimeCreated: ms(5), TimeLastUpdated: ms(50), AppID: "app1", Version: "2021-03-22",
		Action:  sandbox.Action{ID: "ACT_2", Type: "ORDER_CREATE", ResultCode: "SUCCESS"},
		History: []sandbox.Action{{ID: "ACT_2", Type: "ORDER_CREATE"}},
	}
	token := sandbox.Token{Value: "tok1", AppID: "app1", Permissions: []string{sandbox.PermOrder},
		Restricted: true, Created: base, Expires: ms(1_000)}
	idem := sandbox.IdempotencyRecord{AppID: "app1", Key: "k1", ResourceID: "TRN_1", Kind: "transaction",
		Time: ms(7), Method: "POST", Path: "/ucp/transactions/TRN_1/adjustment", BodyHash: "abc",
		HTTPStatus: 200, Response: []byte(`{"id":"TRN_1"}`)}

	return []record{
		{"app", func(tx sandbox.Tx) error { return tx.PutApp(app) },
			func(tx sandbox.Tx) (any, error) { return tx.App("app1") }, app},
		{"merchant", func(tx sandbox.Tx) error { return tx.PutMerchant(merchant) },
			func(tx sandbox.Tx) (any, error) { return tx.Merchant("MER_1") }, merchant},
		{"pricing", func(tx sandbox.Tx) error { return tx.PutPricingProfile(pricing) },
			func(tx sandbox.Tx) (any, error) { return tx.PricingProfile("std") }, pricing},
		{"transaction", func(tx sandbox.Tx) error { return tx.PutTransaction(txn) },
			func(tx sandbox.Tx) (any, error) { return tx.Transaction("TRN_1") }, txn},
		{"order", func(tx sandbox.Tx) error { return tx.PutOrder(order) },
			func(tx sandbox.Tx) (any, error) { return tx.Order("ORD_1") }, order},
		{"token", func(tx sandbox.Tx) error { return tx.PutToken(token) },
			func(tx sandbox.Tx) (any, error) { return tx.Token("tok1") }, token},
		{"idempotency", func(tx sandbox.Tx) error { return tx.PutIdempotency(idem) },
			func(tx sandbox.Tx) (any, error) { return tx.Idempotency("app1", "k1") }, idem},
		{"meta", func(tx sandbox.Tx) error { return tx.PutMeta("fixtures", "2025-03-14T12:00:00.000Z") },
			func(tx sandbox.Tx) (any, error) { return tx.Meta("fixtures") }, "2025-03-14T12:00:00.000Z"},
	}
}

func mustPutAll(t *testing.T, s *Store) {
	t.Helper()
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for _, r := range records() {
			if err := r.put(tx); err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
		}
		return nil
	})
}

func mustHaveAll(t *testing.T, s *Store) {
	t.Helper()
	mustView(t, s, func(tx sandbox.Tx) error {
		for _, r := range records() {
			got, err := r.get(tx)
			if err != nil {
				t.Errorf("%s: %v", r.name, err)
				continue
			}
			if !reflect.DeepEqual(got, r.want) {
				t.Errorf("%s:\n got %#v\nwant %#v", r.name, got, r.want)
			}
		}
		return nil
	})
}

func mustHaveNone(t *testing.T, s *Store) {
	t.Helper()
	mustView(t, s, func(tx sandbox.Tx) error {
		for _, r := range records() {
			if _, err := r.get(tx); !errors.Is(err, sandbox.ErrNotFound) {
				t.Errorf("%s: err = %v, want ErrNotFound", r.name, err)
			}
		}
		return nil
	})
}

func TestRoundTrip(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	mustHaveNone(t, s)
	mustPutAll(t, s)
	mustHaveAll(t, s)
}

func TestMemory(t *testing.T) {
	s := mustOpen(t, ":memory:")
	mustPutAll(t, s)
	mustHaveAll(t, s)
}

func TestIdempotencyKeyIsPerApp(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "k", ResourceID: "r"})
	})
	mustView(t, s, func(tx sandbox.Tx) error {
		if _, err := tx.Idempotency("b", "k"); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("other app's key: err = %v, want ErrNotFound", err)
		}
		return nil
	})
}

func TestUpdateErrorRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	boom := errors.New("boom")

	err := s.Update(func(tx sandbox.Tx) error {
		for _, r := range records() {
			if err := r.put(tx); err != nil {
				return err
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	mustHaveNone(t, s)

	// A failed DeleteAll leaves everything in place, and nothing of either reached the file.
	mustPutAll(t, s)
	err = s.Update(func(tx sandbox.Tx) error {
		if err := tx.DeleteAll(); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	mustHaveAll(t, s)
	mustClose(t, s)
	mustHaveAll(t, mustOpen(t, path))
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutToken(sandbox.Token{Value: "old", Expires: ms(-1)})
	})
	mustClose(t, s)

	s = mustOpen(t, path)
	mustHaveAll(t, s)
	// The indexes are rebuilt on open: only "old" expired before base.
	if n := mustDeleteExpired(t, s, base, base); n != 1 {
		t.Fatalf("DeleteExpired after reopen = %d, want 1", n)
	}
	// Past every time in records(): the token and the idempotency record go.
	if n := mustDeleteExpired(t, s, ms(2_000), ms(2_000)); n != 2 {
		t.Fatalf("DeleteExpired after reopen = %d, want 2", n)
	}
	mustClose(t, s)

	s = mustOpen(t, path)
	mustView(t, s, func(tx sandbox.Tx) error {
		for _, v := range []string{"old", "tok1"} {
			if _, err := tx.Token(v); !errors.Is(err, sandbox.ErrNotFound) {
				t.Errorf("token %s after delete and reopen: err = %v", v, err)
			}
		}
		if _, err := tx.App("app1"); err != nil {
			t.Errorf("app after DeleteExpired: %v", err)
		}
		return nil
	})
}

// TestCommittedBeforeClose copies the file right after Update returns, without Close:
// the copy has the write, which is what survives a kill -9.
func TestCommittedBeforeClose(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, filepath.Join(dir, "db"))
	mustPutAll(t, s)
	b, err := os.ReadFile(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "copy"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	mustHaveAll(t, mustOpen(t, filepath.Join(dir, "copy")))
}

func TestSyncPolicy(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want buntdb.SyncPolicy
	}{
		{Options{}, buntdb.EverySecond},
		{Options{SyncAlways: true}, buntdb.Always},
	} {
		s, err := OpenWith(filepath.Join(t.TempDir(), "db"), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var cfg buntdb.Config
		if err := s.db.ReadConfig(&cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.SyncPolicy != tc.want || cfg.AutoShrinkDisabled || cfg.AutoShrinkMinSize != autoShrinkMinSize {
			t.Errorf("%+v: config %+v", tc.opts, cfg)
		}
		mustClose(t, s)
	}
}

func TestDeleteExpired(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	// Offsets in ms from base. JSON makes them "…:00Z", "…:00.001Z", "…:00.1Z",
	// "…:00.12Z", "…:00.121Z", "…:00.9Z", "…:01Z": text order is not time order.
	offsets := []int{-1_000, 0, 1, 100, 120, 121, 900, 1_000}
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for _, o := range offsets {
			if err := tx.PutToken(sandbox.Token{Value: fmt.Sprint("t", o), Expires: ms(o)}); err != nil {
				return err
			}
			if err := tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: fmt.Sprint("k", o), Time: ms(o)}); err != nil {
				return err
			}
		}
		// In another zone: "…T12:59:59.5+01:00" is 11:59:59.5Z, after t-1000 and before t0.
		return tx.PutToken(sandbox.Token{Value: "zoned", Expires: ms(-500).In(time.FixedZone("CET", 3600))})
	})

	steps := []struct {
		tokenCutoff, keyCutoff time.Time
		gone                   []string // in addition to the steps before
	}{
		{ms(-1_000), ms(-1_000), nil}, // strictly before: equal times stay
		{base, ms(-999), []string{"t-1000", "zoned", "k-1000"}},
		{ms(120), base, []string{"t0", "t1", "t100"}},
		{ms(121), ms(120), []string{"t120", "k0", "k1", "k100"}},
		{ms(1_000), ms(1_000), []string{"t121", "t900", "k120", "k121", "k900"}},
		{ms(1_000), ms(1_000), nil},
	}
	gone := map[string]bool{}
	for i, st := range steps {
		n := mustDeleteExpired(t, s, st.tokenCutoff, st.keyCutoff)
		if n != len(st.gone) {
			t.Errorf("step %d: deleted %d, want %d", i, n, len(st.gone))
		}
		for _, k := range st.gone {
			gone[k] = true
		}
		mustView(t, s, func(tx sandbox.Tx) error {
			for _, o := range offsets {
				check := func(name string, err error) {
					if got := errors.Is(err, sandbox.ErrNotFound); got != gone[name] || (err != nil && !got) {
						t.Errorf("step %d: %s: err = %v, want gone = %v", i, name, err, gone[name])
					}
				}
				_, err := tx.Token(fmt.Sprint("t", o))
				check(fmt.Sprint("t", o), err)
				_, err = tx.Idempotency("a", fmt.Sprint("k", o))
				check(fmt.Sprint("k", o), err)
			}
			_, err := tx.Token("zoned")
			if errors.Is(err, sandbox.ErrNotFound) != gone["zoned"] {
				t.Errorf("step %d: zoned: err = %v", i, err)
			}
			return nil
		})
	}
	// t1000 and k1000 are left.
	if n := mustDeleteExpired(t, s, ms(1_001), ms(1_001)); n != 2 {
		t.Errorf("last sweep deleted %d, want 2", n)
	}
}

func TestIndexOrder(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	offsets := []int{900, 1, 121, 0, 1_000, 120, 100, 999}
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for _, o := range offsets {
			if err := tx.PutToken(sandbox.Token{Value: fmt.Sprint(o), Expires: ms(o)}); err != nil {
				return err
			}
		}
		return nil
	})
	var got []time.Time
	err := s.db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend(tokenIndex, func(_, v string) bool {
			got = append(got, jsonTime(v, tokenField))
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(offsets) {
		t.Fatalf("index holds %d tokens, want %d", len(got), len(offsets))
	}
	for i := 1; i < len(got); i++ {
		if !got[i-1].Before(got[i]) {
			t.Errorf("index order: %v before %v", got[i-1], got[i])
		}
	}
}

func TestDeleteAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	mustHaveNone(t, s)
	// The indexes survive the wipe.
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		return tx.PutToken(sandbox.Token{Value: "new", Expires: base})
	})
	if n := mustDeleteExpired(t, s, ms(1), ms(1)); n != 1 {
		t.Errorf("DeleteExpired after DeleteAll = %d, want 1", n)
	}
	mustClose(t, s)
	mustHaveNone(t, mustOpen(t, path))
}

func TestConcurrentIdempotency(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	var writes, writer atomic.Int32
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			err := s.Update(func(tx sandbox.Tx) error {
				_, err := tx.Idempotency("app1", "same")
				if !errors.Is(err, sandbox.ErrNotFound) {
					return err
				}
				writes.Add(1)
				writer.Store(int32(i))
				return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "app1", Key: "same", ResourceID: fmt.Sprint(i)})
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := writes.Load(); n != 1 {
		t.Fatalf("%d goroutines wrote the key, want 1", n)
	}
	mustView(t, s, func(tx sandbox.Tx) error {
		r, err := tx.Idempotency("app1", "same")
		if err != nil {
			return err
		}
		if want := fmt.Sprint(writer.Load()); r.ResourceID != want {
			t.Errorf("stored resource %s, want the writer's %s", r.ResourceID, want)
		}
		return nil
	})
}

func BenchmarkPutTransaction(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var txn sandbox.Transaction
	for _, r := range records() {
		if t, ok := r.want.(sandbox.Transaction); ok {
			txn = t
		}
	}
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t := txn
			t.ID = fmt.Sprint("TRN_", n.Add(1))
			if err := s.Update(func(tx sandbox.Tx) error { return tx.PutTransaction(t) }); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// Adjustment history comes back oldest first and only for its own transaction.
func TestAdjustmentHistory(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "adj.db"))
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for i, id := range []string{"ACT_b", "ACT_a", "ACT_c"} {
			a := sandbox.Adjustment{ActionID: id, Time: sandbox.FormatTime(ms(10 - i)), AppID: "app1",
				Changes: map[string]sandbox.Change{"amount": {From: "1", To: "2"}}}
			if err := tx.PutAdjustment("TRN_1", a); err != nil {
				return err
			}
		}
		return tx.PutAdjustment("TRN_10", sandbox.Adjustment{ActionID: "ACT_other", Time: sandbox.FormatTime(ms(1))})
	})
	var got []sandbox.Adjustment
	mustView(t, s, func(tx sandbox.Tx) error {
		var err error
		got, err = tx.Adjustments("TRN_1")
		return err
	})
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ActionID)
	}
	if strings.Join(ids, ",") != "ACT_c,ACT_a,ACT_b" {
		t.Errorf("history %v: want oldest first, TRN_10's entry excluded", ids)
	}
}
