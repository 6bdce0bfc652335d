package sandbox

import (
	"math/rand/v2"
	"testing"
	"time"
)

// FormatTime writes its digits itself: it must write what time.Format writes.
func TestFormatTimeAgreesWithTimeFormat(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("minus", -9*3600-30*60), time.FixedZone("plus", 14*3600)}
	times := []time.Time{
		{}, time.Unix(0, 0), time.Date(2026, 11, 24, 1, 2, 3, 456789012, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 1e6-1, time.UTC), time.Date(2024, 2, 29, 12, 0, 0, 1e6, zones[1]),
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		times = append(times, time.Unix(rng.Int64N(400e9)-200e9, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))]))
	}
	for _, tm := range times {
		if got, want := FormatTime(tm), tm.UTC().Format(TimeFormat); got != want {
			t.Fatalf("FormatTime(%v) = %q, time.Format: %q", tm, got, want)
		}
	}
}

func BenchmarkFormatTime(b *testing.B) {
	tm := time.Date(2026, 11, 24, 1, 2, 3, 456789012, time.UTC)
	b.Run("time.Format", func(b *testing.B) {
		for range b.N {
			tm.UTC().Format(TimeFormat)
		}
	})
	b.Run("FormatTime", func(b *testing.B) {
		for range b.N {
			FormatTime(tm)
		}
	})
}
