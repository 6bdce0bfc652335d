package api_test

import "strings"

// setUpBackOfficeEntry makes what a back-office entry names: the rate its payment
// names ({{rate_id}}, looked up in EUR, and the 1511 EUR authorization or sale a DCC
// capture or refund acts on), the action it reads ({{action_id}}, a sale's), and the
// token of the card a search looks for.
func setUpBackOfficeEntry(env *sandboxEnv, token string, e corpusEntry, op string, vars map[string]string) {
	body := string(e.Body)
	if strings.Contains(e.Path+body, "{{rate_id}}") {
		rate := mustCorpusStatus(env, "POST", "/currency-conversions", token, rateBody("1511", "EUR", "4006097467207025"), 200)
		vars["rate_id"] = rate["id"].(string)
		if strings.Contains(e.Path, "{{transaction_id}}") {
			mode := "AUTO"
			if op == "dcc-capture" {
				mode = "LATER"
			}
			vars["transaction_id"] = mustCorpusStatus(env, "POST", "/transactions", token, dccSale("1511", mode, vars["rate_id"]), 200)["id"].(string)
		}
	}
	if strings.Contains(e.Path, "{{action_id}}") {
		sale := corpusSale(env, token, "AUTO", "")
		vars["action_id"] = sale["action"].(map[string]any)["id"].(string)
	}
	if strings.HasPrefix(op, "payment-methods-search") || op == "payment-methods-list" {
		mustCorpusStatus(env, "POST", "/payment-methods", token,
			`{"account_name":"tokenization","usage_mode":"MULTIPLE","card":{"number":"4242424242424242","expiry_month":"12","expiry_year":"27"}}`, 200)
	}
}
