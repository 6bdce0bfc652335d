package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Reading a request: its body within the limit, its credentials and its session.

// ReadBody reads at most the configured limit of r's body. A declared length over the
// limit is refused before a byte is read, so a 100 MiB upload costs nothing.
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	maxBody := int64(DefaultMaxBody)
	if rec := RecordOf(r); rec != nil {
		maxBody = rec.maxBody
	}
	if r.ContentLength > maxBody {
		return nil, bodyTooLarge(maxBody)
	}
	if read, ok := r.Body.(*journaledBody); ok && read.err == nil {
		return read.whole, nil // within maxBody: peekBody reads no body declared longer
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, bodyTooLarge(maxBody)
	case err != nil:
		return nil, sandbox.BodyUnexpected() // the client went away or sent a broken chunk
	}
	return raw, nil
}

// bodyTooLarge is the answer to a body over the limit: 413, the status its error code
// does not say.
func bodyTooLarge(maxBody int64) error {
	return WithStatus(http.StatusRequestEntityTooLarge, sandbox.BodyTooLarge(maxBody))
}

// peekBody reads up to BodyKept bytes of the body for the journal and puts them
// back in front of the rest, so the handler reads the same stream. A body declared
// larger than the limit is not touched: it is refused unread.
func peekBody(r *http.Request, rec *Record) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength > rec.maxBody {
		return
	}
	if r.ContentLength >= 0 && r.ContentLength <= BodyKept {
		// The usual case, read once for both: net/http holds the body to its
		// declared length.
		buf := make([]byte, r.ContentLength)
		n, err := io.ReadFull(r.Body, buf)
		body := &journaledBody{whole: buf[:n], err: err, Closer: r.Body}
		body.rest.Reset(body.whole)
		r.Body = body
		rec.Body = buf[:n]
		return
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, BodyKept+1))
	var rest io.Reader = r.Body
	if err != nil {
		rest = errReader{err}
	}
	r.Body = readCloser{io.MultiReader(bytes.NewReader(buf), rest), r.Body}
	if len(buf) > BodyKept {
		buf, rec.BodyTruncated = buf[:BodyKept], true
	}
	rec.Body = buf
}

// journaledBody is a body the journal read whole (it was declared no longer than
// BodyKept, nor than the limit): ReadBody takes it as it is, unless err says the
// reading failed, rather than reading it a second time.
type journaledBody struct {
	whole []byte
	err   error        // why the reading stopped short, if it did
	rest  bytes.Reader // what the handler has yet to read of whole
	io.Closer
}

// Read reads whole, then fails with err if the reading was cut short or timed out:
// the handler reads the failure too.
func (b *journaledBody) Read(p []byte) (int, error) {
	n, err := b.rest.Read(p)
	if err == io.EOF && b.err != nil {
		return n, b.err
	}
	return n, err
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Query parses r's query string, refusing one that does not decode: Go's query
// parsing drops a pair it cannot decode (a bad escape, a ';'), so a filter with a bad
// escape would otherwise be no filter, and list everything.
func Query(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, sandbox.InvalidDocument("query: " + err.Error())
	}
	return q, nil
}

// BearerToken extracts the token of "Authorization: Bearer <token>" (scheme in any
// case): an API token or the admin token. Ambiguous credentials are no credentials:
// two Authorization headers, or a token with spaces around or inside it, give ""
// (40001) rather than a guess at which was meant.
func BearerToken(r *http.Request) string {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return ""
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return ""
	}
	if len(token) > 256 {
		return "" // no token is that long: do not even look it up
	}
	return token
}

// SessionHeader scopes scenario sequence state (and a session's snapshot), so that
// parallel test suites do not consume one another's steps.
const SessionHeader = "X-Sandbox-Session"

// MaxSession is the length limit of a session.
const MaxSession = 100

// Session returns r's X-Sandbox-Session, "" when it has none; one longer than
// MaxSession or not printable ASCII is refused naming the header.
func Session(r *http.Request) (string, error) {
	session := r.Header.Get(SessionHeader)
	if session != "" && (len(session) > MaxSession || !PrintableASCII(session)) {
		return "", sandbox.InvalidField(SessionHeader)
	}
	return session, nil
}

// PrintableASCII reports whether s holds printable ASCII characters only.
func PrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
