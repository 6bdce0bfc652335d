package carddata

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bodies that are not JSON: which the masker can read member by member (a form), and
// how a form and a URL escape are read.

// Readable reports whether MaskJSON can read a body's members, and so mask it by
// them: JSON, valid or not, whole or cut (an object or an array as it starts, or a
// whole scalar), or a form (key=value pairs, escaped, no spaces but a trailing line
// break). Other text (XML, a multipart body, words) holds members it cannot tell
// apart: a CVV there is a few digits like any others, so such a body is not to be
// shown at all.
func Readable(body []byte) bool { return looksJSON(body) || isForm(body) }

// looksJSON reports whether a body is JSON or starts as an object or an array does.
func looksJSON(body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] == '{' || trimmed[0] == '[' {
		return true
	}
	return json.Valid(trimmed) // a string, a number, a literal
}

// isForm reports whether a body that is no JSON is a form.
func isForm(body []byte) bool {
	pairs := bytes.TrimRight(body, "\r\n")
	return !looksJSON(body) && bytes.IndexByte(pairs, '=') > 0 &&
		bytes.IndexFunc(pairs, func(r rune) bool { return r <= ' ' || r == '<' }) < 0
}

// maskForm masks a form pair by pair. A name and a value are unescaped apart (+ and
// %20 are spaces, so a card number written with them reads as one) and never read
// again as a form, so an escaped & or = stays in its value. The value is masked by
// its name, a bracketed one read as formClass reads it (card[cvv], card[cvv][] and
// cvv[0] are a CVV). What masking leaves alone is shown as sent, escapes and all, so that
// reference=a%26b reads as one pair; what it changed is shown masked, in quotes.
func maskForm(body []byte, showIdentifiers bool) []byte {
	out := make([]byte, 0, len(body)+16)
	for i, pair := range bytes.Split(bytes.TrimRight(body, "\r\n"), []byte("&")) {
		if i > 0 {
			out = append(out, '&')
		}
		// Track 2 holds an =: a pair is read whole first, as sent and unescaped (an
		// escape can hide a track, and %B4 undone is no longer track 1's start).
		if trackData.Match(pair) || trackData.MatchString(unescapeValid(string(pair), true)) {
			out = append(out, Redacted...)
			continue
		}
		rawName, rawValue, hasValue := bytes.Cut(pair, []byte("="))
		name := unescapeValid(string(rawName), true)
		out = append(out, asSentUnlessMasked(string(rawName), name, Mask)...)
		if !hasValue {
			continue
		}
		out = append(out, '=')
		class := formClass(name)
		if class == keyIdentifier && !showIdentifiers {
			class = keyPlain
		}
		value := unescapeValid(string(rawValue), true)
		out = append(out, asSentUnlessMasked(string(rawValue), value, func(s string) string {
			return maskValueAs(class, s)
		})...)
	}
	return out
}

// asSentUnlessMasked is how a form shows one of its names or values: raw, as sent,
// when mask changes neither it nor its unescaped text. Else it is shown masked and
// quoted: the unescaped text when masking changed that, the raw text when only the
// raw text held something to mask (digits an escape joins, …%2111…, read apart
// once the escape is undone).
func asSentUnlessMasked(raw, unescaped string, mask func(string) string) string {
	shown := mask(unescaped)
	switch maskedRaw := mask(raw); {
	case shown != unescaped:
		return quote(shown)
	case maskedRaw != raw:
		return quote(maskedRaw)
	}
	return raw
}

// formClass classifies a form's name as JSON's members are, a bracketed part at a
// time: card[cvv] is cvv in card, an index is an element of the array the name
// before it names (cvv[0] and card[cvv][] are a CVV), and each part's value is
// classed by valueClass, as in JSON (cvv[value] is a CVV, emv_data[pin_block] a
// secret).
func formClass(name string) keyClass {
	class, within, parent := keyPlain, keyPlain, ""
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '[' || r == ']' }) {
		if strings.Trim(part, "0123456789") == "" {
			class = class.inside() // an index
		} else {
			class, parent = valueClass(classifyKey([]byte(part), []byte(parent)), within), part
		}
		if class.holdsCard() {
			within = class
		}
	}
	if parent == "" {
		return classifyKey([]byte(name), nil) // no part, or indexes only: the name as it is
	}
	return class
}

// unescapeValid undoes the URL escapes of s that are escapes, a % and two hex
// digits, and keeps any other % as written (url's unescaping refuses the whole text
// for one stray %: "50% off"); with plus, a + is a space, as in a form. Escapes of
// bytes from 80 on are undone only when what they make is UTF-8: otherwise they are
// kept as written, so that track 1's %B4… (a lone byte B4 undone) still reads as
// the start of a track.
func unescapeValid(s string, plus bool) string {
	if strings.IndexByte(s, '%') < 0 && (!plus || strings.IndexByte(s, '+') < 0) {
		return s
	}
	if all := unescape(s, plus, true); utf8.ValidString(all) || !utf8.ValidString(s) {
		return all
	}
	return unescape(s, plus, false)
}

// unescape undoes the escapes of s as unescapeValid says, those of bytes from 80 on
// only with high.
func unescape(s string, plus, high bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) && (high || s[i+1] < '8'):
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8) // two hex digits: cannot fail
			b.WriteByte(byte(v))
			i += 2
		case c == '+' && plus:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
