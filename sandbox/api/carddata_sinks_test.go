package api_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// sinkEnv is a sandbox with a database file and a captured log, for tests that look
// for card data in every place it could be kept or shown.
type sinkEnv struct {
	*sandboxEnv
	dbPath string
	mu     sync.Mutex
	logs   bytes.Buffer
}

func mustSinkSandbox(t *testing.T, o apitest.Options) *sinkEnv {
	t.Helper()
	s := &sinkEnv{dbPath: filepath.Join(t.TempDir(), "sandbox.db")}
	o.DBPath, o.Log = s.dbPath, lockedWriter{&s.mu, &s.logs}
	s.sandboxEnv = mustSandboxWith(t, o)
	return s
}

// places reads every place card data could be kept or shown: the database file, the
// log, the journal, and the answers of the admin paths (the inspector reads those),
// together as "admin views".
func (s *sinkEnv) places(t *testing.T, adminPaths []string) map[string][]byte {
	t.Helper()
	places := map[string][]byte{"journal": s.Do("GET", "/_sandbox/requests?limit=1000", nil, "").Body}
	for _, p := range adminPaths {
		places["admin views"] = append(places["admin views"], s.Do("GET", p, nil, "").Body...)
	}
	places["database file"] = dbRecords(t, s.dbPath)
	s.mu.Lock()
	// A log line's time and duration are numbers no request chose: "duration":124680
	// or a time's nanoseconds would otherwise read as a CVV in clear.
	places["log"] = regexp.MustCompile(`"(time|duration)":("[^"]*"|[0-9]+)`).ReplaceAll(s.logs.Bytes(), []byte(`"$1":0`))
	s.mu.Unlock()
	return places
}

// mustHoldNone fails when any clear string is found in any of the places, the
// database file included unless inStore is false: free text is kept as sent there.
// holds reports whether content shows secret: a secret of digits alone (a CVV) as
// a whole number, not inside a longer one or a duration's fraction (1.4826 ms).
func holds(content []byte, secret string) bool {
	if sandbox.AllDigits(secret) {
		return inClear(content, "CVV", secret)
	}
	return bytes.Contains(content, []byte(secret))
}

func (s *sinkEnv) mustHoldNone(t *testing.T, adminPaths []string, inStore bool, clear ...string) {
	t.Helper()
	for place, content := range s.places(t, adminPaths) {
		if place == "database file" && !inStore {
			continue
		}
		for _, c := range clear {
			if holds(content, c) {
				t.Errorf("%q in clear in the %s", c, place)
			}
		}
	}
}

// buntdbFraming is what buntdb writes around a file's keys and values: counts, lengths,
// and an item's expiry time (Unix seconds), numbers no request chose that may hold any
// four digits a sweep looks for.
var buntdbFraming = regexp.MustCompile(`(?m)^(?:\$2\r\n(?:ae|ex)\r\n\$\d+\r\n\d+\r\n|[*$]\d+\r\n)`)

// dbRecords reads a database file as the card-data sweeps search it: its commands,
// keys and values, each framing number replaced by a NUL.
func dbRecords(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return buntdbFraming.ReplaceAll(data, []byte{0})
}

const (
	panVisa   = "4263970000005262"
	panMiddle = "970000005" // the digits masking hides
)

func cardSaleBody(card string, extra string) string {
	return `{"account_name":"transaction_processing","channel":"CP","type":"SALE","amount":"100","currency":"USD","country":"US"` +
		extra + `,"payment_method":{"entry_mode":"MANUAL","card":` + card + `}}`
}

// Finding 1: a scenario's closest miss names the field and the rule, never the
// request's value: neither its CVV nor its bearer token.
func TestScenarioMissKeepsNoRequestValue(t *testing.T) {
	picky := scenario.Scenario{Name: "picky", Rules: []scenario.Rule{{
		When: scenario.When{
			Operations: []string{string(sandbox.OpTransaction)},
			Headers:    map[string]string{"Authorization": "Bearer someone-else"},
			Body:       map[string]any{"payment_method": map[string]any{"card": map[string]any{"cvv": "999"}}},
		},
		Then: &scenario.Outcome{},
	}}}
	env := mustSinkSandbox(t, apitest.Options{Scenarios: []scenario.Scenario{picky}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok, "X-Sandbox-Scenario", "picky"),
		cardSaleBody(`{"number":"4012002000060016","expiry_month":"12","expiry_year":"30","cvv":"826"}`, ""))
	if r.Status != 200 {
		t.Fatalf("sale: %d %s", r.Status, r.Body)
	}
	entries := env.MustJournal("?operation=transaction")
	if len(entries) == 0 {
		t.Fatal("no journal entry")
	}
	if want := "picky#0: header Authorization does not match; body.payment_method.card.cvv does not match"; entries[0].Miss != want {
		t.Errorf("miss %q, want %q", entries[0].Miss, want)
	}
	env.mustHoldNone(t, nil, true, `\"826\"`, `"826"`, tok)
}

// Finding 2: a PAN or track 2 equivalent inside an EMV template is masked in the
// store, the admin view and the journal.
func TestEMVCardDataInTemplatesMasked(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	tag := "7010" + "5A08" + panVisa + "5F2403251231" + "770C" + "570A" + panVisa + "D251"
	r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"payment_method":{"card":{"tag":"`+tag+`"}}}`)
	if r.Status != 200 {
		t.Fatalf("adjustment: %d %s", r.Status, r.Body)
	}
	if got := env.mustTransaction(apitest.CapturedOne).EMVTag; !strings.Contains(got, "5A08426397******5262") {
		t.Errorf("stored tag %q: the adjustment did not reach the store", got)
	}
	env.mustHoldNone(t, []string{"/_sandbox/transactions/" + apitest.CapturedOne}, true, panVisa, panMiddle)
}

// What is no card data is kept and echoed as sent, as GP does: a numeric reference
// the masking would read a card number into, a UUID, a description, an offline
// authcode. The answers, the store and the transaction search show the references as
// sent, and so do the journal and the inspector; an authcode is free text, echoed
// and kept as sent, and masked where a person reads the sandbox.
func TestNonCardMembersEchoedAsSent(t *testing.T) {
	const (
		numericRef  = "2024120500012345" // free text masking makes it 20241205****2345
		uuidRef     = "c5921403-8716-6234-3d2b-b6622bc468e2"
		description = "Table 12, two covers, voucher 2024-12-05"
	)
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	card := `{"number":"4012002000060016","expiry_month":"12","expiry_year":"30"}`
	sale := env.MustCharge(tok, cardSaleBody(strings.Replace(card, "}", `,"authcode":"`+panVisa+`"}`, 1),
		`,"reference":"`+numericRef+`","description":"`+description+`"`))
	byUUID := env.MustCharge(tok, cardSaleBody(card, `,"reference":"`+uuidRef+`"`))
	if sale["reference"] != numericRef || byUUID["reference"] != uuidRef || apitest.Dig(sale, "payment_method.card.authcode") != panVisa {
		t.Errorf("answers: %v\n%v", sale, byUUID)
	}
	for ref, id := range map[string]string{numericRef: sale["id"].(string), uuidRef: byUUID["id"].(string)} {
		if stored := env.mustTransaction(id).Reference; stored != ref {
			t.Errorf("stored reference %q, want %q", stored, ref)
		}
		if got := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").JSON(t); got["reference"] != ref {
			t.Errorf("GET /transactions/%s: %v", id, got)
		}
		if r := env.Do("GET", "/transactions?reference="+ref, apitest.APIHeader(tok), ""); !bytes.Contains(r.Body, []byte(id)) {
			t.Errorf("search by reference %s: %s", ref, r.Body)
		}
	}
	token := env.MustPost(tok, "/payment-methods", `{"account_name":"tokenization","reference":"`+numericRef+`","card":`+apitest.ManualCard+`}`)
	device := env.Do("POST", "/devices", apitest.APIHeader(tok), strings.Replace(apitest.MICBody("Ping", ""), `"reference":"10001"`, `"reference":"`+uuidRef+`"`, 1)).JSON(t)
	if token["reference"] != numericRef || device["reference"] != uuidRef {
		t.Errorf("token %v\ndevice request %v", token, device)
	}
	// A UUID in a path is an id, logged and journaled as sent.
	byUUIDPath := "/payment-methods/PMT_" + uuidRef
	env.Do("GET", byUUIDPath, apitest.APIHeader(tok), "")
	places := env.places(t, []string{"/_sandbox/transactions/" + sale["id"].(string), "/_sandbox/device-requests/" + device["id"].(string)})
	for place, want := range map[string][]string{
		"database file": {numericRef, uuidRef, panVisa},
		"journal":       {`"reference":"` + numericRef + `"`, `"reference":"` + uuidRef + `"`, `"description":"` + description + `"`, `"authcode":"426397******5262"`, `"path":"` + byUUIDPath + `"`},
		"admin views":   {`"reference":"` + numericRef + `"`, `"reference":"` + uuidRef + `"`, `"authcode":"426397******5262"`},
		"log":           {`"path":"` + byUUIDPath + `"`},
	} {
		for _, w := range want {
			if !bytes.Contains(places[place], []byte(w)) {
				t.Errorf("%s not in the %s", w, place)
			}
		}
	}
	for _, place := range []string{"journal", "admin views", "log"} {
		if bytes.Contains(places[place], []byte(panVisa)) {
			t.Errorf("the authcode's card number in clear in the %s", place)
		}
	}
}

// Finding 4: headers are journaled and logged through the masking, and a session
// carrying a card number is no key of the store in clear, even with a sequence.
func TestHeaderCardDataMasked(t *testing.T) {
	steps := scenario.Scenario{Name: "steps", Rules: []scenario.Rule{{
		When:     scenario.When{Operations: []string{string(sandbox.OpAdjustment)}},
		Sequence: []scenario.Step{{Then: scenario.Outcome{}, Times: 1}, {Then: scenario.Outcome{}}},
	}}}
	env := mustSinkSandbox(t, apitest.Options{Scenarios: []scenario.Scenario{steps}, Global: []string{"steps"}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	headers := apitest.APIHeader(tok, "X-GP-Idempotency", "key "+panVisa, "X-Sandbox-Session", "4263 9700 0000 5262",
		"User-Agent", "agent/"+panVisa, "Accept-Encoding", panVisa, "X-Sandbox-Scenario", "steps")
	for range 2 {
		if r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", headers, `{"amount":"1"}`); r.Status != 200 && r.Status != 409 {
			t.Fatalf("adjustment: %d %s", r.Status, r.Body)
		}
	}
	headers["X-GP-Version"], headers["Content-Type"] = panVisa, "application/json; "+panVisa
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", headers, `{"amount":"1"}`)
	if r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", headers, `{"amount":"1"}`); r.Status < 400 {
		t.Errorf("a card number as version: %d", r.Status)
	}
	entries := env.MustJournal("")
	if len(entries) == 0 || entries[0].Session != "4263 97** **** 5262" {
		t.Errorf("journaled session: %+v", entries)
	}
	env.mustHoldNone(t, nil, true, panVisa, panMiddle, "9700 0000")
}

// Finding 5: card numbers written in every way a person or a program might, in free
// text (a description, which a transaction does not keep), are masked in the journal.
func TestFreeTextCardNumbersMasked(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	card := `{"number":"4012002000060016","expiry_month":"12","expiry_year":"30"}`
	forms := []string{
		"4263    9700    0000    5262", "4 2 6 3 9 7 0 0 0 0 0 0 5 2 6 2", "4263.9700.0000.5262",
		"4263_9700_0000_5262", "4263/9700/0000/5262", "4263\u00a09700\u00a00000\u00a05262",
		"４２６３９７００００００５２６２", panVisa + "1229", "00" + panVisa + "99", "5A08" + panVisa,
	}
	var ids []string
	for _, f := range forms {
		r := env.Do("POST", "/transactions", apitest.APIHeader(tok), cardSaleBody(card, `,"description":"`+f+`"`))
		if r.Status != 200 {
			t.Fatalf("sale with description %q: %d %s", f, r.Status, r.Body)
		}
		ids = append(ids, "/_sandbox/transactions/"+r.JSON(t)["id"].(string))
	}
	track := "%B" + panVisa + "^" + strings.Repeat("LONGNAME", 5) + "^2512101000000000000?"
	if r := env.Do("POST", "/transactions", apitest.APIHeader(tok), cardSaleBody(`{"track":"`+track+`"}`, "")); r.Status >= 500 {
		t.Fatalf("swipe: %d %s", r.Status, r.Body)
	}
	clear := append([]string{panMiddle, "2512101000000000000", "970000 005", "0 0 0 0 0", "9700.0000", "9700_0000",
		"9700/0000", "9700\u00a00000", "９７００００"}, forms...)
	env.mustHoldNone(t, ids, true, clear...)
}

// Finding 6: the card members of a fixture transaction and of an admin seed are
// masked when they are loaded; their other members are kept as sent, an id holding
// digits that pass the check included, and card numbers are masked where they are
// shown, in free text, an id or a reference.
func TestFixtureAndSeedCardDataMasked(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{Fixtures: func(f *sandbox.Fixtures) {
		f.Transactions[0].Reference = panVisa
		f.Transactions[0].PaymentMethod.Card.Authcode = "5425 2334 3010 9903"
		f.Transactions[0].EMVTag = "5A08" + panVisa
		f.Transactions[0].PaymentMethod.Card.MaskedNumberLast4 = panVisa
		f.Transactions[0].Card = sandbox.StoredCard{Brand: "VISA", First6: panVisa, Last4: panVisa}
	}})
	fixture := env.mustTransaction(apitest.CapturedOne)
	if fixture.EMVTag != "5A08426397******5262" || fixture.PaymentMethod.Card.MaskedNumberLast4 != "XXXXXXXXXXXX5262" ||
		fixture.Card.First6 != "426397" || fixture.Card.Last4 != "5262" {
		t.Errorf("fixture's card members as stored: %q %q %+v", fixture.EMVTag, fixture.PaymentMethod.Card.MaskedNumberLast4, fixture.Card)
	}
	if fixture.Reference != panVisa || fixture.PaymentMethod.Card.Authcode != "5425 2334 3010 9903" {
		t.Errorf("fixture's reference %q and authcode %q: want them as written", fixture.Reference, fixture.PaymentMethod.Card.Authcode)
	}
	seed := `{"merchant_id":"` + apitest.MerchantOne + `","type":"SALE","status":"CAPTURED","amount":"100",` +
		`"currency":"USD","country":"US","reference":"r","payment_method":{"result":"00","message":"ok",` +
		`"card":{"authcode":"1","brand_reference":"b"},"bnpl":{"provider":"` + panVisa + `"}},` +
		`"order":{"taxes":[{"type":"` + panVisa + `","amount":"1"}]},"action":{"id":"ACT_1","time_created":"2021-03-22T10:00:00.000Z","result_code":"SUCCESS",` +
		`"type":"` + panVisa + `","app_name":"` + panVisa + `"}}`
	// An id is shown as written and links the inspector's pages, so one holding a card
	// number is refused; one whose digits are no card number whole is kept as written.
	if got := env.Do("PUT", "/_sandbox/transactions/TRN_"+panVisa, apitest.JSONHeader(), seed).GPError(t); got.Status != 400 ||
		!strings.Contains(got.Description, "must not hold a card number") || strings.Contains(got.Description, panVisa) {
		t.Errorf("a seed under a card number: %+v", got)
	}
	seeded := "TRN_" + panVisa + "0"
	if r := env.Do("PUT", "/_sandbox/transactions/"+seeded, apitest.JSONHeader(), seed); r.Status != 200 || r.JSON(t)["id"] != seeded {
		t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	if got := env.mustTransaction(seeded).PaymentMethod.BNPL.Provider; got != panVisa {
		t.Errorf("seeded provider %q: want it as written", got)
	}
	views := []string{"/_sandbox/transactions/" + apitest.CapturedOne, "/_sandbox/transactions/" + seeded}
	env.mustHoldNone(t, views, false, "5425 2334 3010 9903", "2334 3010", `"provider":"`+panVisa, `"type":"`+panVisa, `"app_name":"`+panVisa)
	// Where it is shown, a reference or an id that is a card number is masked as one;
	// other references and ids read as written.
	if shown := env.places(t, views)["admin views"]; !bytes.Contains(shown, []byte(`"reference":"426397******5262"`)) ||
		!bytes.Contains(shown, []byte(`"id":"`+seeded+`"`)) || !bytes.Contains(shown, []byte(`"id":"`+apitest.CapturedOne+`"`)) ||
		!bytes.Contains(shown, []byte(`"app_name":"426397******5262"`)) {
		t.Errorf("admin views: want the card numbers masked, ids and free text alike: %s", shown)
	}
}

// Finding 7: other names of a CVV and an encryption key are journaled redacted, and
// access tokens are not kept in the database in clear.
func TestSecretNamesRedactedAndTokensHashed(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	body := `{"payment_method":{"card":{"cardCode":"7319","card_code":"4826","tag":"9F0206000000001000"},` +
		`"encryption":{"version":"01","key":"S3CRETKEY","ksn":"FFFF01"}}}`
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), body)
	if r := env.Do("GET", "/transactions/"+apitest.CapturedOne, apitest.APIHeader(tok), ""); r.Status != 200 {
		t.Fatalf("the token does not authenticate: %d %s", r.Status, r.Body)
	}
	env.mustHoldNone(t, nil, true, "7319", "4826", "S3CRETKEY", tok)
}

// A scenario is named as it is written in listings, headers, the log and the journal:
// one named with a card number, however written, is refused naming the rule, and the
// number is kept nowhere in clear.
func TestInstallScenarioNamedWithCardNumber(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{})
	yamlHeader := map[string]string{"Content-Type": "application/yaml"}
	names := []string{panVisa, "4263-9700-0000-5262", "x.4263970000005262"}
	for _, name := range names {
		body := strings.Replace(apitest.InstalledScenario, "name: my-decline", `name: "`+name+`"`, 1)
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "body:2:7: name: "+scenario.NameRule)
		if got := env.Do("POST", "/_sandbox/scenarios", yamlHeader, body).GPError(t); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	// Each refusal was logged (an admin call is not journaled: the sweep of the journal
	// finds the requests made beside it), and nothing was installed.
	env.mu.Lock()
	logged := strings.Count(env.logs.String(), `"path":"/_sandbox/scenarios"`)
	env.mu.Unlock()
	if logged != len(names) {
		t.Errorf("%d refused installs logged, want %d", logged, len(names))
	}
	env.mustHoldNone(t, []string{"/_sandbox/scenarios"}, true, panVisa, "4263-9700-0000-5262", panMiddle)
}
