package carddata

import (
	"bytes"
	"encoding/hex"
	"strings"
)

// emvCardTags are the EMV tags whose value is card data: 5A (PAN), 57 (track 2
// equivalent), 56 (track 1), 9F6B (track 2 of a contactless magstripe), 9F1F and 9F20
// (track discretionary data), 99 (transaction PIN data). 5F20, the cardholder name,
// is kept: a name is not card data to the sandbox, in EMV data as in any name field.
var emvCardTags = map[string]bool{"5A": true, "57": true, "56": true, "9F6B": true, "9F1F": true, "9F20": true, "99": true}

// MaskEMV masks the card data of EMV TLV data written in hex, at any depth: the
// items of a constructed tag (a template such as 70 or 77) are masked as the top level
// is. The value of each card-data tag is replaced by '*' characters (the PAN of tag 5A
// keeps its first six and last four digits); every other value is kept, but for card
// numbers written in it (see Mask). Data that does not parse as TLV is
// redacted whole, and so is a constructed value that does not: a card number may
// hide anywhere in it. Masking masked data changes nothing.
func MaskEMV(tlv string) string {
	raw, err := hex.DecodeString(tlv)
	if err != nil {
		if strings.Trim(tlv, "0123456789ABCDEFabcdef*") == "" {
			// Masked already (a record is masked again whenever it is written): no
			// longer TLV, but any card number left in it is masked as free text.
			return Mask(tlv)
		}
		return Redacted
	}
	var out strings.Builder
	if !maskTLVItems(&out, raw, 0) {
		return Redacted
	}
	return out.String()
}

// interacRID is the registered application provider id of Interac, Canada's debit
// scheme: an Interac chip application is a debit card's.
var interacRID = []byte{0xA0, 0x00, 0x00, 0x02, 0x77}

// InteracChip reports whether EMV TLV data in hex names an Interac application: its
// application identifier (4F, 84 or 9F06, at the top level) starts with Interac's RID.
func InteracChip(tlv string) bool {
	raw, err := hex.DecodeString(tlv)
	if err != nil {
		return false
	}
	for i := 0; i < len(raw); {
		tag, length, value, next, ok := nextTLV(raw, i)
		if !ok {
			return false
		}
		if (tag == "4F" || tag == "84" || tag == "9F06") && bytes.HasPrefix(raw[value:value+length], interacRID) {
			return true
		}
		i = next
	}
	return false
}

// maxEMVDepth bounds the nesting a constructed value is read to; deeper, it is
// masked whole.
const maxEMVDepth = 8

// maskTLVItems writes the TLV items of raw, masked, as upper-case hex; false when raw
// is not a sequence of TLV items.
func maskTLVItems(out *strings.Builder, raw []byte, depth int) bool {
	for i := 0; i < len(raw); {
		tag, length, value, next, ok := nextTLV(raw, i)
		if !ok {
			return false
		}
		out.WriteString(strings.ToUpper(hex.EncodeToString(raw[i:value])))
		v := raw[value : value+length]
		switch constructed := raw[i]&0x20 != 0; {
		case constructed && depth < maxEMVDepth:
			var inner strings.Builder
			if maskTLVItems(&inner, v, depth+1) {
				out.WriteString(inner.String())
			} else {
				out.WriteString(strings.Repeat("*", 2*len(v)))
			}
		case constructed:
			out.WriteString(strings.Repeat("*", 2*len(v)))
		default:
			out.WriteString(maskTLVValue(tag, strings.ToUpper(hex.EncodeToString(v))))
		}
		i = next
	}
	return true
}

func maskTLVValue(tag, value string) string {
	switch {
	case tag == "5A":
		return MaskNumber(value)
	case emvCardTags[tag]:
		return strings.Repeat("*", len(value))
	}
	return Mask(value)
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
