package api

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// decoderValue is what parseJSON stands for: encoding/json's Decoder with UseNumber
// reading one value, then nothing but white space.
func decoderValue(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// mustParseLikeDecoder fails unless parseJSON accepts raw exactly when the Decoder
// does, with the same value.
func mustParseLikeDecoder(t *testing.T, raw []byte) {
	t.Helper()
	want, wantOK := decoderValue(raw)
	got, err := parseJSON(raw)
	if (err == nil) != wantOK || !reflect.DeepEqual(got, want) {
		t.Errorf("parseJSON(%q) = %#v, %v; the Decoder reads %#v (ok %v)", raw, got, err, want, wantOK)
	}
}

var jsonSeeds = []string{
	`{}`, `[]`, ` {"a" : 1 , "b":[true,false,null,"x"]} `, "\t\r\n{}\n", `{"a":1,"a":2}`,
	`{"amount":"100","gratuity_amount":"20","payment_method":{"card":{"tag":"9F02"}}}`,
	`{"products":[{"id":"P","device":{"quantity":"2"}}],"n":-0.5e+10,"m":1E-2,"z":0}`,
	`"text"`, `123`, `-`, `01`, `1.`, `.5`, `1e`, `1e+`, `-0`, `0.0e0`, `1ee2`, `+1`, `0x10`,
	`true`, `tru`, `truex`, `nul`, `null `, `NaN`, `{"a":1,}`, `[1,]`, `{,}`, `[,]`, `{"a"}`, `{"a":}`,
	`{"a" 1}`, `{1:2}`, `{'a':1}`, `{"a":1}{}`, `{"a":1} x`, `{} `, `{}]`, `[[[]]]`, `[`, `{`, `"`, ``, ` `,
	`"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u20ac"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`,
	`"\ud83d\u0041"`, `"\ud83dx"`, `"\ud83d\ud83d\ude00"`, `"\u12"`, `"\uZZZZ"`, `"\x"`, `"\'"`, `"a\`,
	"\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "\"\x01\"", "\"\x7f\"", "\"é😀\"", "{\"\xff\":1}",
	"\xef\xbb\xbf{}", `{"a":"\u0000"}`, `[1 2]`, `{"a":1 "b":2}`, `[true false]`,
}

func TestParseJSONReadsWhatTheDecoderReads(t *testing.T) {
	for _, seed := range jsonSeeds {
		mustParseLikeDecoder(t, []byte(seed))
	}
	deep := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	mustParseLikeDecoder(t, []byte(deep))
	mustParseLikeDecoder(t, []byte("["+deep+"]"))
	mustParseLikeDecoder(t, []byte(strings.Repeat(`{"a":`, maxJSONDepth+1)+"1"+strings.Repeat("}", maxJSONDepth+1)))
	if _, err := parseJSON([]byte(deep)); err != nil {
		t.Errorf("a value nested %d deep is refused: %v", maxJSONDepth, err)
	}
}

// Random edits of the seeds (a byte changed, inserted or removed) find the corners
// a list misses; the sequence is fixed, so a failure repeats.
func TestParseJSONReadsWhatTheDecoderReadsEdited(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("{}[],:\"\\/ -+.0123456789eEtrufalsn\t\nux\x00\x1f\x7f\xc3\xa9\xff")
	for range 20000 {
		raw := []byte(jsonSeeds[rng.IntN(len(jsonSeeds))])
		for range 1 + rng.IntN(3) {
			c := alphabet[rng.IntN(len(alphabet))]
			i := rng.IntN(len(raw) + 1)
			switch op := rng.IntN(3); {
			case op == 0 && i < len(raw):
				raw[i] = c
			case op == 1 && i < len(raw):
				raw = append(raw[:i:i], raw[i+1:]...)
			default:
				raw = append(raw[:i:i], append([]byte{c}, raw[i:]...)...)
			}
		}
		mustParseLikeDecoder(t, raw)
	}
}

// Run for longer with go test -run '^$' -fuzz FuzzParseJSON ./sandbox/api/
func FuzzParseJSON(f *testing.F) {
	for _, seed := range jsonSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { mustParseLikeDecoder(t, raw) })
}
