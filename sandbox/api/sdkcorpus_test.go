package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The golden corpus (testdata/sdk, described in its README) is what the official SDKs
// send for each operation and what GP answers. TestSDKCorpus sends every entry to a
// fresh sandbox over HTTP and holds the answer to the entry's expect.

// batchOrTokenEntry reports whether an entry is one of the batch and token entries,
// which need state of their own (a token, a batch in a given state) and run in
// TestSDKCorpusBatchesAndTokens.
func batchOrTokenEntry(op string) bool {
	return strings.HasPrefix(op, "batch-") || strings.HasPrefix(op, "token") || op == "sale-token"
}

// The GP sandbox layout app: one account of each kind, as the SDKs expect to find.
const (
	layoutApp       = "SandboxGPLayoutAppId000000000003"
	layoutKey       = "SandboxAppKey003"
	layoutTRA       = "TRA_00000000000000000000000000000003"
	layoutTKA       = "TKA_00000000000000000000000000000003"
	unknownTRN      = "TRN_0123456789abcdef0123456789abcd"
	unknownBAT      = "BAT_0123456789"
	unknownPMT      = "PMT_0123456789abcdef0123456789abcdef"
	corpusSaleMinor = 1202 // the amount of the sale every lifecycle entry acts on
)

// corpusTime is the day the corpus was written: its dates (lodging, list filters) are
// around it.
var corpusTime = time.Date(2026, 6, 25, 9, 15, 0, 0, time.UTC)

type corpusEntry struct {
	SDK     string            `json:"sdk"`
	Version string            `json:"version"`
	Source  string            `json:"source"`
	Test    string            `json:"test"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   map[string]string `json:"query"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
	Expect  struct {
		Status          int            `json:"status"`
		Error           []string       `json:"error"`
		ResponseMembers map[string]any `json:"response_members"`
		Evidence        string         `json:"evidence"`
	} `json:"expect"`
	Note string `json:"note"`
	// ContradictedBy names an entry of the same SDK that sends the very same request
	// and whose SDK test expects another answer: no server can give both, so the
	// sandbox gives that entry's, and the note says why (see the README).
	ContradictedBy string `json:"contradicted_by"`
}

func loadCorpus(t testing.TB) map[string]corpusEntry {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "sdk", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	entries := map[string]corpusEntry{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var e corpusEntry
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".json")
		if e.SDK != filepath.Base(filepath.Dir(f)) || e.Source == "" || e.Expect.Status == 0 || e.Expect.Evidence == "" {
			t.Fatalf("%s: sdk, source, expect.status and expect.evidence are required", f)
		}
		entries[name] = e
	}
	return entries
}

func TestSDKCorpus(t *testing.T) {
	entries := loadCorpus(t)
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		e := entries[name]
		op := strings.TrimPrefix(name, e.SDK+"/")
		if batchOrTokenEntry(op) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			answered := e
			if e.ContradictedBy != "" {
				answered = mustContradiction(t, e, entries[e.SDK+"/"+e.ContradictedBy])
			}
			if problem := runCorpusEntry(t, e, answered, op); problem != "" {
				t.Errorf("%s %s (%s): %s", e.Method, e.Path, e.Test, problem)
			}
		})
	}
}

// mustContradiction checks that an entry contradicted by other is what it says: the
// same request as other's, with another expect, other not contradicted in turn.
// It returns the entry whose expect the answer is held to: other.
func mustContradiction(t *testing.T, e, other corpusEntry) corpusEntry {
	t.Helper()
	request := func(c corpusEntry) string {
		var body bytes.Buffer
		if err := json.Compact(&body, c.Body); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(c.Method, c.Path, c.Query, c.Headers, body.String())
	}
	expect := func(c corpusEntry) string {
		return fmt.Sprint(c.Expect.Status, c.Expect.Error, c.Expect.ResponseMembers)
	}
	switch {
	case other.SDK == "":
		t.Fatalf("contradicted by %s, which is not an entry of %s", e.ContradictedBy, e.SDK)
	case other.ContradictedBy != "":
		t.Fatalf("contradicted by %s, which is contradicted in turn", e.ContradictedBy)
	case request(e) != request(other):
		t.Fatalf("contradicted by %s, which sends another request: the entry must pass on its own", e.ContradictedBy)
	case expect(e) == expect(other):
		t.Fatalf("contradicted by %s, which expects the same answer", e.ContradictedBy)
	}
	return other
}

// runCorpusEntry sets up what the entry's placeholders stand for, sends it and
// returns how the answer differs from answered's expect ("" when it does not).
func runCorpusEntry(t *testing.T, e, answered corpusEntry, op string) string {
	env := mustSandboxWith(t, apitest.Options{Configure: []func(*app.Config){func(c *app.Config) { c.Clock = corpusTime }}})
	token := env.MustToken(layoutApp, layoutKey, "")
	vars := map[string]string{
		"app_id": layoutApp, "account_id": layoutTRA, "merchant_id": apitest.MerchantOne, "token_id": unknownPMT,
		"mma_account_id": layoutMMA,
	}
	if strings.Contains(e.Path, "payment-methods") {
		vars["account_id"] = layoutTKA
	}
	setUpCorpusEntry(env, token, e, op, vars)
	setUpBackOfficeEntry(env, token, e, op, vars)
	if e.Path == "/devices" {
		setUpDeviceEntry(env, token, e, op, vars)
	}

	body := string(e.Body)
	if body == "null" || body == "" {
		body = ""
	}
	body = substitute(body, vars)
	if e.Path == "/accesstoken" {
		var b struct {
			Nonce string `json:"nonce"`
		}
		_ = json.Unmarshal([]byte(body), &b)
		body = strings.ReplaceAll(body, "{{secret}}", sandbox.Secret(b.Nonce, layoutKey))
	}
	path := substitute(e.Path, vars)
	if len(e.Query) > 0 {
		q := url.Values{}
		for k, v := range e.Query {
			q.Set(k, substitute(v, vars))
		}
		path += "?" + q.Encode()
	}
	header := apitest.APIHeader(token)
	if e.Path == "/accesstoken" {
		header = apitest.JSONHeader()
	}
	for k, v := range e.Headers {
		header[k] = v
	}
	r := env.Do(e.Method, path, header, body)
	return corpusMismatch(answered, r, vars)
}

func substitute(s string, vars map[string]string) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}

// setUpCorpusEntry makes the transaction and batch the entry acts on, and names them
// in vars.
func setUpCorpusEntry(env *sandboxEnv, token string, e corpusEntry, op string, vars map[string]string) {
	uses := func(p string) bool {
		return strings.Contains(e.Path+string(e.Body)+fmt.Sprint(e.Query), "{{"+p+"}}")
	}
	if uses("transaction_id") {
		switch {
		case op == "transaction-get-unknown":
			vars["transaction_id"] = unknownTRN
		case strings.HasPrefix(op, "capture-multiple"):
			vars["transaction_id"] = corpusSale(env, token, "MULTIPLE", "")["id"].(string)
		case strings.HasPrefix(op, "capture") || op == "incremental" || op == "incremental-lodging":
			vars["transaction_id"] = corpusSale(env, token, "LATER", "")["id"].(string)
		case op == "reauthorization":
			id := corpusSale(env, token, "AUTO", "")["id"].(string)
			mustCorpusStatus(env, "POST", "/transactions/"+id+"/reversal", token, `{}`, 200)
			vars["transaction_id"] = id
		case strings.Contains(e.Test, "NotPresent"):
			// The SDK's card-not-present test acts on a card-not-present sale.
			vars["transaction_id"] = corpusSaleOn(env, token, sandbox.ChannelCNP, "AUTO", "")["id"].(string)
		default:
			vars["transaction_id"] = corpusSale(env, token, "AUTO", "")["id"].(string)
		}
	}
	if uses("batch_id") {
		switch op {
		case "batch-close-unknown":
			vars["batch_id"] = unknownBAT
		case "batch-close-declined-only":
			// 38865000000705 is declined by GP's sandbox; its batch holds nothing to close.
			sale := corpusSale(env, token, "AUTO", "38865000000705")
			id, _ := sale["batch_id"].(string)
			vars["batch_id"] = id
		default:
			// The list filters look for a swiped Visa 401200…0016 in this batch.
			sale := corpusSale(env, token, "AUTO", "%B4012002000060016^VI TEST CREDIT^301210118039000000000396?")
			vars["batch_id"] = sale["batch_id"].(string)
			if op == "batch-close-closed" {
				mustCorpusStatus(env, "POST", "/batches/"+vars["batch_id"], token, "", 200)
			}
		}
	}
}

// layoutDevice is the terminal the fixtures bind to the layout app's
// transaction-processing account, which the Node SDK's Meet in the Cloud tests pay
// through; the Java, .NET and PHP tests name GP's own terminal account, 9187, whose
// namesake the fixtures also bind a terminal to.
const layoutDevice = "DEV_00000000000000000000000000000004"

// setUpDeviceEntry gives the terminal a till's day before a Meet in the Cloud entry:
// a sale in the open batch, numbered 0001, and an authorization still open (what the
// reports and the linked commands act on), the debug level a GetDebugLevel entry's test set
// before it, and the INITIATED mode the Node SDK's tests expect; then the command a
// {{device_request_id}} names, as its SDK test sent it first (an authorization for a
// completion, a sale otherwise). The day is on the entry's account's terminal, in the
// entry's country and currency, as its SDK test's is: a terminal's batch is its
// account's in those.
func setUpDeviceEntry(env *sandboxEnv, token string, e corpusEntry, op string, vars map[string]string) {
	config := struct {
		Account           string `json:"account_name"`
		Country, Currency string
	}{"transaction_processing", "US", "USD"}
	if err := json.Unmarshal(e.Body, &config); err != nil {
		env.T.Fatalf("the entry's body: %v", err)
	}
	mic := func(command, data string) map[string]any {
		env.T.Helper()
		body := strings.Replace(apitest.MICBody(command, data), `"account_name":"transaction_processing","channel":"CP","country":"US","currency":"USD"`,
			`"account_name":"`+config.Account+`","channel":"CP","country":"`+config.Country+`","currency":"`+config.Currency+`"`, 1)
		return mustCorpusStatus(env, "POST", "/devices", token, body, 200)
	}
	sale := mic("Sale", `{"transaction":{"baseAmount":"12.02"}}`) // 0001, which the .NET tests name: no authorization
	vars["tran_no"] = apitest.Dig(sale, "response.data.host.tranNo").(string)
	mic("PreAuth", `{"transaction":{"baseAmount":"20.00"}}`)
	if op == "device-debug-level" {
		mic("SetDebugLevel", `{"params":{"debugLevel":"PACKETS|DATA"}}`)
	}
	if e.SDK == "node" {
		env.MustAdmin("POST", "/_sandbox/devices/"+layoutDevice, `{"mode":"INITIATED"}`)
	}
	if strings.Contains(string(e.Body), "{{device_request_id}}") {
		first := "Sale"
		if strings.Contains(op, "capture") {
			first = "PreAuth"
		}
		vars["device_request_id"] = mic(first, `{"transaction":{"baseAmount":"15.00"}}`)["id"].(string)
	}
}

// corpusSale takes a card-present sale of corpusSaleMinor: keyed Visa unless card
// names another number, or a track (which starts with %).
func corpusSale(env *sandboxEnv, token, captureMode, card string) map[string]any {
	env.T.Helper()
	return corpusSaleOn(env, token, sandbox.ChannelCP, captureMode, card)
}

// corpusSaleOn is corpusSale on a channel: card not present, a keyed card is ECOM.
func corpusSaleOn(env *sandboxEnv, token, channel, captureMode, card string) map[string]any {
	env.T.Helper()
	entry := "MANUAL"
	if channel == sandbox.ChannelCNP {
		entry = "ECOM"
	}
	pm := `{"entry_mode":"` + entry + `","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"123"}}`
	switch {
	case strings.HasPrefix(card, "%"):
		pm = `{"entry_mode":"SWIPE","card":{"track":"` + card + `"}}`
	case card != "":
		pm = `{"entry_mode":"MANUAL","card":{"number":"` + card + `","expiry_month":"12","expiry_year":"30"}}`
	}
	body := `{"account_name":"transaction_processing","channel":"` + channel + `","type":"SALE","capture_mode":"` + captureMode +
		`","amount":"` + strconv.Itoa(corpusSaleMinor) + `","currency":"USD","country":"US","payment_method":` + pm + `}`
	return mustCorpusStatus(env, "POST", "/transactions", token, body, 200)
}

func mustCorpusStatus(env *sandboxEnv, method, path, token, body string, status int) map[string]any {
	env.T.Helper()
	r := env.Do(method, path, apitest.APIHeader(token), body)
	if r.Status != status {
		env.T.Fatalf("set-up %s %s: %d %s", method, path, r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// corpusMismatch compares an answer with the entry's expect: the status, the error
// tuple whole, and each response member by its dotted path ("a[].b" is every
// element's b).
func corpusMismatch(e corpusEntry, r apitest.Reply, vars map[string]string) string {
	if r.Status != e.Expect.Status {
		return fmt.Sprintf("status %d, want %d: %s", r.Status, e.Expect.Status, r.Body)
	}
	var got any
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		return fmt.Sprintf("answer is not JSON: %s", r.Body)
	}
	if want := e.Expect.Error; want != nil {
		m, _ := got.(map[string]any)
		tuple := []string{fmt.Sprint(m["error_code"]), fmt.Sprint(m["detailed_error_code"]), fmt.Sprint(m["detailed_error_description"])}
		for i := range want {
			if tuple[i] != substitute(want[i], vars) {
				return fmt.Sprintf("error %q, want %q", tuple, want)
			}
		}
	}
	return membersMismatch(got, e.Expect.ResponseMembers, vars, r.Body)
}

// membersMismatch holds the decoded answer got (numbers as json.Number) to an entry's
// response_members, in path order, and says how the first one differs ("" when none
// does).
func membersMismatch(got any, want map[string]any, vars map[string]string, body []byte) string {
	paths := make([]string, 0, len(want))
	for path := range want {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		values := memberValues(got, strings.Split(path, "."))
		if len(values) == 0 {
			return fmt.Sprintf("no %s in %s", path, body)
		}
		for _, v := range values {
			if !memberMatches(v, want[path], vars) {
				return fmt.Sprintf("%s is %v, want %v", path, v, want[path])
			}
		}
	}
	return ""
}

// memberValues follows a dotted path; a step named "x[]" continues in every element
// of the array x.
func memberValues(v any, steps []string) []any {
	if len(steps) == 0 {
		return []any{v}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	step, each := strings.CutSuffix(steps[0], "[]")
	next, ok := m[step]
	if !ok {
		return nil
	}
	if !each {
		return memberValues(next, steps[1:])
	}
	arr, _ := next.([]any)
	var out []any
	for _, el := range arr {
		out = append(out, memberValues(el, steps[1:])...)
	}
	return out
}

// memberMatches holds a value to an expected one: equal, or of the kind a describing
// value names ("array", "integer", "string", ">=N", "PREFIX_...").
func memberMatches(got, want any, vars map[string]string) bool {
	s, isString := want.(string)
	if !isString {
		return fmt.Sprint(got) == fmt.Sprint(want)
	}
	s = substitute(s, vars)
	switch {
	case s == "array":
		_, ok := got.([]any)
		return ok
	case s == "integer":
		n, ok := got.(json.Number)
		_, err := n.Int64()
		return ok && err == nil
	case s == "string":
		_, ok := got.(string)
		return ok
	case s == "non-empty string":
		g, ok := got.(string)
		return ok && g != ""
	case s == ">= sale amount":
		return atLeast(got, corpusSaleMinor)
	case strings.HasPrefix(s, ">="):
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(s, ">=")))
		return err == nil && atLeast(got, n)
	case strings.HasSuffix(s, "_..."):
		g, ok := got.(string)
		return ok && strings.HasPrefix(g, strings.TrimSuffix(s, "..."))
	}
	return fmt.Sprint(got) == s
}

func atLeast(v any, n int) bool {
	got, err := strconv.Atoi(fmt.Sprint(v))
	return err == nil && got >= n
}
