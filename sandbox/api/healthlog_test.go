package api_test

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
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

// A sandbox given a RequestLog writer logs the lines its Logger would have logged
// (the binary's configuration): the same fields, values and order for every kind of
// answer, healthy probes left out, apart from when each line was written and how
// long its request took.
func TestRequestLogWriterLogsWhatTheLoggerLogs(t *testing.T) {
	var viaLogger, viaWriter bytes.Buffer
	var mu sync.Mutex
	logged := mustSandboxWith(t, envOptions{log: lockedWriter{&mu, &viaLogger}})
	written := mustSandboxWith(t, envOptions{configure: []func(*app.Config){func(c *app.Config) {
		c.RequestLog, c.RequestLogJSON = lockedWriter{&mu, &viaWriter}, true
	}}})
	for _, env := range []*sandboxEnv{logged, written} {
		tok := env.mustToken(partnerApp, partnerKey, "")
		env.do("GET", "/_sandbox/health", nil, "")
		env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok, "X-Sandbox-Session", "s 1"), `{"gratuity_amount":"150"}`)
		env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok), `{"gratuity_amount":"x"}`)
		env.do("POST", "/transactions/4263970000005262/adjustment", apiHeader(tok), `{}`)
		env.do("GET", "/no/such/path", nil, "")
		env.do("DELETE", "/accesstoken", nil, "")
	}
	mu.Lock()
	defer mu.Unlock()
	want, got := requestLines(t, viaLogger.String()), requestLines(t, viaWriter.String())
	if len(want) != 6 || strings.Contains(viaWriter.String(), "4263970000005262") {
		t.Fatalf("logger logged %d request lines, want 6 (no health probe); writer wrote:\n%s", len(want), viaWriter.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines written differ from lines logged:\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// requestLines returns the "request" lines of a JSON log, each with its time and
// duration replaced by placeholders.
func requestLines(t *testing.T, log string) []string {
	t.Helper()
	var out []string
	at := regexp.MustCompile(`^\{"time":"[^"]+",`)
	took := regexp.MustCompile(`,"duration":[0-9]+`)
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if !strings.Contains(line, `"msg":"request"`) {
			continue
		}
		if !at.MatchString(line) || !took.MatchString(line) {
			t.Fatalf("line without time or duration: %s", line)
		}
		line = at.ReplaceAllString(line, `{"time":"T",`)
		out = append(out, took.ReplaceAllString(line, `,"duration":D`))
	}
	return out
}
