package api_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// mustRawExchange sends request bytes exactly as written (no client tidies them up)
// and returns the response the sandbox sent back.
func mustRawExchange(t *testing.T, baseURL, request string) apitest.Reply {
	t.Helper()
	conn := mustRawConn(t, baseURL)
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	return mustReadReply(t, conn)
}

// mustRawConn opens a TCP connection to the sandbox, closed when the test ends, that
// gives up after 10 seconds rather than hang the test.
func mustRawConn(t *testing.T, baseURL string) *net.TCPConn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(baseURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(testrun.Deadline(t))
	return conn.(*net.TCPConn)
}

// mustReadReply reads one HTTP response from conn.
func mustReadReply(t *testing.T, conn net.Conn) apitest.Reply {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return apitest.Reply{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// rawPost is a POST with the given header lines and JSON body, as one HTTP/1.1 request.
func rawPost(path string, headerLines []string, body string) string {
	var b strings.Builder
	b.WriteString("POST " + path + " HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n")
	for _, h := range headerLines {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Content-Type: application/json\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body)
	return b.String()
}

func itoa(n int) string {
	var digits []byte
	for {
		digits = append([]byte{byte('0' + n%10)}, digits...)
		if n /= 10; n == 0 {
			return string(digits)
		}
	}
}

// Credentials that could be read two ways are refused, never resolved by a guess.
func TestAmbiguousCredentialsRefused(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	path := "/transactions/" + apitest.CapturedOne + "/adjustment"
	const tip = `{"gratuity_amount":"200"}`
	invalid := apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")
	tests := []struct {
		name    string
		headers []string
		want    int
	}{
		{"one valid header", []string{"Authorization: Bearer " + tok}, 200},
		{"scheme in lower case", []string{"Authorization: bearer " + tok}, 200},
		{"valid then bogus", []string{"Authorization: Bearer " + tok, "Authorization: Bearer bogus"}, 401},
		{"bogus then valid", []string{"Authorization: Bearer bogus", "Authorization: Bearer " + tok}, 401},
		{"the same header twice", []string{"Authorization: Bearer " + tok, "Authorization: Bearer " + tok}, 401},
		{"two spaces before the token", []string{"Authorization: Bearer  " + tok}, 401},
		{"a tab before the token", []string{"Authorization: Bearer\t" + tok}, 401},
		{"a space inside the token", []string{"Authorization: Bearer " + tok[:5] + " " + tok[5:]}, 401},
		{"two tokens", []string{"Authorization: Bearer " + tok + " " + tok}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := append([]string{"X-GP-Version: " + apitest.Version}, tt.headers...)
			r := mustRawExchange(t, env.URL, rawPost(path, headers, tip))
			if tt.want == 200 {
				if r.Status != 200 {
					t.Fatalf("got %d %s, want 200", r.Status, r.Body)
				}
				return
			}
			if got := r.GPError(t); got != invalid {
				t.Errorf("got  %+v\nwant %+v", got, invalid)
			}
		})
	}
}

// A header read once and sent twice is refused, naming it, and nothing is done: two
// idempotency keys could each charge (A130).
func TestAmbiguousHeadersRefused(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	sale := `{"channel":"CP","type":"SALE","amount":"100","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":` + apitest.ManualCard + `}}`
	auth := "Authorization: Bearer " + tok
	for name, headers := range map[string][]string{
		"X-GP-Idempotency": {auth, "X-GP-Version: " + apitest.Version, "X-GP-Idempotency: a", "X-GP-Idempotency: b"},
		"X-GP-Version":     {auth, "X-GP-Version: " + apitest.Version, "X-GP-Version: 2020-12-22"},
	} {
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", name+" contains unexpected data")
		if got := mustRawExchange(t, env.URL, rawPost("/transactions", headers, sale)).GPError(t); got != want {
			t.Errorf("two %s: %+v", name, got)
		}
	}
	// Neither key was taken: each charges once.
	for _, key := range []string{"a", "b"} {
		if r := env.Do("POST", "/transactions", apitest.APIHeader(tok, "X-GP-Idempotency", key), sale); r.Status != 200 {
			t.Errorf("key %s after the refusal: %d %s", key, r.Status, r.Body)
		}
	}
}

// An encoded slash is part of its path segment, never a separator: no adjustment route
// matches. /transactions/<id>%2Fadjustment is the path of a transaction (GET only), so a
// POST to it is refused as a method the path does not take.
func TestEncodedSlashIsNotRouted(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	const tip = `{"gratuity_amount":"200"}`
	headers := []string{"Authorization: Bearer " + tok, "X-GP-Version: " + apitest.Version}
	for _, tt := range []struct{ path, shown string }{
		{"/transactions/" + apitest.CapturedOne + "%2Fadjustment", "/transactions/" + apitest.CapturedOne + "%2Fadjustment"},
		{"/transactions/" + apitest.CapturedOne + "%2fadjustment", "/transactions/" + apitest.CapturedOne + "%2Fadjustment"},
		{"/ucp/transactions/" + apitest.CapturedOne + "%2Fadjustment", "/transactions/" + apitest.CapturedOne + "%2Fadjustment"},
		{"/ucp%2Ftransactions/" + apitest.CapturedOne + "/adjustment", "/ucp%2Ftransactions/" + apitest.CapturedOne + "/adjustment"},
		{"/merchants/" + apitest.MerchantOne + "%2Ftransactions/" + apitest.CapturedOne + "/adjustment", "/merchants/" + apitest.MerchantOne + "%2Ftransactions/" + apitest.CapturedOne + "/adjustment"},
		{"/merchants/" + apitest.MerchantOne + "/transactions%2F" + apitest.CapturedOne + "/adjustment", "/merchants/" + apitest.MerchantOne + "/transactions%2F" + apitest.CapturedOne + "/adjustment"},
		{"/merchants%2F" + apitest.MerchantOne + "/orders", "/merchants%2F" + apitest.MerchantOne + "/orders"},
		{"/transactions/" + apitest.CapturedOne + "%2F", "/transactions/" + apitest.CapturedOne + "%2F"},
		{"/_sandbox/transactions/" + apitest.CapturedOne + "%2Fx", "/_sandbox/transactions/" + apitest.CapturedOne + "%2Fx"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			r := mustRawExchange(t, env.URL, rawPost(tt.path, headers, tip))
			want := apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Resource "+tt.shown+" not found")
			if got := r.GPError(t); got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
	// Nothing was adjusted.
	r := env.Do("GET", "/_sandbox/transactions/"+apitest.CapturedOne, nil, "")
	if r.Status != 200 || strings.Contains(string(r.Body), `"gratuity_amount":"200"`) {
		t.Errorf("the transaction changed: %d %s", r.Status, r.Body)
	}
	// Other escapes still read as the characters they encode.
	for _, path := range []string{
		"/transactions/" + apitest.CapturedOne + "/adjustmen%74",
		"/transactions/TRN%5FCapturedSale000000000000000001/adjustment",
	} {
		if r := mustRawExchange(t, env.URL, rawPost(path, headers, tip)); r.Status != 200 {
			t.Errorf("%s: %d %s", path, r.Status, r.Body)
		}
	}
}
