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

func mustUpdate(t testing.TB, s *Store, fn func(sandbox.Tx) error) {
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
		Time: ms(7), Request: "POST /ucp/transactions/TRN_1/adjustment abc", Response: []byte(`{"id":"TRN_1"}`)}

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
		{"token", func(tx sandbox.Tx) error { return tx.PutToken(token, time.Hour) },
			func(tx sandbox.Tx) (any, error) { return tx.Token("tok1") }, token},
		{"idempotency", func(tx sandbox.Tx) error { return tx.PutIdempotency(idem, time.Hour) },
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
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "k", ResourceID: "r"}, time.Hour)
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
	mustClose(t, s)

	s = mustOpen(t, path)
	mustHaveAll(t, s)
	// The time-to-live of a token is kept in the file.
	err := s.db.View(func(tx *buntdb.Tx) error {
		ttl, err := tx.TTL("token:tok1")
		if err == nil && (ttl <= 0 || ttl > time.Hour) {
			t.Errorf("token TTL after reopen = %v, want within (0, 1h]", ttl)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Tokens and idempotency records go by themselves once their time is up; other
// records stay.
func TestKeepDurationForgets(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		if err := tx.PutToken(sandbox.Token{Value: "short"}, 30*time.Millisecond); err != nil {
			return err
		}
		return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "short"}, 30*time.Millisecond)
	})
	time.Sleep(80 * time.Millisecond)
	mustView(t, s, func(tx sandbox.Tx) error {
		if _, err := tx.Token("short"); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("short-lived token still there: %v", err)
		}
		if _, err := tx.Idempotency("a", "short"); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("short-lived key still there: %v", err)
		}
		return nil
	})
	mustHaveAll(t, s)
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
		opts       Options
		want       buntdb.SyncPolicy
		wantSyncer bool
	}{
		{Options{}, buntdb.Never, true}, // the syncer's fsyncs, outside buntdb's lock
		{Options{SyncAlways: true}, buntdb.Always, false},
	} {
		s, err := OpenWith(filepath.Join(t.TempDir(), "db"), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var cfg buntdb.Config
		if err := s.db.ReadConfig(&cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.SyncPolicy != tc.want || !cfg.AutoShrinkDisabled { // the compactor's job
			t.Errorf("%+v: config %+v", tc.opts, cfg)
		}
		if s.compactor == nil {
			t.Errorf("%+v: no compactor", tc.opts)
		}
		if (s.syncer != nil) != tc.wantSyncer {
			t.Errorf("%+v: syncer running = %v, want %v", tc.opts, s.syncer != nil, tc.wantSyncer)
		}
		mustClose(t, s)
	}
}

func TestDeleteAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	mustHaveNone(t, s)
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
				return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "app1", Key: "same", ResourceID: fmt.Sprint(i)}, time.Hour)
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

// Adjustment history comes back in Seq order, whatever the slots, and only for its
// own transaction.
func TestAdjustmentHistory(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "adj.db"))
	mustUpdate(t, s, func(tx sandbox.Tx) error {
		for slot, seq := range []int{3, 1, 2} {
			a := sandbox.Adjustment{Seq: seq, ActionID: fmt.Sprint("ACT_", seq), Time: sandbox.FormatTime(ms(seq)), AppID: "app1",
				Changes: map[string]sandbox.Change{"amount": {From: "1", To: "2"}}}
			if err := tx.PutAdjustment("TRN_1", slot, a); err != nil {
				return err
			}
		}
		return tx.PutAdjustment("TRN_10", 0, sandbox.Adjustment{Seq: 1, ActionID: "ACT_other"})
	})
	if ids := mustHistory(t, s, "TRN_1"); ids != "ACT_1,ACT_2,ACT_3" {
		t.Errorf("history %v: want Seq order, TRN_10's entry excluded", ids)
	}
}

// Writing a slot replaces what it held: that is how the oldest entry goes.
func TestAdjustmentSlotReplaced(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "adj.db"))
	for seq := 1; seq <= 5; seq++ {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.PutAdjustment("TRN_1", (seq-1)%3, sandbox.Adjustment{Seq: seq, ActionID: fmt.Sprint("ACT_", seq)})
		})
	}
	if ids := mustHistory(t, s, "TRN_1"); ids != "ACT_3,ACT_4,ACT_5" {
		t.Errorf("history %v: want the newest three", ids)
	}
}

func mustHistory(t *testing.T, s *Store, txn string) string {
	t.Helper()
	var got []sandbox.Adjustment
	mustView(t, s, func(tx sandbox.Tx) error {
		var err error
		got, err = tx.Adjustments(txn)
		return err
	})
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ActionID)
	}
	return strings.Join(ids, ",")
}

// Close compacts a big file, so that the next start reads live records only; what
// the file held is all there after the reopen.
func TestCloseCompacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	value := strings.Repeat("v", 1000)
	for i := range 3000 { // about 3 MB of rewrites of 10 keys
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutMeta(fmt.Sprint("k", i%10), value+fmt.Sprint(i)) })
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if before.Size() < autoShrinkMinSize || after.Size() > before.Size()/10 {
		t.Errorf("file %d bytes before Close, %d after: want a compacted file", before.Size(), after.Size())
	}
	mustView(t, mustOpen(t, path), func(tx sandbox.Tx) error {
		if got, err := tx.Meta("k9"); err != nil || got != value+"2999" {
			t.Errorf("after reopen: k9 = %.20q…, %v; want the last write", got, err)
		}
		return nil
	})
}
