package api

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// Decoding a checked body into its typed request without parsing it a second time:
// the field table's check already holds the body as an object, and json.Unmarshal
// of the same bytes was a third of what reading a request cost. The fill follows
// json.Unmarshal's rules for what a typed request holds (strings, ints, bools,
// count, oneOrMany, structs and pointers to them, slices); for anything else it
// gives up, and the body is decoded by json.Unmarshal as before. typedbody_test.go
// holds the two to the same results for every operation's table.

// memberIndex maps each struct type a typed request holds to its JSON members: the
// field index of each member name, embedded structs' members included.
type memberIndex map[reflect.Type]map[string][]int

// newMemberIndex indexes the struct types reachable from t.
func newMemberIndex(t reflect.Type) memberIndex {
	idx := memberIndex{}
	idx.add(t)
	return idx
}

func (idx memberIndex) add(t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		idx.add(t.Elem())
	case reflect.Struct:
		if _, done := idx[t]; done {
			return
		}
		members := map[string][]int{}
		idx[t] = members
		idx.addMembers(t, nil, members, map[string]bool{})
	}
}

// addMembers adds t's members to members, under the index path prefix. A name seen
// twice is dropped (json.Unmarshal would pick by depth and tags): a body naming it
// is decoded by json.Unmarshal.
func (idx memberIndex) addMembers(t reflect.Type, prefix []int, members map[string][]int, seen map[string]bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		path := append(append([]int(nil), prefix...), i)
		switch {
		case sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct:
			idx.addMembers(sf.Type, path, members, seen)
		case sf.IsExported() && name != "" && name != "-" && !strings.Contains(opts, "string"):
			if seen[name] {
				delete(members, name)
				continue
			}
			seen[name] = true
			members[name] = path
			idx.add(sf.Type)
		}
	}
}

var (
	countType     = reflect.TypeFor[count]()
	oneOrManyType = reflect.TypeFor[interface{ oneOrMany() }]()
	unmarshaler   = reflect.TypeFor[json.Unmarshaler]()
	textDecoder   = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fill sets dst, a zero value, to what json.Unmarshal makes of v's JSON, and
// reports false where it does not know that for sure.
func (idx memberIndex) fill(dst reflect.Value, v any) bool {
	t := dst.Type()
	switch {
	case v == nil:
		return true // null leaves a zero value as it is
	case t == countType:
		return fillCount(dst, v)
	case t.Implements(oneOrManyType):
		if _, single := v.(object); single {
			v = []any{v}
		}
	case reflect.PointerTo(t).Implements(unmarshaler), reflect.PointerTo(t).Implements(textDecoder):
		return false // decodes itself: json.Unmarshal knows how
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := reflect.New(t.Elem())
		if !idx.fill(elem.Elem(), v) {
			return false
		}
		dst.Set(elem)
	case reflect.Struct:
		return idx.fillStruct(dst, v)
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return false
		}
		s := reflect.MakeSlice(t, len(arr), len(arr))
		for i, e := range arr {
			if !idx.fill(s.Index(i), e) {
				return false
			}
		}
		dst.Set(s)
	case reflect.String:
		s, ok := v.(string)
		dst.SetString(s)
		return ok
	case reflect.Bool:
		b, ok := v.(bool)
		dst.SetBool(b)
		return ok
	case reflect.Int:
		n, ok := v.(json.Number)
		i, err := strconv.Atoi(string(n))
		dst.SetInt(int64(i))
		return ok && err == nil
	default:
		return false
	}
	return true
}

func (idx memberIndex) fillStruct(dst reflect.Value, v any) bool {
	obj, ok := v.(object)
	members, known := idx[dst.Type()]
	if !ok || !known {
		return false
	}
	for name, mv := range obj {
		path, ok := members[name]
		if !ok || !idx.fill(dst.FieldByIndex(path), mv) {
			return false // an unknown name would be matched regardless of case
		}
	}
	return true
}

// fillCount is count.UnmarshalJSON for a parsed value: a number, or a string of
// digits.
func fillCount(dst reflect.Value, v any) bool {
	var text string
	switch v := v.(type) {
	case json.Number:
		text = string(v)
	case string:
		text = v
	default:
		return false
	}
	n, err := strconv.Atoi(text)
	dst.SetInt(int64(n))
	return err == nil
}
