package admin_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// hostCall sends method path to env with the given Host header (and an Origin of the
// same host, as a page of that origin sends it) and returns the status and body.
func hostCall(t *testing.T, env *sandboxEnv, method, path, host string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, env.URL+path, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Origin", "http://"+host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A web page whose name is rebound to the sandbox's address is same-origin for the
// browser: without an admin token the admin API answers only under the names the
// sandbox is known by (IP addresses, localhost, --allowed-hosts).
func TestAdminRefusesRebindingHosts(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t, func(c *app.Config) { c.AllowedHosts = []string{"gpsandbox"} })
	refused := func(host string) apitest.GPError {
		return apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Host "+host+" refused: without --admin-token the admin API answers only for loopback names, IP addresses and the names in --allowed-hosts (GPSANDBOX_ALLOWED_HOSTS); add it there if the sandbox is reached by that name")
	}
	for _, host := range []string{"rebind.evil.example", "rebind.evil.example:8080", "localhost.evil.example", "gpsandbox.evil.example"} {
		for _, call := range [][2]string{{"POST", "/_sandbox/reset"}, {"POST", "/_sandbox/clock"}, {"GET", "/_sandbox/clock"}, {"GET", "/_sandbox/requests"}, {"GET", "/_sandbox/transactions/" + apitest.CapturedOne}} {
			status, body := hostCall(t, env, call[0], call[1], host, nil)
			got := apitest.Reply{Status: status, Body: []byte(body)}.GPError(t)
			if got != refused(host) {
				t.Errorf("Host %s: %s %s: %d %s", host, call[0], call[1], status, body)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:8080", "127.3.4.5", "[::1]:8080", "localhost:8080", "LOCALHOST", "app.localhost:8080", "gpsandbox:8080", "GPSandbox.", "192.168.1.20:8080", "[fe80::1]"} {
		if status, body := hostCall(t, env, "GET", "/_sandbox/clock", host, nil); status != 200 {
			t.Errorf("Host %s: %d %s", host, status, body)
		}
	}
	// The health check and the GP API are not the admin API.
	if status, body := hostCall(t, env, "GET", "/_sandbox/health", "rebind.evil.example", nil); status != 200 {
		t.Errorf("health under another name: %d %s", status, body)
	}
	// With an admin token, the token is what a page cannot have.
	withToken := mustSandbox(t, withAdminToken)
	if status, body := hostCall(t, withToken, "GET", "/_sandbox/clock", "rebind.evil.example", map[string]string{"Authorization": "Bearer " + adminToken}); status != 200 {
		t.Errorf("with the admin token: %d %s", status, body)
	}
}
