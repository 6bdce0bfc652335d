package yamlfile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// maxAliasNodes bounds the nodes one decoder visits through aliases. Aliases are
// expanded where they are used, so a few lines of anchors can stand for billions of
// nodes ("billion laughs"); nodes written out count once each and are not bounded.
const maxAliasNodes = 100_000

// checker is implemented by the named scalar types of a schema (ids, amounts, times,
// enums): check returns what is wrong with the value, or "" when it is valid.
type checker interface{ check() string }

// timestampText marks string types whose value may be written unquoted although YAML
// reads it as a timestamp (time_created: 2021-03-24T02:02:27.158Z). Their check
// validates the exact text, so nothing is converted behind the writer's back.
type timestampText interface{ timestampText() }

// scalarForm is implemented (on the pointer) by types that may also be written as a
// single scalar: an outcome written as "pass", a list of operations written as one
// name. setScalar reads the scalar and returns what is wrong with it, or "".
type scalarForm interface {
	setScalar(n *yaml.Node) string
}

// location is where a decoded value was written and its path in the document.
type location struct {
	node *yaml.Node
	path string
}

// decoder decodes yaml.Node trees into Go values strictly, collecting problems with
// their positions instead of stopping at the first one.
//
// Targets are structs whose exported fields carry `yaml:"name"` or
// `yaml:"name,required"` tags, slices, maps with string keys, pointers (absent or null
// means nil), strings (only YAML strings: 1000, 12.75, true or null are refused, not
// converted), bools (only true/false) and integers (only plain decimal: no 010 octal,
// 0x1F, 1_000 or 12.75). Named types implementing checker are validated after
// decoding. Unknown keys, duplicate keys and missing required keys are problems; a
// required string must also be non-empty.
//
// The decoder remembers where each addressable value came from, so that checks made
// after decoding (duplicates, references) can point at the right line and column.
type decoder struct {
	file       string
	problems   Problems
	locs       map[any]location
	aliasNodes int                 // nodes visited through aliases
	expanding  map[*yaml.Node]bool // aliases being expanded, to refuse cycles
	structs    map[reflect.Type]structFields
	partial    bool // the document's own required keys may be left out (nested ones may not)
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, locs: map[any]location{}, expanding: map[*yaml.Node]bool{},
		structs: map[reflect.Type]structFields{}}
}

// decode decodes n into the value out points to, named path in problems ("" for the
// document root).
func (d *decoder) decode(n *yaml.Node, path string, out any) {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic(fmt.Sprintf("yamlfile: decode into %T, want a non-nil pointer", out))
	}
	if len(d.locs) == 0 {
		// One location per node: sizing the map once spares a large fixture file
		// the rehashing of a map grown a few entries at a time.
		d.locs = make(map[any]location, countNodes(n))
	}
	d.value(n, path, v.Elem())
}

// countNodes counts the nodes of a tree, not following aliases.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, child := range n.Content {
		c += countNodes(child)
	}
	return c
}

// at returns where the value ptr points to was written. ptr must point into a value
// this decoder decoded (a field, a slice element); ok is false otherwise.
func (d *decoder) at(ptr any) (location, bool) {
	l, ok := d.locs[ptr]
	return l, ok
}

// problem builds a problem at n, prefixing the message with path when there is one.
func (d *decoder) problem(n *yaml.Node, path, format string, args ...any) Problem {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return Problem{File: d.file, Line: n.Line, Col: n.Column, Message: msg}
}

// refused reports whether a problem was found at n already: a check of its value
// then says nothing more, so that one slip brings no follow-on message.
func (d *decoder) refused(n *yaml.Node) bool {
	for _, p := range d.problems {
		if p.Line == n.Line && p.Col == n.Column {
			return true
		}
	}
	return false
}

func (d *decoder) addf(n *yaml.Node, path, format string, args ...any) {
	d.problems = append(d.problems, d.problem(n, path, format, args...))
}

// value decodes n into v and reports whether it did so without a problem.
func (d *decoder) value(n *yaml.Node, path string, v reflect.Value) bool {
	if len(d.expanding) > 0 || n.Kind == yaml.AliasNode {
		if d.aliasNodes++; d.aliasNodes > maxAliasNodes {
			if d.aliasNodes == maxAliasNodes+1 {
				d.addf(n, path, "aliases expand to more than %d nodes", maxAliasNodes)
			}
			return false
		}
	}
	if v.CanAddr() {
		d.locs[v.Addr().Interface()] = location{node: n, path: path}
	}
	if n.Kind == yaml.AliasNode {
		if d.expanding[n] || n.Alias == nil {
			d.addf(n, path, "alias *%s refers to itself", n.Value)
			return false
		}
		d.expanding[n] = true
		defer delete(d.expanding, n)
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && !isNull(n) && v.CanAddr() {
		if sf, isScalarForm := v.Addr().Interface().(scalarForm); isScalarForm {
			if msg := sf.setScalar(n); msg != "" {
				d.addf(n, path, "%s", msg)
				return false
			}
			return true
		}
	}
	var ok bool
	switch v.Kind() {
	case reflect.Interface:
		ok = d.anyValue(n, path, v)
	case reflect.Pointer:
		if isNull(n) {
			v.SetZero()
			return true
		}
		p := reflect.New(v.Type().Elem())
		if ok = d.value(n, path, p.Elem()); ok {
			v.Set(p)
		}
		return ok
	case reflect.Struct:
		ok = d.object(n, path, v)
	case reflect.Slice:
		ok = d.sequence(n, path, v)
	case reflect.Map:
		ok = d.mapping(n, path, v)
	case reflect.String:
		ok = d.str(n, path, v)
	case reflect.Bool:
		ok = d.boolean(n, path, v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		ok = d.integer(n, path, v)
	default:
		panic(fmt.Sprintf("yamlfile: cannot decode into %s", v.Type()))
	}
	if ok {
		if c, isChecker := v.Interface().(checker); isChecker {
			if msg := c.check(); msg != "" {
				d.addf(n, path, "%s", msg)
				return false
			}
		}
	}
	return ok
}

// field is a struct field a mapping key decodes into.
type field struct {
	index    int
	required bool
}

// structFields are the yaml-tagged exported fields of a struct type: by key, and
// their keys in order.
type structFields struct {
	byKey map[string]field
	keys  []string
}

// fields lists the fields of a struct type, once per type and decoder: a fixture set
// of many records would otherwise reflect over the same types again for each.
func (d *decoder) fields(t reflect.Type) structFields {
	if sf, ok := d.structs[t]; ok {
		return sf
	}
	sf := structFields{byKey: map[string]field{}}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		sf.byKey[name] = field{index: i, required: opts == "required"}
		sf.keys = append(sf.keys, name)
	}
	d.structs[t] = sf
	return sf
}

// object decodes a mapping into a struct. Null counts as an empty mapping, so that a
// list item written as a bare "-" still reports its missing required keys.
func (d *decoder) object(n *yaml.Node, path string, v reflect.Value) bool {
	if !isNull(n) && n.Kind != yaml.MappingNode {
		d.addf(n, path, "expected a mapping, got %s", describe(n))
		return false
	}
	sf := d.fields(v.Type())
	byKey, keys := sf.byKey, sf.keys
	seen := make(map[string]bool, len(keys))
	ok := true
	for k, val := range d.pairs(n, path) {
		f, known := byKey[k.Value]
		if !known {
			d.addf(k, path, "unknown key %q", carddata.Excerpt(k.Value))
			ok = false
			continue
		}
		seen[k.Value] = true
		fv := v.Field(f.index)
		if !d.value(val, join(path, k.Value), fv) {
			ok = false
			continue
		}
		if _, isChecker := fv.Interface().(checker); f.required && !isChecker && fv.Kind() == reflect.String && fv.String() == "" {
			d.addf(val, join(path, k.Value), "must not be empty")
			ok = false
		}
	}
	for _, key := range keys {
		if _, present := seen[key]; byKey[key].required && !present && !(d.partial && path == "") {
			d.addf(n, path, "missing required key %q", key)
			ok = false
		}
	}
	return ok
}

// pairs yields the key and value nodes of a mapping whose keys are unique strings,
// reporting the others.
func (d *decoder) pairs(n *yaml.Node, path string) func(yield func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		if n.Kind != yaml.MappingNode {
			return
		}
		var first map[string]*yaml.Node // built only for large mappings: small ones scan
		if len(n.Content) > 32 {
			first = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			switch {
			case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
				d.addf(k, path, "merge keys (<<) are not supported")
				continue
			case k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str":
				d.addf(k, path, "expected a string key, got %s", describe(k))
				continue
			}
			if prev := earlierKey(n.Content[:i], k.Value, first); prev != nil {
				d.addf(k, path, "duplicate key %q (first at line %d)", carddata.Excerpt(k.Value), prev.Line)
				continue
			}
			if first != nil {
				first[k.Value] = k
			}
			if !yield(k, val) {
				return
			}
		}
	}
}

// earlierKey finds a key written before, among the keys of content (a mapping's
// content up to the current pair) or, when given, in the index of a large mapping.
func earlierKey(content []*yaml.Node, key string, index map[string]*yaml.Node) *yaml.Node {
	if index != nil {
		return index[key]
	}
	for i := 0; i+1 < len(content); i += 2 {
		k := content[i]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Value == key && k.Kind == yaml.ScalarNode {
			return k
		}
	}
	return nil
}

// sequence decodes a list into a slice; null is an empty list.
func (d *decoder) sequence(n *yaml.Node, path string, v reflect.Value) bool {
	if isNull(n) {
		v.SetZero()
		return true
	}
	if n.Kind != yaml.SequenceNode {
		d.addf(n, path, "expected a list, got %s", describe(n))
		return false
	}
	// Allocate once, before decoding, so that the element addresses the decoder
	// remembers stay those of the final slice.
	v.Set(reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content)))
	ok := true
	for i, item := range n.Content {
		if !d.value(item, fmt.Sprintf("%s[%d]", path, i), v.Index(i)) {
			ok = false
		}
	}
	return ok
}

// mapping decodes a mapping into a map with string keys; null is an empty map.
func (d *decoder) mapping(n *yaml.Node, path string, v reflect.Value) bool {
	if v.Type().Key().Kind() != reflect.String {
		panic(fmt.Sprintf("yamlfile: cannot decode into %s: keys must be strings", v.Type()))
	}
	if isNull(n) {
		v.SetZero()
		return true
	}
	if n.Kind != yaml.MappingNode {
		d.addf(n, path, "expected a mapping, got %s", describe(n))
		return false
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	ok := true
	for k, val := range d.pairs(n, path) {
		key := reflect.New(v.Type().Key()).Elem()
		key.SetString(k.Value)
		if c, isChecker := key.Interface().(checker); isChecker {
			if msg := c.check(); msg != "" {
				d.addf(k, path, "key %q: %s", carddata.Excerpt(k.Value), msg)
				ok = false
				continue
			}
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if !d.value(val, join(path, k.Value), elem) {
			ok = false
			continue
		}
		m.SetMapIndex(key, elem)
	}
	v.Set(m)
	return ok
}

// anyValue decodes n into an empty interface as JSON would hold it: mappings with
// string keys become map[string]any, lists []any, numbers json.Number (only numbers
// JSON can write), strings, booleans and null themselves. A timestamp stays its text.
func (d *decoder) anyValue(n *yaml.Node, path string, v reflect.Value) bool {
	if v.NumMethod() != 0 {
		panic(fmt.Sprintf("yamlfile: cannot decode into %s", v.Type()))
	}
	var out any
	ok := true
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for k, val := range d.pairs(n, path) {
			var x any
			if !d.value(val, join(path, k.Value), reflect.ValueOf(&x).Elem()) {
				ok = false
			}
			m[k.Value] = x
		}
		out = m
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, item := range n.Content {
			if !d.value(item, fmt.Sprintf("%s[%d]", path, i), reflect.ValueOf(&list[i]).Elem()) {
				ok = false
			}
		}
		out = list
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
		case "!!str", "!!timestamp":
			out = n.Value
		case "!!bool":
			var b bool
			ok = d.boolean(n, path, reflect.ValueOf(&b).Elem())
			out = b
		case "!!int", "!!float":
			if !json.Valid([]byte(n.Value)) || (n.ShortTag() == "!!int" && !isDecimal(n.Value)) {
				d.addf(n, path, "expected a number as JSON writes it, got %s", carddata.Excerpt(n.Value))
				return false
			}
			out = json.Number(n.Value)
		default:
			d.addf(n, path, "expected a JSON value, got %s", describe(n))
			return false
		}
	default:
		d.addf(n, path, "expected a JSON value, got %s", describe(n))
		return false
	}
	if out == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(out))
	}
	return ok
}

func (d *decoder) str(n *yaml.Node, path string, v reflect.Value) bool {
	if n.Kind != yaml.ScalarNode {
		d.addf(n, path, "expected a string, got %s", describe(n))
		return false
	}
	tag := n.ShortTag()
	_, timestampOK := v.Interface().(timestampText)
	if tag != "!!str" && !(tag == "!!timestamp" && timestampOK) {
		hint := ""
		switch tag {
		case "!!int", "!!float", "!!bool", "!!timestamp":
			hint = "; write it in quotes"
		}
		d.addf(n, path, "expected a string, got %s%s", describe(n), hint)
		return false
	}
	v.SetString(n.Value)
	return true
}

func (d *decoder) boolean(n *yaml.Node, path string, v reflect.Value) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.addf(n, path, "expected true or false, got %s", describe(n))
		return false
	}
	switch strings.ToLower(n.Value) {
	case "true":
		v.SetBool(true)
	case "false":
		v.SetBool(false)
	default: // "!!bool yes"
		d.addf(n, path, "expected true or false, got %q", carddata.Excerpt(n.Value))
		return false
	}
	return true
}

func (d *decoder) integer(n *yaml.Node, path string, v reflect.Value) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.addf(n, path, "expected an integer, got %s", describe(n))
		return false
	}
	if !isDecimal(n.Value) {
		d.addf(n, path, "expected a plain decimal integer, got %s (leading zeros, octal, hex and _ are not accepted)", carddata.Excerpt(n.Value))
		return false
	}
	i, err := strconv.ParseInt(n.Value, 10, v.Type().Bits())
	if err != nil {
		d.addf(n, path, "integer %s is out of range", carddata.Excerpt(n.Value))
		return false
	}
	v.SetInt(i)
	return true
}

// isDecimal reports whether s is an optionally signed decimal integer without leading
// zeros: YAML 1.1 readers take 010 for octal 8, yaml v3 among them.
func isDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what a node holds, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!str":
		return fmt.Sprintf("the string %q", carddata.Excerpt(n.Value))
	case "!!int", "!!float":
		return "the number " + carddata.Excerpt(n.Value)
	case "!!bool":
		return "the boolean " + carddata.Excerpt(n.Value)
	case "!!timestamp":
		return "the timestamp " + carddata.Excerpt(n.Value)
	default:
		// Escaped: a custom tag may hold any character, even a line break.
		quoted := strconv.Quote(carddata.Excerpt(n.ShortTag()))
		return fmt.Sprintf("a %s value", quoted[1:len(quoted)-1])
	}
}

// join appends a key to a path: "apps[0]" + "id" = "apps[0].id".
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
