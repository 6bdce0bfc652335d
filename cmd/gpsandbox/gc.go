package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Most of what a long-running sandbox keeps is its idempotency keys, a day of them,
// held in large pointer-free strings that cost the collector little to mark. Go's
// default collector lets the heap reach twice its live size before collecting, so at a
// million keys the process held about three times its live heap (342 MB for about
// 118 MB live, as a restart shows). tuneGC narrows that headroom as the live heap
// grows: GOGC 100 (the default) up to gcFullHeadroomLive of live heap, then less, down
// to 50 at twice that and beyond. A small sandbox keeps the default, so its collections
// stay as rare as before. A GOGC of the user's own is left alone.
const (
	gcFullHeadroomLive = 64 << 20
	gcMinPercent       = 50
	gcDefaultPercent   = 100
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
// gcFullHeadroomLive bytes, as a percentage of live, within [gcMinPercent, 100].
func gcPercentFor(live uint64) int {
	if live <= gcFullHeadroomLive {
		return gcDefaultPercent
	}
	return max(gcMinPercent, int(gcDefaultPercent*gcFullHeadroomLive/live))
}
