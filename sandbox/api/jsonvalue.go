package api

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseJSON parses raw, which must hold exactly one JSON value and nothing but white
// space around it, into what encoding/json's Decoder with UseNumber decodes into an
// any: objects as map[string]any (the last of duplicate members wins), arrays as
// []any, numbers as json.Number as written, strings with invalid UTF-8 and unpaired
// surrogate escapes replaced by U+FFFD, and no more than maxJSONDepth levels of
// nesting. It accepts and refuses exactly the inputs the Decoder does
// (jsonvalue_test.go compares them), in a single pass without the Decoder's
// buffers and reflection: every request body is parsed with it.
func parseJSON(raw []byte) (any, error) {
	p := jsonParser{in: raw}
	p.space()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.space(); p.i != len(p.in) {
		return nil, errJSONSyntax
	}
	return v, nil
}

// maxJSONDepth is encoding/json's nesting limit: deeper input is a syntax error.
const maxJSONDepth = 10000

var errJSONSyntax = errors.New("invalid JSON")

type jsonParser struct {
	in    []byte
	i     int
	depth int
}

func (p *jsonParser) space() {
	for p.i < len(p.in) {
		switch p.in[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (any, error) {
	if p.i >= len(p.in) {
		return nil, errJSONSyntax
	}
	switch c := p.in[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.string()
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, errJSONSyntax
}

func (p *jsonParser) literal(word string) error {
	if len(p.in)-p.i < len(word) || string(p.in[p.i:p.i+len(word)]) != word {
		return errJSONSyntax
	}
	p.i += len(word)
	return nil
}

// nest enters an object or array, refusing input nested deeper than encoding/json
// takes.
func (p *jsonParser) nest() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return errJSONSyntax
	}
	p.i++ // the opening brace or bracket
	p.space()
	return nil
}

func (p *jsonParser) object() (any, error) {
	if err := p.nest(); err != nil {
		return nil, err
	}
	obj := object{}
	if p.i < len(p.in) && p.in[p.i] == '}' {
		p.i++
		p.depth--
		return obj, nil
	}
	for {
		if p.i >= len(p.in) || p.in[p.i] != '"' {
			return nil, errJSONSyntax
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if p.space(); p.i >= len(p.in) || p.in[p.i] != ':' {
			return nil, errJSONSyntax
		}
		p.i++
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		obj[key] = v
		if done, err := p.next('}'); done || err != nil {
			return obj, err
		}
	}
}

func (p *jsonParser) array() (any, error) {
	if err := p.nest(); err != nil {
		return nil, err
	}
	arr := []any{}
	if p.i < len(p.in) && p.in[p.i] == ']' {
		p.i++
		p.depth--
		return arr, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		if done, err := p.next(']'); done || err != nil {
			return arr, err
		}
	}
}

// next reads what follows a member or element: a comma (then white space), or the
// closing byte, which ends the object or array.
func (p *jsonParser) next(closing byte) (done bool, err error) {
	p.space()
	if p.i >= len(p.in) {
		return false, errJSONSyntax
	}
	switch p.in[p.i] {
	case ',':
		p.i++
		p.space()
		return false, nil
	case closing:
		p.i++
		p.depth--
		return true, nil
	}
	return false, errJSONSyntax
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? as written.
func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.in[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.in) && p.in[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return nil, errJSONSyntax
	}
	if p.i < len(p.in) && p.in[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, errJSONSyntax
		}
	}
	if p.i < len(p.in) && (p.in[p.i] == 'e' || p.in[p.i] == 'E') {
		p.i++
		if p.i < len(p.in) && (p.in[p.i] == '+' || p.in[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, errJSONSyntax
		}
	}
	return json.Number(p.in[start:p.i]), nil
}

func (p *jsonParser) digits() int {
	n := 0
	for p.i < len(p.in) && '0' <= p.in[p.i] && p.in[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// string reads a quoted string. Most need no unescaping: they are copied once.
func (p *jsonParser) string() (string, error) {
	p.i++ // the opening quote
	start := p.i
	for p.i < len(p.in) {
		c := p.in[p.i]
		switch {
		case c == '"':
			s := string(p.in[start:p.i])
			p.i++
			return s, nil
		case c == '\\' || c < ' ':
			return p.unescape(start)
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, size := utf8.DecodeRune(p.in[p.i:])
			if r == utf8.RuneError && size == 1 {
				return p.unescape(start)
			}
			p.i += size
		}
	}
	return "", errJSONSyntax
}

// unescape finishes a string from p.i, with what lies from start to p.i copied as
// it is: escapes decoded, each byte that is not UTF-8 replaced by U+FFFD, as is a
// \u escape of a surrogate that does not pair with the next.
func (p *jsonParser) unescape(start int) (string, error) {
	out := make([]byte, 0, p.i-start+16)
	out = append(out, p.in[start:p.i]...)
	for p.i < len(p.in) {
		c := p.in[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < ' ':
			return "", errJSONSyntax
		case c == '\\':
			var err error
			if out, err = p.escape(out); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.in[p.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, p.in[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
	return "", errJSONSyntax
}

// escape decodes the escape at p.i onto out.
func (p *jsonParser) escape(out []byte) ([]byte, error) {
	if p.i+1 >= len(p.in) {
		return nil, errJSONSyntax
	}
	switch c := p.in[p.i+1]; c {
	case '"', '\\', '/':
		p.i += 2
		return append(out, c), nil
	case 'b', 'f', 'n', 'r', 't':
		p.i += 2
		return append(out, "\b\f\n\r\t"[strings.IndexByte("bfnrt", c)]), nil
	case 'u':
	default:
		return nil, errJSONSyntax
	}
	r := hex4(p.in[p.i+2:])
	if r < 0 {
		return nil, errJSONSyntax
	}
	p.i += 6
	if utf16.IsSurrogate(r) {
		next := rune(-1)
		if p.i+1 < len(p.in) && p.in[p.i] == '\\' && p.in[p.i+1] == 'u' {
			next = hex4(p.in[p.i+2:])
		}
		if pair := utf16.DecodeRune(r, next); pair != utf8.RuneError {
			p.i += 6
			return utf8.AppendRune(out, pair), nil
		}
		r = utf8.RuneError // the next escape, if any, is read on its own
	}
	return utf8.AppendRune(out, r), nil
}

// hex4 reads four hex digits, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
