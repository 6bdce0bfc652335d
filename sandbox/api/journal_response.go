package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
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
func idempotencyOutcome(info *requestInfo) string {
	switch {
	case info.headers.get("X-GP-Idempotency") == "":
		return ""
	case info.errorDetail == "40039" && info.rule == "":
		return idemDuplicate
	case info.resourceID != "":
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
// cut to journalBodyCap, the card data of an error masked as in requests, and the
// access token redacted.
func journalResponse(info *requestInfo) journalAnswer {
	if info.responseHeader == nil {
		return journalAnswer{} // no answer was written: a fault closed the connection
	}
	resp := journalAnswer{written: true}
	for i, jh := range responseHeaderKeys {
		resp.headers[i] = jh.firstValue(info.responseHeader)
	}
	body := info.response
	if len(body) > journalBodyCap {
		// A copy: the entry must not hold the whole answer through its slice.
		body, resp.truncated = bytes.Clone(body[:journalBodyCap]), true
	}
	body = withoutToken(body)
	if info.status < http.StatusBadRequest && !resp.truncated && len(body) > 0 {
		// A success is rendered from stored records, whose card data was masked
		// before it was stored, by json.Marshal: checking or masking it again would
		// only cost every request two scans of its answer.
		resp.body = body
		return resp
	}
	// An error may echo what a client sent (an id in a path): masked as a request is.
	resp.body = maskedBody(body, resp.truncated)
	return resp
}

// withoutToken replaces the token of an /accesstoken answer: a journal reader holds
// the admin token, not the partner's credentials. The journal keeps the answer as
// json.Marshal writes it back from a map: members sorted by key.
func withoutToken(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"token"`)) {
		return body
	}
	if out, ok := withoutTokenCompact(body); ok {
		return out
	}
	return withoutTokenDecoded(body)
}

// redactedToken is what the journal shows for a token.
const redactedToken = `"[REDACTED]"`

// withoutTokenDecoded is withoutToken through a map of the answer's members.
func withoutTokenDecoded(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	if _, ok := m["token"]; !ok {
		return body
	}
	m["token"] = json.RawMessage(redactedToken)
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// withoutTokenCompact gives withoutTokenDecoded's bytes without decoding, for the
// answers the sandbox writes: a valid compact object whose keys are plain ASCII and
// occur once, with nothing that json.Marshal escapes. There a member's value comes
// back from the map byte for byte, so sorting the members is all that is left. It
// reports false for anything else. A profile of /accesstoken showed the decode and
// encode as a quarter of the request's CPU.
func withoutTokenCompact(body []byte) ([]byte, bool) {
	if len(body) < 2 || body[0] != '{' || bytes.ContainsAny(body, "<>&\u2028\u2029") || !json.Valid(body) {
		return nil, false
	}
	type member struct{ key, value []byte }
	var members []member
	hasToken := false
	for rest := body[1:]; len(rest) > 0 && rest[0] != '}'; {
		if rest[0] == ',' {
			rest = rest[1:]
		}
		key, ok := plainKey(rest)
		if !ok {
			return nil, false
		}
		rest = rest[len(key)+3:] // the quotes and the colon
		n := compactValueLen(rest)
		if n < 0 {
			return nil, false
		}
		m := member{key, rest[:n]}
		if string(key) == "token" {
			m.value, hasToken = []byte(redactedToken), true
		}
		members, rest = append(members, m), rest[n:]
	}
	if !hasToken {
		return body, true
	}
	slices.SortFunc(members, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	out := make([]byte, 0, len(body))
	out = append(out, '{')
	for i, m := range members {
		if i > 0 {
			if bytes.Equal(m.key, members[i-1].key) {
				return nil, false // a map keeps the last of a repeated key
			}
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, m.key...)
		out = append(out, '"', ':')
		out = append(out, m.value...)
	}
	return append(out, '}'), true
}

// plainKey returns the key of the member that rest starts with, when it is quoted
// printable ASCII without escapes and followed by a colon.
func plainKey(rest []byte) ([]byte, bool) {
	if len(rest) == 0 || rest[0] != '"' {
		return nil, false
	}
	for i := 1; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '"':
			return rest[1:i], i+1 < len(rest) && rest[i+1] == ':'
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// compactValueLen is the length of the valid JSON value that rest starts with, or -1
// when it has white space outside its strings (json.Marshal would take it out).
func compactValueLen(rest []byte) int {
	depth, inString := 0, false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if depth == 0 {
					return i + 1
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case c == ',' && depth == 0:
			return i
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			return -1
		}
	}
	return len(rest)
}
