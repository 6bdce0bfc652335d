package apitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// goldenDirs are where the API's and the admin API's tests keep their golden files.
var goldenDirs = []string{"../../api/testdata", "../../admin/testdata"}

// readGolden reads the golden file name from whichever package keeps it.
func readGolden(name string) ([]byte, error) {
	for _, dir := range goldenDirs {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if !errors.Is(err, os.ErrNotExist) {
			return b, err
		}
	}
	return nil, os.ErrNotExist
}

// TestOpenAPIExamplesAreGolden keeps the success examples equal to the golden
// responses of the API and admin API tests: an example marked x-golden is the file's
// JSON, and every golden file is an example.
func TestOpenAPIExamplesAreGolden(t *testing.T) {
	c := MustContract(t)
	seen := map[string]bool{}
	for path, item := range c.Doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				for _, mt := range resp.Value.Content {
					for name, ex := range mt.Examples {
						golden, ok := ex.Value.Extensions["x-golden"].(string)
						if !ok {
							continue
						}
						seen[golden] = true
						want, err := readGolden(golden)
						if err != nil {
							t.Fatal(err)
						}
						got, _ := json.Marshal(ex.Value.Value)
						if !jsonEqual(t, got, want) {
							t.Errorf("%s %s %s example %q differs from testdata/%s", method, path, status, name, golden)
						}
					}
				}
			}
		}
	}
	var goldens []string
	for _, dir := range goldenDirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		goldens = append(goldens, files...)
	}
	for _, g := range goldens {
		if !seen[filepath.Base(g)] {
			t.Errorf("%s is no example of the document", g)
		}
	}
}

// TestContractCatchesDrift proves the check fails when an answer drifts from the
// document: the golden adjustment answer passes, and each tampered copy fails.
func TestContractCatchesDrift(t *testing.T) {
	c := MustContract(t)
	golden, err := readGolden("adjustment.json")
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer x"}, "X-Gp-Version": {Version}}
	exchangeWith := func(status int, body []byte) exchange {
		return exchange{
			method: "POST", path: "/ucp/transactions/" + CapturedOne + "/adjustment", header: header,
			body:  []byte(`{"gratuity_amount":"200"}`),
			reply: Reply{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: bytes.TrimSpace(body)},
		}
	}
	if err := c.check(exchangeWith(200, golden)); err != nil {
		t.Fatalf("golden answer rejected: %v", err)
	}
	tamper := func(edit func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(golden, &m)
		edit(m)
		b, _ := json.Marshal(m)
		return b
	}
	for name, x := range map[string]exchange{
		"amount as a number": exchangeWith(200, tamper(func(m map[string]any) { m["amount"] = 1100 })),
		"status missing":     exchangeWith(200, tamper(func(m map[string]any) { delete(m, "status") })),
		"gratuity echoed":    exchangeWith(200, tamper(func(m map[string]any) { m["gratuity_amount"] = "200" })),
		"time without millis": exchangeWith(200, tamper(func(m map[string]any) {
			m["time_created"] = "2021-03-24T02:02:27Z"
		})),
		"undocumented status": exchangeWith(201, golden),
		"error missing a field": exchangeWith(404, []byte(
			`{"error_code":"RESOURCE_NOT_FOUND","detailed_error_description":"Transaction x not found at this location."}`)),
	} {
		if err := c.check(x); err == nil {
			t.Errorf("%s: drift not detected", name)
		}
	}
	// An unknown path must still answer a GP Error.
	x := exchange{method: "GET", path: "/nowhere", header: http.Header{}, reply: Reply{Status: 404, Body: []byte(`{"message":"not found"}`)}}
	if err := c.check(x); err == nil {
		t.Errorf("non-GP error body on an unknown path not detected")
	}
	// A request the document rejects must not succeed.
	x = exchangeWith(200, golden)
	x.body = []byte(`{"gratuity_amount":200}`)
	if err := c.check(x); err == nil {
		t.Errorf("a 200 to a request the document rejects was not detected")
	}
}
