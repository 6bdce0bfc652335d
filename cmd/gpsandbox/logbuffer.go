package main

import (
	"io"
	"sync"
	"time"
)

// logBuffer gathers the log's lines and writes them out together, at most delay
// (logDelay for serve) after the first one of a batch or as soon as logBufferSize
// bytes wait. A line per request written on its own was a write(2) per request: under
// load, a tenth of the sandbox's system calls, for lines nobody reads within
// milliseconds. Every line is written whole, in order; Flush writes what waits (serve
// calls it on its way out).
type logBuffer struct {
	w     io.Writer
	mu    sync.Mutex
	buf   []byte
	delay time.Duration
	timer *time.Timer // runs Flush delay after a batch began
}

const (
	logDelay      = 10 * time.Millisecond
	logBufferSize = 32 << 10
)

func newLogBuffer(w io.Writer, delay time.Duration) *logBuffer {
	b := &logBuffer{w: w, delay: delay}
	b.timer = time.AfterFunc(time.Hour, b.Flush)
	b.timer.Stop()
	return b
}

// Write takes one whole line (a slog handler writes each record with one Write).
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	begins := len(b.buf) == 0
	b.buf = append(b.buf, p...)
	if len(b.buf) >= logBufferSize {
		b.writeLocked()
	} else if begins {
		b.timer.Reset(b.delay)
	}
	return len(p), nil
}

// Flush writes every waiting line.
func (b *logBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writeLocked()
}

// writeLocked writes the batch. A failed write of the log has nobody to be reported
// to (the log is where failures go), and must not fail the request that logged.
func (b *logBuffer) writeLocked() {
	if len(b.buf) == 0 {
		return
	}
	_, _ = b.w.Write(b.buf)
	if cap(b.buf) > 4*logBufferSize {
		b.buf = nil // a burst of long lines is not kept for good
	} else {
		b.buf = b.buf[:0]
	}
}
