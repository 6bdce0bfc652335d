package admin

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// What the journal keeps of the answer to a request, and what it learns from the
// action: the resource it acted on and what became of its idempotency key.

// journaledResponseHeaders are the answer's headers the journal keeps. None of them
// carries a secret.
var journaledResponseHeaders = [...]string{
	"Content-Type", "Content-Length", "Content-Encoding", "X-Request-Id", "X-Sandbox-Rule",
}

// responseHeaderKeys describes journaledResponseHeaders, once for every journal.
var responseHeaderKeys = headersToJournal(journaledResponseHeaders[:])

// Idempotency outcomes of a request that carried X-GP-Idempotency, as the journal
// shows them.
const (
	idemConsumed  = "consumed"  // the action answered (executed, or replayed in replay mode): the key is taken
	idemDuplicate = "duplicate" // the key was seen before: 409 40039
	idemFree      = "free"      // the request failed before or during the action: the key is still free
)

// idempotencyOutcome tells what became of the request's idempotency key; "" when it
// carried none.
func idempotencyOutcome(rec *web.Record, headers *requestHeaderValues) string {
	switch {
	case headers.get("X-GP-Idempotency") == "":
		return ""
	case rec.ErrorDetail == "40039" && rec.Rule == "":
		return idemDuplicate
	case rec.ResourceID != "":
		return idemConsumed
	default:
		return idemFree
	}
}

// journalAnswer is what the journal keeps of an answer, see JournalEntry.view.
type journalAnswer struct {
	written   bool // false when a fault closed the connection instead
	headers   [len(journaledResponseHeaders)]string
	body      json.RawMessage
	truncated bool
}

func (a *journalAnswer) view() *JournalResponse {
	if !a.written {
		return nil
	}
	return &JournalResponse{
		Headers: headerMap(journaledResponseHeaders[:], a.headers[:]), Body: a.body, BodyTruncated: a.truncated,
	}
}

// journalResponse is the answer as the journal keeps it: a few headers and the body,
// cut to journalBodyCap, its card data masked as in requests, and the access token
// redacted.
func journalResponse(rec *web.Record) journalAnswer {
	if rec.ResponseHeader == nil {
		return journalAnswer{} // no answer was written: a fault closed the connection
	}
	resp := journalAnswer{written: true}
	for i, jh := range responseHeaderKeys {
		resp.headers[i] = jh.firstValue(rec.ResponseHeader)
	}
	body := rec.Response
	if len(body) > journalBodyCap {
		// A copy: the entry must not hold the whole answer through its slice.
		body, resp.truncated = bytes.Clone(body[:journalBodyCap]), true
	}
	body = withoutToken(body)
	if rec.Status < http.StatusBadRequest && !resp.truncated && len(body) > 0 && carddata.NoneIn(body) {
		// A success the sandbox rendered with json.Marshal, nothing card-like in it:
		// kept as it is, as nearly every answer is.
		resp.body = body
		return resp
	}
	// An answer echoes what a client sent (a name, an authcode, an id in a path), and
	// a record keeps it as sent but for its card members: masked as a request is.
	resp.body, resp.truncated = maskedBody(body, resp.truncated)
	return resp
}

// withoutToken replaces the token of an /accesstoken answer: a journal reader holds
// the admin token, not the partner's credentials. The answer is decoded into its
// members, the token replaced and the members encoded again: the journal keeps it as
// json.Marshal writes a map, members sorted by key. An answer that cannot hold a
// token member, nearly every one, is kept as it is without being decoded.
func withoutToken(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"token"`)) {
		return body
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return body
	}
	if _, ok := members["token"]; !ok {
		return body
	}
	members["token"] = json.RawMessage(`"[REDACTED]"`)
	out, err := json.Marshal(members)
	if err != nil {
		return body
	}
	return out
}
