package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The sandbox's own failure (here: its database is gone) is SYSTEM_ERROR 50000 with
// the catalogue's words, never a stack trace or the cause.
func TestSandboxFailureIsSystemError(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.DB.Close()
	r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
	got := r.GPError(t)
	want := apitest.Err(500, "SYSTEM_ERROR", "50000", "Unable to process your request due to an internal error.")
	if got != want {
		t.Errorf("got %+v want %+v", got, want)
	}
	if strings.Contains(string(r.Body), "database") || strings.Contains(string(r.Body), "goroutine") {
		t.Errorf("cause leaked: %s", r.Body)
	}
}
