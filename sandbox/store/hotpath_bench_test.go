package store

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// adjustedSale is a card-present sale as the API stores it after an adjustment, the
// record an adjustment rewrites: 1,170 bytes as JSON, 568 in the binary encoding.
func adjustedSale(id string) sandbox.Transaction {
	return sandbox.Transaction{
		ID: id, MerchantID: "MER_c4c0df11039c4a0b8bd9d9dce3f1f2bf", TimeCreated: base, Type: "SALE",
		Status: sandbox.StatusCaptured, Amount: "1000", AuthorizationAmount: "1000", GratuityAmount: "150",
		Currency: "USD", Country: "US", Reference: "till-42-receipt-000123",
		PaymentMethod: sandbox.PaymentResult{Result: "00", Message: "SUCCESS", EntryMode: "CHIP",
			Card: sandbox.CardResult{Brand: "VISA", MaskedNumberLast4: "XXXXXXXXXXXX1111", Authcode: "A36C21",
				BrandReference: "383224601004913", BrandTimeCreated: "2025-03-14T12:00:00.000Z", Funding: "CREDIT"}},
		BatchID: "BAT_1136475", EMVTag: "9F2608C9B9D5E1F1A2B3C49F2701809F10120110A00001240000000000000000000000FF",
		AdjustmentCount: 1,
		Action: sandbox.Action{ID: "ACT_8CfTdNJ0pxGqFXPFyZ1QEPp0vYTTUu", Type: "AUTHORIZE",
			TimeCreated: "2025-03-14T12:00:00.123Z", ResultCode: "SUCCESS", AppID: "SandboxPartnerAppId0000000000001", AppName: "till"},
		Channel: "CP", CaptureMode: "AUTO", MerchantName: "Corner Shop", AccountID: "TRA_c9967ad7d8ec4b46b6dd44a61cde9a91",
		AccountName: "transaction_processing", AppID: "SandboxPartnerAppId0000000000001",
		Card: sandbox.StoredCard{Brand: "VISA", First6: "411111", Last4: "1111", Funding: "CREDIT"},
	}
}

const hotPathApp = "SandboxPartnerAppId0000000000001"

// adjustOnce is the store side of one adjustment with a fresh idempotency key, as the
// Service runs it: check the key, read the transaction, write the history entry, the
// transaction and the key's record.
func adjustOnce(tx sandbox.Tx, txnID, key string, now time.Time) error {
	if _, err := tx.Idempotency(hotPathApp, key); !errors.Is(err, sandbox.ErrNotFound) {
		return errors.New("fresh key found: " + key)
	}
	t, err := tx.Transaction(txnID)
	if err != nil {
		return err
	}
	t.AdjustmentCount++
	t.GratuityAmount = strconv.Itoa(t.AdjustmentCount)
	t.Action.TimeCreated = now.Format("2006-01-02T15:04:05.000Z")
	a := sandbox.Adjustment{Seq: t.AdjustmentCount, ActionID: t.Action.ID, Time: t.Action.TimeCreated, AppID: hotPathApp,
		Changes: map[string]sandbox.Change{"gratuity_amount": {From: "150", To: t.GratuityAmount}}}
	if err := tx.PutAdjustment(t.ID, (t.AdjustmentCount-1)%sandbox.AdjustmentHistoryLimit, a); err != nil {
		return err
	}
	if err := tx.PutTransaction(t); err != nil {
		return err
	}
	return tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: hotPathApp, Key: key, ResourceID: t.ID,
		Kind: "transaction", Time: now}, 48*time.Hour)
}

// BenchmarkAdjustmentUpdate runs adjustOnce, one Update each, over a store already
// holding a number of idempotency keys (a long load test's), serially and from many
// goroutines at once. Besides time and allocations it reports the bytes each Update
// appended to the file (compaction is off for the measurement, so the file only
// grows).
//
//	go test -run '^$' -bench AdjustmentUpdate -benchtime 20000x ./sandbox/store/
func BenchmarkAdjustmentUpdate(b *testing.B) {
	for _, keys := range []int{0, 1_000_000} {
		b.Run("keys="+strconv.Itoa(keys), func(b *testing.B) {
			s := mustHotPathStore(b, keys)
			var seq atomic.Int64
			b.Run("serial", func(b *testing.B) {
				measureAppended(b, s, func() {
					for range b.N {
						mustAdjust(b, s, "TRN_hot0", seq.Add(1))
					}
				})
			})
			b.Run("parallel", func(b *testing.B) {
				b.SetParallelism(32) // many connections, as under load
				var worker atomic.Int64
				measureAppended(b, s, func() {
					b.RunParallel(func(pb *testing.PB) {
						id := "TRN_hot" + strconv.FormatInt(worker.Add(1)%8, 10)
						for pb.Next() {
							mustAdjust(b, s, id, seq.Add(1))
						}
					})
				})
			})
		})
	}
}

func mustAdjust(b *testing.B, s *Store, txnID string, n int64) {
	key := "1763900000-" + strconv.FormatInt(n, 10)
	if err := s.Update(func(tx sandbox.Tx) error { return adjustOnce(tx, txnID, key, time.Now()) }); err != nil {
		b.Fatal(err)
	}
}

// measureAppended runs the timed run and reports the file's growth per op, and the
// process's CPU time per op (the garbage collector's included), a steadier figure
// than ns/op on a machine whose cores are shared.
func measureAppended(b *testing.B, s *Store, run func()) {
	before := mustFileSize(b, s.path)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	run()
	cpu = processCPU() - cpu
	b.StopTimer()
	b.ReportMetric(float64(mustFileSize(b, s.path)-before)/float64(b.N), "file-B/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func mustFileSize(b *testing.B, path string) int64 {
	b.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// mustHotPathStore opens a store that never compacts by itself, with the hot
// transactions and keys idempotency keys, compacted.
func mustHotPathStore(b *testing.B, keys int) *Store {
	b.Helper()
	never := compaction{idle: time.Hour, allowance: 1 << 50, every: time.Hour}
	s, err := OpenWith(filepath.Join(b.TempDir(), "db"), Options{compaction: &never})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	err = s.Update(func(tx sandbox.Tx) error {
		for i := range 9 {
			if err := tx.PutTransaction(adjustedSale("TRN_hot" + strconv.Itoa(i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = putLoadKeys(s, "1700000000-", "TRN_hot0", keys, 1000)
	}
	if err == nil {
		err = s.db.Shrink()
	}
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// putLoadKeys writes n idempotency keys, prefix followed by 0 to n-1, as a load
// test's adjustments of resourceID leave them (two days to live), perUpdate keys to
// an Update for speed. An Update finds its own idempotency writes in a list (it
// makes one or two), so 1,000 a time is faster than 10,000: a million keys took
// 17 s at 10,000, 6 s at 1,000.
func putLoadKeys(s *Store, prefix, resourceID string, n, perUpdate int) error {
	now := time.Now()
	var err error
	for lo := 0; lo < n && err == nil; lo += perUpdate {
		err = s.Update(func(tx sandbox.Tx) error {
			for i := lo; i < min(lo+perUpdate, n); i++ {
				err := tx.PutIdempotency(sandbox.IdempotencyRecord{AppID: hotPathApp, Key: prefix + strconv.Itoa(i),
					ResourceID: resourceID, Kind: "transaction", Time: now}, 48*time.Hour)
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	return err
}
