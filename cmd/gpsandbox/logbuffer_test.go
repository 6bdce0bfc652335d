package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the timer's goroutine and the test's.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int // writes
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.buf.Write(p)
}

func (s *syncBuffer) read() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String(), s.n
}

// The lines wait for the timer, which Write started, and its Flush writes them at
// once. The delay is an hour and the test fires the timer itself, so that a slow
// machine cannot fire it midway.
func TestLogBufferWritesLinesTogetherInOrder(t *testing.T) {
	out := &syncBuffer{}
	b := newLogBuffer(out, time.Hour)
	for i := range 100 {
		b.Write([]byte(strings.Repeat("x", i%7) + "\n"))
	}
	if got, _ := out.read(); got != "" {
		t.Fatalf("written before the delay: %q", got)
	}
	if !b.timer.Stop() {
		t.Fatal("Write did not start the timer")
	}
	b.timer.Reset(0)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, writes := out.read()
		if strings.Count(got, "\n") == 100 {
			if writes != 1 {
				t.Errorf("100 lines took %d writes, want 1", writes)
			}
			var want strings.Builder
			for i := range 100 {
				want.WriteString(strings.Repeat("x", i%7) + "\n")
			}
			if got != want.String() {
				t.Errorf("lines out of order or changed")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the timer never wrote the batch: %q", got)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLogBufferWritesAFullBatchAtOnceAndFlushesTheRest(t *testing.T) {
	out := &syncBuffer{}
	b := newLogBuffer(out, time.Hour) // the timer stays out of the way
	line := []byte(strings.Repeat("y", 1023) + "\n")
	for range logBufferSize / len(line) {
		b.Write(line)
	}
	if got, writes := out.read(); writes != 1 || len(got) != logBufferSize {
		t.Fatalf("a full buffer: %d writes of %d bytes, want 1 of %d", writes, len(got), logBufferSize)
	}
	b.Write([]byte("last\n"))
	b.Flush()
	if got, _ := out.read(); !strings.HasSuffix(got, "y\nlast\n") {
		t.Errorf("Flush did not write the waiting line: ...%q", got[len(got)-10:])
	}
}
