package sandbox

import (
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Clock is the sandbox's only source of time: timestamps, token expiry and the
// idempotency window all read it, so moving it moves them together.
type Clock interface {
	Now() time.Time
}

// IDs generates random identifiers.
type IDs interface {
	// Alphanumeric returns n random characters from [A-Za-z0-9].
	Alphanumeric(n int) string
}

const alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// MaxIDLength is the longest id GP accepts in a path or header (the wire contract, §3
// and §8).
const MaxIDLength = 50

// IDProblem says what makes id unfit to name a record the sandbox keeps (a fixture's,
// a seeded transaction's), "" when it is fit: 1..MaxIDLength characters that need no
// escaping in a URL path, since ids end up in one. A record stored under any other id
// could not be asked for by its id, nor be placed in its list's order.
func IDProblem(id string) string {
	if len(id) == 0 || len(id) > MaxIDLength {
		return fmt.Sprintf("must be 1 to %d characters long, got %d", MaxIDLength, len(id))
	}
	for _, c := range []byte(id) {
		if !strings.ContainsRune(alphanumerics+"-._~", rune(c)) {
			return fmt.Sprintf("must contain only letters, digits, '-', '.', '_' and '~', got %q", carddata.Excerpt(id))
		}
	}
	if carddata.IdentifierHoldsCardNumber(id) {
		// Ids are shown as written and link the inspector's pages: one holding a card
		// number could be neither.
		return fmt.Sprintf("must not hold a card number, got %q", carddata.Excerpt(id))
	}
	return ""
}

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

// GP's timestamps, YYYY-MM-DDThh:mm:ss.mmmZ, show years 0001 to 9999: beyond them a
// timestamp would need five digits or a sign, and encoding/json refuses to write it.
var (
	firstTimestamp = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	lastTimestamp  = time.Date(9999, 12, 31, 23, 59, 59, int(999*time.Millisecond), time.UTC)
)

// Bounds of the sandbox's settings that count sandbox time ahead of the clock.
const (
	MaxOrderStep       = 365 * 24 * time.Hour // how long an order stays in a status
	MaxTerminalDelay   = 24 * time.Hour       // how long a command waits on an INITIATED terminal
	MaxDuplicateWindow = 24 * time.Hour       // how long a payment is remembered for duplicates
)

// clockHorizon is the longest the sandbox counts ahead of its clock: an order step at
// its longest. Every other lifetime is shorter (TestClockHorizonCoversEveryLifetime,
// and notify's for its retries): a token's (MaxTokenSeconds, a week), an idempotency
// key's (a day), a terminal's delay and the duplicate window (a day at most each), a
// notification's next retry (an hour at most). Scenario step counters and the
// records' retention are kept in wall-clock time, apart from the sandbox clock.
const clockHorizon = MaxOrderStep

// The sandbox clock stays from the first timestamp to the last one less clockHorizon,
// so that every time it counts from its now (a token's expiry, an order's next step)
// is still a timestamp GP can show.
var (
	clockMin = firstTimestamp
	clockMax = lastTimestamp.Add(-clockHorizon)
)

// ClockLimits are the earliest and the latest time the sandbox clock may show.
func ClockLimits() (earliest, latest time.Time) { return clockMin, clockMax }

// InClockRange checks that t is a time the sandbox clock may show; the error names the
// member (set, advance) that asked for it, and the latest time it may show.
func InClockRange(member string, t time.Time) error {
	if t.Before(clockMin) || t.After(clockMax) {
		return ClockOutOfRange(member, clockMin, clockMax)
	}
	return nil
}

// VirtualClock is the sandbox clock: it runs from an instant at the wall clock's pace,
// or is frozen at an instant. The admin API advances, sets, freezes and unfreezes it,
// and everything that reads time (timestamps, token expiry, the idempotency window,
// notification retries) moves with it. It keeps instants, not an offset from the wall
// clock: a time.Duration spans only 292 years, and an offset to the year 9999 would
// wrap. It is safe for concurrent use.
type VirtualClock struct {
	mu      sync.Mutex
	wall    func() time.Time
	at      time.Time // the time while frozen; while running, the time at the wall's since
	since   time.Time // the wall time at which a running clock showed at
	frozen  bool
	changed chan struct{}
}

// NewVirtualClock returns a running clock that reads the wall time.
func NewVirtualClock() *VirtualClock {
	now := time.Now()
	return &VirtualClock{wall: time.Now, at: now, since: now, changed: make(chan struct{})}
}

// NewFrozenClock returns a clock stopped at t: it moves only when told.
func NewFrozenClock(t time.Time) *VirtualClock {
	c := NewVirtualClock()
	c.frozen, c.at = true, t.UTC().Truncate(time.Millisecond)
	return c
}

// Now returns the sandbox time in UTC, truncated to milliseconds as GP shows it. A
// running clock that reaches the latest time it may show stays there.
func (c *VirtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now()
}

func (c *VirtualClock) now() time.Time {
	if c.frozen {
		return c.at
	}
	t := c.at.Add(c.wall().Sub(c.since)).UTC().Truncate(time.Millisecond)
	if t.After(clockMax) {
		return clockMax
	}
	return t
}

// Frozen reports whether the clock is stopped.
func (c *VirtualClock) Frozen() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frozen
}

// Advance moves the clock forward by d (backward when d is negative). A move out of
// the clock's range is refused with ClockOutOfRange and changes nothing.
func (c *VirtualClock) Advance(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.moveTo("advance", c.now().Add(d))
}

// Set moves the clock to t; a running clock goes on running from there. A time out of
// the clock's range is refused with ClockOutOfRange and changes nothing.
func (c *VirtualClock) Set(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.moveTo("set", t)
}

func (c *VirtualClock) moveTo(member string, t time.Time) error {
	t = t.UTC().Truncate(time.Millisecond)
	if err := InClockRange(member, t); err != nil {
		return err
	}
	c.at, c.since = t, c.wall()
	c.signal()
	return nil
}

// Freeze stops the clock at the current sandbox time (true) or lets it run on from
// there (false).
func (c *VirtualClock) Freeze(freeze bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if freeze == c.frozen {
		return
	}
	c.at, c.since = c.now(), c.wall()
	c.frozen = freeze
	c.signal()
}

// Changed returns a channel that is closed the next time the clock is moved, set,
// frozen or unfrozen, so that a goroutine waiting for a sandbox time can re-plan.
func (c *VirtualClock) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

func (c *VirtualClock) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// TimeFormat is GP's timestamp shape: UTC, exactly three fractional digits, Z.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t the way GP does, in UTC with milliseconds (TimeFormat).
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// FormatOptionalTime renders t as FormatTime does, and the zero time, a time that has
// not come yet (a batch not closed, no attempt due), as "".
func FormatOptionalTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return FormatTime(t)
}
