package api_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// A container probes health every second: a healthy answer is not logged at the
// default level, while every other request is, an unhealthy probe included.
func TestHealthProbesStayOutOfTheLog(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	env := mustSandboxWith(t, envOptions{log: lockedWriter{&mu, &logs}})
	for range 3 {
		if r := env.do("GET", "/_sandbox/health", nil, ""); r.status != 200 {
			t.Fatalf("health: %d %s", r.status, r.body)
		}
	}
	env.do("POST", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, ""))
	env.do("POST", "/_sandbox/health", nil, "") // not a probe: 405
	mu.Lock()
	defer mu.Unlock()
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
