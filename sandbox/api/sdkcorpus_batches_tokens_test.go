package api_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// testAccount is an account name of GP's own test apps, which the fixtures name
// transaction_processing.
var testAccount = regexp.MustCompile(`test_account_[A-Za-z0-9]+`)

// The batch and token entries of the SDK corpus, each sent as its SDK sends it after
// the state it needs, answered as its SDK's test expects.
func TestSDKCorpusBatchesAndTokens(t *testing.T) {
	files, err := filepath.Glob("testdata/sdk/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		if !batchOrTokenEntry(name) {
			continue
		}
		ran++
		t.Run(filepath.Base(filepath.Dir(file))+"/"+name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var e corpusEntry
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			env := mustSandbox(t)
			tok := env.MustToken(layoutApp, layoutKey, "")
			vars := corpusState(env, tok, name)
			fill := func(s string) string {
				for k, v := range vars {
					s = strings.ReplaceAll(s, "{{"+k+"}}", v)
				}
				return testAccount.ReplaceAllString(s, "transaction_processing")
			}
			body := ""
			if len(e.Body) > 0 && string(e.Body) != "null" {
				body = fill(string(e.Body))
			}
			header := apitest.APIHeader(tok)
			for k, v := range e.Headers {
				header[k] = v
			}
			r := env.Do(e.Method, fill(e.Path), header, body)
			if r.Status != e.Expect.Status {
				t.Fatalf("status %d, want %d: %s", r.Status, e.Expect.Status, r.Body)
			}
			if len(e.Expect.Error) == 3 {
				got, want := r.GPError(t), e.Expect.Error
				desc := fill(want[2])
				if got.Code != want[0] || got.Detail != want[1] || !strings.HasPrefix(got.Description, strings.TrimSuffix(desc, "...")) {
					t.Errorf("got %+v, want %v", got, want)
				}
				return
			}
			var got any
			dec := json.NewDecoder(bytes.NewReader(r.Body))
			dec.UseNumber()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("answer is not JSON: %s", r.Body)
			}
			want := make(map[string]any, len(e.Expect.ResponseMembers))
			for path, w := range e.Expect.ResponseMembers {
				if s, ok := w.(string); ok {
					w = fill(s)
				}
				want[path] = w
			}
			if mismatch := membersMismatch(got, want, nil, r.Body); mismatch != "" {
				t.Error(mismatch)
			}
		})
	}
	if ran < 40 {
		t.Errorf("only %d corpus entries ran", ran)
	}
}

// corpusState makes what an entry's placeholders name: a token, an open batch (GBP
// for the entries that close one in GBP), a closed one, one with nothing to settle.
func corpusState(env *sandboxEnv, tok, name string) map[string]string {
	vars := map[string]string{"merchant_id": apitest.MerchantOne, "account_id": "TRA_00000000000000000000000000000003"}
	if strings.HasPrefix(name, "token") {
		vars["account_id"] = "TKA_00000000000000000000000000000003"
	}
	switch name {
	case "token-update-unknown":
		vars["token_id"] = "PMT_0b9e6c1e-1d2f-4c5a-9e8d-7f6a5b4c3d2e"
	case "token-get", "token-update", "token-update-single", "token-delete", "sale-token":
		vars["token_id"] = env.MustPost(tok, "/payment-methods",
			`{"account_name":"tokenization","usage_mode":"MULTIPLE","card":`+apitest.ManualCard+`}`)["id"].(string)
	case "token-dcc-rate":
		vars["account_id"] = layoutTRA
		vars["token_id"] = env.MustPost(tok, "/payment-methods",
			`{"account_name":"tokenization","card":{"number":"4006097467207025","expiry_month":"12","expiry_year":"30"}}`)["id"].(string)
	case "batch-close", "batch-close-without-id":
		vars["batch_id"] = env.MustCharge(tok, apitest.SaleBody("1300", "AUTO", apitest.ManualCard))["batch_id"].(string)
	case "batch-close-without-id-scoped", "batch-close-without-id-wrong-currency":
		env.MustCharge(tok, strings.Replace(apitest.SaleBody("1300", "AUTO", apitest.ManualCard), `"USD"`, `"GBP"`, 1))
	case "batch-close-closed":
		vars["batch_id"] = env.MustCharge(tok, apitest.SaleBody("1300", "AUTO", apitest.ManualCard))["batch_id"].(string)
		env.MustPost(tok, "/batches/"+vars["batch_id"], "")
	case "batch-close-declined-sale":
		sale := env.MustCharge(tok, apitest.SaleBody("1300", "AUTO", `{"number":"38865000000705","expiry_month":"12","expiry_year":"30"}`))
		vars["batch_id"] = sale["batch_id"].(string)
	case "batch-close-declined-only":
		// A batch with nothing to settle: its only sale reversed.
		sale := env.MustCharge(tok, apitest.SaleBody("1300", "AUTO", apitest.ManualCard))
		env.MustPost(tok, "/transactions/"+sale["id"].(string)+"/reversal", `{}`)
		vars["batch_id"] = sale["batch_id"].(string)
	case "batch-close-unknown":
		vars["batch_id"] = "BAT_845591"
	}
	return vars
}
