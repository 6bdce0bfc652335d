package store

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The hand-written transaction encoder writes exactly what encoding/json writes. The
// records are filled by reflection with a different value in every field, so a field
// added to the model and not to the encoder, or two fields swapped, fails the test.
func TestTransactionJSONIsEncodingJSON(t *testing.T) {
	full := distinct[sandbox.Transaction](nil)
	for _, tc := range []struct {
		name string
		txn  sandbox.Transaction
	}{
		{"every field set", full},
		{"every field empty", sandbox.Transaction{}},
		{"the hot path's sale", adjustedSale("TRN_1")},
		{"empty slices and zero-valued pointers", distinct(func(t *sandbox.Transaction) {
			t.Scenarios, t.Order.Taxes = []string{}, []sandbox.Tax{}
			*t.Lodging, *t.PaymentMethod.BNPL = sandbox.Lodging{}, sandbox.BNPLResult{}
		})},
		{"strings that need escaping", distinct(func(t *sandbox.Transaction) {
			t.Reference, t.MerchantName, t.Action.AppName = "a\"b\\c\n\t\x01", "<Café & Bar>", "\u2028\xff\xfe"
			t.Scenarios = []string{"é", "", "ok"}
		})},
		{"times that are not plain UTC", distinct(func(t *sandbox.Transaction) {
			t.TimeCreated = time.Date(2025, 3, 14, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
		})},
		{"nanoseconds in UTC", distinct(func(t *sandbox.Transaction) { t.TimeCreated = base.Add(1500 * time.Microsecond) })},
		{"a negative count", distinct(func(t *sandbox.Transaction) { t.AdjustmentCount = -3 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.txn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendTransactionJSON([]byte("prefix"), tc.txn)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix"+string(want) {
				t.Errorf("encoded\n%s\nwant\nprefix%s", got, want)
			}
		})
	}
}

// A time encoding/json refuses is refused by the hand encoder too.
func TestTransactionJSONRefusesWhatEncodingJSONRefuses(t *testing.T) {
	txn := sandbox.Transaction{ID: "TRN_1", TimeCreated: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := json.Marshal(txn); err == nil {
		t.Fatal("encoding/json accepts the year 10000; the test needs another bad time")
	}
	if _, err := appendTransactionJSON(nil, txn); err == nil {
		t.Error("appendTransactionJSON accepted a time encoding/json refuses")
	}
}

// distinct is a T with every exported field set to a value no other field has
// (strings and numbers count up), slices with two elements and pointers pointing at
// such values; then set changes what the case needs.
func distinct[T any](set func(*T)) T {
	var r T
	n := 0
	fillDistinct(reflect.ValueOf(&r).Elem(), &n, 0)
	if set != nil {
		set(&r)
	}
	return r
}

func fillDistinct(v reflect.Value, n *int, depth int) {
	if depth > 8 {
		return
	}
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("v" + strconv.Itoa(*n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillDistinct(k, n, depth+1)
		fillDistinct(e, n, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillDistinct(v.Elem(), n, depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fillDistinct(v.Index(0), n, depth+1)
		fillDistinct(v.Index(1), n, depth+1)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(base.Add(time.Duration(*n) * time.Millisecond)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillDistinct(v.Field(i), n, depth+1)
			}
		}
	default:
		panic("fillDistinct cannot fill a " + v.Type().String())
	}
}

// BenchmarkTransactionJSON compares encoding/json with the hand encoder on the
// transaction an adjustment rewrites.
//
//	go test -run '^$' -bench TransactionJSON ./sandbox/store/
func BenchmarkTransactionJSON(b *testing.B) {
	txn := adjustedSale("TRN_1")
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(txn); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = appendTransactionJSON(buf[:0], txn); err != nil {
				b.Fatal(err)
			}
		}
	})
}
