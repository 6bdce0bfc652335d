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
//   - A small sandbox (a few MiB live, most of it fixtures) collected every few MiB
//     of garbage: under .ci/pair load, at about 18 KB allocated per adjustment,
//     several collections a second and a sixth of the CPU. A floor of gcHeadroom
//     (GOGC up to gcMaxPercent) makes them rarer: 10 to 27% more adjustments a
//     second in alternating runs when it came. Since the journal keeps its entries
//     by pointer the collector has less to do, and four alternating runs of the
//     side-by-side script showed no difference in throughput any more (64
//     connections: 5,405 and 5,730 req/s tuned, 5,862 and 5,681 with GOGC=100),
//     with RSS at the end 210 MiB tuned and 275 MiB at 100%.
//   - A large one is mostly idempotency keys, a day of them, in large pointer-free
//     strings that cost the collector little to mark. At 100% a million keys held
//     about three times the live heap (342 MB for about 118 MB live, as a restart
//     shows); past gcHeadroom of live heap GOGC falls, down to gcMinPercent.
//
// A GOGC of the user's own is left alone.
const (
	gcHeadroom       = 64 << 20
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
