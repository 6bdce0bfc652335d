package web_test

import (
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// sample declares one member of every kind the gp tag knows.
type sample struct {
	ID       string `json:"id" gp:"required,max=5"`
	Name     string `json:"name" gp:"min=0,max=5"`
	Amount   string `json:"amount" gp:"digits,max=4"`
	Optional string `json:"optional" gp:"digits,min=0,max=4"`
	Tag      string `json:"tag" gp:"hex,min=2,max=8"`
	Mode     string `json:"mode" gp:"enum=A|B"`
	Kind     string `json:"kind" gp:"min=0,enum=K|L"`
	URL      string `json:"url" gp:"url,max=100"`
	Scalar   string `json:"scalar" gp:"or-number,max=10"`
	Seconds  int    `json:"seconds" gp:"min=60,max=600"`
	Quantity int    `json:"quantity" gp:"or-string,min=1,max=99"`
	Flag     bool   `json:"flag"`
	Freeze   *bool  `json:"freeze"`
	shared
	Card *struct {
		Number string      `json:"number" gp:"required,digits,max=19"`
		Brand  web.Ignored `json:"brand"` // a client's guess
	} `json:"card"`
	Device *struct {
		Mode string `json:"mode" gp:"enum=M|N,own-name"` // named alone in its errors
	} `json:"device"`
	Conversion struct {
		ID string `json:"id" gp:"max=3"`
	} `json:"conversion" gp:"or-id"`
	Names    []string    `json:"names" gp:"max=2"`
	Types    []string    `json:"types" gp:"or-one,enum=X|Y"`
	Items    []item      `json:"items" gp:"max=3"`
	Products []item      `json:"products" gp:"or-one"`
	Payer    web.Ignored `json:"payer"` // sent by every client, used by none
}

type shared struct {
	Reference string `json:"reference" gp:"max=10"`
}

type item struct {
	Code string `json:"code" gp:"required,max=4"`
}

func decode(t *testing.T, body string) (sample, error) {
	t.Helper()
	obj, err := web.DecodeObject([]byte(body))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	var got sample
	err = web.TableOf(reflect.TypeFor[sample]()).Decode(obj, &got)
	return got, err
}

// Every kind fills its Go type from each form it may come in.
func TestTableFills(t *testing.T) {
	got, err := decode(t, `{"id":"a","name":"","amount":"0042","optional":"","tag":"9F02","mode":"B","kind":"",
		"url":"https://example.com/hook","scalar":10.50,"seconds":60,"quantity":"007","flag":true,"freeze":false,
		"reference":"r","card":{"number":"4263","brand":{"any":["thing"]}},"conversion":"EUR",
		"names":[],"types":"Y","items":[{"code":"c1"},{"code":"c2"}],"products":{"code":"p"},"payer":[1,2]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := sample{
		ID: "a", Amount: "0042", Tag: "9F02", Mode: "B", URL: "https://example.com/hook", Scalar: "10.50",
		Seconds: 60, Quantity: 7, Flag: true, Freeze: new(bool), shared: shared{Reference: "r"},
		Names: []string{}, Types: []string{"Y"}, Items: []item{{"c1"}, {"c2"}}, Products: []item{{"p"}},
	}
	want.Card = &struct {
		Number string      `json:"number" gp:"required,digits,max=19"`
		Brand  web.Ignored `json:"brand"`
	}{Number: "4263"}
	want.Conversion.ID = "EUR"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	got, err = decode(t, `{"id":"b","conversion":{"id":"USD"},"types":["X","Y"],"products":[{"code":"p1"}],"card":null,"freeze":null}`)
	if err != nil {
		t.Fatal(err)
	}
	if got.Conversion.ID != "USD" || len(got.Types) != 2 || len(got.Products) != 1 || got.Card != nil || got.Freeze != nil || got.Names != nil {
		t.Errorf("objects and arrays in full, nulls absent: %+v", got)
	}
}

// The errors come in GP's order: every unknown member (sorted, dotted, each once),
// then every missing one (in the struct's order), then the first bad value.
func TestTableErrorOrder(t *testing.T) {
	tests := []struct {
		body string
		want *sandbox.Error
	}{
		{`{"zeta":1,"card":{"colour":1},"items":[{"x":1},{"x":2,"code":"c"}],"amount":"x"}`,
			sandbox.UnexpectedFields([]string{"card.colour", "items.x", "zeta"})},
		{`{"products":{"size":1},"conversion":{"rate":1}}`,
			sandbox.UnexpectedFields([]string{"conversion.rate", "products.size"})},
		{`{"card":{},"items":[{},{"code":null}],"amount":"x"}`,
			sandbox.MissingFields("id, card.number, items.code, items.code")},
		{`{"id":"a","amount":"x","mode":"C"}`, sandbox.InvalidField("amount")},
		{`{"id":"a","mode":"C","amount":"x"}`, sandbox.InvalidField("amount")},
		{`{"id":"a","url":"ftp://example.com"}`, sandbox.InvalidURLField("url")},
		{`{"id":"a","url":""}`, sandbox.InvalidField("url")},
		{`{"id":"toolong"}`, sandbox.InvalidField("id")},
		{`{"id":"a\u0001"}`, sandbox.InvalidField("id")},
		{`{"id":"a","amount":""}`, sandbox.InvalidField("amount")},
		{`{"id":"a","tag":"9F0"}`, sandbox.InvalidField("tag")},
		{`{"id":"a","mode":""}`, sandbox.InvalidField("mode")},
		{`{"id":"a","kind":"M"}`, sandbox.InvalidField("kind")},
		{`{"id":"a","scalar":"12345678901"}`, sandbox.InvalidField("scalar")},
		{`{"id":"a","seconds":59}`, sandbox.InvalidField("seconds")},
		{`{"id":"a","seconds":"60"}`, sandbox.InvalidField("seconds")},
		{`{"id":"a","seconds":60.0}`, sandbox.InvalidField("seconds")},
		{`{"id":"a","quantity":"0"}`, sandbox.InvalidField("quantity")},
		{`{"id":"a","quantity":-1}`, sandbox.InvalidField("quantity")},
		{`{"id":"a","flag":"true"}`, sandbox.InvalidField("flag")},
		{`{"id":"a","card":[]}`, sandbox.InvalidField("card")},
		{`{"id":"a","card":{"number":"42x"}}`, sandbox.InvalidField("card.number")},
		{`{"id":"a","device":{"mode":"O"}}`, sandbox.InvalidField("mode")},
		{`{"id":"a","conversion":"EURO"}`, sandbox.InvalidField("conversion")},
		{`{"id":"a","conversion":{"id":"EURO"}}`, sandbox.InvalidField("conversion.id")},
		{`{"id":"a","conversion":12}`, sandbox.InvalidField("conversion")},
		{`{"id":"a","names":["a","b","c"]}`, sandbox.InvalidField("names")},
		{`{"id":"a","names":["a",null]}`, sandbox.InvalidField("names")},
		{`{"id":"a","names":[""]}`, sandbox.InvalidField("names")},
		{`{"id":"a","names":"a"}`, sandbox.InvalidField("names")},
		{`{"id":"a","types":"Z"}`, sandbox.InvalidField("types")},
		{`{"id":"a","types":["X","Z"]}`, sandbox.InvalidField("types")},
		{`{"id":"a","items":{"code":"c"}}`, sandbox.InvalidField("items")},
		{`{"id":"a","items":[{"code":"toolong"}]}`, sandbox.InvalidField("items.code")},
		{`{"id":"a","items":["c"]}`, sandbox.InvalidField("items")},
		{`{"id":"a","products":"p"}`, sandbox.InvalidField("products")},
	}
	for _, tt := range tests {
		_, err := decode(t, tt.body)
		if got, ok := sandbox.AsError(err); !ok || *got != *tt.want {
			t.Errorf("%s: got %v, want %v", tt.body, err, tt.want)
		}
	}
}

// A body that repeats a member is decoded as it was checked: the last repetition
// only, never a merge with an earlier one nobody checked.
func TestTableRepeatedMember(t *testing.T) {
	got, err := decode(t, `{"id":"a","card":{"number":"not digits"},"id":"b","card":{}}`)
	if e, ok := sandbox.AsError(err); !ok || *e != *sandbox.MissingFields("card.number") {
		t.Fatalf("got %v, want card.number missing", err)
	}
	got, err = decode(t, `{"id":"a","card":{"number":"not digits"},"id":"b","card":{"number":"42"}}`)
	if err != nil || got.ID != "b" || got.Card.Number != "42" {
		t.Errorf("got %+v, %v", got, err)
	}
}

// DecodeObject takes one JSON object, or PHP's "[]" for an empty one.
func TestDecodeObject(t *testing.T) {
	for body, ok := range map[string]bool{
		`{}`: true, ` [] `: true, `{"a":1} `: true,
		`[1]`: false, `"x"`: false, `{} {}`: false, `{`: false, ``: false, `null`: false,
	} {
		obj, err := web.DecodeObject([]byte(body))
		if ok != (err == nil) || (ok && obj == nil) {
			t.Errorf("%q: %v, %v", body, obj, err)
		}
	}
}

// A declaration the table cannot hold stops the server from starting, naming the
// member and why.
func TestTableRefusesBadDeclarations(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct {
			A string `json:"a" gp:"requird"`
		}](), `member "a": unknown rule "requird"`},
		{reflect.TypeFor[struct {
			A string `json:"a" gp:"max=ten"`
		}](), `rule "max=ten" needs a number`},
		{reflect.TypeFor[struct {
			A int `json:"a" gp:"digits"`
		}](), `rule "digits" does not fit its Go type`},
		{reflect.TypeFor[struct {
			A bool `json:"a" gp:"enum=X|Y"`
		}](), `rule "enum" does not fit its Go type`},
		{reflect.TypeFor[struct {
			A string `json:"a" gp:"digits,hex"`
		}](), `more than one of`},
		{reflect.TypeFor[struct {
			A string `json:"a" gp:"enum=X|"`
		}](), `empty value`},
		{reflect.TypeFor[struct {
			A string `json:"a" gp:"required,required"`
		}](), `given twice`},
		{reflect.TypeFor[struct {
			A struct {
				Code string `json:"code"`
			} `json:"a" gp:"or-id"`
		}](), `or-id needs a string member id`},
		{reflect.TypeFor[struct {
			A float64 `json:"a"`
		}](), `cannot hold a JSON member`},
		{reflect.TypeFor[struct {
			A []int `json:"a"`
		}](), `an array of int`},
		{reflect.TypeFor[struct {
			A string
		}](), `field A has no json name`},
		{reflect.TypeFor[struct {
			shared
			Ref string `json:"reference"`
		}](), `member "reference" declared twice`},
		{reflect.TypeFor[struct {
			A web.Ignored `json:"a" gp:"required"`
		}](), `an ignored member takes no rules`},
		{reflect.TypeFor[struct {
			A struct {
				B string `json:"b" gp:"maximum=1"`
			} `json:"a"`
		}](), `member "b": unknown rule "maximum=1"`},
	}
	for _, tt := range tests {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), tt.want) {
					t.Errorf("%s: recovered %v, want %q", tt.typ, v, tt.want)
				}
			}()
			web.TableOf(tt.typ)
		}()
	}
}

// A table is built once per type.
func TestTableOfCaches(t *testing.T) {
	if web.TableOf(reflect.TypeFor[sample]()) != web.TableOf(reflect.TypeFor[sample]()) {
		t.Error("two tables for one type")
	}
	var wrong item
	if err := web.TableOf(reflect.TypeFor[sample]()).Decode(web.Object{}, &wrong); err == nil {
		t.Error("decoded into another type")
	}
}

// Body reads an admin body: the content type, then the object, then the table.
func TestBodyRead(t *testing.T) {
	body := web.NewBody[item]()
	tests := []struct {
		contentType, body string
		want              *sandbox.Error
	}{
		{"application/json", `{"code":"c"}`, nil},
		{"application/json; charset=utf-8", `{"code":"c"}`, nil},
		{"text/plain", `{"code":"c"}`, sandbox.InvalidField("Content-Type")},
		{"application/json", ``, sandbox.BodyUnexpected()},
		{"application/json", `{}`, sandbox.MissingFields("code")},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
		r.Header.Set("Content-Type", tt.contentType)
		got, err := body.Read(r)
		e, _ := sandbox.AsError(err)
		switch {
		case tt.want == nil && (err != nil || got.Code != "c"):
			t.Errorf("%s %s: %+v, %v", tt.contentType, tt.body, got, err)
		case tt.want != nil && (e == nil || *e != *tt.want):
			t.Errorf("%s %s: got %v, want %v", tt.contentType, tt.body, err, tt.want)
		}
	}
}
