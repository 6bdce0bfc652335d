package scenario_test

import (
	"fmt"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
)

// stepScopes lists the scopes of the sequence counters db holds.
func stepScopes(t *testing.T, db *store.Store) []string {
	t.Helper()
	var scopes []string
	err := db.Inspect(func(_ sandbox.Tx, in sandbox.InspectTx) error {
		steps, err := in.ScenarioSteps()
		for _, s := range steps {
			scopes = append(scopes, s.Scope)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return scopes
}

// oneOffSession steps the flaky sequence once in a session of its own, as a test
// suite that names a new X-Sandbox-Session per test does.
func oneOffSession(t *testing.T, e *scenario.Engine, i int) {
	t.Helper()
	_, err := e.Decide(scenario.Request{
		Operation: string(sandbox.OpAdjustment), Scope: fmt.Sprintf("session:one-off-%05d", i), Named: []string{"flaky"},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// One-off sessions leave at most the bound of counters, however many there are.
func TestStepCountersAreBoundedByDefault(t *testing.T) {
	e, db := mustEngine(t, ":memory:")
	n := scenario.DefaultMaxStepCounters + 500
	for i := range n {
		oneOffSession(t, e, i)
	}
	if got := len(stepScopes(t, db)); got > scenario.DefaultMaxStepCounters || got == 0 {
		t.Errorf("%d one-off sessions left %d counters, want 1..%d", n, got, scenario.DefaultMaxStepCounters)
	}
}

// The bound holds after every request, and what goes is the oldest: the counters
// kept are those of the sessions that stepped last, a session that steps again
// included.
func TestStepCountersDropTheOldestFirst(t *testing.T) {
	e, db := mustEngine(t, ":memory:")
	const bound = 20
	e.SetMaxStepCounters(bound)
	for i := range 100 {
		oneOffSession(t, e, i)
		if i == 90 {
			oneOffSession(t, e, 10) // the tenth session comes back: its counter is new again
		}
		if got := len(stepScopes(t, db)); got > bound {
			t.Fatalf("after %d sessions: %d counters, over the bound of %d", i+1, got, bound)
		}
	}
	scopes := stepScopes(t, db)
	kept := map[string]bool{}
	for _, s := range scopes {
		kept[s] = true
	}
	if !kept["session:one-off-00099"] || kept["session:one-off-00000"] {
		t.Errorf("kept %v: want the last session's counter, not the first's", scopes)
	}
	for i := range 100 {
		scope := fmt.Sprintf("session:one-off-%05d", i)
		if kept[scope] && i < 100-bound && i != 10 {
			t.Errorf("kept %s while newer counters went: %v", scope, scopes)
		}
	}
}
