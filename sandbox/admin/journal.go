package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// DefaultJournalBytes is how much memory the journal's entries may take when not
// configured: 64 MiB, some thousands of requests with their answers.
const DefaultJournalBytes = 64 << 20

// journalBodyCap is how much of a request body, and of its answer's, the journal
// keeps.
const journalBodyCap = web.BodyKept

// journalEntryOverhead is what an entry weighs besides the text it holds: its
// fields and the headers of its strings, rounded up.
const journalEntryOverhead = 1 << 10

// A read of the journal answers at most maxJournalLimit entries (limit=), and stops
// early once its entries weigh journalPageBytes: past either it answers a next link.
const (
	defaultJournalLimit = 100
	maxJournalLimit     = 1000
	journalPageBytes    = 8 << 20
)

// journalHeaderCap bounds each journaled header value.
const journalHeaderCap = 256

// journaledHeaders are the request headers the journal keeps; redacted ones are
// replaced by "[REDACTED]" whatever their value.
var journaledHeaders = [...]string{
	"Authorization", "Content-Type", "Content-Length", "Content-Encoding", "Accept-Encoding",
	"User-Agent", "X-GP-Version", "X-GP-Idempotency", "X-GP-Signature", "X-Sandbox-Session",
	"X-Sandbox-Scenario",
}

var redactedHeaders = map[string]bool{"Authorization": true, "X-GP-Signature": true}

// requestHeaderKeys describes journaledHeaders, once for every journal.
var requestHeaderKeys = headersToJournal(journaledHeaders[:])

// A journaledHeader is a header the journal keeps: its name as net/http's header map
// holds it, so that it is read without canonicalising its name again on every
// request. The journal shows it under the name its list gives (journaledHeaders,
// journaledResponseHeaders).
type journaledHeader struct {
	key      string
	redacted bool
}

// headersToJournal describes the headers names lists, redacted as redactedHeaders says.
func headersToJournal(names []string) []journaledHeader {
	out := make([]journaledHeader, len(names))
	for i, name := range names {
		out[i] = journaledHeader{key: http.CanonicalHeaderKey(name), redacted: redactedHeaders[name]}
	}
	return out
}

// firstValue is h.Get of the header jh, without canonicalising its name.
func (jh journaledHeader) firstValue(h http.Header) string {
	if values := h[jh.key]; len(values) > 0 {
		return values[0]
	}
	return ""
}

// JournalEntry is one request of the request journal as GET /_sandbox/requests shows
// it: what a client sent, secrets redacted and card data masked, and what it got.
type JournalEntry struct {
	Seq           uint64            `json:"seq"` // 1 for the first request journaled, then one more per request
	Time          string            `json:"time"`
	RequestID     string            `json:"request_id"`
	Method        string            `json:"method"`
	Path          string            `json:"path"`
	Query         string            `json:"query,omitempty"` // the query string, read pair by pair, card data masked
	Operation     string            `json:"operation"`
	Status        int               `json:"status"`
	ErrorCode     string            `json:"error_code"`
	DetailCode    string            `json:"detailed_error_code"`
	Rule          string            `json:"rule"`
	Miss          string            `json:"miss"`
	Draws         []scenario.Draw   `json:"draws,omitempty"`        // chance draws of rules with a probability
	DuplicateOf   string            `json:"duplicate_of,omitempty"` // the earlier payment this one repeats
	Session       string            `json:"session"`
	AppID         string            `json:"app_id"`
	Version       string            `json:"version"`
	Headers       map[string]string `json:"headers"`
	Body          json.RawMessage   `json:"body"`
	BodyTruncated bool              `json:"body_truncated,omitempty"`
	ResourceID    string            `json:"resource_id,omitempty"`
	DurationMS    float64           `json:"duration_ms"`
	Idempotency   string            `json:"idempotency,omitempty"` // what became of its X-GP-Idempotency key
	Response      *JournalResponse  `json:"response,omitempty"`

	// The journal stores an entry compact, and view fills Time, Headers and
	// Response from these when the entry is read: a request pays for no map and no
	// formatting, and an entry holds its header values in place.
	at      time.Time           // Time, also for the since and until filters
	headers requestHeaderValues // Headers
	answer  journalAnswer       // Response
	weight  int                 // what the entry takes of the journal's bound (weigh)
	event   []byte              // the view as JSON, once a live stream sent it (journal.events)
}

// weigh estimates the memory the stored entry takes: its text and an overhead.
func (e *JournalEntry) weigh() int {
	n := journalEntryOverhead + len(e.RequestID) + len(e.Method) + len(e.Path) + len(e.Query) + len(e.Operation) +
		len(e.ErrorCode) + len(e.DetailCode) + len(e.Rule) + len(e.Miss) + len(e.Session) + len(e.AppID) +
		len(e.Version) + len(e.Body) + len(e.ResourceID) + len(e.Idempotency) + len(e.answer.body) +
		len(e.DuplicateOf) + len(e.Draws)*drawWeight
	for _, v := range e.headers {
		n += len(v)
	}
	for _, v := range e.answer.headers {
		n += len(v)
	}
	return n
}

// drawWeight is what one chance draw of an entry weighs: its rule and numbers.
const drawWeight = 96

// view is the entry as the admin API shows it.
func (e *JournalEntry) view() JournalEntry {
	v := *e
	v.Time = sandbox.FormatTime(e.at)
	v.Headers = headerMap(journaledHeaders[:], e.headers[:])
	v.Response = e.answer.view()
	return v
}

// requestHeaderValues holds the value of each of journaledHeaders, "" for absent.
type requestHeaderValues [len(journaledHeaders)]string

// get returns the value of the journaled header name.
func (h *requestHeaderValues) get(name string) string {
	for i, n := range journaledHeaders {
		if n == name {
			return h[i]
		}
	}
	return ""
}

// headerMap maps each name to its value, leaving out the empty ones.
func headerMap(names, values []string) map[string]string {
	out := make(map[string]string, len(names))
	for i, v := range values {
		if v != "" {
			out[names[i]] = v
		}
	}
	return out
}

// JournalResponse is the answer a journaled request got (see journalResponse).
type JournalResponse struct {
	Headers       map[string]string `json:"headers"`
	Body          json.RawMessage   `json:"body"`
	BodyTruncated bool              `json:"body_truncated,omitempty"`
}

// journal keeps the latest requests, oldest first, within a bound in bytes: each new
// entry evicts the oldest ones until the entries weigh no more than the bound again
// (the newest is kept whatever it weighs). The kept entries are entries[first:];
// evicted ones are cleared, and the slice compacted once half of it is evicted.
type journal struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int             // what the kept entries weigh
	entries  []*JournalEntry // pointers: appending and compacting move 8 bytes an entry, not the entry
	first    int
	added    uint64        // entries ever added, clears included: the Seq of the newest
	wake     chan struct{} // closed (and replaced) by the next add once watched, for the live stream
	watched  bool          // a reader holds wake: the next add must close it

	svc            *sandbox.Service             // its clock dates each entry
	terminalAction func(r *http.Request) string // the operation of a customer's action on a terminal
}

func newJournal(maxBytes int, s *Server) *journal {
	return &journal{maxBytes: maxBytes, wake: make(chan struct{}), svc: s.svc, terminalAction: s.terminalAction}
}

// Wants reports whether the journal records the request: every API request, and of
// the admin calls only a customer's action on a terminal, whose operation it names.
// Admin calls are not journaled otherwise, so that the journal shows what clients sent
// to the API. The request's time is the sandbox's at its arrival.
func (j *journal) Wants(r *http.Request, rec *web.Record) bool {
	if strings.HasPrefix(r.URL.EscapedPath(), "/_sandbox/") {
		if r.Method != http.MethodPost {
			return false // every terminal action is a POST: no need to ask the router
		}
		if rec.Operation = j.terminalAction(r); rec.Operation == "" {
			return false
		}
	}
	rec.Time = j.svc.Clock().Now()
	return true
}

// Add records a served request. Secrets are gone before the entry is stored: headers
// are redacted as they are captured, and the body is masked here.
func (j *journal) Add(r *http.Request, rec *web.Record) {
	headers := journaledHeaderValues(r.Header)
	e := JournalEntry{
		RequestID: rec.ID, Method: rec.Method,
		Path: rec.Path, Operation: rec.Operation, Status: rec.Status,
		ErrorCode: rec.ErrorCode, DetailCode: rec.ErrorDetail, Rule: rec.Rule, Miss: rec.Miss,
		Session: rec.Session,
		AppID:   rec.AppID, Version: rec.Version,
		headers: headers, ResourceID: rec.ResourceID, at: rec.Time,
		DurationMS:  float64(time.Since(rec.Start).Microseconds()) / 1000,
		Idempotency: idempotencyOutcome(rec, &headers), answer: journalResponse(rec),
	}
	e.Body, e.BodyTruncated = maskedBody(rec.Body, rec.BodyTruncated)
	if r.URL.RawQuery != "" {
		// A list's filters are its request: without them a report cannot be told from
		// another. A query is a form, masked as a form body is.
		e.Query = string(carddata.MaskJSON([]byte(r.URL.RawQuery)))
	}
	e.Draws, e.DuplicateOf = rec.Draws, rec.DuplicateOf
	e.weight = e.weigh()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.added++
	e.Seq = j.added
	if j.watched {
		// Only when a live stream waits: a channel per request cost every request an
		// allocation for readers that are rarely there.
		close(j.wake)
		j.wake, j.watched = make(chan struct{}), false
	}
	j.entries = append(j.entries, &e)
	j.bytes += e.weight
	for j.bytes > j.maxBytes && j.first < len(j.entries)-1 {
		j.bytes -= j.entries[j.first].weight
		j.entries[j.first] = nil // its bodies go now, not at the next compaction
		j.first++
	}
	if j.first > len(j.entries)/2 {
		n := copy(j.entries, j.entries[j.first:])
		clear(j.entries[n:])
		j.entries, j.first = j.entries[:n], 0
	}
}

// newest calls fn with the kept entries, newest first, until fn returns false. The
// caller holds j.mu.
func (j *journal) newest(fn func(e *JournalEntry) bool) {
	for i := len(j.entries) - 1; i >= j.first; i-- {
		if !fn(j.entries[i]) {
			return
		}
	}
}

// list returns the entries f matches, newest first: at most limit of them, and no
// more once they weigh journalPageBytes. It reports whether more entries match.
func (j *journal) list(f journalFilter, limit int) ([]JournalEntry, bool) {
	out, more := j.newestMatching(f, limit)
	toViews(out)
	return out, more
}

// newestMatching copies the stored entries f matches, newest first, within limit
// and journalPageBytes, and reports whether more match. Only the copying holds the
// lock every journaled request takes: a stored entry is never changed, only
// replaced whole, so its copy is viewed after.
func (j *journal) newestMatching(f journalFilter, limit int) ([]JournalEntry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []JournalEntry{}
	weight, more := 0, false
	j.newest(func(e *JournalEntry) bool {
		if !f.matches(e) {
			return true
		}
		if len(out) == limit || (len(out) > 0 && weight+e.weight > journalPageBytes) {
			more = true
			return false
		}
		out = append(out, *e)
		weight += e.weight
		return true
	})
	return out, more
}

// toViews replaces each stored entry by its view.
func toViews(entries []JournalEntry) {
	for i := range entries {
		entries[i] = entries[i].view()
	}
}

// count returns how many entries f matches.
func (j *journal) count(f journalFilter) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	j.newest(func(e *JournalEntry) bool {
		if f.matches(e) {
			n++
		}
		return true
	})
	return n
}

// clear forgets every entry.
func (j *journal) clear() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries, j.first, j.bytes = nil, 0, 0
}

// journaledHeaderValues captures the journaled request headers, redacting credentials
// and masking card data in the others (before the cap, which could cut a card number
// short of what the masking recognises).
func journaledHeaderValues(h http.Header) requestHeaderValues {
	var out requestHeaderValues
	for i, jh := range requestHeaderKeys {
		v := jh.firstValue(h)
		switch {
		case v == "":
			continue
		case jh.redacted:
			v = "[REDACTED]"
		default:
			v = carddata.Mask(v)
		}
		if len(v) > journalHeaderCap {
			v = v[:journalHeaderCap]
		}
		out[i] = v
	}
	return out
}

// maskedBody returns the body for the journal with its card data and secrets masked
// (see carddata.MaskJSON), and whether it is cut: a whole JSON value stays JSON, as
// sent; anything else (a syntax error, a body cut, not JSON at all) becomes a JSON
// string. The cap holds after masking too, which can lengthen a body
// (pin=1 becomes pin="[REDACTED]"): the masked text is cut to journalBodyCap, at
// the start of a character.
func maskedBody(raw []byte, truncated bool) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return json.RawMessage(`null`), truncated
	}
	if !carddata.Readable(raw) {
		b, _ := json.Marshal(fmt.Sprintf("[%d bytes that are neither JSON nor a form: not kept, since card data in them could not be told apart]", len(raw)))
		return b, truncated
	}
	if truncated {
		raw = carddata.WithoutCutValue(raw)
	}
	masked := carddata.MaskJSON(raw)
	if len(masked) > journalBodyCap {
		cut := journalBodyCap
		for cut > 0 && !utf8.RuneStart(masked[cut]) {
			cut--
		}
		masked, truncated = masked[:cut], true
	}
	if !truncated && json.Valid(masked) {
		return masked, false
	}
	b, _ := json.Marshal(string(masked))
	return b, truncated
}

// stored returns the kept entries as stored, oldest first, holding the journal's lock
// only while it copies their pointers. Coverage reads of an entry only what add set
// before storing it, never changed after (a live stream's event and the weight it
// adds, which are, it does not read), so it reads them without the lock and without
// building their views.
func (j *journal) stored() []*JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.entries[j.first:])
}
