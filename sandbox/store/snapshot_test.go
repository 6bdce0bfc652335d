package store

import "testing"

// A session's counters include those its scope: transaction and scope: order rules
// keep under it, and no other session's.
func TestIsStepOfSession(t *testing.T) {
	for key, want := range map[string]bool{
		stepKey("session:abc", "flaky", 0):                    true,
		stepKey("session:abc/transaction:TRN_1", "flaky", 1):  true,
		stepKey("session:abc/order:ORD_1", "flaky", 2):        true,
		stepKey("session:abcd", "flaky", 0):                   false,
		stepKey("session:abcd/transaction:TRN_1", "flaky", 0): false,
		stepKey("app:SandboxPartnerAppId", "flaky", 0):        false,
	} {
		if got := isStepOf(key, "session:abc"); got != want {
			t.Errorf("isStepOf(%q) = %v, want %v", key, got, want)
		}
	}
}
