package apitest

// The requests and checks both test suites build on.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
)

// AdminTransaction is the part of an admin transaction view the seeding tests read.
type AdminTransaction struct {
	ID, Type, Status, Amount, Currency, Country string
	MerchantID                                  string                           `json:"merchant_id"`
	TimeCreated                                 string                           `json:"time_created"`
	AuthorizationAmount                         string                           `json:"authorization_amount"`
	BatchID                                     string                           `json:"batch_id"`
	BatchClosed                                 bool                             `json:"batch_closed"`
	PaymentMethod                               struct{ Result, Message string } `json:"payment_method"`
	Action                                      struct{ ID, Type string }
}

// MustSeed sends a transaction document to the admin API (PUT or POST
// /_sandbox/transactions) and fails the test unless it answers 200.
func (env *Env) MustSeed(method, path, body string) AdminTransaction {
	env.T.Helper()
	return env.MustSeedAs(method, path, JSONHeader(), body)
}

// MustSeedAs is MustSeed with the request's headers.
func (env *Env) MustSeedAs(method, path string, header map[string]string, body string) AdminTransaction {
	env.T.Helper()
	r := env.Do(method, path, header, body)
	if r.Status != 200 {
		env.T.Fatalf("%s %s %s: %d %s", method, path, body, r.Status, r.Body)
	}
	var v AdminTransaction
	if err := json.Unmarshal(r.Body, &v); err != nil {
		env.T.Fatalf("%s %s: %v", method, path, err)
	}
	return v
}

// MustPlaceOrder places an order for merchant One (see mustPlaceOrderFor).
func (env *Env) MustPlaceOrder(tok, body string) string {
	env.T.Helper()
	return env.MustPlaceOrderFor(tok, MerchantOne, body)
}

// MustPlaceOrderFor places an order for a merchant and returns its id, failing the
// test unless the order is placed: 200 and INITIATED.
func (env *Env) MustPlaceOrderFor(tok, merchantID, body string) string {
	env.T.Helper()
	r := env.Do("POST", "/merchants/"+merchantID+"/orders", APIHeader(tok), body)
	if r.Status != 200 || r.JSON(env.T)["status"] != "INITIATED" {
		env.T.Fatalf("order: %d %s", r.Status, r.Body)
	}
	return r.JSON(env.T)["id"].(string)
}

// SetAPIHeaders sets an API call's headers on req, with a fresh idempotency key.
func SetAPIHeaders(req *http.Request, tok string, _ uint64) {
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-GP-Version", Version)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GP-Idempotency", fmt.Sprintf("bench-%d", benchKeys.Add(1)))
}

// MICBody is a MiC request as the Java and .NET SDKs send it, around one UPA command.
func MICBody(command, data string) string {
	inner := `"command":"` + command + `","requestId":"10001","EcrId":"13"`
	if data != "" {
		inner += `,"data":` + data
	}
	return `{"account_name":"transaction_processing","channel":"CP","country":"US","currency":"USD","reference":"10001",` +
		`"request":{"message":"MSG","data":{` + inner + `}},"notifications":{}}`
}

// MIC sends a command and returns the device request, failing unless it is 200.
func (env *Env) MIC(tok, command, data string) map[string]any {
	env.T.Helper()
	r := env.Do("POST", "/devices", APIHeader(tok), MICBody(command, data))
	if r.Status != 200 {
		env.T.Fatalf("%s: %d %s", command, r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// Dig walks a decoded JSON object by dotted path.
func Dig(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// LockedBuffer is a log sink the server writes while the test reads.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p under the lock.
func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Take returns what was written since the last Take and forgets it.
func (l *LockedBuffer) Take() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	taken := bytes.Clone(l.b.Bytes())
	l.b.Reset()
	return taken
}

// String is what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// MustJournal reads the journal with the query; a failed read fails the test.
func (env *Env) MustJournal(query string) []admin.JournalEntry {
	env.T.Helper()
	r := env.Do("GET", "/_sandbox/requests"+query, nil, "")
	var page JournalPage
	if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil {
		env.T.Fatalf("journal%s: %d %s", query, r.Status, r.Body)
	}
	return page.Requests
}

// DeclinedCard is a keyed card the sandbox declines, as GP's test hosts do.
const DeclinedCard = `{"number":"4000120000001154","expiry_month":"12","expiry_year":"30"}`

// MustTransactionIn makes a transaction in the named state through the API.
func (env *Env) MustTransactionIn(tok, state string) string {
	env.T.Helper()
	switch state {
	case "CAPTURED":
		return env.MustCharge(tok, SaleBody("1000", "AUTO", ManualCard))["id"].(string)
	case "PREAUTHORIZED":
		return env.MustCharge(tok, SaleBody("1000", "LATER", ManualCard))["id"].(string)
	case "DECLINED":
		return env.MustCharge(tok, SaleBody("1000", "AUTO", DeclinedCard))["id"].(string)
	case "REVERSED":
		id := env.MustTransactionIn(tok, "CAPTURED")
		env.MustPost(tok, "/transactions/"+id+"/reversal", `{}`)
		return id
	case "VERIFIED":
		r := env.Do("POST", "/verifications", APIHeader(tok),
			`{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":`+ManualCard+`}}`)
		return r.JSON(env.T)["id"].(string)
	case "REFUND":
		return env.MustCharge(tok, strings.Replace(SaleBody("1000", "AUTO", ManualCard), `"SALE"`, `"REFUND"`, 1))["id"].(string)
	case "CLOSED_BATCH":
		return Batched // a fixture: CAPTURED in a closed batch
	}
	env.T.Fatalf("no state %s", state)
	return ""
}

// MustPost sends an API call and fails the test unless it answers 200.
func (env *Env) MustPost(tok, path, body string) map[string]any {
	env.T.Helper()
	r := env.Do("POST", path, APIHeader(tok), body)
	if r.Status != 200 {
		env.T.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// CardOf is payment_method.card with the given members and funding ("" sends none,
// as the PHP SDK and .NET's track data do).
func CardOf(funding string, members ...string) string {
	if funding != "" {
		members = append(members, `"funding":"`+funding+`"`)
	}
	return "{" + strings.Join(members, ",") + "}"
}

// Quoted is a JSON member name: "value".
func Quoted(name, value string) string { return `"` + name + `":"` + value + `"` }

// TokenizeBody is a POST /payment-methods body; %s is its usage mode.
const TokenizeBody = `{"account_name":"tokenization","usage_mode":"%s","card":` + ManualCard + `}`

// swipe, chip, manual and so on build POST /transactions bodies as the Node SDK
// sends them.
func SaleBody(amount, captureMode, card string, extra ...string) string {
	entry := "SWIPE"
	switch {
	case strings.Contains(card, `"tag"`):
		entry = "CHIP"
	case strings.Contains(card, `"number"`):
		entry = "MANUAL"
	}
	more := ""
	for _, e := range extra {
		more += "," + e
	}
	return fmt.Sprintf(`{"account_name":"transaction_processing","channel":"CP","country":"US","type":"SALE",`+
		`"capture_mode":%q,"amount":%q,"currency":"USD","reference":"ref-1"%s,`+
		`"payment_method":{"entry_mode":%q,"card":%s}}`, captureMode, amount, more, entry, card)
}

// TrackCard is a swiped card's payment_method.card, with extra members.
func TrackCard(extra ...string) string {
	s := `{"track":"` + VisaTrack + `"`
	for _, e := range extra {
		s += "," + e
	}
	return s + `,"funding":"CREDIT"}`
}

// ManualCard is a keyed card.
const ManualCard = `{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"123"}`

// MustCharge takes a payment through POST /transactions and returns the response.
func (env *Env) MustCharge(tok, body string) map[string]any {
	env.T.Helper()
	r := env.Do("POST", "/transactions", APIHeader(tok), body)
	if r.Status != 200 {
		env.T.Fatalf("POST /transactions: %d %s", r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// PartnerToken is a token of the default partner app.
func (env *Env) PartnerToken() string {
	env.T.Helper()
	return env.MustToken(PartnerApp, PartnerKey, "")
}

// JournalPage is GET /_sandbox/requests decoded.
type JournalPage struct {
	Requests []admin.JournalEntry
	Next     string
}

// benchKeys numbers idempotency keys across every run of every benchmark: a
// benchmark function runs several times against the same store.
var benchKeys atomic.Uint64

// Err is the GP error a test expects: its HTTP status and its three members.
func Err(status int, code, detail, description string) GPError {
	return GPError{Status: status, Error: sandbox.Error{Code: code, Detail: detail, Description: description}}
}

// InstalledScenario is a scenario document the tests install over the admin API.
const InstalledScenario = `version: 1
name: my-decline
description: Adjustments fail as when a system behind GP is down.
rules:
  - when: {operation: adjustment}
    then:
      status: 502
      error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: "50046"}
`

// GP's card-present test values.
const (
	VisaTrack       = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"
	ExpiredTrack    = ";4024720012345671=18125025432198712345?"
	PINBlock        = "32539F50C245A6A93D123412324000AA"
	ExpiredPINBlock = "AFEC374574FC90623D010000116001EE"
	EMVTag          = "9F4005F000F0A0019F02060000000025009F2701809F0D05F040008800"
	InteracTag      = "82021C008407A0000002771010950580000000009A031709289C01005F280201245F2A0201245F3401019F02060000000010009F03060000000000009F080200019F090200019F100706010A03A420009F1A0201249F26089CC473F4A4CE18D39F2701809F3303E0F8C89F34030100029F3501229F360200639F370435EFED379F410400000019"
)
