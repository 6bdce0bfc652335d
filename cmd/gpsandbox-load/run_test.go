package main

import (
	"context"
	"testing"
	"time"
)

// The pacer hands out tickets at its rate and closes its channel once ctx ends; rate 0
// is no pacer at all.
func TestPacer(t *testing.T) {
	if pacer(context.Background(), 0) != nil {
		t.Error("rate 0: want no pacer")
	}
	ctx, cancel := context.WithCancel(context.Background())
	tickets := pacer(ctx, 1000)
	for i := range 3 {
		select {
		case _, ok := <-tickets:
			if !ok {
				t.Fatalf("ticket %d: closed before ctx ended", i)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ticket %d never came", i)
		}
	}
	cancel()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-tickets:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the tickets were not closed after ctx ended")
		}
	}
}
