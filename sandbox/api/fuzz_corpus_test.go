package api_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// FuzzCorpusBody sends arbitrary bodies to every operation of the SDK corpus that
// takes one (payments, terminal commands, stored cards, boarding, disputes, currency
// conversions, batches, ...), each seeded with what the SDKs send, and asks for a 200
// or a GP error: never a 500 and never a panic. The first byte of an input picks the
// operation. The placeholders of a path stand for a sale, its batch and a token of
// the GP layout app, made once before fuzzing.
func FuzzCorpusBody(f *testing.F) {
	type operation struct{ method, path string }
	var ops []operation
	seeds := map[operation][]string{}
	corpus := loadCorpus(f)
	for _, name := range slices.Sorted(maps.Keys(corpus)) { // seed#N is the same input on every run
		e := corpus[name]
		op := operation{e.Method, e.Path}
		body := string(e.Body)
		if body == "" || body == "null" || e.Path == "/accesstoken" || e.Method == "GET" || e.Method == "DELETE" {
			continue
		}
		if !slices.Contains(ops, op) {
			ops = append(ops, op)
		}
		seeds[op] = append(seeds[op], body)
	}
	slices.SortFunc(ops, func(a, b operation) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	env := apitest.NewWith(f, apitest.Options{Configure: []func(*app.Config){func(c *app.Config) { c.Clock = corpusTime }}})
	token := env.MustToken(layoutApp, layoutKey, "")
	sale := env.MustPost(token, "/transactions", `{"account_name":"transaction_processing","channel":"CP","type":"SALE",`+
		`"amount":"1202","currency":"USD","country":"US","payment_method":{"entry_mode":"MANUAL","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}}}`)
	stored := env.MustPost(token, "/payment-methods", `{"account_name":"tokenization","usage_mode":"MULTIPLE","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}}`)
	vars := map[string]string{
		"app_id": layoutApp, "account_id": layoutTRA, "merchant_id": apitest.MerchantOne, "mma_account_id": layoutMMA,
		"transaction_id": sale["id"].(string), "batch_id": sale["batch_id"].(string), "token_id": stored["id"].(string),
	}
	// A token is made on the tokenization account, as the corpus test does.
	opVars := func(op operation) map[string]string {
		if !strings.Contains(op.path, "payment-methods") {
			return vars
		}
		v := maps.Clone(vars)
		v["account_id"] = layoutTKA
		return v
	}
	for i, op := range ops {
		for _, body := range seeds[op] {
			f.Add(append([]byte{byte(i)}, substitute(body, opVars(op))...))
		}
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		if len(input) == 0 {
			return
		}
		op := ops[int(input[0])%len(ops)]
		mustBeGPAnswer(t, input, serve(env.Handler, clientRequest(op.method, substitute(op.path, vars), token, input[1:])))
	})
}
