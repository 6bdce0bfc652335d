package sandbox

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Card data never reaches the store, the log or the request journal in clear. The
// helpers here are the one place that knows what card data looks like:
//
//   - MaskCardData masks free text: card numbers written with or without spaces or
//     dashes, and magnetic-stripe track data.
//   - MaskCardDataJSON masks a whole request body, valid JSON or not, compact or
//     pretty-printed, whole or cut short: the value of every sensitive member (CVV,
//     PIN block, track data, secrets; any case, any spelling of the separators) and
//     card data anywhere else.
//   - MaskCardNumber and MaskEMVData mask a value known to be a card number or EMV
//     TLV data, for request conversions that keep such a field.

// Redacted replaces a secret value: a CVV, a PIN block, track data, a credential.
const Redacted = "[REDACTED]"

// maskChar replaces each hidden digit of a card number.
const maskChar = '*'

// trackData matches magnetic-stripe data: track 1 (%B<pan>^<name>^<yymm>...?) and
// track 2 (;<pan>=<yymm>...?, or the EMV form <pan>D<yymm>...), sentinels optional.
var trackData = regexp.MustCompile(`%?[Bb][0-9]{12,19}\^[^^\n"]{0,30}\^[0-9]{4}[^?\n"]{0,79}\??` +
	`|;?[0-9]{12,19}[=Dd][0-9]{4}[0-9A-Fa-f]{0,40}\??`)

// MaskCardData returns text with its card data masked: track data is replaced by
// [REDACTED], and a card number keeps at most its first six and last four digits.
// A card number is 12 to 19 digits, in one run or in groups separated by spaces or
// dashes, that pass the Luhn check (so that dates, phone numbers and identifiers stay
// readable, as are the all-digit parts of identifiers).
func MaskCardData(text string) string {
	cardLike, trackLike := scanDigitRuns(text)
	if !cardLike {
		return text // fast path: no card number has fewer than four digits in a row
	}
	if trackLike {
		text = trackData.ReplaceAllString(text, Redacted)
	}
	if !hasCardNumber(text) {
		return text // the usual case: digit runs, none of them a card number
	}
	return string(maskCardNumbers([]byte(text)))
}

// cardDataFree reports whether MaskCardData leaves s as it is. It allocates nothing,
// so the masker can keep a token without copying it.
func cardDataFree[T string | []byte](s T) bool {
	cardLike, trackLike := scanDigitRuns(s)
	return !cardLike || !trackLike && !hasCardNumber(s)
}

// scanDigitRuns reads s once and reports whether it holds four digits in a row
// (cardLike: no card number has fewer) and what every match of trackData has: a run
// of twelve digits or more followed by '^' (track 1) or by '=', 'D' or 'd' (track 2).
// Running the expression only when trackLike keeps it off the sandbox's own ids, whose
// long digit runs (TRN_CapturedSale000000000000000001) would otherwise send every
// request path through it: it was a twentieth of the CPU of an adjustment.
func scanDigitRuns[T string | []byte](s T) (cardLike, trackLike bool) {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) {
			if run++; run >= 4 {
				cardLike = true
			}
			continue
		}
		if run >= 12 && (c == '^' || c == '=' || c == 'D' || c == 'd') {
			return true, true
		}
		run = 0
	}
	return cardLike, false
}

// digitGroup is a run of digits in a text: b[start:end].
type digitGroup struct{ start, end int }

// maskCardNumbers masks, in place, every card number of b (see MaskCardData).
func maskCardNumbers(b []byte) []byte {
	for i := 0; i < len(b); {
		if !isDigit(b[i]) {
			i++
			continue
		}
		groups := digitGroups(nil, b, i)
		maskGroups(b, groups)
		i = groups[len(groups)-1].end
	}
	return b
}

// hasCardNumber reports whether maskCardNumbers would mask anything in s. It reads
// the same groups and judges them by the same rule (cardNumbers), without a copy.
func hasCardNumber[T string | []byte](s T) bool {
	var scratch [8]digitGroup
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		groups := digitGroups(scratch[:0], s, i)
		if cardNumbers(s, groups, nil) {
			return true
		}
		i = groups[len(groups)-1].end
	}
	return false
}

// digitGroups appends to groups the digit groups starting at b[i], as long as they
// are joined by one to three spaces or dashes.
func digitGroups[T string | []byte](groups []digitGroup, b T, i int) []digitGroup {
	for {
		g := digitGroup{start: i}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		g.end = i
		groups = append(groups, g)
		j := i
		for j < len(b) && j-i < 3 && (b[j] == ' ' || b[j] == '-') {
			j++
		}
		if j == i || j >= len(b) || !isDigit(b[j]) {
			return groups
		}
		i = j
	}
}

// maskGroups masks every card number among groups (see cardNumbers).
func maskGroups(b []byte, groups []digitGroup) {
	hide := make([]bool, countDigits(groups))
	cardNumbers(b, groups, hide)
	k := 0
	for _, g := range groups {
		for p := g.start; p < g.end; p++ {
			if hide[k] {
				b[p] = maskChar
			}
			k++
		}
	}
}

// cardNumbers finds every sequence of groups that could be a card number: 12 to 19
// digits passing the Luhn check, in one group or in groups of three digits or more
// (cards are written 4-4-4-4, 4-6-5, 4-6-4), and marks in hide (one entry per digit)
// the digits to mask: all but the first six and the last four. Every such sequence
// is marked, not only the first: a date before a card number may pass the check by
// chance, and must not hide the card number after it. A sequence holds at most 19
// groups: the work is linear. With hide nil it only reports whether there is one.
func cardNumbers[T string | []byte](b T, groups []digitGroup, hide []bool) (found bool) {
	first := 0 // index in hide of the first digit of groups[i]
	for i := range groups {
		digits := 0
		for j := i; j < len(groups); j++ {
			n := groups[j].end - groups[j].start
			if digits += n; digits > 19 || j > i && (n < 3 || groups[i].end-groups[i].start < 3) {
				break
			}
			if digits >= 12 && luhnValid(b, groups[i:j+1]) {
				if hide == nil {
					return true
				}
				found = true
				for k := first + 6; k < first+digits-4; k++ {
					hide[k] = true
				}
			}
		}
		first += groups[i].end - groups[i].start
	}
	return found
}

func countDigits(groups []digitGroup) int {
	n := 0
	for _, g := range groups {
		n += g.end - g.start
	}
	return n
}

// luhnValid reports whether the digits of groups, read as one number, pass the Luhn
// check. It walks them from the last, in place.
func luhnValid[T string | []byte](b T, groups []digitGroup) bool {
	sum, i := 0, 0 // i: the digit's position counted from the last
	for g := len(groups) - 1; g >= 0; g-- {
		for p := groups[g].end - 1; p >= groups[g].start; p-- {
			d := int(b[p] - '0')
			if i%2 == 1 {
				if d *= 2; d > 9 {
					d -= 9
				}
			}
			sum += d
			i++
		}
	}
	return sum%10 == 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// keyClass is what a member name says about its value.
type keyClass int

const (
	keyPlain      keyClass = iota
	keySecret              // CVV, PIN block, track data, credentials: redacted whole
	keyCardNumber          // a card number: first six and last four kept
	keyEMV                 // EMV TLV data: sensitive tags masked
)

// secretKeys are member names, lower case without separators, whose value is a secret.
var secretKeys = map[string]bool{
	"cvv": true, "cvv2": true, "cvc": true, "cvc2": true, "cvn": true, "cid": true, "csc": true,
	"securitycode": true, "cardsecuritycode": true, "cardverificationvalue": true,
	"pin": true, "pinblock": true, "encryptedpin": true, "pindata": true, "epb": true,
	"track": true, "track1": true, "track2": true, "track3": true, "trackdata": true,
	"track1data": true, "track2data": true, "track3data": true, "magstripe": true,
	"magneticstripe": true, "stripedata": true, "secret": true, "password": true,
}

var cardNumberKeys = map[string]bool{"pan": true, "cardnumber": true, "primaryaccountnumber": true}

var emvKeys = map[string]bool{"emvtag": true, "emvdata": true, "emvtags": true, "iccdata": true, "chipdata": true}

// classifyKey classifies a member name in any case and with any separators; parent is
// the name of the enclosing object ("number" is a card number inside "card"). Every
// member of every journaled body is classified: a usual name is normalized on the
// stack, without a string of its own.
func classifyKey(name, parent []byte) keyClass {
	var scratch [32]byte
	k := string(appendNormalizedKey(scratch[:0], name)) // does not escape: on the stack
	switch {
	case secretKeys[k], strings.Contains(k, "cvv"), strings.Contains(k, "cvc"),
		strings.Contains(k, "securitycode"), strings.Contains(k, "pinblock"):
		return keySecret
	case cardNumberKeys[k], k == "number" && isCardKey(parent):
		return keyCardNumber
	case emvKeys[k], k == "tag" && isCardKey(parent):
		return keyEMV
	}
	return keyPlain
}

// isCardKey reports whether a member name normalizes to "card".
func isCardKey(name []byte) bool {
	var scratch [32]byte
	return string(appendNormalizedKey(scratch[:0], name)) == "card"
}

// appendNormalizedKey appends normalizeKey(name) to dst. An ASCII name is lowered
// here byte by byte, which is what strings.ToLower does to ASCII; any other goes
// through normalizeKey (some runes lower to ASCII letters: K, the Kelvin sign, is k).
func appendNormalizedKey(dst, name []byte) []byte {
	for _, c := range name {
		if c >= utf8.RuneSelf {
			return append(dst, normalizeKey(string(name))...)
		}
	}
	for _, c := range name {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			dst = append(dst, c)
		}
	}
	return dst
}

// normalizeKey lowers a member name and drops everything but letters and digits, so
// that "CVV", "Security-Code" and "pin_block" are recognised.
func normalizeKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maskValueAs masks a decoded member value according to its key class.
func maskValueAs(class keyClass, v string) string {
	switch class {
	case keySecret:
		return Redacted
	case keyCardNumber:
		return MaskCardNumber(v)
	case keyEMV:
		return MaskEMVData(v)
	}
	return MaskCardData(v)
}

// MaskCardDataJSON returns a request body with its card data masked. It reads the
// body as JSON but tolerates anything (syntax errors, a body cut short, text that is
// not JSON at all, key=value forms): the value of every sensitive member is masked
// according to its name, and card data anywhere else as MaskCardData does. A body
// that was valid JSON stays valid JSON, with the same layout.
func MaskCardDataJSON(raw []byte) []byte {
	in := raw
	if _, trackLike := scanDigitRuns(raw); trackLike {
		in = trackData.ReplaceAll(raw, []byte(Redacted))
	}
	m := jsonMasker{in: in, out: make([]byte, 0, len(raw)+16)}
	m.run()
	return m.out
}

// jsonMasker is a forgiving JSON tokenizer that copies its input, masking values.
// Member names are kept as the input's own bytes when they need no decoding.
type jsonMasker struct {
	in, out []byte
	parents [][]byte // member name of each open object or array
	key     []byte   // the member name whose value comes next
	hasKey  bool
}

func (m *jsonMasker) run() {
	for i := 0; i < len(m.in); {
		switch c := m.in[i]; {
		case c == '"':
			i = m.quoted(i)
		case c == '{' || c == '[':
			m.parents = append(m.parents, m.key)
			m.key, m.hasKey = nil, false
			m.out = append(m.out, c)
			i++
		case c == '}' || c == ']':
			if len(m.parents) > 0 {
				m.parents = m.parents[:len(m.parents)-1]
			}
			m.key, m.hasKey = nil, false
			m.out = append(m.out, c)
			i++
		case c == ',' || c == '&':
			m.key, m.hasKey = nil, false
			m.out = append(m.out, c)
			i++
		case isBareDelimiter(c):
			m.out = append(m.out, c)
			i++
		default:
			i = m.bare(i)
		}
	}
}

// isBareDelimiter reports the bytes that end a bare (unquoted) token.
func isBareDelimiter(c byte) bool {
	return strings.IndexByte("\"{}[],:=&; \t\r\n", c) >= 0
}

// quoted handles the string starting at in[i] and returns the index after it.
func (m *jsonMasker) quoted(i int) int {
	end := stringEnd(m.in, i)
	tok := m.in[i:end]
	if m.followedByKeySeparator(end) {
		m.key, m.hasKey = keyText(tok), true
		m.out = append(m.out, maskStringToken(tok, keyPlain)...)
		return end
	}
	m.out = append(m.out, maskStringToken(tok, m.class())...)
	m.key, m.hasKey = nil, false
	return end
}

// bare handles an unquoted token (a number, a literal, a word of a non-JSON body).
func (m *jsonMasker) bare(i int) int {
	end := i
	for end < len(m.in) && !isBareDelimiter(m.in[end]) {
		end++
	}
	if m.followedByKeySeparator(end) {
		m.key, m.hasKey = m.in[i:end], true
		m.out = append(m.out, MaskCardData(string(m.key))...)
		return end
	}
	class := m.class()
	if class == keyPlain && cardDataFree(m.in[i:end]) {
		m.out = append(m.out, m.in[i:end]...) // a number, a literal: kept as sent
		m.key, m.hasKey = nil, false
		return end
	}
	tok := string(m.in[i:end])
	masked := maskValueAs(class, tok)
	if class != keyPlain || masked != tok {
		// A number cannot hold masking characters: the masked value becomes a string.
		masked = quote(masked)
	}
	m.out = append(m.out, masked...)
	m.key, m.hasKey = nil, false
	return end
}

// class is the key class of the value about to be read.
func (m *jsonMasker) class() keyClass {
	if !m.hasKey {
		return keyPlain
	}
	var parent []byte
	if len(m.parents) > 0 {
		parent = m.parents[len(m.parents)-1]
	}
	return classifyKey(m.key, parent)
}

// followedByKeySeparator reports whether the token ending at end is a member name:
// the next non-space byte is ':' (JSON) or '=' (a form or a query string).
func (m *jsonMasker) followedByKeySeparator(end int) bool {
	for j := end; j < len(m.in); j++ {
		switch m.in[j] {
		case ' ', '\t', '\r', '\n':
			continue
		case ':', '=':
			return true
		}
		return false
	}
	return false
}

// stringEnd returns the index after the string starting at in[i] (a quote), or the
// end of the input when the string is not closed.
func stringEnd(in []byte, i int) int {
	for j := i + 1; j < len(in); j++ {
		switch in[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(in)
}

// keyText is decodeJSONString of a member name, as the token's own bytes when it
// needs no decoding.
func keyText(tok []byte) []byte {
	if len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' && plainASCII(tok[1:len(tok)-1]) {
		return tok[1 : len(tok)-1]
	}
	return []byte(decodeJSONString(tok))
}

// decodeJSONString returns the text of a quoted token; a token that does not decode
// (unclosed, bad escape) is taken as it is written.
func decodeJSONString(tok []byte) string {
	if s, ok := unquote(tok); ok {
		return s
	}
	return strings.TrimPrefix(string(tok), `"`)
}

// unquote decodes a quoted JSON string token; ok is false when it is not one. Most
// tokens are plain ASCII without escapes, read here without encoding/json: every
// journaled body goes through the masker, two tokens per member, and decoding each
// with json.Unmarshal made masking a 25-byte body cost as much as routing it.
func unquote(tok []byte) (s string, ok bool) {
	if len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' && plainASCII(tok[1:len(tok)-1]) {
		return string(tok[1 : len(tok)-1]), true
	}
	return s, json.Unmarshal(tok, &s) == nil
}

// plainASCII reports whether b is printable ASCII without quotes or backslashes: the
// text of a JSON string that needs no decoding.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// maskStringToken masks a quoted token as a value of class, keeping it a valid JSON
// string when it was one.
func maskStringToken(tok []byte, class keyClass) []byte {
	if class == keyPlain && len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' {
		if text := tok[1 : len(tok)-1]; plainASCII(text) && cardDataFree(text) {
			return tok // the usual member: plain text without card data, kept as sent
		}
	}
	s, ok := unquote(tok)
	if !ok {
		// Unclosed or malformed: mask the raw text, keeping its opening quote.
		return append([]byte{'"'}, maskValueAs(class, string(tok[1:]))...)
	}
	masked := maskValueAs(class, s)
	if masked == s && bytes.IndexByte(tok, '\\') < 0 {
		return tok // untouched: keep the bytes as sent
	}
	return []byte(quote(masked))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
