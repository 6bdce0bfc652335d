package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The collector's headroom (GOGC: how far the heap may grow past its live size before
// the next collection) is set from the live heap, as a fixed amount gcHeadroom rather
// than Go's default of 100%:
//
//   - A small sandbox (tens of MiB live: fixtures, the journal, the keys of the
//     last minutes) collected every few MiB of garbage: under load, at about 24 KB
//     allocated per adjustment, several collections a second, each marking the
//     whole live heap. A floor of gcHeadroom (GOGC up to gcMaxPercent) makes them
//     rarer. At 64 MiB, with the keys of 15 s at one connection retained, the
//     collector took 12% of the CPU; at 256 MiB, `PRE=15 ROUNDS=4 .ci/ab` measured
//     22% more adjustments a second (5,989 -> 7,304 req/s, medians) and 18% less CPU
//     per request. The price is memory under load: RSS after 20 s of keyed
//     adjustments at one connection and 20 s at 64 went from about 250 to about
//     450 MiB, and after 1,000,000 adjustments without keys it is 354 MiB.
//   - A large one is mostly idempotency keys, a day of them, in large pointer-free
//     strings that cost the collector little to mark. Past gcHeadroom of live heap
//     GOGC falls below 100%, down to gcMinPercent at twice gcHeadroom. A million
//     keys were about 118 MB live (as a restart showed), where GOGC is about 220%:
//     .ci/retained measured 976 bytes of RSS per key there (906 with 64 MiB of
//     headroom), and 791 once idempotency records stopped repeating their key;
//     within the 1 KiB of the memory target.
//
// A GOGC of the user's own is left alone.
const (
	gcHeadroom       = 256 << 20
	gcMinPercent     = 50
	gcMaxPercent     = 400
	gcDefaultPercent = 100 // Go's, until the first reading
)

// tuneGC reads the live heap every interval and sets the GC percentage for it, until
// ctx ends.
func tuneGC(ctx context.Context, every time.Duration) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := gcDefaultPercent
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // this runtime does not report it: keep the default
		}
		if p := gcPercentFor(sample[0].Value.Uint64()); p != current {
			debug.SetGCPercent(p)
			current = p
		}
	}
}

// gcPercentFor is the GC percentage for a live heap of live bytes: a headroom of
// gcHeadroom bytes, as a percentage of live, within [gcMinPercent, gcMaxPercent].
func gcPercentFor(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(max(gcMinPercent, min(gcMaxPercent, 100*gcHeadroom/live)))
}
