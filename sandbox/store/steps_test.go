package store

import (
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// A trim keeps the counters stepped last: one stepped again outlives one created
// after it, and a trim to more than there are drops nothing.
func TestTrimScenarioStepsDropsTheOldest(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		step := func(scope string) {
			mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutScenarioStep(scope, "flaky", 0, 1, time.Hour) })
			time.Sleep(time.Millisecond) // expiries a clock tick apart
		}
		for _, scope := range []string{"session:a", "session:b", "session:c", "session:a", "session:d"} {
			step(scope)
		}
		scopes := func() string {
			var out []string
			mustInspect(t, s, func(_ sandbox.Tx, in sandbox.InspectTx) error {
				steps, err := in.ScenarioSteps()
				for _, st := range steps {
					out = append(out, st.Scope)
				}
				return err
			})
			return strings.Join(out, ",")
		}
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.TrimScenarioSteps(10) })
		if got := scopes(); got != "session:a,session:b,session:c,session:d" {
			t.Errorf("a trim to 10 of 4 left %s", got)
		}
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.TrimScenarioSteps(2) })
		if got := scopes(); got != "session:a,session:d" {
			t.Errorf("a trim to 2 left %s, want the two stepped last: session:a,session:d", got)
		}
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.TrimScenarioSteps(0) })
		if got := scopes(); got != "" {
			t.Errorf("a trim to 0 left %s", got)
		}
	})
}
