package sandbox

import (
	"strings"
	"testing"
)

// A long body is kept cut short, and a cut that leaves what reads as a card number
// masks it.
func TestKeptMessage(t *testing.T) {
	t.Parallel()
	short := `{"amount":"100"}`
	if got := keptMessage(short); got != short {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("x", maxMessageKept-16) + "4263970000005262" + "99999"
	got := keptMessage(long)
	if len(got) != maxMessageKept+len("…") || !strings.HasSuffix(got, "…") || strings.Contains(got, "4263970000005262") {
		t.Errorf("long: %d bytes, ends %q", len(got), got[len(got)-24:])
	}
}

// Every operation whose requests are recorded has the resource and type a refusal of
// it is recorded with, so that no refused write is missing from GET /actions.
func TestEveryRecordedOperationRecordsItsRefusals(t *testing.T) {
	t.Parallel()
	for _, op := range Operations() {
		if _, ok := failedActions[op]; op.Recorded() && op != OpAccessToken && !ok {
			t.Errorf("a refused %s is recorded with no type", op)
		}
	}
}
