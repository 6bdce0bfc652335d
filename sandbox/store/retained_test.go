package store

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkRetainedIdempotencyKeys writes b.N idempotency keys (as an adjustment
// writes them, in batches of 1,000 per Update for speed) and reports the heap they
// keep after a collection, per key: what a long-running sandbox pays for each key it
// must remember for a day.
//
//	go test -run '^$' -bench RetainedIdempotencyKeys -benchtime 1000000x ./sandbox/store/
func BenchmarkRetainedIdempotencyKeys(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	if err := putLoadKeys(s, "1763900000-1-", "TRN_CapturedSale000000000000000001", b.N, 1000); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/key")
	b.ReportMetric(float64(int64(after.HeapObjects)-int64(before.HeapObjects))/float64(b.N), "objects/key")
}

// BenchmarkOpenMillionKeys opens a closed file holding 1,000,000 idempotency keys:
// the store's share of a restart after a long load test (the file read and checked,
// buntdb's load, and the index of the keys' chunks rebuilt).
//
//	go test -run '^$' -bench OpenMillionKeys -benchtime 3x ./sandbox/store/
func BenchmarkOpenMillionKeys(b *testing.B) {
	path := filepath.Join(b.TempDir(), "db")
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := putLoadKeys(s, "1763900000-1-", "TRN_CapturedSale000000000000000001", 1_000_000, 1000); err != nil || s.Close() != nil {
		b.Fatal(err)
	}
	for b.Loop() { // the first call resets the timer: the setup above is not timed
		mustTimeOpen(b, path)
	}
}

// BenchmarkOpenAfterKill opens the file kill -9 leaves after 1,000,000 keyed
// adjustments (a fresh idempotency key each, as a load test sends them) that were
// never compacted, the compactor having waited for an idle moment that never came:
// the store's share of a restart after a crash under load.
//
//	go test -run '^$' -bench OpenAfterKill -benchtime 3x ./sandbox/store/
func BenchmarkOpenAfterKill(b *testing.B) {
	s := mustHotPathStore(b, 0)
	for i := range int64(1_000_000) {
		mustAdjust(b, s, "TRN_hot"+strconv.FormatInt(i%8, 10), i)
	}
	crashed := filepath.Join(b.TempDir(), "crashed")
	mustCopyFile(b, s.path, crashed) // the file as it is while the store runs
	path := filepath.Join(b.TempDir(), "db")
	for b.Loop() { // the first call resets the timer: the setup above is not timed
		b.StopTimer()
		mustCopyFile(b, crashed, path)
		b.StartTimer()
		mustTimeOpen(b, path)
	}
	b.ReportMetric(float64(mustFileSize(b, crashed))/(1<<20), "file-MiB")
}

// mustTimeOpen opens the store at path with the benchmark's timer running, and
// closes it with the timer stopped: one open, measured.
func mustTimeOpen(b *testing.B, path string) {
	b.Helper()
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
}

// mustCopyFile copies a file and syncs the copy, as the syncer would have synced
// the file the copy stands for.
func mustCopyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err == nil {
		_, err = io.Copy(out, in)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
}
