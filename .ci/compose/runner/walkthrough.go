// Command walkthrough is the compose example's test runner: a walkthrough of the API
// (token → adjustment with gratuity → repeated key 409 → order FOR_REVIEW → order)
// against the sandbox at $SANDBOX_URL, with the standard library only, so that it runs
// with `go run` in a plain Go image. It exits 1 when any step answers otherwise.
package main

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	base := strings.TrimSuffix(os.Getenv("SANDBOX_URL"), "/")
	if base == "" {
		base = "http://127.0.0.1:8080/ucp"
	}
	client := &http.Client{Timeout: 10 * time.Second}
	failed := 0
	scenario := "" // X-Sandbox-Scenario of the next steps
	step := func(name string, wantStatus int, wantText, method, path, token, idem, body string) map[string]any {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("X-GP-Version", "2021-03-22")
		}
		if idem != "" {
			req.Header.Set("X-GP-Idempotency", idem)
		}
		if scenario != "" {
			req.Header.Set("X-Sandbox-Scenario", scenario)
		}
		resp, err := client.Do(req)
		if err != nil {
			fmt.Printf("FAIL %s: %v\n", name, err)
			failed++
			return nil
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != wantStatus || !strings.Contains(string(raw), wantText) {
			fmt.Printf("FAIL %s: %d %s (want %d with %s)\n", name, resp.StatusCode, raw, wantStatus, wantText)
			failed++
			return nil
		}
		fmt.Printf("ok   %s: %d\n", name, resp.StatusCode)
		var m map[string]any
		json.Unmarshal(raw, &m)
		return m
	}

	nonce := fmt.Sprintf("compose-%d", time.Now().UnixNano())
	sum := sha512.Sum512([]byte(nonce + "SandboxAppKey001"))
	tok := step("1 access token", 200, `"type":"Bearer"`, "POST", "/accesstoken", "", "",
		`{"app_id":"SandboxPartnerAppId0000000000001","nonce":"`+nonce+`","secret":"`+hex.EncodeToString(sum[:])+`","grant_type":"client_credentials"}`)
	token, _ := tok["token"].(string)
	key := "tip-" + nonce
	adjust := "/transactions/TRN_CapturedSale000000000000000001/adjustment"
	step("2 adjustment with gratuity", 200, `"status":"CAPTURED"`, "POST", adjust, token, key, `{"gratuity_amount":"200"}`)
	step("3 repeated idempotency key", 409, `"detailed_error_code":"40039"`, "POST", adjust, token, key, `{"gratuity_amount":"200"}`)
	orders := "/merchants/MER_00000000000000000000000000000001/orders"
	step("4 order FOR_REVIEW", 200, `"price":{"amount":"59800"`, "POST", orders, token, "",
		`{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}`)
	step("5 order", 200, `"status":"INITIATED"`, "POST", orders, token, "",
		`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}]}`)

	// A scenario of the folder mounted at /scenarios (GPSANDBOX_SCENARIOS_DIR).
	scenario = "compose-outage"
	step("6 scenario from the mounted folder", 502, `"detailed_error_code":"50046"`, "POST", adjust, token, "", `{"gratuity_amount":"300"}`)

	fmt.Printf("walkthrough: %d passed, %d failed\n", 6-failed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
