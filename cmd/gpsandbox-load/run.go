package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// runLoad runs the workload until the duration, the request count or ctx ends.
func runLoad(ctx context.Context, o options, progress io.Writer) (*report, error) {
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: o.conns, MaxConnsPerHost: o.conns, DisableCompression: true},
	}
	c := &loadClient{client: client, base: strings.TrimRight(o.url, "/"), o: o}
	if err := c.refreshToken(""); err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	rep := &report{outcomes: map[string]int{}, window: o.window}
	if o.notify {
		listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			rep.notifications.Add(1)
		}))
		defer listener.Close()
		c.statusURL = listener.URL + "/hooks/gp"
	}
	rep.start = c.sample()
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	go every(ctx, o.resetEvery, func() { c.reset(rep) })
	go every(ctx, o.sampleEvery, func() { fmt.Fprintf(progress, "%s\n", c.sample()) })
	pace := pacer(ctx, o.rate)

	var seq atomic.Uint64
	var wg sync.WaitGroup
	started := time.Now()
	rep.started = started
	for w := 0; w < o.conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for ctx.Err() == nil {
				n := seq.Add(1)
				if o.requests > 0 && int64(n) > o.requests {
					return
				}
				if pace != nil {
					if _, ok := <-pace; !ok {
						return
					}
				}
				op := c.pick(rng)
				t0 := time.Now()
				a := c.send(op, n)
				if ctx.Err() != nil && a.status == 0 {
					return // cut off by the end of the run, not an answer
				}
				rep.record(op.name, a, time.Since(t0))
			}
		}(w)
	}
	wg.Wait()
	rep.elapsed = time.Since(started)
	time.Sleep(500 * time.Millisecond) // let the last notifications arrive
	rep.end = c.sample()
	return rep, nil
}

// every runs fn every d until ctx ends; d == 0 never runs it.
func every(ctx context.Context, d time.Duration, fn func()) {
	if d <= 0 {
		return
	}
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// pacer hands out rate tickets a second, or nil for no limit.
func pacer(ctx context.Context, rate int) <-chan struct{} {
	if rate <= 0 {
		return nil
	}
	tickets := make(chan struct{}, rate)
	go func() {
		defer close(tickets)
		every(ctx, time.Second/time.Duration(rate), func() {
			select {
			case tickets <- struct{}{}:
			default: // a full bucket: the workers are behind, the ticket is lost
			}
		})
	}()
	return tickets
}
