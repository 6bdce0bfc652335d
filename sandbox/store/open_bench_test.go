package store

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// BenchmarkOpen opens a database file at the sizes a restart meets: 60,000
// transactions, and 1,000,000 idempotency keys (a day of keyed requests), each file
// as a clean close leaves it. Beside the store's open, "buntdb" is buntdb's own Open
// of the same file, the floor the store is judged against, and "store-vs-buntdb" the
// two opened by turns, the store's time over buntdb's, which a busy machine's drift
// from one run to the next moves least; "closed" is what the store
// reads before buntdb does, the checksum of a clean close (close.go); "commands" the
// read of every command (check.go) and "decode" the decoding of every record
// (records.go), which an open does for what no clean close proves: all of the file
// after a crash in its first session.
//
//	go test -run '^$' -bench Open -benchtime 5x ./sandbox/store/
func BenchmarkOpen(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
		put  func(tx sandbox.Tx, i int) error
	}{
		{"transactions=60000", 60_000, putBenchTransaction},
		{"keys=1000000", 1_000_000, putBenchKey},
	} {
		path := filepath.Join(b.TempDir(), "db")
		mustFill(b, path, size.n, size.put)
		b.Run(size.name+"/store", func(b *testing.B) {
			timeOpens(b, func() (io.Closer, error) { return Open(path) })
		})
		b.Run(size.name+"/buntdb", func(b *testing.B) {
			timeOpens(b, func() (io.Closer, error) { return buntdb.Open(path) })
		})
		b.Run(size.name+"/store-vs-buntdb", func(b *testing.B) {
			timeAlternately(b,
				func() (io.Closer, error) { return Open(path) },
				func() (io.Closer, error) { return buntdb.Open(path) })
		})
		b.Run(size.name+"/closed", func(b *testing.B) {
			for b.Loop() {
				f, size := mustOpenFile(b, path)
				if _, whole := scanClosed(f, size); !whole {
					b.Fatal("not as a clean close leaves it")
				}
				f.Close()
			}
		})
		b.Run(size.name+"/commands", func(b *testing.B) {
			for b.Loop() {
				f, size := mustOpenFile(b, path)
				if _, err := scanFile(path, f, size, true); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
		b.Run(size.name+"/decode", func(b *testing.B) {
			for b.Loop() {
				f, size := mustOpenFile(b, path)
				if damaged, err := checkRecords(f, 0, size, false); err != nil || len(damaged) > 0 {
					b.Fatal(err, damaged)
				}
				f.Close()
			}
		})
	}
}

func mustOpenFile(b *testing.B, path string) (*os.File, int64) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	return f, st.Size()
}

// timeOpens times open, closing what it opened outside the timer. Beside the wall
// time it reports the process's CPU time per open (cpu-ms/op, the collector's
// included), which other work on a crowded machine moves less.
func timeOpens(b *testing.B, open func() (io.Closer, error)) {
	var cpu time.Duration
	for b.Loop() {
		before := cpuTime(b)
		db, err := open()
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime(b) - before
		b.StopTimer()
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// timeAlternately opens with store, then with floor, each time after a collection and
// closing what it opened outside the timer, and reports the time of each open and the
// store's over the floor's (store/floor).
func timeAlternately(b *testing.B, store, floor func() (io.Closer, error)) {
	var spent [2]time.Duration
	for b.Loop() {
		for i, open := range []func() (io.Closer, error){store, floor} {
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
			start := time.Now()
			db, err := open()
			spent[i] += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(spent[0].Milliseconds())/float64(b.N), "store-ms/op")
	b.ReportMetric(float64(spent[1].Milliseconds())/float64(b.N), "floor-ms/op")
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "store/floor")
}

// cpuTime is the user and system time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// mustFill writes n records with put into a new store at path, 10,000 an Update,
// and closes it: the file holds its live records only, as after a clean stop.
func mustFill(b *testing.B, path string, n int, put func(tx sandbox.Tx, i int) error) {
	b.Helper()
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	const chunk = 10_000
	for from := 0; from < n; from += chunk {
		err := s.Update(func(tx sandbox.Tx) error {
			for i := from; i < min(from+chunk, n); i++ {
				if err := put(tx, i); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if st, err := os.Stat(path); err == nil {
		b.Logf("%d records: %d MiB", n, st.Size()>>20)
	}
}

// putBenchTransaction writes a captured card-present sale, as the API stores one, a
// second apart.
func putBenchTransaction(tx sandbox.Tx, i int) error {
	return tx.PutTransaction(sandbox.Transaction{
		ID: fmt.Sprintf("TRN_Bench%026d", i),
		Holder: sandbox.Holder{MerchantID: "MER_00000000000000000000000000000001", MerchantName: "Sandbox Merchant One",
			AccountID: "TRA_00000000000000000000000000000001", AccountName: "transaction_processing"},
		TimeCreated: base.Add(time.Duration(i) * time.Second), Type: sandbox.TypeSale,
		Status: sandbox.StatusCaptured, Amount: "1000", AuthorizationAmount: "1000", Currency: "USD",
		Country: "US", Reference: fmt.Sprintf("load-%d", i),
		PaymentMethod: sandbox.PaymentResult{Result: "00", Message: "SUCCESS", EntryMode: "SWIPE",
			Card: sandbox.CardResult{Brand: "VISA", MaskedNumberLast4: "XXXXXXXXXXXX0016", Authcode: "A36C21",
				BrandReference: "383224601004913", BrandTimeCreated: "2021-03-24T02:02:27.158Z"}},
		BatchID: "BAT_1136475",
		Action: sandbox.Action{ID: fmt.Sprintf("ACT_Bench%021d", i), Type: "SALE", TimeCreated: "2021-03-24T02:02:27.158Z",
			ResultCode: "SUCCESS", AppID: "SandboxPartnerAppId0000000000001", AppName: "sandbox_partner"},
		Channel: sandbox.ChannelCP, CaptureMode: "AUTO", AppID: "SandboxPartnerAppId0000000000001",
		Card: sandbox.StoredCard{Brand: "VISA", Funding: "CREDIT"},
	})
}

// putBenchKey writes the record of a consumed idempotency key, as a keyed
// adjustment leaves one.
func putBenchKey(tx sandbox.Tx, i int) error {
	return tx.PutIdempotency(sandbox.IdempotencyRecord{
		AppID: "SandboxPartnerAppId0000000000001", Key: fmt.Sprintf("bench-%d", i),
		ResourceID: "TRN_CapturedSale000000000000000001", Kind: "transaction", Time: base,
	}, 48*time.Hour)
}
