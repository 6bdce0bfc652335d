package scenario_test

import (
	"slices"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
)

// chanceEngine is an engine over one scenario "chaos": an adjustment fails with
// probability p (per transaction with scope), else a second rule delays it.
func chanceEngine(t *testing.T, seed uint64, p float64, scope string) *scenario.Engine {
	t.Helper()
	db, err := store.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fail := errorOutcome(502, "SYSTEM_ERROR_DOWNSTREAM", "50046")
	fail.Probability = &p
	adj := scenario.When{Operations: []string{string(sandbox.OpAdjustment)}}
	e, err := scenario.NewEngine(db, []scenario.Scenario{{Name: "chaos", Rules: []scenario.Rule{
		{When: adj, Then: fail, Scope: scope},
		{When: adj, Then: &scenario.Outcome{Delay: 1}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	e.SetSeed(seed)
	return e
}

// failures decides n adjustments of one session and lists the calls (from 1) the
// probabilistic rule answered; every other call must fall through to the next rule.
func failures(t *testing.T, e *scenario.Engine, p float64, n int, transaction func(i int) string) []int {
	t.Helper()
	var failed []int
	for i := 1; i <= n; i++ {
		d, err := e.Decide(scenario.Request{Operation: string(sandbox.OpAdjustment), Scope: "session:s",
			TransactionID: transaction(i), Named: []string{"chaos"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Draws) != 1 || d.Draws[0].Rule != "chaos#0" || d.Draws[0].Probability != p {
			t.Fatalf("call %d: draws %+v, want one of chaos#0", i, d.Draws)
		}
		switch dr := d.Draws[0]; {
		case dr.Applied != (dr.Value < dr.Probability) || dr.Value < 0 || dr.Value >= 1:
			t.Fatalf("call %d: inconsistent draw %+v", i, dr)
		case dr.Applied && d.Ref() != "chaos#0", !dr.Applied && d.Ref() != "chaos#1":
			t.Fatalf("call %d: draw %+v answered by %q", i, dr, d.Ref())
		case dr.Applied:
			failed = append(failed, i)
		}
	}
	return failed
}

func oneTransaction(int) string { return "TRN_1" }

// The same seed and the same calls fail the same calls; another seed fails others;
// over 1000 calls a probability of 0.3 fails about 300 (the seed fixes the count, so
// the bound cannot flake).
func TestChanceDrawsAreSeeded(t *testing.T) {
	p := 0.3
	a := failures(t, chanceEngine(t, 42, p, ""), p, 1000, oneTransaction)
	b := failures(t, chanceEngine(t, 42, p, ""), p, 1000, oneTransaction)
	c := failures(t, chanceEngine(t, 43, p, ""), p, 1000, oneTransaction)
	if !slices.Equal(a, b) {
		t.Errorf("seed 42 twice: %d and %d failures, different calls", len(a), len(b))
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 42 and 43 failed the same calls")
	}
	for _, f := range [][]int{a, c} {
		if len(f) < 250 || len(f) > 350 {
			t.Errorf("p=0.3: %d of 1000 calls failed, want 250..350", len(f))
		}
	}
}

// Probability 0 never applies, 1 always.
func TestChanceBounds(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want int
	}{{0, 0}, {1, 200}} {
		p := tc.p
		if got := len(failures(t, chanceEngine(t, 7, p, ""), p, 200, oneTransaction)); got != tc.want {
			t.Errorf("p=%v: %d of 200 failed, want %d", tc.p, got, tc.want)
		}
	}
}

// With scope transaction each transaction counts its own calls: alternating two
// transactions draws, for each, what its calls alone would have drawn.
func TestChanceScopeTransaction(t *testing.T) {
	p := 0.5
	alternating := failures(t, chanceEngine(t, 9, p, scenario.ScopeTransaction), p, 200, func(i int) string {
		return []string{"TRN_A", "TRN_B"}[i%2]
	})
	var aloneB []int
	for _, call := range failures(t, chanceEngine(t, 9, p, scenario.ScopeTransaction), p, 100, func(int) string { return "TRN_B" }) {
		aloneB = append(aloneB, 2*call-1) // TRN_B's n-th call is call 2n-1 of the alternation
	}
	var altB []int
	for _, call := range alternating {
		if call%2 == 1 {
			altB = append(altB, call)
		}
	}
	if len(altB) == 0 || !slices.Equal(altB, aloneB) {
		t.Errorf("TRN_B's failures depend on TRN_A's calls: %v, alone %v", altB, aloneB)
	}
}

// A decision given back returns the calls of every rule it drew for: the next
// request of the scope meets the same draws, the one that said no included.
func TestGiveBackReturnsEveryDraw(t *testing.T) {
	e := chanceEngine(t, 42, 0.5, "")
	decide := func() scenario.Decision {
		t.Helper()
		d, err := e.Decide(scenario.Request{Operation: string(sandbox.OpAdjustment), Scope: "session:g", Named: []string{"chaos"}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Find a call whose draw says no, so that the second rule applied.
	var missed scenario.Decision
	for range 64 {
		if d := decide(); len(d.Draws) == 1 && !d.Draws[0].Applied {
			missed = d
			break
		}
	}
	if missed.Rule != 1 {
		t.Fatalf("no draw said no in 64 calls at p=0.5")
	}
	if err := e.GiveBack(missed); err != nil {
		t.Fatal(err)
	}
	if again := decide(); !slices.Equal(again.Draws, missed.Draws) || again.Rule != 1 {
		t.Errorf("after the give-back: rule %d, draws %v; want rule 1 and draws %v", again.Rule, again.Draws, missed.Draws)
	}
}
