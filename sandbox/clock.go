package sandbox

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"sync"
	"time"
)

// Clock is the sandbox's only source of time: timestamps, token expiry and the
// idempotency window all read it, so moving it moves them together.
type Clock interface {
	Now() time.Time
}

// WallClock is the real time in UTC.
type WallClock struct{}

// Now returns the current UTC time truncated to milliseconds, the precision GP shows.
func (WallClock) Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// IDs generates random identifiers.
type IDs interface {
	// Alphanumeric returns n random characters from [A-Za-z0-9].
	Alphanumeric(n int) string
}

const alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// RandomIDs draws identifiers from crypto/rand.
type RandomIDs struct{}

// Alphanumeric returns n characters drawn uniformly from crypto/rand. Bytes of 248 and
// above are rejected so that every character is equally likely (248 = 4 * 62).
func (RandomIDs) Alphanumeric(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4+4)
	for len(out) < n {
		rand.Read(buf) // never fails since Go 1.24
		for _, c := range buf {
			if c < 248 && len(out) < n {
				out = append(out, alphanumerics[c%62])
			}
		}
	}
	return string(out)
}

// SeededIDs draws identifiers from a seeded generator, so a run with the same seed and
// the same requests produces the same ids and tokens.
type SeededIDs struct {
	mu  sync.Mutex
	rng *mrand.Rand
}

// NewSeededIDs returns a reproducible ID source.
func NewSeededIDs(seed uint64) *SeededIDs {
	return &SeededIDs{rng: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Alphanumeric returns n characters from the seeded sequence.
func (s *SeededIDs) Alphanumeric(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := make([]byte, n)
	for i := range b {
		b[i] = alphanumerics[s.rng.IntN(len(alphanumerics))]
	}
	return string(b)
}

// ManualClock is a clock that moves only when told: tests, deterministic runs and the
// admin clock. It is safe for concurrent use.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock returns a clock stopped at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t.UTC()} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t.UTC()
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
