package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/internal/compare"
	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/sandboxtest"
)

// runCompare runs "gpsandbox compare" with args and the environment env.
func runCompare(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"compare"}, args...), func(k string) string { return env[k] }, &out, &errOut)
	if err != nil {
		status = exitCode(err)
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), status
}

var defaultCreds = []string{"--app-id", fixtures.DefaultAppID, "--app-key", fixtures.DefaultAppKey}

// TestCompareTwoSandboxesAgree: two sandboxes with the same fixtures answer every
// step alike, so compare exits 0 with every step the same.
func TestCompareTwoSandboxesAgree(t *testing.T) {
	against, local := sandboxtest.NewServer(t), sandboxtest.NewServer(t)
	out, errOut, status := runCompare(t, nil, append(defaultCreds, "--against", against.URL+"/ucp", "--local", local.URL+"/ucp", "--json")...)
	if status != 0 {
		t.Fatalf("exit %d: %s\n%s", status, errOut, out)
	}
	var rep compare.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	steps := 0
	for _, f := range compare.Flows() {
		steps += len(f.Steps)
	}
	if len(rep.Steps) != steps || rep.Differences != 0 {
		t.Fatalf("%d steps (want %d), %d differ:\n%s", len(rep.Steps), steps, rep.Differences, out)
	}
	for _, s := range rep.Steps {
		if s.Against.Status == 0 || s.Against.Problem != "" || len(s.Against.Members) == 0 {
			t.Errorf("%s/%s was not compared: %+v", s.Flow, s.Step, s.Against)
		}
	}
	// The flows reach what they are named for: a tip, a closed batch, the error paths.
	want := map[string]string{
		"tip/adjustment": "200", "reversal/reversal": "200", "batch-close/close": "200",
		"unknown-transaction/detail": "404 40118", "duplicate-idempotency/again": "409 40039",
		"missing-fields/sale": "400 40005", "unknown-field/sale": "400 40043",
	}
	for _, s := range rep.Steps {
		w, ok := want[s.Flow+"/"+s.Step]
		if !ok {
			continue
		}
		got := strings.TrimSpace(fmt.Sprintf("%d %s", s.Local.Status, detailed(s.Local)))
		if got != w {
			t.Errorf("%s/%s: %s, want %s", s.Flow, s.Step, got, w)
		}
	}
}

func detailed(o compare.Outcome) string {
	if o.Error == nil {
		return ""
	}
	return o.Error.Detail
}

// TestCompareInProcessLocal: without --local, compare starts its own sandbox with the
// default fixtures, and the text report says every step is the same.
func TestCompareInProcessLocal(t *testing.T) {
	against := sandboxtest.NewServer(t)
	out, errOut, status := runCompare(t, nil, append(defaultCreds, "--against", against.URL+"/ucp", "--flows", "sale-chip,refund")...)
	if status != 0 {
		t.Fatalf("exit %d: %s\n%s", status, errOut, out)
	}
	for _, line := range []string{"same  sale-chip/sale", "same  refund/refund", "0 of 3 steps differ"} {
		if !strings.Contains(out, line) {
			t.Errorf("no %q in:\n%s", line, out)
		}
	}
	if strings.Contains(out, "token/accesstoken") {
		t.Errorf("the token flow was not chosen but is reported:\n%s", out)
	}
}

// TestCompareReportsAFailedToken: with credentials the server refuses, the token
// step is reported though not chosen, so the 401s of the chosen flows have their cause
// beside them.
func TestCompareReportsAFailedToken(t *testing.T) {
	against := sandboxtest.NewServer(t)
	out, _, status := runCompare(t, nil, "--app-id", "x", "--app-key", "y", "--against", against.URL+"/ucp", "--flows", "tip")
	if status != 1 {
		t.Errorf("exit %d, want 1 (steps differ)", status)
	}
	for _, line := range []string{"token/accesstoken", "40004"} {
		if !strings.Contains(out, line) {
			t.Errorf("no %q in:\n%s", line, out)
		}
	}
}

// TestCompareReportsAScenariosDifference: a sandbox made to decline every sale, or to
// refuse tips, differs from one that does not; compare exits 1 naming the step and
// the difference.
func TestCompareReportsAScenariosDifference(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		flows    string
		want     []string
	}{
		{"declined-sale", "sale-swipe,batch-close", []string{
			"DIFF  sale-swipe/sale",
			`value status: against "DECLINED", local "CAPTURED"`,
			`value payment_method.result: against "05", local "00"`,
			"DIFF  batch-close/close",
			// A declined sale carries a batch id whose close GP refuses.
			`error: against ACTION_FAILED 500010 "Action failed unexpectedly. Please try again "; local none`,
		}},
		{"adjustment-not-available", "tip", []string{
			"same  tip/sale",
			"DIFF  tip/adjustment",
			"status: against 403, local 200",
			`error: against ACTION_NOT_AUTHORIZED 40212 "Permission not enabled to execute action"; local none`,
			"member action.result_code (string): local only",
			"1 of 3 steps differ",
		}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			against := sandboxtest.NewServer(t, sandboxtest.WithGlobalScenarios(tc.scenario))
			local := sandboxtest.NewServer(t)
			out, errOut, status := runCompare(t, nil, append(defaultCreds, "--against", against.URL+"/ucp", "--local", local.URL+"/ucp", "--flows", "token,"+tc.flows)...)
			if status != 1 {
				t.Fatalf("exit %d, want 1: %s\n%s", status, errOut, out)
			}
			for _, line := range tc.want {
				if !strings.Contains(out, line) {
					t.Errorf("no %q in:\n%s", line, out)
				}
			}
			if !strings.Contains(errOut, "steps differ") {
				t.Errorf("stderr: %q", errOut)
			}
		})
	}
}

// tokenRecorder serves a sandbox and keeps every access token it hands out.
type tokenRecorder struct {
	h      http.Handler
	mu     sync.Mutex
	tokens []string
}

func (r *tokenRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	req.Header.Del("Accept-Encoding") // the token is read from the answer as sent
	rec := httptest.NewRecorder()
	r.h.ServeHTTP(rec, req)
	if strings.HasSuffix(req.URL.Path, "/accesstoken") {
		var body struct{ Token string }
		if json.Unmarshal(rec.Body.Bytes(), &body) == nil && body.Token != "" {
			r.mu.Lock()
			r.tokens = append(r.tokens, body.Token)
			r.mu.Unlock()
		}
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

func recordingSandbox(t *testing.T, scenarios ...string) (string, *tokenRecorder) {
	t.Helper()
	a, err := app.Open(app.Config{GlobalScenarios: scenarios})
	if err != nil {
		t.Fatal(err)
	}
	rec := &tokenRecorder{h: a.Handler()}
	srv := httptest.NewServer(rec)
	t.Cleanup(func() { srv.Close(); a.Close() })
	return srv.URL + "/ucp", rec
}

// TestCompareReportHoldsNoSecret: neither report, whether the sides agree or not,
// holds the app key, a token the sides handed out, or the card data sent; the
// credentials come from GP_APP_ID and GP_APP_KEY.
func TestCompareReportHoldsNoSecret(t *testing.T) {
	for _, scenario := range []string{"", "declined-sale", "downstream-error"} {
		var scenarios []string
		if scenario != "" {
			scenarios = []string{scenario}
		}
		against, againstTokens := recordingSandbox(t, scenarios...)
		local, localTokens := recordingSandbox(t)
		env := map[string]string{"GP_APP_ID": fixtures.DefaultAppID, "GP_APP_KEY": fixtures.DefaultAppKey}
		for _, format := range [][]string{nil, {"--json"}} {
			out, errOut, status := runCompare(t, env, append([]string{"--against", against, "--local", local}, format...)...)
			if want := map[bool]int{true: 0, false: 1}[scenario == ""]; status != want {
				t.Fatalf("%q %v: exit %d, want %d: %s", scenario, format, status, want, errOut)
			}
			secrets := append([]string{fixtures.DefaultAppKey}, compare.Secrets()...)
			againstTokens.mu.Lock()
			secrets = append(secrets, againstTokens.tokens...)
			againstTokens.mu.Unlock()
			localTokens.mu.Lock()
			secrets = append(secrets, localTokens.tokens...)
			localTokens.mu.Unlock()
			if len(localTokens.tokens) == 0 || scenario != "downstream-error" && len(againstTokens.tokens) == 0 {
				t.Fatalf("no token was handed out: %v", secrets)
			}
			for _, s := range secrets {
				if strings.Contains(out+errOut, s) {
					t.Errorf("%q %v: the report holds %q", scenario, format, s)
				}
			}
		}
	}
}

func TestCompareUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--against URL is required"},
		{[]string{"--against", "http://127.0.0.1:1/ucp"}, "GP_APP_ID/GP_APP_KEY"},
		{append(defaultCreds, "--against", "http://127.0.0.1:1/ucp", "--flows", "sale-swipe,nope"), `unknown flow "nope"`},
	} {
		_, errOut, status := runCompare(t, nil, tc.args...)
		if status != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, status, errOut, tc.want)
		}
	}
}

// TestCompareHelpHidesTheKey: the key from GP_APP_KEY is never a flag's default, which
// -h would print.
func TestCompareHelpHidesTheKey(t *testing.T) {
	out, errOut, status := runCompare(t, map[string]string{"GP_APP_KEY": "SecretKeyFromEnv42"}, "-h")
	if status != 0 || !strings.Contains(out+errOut, "--against") && !strings.Contains(out+errOut, "-against") {
		t.Fatalf("exit %d:\n%s%s", status, out, errOut)
	}
	if strings.Contains(out+errOut, "SecretKeyFromEnv42") {
		t.Errorf("help prints the key:\n%s%s", out, errOut)
	}
}

// TestCompareUnreachable: a side that does not answer is a difference on every step,
// not a crash.
func TestCompareUnreachable(t *testing.T) {
	local := sandboxtest.NewServer(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	out, _, status := runCompare(t, nil, append(defaultCreds, "--against", dead.URL+"/ucp", "--local", local.URL+"/ucp", "--flows", "tip")...)
	// The token step is reported too: the side that does not answer gave no token.
	if status != 1 || !strings.Contains(out, "problem: against no answer: ") || !strings.Contains(out, "3 of 3 steps differ") ||
		!strings.Contains(out, "token/accesstoken") {
		t.Fatalf("exit %d:\n%s", status, out)
	}
}
