package admin

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// The live journal: GET /_sandbox/requests/stream sends each new entry as a
// server-sent event as soon as it is journaled.

// maxJournalStreams is how many live streams may be open at once: every journaled
// request wakes each of them, so that a thousand open streams made each request cost
// some seventy times its own work. One more is refused (429) naming the limit.
const maxJournalStreams = 32

// streamKeepAlive is how often an idle stream sends a comment, so that proxies and
// the browser keep it open and a dead client is noticed.
const streamKeepAlive = 15 * time.Second

// changed returns a channel closed by the next add.
func (j *journal) changed() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.watched = true
	return j.wake
}

// since returns the entries added after the one numbered seq that match f, oldest
// first, and the number of the newest entry. Entries the journal already evicted are
// gone: a reader that fell that far behind gets what is left.
func (j *journal) since(seq uint64, f journalFilter) ([]JournalEntry, uint64) {
	out, added := j.matchingSince(seq, f)
	slices.Reverse(out)
	toViews(out)
	return out, added
}

// events returns the entries since does, each as the JSON a stream sends. Every
// stream sends the same JSON for an entry: the first to need it encodes it and keeps
// it on the stored entry, and the others send that.
func (j *journal) events(seq uint64, f journalFilter) ([]JournalEntry, uint64, error) {
	out, added := j.matchingSince(seq, f)
	slices.Reverse(out)
	for i := range out {
		if out[i].event != nil {
			continue
		}
		data, err := json.Marshal(out[i].view())
		if err != nil {
			return nil, added, err
		}
		out[i].event = data
		j.keepEvent(out[i].Seq, data)
	}
	return out, added, nil
}

// keepEvent keeps an entry's encoded event on the stored entry, if it is still
// kept and none is there yet; it weighs on the journal's bound like the rest.
func (j *journal) keepEvent(seq uint64, data []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.first == len(j.entries) || seq < j.entries[j.first].Seq {
		return
	}
	i := j.first + int(seq-j.entries[j.first].Seq) // seqs are consecutive
	if i < len(j.entries) && j.entries[i].Seq == seq && j.entries[i].event == nil {
		j.entries[i].event = data
		j.entries[i].weight += len(data)
		j.bytes += len(data)
	}
}

// matchingSince copies the stored entries after the one numbered seq that f
// matches, newest first, and returns the number of the newest entry. As in
// newestMatching, the views are built from the copies once the lock is released.
func (j *journal) matchingSince(seq uint64, f journalFilter) ([]JournalEntry, uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []JournalEntry
	j.newest(func(e *JournalEntry) bool {
		if e.Seq <= seq {
			return false
		}
		if f.matches(e) {
			out = append(out, *e)
		}
		return true
	})
	return out, j.added
}

// sessions lists the sessions of the journaled requests, most recently seen first.
func (j *journal) sessions() []sessionView {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []sessionView{}
	index := map[string]int{}
	j.newest(func(e *JournalEntry) bool {
		if e.Session == "" {
			return true
		}
		k, seen := index[e.Session]
		if !seen {
			k = len(out)
			index[e.Session] = k
			out = append(out, sessionView{Session: e.Session, Scenarios: []string{}, LastSeen: sandbox.FormatTime(e.at)})
		}
		v := &out[k]
		v.Requests++
		if named := e.headers.get("X-Sandbox-Scenario"); named != "" && !slices.Contains(v.Scenarios, named) {
			v.Scenarios = append(v.Scenarios, named)
		}
		return true
	})
	return out
}

// GET /_sandbox/requests/stream?<the filters of /_sandbox/requests>&after=<seq>:
// an event stream of journal entries, oldest first. It starts after entry number
// after (or Last-Event-ID, as a reconnecting EventSource sends), or with the next new
// entry when neither is given. Each event is "event: request", "id: <seq>" and the
// entry as JSON.
func (s *Server) adminRequestStream(w http.ResponseWriter, r *http.Request) {
	if s.journal == nil {
		web.WriteError(w, r, sandbox.InvalidDocument("this sandbox runs without a journal"))
		return
	}
	if s.streams.Add(1) > maxJournalStreams {
		s.streams.Add(-1)
		web.WriteError(w, r, web.WithStatus(http.StatusTooManyRequests, sandbox.TooManyStreams(maxJournalStreams)))
		return
	}
	defer s.streams.Add(-1)
	last, filters, err := streamStart(r, s.journal)
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	f, _, err := s.parseJournalQuery(filters, false)
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	if rec := web.RecordOf(r); rec != nil {
		rec.Status = http.StatusOK
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s.stream(w, r, f, last)
}

// streamStart reads after= (or Last-Event-ID): the number of the last entry the
// client already has, the newest one when neither is given. It returns the query
// without after=: the journal filters.
func streamStart(r *http.Request, j *journal) (uint64, url.Values, error) {
	q := adminQuery(r)
	v := q.Get("after")
	if _, given := q["after"]; given {
		q = maps.Clone(q)
		delete(q, "after")
	} else {
		v = r.Header.Get("Last-Event-ID")
	}
	if v == "" {
		_, added := j.since(^uint64(0), journalFilter{})
		return added, q, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, q, sandbox.InvalidField("after")
	}
	return n, q, nil
}

// stream writes entries as they come until the client goes away or the server
// shuts down.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, f journalFilter, last uint64) {
	rc := http.NewResponseController(w)
	keepAlive := time.NewTicker(streamKeepAlive)
	defer keepAlive.Stop()
	for {
		wake := s.journal.changed()
		entries, added, err := s.journal.events(last, f)
		if err != nil {
			return
		}
		last = added
		// Each write gets its own deadline: the server's write timeout is meant for
		// answers, not for a stream that stays open.
		rc.SetWriteDeadline(time.Now().Add(2 * streamKeepAlive))
		for _, e := range entries {
			if _, err := fmt.Fprintf(w, "event: request\nid: %d\ndata: %s\n\n", e.Seq, e.event); err != nil {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case <-wake:
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		}
	}
}

// CloseStreams ends every live stream and refuses none: call it when the HTTP server
// shuts down (http.Server.RegisterOnShutdown), which otherwise waits for them.
func (s *Server) CloseStreams() { s.closeStreams.Do(func() { close(s.closing) }) }
