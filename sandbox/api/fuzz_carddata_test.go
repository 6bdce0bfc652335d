package api_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// The seeded card number in clear: written in one piece and touching no other digit
// (an ASCII one or a Unicode one). A number touching a digit is part of a longer
// one, which an id or a reference keeps as sent; a number written with separators
// is not looked for, its seeds feed the mutations and the 500 check.
var standalonePAN = regexp.MustCompile(`(?:^|\PN)` + panVisa + `(?:\PN|$)`)

// The card-data fuzz targets send arbitrary bodies to an operation that takes card
// data, the seeds holding a card number in every kind of member, and look for that
// number in clear (standalonePAN) where the request left it: the text of its journal
// entry and its log line (the strings of their JSON decoded, so that an escape in a
// JSON body hides nothing), and the card members of its answer, which is a 200 or a
// GP error. Run one for longer with e.g.
//
//	go test -run '^$' -fuzz FuzzSaleCardData -fuzztime 10m ./sandbox/api/

func FuzzSaleCardData(f *testing.F) {
	card := `{"number":"` + panVisa + `","expiry_month":"12","expiry_year":"30","cvv":"123"}`
	fuzzCardData(f, "/transactions",
		cardSaleBody(card, ""),
		cardSaleBody(card, `,"reference":"`+panVisa+`","description":"card `+panVisa+`"`),
		cardSaleBody(`{"track":"%B`+panVisa+`^DOE/JOHN^2512101000000000000?"}`, ""),
		cardSaleBody(`{"track":"`+panVisa+`=2512101000000000"}`, ""),
		cardSaleBody(`{"tag":"5A08`+panVisa+`5F24032512319F0206000000000100"}`, ""),
		cardSaleBody(card, `,"payer":{"name":"`+panVisa+`"},"order":{"reference":"\u0034`+panVisa[1:]+`"}`),
		cardSaleBody(`{"number":"4263 9700 0000 5262","expiry_month":"12","expiry_year":"30"}`, `,"ip_address":"`+panVisa+`"`),
		`{"amount":"`+panVisa+`"}`, `{"`+panVisa+`":1}`)
}

func FuzzPaymentMethodCardData(f *testing.F) {
	fuzzCardData(f, "/payment-methods",
		`{"account_name":"tokenization","usage_mode":"MULTIPLE","card":{"number":"`+panVisa+`","expiry_month":"12","expiry_year":"30","cvv":"123"}}`,
		`{"account_name":"tokenization","reference":"`+panVisa+`","card":{"number":"4263-9700-0000-5262","expiry_month":"12","expiry_year":"30"}}`,
		`{"card":{"number":"`+panVisa+`","cvv":"123","name":"`+panVisa+`"},"name":"`+panVisa+`"}`)
}

func FuzzTerminalCardData(f *testing.F) {
	fuzzCardData(f, "/devices",
		strings.Replace(apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`), `"EcrId":"13"`, `"EcrId":"13","params":{"cardNumber":"`+panVisa+`"}`, 1),
		strings.Replace(apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00","invoiceNbr":"`+panVisa+`"}}`), `"10001"`, `"`+panVisa+`"`, 1))
}

func FuzzAdjustmentCardData(f *testing.F) {
	fuzzCardData(f, "/transactions/"+apitest.CapturedOne+"/adjustment",
		`{"gratuity_amount":"20","payment_method":{"card":{"tag":"5A08`+panVisa+`9F02060000000001"}}}`,
		`{"amount":"100","payment_method":{"card":{"number":"`+panVisa+`","track":"`+panVisa+`=2512101"}}}`)
}

func fuzzCardData(f *testing.F, path string, seeds ...string) {
	for _, seed := range seeds {
		f.Add([]byte(seed))
	}
	sink := newCardSink(f, apitest.Options{})
	f.Fuzz(func(t *testing.T, body []byte) {
		answer := serve(sink.env.Handler, clientRequest("POST", path, sink.token, body))
		mustBeGPAnswer(t, body, answer)
		sink.mustShowNoCard(t, answer, true)
	})
}

// A cardSink is a sandbox whose journal and log a card-data target reads after each
// request, and a token of the partner app.
type cardSink struct {
	env   *apitest.Env
	token string
	logs  *apitest.LockedBuffer
}

func newCardSink(f *testing.F, o apitest.Options) *cardSink {
	s := &cardSink{logs: &apitest.LockedBuffer{}}
	o.Log = s.logs
	s.env = apitest.NewWith(f, o)
	s.token = s.env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	return s
}

// mustShowNoCard fails when the seeded card number is in clear in the journal entry
// of the request answer answered (which must be the newest), the log written since
// the last call, or, with cardMembers, the card members of answer.
func (s *cardSink) mustShowNoCard(t *testing.T, answer *httptest.ResponseRecorder, cardMembers bool) {
	t.Helper()
	rec := serve(s.env.Handler, httptest.NewRequest("GET", "http://localhost/_sandbox/requests?limit=1", nil))
	var journal struct {
		Requests []struct {
			RequestID string `json:"request_id"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &journal); rec.Code != 200 || err != nil ||
		len(journal.Requests) != 1 || journal.Requests[0].RequestID != answer.Header().Get("X-Request-Id") {
		t.Fatalf("journal: the request %s is not its newest entry: %d %s", answer.Header().Get("X-Request-Id"), rec.Code, rec.Body)
	}
	places := map[string][]string{"journal": decodedStrings(t, rec.Body.Bytes()), "log": decodedStrings(t, s.logs.Take())}
	if cardMembers {
		places["answer's card members"] = cardStrings(t, answer.Body.Bytes())
	}
	for place, texts := range places {
		for _, text := range texts {
			if standalonePAN.MatchString(text) {
				t.Fatalf("the card number in clear in the %s: %q", place, text)
			}
		}
	}
}

// cardStrings returns the strings of every "card" object of a JSON answer.
func cardStrings(t *testing.T, answer []byte) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				if k == "card" {
					b, _ := json.Marshal(e)
					out = append(out, decodedStrings(t, b)...)
				} else {
					walk(e)
				}
			}
		}
	}
	var v any
	if json.Unmarshal(answer, &v) != nil {
		t.Fatalf("answer is not JSON: %s", answer)
	}
	walk(v)
	return out
}

// decodedStrings returns every string of the JSON values in text (one per line for
// the log), member names included, and of the JSON documents those strings hold
// (the journal's bodies, sent as strings when they are not JSON).
func decodedStrings(t *testing.T, text []byte) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
			var inner any
			if strings.ContainsAny(v, "{[\"") && json.Unmarshal([]byte(v), &inner) == nil {
				walk(inner)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				out = append(out, k)
				walk(e)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	for {
		var v any
		switch err := dec.Decode(&v); {
		case errors.Is(err, io.EOF):
			return out
		case err != nil:
			t.Fatalf("not JSON: %v: %s", err, text)
		}
		walk(v)
	}
}

// FuzzHeaderCardData puts arbitrary text in the headers a client chooses freely (an
// idempotency key, a session, a scenario name, the user agent) of an adjustment,
// the seeds holding a card number, and looks for that number in clear in the
// journal entry and the log line; the answer is a 200 or a GP error. Text a server
// refuses before any handler sees it (control bytes) is not sent.
func FuzzHeaderCardData(f *testing.F) {
	f.Add("key "+panVisa, "4263 9700 0000 5262", "steps", "agent/"+panVisa)
	f.Add(panVisa, panVisa, panVisa, panVisa)
	f.Add("k-%34263970000005262", "s\u00a0"+panVisa, "", "%B"+panVisa+"^DOE/JOHN^2512101?")
	// No scenario installed: a built-in one named in the header would hold the
	// answer back (timeout-after-commit, slow-network).
	sink := newCardSink(f, apitest.Options{Scenarios: []scenario.Scenario{}})
	f.Fuzz(func(t *testing.T, key, session, scenarioName, agent string) {
		for _, v := range []string{key, session, scenarioName, agent} {
			if !validHeaderValue(v) {
				return
			}
		}
		req := clientRequest("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", sink.token, []byte(`{"gratuity_amount":"1"}`))
		for name, v := range map[string]string{"X-GP-Idempotency": key, "X-Sandbox-Session": session, "X-Sandbox-Scenario": scenarioName, "User-Agent": agent} {
			if v != "" {
				req.Header.Set(name, v)
			}
		}
		answer := serve(sink.env.Handler, req)
		mustBeGPAnswer(t, []byte(key+"|"+session+"|"+scenarioName+"|"+agent), answer)
		sink.mustShowNoCard(t, answer, false)
	})
}

// validHeaderValue reports whether net/http's server would pass v to a handler.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
