package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// --allowed-hosts (or GPSANDBOX_ALLOWED_HOSTS) names the hosts an open admin API
// answers under beside IP addresses and localhost; any other Host is refused.
func TestAllowedHostsFlag(t *testing.T) {
	base, stop := mustRun(t, "--db", ":memory:", "--allowed-hosts", "gpsandbox, sandbox.test")
	defer stop()
	for host, want := range map[string]int{
		"gpsandbox:8080": 200, "sandbox.test": 200, "localhost": 200,
		"rebind.evil.example": 403, "gpsandbox.evil.example": 403,
	} {
		req, _ := http.NewRequest("GET", base+"/_sandbox/clock", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d %s, want %d", host, resp.StatusCode, body, want)
		}
		if want == 403 && !strings.Contains(string(body), "Host "+host+" refused") {
			t.Errorf("Host %s: %s does not name the host", host, body)
		}
	}
	for _, bad := range []string{"gpsandbox:8080", "http://gpsandbox", "a b"} {
		if _, err := parseServeFlags([]string{"--allowed-hosts", bad}, func(string) string { return "" }, io.Discard); err == nil || exitCode(err) != 2 {
			t.Errorf("--allowed-hosts %q: %v, want a usage error", bad, err)
		}
	}
	cfg, err := parseServeFlags([]string{"--addr", "gpsandbox.internal:8080", "--admin-open"},
		func(k string) string { return map[string]string{"GPSANDBOX_ALLOWED_HOSTS": "a.test,b.test"}[k] }, io.Discard)
	if got := strings.Join(adminHosts(cfg), ","); err != nil || got != "a.test,b.test,gpsandbox.internal" {
		t.Errorf("admin hosts %q (%v), want the variable's and --addr's", got, err)
	}
}
