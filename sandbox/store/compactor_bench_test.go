package store

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// BenchmarkCompactionPause compacts a 512 MiB file, nearly all of it dead (one
// record rewritten over and over, as under sustained load), while Updates run one
// after another, and reports the longest of them: how long a compaction stops the
// writer.
//
//	go test -run '^$' -bench CompactionPause -benchtime 3x ./sandbox/store/
func BenchmarkCompactionPause(b *testing.B) {
	var longest time.Duration
	for b.Loop() {
		b.StopTimer()
		never := compaction{idle: time.Hour, allowance: 1 << 50, every: time.Hour}
		s, err := OpenWith(filepath.Join(b.TempDir(), "db"), Options{compaction: &never})
		if err != nil {
			b.Fatal(err)
		}
		mustGrowFile(b, s, 512<<20)
		b.StartTimer()
		longest = max(longest, longestUpdateDuring(b, s, s.compactor.compact))
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(longest.Microseconds())/1000, "max-pause-ms")
}

// longestUpdateDuring runs Updates back to back while work runs, and returns the
// longest.
func longestUpdateDuring(b *testing.B, s *Store, work func()) time.Duration {
	stop := make(chan struct{})
	var longest time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			if err := s.Update(func(tx sandbox.Tx) error { return tx.PutMeta("beat", start.String()) }); err != nil {
				b.Error(err)
				return
			}
			longest = max(longest, time.Since(start))
		}
	})
	work()
	close(stop)
	wg.Wait()
	return longest
}
