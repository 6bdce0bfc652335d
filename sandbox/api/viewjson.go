package api

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The transaction views are the answer of every adjustment, capture, refund and
// reversal, so they are written by hand here rather than by encoding/json's
// reflection: marshalView writes exactly the bytes json.Marshal writes for them
// (same member order, same omitempty decisions, same string escaping), which
// viewjson_test.go checks on every shape and on random strings. A view not listed
// here goes through json.Marshal.

// marshalView renders a view as json.Marshal does. A hand-written view is built on
// the stack and copied out at its exact size: the body is kept by the journal.
func marshalView(view any) ([]byte, error) {
	var scratch [2048]byte
	switch v := view.(type) {
	case resourceView:
		return bytes.Clone(appendResourceView(scratch[:0], &v)), nil
	case documentTransactionView:
		return bytes.Clone(appendDocumentTransactionView(scratch[:0], &v)), nil
	}
	return json.Marshal(view)
}

func appendResourceView(b []byte, v *resourceView) []byte {
	b = append(b, '{')
	b = appendStringMember(b, "id", v.ID)
	b = appendStringMember(b, "time_created", v.TimeCreated)
	b = appendStringMember(b, "type", v.Type)
	b = appendStringMember(b, "status", v.Status)
	b = appendStringMember(b, "channel", v.Channel)
	b = appendOptionalMember(b, "capture_mode", v.CaptureMode)
	b = appendStringMember(b, "amount", v.Amount)
	b = appendStringMember(b, "currency", v.Currency)
	b = appendStringMember(b, "country", v.Country)
	b = appendStringMember(b, "merchant_id", v.MerchantID)
	b = appendStringMember(b, "merchant_name", v.MerchantName)
	b = appendStringMember(b, "account_id", v.AccountID)
	b = appendStringMember(b, "account_name", v.AccountName)
	b = appendOptionalMember(b, "reference", v.Reference)
	b = appendOptionalMember(b, "parent_resource_id", v.ParentResourceID)
	b = appendStringMember(b, "batch_id", v.BatchID)

	p := &v.PaymentMethod
	b = appendKey(b, "payment_method")
	b = append(b, '{')
	b = appendStringMember(b, "result", p.Result)
	b = appendStringMember(b, "message", p.Message)
	b = appendOptionalMember(b, "entry_mode", p.EntryMode)
	b = appendKey(b, "card")
	b = appendResourceCardView(b, &p.Card)
	if p.BNPL != nil {
		b = appendKey(b, "bnpl")
		b = appendBNPLView(b, p.BNPL)
	}
	b = append(b, '}')

	b = appendKey(b, "action")
	b = appendActionView(b, &v.Action)
	return append(b, '}')
}

func appendResourceCardView(b []byte, c *resourceCardView) []byte {
	b = append(b, '{')
	b = appendOptionalMember(b, "brand", c.Brand)
	b = appendOptionalMember(b, "masked_number_last4", c.MaskedNumberLast4)
	b = appendStringMember(b, "authcode", c.Authcode)
	b = appendStringMember(b, "brand_reference", c.BrandReference)
	b = appendOptionalMember(b, "brand_time_created", c.BrandTimeCreated)
	b = appendOptionalMember(b, "tag_response", c.TagResponse)
	b = appendOptionalMember(b, "cvv_result", c.CVVResult)
	b = appendOptionalMember(b, "funding", c.Funding)
	return append(b, '}')
}

func appendDocumentTransactionView(b []byte, v *documentTransactionView) []byte {
	b = append(b, '{')
	b = appendStringMember(b, "id", v.ID)
	b = appendStringMember(b, "time_created", v.TimeCreated)
	b = appendStringMember(b, "type", v.Type)
	b = appendStringMember(b, "status", v.Status)
	b = appendStringMember(b, "amount", v.Amount)
	b = appendStringMember(b, "currency", v.Currency)
	b = appendStringMember(b, "country", v.Country)
	b = appendOptionalMember(b, "reference", v.Reference)

	p := &v.PaymentMethod
	b = appendKey(b, "payment_method")
	b = append(b, '{')
	b = appendOptionalMember(b, "result", p.Result)
	b = appendOptionalMember(b, "message", p.Message)
	if p.Card != nil {
		b = appendKey(b, "card")
		b = append(b, '{')
		b = appendOptionalMember(b, "authcode", p.Card.Authcode)
		b = appendOptionalMember(b, "brand_reference", p.Card.BrandReference)
		b = append(b, '}')
	}
	if p.BNPL != nil {
		b = appendKey(b, "bnpl")
		b = appendBNPLView(b, p.BNPL)
	}
	b = append(b, '}')

	if o := v.Order; o != nil {
		b = appendKey(b, "order")
		b = appendOrderAmountsView(b, o)
	}
	b = appendStringMember(b, "batch_id", v.BatchID)
	b = appendKey(b, "action")
	b = appendActionView(b, &v.Action)
	return append(b, '}')
}

func appendOrderAmountsView(b []byte, o *orderAmountsView) []byte {
	b = append(b, '{')
	if len(o.Taxes) > 0 {
		b = appendKey(b, "taxes")
		b = append(b, '[')
		for i, t := range o.Taxes {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			b = appendStringMember(b, "type", t.Type)
			b = appendStringMember(b, "amount", t.Amount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendOptionalMember(b, "duty_amount", o.DutyAmount)
	b = appendOptionalMember(b, "shipping_amount", o.ShippingAmount)
	return append(b, '}')
}

func appendBNPLView(b []byte, v *bnplView) []byte {
	b = append(b, '{')
	b = appendStringMember(b, "provider", v.Provider)
	return append(b, '}')
}

func appendActionView(b []byte, a *actionView) []byte {
	b = append(b, '{')
	b = appendStringMember(b, "id", a.ID)
	b = appendStringMember(b, "type", a.Type)
	b = appendStringMember(b, "time_created", a.TimeCreated)
	b = appendStringMember(b, "result_code", a.ResultCode)
	b = appendOptionalMember(b, "app_id", a.AppID)
	b = appendOptionalMember(b, "app_name", a.AppName)
	return append(b, '}')
}

// appendKey writes a member's name, after a comma unless it is the object's first.
// Names are constants that need no escaping. A value never ends in '{', so the last
// byte tells whether the object has a member yet.
func appendKey(b []byte, name string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

func appendStringMember(b []byte, name, value string) []byte {
	return appendJSONString(appendKey(b, name), value)
}

// appendOptionalMember is a string member tagged omitempty: left out when empty.
func appendOptionalMember(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	return appendStringMember(b, name, value)
}

// jsonSafeLow and jsonSafeHigh are the ASCII bytes json.Marshal writes as they are,
// one bit per byte (0-63, 64-127): printable, and neither a quote, a backslash nor one
// of the HTML characters <, > and &.
const (
	jsonSafeLow  uint64 = 0xafffffbb00000000
	jsonSafeHigh uint64 = 0xffffffffefffffff
)

// jsonSafeWord reports whether json.Marshal writes each of the eight bytes of x as
// it is, eight at a time: none is 0x80 or more, below 0x20, or one of " \\ < > &. Each
// test is exact about whether some byte has the property (it may be wrong about which
// one, which does not matter here).
func jsonSafeWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	unsafe := x&highs | (x-ones*0x20)&^x&highs |
		hasZero(x^(ones*'"')) | hasZero(x^(ones*'\\')) | hasZero(x^(ones*'<')) |
		hasZero(x^(ones*'>')) | hasZero(x^(ones*'&'))
	return unsafe == 0
}

// jsonSafeASCII reports whether json.Marshal writes c as it is.
func jsonSafeASCII(c byte) bool {
	if c < 64 {
		return jsonSafeLow>>c&1 != 0
	}
	return c < utf8.RuneSelf && jsonSafeHigh>>(c-64)&1 != 0
}

// appendJSONString writes s as a JSON string the way json.Marshal does: HTML
// characters (<, >, &) as \u003c..., control characters escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped. Text that needs none of it is copied at once.
func appendJSONString(b []byte, s string) []byte {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !jsonSafeWord(uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56) {
			break
		}
	}
	for i < len(s) && jsonSafeASCII(s[i]) {
		i++
	}
	b = append(b, '"')
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	return appendJSONStringFrom(b, s, i)
}

// appendJSONStringFrom is appendJSONString past the first i bytes, which need no
// escaping; b already holds the opening quote.
func appendJSONStringFrom(b []byte, s string, i int) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafeASCII(c) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
