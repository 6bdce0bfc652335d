package store

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// jsonRoundTrip is what a transaction stored as JSON reads back as.
func jsonRoundTrip(t *testing.T, txn sandbox.Transaction) sandbox.Transaction {
	t.Helper()
	b, err := json.Marshal(txn)
	if err != nil {
		t.Fatal(err)
	}
	var back sandbox.Transaction
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// A transaction in the binary encoding reads back exactly as its JSON would, for
// records filled by reflection with a distinct value in every field (a field added
// to the model and not to the encoding fails), empty values and odd ones.
func TestTransactionBinaryReadsAsJSON(t *testing.T) {
	for _, tc := range []struct {
		name     string
		txn      sandbox.Transaction
		wantJSON bool // stored as JSON instead
	}{
		{"every field set", distinct[sandbox.Transaction](nil), false},
		{"every field empty", sandbox.Transaction{}, false},
		{"the hot path's sale", adjustedSale("TRN_1"), false},
		{"empty slices and zero-valued pointers", distinct(func(t *sandbox.Transaction) {
			t.Scenarios, t.Order.Taxes = []string{}, []sandbox.Tax{}
			*t.Lodging, *t.PaymentMethod.BNPL = sandbox.Lodging{}, sandbox.BNPLResult{}
		}), false},
		{"escapes and non-ASCII", distinct(func(t *sandbox.Transaction) {
			t.Reference, t.MerchantName, t.Action.AppName = "a\"b\\c\n\t\x01", "<Café & Bar>", "\u2028"
			t.Scenarios = []string{"é", "", "ok"}
		}), false},
		{"times that are not plain UTC", distinct(func(t *sandbox.Transaction) {
			t.TimeCreated = time.Date(2025, 3, 14, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
		}), false},
		{"a negative count", distinct(func(t *sandbox.Transaction) { t.AdjustmentCount = -3 }), false},
		{"a string that is not UTF-8", distinct(func(t *sandbox.Transaction) { t.Reference = "ab\xffcd" }), true},
		{"not UTF-8 in the lodging block", distinct(func(t *sandbox.Transaction) { t.Lodging.BookingReference = "\xfe" }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := jsonRoundTrip(t, tc.txn)
			payload, ok, err := appendTransactionBinary(nil, tc.txn)
			if err != nil {
				t.Fatal(err)
			}
			if ok == tc.wantJSON {
				t.Fatalf("binary encoding usable: %v, want %v", ok, !tc.wantJSON)
			}
			if ok {
				got, err := decodeTransaction(string(payload))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("decoded\n%+v\nwant (as JSON reads back)\n%+v", got, want)
				}
			}
			s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
			mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(tc.txn) })
			s.cache.Clear()
			mustView(t, s, func(tx sandbox.Tx) error {
				got, err := tx.Transaction(tc.txn.ID)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("stored and read back\n%+v\nwant\n%+v", got, want)
				}
				return nil
			})
		})
	}
}

// Every truncation of a binary record, and a record with bytes to spare, is an error
// naming it, never a panic or a wrong transaction; a JSON record of an earlier
// version still reads.
func TestTransactionBinaryMalformed(t *testing.T) {
	payload, _, err := appendTransactionBinary(nil, distinct[sandbox.Transaction](nil))
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(payload) {
		if _, err := decodeTransaction(string(payload[:n])); err == nil {
			t.Fatalf("the first %d of %d bytes decoded", n, len(payload))
		}
	}
	if _, err := decodeTransaction(string(payload) + "x"); !errors.Is(err, errTransaction) {
		t.Errorf("a trailing byte: err = %v, want errTransaction", err)
	}
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	old := adjustedSale("TRN_old")
	err = s.db.Update(func(tx *buntdb.Tx) error { return put(tx, "txn:TRN_old", old) }) // JSON, as before
	if err != nil {
		t.Fatal(err)
	}
	mustSetRaw(t, s, "txn:TRN_bad", string(payload[:len(payload)/2]))
	mustView(t, s, func(tx sandbox.Tx) error {
		if got, err := tx.Transaction("TRN_old"); err != nil || !reflect.DeepEqual(got, jsonRoundTrip(t, old)) {
			t.Errorf("a JSON transaction = %+v, %v", got, err)
		}
		if _, err := tx.Transaction("TRN_bad"); !errors.Is(err, errTransaction) {
			t.Errorf("a cut binary transaction: err = %v, want errTransaction", err)
		}
		return nil
	})
}

// A time encoding/json refuses is refused by the binary encoding too (it stores
// the time as its JSON text).
func TestTransactionBinaryRefusesWhatEncodingJSONRefuses(t *testing.T) {
	txn := sandbox.Transaction{ID: "TRN_1", TimeCreated: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := json.Marshal(txn); err == nil {
		t.Fatal("encoding/json accepts the year 10000; the test needs another bad time")
	}
	if _, _, err := appendTransactionBinary(nil, txn); err == nil {
		t.Error("appendTransactionBinary accepted a time encoding/json refuses")
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

// BenchmarkTransactionBinary encodes the transaction an adjustment rewrites.
//
//	go test -run '^$' -bench TransactionBinary ./sandbox/store/
func BenchmarkTransactionBinary(b *testing.B) {
	txn := adjustedSale("TRN_1")
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		var err error
		if buf, _, err = appendTransactionBinary(buf[:0], txn); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}
