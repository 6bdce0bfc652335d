package compare

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestMembersListPathsAndTypes(t *testing.T) {
	var doc any
	dec := json.NewDecoder(strings.NewReader(`{"id":"TRN_1","count":2,"ok":true,"none":null,
		"card":{"brand":"VISA"},"lines":[{"a":"1"},{"a":"2","b":3}],"empty":[]}`))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	got := members(doc)
	want := map[string]string{
		"id": "string", "count": "number", "ok": "boolean", "none": "null",
		"card": "object", "card.brand": "string",
		"lines": "array", "lines[]": "object", "lines[].a": "string", "lines[].b": "number",
		"empty": "array",
	}
	if len(got) != len(want) {
		t.Errorf("members %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

// TestDifferencesIgnoreValuesButNotOutcomes: ids, times and amounts may differ; the
// outcome members, the status, the error tuple (ids aside) and the shape may not.
func TestDifferencesIgnoreValuesButNotOutcomes(t *testing.T) {
	r := &runner{secrets: new([]string)}
	a := r.describe(200, []byte(`{"id":"TRN_a","time_created":"2021-01-01T00:00:00.000Z","amount":"100","status":"CAPTURED"}`), nil)
	b := r.describe(200, []byte(`{"id":"TRN_b","time_created":"2026-11-26T00:00:00.000Z","amount":"900","status":"CAPTURED"}`), nil)
	if d := differences(a, b); len(d) != 0 {
		t.Errorf("values differ only: %v", d)
	}
	c := r.describe(200, []byte(`{"id":"TRN_c","time_created":"x","amount":900,"status":"DECLINED","extra":{}}`), nil)
	want := []string{
		`value status: against "CAPTURED", local "DECLINED"`,
		"member amount: against string, local number",
		"member extra (object): local only",
	}
	if d := differences(a, c); !slices.Equal(d, want) {
		t.Errorf("differences:\n%q\nwant\n%q", d, want)
	}
	e1 := r.describe(404, []byte(`{"error_code":"RESOURCE_NOT_FOUND","detailed_error_code":"40118","detailed_error_description":"Transactions TRN_x1 not found at this /ucp/transactions/TRN_x1"}`), nil)
	e2 := r.describe(404, []byte(`{"error_code":"RESOURCE_NOT_FOUND","detailed_error_code":"40118","detailed_error_description":"Transactions TRN_y2 not found at this /ucp/transactions/TRN_y2"}`), nil)
	if d := differences(e1, e2); len(d) != 0 {
		t.Errorf("errors differing by id only: %v", d)
	}
	e3 := r.describe(404, []byte(`{"error_code":"RESOURCE_NOT_FOUND","detailed_error_code":"40008","detailed_error_description":"Transactions TRN_y2 not found at this /ucp/transactions/TRN_y2"}`), nil)
	if d := differences(e1, e3); len(d) != 1 || !strings.HasPrefix(d[0], "error: against RESOURCE_NOT_FOUND 40118") {
		t.Errorf("errors differing by code: %v", d)
	}
}

// TestReportRedactsWhatAnAnswerEchoes: an error description that quotes the card or
// the token sent is written without them, in both formats.
func TestReportRedactsWhatAnAnswerEchoes(t *testing.T) {
	r := &runner{secrets: new([]string)}
	o := r.describe(200, []byte(`{"token":"tok3nValue99","error_code":"X","detailed_error_code":"1",
		"detailed_error_description":"card 4263970000005262 track `+strings.ReplaceAll(testTrack, `^`, `^`)+` key AppKeyZ9 tok3nValue99 other 5425230000004415"}`),
		map[string]string{"token": "token"})
	rep := &Report{Steps: []StepReport{{Flow: "f", Step: "s", Against: o, Local: Outcome{Status: 200}, Differences: differences(o, Outcome{Status: 200})}}}
	rep.secrets = append(append([]string{"AppKeyZ9"}, *r.secrets...), Secrets()...)
	var text, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(js.Bytes()) {
		t.Fatalf("redacted JSON is not JSON:\n%s", js.String())
	}
	for _, out := range []string{text.String(), js.String()} {
		for _, s := range []string{"4263970000005262", "tok3nValue99", "AppKeyZ9", "4012002000060016", "5425230000004415"} {
			if strings.Contains(out, s) {
				t.Errorf("the report holds %s:\n%s", s, out)
			}
		}
		if !strings.Contains(out, "other 542523******4415") {
			t.Errorf("a card number not sent is not masked:\n%s", out)
		}
	}
}
