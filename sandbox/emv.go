package sandbox

import (
	"encoding/hex"
	"strings"
)

// emvCardTags are the EMV tags whose value is card data: 5A (PAN), 57 (track 2
// equivalent), 56 (track 1), 9F6B (track 2 of a contactless magstripe), 9F1F and 9F20
// (track discretionary data), 99 (transaction PIN data).
var emvCardTags = map[string]bool{"5A": true, "57": true, "56": true, "9F6B": true, "9F1F": true, "9F20": true, "99": true}

// MaskEMVData masks the card data of EMV TLV data written in hex: the value of each
// card-data tag is replaced by '*' characters (the PAN of tag 5A keeps its first six
// and last four digits), every other tag is kept as sent (amounts and counters are
// digit runs that are no card number). Data that does not parse as TLV is redacted
// whole: a card number may hide anywhere in it.
func MaskEMVData(tlv string) string {
	raw, err := hex.DecodeString(tlv)
	if err != nil {
		return Redacted
	}
	var out strings.Builder
	for i := 0; i < len(raw); {
		tag, length, value, next, ok := nextTLV(raw, i)
		if !ok {
			return Redacted
		}
		out.WriteString(strings.ToUpper(hex.EncodeToString(raw[i:value])))
		out.WriteString(maskTLVValue(tag, strings.ToUpper(hex.EncodeToString(raw[value:value+length]))))
		i = next
	}
	return out.String()
}

func maskTLVValue(tag, value string) string {
	switch {
	case tag == "5A":
		return MaskCardNumber(value)
	case emvCardTags[tag]:
		return strings.Repeat("*", len(value))
	}
	return value
}

// nextTLV reads the TLV item at raw[i]: its tag in hex, the length of its value, where
// the value starts and where the next item starts.
func nextTLV(raw []byte, i int) (tag string, length, value, next int, ok bool) {
	j := i + 1
	if raw[i]&0x1F == 0x1F { // multi-byte tag: continues while bit 8 is set
		for j < len(raw) && raw[j]&0x80 != 0 {
			j++
		}
		j++
	}
	if j >= len(raw) {
		return "", 0, 0, 0, false
	}
	tag = strings.ToUpper(hex.EncodeToString(raw[i:j]))
	length = int(raw[j])
	j++
	if length&0x80 != 0 { // long form: the low bits count the length bytes
		n := length & 0x7F
		if n == 0 || n > 2 || j+n > len(raw) {
			return "", 0, 0, 0, false
		}
		length = 0
		for _, b := range raw[j : j+n] {
			length = length<<8 | int(b)
		}
		j += n
	}
	if j+length > len(raw) {
		return "", 0, 0, 0, false
	}
	return tag, length, j, j + length, true
}
