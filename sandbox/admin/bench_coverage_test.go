package admin_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// coverageBenchRounds rounds of ten requests make the journal BenchmarkCoverage reads.
const coverageBenchRounds = 300

// BenchmarkCoverage measures GET /_sandbox/coverage in-process over a journal of
// 3,000 entries of the kinds the checklist reads: sales in three entry modes, a
// decline, an authorization and its capture with a tip, a tip adjustment, a partial
// refund, a transaction read and an unknown transaction.
//
//	go test -run '^$' -bench Coverage -benchmem ./sandbox/api/
func BenchmarkCoverage(b *testing.B) {
	env := mustSandbox(b)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	send := func(method, path, body string, status int) map[string]any {
		req := httptest.NewRequest(method, env.URL+path, strings.NewReader(body))
		apitest.SetAPIHeaders(req, tok, 0)
		w := httptest.NewRecorder()
		env.Handler.ServeHTTP(w, req)
		var answer map[string]any
		if w.Code != status || json.Unmarshal(w.Body.Bytes(), &answer) != nil {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		return answer
	}
	for range coverageBenchRounds {
		swipe := send("POST", "/transactions", apitest.SaleBody("1000", "AUTO", apitest.TrackCard()), 200)["id"].(string)
		send("POST", "/transactions", apitest.SaleBody("1000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag))), 200)
		send("POST", "/transactions", apitest.SaleBody("1000", "AUTO", apitest.ManualCard), 200)
		send("POST", "/transactions", apitest.SaleBody("1000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag), apitest.Quoted("pin_block", apitest.PINBlock))), 200)
		auth := send("POST", "/transactions", apitest.SaleBody("2500", "LATER", apitest.ManualCard), 200)["id"].(string)
		send("POST", "/transactions/"+auth+"/capture", `{"amount":"2000","gratuity":"100"}`, 200)
		send("POST", "/transactions/"+swipe+"/adjustment", `{"gratuity_amount":"150"}`, 200)
		send("POST", "/transactions/"+swipe+"/refund", `{"amount":"400"}`, 200)
		send("GET", "/transactions/"+swipe, "", 200)
		send("GET", "/transactions/TRN_nope", "", 404)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w := httptest.NewRecorder()
		env.Handler.ServeHTTP(w, httptest.NewRequest("GET", env.URL+"/_sandbox/coverage", nil))
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), `{"requests":3001,`) {
			b.Fatalf("coverage: %d %.200s", w.Code, w.Body)
		}
	}
}
