package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// A handler is an operation's own step: the typed request its checked body decodes
// into and what it does with it. Make one with handle.
type handler struct {
	request reflect.Type                                      // the typed request, whose field table endpoint builds
	decode  func(body object) (any, error)                    // checked body -> request
	fill    func(fields *web.Table, body object) (any, error) // body checked and decoded by the request's tags
	execute func(s *Server, c *call, req any) (any, error)    // request -> view to send
}

// handle makes the handler of an operation whose body decodes into R. The body is
// decoded only once it passed the operation's field table, so R needs no validation
// of its own: its fields mirror the table (checkShape holds them to it), strings for
// every text kind, int for kInt, count for kCount, a struct (or a pointer to one, to
// tell an absent object) for kObject, oneOrMany for kObjects and slices for kArray.
func handle[R any](fn func(s *Server, c *call, req R) (any, error)) handler {
	return handler{
		request: reflect.TypeFor[R](),
		decode: func(body object) (any, error) {
			req, err := decodeChecked[R](body)
			return &req, err
		},
		fill: func(fields *web.Table, body object) (any, error) {
			req := new(R)
			return req, fields.Decode(body, req)
		},
		execute: func(s *Server, c *call, req any) (any, error) { return fn(s, c, *req.(*R)) },
	}
}

// decodeChecked decodes a body that passed its field table into the typed request R.
// It decodes the checked object, not the bytes as sent: where a body repeats a
// member, the table saw only the last (as a map keeps it), while json.Unmarshal of
// the raw bytes would merge every repetition of an object member into the struct,
// values the table never checked included.
func decodeChecked[R any](body object) (R, error) {
	var req R
	checked, err := json.Marshal(body) // strings, json.Numbers, bools, nil, maps, slices: cannot fail
	if err != nil {
		return req, err
	}
	if err := json.Unmarshal(checked, &req); err != nil {
		return req, fmt.Errorf("decode checked body into %T: %w", req, err)
	}
	return req, nil
}

// count is a JSON integer or a string of digits (kCount): SDKs send device.quantity
// either way. The field table has checked it; JSON null leaves it 0.
type count int

func (n *count) UnmarshalJSON(b []byte) error {
	text := string(b)
	if text == "null" {
		return nil
	}
	if strings.HasPrefix(text, `"`) {
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
	}
	v, err := strconv.Atoi(text)
	*n = count(v)
	return err
}

// scalar is a string or a JSON number (kScalar), kept as written: the SDKs send a
// UPA requestId, EcrId or amount either way.
type scalar string

func (v *scalar) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, (*string)(v))
	}
	if string(b) != "null" {
		*v = scalar(b)
	}
	return nil
}

// oneOrMany is an object or an array of such objects (kObjects): the service document
// sends products as one object, SDKs and partners as an array.
type oneOrMany[T any] []T

func (m *oneOrMany[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return json.Unmarshal(b, (*[]T)(m)) // an array, or null
	}
	var one T
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*m = oneOrMany[T]{one}
	return nil
}

// oneOrMore is a string or an array of strings (kOneOrMore): the Node and PHP SDKs
// send a lodging item's types as one string, Java and .NET as an array or a string.
type oneOrMore []string

func (m *oneOrMore) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '"' {
		return json.Unmarshal(b, (*[]string)(m)) // an array, or null
	}
	var one string
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*m = oneOrMore{one}
	return nil
}

// idOrObject is an object with an id, or the id as a plain string (kIDOrObject):
// .NET sends currency_conversion on capture and reversal as the bare id.
type idOrObject struct {
	ID string `json:"id" gp:"max=50"`
}

func (o *idOrObject) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &o.ID)
	}
	type plain idOrObject // without this method
	return json.Unmarshal(b, (*plain)(o))
}

// checkShape reports where a typed request and its field table disagree: a table
// field the struct lacks (it would be checked, then silently dropped), a struct field
// the table lacks (never filled: the table refuses it as unknown) or a Go type that
// cannot hold what the table lets through. endpoint runs it when routes are built, so
// any test that starts a server catches a drift.
func checkShape(spec []Field, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return []string{fmt.Sprintf("%s is not a struct", t)}
	}
	members := map[string]reflect.Type{}
	jsonMembers(t, members)
	var problems []string
	for _, f := range spec {
		mt, ok := members[f.name]
		if f.kind == kAny && !ok {
			continue // accepted and not used: no struct field to fill
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: field %q has no struct field", t, f.name))
			continue
		}
		delete(members, f.name)
		problems = append(problems, checkMember(f, mt)...)
	}
	for name := range members {
		problems = append(problems, fmt.Sprintf("%s: struct field %q is not in the field table", t, name))
	}
	return problems
}

// jsonMembers collects the JSON members of struct t by name, with those of embedded
// structs, as encoding/json sees them.
func jsonMembers(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch {
		case sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct:
			jsonMembers(sf.Type, into)
		case sf.IsExported() && name != "" && name != "-":
			into[name] = sf.Type
		}
	}
}

// noBody is the typed request of an operation without a body (a GET).
type noBody struct{}

func checkMember(f Field, t reflect.Type) []string {
	bad := []string{fmt.Sprintf("field %q: %s cannot hold kind %d", f.name, t, f.kind)}
	switch f.kind {
	case kString, kDigits, kHex, kEnum, kURL:
		if t.Kind() != reflect.String {
			return bad
		}
	case kInt:
		if t.Kind() != reflect.Int {
			return bad
		}
	case kCount:
		if t != reflect.TypeFor[count]() {
			return bad
		}
	case kScalar:
		if t != reflect.TypeFor[scalar]() {
			return bad
		}
	case kBool:
		if t.Kind() != reflect.Bool && !(t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool) {
			return bad
		}
	case kObject:
		return checkShape(f.fields, t)
	case kOneOrMore:
		if t != reflect.TypeFor[oneOrMore]() {
			return bad
		}
	case kIDOrObject:
		if t != reflect.TypeFor[idOrObject]() {
			return bad
		}
	case kObjects, kArray:
		if t.Kind() != reflect.Slice || (f.kind == kObjects && !reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]())) {
			return bad // kObjects needs oneOrMany, which reads the single object too
		}
		if f.kind == kObjects || f.elem == kObject {
			return checkShape(f.fields, t.Elem())
		}
		return checkMember(Field{name: f.name, kind: f.elem}, t.Elem())
	}
	return nil
}

// A RequestBody reads a request body the way an operation's is read: the content type
// checked, the body read within the limit, checked against its field table and
// decoded into the typed request R. The admin API's bodies are read with it.
type RequestBody[R any] struct{ fields []Field }

// NewRequestBody is the body whose members fields describe. It panics where R and
// fields differ (checkShape), as endpoint does: a programming error every test that
// loads the package reports.
func NewRequestBody[R any](fields ...Field) RequestBody[R] {
	if problems := checkShape(fields, reflect.TypeFor[R]()); len(problems) > 0 {
		panic(fmt.Sprintf("request body %s: typed request and field table differ: %s", reflect.TypeFor[R](), strings.Join(problems, "; ")))
	}
	return RequestBody[R]{fields}
}

// Read reads r's body into the typed request.
func (b RequestBody[R]) Read(r *http.Request) (R, error) {
	var req R
	obj, err := web.ReadObject(nil, r, false)
	if err != nil {
		return req, err
	}
	if err := checkBody(obj, b.fields); err != nil {
		return req, err
	}
	return decodeChecked[R](obj)
}
