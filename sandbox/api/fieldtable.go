package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// A Field describes one member of a request body: its JSON type and rules. Bodies are
// checked against these descriptions before they are decoded into typed requests,
// because GP's errors name the offending field by its dotted path and come in a fixed
// order (every unknown field, then every missing one, then the first bad value), which
// a struct decoder cannot say: "payment_method.card.tag contains unexpected data".
type Field struct {
	name     string
	kind     kind
	required bool
	min, max int      // string length in characters, integer range, array length
	enum     []string // allowed values of a kEnum
	fields   []Field  // members of a kObject or kObjects, or of each element of a kArray of objects
	elem     kind     // element kind of a kArray
}

type kind int

const (
	kString kind = iota // any text without control characters
	kDigits             // a string of decimal digits (amounts, card numbers)
	kHex                // an even-length hex string (EMV TLV data)
	kEnum               // a string from enum
	kURL                // an absolute http(s) URL: malformed is 40090
	kInt                // a JSON integer
	kCount              // a JSON integer or a string of digits
	kBool               // true or false
	kObject
	kObjects // an object, or an array of such objects (the document's products)
	kArray
	kOneOrMore  // a string, or an array of such strings (elem, enum): lodging item types
	kIDOrObject // an object, or a plain string standing for its id: .NET's currency_conversion
	kAny        // any JSON value, accepted and not used: a member an SDK sends that means nothing here
	kScalar     // a string or a JSON number: UPA ids and amounts come either way
)

// Shorthands for the fields the tables declare most.

// Text is a plain string field of 1..max characters.
func Text(name string, max int) Field { return Field{name: name, kind: kString, min: 1, max: max} }

// Digits is a string of 1..max decimal digits.
func Digits(name string, max int) Field { return Field{name: name, kind: kDigits, min: 1, max: max} }

// Enum is a string that must be one of values.
func Enum(name string, values ...string) Field { return Field{name: name, kind: kEnum, enum: values} }

// Flag is true or false.
func Flag(name string) Field { return Field{name: name, kind: kBool} }

// Strings is an array of at most max strings, each of 1..255 characters.
func Strings(name string, max int) Field {
	return Field{name: name, kind: kArray, elem: kString, max: max}
}

// Required is f, which the body must hold.
func Required(f Field) Field {
	f.required = true
	return f
}

// ignored is a member an SDK sends that the sandbox accepts and does not use; each
// use names the SDKs that send it.
func ignored(name string) Field { return Field{name: name, kind: kAny} }

type object = map[string]any

// decodeObject parses a JSON body that must be exactly one JSON object, with numbers
// kept as written (json.Number) for the field table's integer checks. As
// encoding/json decodes: the last of duplicate members wins, invalid UTF-8 becomes
// U+FFFD (which textOK refuses), and nesting deeper than its limit (10000) is a
// syntax error. The empty array is read as the empty object: the PHP SDK sends an
// empty payload as "[]", and GP answers it as it answers "{}" (an edit with nothing
// on an unknown transaction is 404, not 40213). Any other array is refused.
func decodeObject(raw []byte) (object, error) {
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
	case object:
		return v, nil
	case []any:
		if len(v) == 0 {
			return object{}, nil
		}
	}
	return nil, sandbox.BodyUnexpected()
}

// requestHash identifies a request for idempotency replay: a hash of its method, its
// path and its checked body in canonical form (members sorted, no insignificant
// whitespace, numbers as written), so that the pretty-printed and the compact copy
// of one JSON object are the same request. Only the hash is kept: a path may hold
// what a client wrongly put there, a card number included.
func requestHash(method, path string, body object) string {
	canonical, _ := json.Marshal(body) // strings, json.Numbers, bools, nil, maps, slices: cannot fail
	sum := sha256.Sum256(append([]byte(method+" "+path+" "), canonical...))
	return hex.EncodeToString(sum[:])
}

// checkBody validates obj against spec: unknown fields first (40043), then missing
// required fields (40005), then each present field's type and rules (40213 / 40090).
func checkBody(obj object, spec []Field) error {
	if unknown := unknownFields(obj, spec, ""); len(unknown) > 0 {
		return sandbox.UnexpectedFields(unknown)
	}
	if missing := missingFields(obj, spec, ""); len(missing) > 0 {
		return sandbox.MissingFields(strings.Join(missing, ", "))
	}
	return checkFields(obj, spec, "")
}

func unknownFields(obj object, spec []Field, prefix string) []string {
	var unknown []string
	for name, v := range obj {
		f, ok := lookup(spec, name)
		if !ok {
			unknown = append(unknown, prefix+name)
			continue
		}
		for _, sub := range memberObjects(f, v) {
			unknown = append(unknown, unknownFields(sub, f.fields, prefix+name+".")...)
		}
	}
	slices.Sort(unknown)
	return slices.Compact(unknown)
}

func missingFields(obj object, spec []Field, prefix string) []string {
	var missing []string
	for _, f := range spec {
		v, present := obj[f.name]
		if f.required && (!present || v == nil) {
			missing = append(missing, prefix+f.name)
		}
		for _, sub := range memberObjects(f, v) {
			missing = append(missing, missingFields(sub, f.fields, prefix+f.name+".")...)
		}
	}
	return missing
}

// memberObjects returns the objects v holds for a field whose members are described
// by f.fields: v itself, or the objects of an array. Anything else holds none (the
// type check reports it later).
func memberObjects(f Field, v any) []object {
	if sub, ok := v.(object); ok && f.kind == kIDOrObject {
		return []object{sub}
	}
	if f.kind != kObject && f.kind != kObjects && (f.kind != kArray || f.elem != kObject) {
		return nil
	}
	switch v := v.(type) {
	case object:
		if f.kind != kArray {
			return []object{v}
		}
	case []any:
		if f.kind == kObject {
			return nil
		}
		var subs []object
		for _, e := range v {
			if sub, ok := e.(object); ok {
				subs = append(subs, sub)
			}
		}
		return subs
	}
	return nil
}

func checkFields(obj object, spec []Field, prefix string) error {
	for _, f := range spec {
		v, present := obj[f.name]
		if !present || v == nil { // null is absent: SDKs serialise unset members as null
			continue
		}
		if err := checkValue(f, v, prefix+f.name); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(f Field, v any, path string) error {
	switch f.kind {
	case kObject:
		sub, ok := v.(object)
		if !ok {
			return sandbox.InvalidField(path)
		}
		return checkFields(sub, f.fields, path+".")
	case kObjects:
		if _, isArray := v.([]any); isArray {
			return checkArray(Field{name: f.name, kind: kArray, elem: kObject, fields: f.fields, max: f.max}, v, path)
		}
		return checkValue(Field{name: f.name, kind: kObject, fields: f.fields}, v, path)
	case kArray:
		return checkArray(f, v, path)
	case kOneOrMore:
		if _, isArray := v.([]any); isArray {
			return checkArray(Field{name: f.name, kind: kArray, elem: f.elem, enum: f.enum, max: f.max}, v, path)
		}
		return checkValue(Field{name: f.name, kind: f.elem, enum: f.enum, min: 1, max: 255}, v, path)
	case kIDOrObject:
		if _, isObject := v.(object); isObject {
			return checkValue(Field{name: f.name, kind: kObject, fields: f.fields}, v, path)
		}
	case kAny:
		return nil
	case kInt, kCount:
		return checkInteger(f, v, path)
	case kBool:
		if _, ok := v.(bool); !ok {
			return sandbox.InvalidField(path)
		}
		return nil
	case kScalar:
		if n, ok := v.(json.Number); ok {
			v = n.String()
		}
	}
	s, ok := v.(string)
	if !ok || !textOK(s) || !lengthOK(s, f.min, f.max) {
		return sandbox.InvalidField(path)
	}
	switch f.kind {
	case kDigits:
		ok = sandbox.AllDigits(s) || s == "" && f.min == 0 // min 0: "" stands for absent
	case kHex:
		ok = len(s)%2 == 0 && strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
	case kEnum:
		ok = slices.Contains(f.enum, s)
	case kURL:
		if !absoluteHTTPURL(s) {
			return sandbox.InvalidURLField(path)
		}
	}
	if !ok {
		return sandbox.InvalidField(path)
	}
	return nil
}

func checkArray(f Field, v any, path string) error {
	arr, ok := v.([]any)
	if !ok || (f.max > 0 && len(arr) > f.max) {
		return sandbox.InvalidField(path)
	}
	elem := Field{name: f.name, kind: f.elem, fields: f.fields, enum: f.enum, min: 1, max: 255}
	for _, e := range arr {
		if e == nil {
			return sandbox.InvalidField(path)
		}
		if err := checkValue(elem, e, path); err != nil {
			return err
		}
	}
	return nil
}

func checkInteger(f Field, v any, path string) error {
	var text string
	switch n := v.(type) {
	case json.Number:
		text = n.String()
	case string:
		if f.kind != kCount {
			return sandbox.InvalidField(path)
		}
		text = n
	default:
		return sandbox.InvalidField(path)
	}
	if !sandbox.AllDigits(text) || len(text) > 9 {
		return sandbox.InvalidField(path) // negative, fractional, exponent or absurdly large
	}
	n, _ := strconv.Atoi(text) // at most 9 digits: cannot fail
	if n < f.min || (f.max > 0 && n > f.max) {
		return sandbox.InvalidField(path)
	}
	return nil
}

// textOK rejects control characters and U+FFFD, which is what Go's decoder makes of
// bytes that are not UTF-8: either way the field does not hold sensible text.
func textOK(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return false
		}
	}
	return true
}

func lengthOK(s string, min, max int) bool {
	n := utf8.RuneCountInString(s)
	return n >= min && (max == 0 || n <= max)
}

func absoluteHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

func lookup(spec []Field, name string) (Field, bool) {
	for _, f := range spec {
		if f.name == name {
			return f, true
		}
	}
	return Field{}, false
}
