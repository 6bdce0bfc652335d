package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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

// paths are the stores every behaviour test runs against: a file and memory.
func paths(t *testing.T) map[string]string {
	return map[string]string{"file": filepath.Join(t.TempDir(), "db"), "memory": ":memory:"}
}

// forEachStore runs test against an open store of each kind.
func forEachStore(t *testing.T, test func(t *testing.T, s *Store)) {
	for name, path := range paths(t) {
		t.Run(name, func(t *testing.T) { test(t, mustOpen(t, path)) })
	}
}

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

func mustInspect(t *testing.T, s *Store, fn func(sandbox.Tx, sandbox.InspectTx) error) {
	t.Helper()
	if err := s.Inspect(fn); err != nil {
		t.Fatalf("Inspect: %v", err)
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
		ID: "TRN_1", Holder: sandbox.Holder{MerchantID: "MER_1"}, TimeCreated: ms(123), Type: "SALE", Status: sandbox.StatusCaptured,
		Amount: "1000", GratuityAmount: "150", Currency: "USD", Country: "US", Reference: "ref",
		PaymentMethod: sandbox.PaymentResult{Result: "00", Message: "APPROVED",
			Card: sandbox.CardResult{Authcode: "123456", BrandReference: "BR"}, BNPL: &sandbox.BNPLResult{Provider: "AFFIRM"}},
		Order:   &sandbox.OrderAmounts{Taxes: []sandbox.Tax{{Type: "STATE", Amount: "80"}}, ShippingAmount: "500"},
		BatchID: "BAT_1", EMVTag: "9F02",
		Action: sandbox.Action{ID: "ACT_1", Type: "ADJUST", TimeCreated: sandbox.FormatTime(ms(123)), ResultCode: "SUCCESS", AppID: "app1", AppName: "Till"},
	}
	order := sandbox.Order{
		ID: "ORD_1", Holder: sandbox.Holder{MerchantID: "MER_1", MerchantName: "Corner Shop"}, Status: sandbox.OrderInitiated,
		TimeCreated: ms(5), TimeLastUpdated: ms(50), AppID: "app1", Version: "2021-03-22",
		Action:  sandbox.Action{ID: "ACT_2", Type: "ORDER_CREATE", ResultCode: "SUCCESS"},
		History: []sandbox.Action{{ID: "ACT_2", Type: "ORDER_CREATE"}},
	}
	token := sandbox.Token{Hash: "tok1", AppID: "app1", Permissions: []string{sandbox.PermOrder},
		Restricted: true, Created: base, Expires: ms(1_000)}
	idem := sandbox.IdempotencyRecord{AppID: "app1", Key: "k1", ResourceID: "TRN_1", Kind: "transaction",
		Time: ms(7), Request: "POST /ucp/transactions/TRN_1/adjustment abc", Response: []byte(`{"id":"TRN_1"}`)}
	mark := sandbox.PaymentMark{Key: "3f2a", TransactionID: "TRN_1", Time: ms(8)}

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
		{"payment mark", func(tx sandbox.Tx) error { return tx.PutPaymentMark(mark, time.Hour) },
			func(tx sandbox.Tx) (any, error) { return tx.PaymentMark("3f2a") }, mark},
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
	forEachStore(t, func(t *testing.T, s *Store) {
		mustHaveNone(t, s)
		mustPutAll(t, s)
		mustHaveAll(t, s)
	})
}

func TestIdempotencyKeyIsPerApp(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: "a", Key: "k", ResourceID: "r"}, time.Hour)
		})
		mustView(t, s, func(tx sandbox.Tx) error {
			if _, err := tx.Idempotency("b", "k"); !errors.Is(err, sandbox.ErrNotFound) {
				t.Errorf("other app's key: err = %v, want ErrNotFound", err)
			}
			if r, err := tx.Idempotency("a", "k"); err != nil || r.ResourceID != "r" {
				t.Errorf("own key: %+v, %v", r, err)
			}
			return nil
		})
	})
}

// An idempotency record's app and key are its name in the file, written once: a day
// of keys can be millions of records, each read back at every start.
func TestIdempotencyKeyWrittenOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	rec := sandbox.IdempotencyRecord{AppID: "AppNamedOnce", Key: "KeyNamedOnce", ResourceID: "TRN_1", Kind: "transaction", Time: ms(1)}
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutIdempotency(rec, time.Hour) })
	mustClose(t, s)
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{rec.AppID, rec.Key} {
		if n := strings.Count(string(file), name); n != 1 {
			t.Errorf("%s is in the file %d times, want once (in the key)", name, n)
		}
	}
	mustView(t, mustOpen(t, path), func(tx sandbox.Tx) error {
		if got, err := tx.Idempotency(rec.AppID, rec.Key); err != nil || !reflect.DeepEqual(got, rec) {
			t.Errorf("read back: %+v, %v; want %+v", got, err, rec)
		}
		return nil
	})
}

func TestUpdateErrorRollsBack(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
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

		// A failed DeleteAll leaves everything in place.
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
	})
}

// What a file held is there after a reopen, a failed Update's writes are not, and
// the time-to-live of a token is kept in the file.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	_ = s.Update(func(tx sandbox.Tx) error {
		_ = tx.PutMeta("failed", "x")
		return errors.New("boom")
	})
	mustClose(t, s)

	s = mustOpen(t, path)
	mustHaveAll(t, s)
	mustView(t, s, func(tx sandbox.Tx) error {
		if _, err := tx.Meta("failed"); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("a failed Update's write reached the file: %v", err)
		}
		return nil
	})
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
	forEachStore(t, func(t *testing.T, s *Store) {
		mustPutAll(t, s)
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			if err := tx.PutToken(sandbox.Token{Hash: "short"}, 30*time.Millisecond); err != nil {
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
		{Options{}, buntdb.Never}, // the store syncs the file itself (watch.go)
		{Options{SyncAlways: true}, buntdb.Always},
	} {
		s := mustOpenWith(t, filepath.Join(t.TempDir(), "db"), tc.opts)
		var cfg buntdb.Config
		if err := s.db.ReadConfig(&cfg); err != nil {
			t.Fatal(err)
		}
		// The store shrinks the file itself (watch.go), so buntdb's AutoShrink is off.
		if cfg.SyncPolicy != tc.want || !cfg.AutoShrinkDisabled {
			t.Errorf("%+v: config %+v", tc.opts, cfg)
		}
	}
}

func mustOpenWith(t *testing.T, path string, opts Options) *Store {
	t.Helper()
	s, err := OpenWith(path, opts)
	if err != nil {
		t.Fatalf("OpenWith(%q, %+v): %v", path, opts, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestDeleteAll(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		mustPutAll(t, s)
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
		mustHaveNone(t, s)
	})
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	mustClose(t, s)
	mustHaveNone(t, mustOpen(t, path)) // the wiped file is still the sandbox's own
}

func TestConcurrentIdempotency(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
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
	})
}

// Adjustment history comes back in Seq order, only for its own transaction, and
// keeps the newest keep entries.
func TestAdjustmentHistory(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		for seq := 1; seq <= 12; seq++ {
			mustUpdate(t, s, func(tx sandbox.Tx) error {
				a := sandbox.Adjustment{Seq: seq, ActionID: fmt.Sprint("ACT_", seq), Time: sandbox.FormatTime(ms(seq)), AppID: "app1",
					Changes: map[string]sandbox.Change{"amount": {From: "1", To: "2"}}}
				return tx.AddAdjustment("TRN_1", a, 3)
			})
		}
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.AddAdjustment("TRN_10", sandbox.Adjustment{Seq: 1, ActionID: "ACT_other"}, 3)
		})
		if ids := mustHistory(t, s, "TRN_1"); ids != "ACT_10,ACT_11,ACT_12" {
			t.Errorf("history %v: want the newest three in Seq order (10 after 9), TRN_10's entry excluded", ids)
		}
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAdjustments("TRN_1") })
		if ids := mustHistory(t, s, "TRN_1"); ids != "" {
			t.Errorf("history after delete: %v", ids)
		}
		if ids := mustHistory(t, s, "TRN_10"); ids != "ACT_other" {
			t.Errorf("TRN_10's history after TRN_1's was deleted: %v", ids)
		}
	})
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

// Pages list records in id order after the given id; notifications list in seq
// order, and the pending ones are those in NotificationPending.
func TestListings(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			for _, id := range []string{"ORD_3", "ORD_1", "ORD_2", "ORD_4"} {
				if err := tx.PutOrder(sandbox.Order{ID: id}); err != nil {
					return err
				}
			}
			for seq := 1; seq <= 10; seq++ {
				state := sandbox.NotificationPending
				if seq%2 == 0 {
					state = sandbox.NotificationDelivered
				}
				if err := tx.PutNotification(sandbox.Notification{OrderID: "ORD_1", Seq: seq, State: state}); err != nil {
					return err
				}
			}
			return nil
		})
		mustInspect(t, s, func(tx sandbox.Tx, in sandbox.InspectTx) error {
			for _, tc := range []struct {
				after string
				limit int
				want  string
			}{{"", 2, "ORD_1,ORD_2"}, {"ORD_2", 2, "ORD_3,ORD_4"}, {"ORD_4", 2, ""}, {"", -1, "ORD_1,ORD_2,ORD_3,ORD_4"}} {
				page, err := tx.OrderPage(tc.after, tc.limit)
				var ids []string
				for _, o := range page {
					ids = append(ids, o.ID)
				}
				if err != nil || strings.Join(ids, ",") != tc.want || page == nil {
					t.Errorf("OrderPage(%q, %d) = %v, %v; want %s", tc.after, tc.limit, ids, err, tc.want)
				}
			}
			var seqs []string
			all, err := in.Notifications("ORD_1")
			for _, n := range all {
				seqs = append(seqs, fmt.Sprint(n.Seq))
			}
			if err != nil || strings.Join(seqs, ",") != "1,2,3,4,5,6,7,8,9,10" {
				t.Errorf("Notifications = %v, %v", seqs, err)
			}
			seqs = nil
			pending, err := tx.PendingNotifications()
			for _, n := range pending {
				seqs = append(seqs, fmt.Sprint(n.Seq))
			}
			if err != nil || strings.Join(seqs, ",") != "1,3,5,7,9" {
				t.Errorf("PendingNotifications = %v, %v", seqs, err)
			}
			return nil
		})
	})
}

// A scope may hold ':'; every counter reads back whole.
func TestScenarioSteps(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			if err := tx.PutScenarioStep("session:a:b", "decline", 2, 5, time.Hour); err != nil {
				return err
			}
			return tx.PutScenarioStep("app1", "slow", 0, 1, time.Hour)
		})
		mustView(t, s, func(tx sandbox.Tx) error {
			if n, err := tx.ScenarioStep("session:a:b", "decline", 2); err != nil || n != 5 {
				t.Errorf("ScenarioStep = %d, %v", n, err)
			}
			if n, err := tx.ScenarioStep("none", "decline", 2); err != nil || n != 0 {
				t.Errorf("missing ScenarioStep = %d, %v", n, err)
			}
			return nil
		})
		mustInspect(t, s, func(_ sandbox.Tx, in sandbox.InspectTx) error {
			steps, err := in.ScenarioSteps()
			want := []sandbox.ScenarioStep{{Scenario: "decline", Rule: 2, Scope: "session:a:b", Count: 5}, {Scenario: "slow", Rule: 0, Scope: "app1", Count: 1}}
			if err != nil || !reflect.DeepEqual(steps, want) {
				t.Errorf("ScenarioSteps = %+v, %v", steps, err)
			}
			return nil
		})
	})
}

// A clean Close leaves only live records in the file: the next open reads no dead
// ones, however often a record was rewritten.
func TestCloseLeavesOnlyLiveRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	for i := range 2000 {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.PutTransaction(sandbox.Transaction{ID: "TRN_1", Amount: strconv.Itoa(i)})
		})
	}
	mustClose(t, s)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\ntxn:TRN_1\r")); n != 1 { // the key alone, not in sort:txn:TRN_1
		t.Errorf("the file holds %d records of txn:TRN_1 after Close; want the live one only", n)
	}
	mustView(t, mustOpen(t, path), func(tx sandbox.Tx) error {
		got, err := tx.Transaction("TRN_1")
		if err != nil || got.Amount != "1999" {
			t.Errorf("Transaction = %+v, %v; want the last write, amount 1999", got, err)
		}
		return nil
	})
}
