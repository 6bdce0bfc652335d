// Package carddata is the one place that knows what card data looks like, so that
// none reaches the store, the log or the request journal in clear. It is pure and
// imports the standard library only:
//
//   - Mask masks free text: card numbers written with or without spaces or
//     dashes, and magnetic-stripe track data.
//   - MaskJSON masks a whole request body, valid JSON or a form, compact or
//     pretty-printed, whole or cut short: the value of every sensitive member (CVV,
//     PIN block, track data, secrets; any case, any spelling of the separators) and
//     card data anywhere else, an id's, a reference's or a URL's read as cards are
//     numbered (identifiers.go; forms in forms.go).
//   - MaskNumber and MaskEMV mask a value known to be a card number or EMV
//     TLV data, for request conversions that keep such a field.
//   - Readable tells whether MaskJSON can read a body's members at all, and
//     WithoutCutValue drops the last value of a body cut short.
//   - TrackNumbers reads the masked card numbers of tracks, which tell two tracks
//     apart once both are masked.
//   - KeyWithout keeps a key a client chose storable, HoldsCardData and NoneIn tell
//     whether text holds card data, IdentifierHoldsCardNumber whether an id does,
//     InteracChip reads an EMV application id.
//   - Excerpt quotes a value a user wrote in a message (a scenario's or a
//     fixture's problem, an unknown name): masked, then cut short.
package carddata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"iter"
	"math/bits"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted replaces a secret value: a CVV, a PIN block, track data, a credential.
const Redacted = "[REDACTED]"

// MaskNumber keeps the first six and last four digits of a card number, and the
// spaces or dashes between its groups as written.
func MaskNumber(number string) string {
	separator := func(r rune) bool { return unicode.IsSpace(r) || r == '-' }
	n := 0
	for _, r := range number {
		if !separator(r) {
			n++
		}
	}
	if n <= 10 {
		return strings.Repeat("*", utf8.RuneCountInString(number))
	}
	var b strings.Builder
	k := 0
	for _, r := range number {
		if !separator(r) {
			if k++; k > 6 && k <= n-4 {
				r = maskChar
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// maskChar replaces each hidden digit of a card number.
const maskChar = '*'

// trackData matches magnetic-stripe data: track 1 (%B<pan>^<name>^<yymm>...?) and
// track 2 (;<pan>=<yymm>...?, or the EMV form <pan>D<yymm>...), sentinels optional.
// The name is not held to track 1's 26 characters: a longer one must not leave the
// expiry, service code and discretionary data after it in clear; nor is a quote
// escaped in JSON the end of it, nor a space or a dash in the number.
var trackData = regexp.MustCompile(`%?[Bb]?[0-9](?:[ \x{a0}-]?[0-9]){11,18}\^(?:[^^\n"\\]|\\.){0,200}\^[0-9]{4}(?:[^?\n"\\]|\\.){0,79}\??` +
	`|;?[0-9](?:[ -]?[0-9]){11,18}[=Dd][0-9]{4}[0-9A-Fa-f]{0,40}\??`)

// TrackNumbers returns the card number of each track in text, masked (MaskNumber):
// what tells two tracks apart once both are [REDACTED].
func TrackNumbers(text string) []string {
	var numbers []string
	for _, track := range trackData.FindAllString(text, -1) {
		var digits []byte
		for i := 0; i < len(track) && (len(digits) == 0 || isDigit(track[i]) || track[i] == ' ' || track[i] == '-'); i++ {
			if isDigit(track[i]) {
				digits = append(digits, track[i])
			}
		}
		numbers = append(numbers, MaskNumber(string(digits)))
	}
	return numbers
}

// Mask returns text with its card data masked: track data is replaced by
// [REDACTED], and every card number keeps at most its first six and last four digits.
// A card number is 12 to 19 digits passing the Luhn check and not starting with 0,
// however it is written: in one run, in groups of any size separated by runs of
// spaces (any Unicode space), dots, dashes, underscores or slashes, in any Unicode
// decimal digits (fullwidth ones included), or inside a longer run of digits (a card
// number followed by its expiry, or hex of an EMV 5A tag: the BCD of a card number is
// its digits). Every such sequence is masked, overlapping ones included, so that a
// date before a card number, say, cannot hide it; dates, phone numbers and the
// sandbox's ids have no such sequence and stay readable, and a UUID standing alone
// (8-4-4-4-12 hex digits) is an id, read as no card number.
func Mask(text string) string { return maskEachLevel(text, maskPlain) }

// maskEachLevel masks text as written with mask, then again each time its URL escapes
// are undone (up to maxEscapeDepth times: an answer echoing an escaped path keeps the
// path's own escapes, %2534 reads %34, then 4), each level masked before the next is
// decoded, so that no decoding can join what a mask split (%25 then 41 reads %41,
// then A). Card data written with escapes (4195%201961%209700%200006) is card data:
// the text is shown at the deepest level masking changed, unescaped that far and
// masked; text no level holds card data in is kept as written. mask redacts track
// data; a track written with escapes (its ^ as %5E) is read from the level it first
// shows whole at, since masking its number above that level would leave the rest of
// it (a name, discretionary data) unread as a track.
func maskEachLevel(text string, mask func(string) string) string {
	shown, level, depth := text, text, 0
	if deep := decodedFully(text); deep != text && hasTrack(deep) {
		for ; !hasTrack(level); depth++ {
			level, _ = unescapedOnce(level)
		}
	}
	// The text shown is read maxEscapeDepth levels below itself, whatever level it is:
	// shown at level 4, what level 5 holds is one decoding away from a reader.
	for horizon := depth + maxEscapeDepth; ; depth++ {
		if masked := mask(level); masked != level {
			shown, level, horizon = masked, masked, min(depth+maxEscapeDepth, maxShownDepth)
		}
		next, ok := unescapedOnce(level)
		if !ok || depth >= horizon {
			return shown
		}
		level = next
	}
}

// maxShownDepth bounds how deep the text shown may be decoded to, and so the work:
// each level reads the whole text, and a card number written at level k costs about
// 2k bytes a character to write.
const maxShownDepth = 4 * maxEscapeDepth

// decodedFully is text with its escapes undone as often as maskEachLevel undoes them.
func decodedFully(text string) string {
	for level := range escapeLevels(text) {
		text = level
	}
	return text
}

// escapeLevels yields text with its URL escapes undone once, then again, while it has
// escapes, up to maxEscapeDepth times.
func escapeLevels(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for range maxEscapeDepth {
			next, ok := unescapedOnce(text)
			if !ok || !yield(next) {
				return
			}
			text = next
		}
	}
}

// hasTrack reports whether text holds track data as written.
func hasTrack(text string) bool {
	_, trackLike := scanDigitRuns(text)
	return trackLike && trackData.MatchString(text)
}

// withoutTracks is text with its track data [REDACTED].
func withoutTracks(text string) string {
	if !hasTrack(text) {
		return text
	}
	return trackData.ReplaceAllString(text, Redacted)
}

// unescapedOnce is text with its URL escapes undone once, ok when it had any.
func unescapedOnce(text string) (string, bool) {
	if strings.IndexByte(text, '%') < 0 {
		return "", false
	}
	unescaped := unescapeValid(text, false)
	return unescaped, unescaped != text
}

// maxEscapeDepth bounds how often escapes are undone: each round reads the whole
// text, and a client escapes a value once, a path echoed back twice.
const maxEscapeDepth = 4

// maskPlain is Mask of text read as it is written.
func maskPlain(text string) string {
	cardLike, trackLike := scanDigitRuns(text)
	if !cardLike {
		return text // fast path: too few digits for a card number
	}
	if trackLike {
		text = trackData.ReplaceAllString(text, Redacted)
	}
	if !cardNumberInRuns(text) {
		return text // the usual case: digits, none of them a card number
	}
	return string(maskCardNumbers([]byte(text)))
}

// Excerpt returns a value a user wrote as a message may quote it: its card data
// masked, then cut to 40 bytes, so that a message names the value rather than echoing
// it whole. The mask comes first: a cut through a card number could leave more of its
// digits than the mask keeps, too few for Mask to know them afterwards.
func Excerpt(s string) string {
	s = Mask(s)
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// KeyWithout returns a key a client chose (an idempotency key, a session) as the
// store may keep it: as sent when it holds no card data, else "sha256:" and its
// SHA-256 in hex. Masking would not do: keys that only look like card data (a
// millisecond timestamp, a date and a counter: a tenth of them pass the Luhn check)
// would fall together once masked, and a repeat of one would be refused as the
// other's. So a key that is itself a card number is kept as a hash, which a search
// over its six hidden digits could undo: a key is no place for a card number.
func KeyWithout(key string) string {
	if NoneIn(key) {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// WithoutCutValue drops the last value of text cut short (a journaled body kept to
// its cap), back to the delimiter before it, when it holds a digit: cut, it may hold
// the first digits of a card number, too few to be read as one, however they are
// written (in a row, with + or %20 between groups, as \u escapes), which the first
// six and last four digits shown elsewhere would complete. A value without a digit
// (a long text) is kept as cut.
func WithoutCutValue(text []byte) []byte {
	i := bytes.LastIndexAny(text, `",&={}[]:`)
	if bytes.ContainsFunc(text[i+1:], func(r rune) bool { _, digit := digitValue(r); return digit || r == utf8.RuneError }) {
		return text[:i+1]
	}
	return text
}

// HoldsCardData reports whether s holds anything Mask would mask: a name a
// client chooses (a scenario's, a snapshot's) is shown, logged and journaled as it
// is, so one that does is refused rather than masked.
func HoldsCardData(s string) bool { return Mask(s) != s }

// NoneIn reports true only when Mask leaves s as it is; it may report
// false for text that merely looks like track data, which the masker then reads in
// full. Without a % it allocates nothing, so the masker can keep a token without
// copying it.
func NoneIn[T string | []byte](s T) bool {
	if !noneInPlain(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '%' { // rare: escapes, which Mask undoes level by level
			return noneInLevels(string(s))
		}
	}
	return true
}

// noneInLevels is NoneIn of each level maskEachLevel decodes text to.
func noneInLevels(text string) bool {
	for level := range escapeLevels(text) {
		if !noneInPlain(level) {
			return false
		}
	}
	return true
}

// noneInPlain is NoneIn of s read as it is written.
func noneInPlain[T string | []byte](s T) bool {
	cardLike, trackLike := scanDigitRuns(s)
	return !cardLike || !trackLike && !cardNumberInRuns(s)
}

// cardNumberInRuns is hasCardNumber read only over the runs of digits and separators
// that have twelve digits or more from their first non-zero one (the only places a
// card number can be: anything else between two digits ends the scan's sequence). An
// answer has a few such runs (a brand reference) among hundreds of bytes of ids,
// times and amounts, and the Luhn walk over every digit was most of the journal's
// work. It may find a card number where hasCardNumber would not (a UUID's last group
// of digits, read alone), never miss one it would find. Text with a byte beyond
// ASCII, which may be a digit or a space, is read whole.
func cardNumberInRuns[T string | []byte](s T) bool {
	start, significant := -1, 0 // the run's first digit; its digits from the first non-zero one
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			c := s[i]
			switch {
			case c >= utf8.RuneSelf:
				return hasCardNumber(s)
			case isDigit(c):
				if start < 0 {
					start = i
				}
				if significant > 0 || c != '0' {
					significant++
				}
				continue
			case isCardSeparator(rune(c)):
				continue
			}
		}
		if significant >= minCardDigits && hasCardNumberIn(s, start, i) {
			return true
		}
		start, significant = -1, 0
	}
	return false
}

// scanDigitRuns reads s once and reports whether it may hold a card number (cardLike:
// a sequence of digits joined by separators with twelve digits or more from its
// first non-zero one, or any non-ASCII byte, which may be a Unicode digit or space)
// and what every match of trackData has: a run of twelve digits or more followed by
// '^' (track 1) or by '=', 'D' or 'd' (track 2). Running the expression only when
// trackLike keeps it off the sandbox's own ids, whose long digit runs
// (TRN_CapturedSale000000000000000001) would otherwise send every request path
// through it; counting a sequence from its first non-zero digit lets those ids,
// times and amounts, and so most answers, pass without the card-number scan.
func scanDigitRuns[T string | []byte](s T) (cardLike, trackLike bool) {
	// Digits in a row; digits of the sequence from its first non-zero one; all digits of
	// the sequence (a track's number may start with 0 and be grouped).
	run, significant, grouped := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) {
			run++
			grouped++
			if significant > 0 || c != '0' {
				if significant++; significant >= minCardDigits {
					cardLike = true
				}
			}
			continue
		}
		if max(run, significant, grouped) >= 12 && (c == '^' || c == '=' || c == 'D' || c == 'd') {
			return true, true // after a card number's digits, in a row or grouped
		}
		switch {
		case c >= utf8.RuneSelf:
			cardLike = true
		case !isCardSeparator(rune(c)):
			significant, grouped = 0, 0
		}
		run = 0
	}
	return cardLike, false
}

// Card numbers are 12 to 19 digits long.
const (
	minCardDigits = 12
	maxCardDigits = 19
)

// cardDigit is a digit of a text: its value and the bytes s[start:end] of its rune.
type cardDigit struct {
	start, end int
	value      int
}

// cardScan reads the digits of a text one sequence at a time: digits joined by
// nothing or by separators (see isCardSeparator) form a sequence, anything else ends
// it. It keeps the last maxCardDigits digits of the sequence, which is all a card
// number ending at the newest digit can span: the work is linear and needs no memory
// of its own.
type cardScan struct {
	last [maxCardDigits]cardDigit // ring: the newest digit at last[(n-1)%maxCardDigits]
	n    int                      // digits in the sequence so far
}

// add appends a digit to the sequence and returns the lengths of the card numbers
// ending with it, as a set of bits (bit n: a card number of n digits), which back
// reads.
func (c *cardScan) add(d cardDigit) (lengths uint32) {
	c.last[c.n%maxCardDigits] = d
	c.n++
	if c.n < minCardDigits {
		return 0
	}
	sum := 0
	// Walk back from the newest digit, doubling every second one (Luhn), and judge each
	// sequence once it is long enough.
	for k := 0; k < maxCardDigits && k < c.n; k++ {
		v := c.back(k).value
		if k%2 == 1 {
			if v *= 2; v > 9 {
				v -= 9
			}
		}
		sum += v
		length := k + 1
		if length >= minCardDigits && sum%10 == 0 && c.back(k).value != 0 {
			lengths |= 1 << length
		}
	}
	return lengths
}

// back returns the digit k places before the newest.
func (c *cardScan) back(k int) cardDigit { return c.last[(c.n-1-k)%maxCardDigits] }

// next reads the rune at s[i] into the scan and returns the lengths of the card
// numbers it ends (see add) and where the next rune starts.
func (c *cardScan) next(r rune, i, size int) uint32 {
	if v, ok := digitValue(r); ok {
		return c.add(cardDigit{start: i, end: i + size, value: v})
	}
	if !isCardSeparator(r) {
		c.n = 0
	}
	return 0
}

// runeAt decodes the rune at s[i] without converting s.
func runeAt[T string | []byte](s T, i int) (rune, int) {
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], s[i:min(i+utf8.UTFMax, len(s))])
	return utf8.DecodeRune(buf[:n])
}

// digitValue is the value of a decimal digit in any script: Unicode lays each set of
// decimal digits out as ten consecutive code points from its zero.
func digitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if r < utf8.RuneSelf || !unicode.IsDigit(r) {
		return 0, false
	}
	for _, rg := range unicode.Digit.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Digit.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}

// isCardSeparator reports the runes that may stand between the digits of a card
// number: spaces of any kind (no-break and fullwidth ones, line breaks), dashes of any
// kind, dots, underscores, slashes, and invisible format characters (a zero-width
// space, a soft hyphen).
func isCardSeparator(r rune) bool {
	switch r {
	case ' ', '-', '.', '_', '/', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return r >= utf8.RuneSelf && (unicode.IsSpace(r) || unicode.In(r, unicode.Zs, unicode.Pd, unicode.Cf))
}

// hasCardNumber reports whether maskCardNumbers would mask anything in s, without a
// copy.
func hasCardNumber[T string | []byte](s T) bool { return hasCardNumberIn(s, 0, len(s)) }

// hasCardNumberIn is hasCardNumber over s[from:to], with s's bytes on either side
// still in view: whether a UUID stands alone depends on its neighbours, and a slice
// would hide them (turning an id's tail into a UUID that hides a card number).
func hasCardNumberIn[T string | []byte](s T, from, to int) bool {
	var c cardScan
	for i := from; i < to; {
		if n := uuidAt(s, i); n > 0 {
			c.n, i = 0, i+n
			continue
		}
		r, size := runeAt(s, i)
		if c.next(r, i, size) != 0 {
			return true
		}
		i += size
	}
	return false
}

// maskCardNumbers returns b with every digit of a card number but its first six and
// last four replaced by maskChar (one byte, whatever the digit's width).
func maskCardNumbers(b []byte) []byte {
	var hidden []int // start offsets of the digits to hide
	var c cardScan
	for i := 0; i < len(b); {
		if n := uuidAt(b, i); n > 0 {
			c.n, i = 0, i+n
			continue
		}
		r, size := runeAt(b, i)
		for lengths := c.next(r, i, size); lengths != 0; lengths &= lengths - 1 {
			length := bits.TrailingZeros32(lengths)
			for k := 4; k < length-6; k++ { // all but the first six and the last four
				hidden = append(hidden, c.back(k).start)
			}
		}
		i += size
	}
	if len(hidden) == 0 {
		return b
	}
	hide := make(map[int]bool, len(hidden))
	for _, p := range hidden {
		hide[p] = true
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		_, size := runeAt(b, i)
		if hide[i] {
			out = append(out, maskChar)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// uuidLength is the length of a UUID as text: 32 hex digits in groups of 8-4-4-4-12.
const uuidLength = 36

// uuidAt returns uuidLength when a UUID starts at s[i], standing alone (no letter or
// digit right before or after it), else 0. A UUID is an id, never a card number: its
// hex groups can hold digits that pass the check when read across its dashes (one
// random UUID in a hundred), and an id must read the same wherever it is shown.
func uuidAt[T string | []byte](s T, i int) int {
	end := i + uuidLength
	if end > len(s) || s[i+8] != '-' || i > 0 && isAlphanumeric(s[i-1]) || end < len(s) && isAlphanumeric(s[end]) {
		return 0
	}
	for j := i; j < end; j++ {
		switch j - i {
		case 8, 13, 18, 23:
			if s[j] != '-' {
				return 0
			}
		default:
			if !isHexDigit(s[j]) {
				return 0
			}
		}
	}
	return uuidLength
}

func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isAlphanumeric(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' }

// keyClass is what a member name says about its value.
type keyClass int

const (
	keyPlain      keyClass = iota
	keySecret              // CVV, PIN block, track data, credentials: redacted whole
	keyCardNumber          // a card number: first six and last four kept
	keyEMV                 // EMV TLV data: sensitive tags masked
	keyIdentifier          // an id, a reference, a URL: shown as sent
	keyKeyedCard           // a card as one value: a number masked as one, a name as free text
	keyInsideEMV           // a value under an EMV member's array or object
)

// holdsCard reports whether a member of this class is card data whatever its value:
// a CVV sent as ["123"] or a PIN block as {"value":…} is masked as one, each value
// under it masked as the member is.
func (class keyClass) holdsCard() bool {
	return class == keySecret || class == keyCardNumber || class == keyEMV || class == keyInsideEMV
}

// inside is the class of a value under a member of this class.
func (class keyClass) inside() keyClass {
	if class == keyEMV {
		return keyInsideEMV
	}
	return class
}

// valueClass is the class a value is masked as, in JSON and in a form alike: its own
// name's when that is a card member's (a pin_block inside an EMV or a card-number
// member stays a secret), else that of the card member it is inside, if any.
func valueClass(own, within keyClass) keyClass {
	if !own.holdsCard() && within != keyPlain {
		return within.inside()
	}
	return own
}

// secretKeys are member names, lower case without separators, whose value is a secret.
var secretKeys = map[string]bool{
	"cvv": true, "cvv2": true, "cvc": true, "cvc2": true, "cvn": true, "cid": true, "csc": true,
	"securitycode": true, "cardsecuritycode": true, "cardverificationvalue": true,
	"pin": true, "pinblock": true, "encryptedpin": true, "pindata": true, "epb": true,
	"track": true, "track1": true, "track2": true, "track3": true, "trackdata": true,
	"track1data": true, "track2data": true, "track3data": true, "magstripe": true,
	"magneticstripe": true, "stripedata": true, "secret": true, "password": true,
	"cardcode": true, "cvd": true, "token": true, "accesstoken": true, "refreshtoken": true,
	"appkey": true, "apikey": true, "privatekey": true, "sharedsecret": true,
	// A merchant's bank account number and an uploaded document's content.
	"accountnumber": true, "bankaccountnumber": true, "iban": true, "b64content": true,
}

// secretInParent are member names whose value is a secret inside the named parent:
// the key of encryption data (its ksn, the key's serial number, says nothing).
var secretInParent = map[string]string{"key": "encryption"}

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
	case strings.HasSuffix(k, "result"), strings.HasSuffix(k, "indicator"):
		return keyPlain // what a check found or a card carries (cvv_result), not a secret
	case secretKeys[k], strings.Contains(k, "cvv"), strings.Contains(k, "cvc"), strings.Contains(k, "cv2"),
		strings.Contains(k, "securitycode"), strings.Contains(k, "verificationvalue"), strings.Contains(k, "cardverification"),
		strings.HasPrefix(k, "pinbl"), strings.HasSuffix(k, "pin"):
		// Other spellings of a CVV (cv2, verification_value) and a PIN block (pinblk,
		// epin, offline_pin): a refused request's unknown member is journaled too.
		return keySecret
	case secretInParent[k] != "" && normalizedIs(parent, secretInParent[k]):
		return keySecret
	case cardNumberKeys[k], k == "number" && isCardKey(parent):
		return keyCardNumber
	case isEMVKey(k), k == "tag" && isCardKey(parent):
		return keyEMV
	case k == "card":
		// A card keyed in as one value (a terminal's presented card): a card number
		// when it is one, else the name of a test card.
		return keyKeyedCard
	case k == "id", strings.HasSuffix(k, "id"), strings.Contains(k, "reference"), k == "arn", strings.HasSuffix(k, "url"):
		return keyIdentifier
	}
	return keyPlain
}

// isEMVKey reports whether a normalized member name names EMV data: one of emvKeys,
// or a path ending in the card's tag (payment_method.card.tag).
func isEMVKey(k string) bool { return emvKeys[k] || strings.HasSuffix(k, "cardtag") }

// isCardKey reports whether a member name normalizes to "card".
func isCardKey(name []byte) bool { return normalizedIs(name, "card") }

// normalizedIs reports whether a member name normalizes to want.
func normalizedIs(name []byte, want string) bool {
	var scratch [32]byte
	return string(appendNormalizedKey(scratch[:0], name)) == want
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
		return MaskNumber(v)
	case keyEMV:
		return MaskEMV(v)
	case keyInsideEMV:
		// Then as free text, as it was read before it was known to be EMV data: a card
		// number across its items is no tag's value.
		return Mask(MaskEMV(v))
	case keyIdentifier:
		return maskIdentifier(v)
	case keyKeyedCard:
		if keyedNumber(v) {
			return MaskNumber(v)
		}
	}
	return Mask(v)
}

// keyedNumber reports whether a card keyed in as one value is a number: twelve digits
// or more (any Unicode decimal digits) and no letter, however they are spaced, whether
// or not they pass the Luhn check (a number mistyped is still most of a card's); a
// test card's name has letters.
func keyedNumber(v string) bool {
	digits := 0
	for _, r := range v {
		switch {
		case unicode.IsLetter(r):
			return false
		case unicode.IsDigit(r):
			digits++
		}
	}
	return digits >= 12
}

// MaskJSON returns a body with its card data masked, for the journal and the
// inspector. It reads the body as JSON but tolerates anything (syntax errors, a body
// cut short, text that is not JSON at all, key=value forms). A member is masked by
// its name: a card number keeps its first six and last four digits, a secret (CVV,
// PIN block, track, credentials) is [REDACTED], EMV data is masked as MaskEMV does;
// an id, a reference or a URL (a name that is or ends in id, that holds reference,
// that is arn, an acquirer reference number, that ends in url, in any case and with
// any separators) is shown as sent, as the API echoes it, a numeric reference that
// passes the Luhn check included; every other value is free text, masked as Mask
// does. Track data is redacted wherever it
// is. A body that was valid JSON stays valid JSON, with the same layout.
func MaskJSON(raw []byte) []byte { return maskJSON(raw, true) }

// maskJSON is MaskJSON; without showIdentifiers, ids, references and URLs are masked
// as free text, so that a test can check the masking finds every card number.
func maskJSON(raw []byte, showIdentifiers bool) []byte {
	if isForm(raw) {
		return maskForm(raw, showIdentifiers)
	}
	in := raw
	if _, trackLike := scanDigitRuns(raw); trackLike {
		in = redactTracksOutsideEscapes(raw)
	}
	m := jsonMasker{in: in, out: make([]byte, 0, len(raw)+16), showIdentifiers: showIdentifiers}
	m.run()
	if !NoneIn(m.out) && !json.Valid(raw) {
		// A card number spread over tokens ("4263 9700 ..." in a body that is not
		// JSON: valid JSON separates its tokens with more than spaces). The check
		// keeps a valid body's values as each was masked: the digits of an EMV tag
		// beside a masked PAN would otherwise be read as one more number.
		return maskCardNumbers(m.out)
	}
	return m.out
}

// redactTracksOutsideEscapes is raw with its track data [REDACTED], but for a match
// that starts inside a JSON escape (the b of \b4263…, the digits of \u4263…): cut
// there, the escape would no longer be one and the body no longer JSON. The value
// holding it is masked once decoded, as every value is.
func redactTracksOutsideEscapes(raw []byte) []byte {
	var out []byte
	kept := 0
	for _, m := range trackData.FindAllIndex(raw, -1) {
		if insideEscape(raw, m[0]) {
			continue
		}
		out = append(append(out, raw[kept:m[0]]...), Redacted...)
		kept = m[1]
	}
	if out == nil {
		return raw
	}
	return append(out, raw[kept:]...)
}

// insideEscape reports whether raw[i] belongs to a JSON escape: it follows an odd run
// of backslashes, or is one of the four hex digits of a \u escape.
func insideEscape(raw []byte, i int) bool {
	escapedAt := func(j int) bool { // raw[j] follows an odd run of backslashes
		n := 0
		for k := j - 1; k >= 0 && raw[k] == '\\'; k-- {
			n++
		}
		return n%2 == 1
	}
	if escapedAt(i) {
		return true
	}
	for k := 1; k <= 4 && i-k >= 0; k++ {
		if u := i - k; raw[u] == 'u' && escapedAt(u) {
			return true
		}
		if !isHexDigit(raw[i-k]) {
			return false
		}
	}
	return false
}

// jsonMasker is a forgiving JSON tokenizer that copies its input, masking values.
// Member names are kept as the input's own bytes when they need no decoding.
type jsonMasker struct {
	in, out []byte
	parents [][]byte   // member name of each open object or array; an array's for its elements
	within  []keyClass // per open object or array, the card member it is inside (holdsCard), else keyPlain
	key     []byte     // the member name whose value comes next
	hasKey  bool

	showIdentifiers bool // ids, references and URLs shown as sent (MaskJSON)
}

func (m *jsonMasker) run() {
	for i := 0; i < len(m.in); {
		switch c := m.in[i]; {
		case c == '"':
			i = m.quoted(i)
		case c == '{' || c == '[':
			m.open()
			m.out = append(m.out, c)
			i++
		case c == '}' || c == ']':
			if len(m.parents) > 0 {
				m.parents, m.within = m.parents[:len(m.parents)-1], m.within[:len(m.within)-1]
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

// open enters an object or an array: named by its member, or an element by its
// array's name ("card":[{"number":…}] holds a card number), and inside the card
// member that holds it, if any.
func (m *jsonMasker) open() {
	name, class := m.key, m.class()
	if !m.hasKey && len(m.parents) > 0 {
		name = m.parents[len(m.parents)-1]
	}
	if !class.holdsCard() {
		class = keyPlain
	}
	m.parents, m.within = append(m.parents, name), append(m.within, class)
	m.key, m.hasKey = nil, false
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
		m.out = append(m.out, Mask(string(m.key))...)
		return end
	}
	class := m.class()
	if class == keyPlain && NoneIn(m.in[i:end]) {
		m.out = append(m.out, m.in[i:end]...) // a number, a literal: kept as sent
		m.key, m.hasKey = nil, false
		return end
	}
	tok := string(m.in[i:end])
	masked := maskValueAs(class, tok)
	if masked != tok || class == keySecret || class == keyCardNumber || class == keyEMV {
		// A number cannot hold masking characters: the masked value becomes a string.
		masked = quote(masked)
	}
	m.out = append(m.out, masked...)
	m.key, m.hasKey = nil, false
	return end
}

// class is the key class of the value about to be read (valueClass).
func (m *jsonMasker) class() keyClass {
	own := keyPlain
	if m.hasKey {
		var parent []byte
		if len(m.parents) > 0 {
			parent = m.parents[len(m.parents)-1]
		}
		if own = classifyKey(m.key, parent); own == keyIdentifier && !m.showIdentifiers {
			own = keyPlain
		}
	}
	within := keyPlain
	if n := len(m.within); n > 0 {
		within = m.within[n-1]
	}
	return valueClass(own, within)
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

// unquote decodes a quoted JSON string token; ok is false when it is not one.
func unquote(tok []byte) (s string, ok bool) {
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
		if text := tok[1 : len(tok)-1]; plainASCII(text) && NoneIn(text) {
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
