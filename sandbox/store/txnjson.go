package store

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Transactions are the record an API action rewrites most (an adjustment rewrites its
// whole transaction), inside the writer's lock, and encoding/json spent about 5 µs on
// each through reflection. appendTransactionJSON writes the same bytes by hand:
// the stored format is unchanged (the test compares it with encoding/json, field by
// field, for records filled by reflection, so a field added to the model and
// forgotten here fails it), and reading still goes through encoding/json.

// jsonWriter appends a JSON object's members, tracking whether a comma is due.
type jsonWriter struct {
	b     []byte
	comma bool
}

func (w *jsonWriter) open() { w.b, w.comma = append(w.b, '{'), false }

func (w *jsonWriter) close() { w.b, w.comma = append(w.b, '}'), true }

func (w *jsonWriter) key(name string) {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.b = append(append(append(w.b, '"'), name...), '"', ':')
	w.comma = true
}

func (w *jsonWriter) str(name, v string) {
	w.key(name)
	w.b = appendJSONString(w.b, v)
}

// strOmit is a string member tagged omitempty.
func (w *jsonWriter) strOmit(name, v string) {
	if v != "" {
		w.str(name, v)
	}
}

func (w *jsonWriter) strings(name string, v []string) {
	w.key(name)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, s := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendJSONString(w.b, s)
	}
	w.b = append(w.b, ']')
}

// marshalled appends a member encoded by encoding/json: for the parts of a
// transaction an adjustment seldom carries.
func (w *jsonWriter) marshalled(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.key(name)
	w.b = append(w.b, b...)
	return nil
}

// appendTransactionJSON appends json.Marshal(t) to b.
func appendTransactionJSON(b []byte, t sandbox.Transaction) ([]byte, error) {
	w := jsonWriter{b: b}
	w.open()
	w.str("id", t.ID)
	w.str("merchant_id", t.MerchantID)
	w.key("time_created")
	var err error
	if w.b, err = appendJSONTime(w.b, t.TimeCreated); err != nil {
		return nil, err
	}
	w.str("type", t.Type)
	w.str("status", t.Status)
	w.str("amount", t.Amount)
	w.strOmit("authorization_amount", t.AuthorizationAmount)
	w.strOmit("gratuity_amount", t.GratuityAmount)
	w.str("currency", t.Currency)
	w.str("country", t.Country)
	w.str("reference", t.Reference)
	w.key("payment_method")
	w.paymentResult(t.PaymentMethod)
	if t.Order != nil {
		w.key("order")
		w.orderAmounts(*t.Order)
	}
	w.str("batch_id", t.BatchID)
	w.key("batch_closed")
	w.b = strconv.AppendBool(w.b, t.BatchClosed)
	w.strOmit("emv_tag", t.EMVTag)
	if t.AdjustmentCount != 0 {
		w.key("adjustment_count")
		w.b = strconv.AppendInt(w.b, int64(t.AdjustmentCount), 10)
	}
	w.key("action")
	w.action(t.Action)
	if len(t.Scenarios) > 0 {
		w.strings("scenarios", t.Scenarios)
	}
	w.strOmit("channel", t.Channel)
	w.strOmit("capture_mode", t.CaptureMode)
	w.strOmit("merchant_name", t.MerchantName)
	w.strOmit("account_id", t.AccountID)
	w.strOmit("account_name", t.AccountName)
	w.strOmit("app_id", t.AppID)
	w.strOmit("parent_id", t.ParentID)
	w.strOmit("refunded_amount", t.RefundedAmount)
	w.strOmit("captured_amount", t.CapturedAmount)
	w.strOmit("reversed_status", t.ReversedStatus)
	w.key("card") // omitempty does not omit a struct
	w.storedCard(t.Card)
	if t.Lodging != nil {
		if err := w.marshalled("lodging", t.Lodging); err != nil {
			return nil, err
		}
	}
	w.close()
	return w.b, nil
}

func (w *jsonWriter) paymentResult(p sandbox.PaymentResult) {
	w.open()
	w.str("result", p.Result)
	w.str("message", p.Message)
	w.strOmit("entry_mode", p.EntryMode)
	w.key("card")
	w.open()
	w.strOmit("brand", p.Card.Brand)
	w.strOmit("masked_number_last4", p.Card.MaskedNumberLast4)
	w.str("authcode", p.Card.Authcode)
	w.str("brand_reference", p.Card.BrandReference)
	w.strOmit("brand_time_created", p.Card.BrandTimeCreated)
	w.strOmit("tag_response", p.Card.TagResponse)
	w.strOmit("cvv_result", p.Card.CVVResult)
	w.strOmit("funding", p.Card.Funding)
	w.close()
	if p.BNPL != nil {
		w.key("bnpl")
		w.open()
		w.str("provider", p.BNPL.Provider)
		w.close()
	}
	w.close()
}

func (w *jsonWriter) orderAmounts(o sandbox.OrderAmounts) {
	w.open()
	if len(o.Taxes) > 0 {
		w.key("taxes")
		w.b = append(w.b, '[')
		for i, tax := range o.Taxes {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.open()
			w.str("type", tax.Type)
			w.str("amount", tax.Amount)
			w.close()
		}
		w.b = append(w.b, ']')
	}
	w.strOmit("duty_amount", o.DutyAmount)
	w.strOmit("shipping_amount", o.ShippingAmount)
	w.close()
}

func (w *jsonWriter) action(a sandbox.Action) {
	w.open()
	w.str("id", a.ID)
	w.str("type", a.Type)
	w.str("time_created", a.TimeCreated)
	w.str("result_code", a.ResultCode)
	w.str("app_id", a.AppID)
	w.str("app_name", a.AppName)
	w.close()
}

func (w *jsonWriter) storedCard(c sandbox.StoredCard) {
	w.open()
	w.strOmit("brand", c.Brand)
	w.strOmit("first6", c.First6)
	w.strOmit("last4", c.Last4)
	w.strOmit("funding", c.Funding)
	w.close()
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

// appendJSONString appends s quoted as encoding/json quotes it. Plain printable
// ASCII, what the sandbox's own values are, is copied as it is; anything else
// (escapes, HTML characters, non-ASCII) goes through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s) // a string always encodes
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
