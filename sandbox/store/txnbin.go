package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Transactions are stored in a compact binary encoding rather than JSON: an
// adjustment rewrites its whole transaction, and the JSON of one (about 1.2 KB for a
// card-present sale, two thirds of it field names and punctuation) was 70% of the
// bytes each adjustment appended to the file, so of what compactions copy.
//
// The payload is txnFormat, then the fields in the order of sandbox.Transaction:
// strings as uvarint length + bytes, the creation time as its JSON text, bools as
// one byte, counts as varints, a pointer as a presence byte then its fields, a slice
// as its length then its elements, and the lodging block (rare) as its JSON. A value
// decodes to exactly what its JSON would (empty slices to nil, times as JSON parses
// them); a transaction holding a string that is not UTF-8, which JSON would alter, is
// stored as JSON. Values starting with '{', as earlier versions wrote them all, are
// read as JSON.
const txnFormat = 1

var errTransaction = errors.New("malformed transaction record")

// appendTransactionBinary appends t's binary encoding to b; ok is false when t must
// be stored as JSON.
func appendTransactionBinary(b []byte, t sandbox.Transaction) (_ []byte, ok bool, err error) {
	w := binWriter{b: append(b, txnFormat)}
	w.str(t.ID, t.MerchantID)
	var timeBuf [64]byte
	timeJSON, err := appendJSONTime(timeBuf[:0], t.TimeCreated)
	if err != nil {
		return nil, false, err
	}
	w.str(string(timeJSON))
	w.str(t.Type, t.Status, t.Amount, t.AuthorizationAmount, t.GratuityAmount, t.Currency, t.Country, t.Reference)
	p := t.PaymentMethod
	w.str(p.Result, p.Message, p.EntryMode)
	c := p.Card
	w.str(c.Brand, c.MaskedNumberLast4, c.Authcode, c.BrandReference, c.BrandTimeCreated, c.TagResponse, c.CVVResult, c.Funding)
	if w.present(p.BNPL != nil) {
		w.str(p.BNPL.Provider)
	}
	if w.present(t.Order != nil) {
		w.count(len(t.Order.Taxes))
		for _, tax := range t.Order.Taxes {
			w.str(tax.Type, tax.Amount)
		}
		w.str(t.Order.DutyAmount, t.Order.ShippingAmount)
	}
	w.str(t.BatchID)
	w.present(t.BatchClosed)
	w.str(t.EMVTag)
	w.count(t.AdjustmentCount)
	a := t.Action
	w.str(a.ID, a.Type, a.TimeCreated, a.ResultCode, a.AppID, a.AppName)
	w.count(len(t.Scenarios))
	w.str(t.Scenarios...)
	w.str(t.Channel, t.CaptureMode, t.MerchantName, t.AccountID, t.AccountName, t.AppID, t.ParentID,
		t.RefundedAmount, t.CapturedAmount, t.ReversedStatus)
	w.str(t.Card.Brand, t.Card.First6, t.Card.Last4, t.Card.Funding)
	if w.present(t.Lodging != nil) {
		lodging, err := json.Marshal(t.Lodging)
		if err != nil {
			return nil, false, err
		}
		w.str(string(lodging))
	}
	return w.b, !w.notUTF8, nil
}

// binWriter appends the binary encoding's fields.
type binWriter struct {
	b       []byte
	notUTF8 bool
}

func (w *binWriter) str(ss ...string) {
	for _, s := range ss {
		w.notUTF8 = w.notUTF8 || !utf8.ValidString(s)
		w.b = appendString(w.b, s)
	}
}

func (w *binWriter) count(n int) { w.b = binary.AppendVarint(w.b, int64(n)) }

// present writes a presence (or bool) byte and returns it.
func (w *binWriter) present(yes bool) bool {
	if yes {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
	return yes
}

// decodeTransaction decodes a payload of appendTransactionBinary.
func decodeTransaction(payload string) (sandbox.Transaction, error) {
	if payload == "" || payload[0] != txnFormat {
		return sandbox.Transaction{}, errTransaction
	}
	d := binReader{idemDecoder{rest: payload[1:]}}
	var t sandbox.Transaction
	d.strs(&t.ID, &t.MerchantID)
	if err := t.TimeCreated.UnmarshalJSON([]byte(d.str())); err != nil && !d.bad {
		return sandbox.Transaction{}, fmt.Errorf("%w: %w", errTransaction, err)
	}
	d.strs(&t.Type, &t.Status, &t.Amount, &t.AuthorizationAmount, &t.GratuityAmount, &t.Currency, &t.Country, &t.Reference)
	p := &t.PaymentMethod
	d.strs(&p.Result, &p.Message, &p.EntryMode)
	c := &p.Card
	d.strs(&c.Brand, &c.MaskedNumberLast4, &c.Authcode, &c.BrandReference, &c.BrandTimeCreated, &c.TagResponse, &c.CVVResult, &c.Funding)
	if d.present() {
		p.BNPL = &sandbox.BNPLResult{Provider: d.str()}
	}
	if d.present() {
		t.Order = &sandbox.OrderAmounts{}
		if n := d.count(); n > 0 {
			t.Order.Taxes = make([]sandbox.Tax, n)
			for i := range t.Order.Taxes {
				d.strs(&t.Order.Taxes[i].Type, &t.Order.Taxes[i].Amount)
			}
		}
		d.strs(&t.Order.DutyAmount, &t.Order.ShippingAmount)
	}
	d.strs(&t.BatchID)
	t.BatchClosed = d.present()
	d.strs(&t.EMVTag)
	t.AdjustmentCount = int(d.varint())
	a := &t.Action
	d.strs(&a.ID, &a.Type, &a.TimeCreated, &a.ResultCode, &a.AppID, &a.AppName)
	if n := d.count(); n > 0 {
		t.Scenarios = make([]string, n)
		for i := range t.Scenarios {
			d.strs(&t.Scenarios[i])
		}
	}
	d.strs(&t.Channel, &t.CaptureMode, &t.MerchantName, &t.AccountID, &t.AccountName, &t.AppID, &t.ParentID,
		&t.RefundedAmount, &t.CapturedAmount, &t.ReversedStatus)
	d.strs(&t.Card.Brand, &t.Card.First6, &t.Card.Last4, &t.Card.Funding)
	if d.present() {
		t.Lodging = &sandbox.Lodging{}
		if err := json.Unmarshal([]byte(d.str()), t.Lodging); err != nil && !d.bad {
			return sandbox.Transaction{}, fmt.Errorf("%w: %w", errTransaction, err)
		}
	}
	if d.bad || d.rest != "" {
		return sandbox.Transaction{}, errTransaction
	}
	return t, nil
}

// binReader reads the binary encoding's fields; a short or malformed one sets bad.
type binReader struct{ idemDecoder }

func (d *binReader) strs(dst ...*string) {
	for _, p := range dst {
		*p = d.str()
	}
}

func (d *binReader) present() bool {
	if d.rest == "" || d.rest[0] > 1 {
		d.bad, d.rest = true, ""
		return false
	}
	yes := d.rest[0] == 1
	d.rest = d.rest[1:]
	return yes
}

// count reads a slice length, at most what the rest could hold (a byte an element).
func (d *binReader) count() int {
	n := d.varint()
	if n < 0 || n > int64(len(d.rest)) {
		d.bad, d.rest = true, ""
		return 0
	}
	return int(n)
}

// unmarshalRecord decodes a stored payload into v: the binary encoding of a
// transaction, or JSON.
func unmarshalRecord(payload string, v any) error {
	if t, ok := v.(*sandbox.Transaction); ok && payload != "" && payload[0] == txnFormat {
		var err error
		*t, err = decodeTransaction(payload)
		return err
	}
	return json.Unmarshal([]byte(payload), v)
}

// appendJSONTime appends t as encoding/json does (RFC 3339 with nanoseconds, quoted).
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 || t.Location() != time.UTC {
		enc, err := t.MarshalJSON() // the rare cases, and its error for years out of range
		return append(b, enc...), err
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}
