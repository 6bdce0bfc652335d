package admin

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// journalFilter selects journal entries for GET /_sandbox/requests and its count.
// Every condition given must hold; an empty one holds for any entry.
type journalFilter struct {
	operation, method, app, session string
	status                          int // an HTTP status, or 1..5 for a class (4xx)
	statusClass                     bool
	transactionID, orderID          string
	scenario, rule                  string
	path                            string // exact, or a prefix when it ends with *
	since, until                    time.Time
	before                          uint64 // only entries numbered (Seq) below it: a page further back
}

// matches reports whether e passes every condition of f.
func (f journalFilter) matches(e *JournalEntry) bool {
	return (f.operation == "" || e.Operation == f.operation) &&
		(f.method == "" || e.Method == f.method) &&
		(f.app == "" || e.AppID == f.app) &&
		(f.session == "" || e.Session == f.session) &&
		f.statusMatches(e.Status) &&
		(f.transactionID == "" || refersTo(e, "transactions", f.transactionID)) &&
		(f.orderID == "" || refersTo(e, "orders", f.orderID)) &&
		(f.scenario == "" || strings.HasPrefix(e.Rule, f.scenario+"#")) &&
		(f.rule == "" || e.Rule == f.rule) &&
		f.pathMatches(e.Path) &&
		(f.since.IsZero() || !e.at.Before(f.since)) &&
		(f.until.IsZero() || e.at.Before(f.until)) &&
		(f.before == 0 || e.Seq < f.before)
}

func (f journalFilter) statusMatches(status int) bool {
	switch {
	case f.status == 0:
		return true
	case f.statusClass:
		return status/100 == f.status
	}
	return status == f.status
}

// pathMatches compares paths in their canonical form, so that /ucp/transactions/x
// and /transactions/x are the same path.
func (f journalFilter) pathMatches(path string) bool {
	if f.path == "" {
		return true
	}
	path = web.CanonicalPath(path)
	if prefix, ok := strings.CutSuffix(f.path, "*"); ok {
		return strings.HasPrefix(path, web.CanonicalPath(prefix))
	}
	return path == web.CanonicalPath(f.path)
}

// refersTo reports whether the entry concerns resource id of the collection: its
// path names it (…/transactions/{id}/…) or its action answered it.
func refersTo(e *JournalEntry, collection, id string) bool {
	if e.ResourceID == id {
		return true
	}
	segments := strings.Split(e.Path, "/")
	for i := 0; i+1 < len(segments); i++ {
		if segments[i] == collection && segments[i+1] == id {
			return true
		}
	}
	return false
}

// journalParams are the query parameters of GET /_sandbox/requests and what each
// sets; "limit" is read by the list alone.
var journalParams = map[string]func(s *Server, f *journalFilter, v string) error{
	"operation": func(s *Server, f *journalFilter, v string) error {
		if !slices.Contains(sandbox.Operations(), sandbox.Operation(v)) && !slices.Contains(terminalOperations, v) {
			return sandbox.InvalidField("operation")
		}
		f.operation = v
		return nil
	},
	"method":         textParam("method", func(f *journalFilter) *string { return &f.method }),
	"app_id":         textParam("app_id", func(f *journalFilter) *string { return &f.app }),
	"session":        textParam("session", func(f *journalFilter) *string { return &f.session }),
	"transaction_id": textParam("transaction_id", func(f *journalFilter) *string { return &f.transactionID }),
	"order_id":       textParam("order_id", func(f *journalFilter) *string { return &f.orderID }),
	"scenario":       textParam("scenario", func(f *journalFilter) *string { return &f.scenario }),
	"rule":           textParam("rule", func(f *journalFilter) *string { return &f.rule }),
	"path": func(_ *Server, f *journalFilter, v string) error {
		if !strings.HasPrefix(v, "/") {
			return sandbox.InvalidField("path")
		}
		f.path = v
		return nil
	},
	"status": func(_ *Server, f *journalFilter, v string) error {
		if class, ok := strings.CutSuffix(strings.ToLower(v), "xx"); ok && len(class) == 1 && class[0] >= '1' && class[0] <= '5' {
			f.status, f.statusClass = int(class[0]-'0'), true
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 || n > 599 {
			return sandbox.InvalidField("status")
		}
		f.status = n
		return nil
	},
	"before": func(_ *Server, f *journalFilter, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n < 1 {
			return sandbox.InvalidField("before")
		}
		f.before = n
		return nil
	},
	"since": timeParam("since", func(f *journalFilter) *time.Time { return &f.since }),
	"until": timeParam("until", func(f *journalFilter) *time.Time { return &f.until }),
}

func textParam(name string, field func(*journalFilter) *string) func(*Server, *journalFilter, string) error {
	return func(_ *Server, f *journalFilter, v string) error {
		if len(v) > 255 || !web.PrintableASCII(v) {
			return sandbox.InvalidField(name)
		}
		*field(f) = v
		return nil
	}
}

// timeParam reads a time on the sandbox clock, RFC 3339 (the journal's own format).
func timeParam(name string, field func(*journalFilter) *time.Time) func(*Server, *journalFilter, string) error {
	return func(_ *Server, f *journalFilter, v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return sandbox.InvalidField(name)
		}
		*field(f) = t
		return nil
	}
}

// journalFilters are journalParams' names in order, the order they are read in.
var journalFilters = slices.Sorted(maps.Keys(journalParams))

// journalQueryParams names the parameters parseJournalQuery reads: the filters, and
// with withLimit the page size.
func journalQueryParams(withLimit bool) []string {
	names := slices.Clone(journalFilters)
	if withLimit {
		names = append(names, "limit")
	}
	return names
}

// journalStreamParams names the live stream's parameters: the filters but before
// (a stream only goes forward), and after, where it starts (streamStart).
func journalStreamParams() []string {
	return append(slices.DeleteFunc(journalQueryParams(false), func(name string) bool { return name == "before" }), "after")
}

// parseJournalQuery reads the filter of a journal query, each value well-formed or
// the query refused naming it, rather than silently matching everything (or
// nothing). The route has refused any other parameter and any given twice
// (queried); the filters are read in name order, so the one named is always the
// same. withLimit reads ?limit= (from 1, default 100; more than maxJournalLimit reads
// maxJournalLimit).
func (s *Server) parseJournalQuery(query url.Values, withLimit bool) (journalFilter, int, error) {
	var f journalFilter
	for _, name := range journalFilters {
		if values, given := query[name]; given {
			if err := journalParams[name](s, &f, values[0]); err != nil {
				return f, 0, err
			}
		}
	}
	limit := defaultJournalLimit
	if values, given := query["limit"]; given && withLimit {
		n, err := strconv.Atoi(values[0])
		if err != nil || n < 1 {
			return f, 0, sandbox.InvalidField("limit")
		}
		limit = min(n, maxJournalLimit)
	}
	return f, limit, nil
}
