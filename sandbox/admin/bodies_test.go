package admin

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// Tags are literals: where the domain keeps a list of its own, the tag says the same.
func TestBodyTagsFollowTheDomain(t *testing.T) {
	t.Parallel()
	read := func(body string) error {
		_, err := orderStatusBody.Read(httptest.NewRequest("POST", "/", strings.NewReader(body)))
		return err
	}
	for _, status := range sandbox.OrderStatuses() {
		if err := read(`{"status":"` + status + `"}`); err != nil {
			t.Errorf("status %s: %v", status, err)
		}
	}
	if err := read(`{"status":"` + sandbox.OrderForReview + `"}`); err == nil {
		t.Errorf("status %s accepted: no stored order has it", sandbox.OrderForReview)
	}
	for _, d := range []sandbox.DeviceChange{
		{Mode: sandbox.DeviceModeComplete, Status: sandbox.DeviceActive},
		{Mode: sandbox.DeviceModeInitiated, Status: sandbox.DeviceInactive},
	} {
		if _, err := deviceChangeBody.Read(httptest.NewRequest("POST", "/", strings.NewReader(`{"mode":"`+d.Mode+`","status":"`+d.Status+`"}`))); err != nil {
			t.Errorf("device change %+v: %v", d, err)
		}
	}
	for _, outcome := range []string{sandbox.OutcomeCustomerCancels, sandbox.OutcomeTerminalTimeout, sandbox.OutcomeHostDecline} {
		body := `{"pin":"` + sandbox.PINWrong + `","outcome":"` + outcome + `"}`
		if _, err := presentBody.Read(httptest.NewRequest("POST", "/", strings.NewReader(body))); err != nil {
			t.Errorf("present %s: %v", body, err)
		}
	}
	long := strings.Repeat("s", web.MaxSession)
	if _, err := snapshotBody.Read(httptest.NewRequest("POST", "/", strings.NewReader(`{"name":"n","session":"`+long+`"}`))); err != nil {
		t.Errorf("a session of web.MaxSession characters: %v", err)
	}
	if _, err := snapshotBody.Read(httptest.NewRequest("POST", "/", strings.NewReader(`{"name":"n","session":"`+long+`s"}`))); err == nil {
		t.Error("a session longer than web.MaxSession accepted")
	}
}
