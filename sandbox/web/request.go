package web

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Reading a request body into its typed request. The request struct is the body's
// field table: one field per member, in GP's check order, the json tag naming the
// member and the gp tag giving its rules. Checking by a table rather than by a struct
// decoder is what lets the errors name the offending member by its dotted path and
// come in GP's order (every unknown member, then every missing one, then the first
// bad value): "payment_method.card.tag contains unexpected data".

// Object is a JSON object as a request body decodes: numbers as json.Number, so that
// an integer is judged as it was written.
type Object = map[string]any

// Ignored is the type of a member a client sends that is accepted and not used: a
// field of this type names it, with a comment naming the clients that send it. It
// holds nothing and takes no room.
//
//	RiskAssessment web.Ignored `json:"risk_assessment"` // all SDKs with a fraud filter
type Ignored struct{}

// A Body reads the bodies of requests whose typed request is R: the admin API's.
type Body[R any] struct{ table *Table }

// NewBody is the body of typed request R; it panics as TableOf does.
func NewBody[R any]() Body[R] { return Body[R]{TableOf(reflect.TypeFor[R]())} }

// Read reads r's body (ReadObject) into the typed request.
func (b Body[R]) Read(r *http.Request) (R, error) {
	var req R
	body, err := ReadObject(nil, r, false)
	if err != nil {
		return req, err
	}
	return req, b.table.Decode(body, &req)
}

// ReadObject reads r's body as one JSON object: the content type checked, the body
// read within the limit (ReadBody) and decoded (DecodeObject). With optional, an
// empty body is the empty object (a GET; a batch close sends none).
func ReadObject(w http.ResponseWriter, r *http.Request, optional bool) (Object, error) {
	if err := checkContentType(r); err != nil {
		return nil, err
	}
	raw, err := ReadBody(w, r)
	if err != nil {
		return nil, err
	}
	if optional && len(bytes.TrimSpace(raw)) == 0 {
		return Object{}, nil
	}
	return DecodeObject(raw)
}

// DecodeObject parses a body that must be exactly one JSON object, with numbers kept
// as written (json.Number) for the integer checks. As encoding/json decodes: the last
// of duplicate members wins, invalid UTF-8 becomes U+FFFD (which a text member
// refuses), and nesting deeper than its limit (10000) is a syntax error. The empty
// array is read as the empty object: the PHP SDK sends an empty payload as "[]", and
// GP answers it as it answers "{}" (an edit with nothing on an unknown transaction is
// 404, not 40213). Any other array is refused.
func DecodeObject(raw []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, sandbox.BodyUnexpected()
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, sandbox.BodyUnexpected() // more than white space after the object
	}
	switch v := v.(type) {
	case Object:
		return v, nil
	case []any:
		if len(v) == 0 {
			return Object{}, nil
		}
	}
	return nil, sandbox.BodyUnexpected()
}

// checkContentType accepts a missing or unparseable Content-Type as JSON (the Node SDK
// sends "charset=UTF-8", which GP accepts) and refuses a clearly different media type.
func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" || ct == "application/json" {
		return nil // absent, or what nearly every client sends: nothing to parse
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil
	}
	if mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json") || mt == "*/*" {
		return nil
	}
	return sandbox.InvalidField("Content-Type")
}

// ValidText reports whether s holds sensible text: no control characters, and no
// U+FFFD, which is what Go's decoder makes of bytes that are not UTF-8.
func ValidText(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return false
		}
	}
	return true
}
