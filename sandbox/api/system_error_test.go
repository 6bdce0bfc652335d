package api_test

import (
	"strings"
	"testing"
)

// The sandbox's own failure (here: its database is gone) is SYSTEM_ERROR 50000 with
// the catalogue's words, never a stack trace or the cause.
func TestSandboxFailureIsSystemError(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	env.db.Close()
	r := env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok), `{"gratuity_amount":"1"}`)
	got := r.gpError(t)
	want := gpError{500, "SYSTEM_ERROR", "50000", "Unable to process your request due to an internal error."}
	if got != want {
		t.Errorf("got %+v want %+v", got, want)
	}
	if strings.Contains(string(r.body), "database") || strings.Contains(string(r.body), "goroutine") {
		t.Errorf("cause leaked: %s", r.body)
	}
}
