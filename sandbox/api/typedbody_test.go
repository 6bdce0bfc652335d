package api

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// servedOperations are the operations the routes serve, each with its field table.
var servedOperations = []operation{
	accessToken, adjustment, orders, closeBatch, closeBatchWithoutID, listTransactions, createTransaction,
	verification, getTransaction, captureOp, refundOp, reversalOp, reauthorizationOp, incrementalOp,
}

func TestServedOperationsListsEveryOperation(t *testing.T) {
	listed := map[sandbox.Operation]bool{}
	for _, op := range servedOperations {
		listed[op.op] = true
	}
	for _, name := range sandbox.Operations() {
		if !listed[name] {
			t.Errorf("operation %s is missing from servedOperations: its typed decoding is not compared", name)
		}
	}
}

// For every operation, bodies made at random from its field table (members present,
// absent or null, numbers as numbers or strings, one object or an array of them)
// that pass the table decode into the same typed request through the fill as through
// json.Unmarshal.
func TestTypedRequestIsWhatUnmarshalMakes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, op := range servedOperations {
		checked := 0
		for range 300 {
			raw, err := json.Marshal(randomObject(rng, op.body, 0))
			if err != nil {
				t.Fatal(err)
			}
			body, err := decodeObject(raw)
			if err != nil || checkBody(body, op.body) != nil {
				continue
			}
			checked++
			got, err := op.handler.decode(raw, body)
			if err != nil {
				t.Fatalf("%s: decode %s: %v", op.op, raw, err)
			}
			want := reflect.New(op.handler.request)
			if err := json.Unmarshal(raw, want.Interface()); err != nil {
				t.Fatalf("%s: json.Unmarshal %s: %v", op.op, raw, err)
			}
			if !reflect.DeepEqual(got, want.Elem().Interface()) {
				t.Errorf("%s: %s decodes into\n%#v\nwant (json.Unmarshal)\n%#v", op.op, raw, got, want.Elem().Interface())
			}
			members := newMemberIndex(op.handler.request)
			if !members.fill(reflect.New(op.handler.request).Elem(), body) {
				t.Errorf("%s: %s is decoded by json.Unmarshal, not filled", op.op, raw)
			}
		}
		t.Logf("%s: %d random bodies compared", op.op, checked)
		if checked < 30 && len(op.body) > 0 {
			t.Errorf("%s: only %d of 300 random bodies passed the field table", op.op, checked)
		}
	}
}

// The fill gives up, and json.Unmarshal decides, where a value is not what the typed
// request holds.
func TestTypedRequestFallsBackToUnmarshal(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type request struct {
		S     string    `json:"s"`
		Inner inner     `json:"inner"`
		When  time.Time `json:"when"` // decodes itself, from text
	}
	members := newMemberIndex(reflect.TypeFor[request]())
	for _, body := range []object{
		{"s": json.Number("1")}, {"inner": "x"}, {"inner": object{"n": "1"}}, {"inner": object{"n": json.Number("1.5")}},
		{"S": "x"}, {"other": "x"}, {"when": "2026-11-24T00:00:00Z"},
	} {
		if members.fill(reflect.New(reflect.TypeFor[request]()).Elem(), body) {
			t.Errorf("%v: filled, want a fall back to json.Unmarshal", body)
		}
	}
}

// randomObject makes an object for a field table: each member absent, null or a
// value of its kind, mostly valid.
func randomObject(rng *rand.Rand, spec []field, depth int) map[string]any {
	obj := map[string]any{}
	for _, f := range spec {
		switch rng.IntN(5) {
		case 0:
			if !f.required {
				continue
			}
		case 1:
			if !f.required {
				obj[f.name] = nil
				continue
			}
		}
		obj[f.name] = randomValue(rng, f, depth)
	}
	return obj
}

func randomValue(rng *rand.Rand, f field, depth int) any {
	switch f.kind {
	case kObject:
		return randomObject(rng, f.fields, depth+1)
	case kObjects:
		if rng.IntN(2) == 0 {
			return randomObject(rng, f.fields, depth+1)
		}
		return []any{randomObject(rng, f.fields, depth+1), randomObject(rng, f.fields, depth+1)}[:rng.IntN(3)%2+rng.IntN(2)]
	case kArray:
		n := rng.IntN(3)
		if f.max > 0 && n > f.max {
			n = f.max
		}
		arr := make([]any, n)
		for i := range arr {
			arr[i] = randomValue(rng, field{name: f.name, kind: f.elem, fields: f.fields, enum: f.enum, min: 1, max: 255}, depth+1)
		}
		return arr
	case kInt, kCount:
		n := f.min + rng.IntN(3)
		if f.kind == kCount && rng.IntN(2) == 0 {
			return strconv.Itoa(n)
		}
		return json.Number(strconv.Itoa(n))
	case kBool:
		return rng.IntN(2) == 0
	case kEnum:
		return f.enum[rng.IntN(len(f.enum))]
	case kDigits:
		return strings.Repeat("1", textLength(rng, f))
	case kHex:
		return "9F02"
	case kURL:
		return "https://hooks.example/gp"
	}
	return strings.Repeat("é", textLength(rng, f))
}

// textLength is a length from 1 to 8 characters within f's limits.
func textLength(rng *rand.Rand, f field) int {
	n := max(1+rng.IntN(8), f.min)
	if f.max > 0 {
		n = min(n, f.max)
	}
	return n
}
