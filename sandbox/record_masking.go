package sandbox

import (
	"reflect"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Records are masked as a whole, not field by field: maskRecord walks every string of
// a record, so that a field added later is masked without anyone remembering to. A
// field tagged `mask:"emv"` holds EMV TLV data (see carddata.MaskEMV); one tagged
// `mask:"keep"` is kept as sent: a notification URL is where the partner asked to be
// called, and is masked where it is shown instead.

// maskRecord masks, in place, card data in every string of the record ptr points to
// (see carddata.Mask). Slices are copied before they are changed: a record may share
// them with the request it was built from.
func maskRecord(ptr any) { maskValue(reflect.ValueOf(ptr).Elem()) }

func maskValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); !carddata.NoneIn(s) {
			v.SetString(carddata.Mask(s))
		}
	case reflect.Struct:
		maskFields(v)
	case reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			maskValue(c.Elem())
			v.Set(c)
		}
	case reflect.Slice:
		if v.Len() > 0 && v.Type().Elem().Kind() != reflect.Uint8 {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			for i := range c.Len() {
				maskValue(c.Index(i))
			}
			v.Set(c)
		}
	case reflect.Array:
		for i := range v.Len() {
			maskValue(v.Index(i))
		}
	case reflect.Map:
		if v.Len() > 0 {
			c := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				e := reflect.New(v.Type().Elem()).Elem()
				e.Set(it.Value())
				maskValue(e)
				c.SetMapIndex(it.Key(), e)
			}
			v.Set(c)
		}
	}
}

func maskFields(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		switch f.Tag.Get("mask") {
		case "keep":
			continue
		case "emv":
			if s := v.Field(i).String(); s != "" {
				v.Field(i).SetString(carddata.MaskEMV(s))
			}
			continue
		}
		maskValue(v.Field(i))
	}
}

// WithCardDataMasked returns the request with card data masked in every field but
// the notification URL (see maskRecord): a card number a client typed into a name or
// an address line is not stored in clear. The payment card's number keeps its first
// six and last four digits.
func (r OrderRequest) WithCardDataMasked() OrderRequest {
	if r.PaymentMethod != nil {
		p := *r.PaymentMethod
		p.MaskedNumber = carddata.MaskNumber(p.MaskedNumber)
		r.PaymentMethod = &p
	}
	maskRecord(&r)
	return r
}

// withCardDataMasked returns lodging data with card data masked; nil stays nil.
func (l *Lodging) withCardDataMasked() *Lodging {
	if l == nil {
		return nil
	}
	m := masked(*l)
	return &m
}

// maskedTransactions returns a copy of ts with each transaction's card data masked.
func maskedTransactions(ts []Transaction) []Transaction { return masked(ts) }

// maskingStore is the Service's store: every transaction, order, notification,
// adjustment, card token, terminal and device request an update writes has its card data masked on the way in (see
// maskRecord), whichever use case built it, and idempotency keys go by
// carddata.KeyWithout.
type maskingStore struct{ Store }

func (m maskingStore) View(fn func(Tx) error) error {
	return m.Store.View(func(tx Tx) error { return fn(maskingTx{tx}) })
}

func (m maskingStore) Update(fn func(Tx) error) error {
	return m.Store.Update(func(tx Tx) error { return fn(maskingTx{tx}) })
}

// Inspect wraps the Tx as View does; the inspector's listings beside it only read.
func (m maskingStore) Inspect(fn func(Tx, InspectTx) error) error {
	return m.Store.Inspect(func(tx Tx, in InspectTx) error { return fn(maskingTx{tx}, in) })
}

type maskingTx struct{ Tx }

func (x maskingTx) PutTransaction(t Transaction) error { return x.Tx.PutTransaction(masked(t)) }

func (x maskingTx) PutOrder(o Order) error { return x.Tx.PutOrder(masked(o)) }

func (x maskingTx) PutNotification(n Notification) error { return x.Tx.PutNotification(masked(n)) }

func (x maskingTx) PutPaymentMethod(pm PaymentMethod) error { return x.Tx.PutPaymentMethod(masked(pm)) }

func (x maskingTx) PutDevice(d Device) error { return x.Tx.PutDevice(masked(d)) }

// PutDeviceRequest masks a request once its command has run: a card number presented
// through the admin API is read by the terminal before the request is written.
func (x maskingTx) PutDeviceRequest(d DeviceRequest) error { return x.Tx.PutDeviceRequest(masked(d)) }

func (x maskingTx) AddAdjustment(transactionID string, a Adjustment, keep int) error {
	return x.Tx.AddAdjustment(transactionID, masked(a), keep)
}

// masked is rec with its card data masked (see maskRecord).
func masked[T any](rec T) T {
	maskRecord(&rec)
	return rec
}

// An idempotency key is a client's free text: one carrying card data is kept, and
// looked up, as its hash.
func (x maskingTx) Idempotency(appID, key string) (IdempotencyRecord, error) {
	return x.Tx.Idempotency(appID, carddata.KeyWithout(key))
}

func (x maskingTx) PutIdempotency(r IdempotencyRecord, keep time.Duration) error {
	r.Key = carddata.KeyWithout(r.Key)
	return x.Tx.PutIdempotency(r, keep)
}
