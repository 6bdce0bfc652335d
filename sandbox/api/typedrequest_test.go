package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// checkShape holds a typed request to its field table: each kind of drift is named.
func TestCheckShape(t *testing.T) {
	spec := []Field{
		{name: "amount", kind: kDigits},
		{name: "count", kind: kCount},
		{name: "items", kind: kObjects, fields: []Field{{name: "id", kind: kString}}},
		{name: "card", kind: kObject, fields: []Field{{name: "tag", kind: kHex}}},
		{name: "names", kind: kArray, elem: kString},
	}
	type item struct {
		ID string `json:"id"`
	}
	type shared struct {
		Amount string `json:"amount"`
	}
	type good struct {
		shared
		Count count           `json:"count"`
		Items oneOrMany[item] `json:"items"`
		Card  *struct {
			Tag string `json:"tag"`
		} `json:"card"`
		Names []string `json:"names"`
	}
	if problems := checkShape(spec, reflect.TypeFor[good]()); len(problems) > 0 {
		t.Errorf("matching request: %v", problems)
	}
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"member missing", reflect.TypeFor[struct {
			shared
			Count count           `json:"count"`
			Items oneOrMany[item] `json:"items"`
			Names []string        `json:"names"`
		}](), `field "card" has no struct field`},
		{"member not in the table", reflect.TypeFor[struct {
			good
			Extra string `json:"extra"`
		}](), `struct field "extra" is not in the field table`},
		{"wrong Go type", reflect.TypeFor[struct {
			Amount int             `json:"amount"`
			Count  count           `json:"count"`
			Items  oneOrMany[item] `json:"items"`
			Card   struct {
				Tag string `json:"tag"`
			} `json:"card"`
			Names []string `json:"names"`
		}](), `field "amount"`},
		{"a plain slice for one-or-many", reflect.TypeFor[struct {
			shared
			Count count  `json:"count"`
			Items []item `json:"items"`
			Card  struct {
				Tag string `json:"tag"`
			} `json:"card"`
			Names []string `json:"names"`
		}](), `field "items"`},
		{"nested member", reflect.TypeFor[struct {
			shared
			Count count           `json:"count"`
			Items oneOrMany[item] `json:"items"`
			Card  struct {
				Tags string `json:"tags"`
			} `json:"card"`
			Names []string `json:"names"`
		}](), `field "tag" has no struct field`},
	}
	for _, tt := range tests {
		problems := strings.Join(checkShape(spec, tt.typ), "; ")
		if !strings.Contains(problems, tt.want) {
			t.Errorf("%s: problems %q, want one with %q", tt.name, problems, tt.want)
		}
	}
}

// count and oneOrMany read both forms the field table lets through.
func TestFlexibleMembers(t *testing.T) {
	var req struct {
		A    count                          `json:"a"`
		B    count                          `json:"b"`
		C    count                          `json:"c"`
		One  oneOrMany[struct{ ID string }] `json:"one"`
		Many oneOrMany[struct{ ID string }] `json:"many"`
		None oneOrMany[struct{ ID string }] `json:"none"`
	}
	body := `{"a":12,"b":"0034","c":null,"one":{"ID":"x"},"many":[{"ID":"y"},{"ID":"z"}],"none":null}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if req.A != 12 || req.B != 34 || req.C != 0 {
		t.Errorf("counts %d %d %d, want 12 34 0", req.A, req.B, req.C)
	}
	if len(req.One) != 1 || req.One[0].ID != "x" || len(req.Many) != 2 || req.Many[1].ID != "z" || req.None != nil {
		t.Errorf("one %+v, many %+v, none %+v", req.One, req.Many, req.None)
	}
}

// NewRequestBody refuses a typed request its field table does not describe, as
// endpoint does: the package that declares it fails to load.
func TestNewRequestBodyRefusesDrift(t *testing.T) {
	type request struct {
		Name string `json:"name"`
	}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), `field "nmae" has no struct field`) {
			t.Errorf("recovered %v", v)
		}
	}()
	NewRequestBody[request](Text("nmae", 10))
}
