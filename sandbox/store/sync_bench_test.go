package store

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// BenchmarkUpdateStalls writes 1 KiB records to a file store one Update after
// another, for long enough to span several syncs of the file, and reports how long
// the slowest Update took and how long, per second of the run, Updates spent past a
// millisecond: the time requests wait on the disk rather than on their own work.
//
//	go test -run '^$' -bench UpdateStalls -benchtime 4s ./sandbox/store/
func BenchmarkUpdateStalls(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	value := strings.Repeat("x", 1024)
	took := make([]time.Duration, 0, b.N)
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		err := s.Update(func(tx sandbox.Tx) error { return tx.PutMeta(strconv.Itoa(i%100), value) })
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
	}
	elapsed := time.Since(start)
	var stalled time.Duration
	for _, d := range took {
		if d > time.Millisecond {
			stalled += d
		}
	}
	b.ReportMetric(float64(slices.Max(took).Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(stalled.Microseconds())/1000/elapsed.Seconds(), "stalled-ms/s")
}
