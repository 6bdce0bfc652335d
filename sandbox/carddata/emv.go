package carddata

import (
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
// numbers written in it (see Mask). Data that does not parse as TLV is redacted whole,
// and so is a constructed value that does not: a card number may hide anywhere in it.
// The data is read as text, a '*' standing for a hidden digit of a value, so that
// data masked before still reads as TLV: masking it again changes nothing.
func MaskEMV(tlv string) string {
	var out strings.Builder
	if !maskTLVItems(&out, strings.ToUpper(tlv), 0) {
		return Redacted
	}
	return out.String()
}

// interacRID is the registered application provider id of Interac, Canada's debit
// scheme, in hex: an Interac chip application is a debit card's.
const interacRID = "A000000277"

// InteracChip reports whether EMV TLV data in hex names an Interac application: its
// application identifier (4F, 84 or 9F06, at the top level) starts with Interac's RID.
func InteracChip(tlv string) bool {
	tlv = strings.ToUpper(tlv)
	for i := 0; i < len(tlv); {
		item, ok := nextTLV(tlv, i)
		if !ok {
			return false
		}
		if (item.tag == "4F" || item.tag == "84" || item.tag == "9F06") && strings.HasPrefix(tlv[item.value:item.next], interacRID) {
			return true
		}
		i = item.next
	}
	return false
}

// maxEMVDepth bounds the nesting a constructed value is read to; deeper, it is
// masked whole.
const maxEMVDepth = 8

// maskTLVItems writes the TLV items of hex text (upper case), masked; false when text
// is not a sequence of TLV items.
func maskTLVItems(out *strings.Builder, text string, depth int) bool {
	for i := 0; i < len(text); {
		item, ok := nextTLV(text, i)
		if !ok {
			return false
		}
		out.WriteString(text[i:item.value])
		v := text[item.value:item.next]
		switch {
		case item.constructed && depth < maxEMVDepth:
			var inner strings.Builder
			if maskTLVItems(&inner, v, depth+1) {
				out.WriteString(inner.String())
			} else {
				out.WriteString(strings.Repeat("*", len(v)))
			}
		case item.constructed:
			out.WriteString(strings.Repeat("*", len(v)))
		default:
			out.WriteString(maskTLVValue(item.tag, v))
		}
		i = item.next
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

// tlvItem is one TLV item of hex text: its tag in hex, whether it is constructed,
// where its value starts and where the next item starts (offsets in the text).
type tlvItem struct {
	tag         string
	constructed bool
	value, next int
}

// nextTLV reads the TLV item at text[i]. Its tag and length must be hex; its value
// may also hold '*', a digit masked before.
func nextTLV(text string, i int) (tlvItem, bool) {
	first, ok := hexByte(text, i)
	if !ok {
		return tlvItem{}, false
	}
	j := i + 2
	if first&0x1F == 0x1F { // multi-byte tag: continues while bit 8 is set
		for {
			b, ok := hexByte(text, j)
			if !ok {
				return tlvItem{}, false
			}
			j += 2
			if b&0x80 == 0 {
				break
			}
		}
	}
	item := tlvItem{tag: text[i:j], constructed: first&0x20 != 0}
	length, ok := hexByte(text, j)
	if !ok {
		return tlvItem{}, false
	}
	j += 2
	if length&0x80 != 0 { // long form: the low bits count the length bytes
		n := int(length & 0x7F)
		if n == 0 || n > 2 {
			return tlvItem{}, false
		}
		total := 0
		for range n {
			b, ok := hexByte(text, j)
			if !ok {
				return tlvItem{}, false
			}
			total, j = total<<8|int(b), j+2
		}
		item.value, item.next = j, j+2*total
	} else {
		item.value, item.next = j, j+2*int(length)
	}
	if item.next > len(text) || strings.Trim(text[item.value:item.next], "0123456789ABCDEF*") != "" {
		return tlvItem{}, false
	}
	return item, true
}

// hexByte reads the byte written in upper-case hex at text[i:i+2].
func hexByte(text string, i int) (byte, bool) {
	if i+2 > len(text) {
		return 0, false
	}
	var b [1]byte
	if _, err := hex.Decode(b[:], []byte(text[i:i+2])); err != nil {
		return 0, false
	}
	return b[0], true
}
