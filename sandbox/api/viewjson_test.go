package api

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// mustMarshalLikeJSON fails unless marshalView writes exactly the bytes json.Marshal
// writes for view.
func mustMarshalLikeJSON(t *testing.T, view any) {
	t.Helper()
	want, err := json.Marshal(view)
	if err != nil {
		t.Fatalf("json.Marshal(%#v): %v", view, err)
	}
	got, err := marshalView(view)
	if err != nil {
		t.Fatalf("marshalView(%#v): %v", view, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("marshalView(%#v)\n got %s\nwant %s", view, got, want)
	}
}

// oddStrings are the pieces of strings that json.Marshal escapes or rewrites: HTML
// characters, every kind of control character, invalid and truncated UTF-8, the two
// JavaScript line separators, and text that needs nothing.
var oddStrings = []string{
	"", "a", "TRN_Zx9", "2026-11-24T01:02:03.456Z", "<", ">", "&", `"`, `\`, "/", "\x00", "\x01",
	"\x1f", " ", "~", "\x7f", "\b", "\f", "\n", "\r", "\t", "é", "€", "😀", "\u2028", "\u2029",
	"\u202a", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\ufffd",
}

// fillRandom sets every string of v to a random concatenation of oddStrings (empty
// one time in four, to exercise omitempty), every pointer to nil or a filled value,
// and every slice to nil, empty or a few filled elements.
func fillRandom(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		s := ""
		if rng.IntN(4) > 0 {
			for range 1 + rng.IntN(4) {
				s += oddStrings[rng.IntN(len(oddStrings))]
			}
		}
		v.SetString(s)
	case reflect.Int:
		v.SetInt(rng.Int64N(2000) - 1000)
	case reflect.Pointer:
		if rng.IntN(2) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillRandom(rng, v.Elem())
	case reflect.Slice:
		switch rng.IntN(3) {
		case 0:
			v.SetZero()
		default:
			v.Set(reflect.MakeSlice(v.Type(), rng.IntN(3), 3))
			for i := range v.Len() {
				fillRandom(rng, v.Index(i))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillRandom(rng, v.Field(i))
		}
	default:
		panic("fillRandom: no filler for " + v.Type().String())
	}
}

// fillAll sets every string of v to s, and every pointer and slice to one filled value.
func fillAll(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), s)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fillAll(v.Index(i), s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillAll(v.Field(i), s)
		}
	}
}

// handWrittenViews are the views marshalView writes itself, as zero values.
var handWrittenViews = []any{resourceView{}, documentTransactionView{}}

func filledWith(view any, s string) any {
	v := reflect.New(reflect.TypeOf(view)).Elem()
	fillAll(v, s)
	return v.Interface()
}

func TestMarshalViewShapes(t *testing.T) {
	bnpl := &bnplView{Provider: "KLARNA"}
	tests := []struct {
		name string
		view any
	}{
		{"resource, zero", resourceView{}},
		{"resource, all filled", filledWith(resourceView{}, "x")},
		{"resource, all escaped", filledWith(resourceView{}, "<a&\"b\\\n\u2028\xff>")},
		{"resource, no optional member", resourceView{ID: "TRN_1", Amount: "100", PaymentMethod: resourcePaymentView{Result: "00"}}},
		{"resource, bnpl only", resourceView{PaymentMethod: resourcePaymentView{BNPL: bnpl}}},
		{"resource, card only optional", resourceView{PaymentMethod: resourcePaymentView{Card: resourceCardView{Funding: "CREDIT"}}}},
		{"document, zero", documentTransactionView{}},
		{"document, all filled", filledWith(documentTransactionView{}, "y")},
		{"document, all escaped", filledWith(documentTransactionView{}, "\x00\t</script>\u2029")},
		{"document, empty card", documentTransactionView{PaymentMethod: paymentView{Card: &cardView{}}}},
		{"document, empty order", documentTransactionView{Order: &orderAmountsView{}}},
		{"document, empty taxes", documentTransactionView{Order: &orderAmountsView{Taxes: []taxView{}, DutyAmount: "5"}}},
		{"document, one empty tax", documentTransactionView{Order: &orderAmountsView{Taxes: []taxView{{}}}}},
		{"document, bnpl only", documentTransactionView{PaymentMethod: paymentView{BNPL: bnpl}}},
		{"other view, through json.Marshal", filledWith(batchView{}, "<b>")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { mustMarshalLikeJSON(t, tt.view) })
	}
}

func TestMarshalViewEveryOddString(t *testing.T) {
	for _, view := range handWrittenViews {
		for _, s := range oddStrings {
			mustMarshalLikeJSON(t, filledWith(view, s))
		}
		for _, a := range oddStrings {
			for _, b := range oddStrings {
				mustMarshalLikeJSON(t, filledWith(view, a+b+a))
			}
		}
	}
}

func TestMarshalViewRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2026))
	for _, view := range handWrittenViews {
		for range 2000 {
			v := reflect.New(reflect.TypeOf(view)).Elem()
			fillRandom(rng, v)
			mustMarshalLikeJSON(t, v.Interface())
		}
	}
}

func TestMarshalViewEveryByte(t *testing.T) {
	const text = "TRN_0123456789abcdefghij" // longer than two words of eight bytes
	for c := range 256 {
		for _, view := range handWrittenViews {
			mustMarshalLikeJSON(t, filledWith(view, "a"+string([]byte{byte(c)})+"z"))
			for at := range len(text) + 1 {
				mustMarshalLikeJSON(t, filledWith(view, text[:at]+string([]byte{byte(c)})+text[at:]))
			}
		}
	}
}

// jsonSafeWord must say of eight bytes what jsonSafeASCII says of each.
func TestJSONSafeWordAgreesByteByByte(t *testing.T) {
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '&', '<', '>', '\\', 'A', 0x7e, 0x7f, 0x80, 0x81, 0xc3, 0xfe, 0xff}
	rng := rand.New(rand.NewPCG(8, 9))
	for range 200000 {
		var word [8]byte
		for i := range word {
			if rng.IntN(2) == 0 {
				word[i] = edges[rng.IntN(len(edges))]
			} else {
				word[i] = byte(rng.IntN(256))
			}
		}
		want := true
		var x uint64
		for i, c := range word {
			want = want && jsonSafeASCII(c)
			x |= uint64(c) << (8 * i)
		}
		if got := jsonSafeWord(x); got != want {
			t.Fatalf("jsonSafeWord(% x) = %v, byte by byte %v", word, got, want)
		}
	}
}

// Run for longer with go test -run '^$' -fuzz FuzzMarshalView ./sandbox/api/
func FuzzMarshalView(f *testing.F) {
	for _, s := range oddStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, view := range handWrittenViews {
			mustMarshalLikeJSON(t, filledWith(view, s))
		}
	})
}

// BenchmarkMarshalTransactionView compares the adjustment's answer written by
// json.Marshal and by marshalView.
//
//	go test -run '^$' -bench MarshalTransactionView -benchmem ./sandbox/api/
func BenchmarkMarshalTransactionView(b *testing.B) {
	view := resourceView{
		ID: "TRN_f8d3a0b2c1e94e5aa7b6", TimeCreated: "2026-11-24T01:02:03.456Z", Type: "SALE",
		Status: "CAPTURED", Channel: "CP", CaptureMode: "AUTO", Amount: "1150", Currency: "USD",
		Country: "US", MerchantID: "MER_7e3e2c7df34f42819b3edee31022ee3f", MerchantName: "Sandbox Merchant",
		AccountID: "TRA_c9967ad7d8ec4b46b6dd44a61cde9a91", AccountName: "Transaction_Processing",
		Reference: "order-1042", BatchID: "",
		PaymentMethod: resourcePaymentView{Result: "00", Message: "SUCCESS", EntryMode: "CHIP",
			Card: resourceCardView{Brand: "VISA", MaskedNumberLast4: "XXXXXXXXXXXX1111", Authcode: "12345",
				BrandReference: "rQ9YdsVx0BtZzY0m", TagResponse: "9F36020001910A0102030405060708090A"}},
		Action: actionView{ID: "ACT_0f1e2d3c4b5a69788796a5b4", Type: "ADJUST", TimeCreated: "2026-11-24T01:02:03.456Z",
			ResultCode: "SUCCESS", AppID: "P3LRVjtGRGxWQQJDE345mSkEh2KfdAyg", AppName: "partner"},
	}
	var boxed any = view // as the handler returns it
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			json.Marshal(boxed)
		}
	})
	b.Run("marshalView", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			marshalView(boxed)
		}
	})
}
