package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// A Table is the field table of a request struct, built from its tags by TableOf.
// The gp tag holds comma-separated rules:
//
//	required          the member must be there and not null (40005)
//	min=N, max=N      a string's length in characters, an integer's range, an
//	                  array's length (each string in an array is 1..255 characters)
//	digits, hex, url  a string of decimal digits, an even-length hex string, an
//	                  absolute http(s) URL (bad: 40090); plain text otherwise
//	currency          three capital letters, an ISO 4217 code's shape (sandbox.CurrencyProblem)
//	country           two capital letters, an ISO 3166 alpha-2 code's shape (sandbox.CountryProblem)
//	enum=A|B|C        a string, or each string of an array, from the list
//	or-number         a string that may come as a JSON number, kept as written
//	or-string         an integer that may come as a string of digits
//	or-id             an object that may come as its id alone, a plain string
//	or-one            an array whose one element may come without the array
//	own-name          errors name the string by its own name, not its dotted path,
//	                  as GP names fingerprint_mode inside payment_method
//
// The Go type gives the rest: a string is 1.. characters unless min=0 (an empty
// digits, currency, country or enum string then stands for absent), with no control
// characters; an int is a JSON integer of at most 9 digits; bool or *bool; a struct, or a pointer to one that
// stays nil when the member is absent, is an object of its own fields; a slice of
// strings or of structs is an array; Ignored is any value. An embedded struct adds
// its fields in its place, so shared groups of members are declared once. JSON null
// is an absent member: the SDKs serialise unset members as null.
type Table struct {
	typ     reflect.Type
	members []member
}

// A member is one row of a table.
type member struct {
	name     string
	path     string // the dotted path errors name
	inner    string // path + ".": the prefix of its members' paths
	index    []int  // the struct field it fills, through embedded structs
	kind     kind
	required bool
	min, max int
	enum     []string
	pointer  bool     // the field is a pointer, set only when the member is there
	members  []member // an object's members, or those of each object of an array
	elem     *member  // an array's element: its kind and rules, under the array's path
	orOne    bool     // an array whose one element may come alone
	bareID   *member  // an object that may come as its id: the id's rules, under the object's path
}

type kind uint8

const (
	kText     kind = iota // any text without control characters
	kDigits               // a string of decimal digits (amounts, card numbers)
	kHex                  // an even-length hex string (EMV TLV data)
	kEnum                 // a string from enum
	kURL                  // an absolute http(s) URL: malformed is 40090
	kCurrency             // three capital letters, an ISO 4217 code's shape
	kCountry              // two capital letters, an ISO 3166 alpha-2 code's shape
	kScalar               // a string or a JSON number, kept as written
	kInt                  // a JSON integer
	kCount                // a JSON integer or a string of digits
	kBool                 // true or false
	kObject
	kArray
	kAny // any JSON value, accepted and not used
)

var tables sync.Map // reflect.Type -> *Table

// TableOf returns the field table of the request struct t, built from its tags the
// first time it is asked for. It panics where a tag cannot be parsed or a rule does
// not fit its field's Go type: a programming error, like a bad regexp literal, that
// every test registering the routes reports.
func TableOf(t reflect.Type) *Table {
	if cached, ok := tables.Load(t); ok {
		return cached.(*Table)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("request %s: not a struct", t))
	}
	table := &Table{typ: t, members: structMembers(t, "", nil)}
	cached, _ := tables.LoadOrStore(t, table)
	return cached.(*Table)
}

// Decode checks body against the table and fills into, a pointer to the table's
// struct, in GP's order: every unknown member (40043, sorted), then every missing
// required one (40005), then each value in the struct's order, up to the first bad
// one (40213, or 40090 for a URL). into is filled from body alone, so a member a body
// repeats is the last repetition, as body kept it, and nothing unchecked.
func (t *Table) Decode(body Object, into any) error {
	v := reflect.ValueOf(into)
	if !v.IsValid() || v.Type() != reflect.PointerTo(t.typ) || v.IsNil() {
		return fmt.Errorf("decode %s into %T", t.typ, into)
	}
	if unknown := unknownMembers(body, t.members, "", nil); len(unknown) > 0 {
		slices.Sort(unknown)
		return sandbox.UnexpectedFields(slices.Compact(unknown))
	}
	if missing := missingMembers(body, t.members, nil); len(missing) > 0 {
		return sandbox.MissingFields(strings.Join(missing, ", "))
	}
	return fillMembers(body, t.members, v.Elem())
}

func unknownMembers(obj Object, members []member, prefix string, unknown []string) []string {
	for name, v := range obj {
		m := lookup(members, name)
		if m == nil {
			unknown = append(unknown, prefix+name)
			continue
		}
		for sub := range m.objects(v) {
			unknown = unknownMembers(sub, m.members, m.inner, unknown)
		}
	}
	return unknown
}

func missingMembers(obj Object, members []member, missing []string) []string {
	for i := range members {
		m := &members[i]
		v, present := obj[m.name]
		if m.required && (!present || v == nil) {
			missing = append(missing, m.path)
		}
		for sub := range m.objects(v) {
			missing = missingMembers(sub, m.members, missing)
		}
	}
	return missing
}

// objects yields the objects v holds whose members m.members describes: v itself for
// an object, the objects of an array of objects (or the one, or-one). Anything else
// holds none: its value check reports it.
func (m *member) objects(v any) func(yield func(Object) bool) {
	return func(yield func(Object) bool) {
		switch v := v.(type) {
		case Object:
			if m.kind == kObject || (m.kind == kArray && m.orOne && m.elem.kind == kObject) {
				yield(v)
			}
		case []any:
			if m.kind != kArray || m.elem.kind != kObject {
				return
			}
			for _, e := range v {
				if sub, ok := e.(Object); ok && !yield(sub) {
					return
				}
			}
		}
	}
}

func lookup(members []member, name string) *member {
	for i := range members {
		if members[i].name == name {
			return &members[i]
		}
	}
	return nil
}

// fillMembers checks obj's values in the members' order and fills them into the
// struct dst.
func fillMembers(obj Object, members []member, dst reflect.Value) error {
	for i := range members {
		m := &members[i]
		v, present := obj[m.name]
		if !present || v == nil || m.kind == kAny {
			continue
		}
		if err := m.fill(v, dst.FieldByIndex(m.index)); err != nil {
			return err
		}
	}
	return nil
}

// fill checks v by m's rules and sets dst, the member's field (or an element of it).
func (m *member) fill(v any, dst reflect.Value) error {
	switch m.kind {
	case kObject:
		sub, ok := v.(Object)
		if !ok && m.bareID == nil {
			return sandbox.InvalidField(m.path)
		}
		if m.pointer {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		if !ok {
			return m.bareID.fill(v, dst.FieldByIndex(m.bareID.index))
		}
		return fillMembers(sub, m.members, dst)
	case kArray:
		return m.fillArray(v, dst)
	case kInt, kCount:
		n, ok := m.integer(v)
		if !ok {
			return sandbox.InvalidField(m.path)
		}
		dst.SetInt(int64(n))
		return nil
	case kBool:
		b, ok := v.(bool)
		if !ok {
			return sandbox.InvalidField(m.path)
		}
		if m.pointer {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		dst.SetBool(b)
		return nil
	}
	s, err := m.text(v)
	if err != nil {
		return err
	}
	dst.SetString(s)
	return nil
}

func (m *member) fillArray(v any, dst reflect.Value) error {
	arr, ok := v.([]any)
	if !ok && m.orOne {
		one := reflect.MakeSlice(dst.Type(), 1, 1)
		if err := m.elem.fill(v, one.Index(0)); err != nil {
			return err
		}
		dst.Set(one)
		return nil
	}
	if !ok || (m.max > 0 && len(arr) > m.max) {
		return sandbox.InvalidField(m.path)
	}
	all := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
	for i, e := range arr {
		if e == nil {
			return sandbox.InvalidField(m.path)
		}
		if err := m.elem.fill(e, all.Index(i)); err != nil {
			return err
		}
	}
	dst.Set(all)
	return nil
}

// integer reads a JSON integer (or, kCount, a string of digits) within m's range.
func (m *member) integer(v any) (int, bool) {
	var text string
	switch n := v.(type) {
	case json.Number:
		text = n.String()
	case string:
		if m.kind != kCount {
			return 0, false
		}
		text = n
	default:
		return 0, false
	}
	if !sandbox.AllDigits(text) || len(text) > 9 {
		return 0, false // negative, fractional, exponent or absurdly large
	}
	n, _ := strconv.Atoi(text) // at most 9 digits: cannot fail
	return n, n >= m.min && (m.max == 0 || n <= m.max)
}

// text reads a string member: sensible text of the right length and form.
func (m *member) text(v any) (string, error) {
	if n, ok := v.(json.Number); ok && m.kind == kScalar {
		v = n.String()
	}
	s, ok := v.(string)
	if !ok || !ValidText(s) || !lengthOK(s, m.min, m.max) {
		return "", sandbox.InvalidField(m.path)
	}
	switch m.kind {
	case kDigits:
		ok = sandbox.AllDigits(s) || s == "" && m.min == 0 // min 0: "" stands for absent
	case kHex:
		ok = len(s)%2 == 0 && strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
	case kEnum:
		ok = slices.Contains(m.enum, s) || s == "" && m.min == 0
	case kCurrency:
		ok = sandbox.CurrencyProblem(s) == "" || s == "" && m.min == 0
	case kCountry:
		ok = sandbox.CountryProblem(s) == "" || s == "" && m.min == 0
	case kURL:
		if !absoluteHTTPURL(s) {
			return "", sandbox.InvalidURLField(m.path)
		}
	}
	if !ok {
		return "", sandbox.InvalidField(m.path)
	}
	return s, nil
}

func lengthOK(s string, min, max int) bool {
	n := utf8.RuneCountInString(s)
	return n >= min && (max == 0 || n <= max)
}

func absoluteHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

var ignoredType = reflect.TypeFor[Ignored]()

// structMembers builds the members of struct t, at index within the struct that is
// filled (embedded structs extend it), their paths under prefix.
func structMembers(t reflect.Type, prefix string, index []int) []member {
	var members []member
	for i := range t.NumField() {
		sf := t.Field(i)
		at := append(slices.Clip(index), i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		rules, hasRules := sf.Tag.Lookup("gp")
		switch {
		case sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct && !hasRules:
			members = append(members, structMembers(sf.Type, prefix, at)...)
			continue
		case name == "" || name == "-":
			panic(fmt.Sprintf("request %s: field %s has no json name", t, sf.Name))
		case !sf.IsExported():
			panic(fmt.Sprintf("request %s: member %q is an unexported field", t, name))
		}
		m, err := newMember(sf.Type, name, prefix+name, rules)
		if err != nil {
			panic(fmt.Sprintf("request %s: member %q: %v", t, name, err))
		}
		m.index = at
		members = append(members, m)
	}
	for i, m := range members {
		if lookup(members[:i], m.name) != nil {
			panic(fmt.Sprintf("request %s: member %q declared twice", t, m.path))
		}
	}
	return members
}

// newMember builds the member name of Go type t from its gp tag.
func newMember(t reflect.Type, name, path, tag string) (member, error) {
	m := member{name: name, path: path, inner: path + "."}
	if t == ignoredType {
		if tag != "" {
			return m, fmt.Errorf("an ignored member takes no rules")
		}
		m.kind = kAny
		return m, nil
	}
	r, err := parseRules(tag)
	if err != nil {
		return m, err
	}
	m.required, m.min, m.max = r.has["required"], r.min, r.max
	if t.Kind() == reflect.Pointer && (t.Elem().Kind() == reflect.Struct || t.Elem().Kind() == reflect.Bool) {
		m.pointer, t = true, t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		err = r.only("required", "min", "max", "digits", "hex", "url", "currency", "country", "enum", "or-number", "own-name")
		m.kind, m.enum = r.stringKind(), r.enum
		if !r.has["min"] {
			m.min = 1
		}
		if r.has["own-name"] {
			m.path = name
		}
	case reflect.Int:
		err = r.only("required", "min", "max", "or-string")
		m.kind = kInt
		if r.has["or-string"] {
			m.kind = kCount
		}
	case reflect.Bool:
		err = r.only("required")
		m.kind = kBool
	case reflect.Struct:
		err = r.only("required", "or-id")
		m.kind, m.members = kObject, structMembers(t, m.inner, nil)
		if r.has["or-id"] {
			err = m.allowBareID()
		}
	case reflect.Slice:
		err = m.array(t.Elem(), r)
	default:
		err = fmt.Errorf("a %s cannot hold a JSON member", t)
	}
	return m, err
}

// array makes m an array of elements of type et.
func (m *member) array(et reflect.Type, r rules) error {
	m.kind, m.orOne = kArray, r.has["or-one"]
	elem := member{name: m.name, path: m.path, inner: m.inner}
	switch et.Kind() {
	case reflect.String:
		elem.kind, elem.enum, elem.min, elem.max = r.stringKind(), r.enum, 1, 255
		m.elem = &elem
		return r.only("required", "max", "digits", "hex", "url", "enum", "or-one")
	case reflect.Struct:
		elem.kind, elem.members = kObject, structMembers(et, m.inner, nil)
		m.elem, m.members = &elem, elem.members
		return r.only("required", "max", "or-one")
	}
	return fmt.Errorf("an array of %s", et)
}

// allowBareID lets object m come as its id member's value alone, judged by that
// member's rules and named by m's path.
func (m *member) allowBareID() error {
	id := lookup(m.members, "id")
	if id == nil || id.kind > kScalar {
		return fmt.Errorf("or-id needs a string member id")
	}
	bare := *id
	bare.path = m.path
	m.bareID = &bare
	return nil
}

// Enum is the values the gp tag of t's field allows (its enum rule): what a list
// filter on the same member takes, declared once, where the request declares it. A
// field that is not there, or whose tag does not parse, is a programming error the
// first test finds: Enum panics.
func Enum(t reflect.Type, field string) []string {
	f, ok := t.FieldByName(field)
	if !ok {
		panic(fmt.Sprintf("web.Enum: %s has no field %s", t, field))
	}
	r, err := parseRules(f.Tag.Get("gp"))
	if err != nil || r.enum == nil {
		panic(fmt.Sprintf("web.Enum: %s.%s has no enum rule (%v)", t, field, err))
	}
	return r.enum
}

// rules is a parsed gp tag.
type rules struct {
	has      map[string]bool // the rules given, by name
	min, max int
	enum     []string
}

func parseRules(tag string) (rules, error) {
	r := rules{has: map[string]bool{}}
	if tag == "" {
		return r, nil
	}
	for _, rule := range strings.Split(tag, ",") {
		name, value, hasValue := strings.Cut(rule, "=")
		var err error
		switch name {
		case "required", "digits", "hex", "url", "currency", "country", "or-number", "or-string", "or-id", "or-one", "own-name":
			if hasValue {
				err = fmt.Errorf("rule %q takes no value", name)
			}
		case "min", "max":
			n, convErr := strconv.Atoi(value)
			if convErr != nil || n < 0 {
				err = fmt.Errorf("rule %q needs a number", rule)
			}
			if name == "min" {
				r.min = n
			} else {
				r.max = n
			}
		case "enum":
			r.enum = strings.Split(value, "|")
			if value == "" || slices.Contains(r.enum, "") {
				err = fmt.Errorf("rule %q has an empty value", rule)
			}
		default:
			err = fmt.Errorf("unknown rule %q", rule)
		}
		if err == nil && r.has[name] {
			err = fmt.Errorf("rule %q given twice", name)
		}
		if err != nil {
			return r, err
		}
		r.has[name] = true
	}
	forms := 0
	for _, form := range []string{"digits", "hex", "url", "currency", "country", "enum", "or-number"} {
		if r.has[form] {
			forms++
		}
	}
	if forms > 1 {
		return r, fmt.Errorf("more than one of digits, hex, url, currency, country, enum, or-number")
	}
	return r, nil
}

// only refuses a rule the member's Go type cannot take.
func (r rules) only(allowed ...string) error {
	for name := range r.has {
		if !slices.Contains(allowed, name) {
			return fmt.Errorf("rule %q does not fit its Go type", name)
		}
	}
	return nil
}

// stringKind is the kind of a string member with these rules.
func (r rules) stringKind() kind {
	switch {
	case r.has["digits"]:
		return kDigits
	case r.has["hex"]:
		return kHex
	case r.has["url"]:
		return kURL
	case r.has["currency"]:
		return kCurrency
	case r.has["country"]:
		return kCountry
	case r.has["enum"]:
		return kEnum
	case r.has["or-number"]:
		return kScalar
	}
	return kText
}
