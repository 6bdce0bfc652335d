package admin_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// A container probes health every second: a healthy answer is not logged at the
// default level, while every other request is, an unhealthy probe included.
func TestHealthProbesStayOutOfTheLog(t *testing.T) {
	t.Parallel()
	logs := &apitest.LockedBuffer{}
	env := mustSandboxWith(t, apitest.Options{Log: logs})
	for range 3 {
		if r := env.Do("GET", "/_sandbox/health", nil, ""); r.Status != 200 {
			t.Fatalf("health: %d %s", r.Status, r.Body)
		}
	}
	env.Do("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))
	env.Do("POST", "/_sandbox/health", nil, "") // not a probe: 405
	var health, token int
	for _, line := range strings.Split(logs.String(), "\n") {
		switch {
		case strings.Contains(line, `"path":"/_sandbox/health"`):
			health++
		case strings.Contains(line, `"path":"/accesstoken"`):
			token++
		}
	}
	if health != 1 || token != 1 {
		t.Errorf("logged %d health requests (want only the 405) and %d token requests (want 1):\n%s", health, token, logs.String())
	}
}

// An API call's line, through the sandbox's own logger, names the caller, the version,
// the session and the GP error answered; a card number in the path is masked.
func TestRequestLineOfAnAPICall(t *testing.T) {
	t.Parallel()
	logs := &apitest.LockedBuffer{}
	env := mustSandboxWith(t, apitest.Options{Log: logs})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.Do("POST", "/transactions/4263970000005262/adjustment", apitest.APIHeader(tok, "X-Sandbox-Session", "s 1"), `{"gratuity_amount":"150"}`)
	var line map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(l, `"method":"POST","path":"/transactions/`) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("line %s: %v", l, err)
			}
		}
	}
	want := map[string]any{
		"level": "INFO", "msg": "request", "method": "POST", "path": "/transactions/426397******5262/adjustment",
		"status": 404.0, "error_code": "RESOURCE_NOT_FOUND", "detailed_error_code": "40008",
		"app_id": apitest.PartnerApp, "version": apitest.Version, "session": "s 1",
	}
	for key, v := range want {
		if line[key] != v {
			t.Errorf("%s: got %v, want %v", key, line[key], v)
		}
	}
	if id, _ := line["request_id"].(string); !strings.HasPrefix(id, "REQ_") {
		t.Errorf("request_id %q", id)
	}
	if d, ok := line["duration"].(float64); !ok || d <= 0 {
		t.Errorf("duration %v", line["duration"])
	}
	if strings.Contains(logs.String(), "4263970000005262") {
		t.Errorf("card number in clear in the log:\n%s", logs.String())
	}
}
