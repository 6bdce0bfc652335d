package scenario

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Engine holds the loaded scenarios and the globally active names, and decides
// requests against them. The set is swapped atomically (hot reload, admin calls):
// a request is decided against one set from start to end.
type Engine struct {
	store        sandbox.Store
	mu           sync.Mutex // serialises writers; readers only load state
	state        atomic.Pointer[state]
	stepLifetime atomic.Int64  // a time.Duration, see SetStepLifetime
	seed         atomic.Uint64 // the chance draws' seed, see SetSeed
	counters     counterBound
}

// SetSeed sets the seed of the chance draws of outcomes with a probability: the same
// seed and the same calls draw the same values (0 until set).
func (e *Engine) SetSeed(seed uint64) { e.seed.Store(seed) }

// Seed returns the seed of the chance draws.
func (e *Engine) Seed() uint64 { return e.seed.Load() }

// DefaultStepLifetime is how long a sequence counter outlives the last request of
// its scope: a day, as long as an idempotency key. Sessions are the clients' own
// names, one per test run often enough, and a counter nobody steps on goes by itself.
const DefaultStepLifetime = 24 * time.Hour

// DefaultMaxStepCounters is how many sequence counters the store keeps at most,
// whatever their age: one-off sessions (a new X-Sandbox-Session per test) each leave
// one per counted rule they reach, about 180 bytes each.
const DefaultMaxStepCounters = 10000

// SetMaxStepCounters sets how many sequence counters the store keeps at most
// (DefaultMaxStepCounters when n is not positive); beyond it the oldest, the one
// whose scope stepped longest ago, is dropped first. Call it before deciding.
func (e *Engine) SetMaxStepCounters(n int) {
	if n <= 0 {
		n = DefaultMaxStepCounters
	}
	e.counters.mu.Lock()
	defer e.counters.mu.Unlock()
	e.counters.max, e.counters.created = n, 0
}

// SetStepLifetime sets how long a sequence counter is kept after its scope's last
// step (DefaultStepLifetime until set, or when d is not positive).
func (e *Engine) SetStepLifetime(d time.Duration) {
	if d <= 0 {
		d = DefaultStepLifetime
	}
	e.stepLifetime.Store(int64(d))
}

// state is one immutable snapshot of an Engine.
type state struct {
	byName   map[string]*Scenario
	order    []string          // names in load order
	global   []string          // globally active names, in activation order
	loadErrs map[string]string // file -> why its last load failed
	// installed are the scenarios installed at run time (see Install), which a
	// reload of the files keeps.
	installed []string
}

// UnknownError is a scenario name that no loaded scenario has. Known, when set, lists
// the names that are, in load order.
type UnknownError struct {
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown scenario %q", carddata.Excerpt(e.Name))
}

// NewEngine returns an engine over scenarios, keeping sequence counters in store.
func NewEngine(store sandbox.Store, scenarios []Scenario) (*Engine, error) {
	e := &Engine{store: store}
	e.SetStepLifetime(DefaultStepLifetime)
	e.SetMaxStepCounters(DefaultMaxStepCounters)
	e.state.Store(&state{byName: map[string]*Scenario{}})
	if err := e.Replace(scenarios); err != nil {
		return nil, err
	}
	return e, nil
}

// Replace makes scenarios the loaded set, in place of the files loaded before, and
// forgets earlier load errors; installed scenarios stay. It refuses (keeping the
// current set) a set with an invalid scenario, a repeated name, a name an installed
// scenario has, or that lacks a globally active scenario.
func (e *Engine) Replace(scenarios []Scenario) error {
	next := &state{byName: make(map[string]*Scenario, len(scenarios))}
	for i := range scenarios {
		sc := scenarios[i]
		if err := sc.Check(); err != nil {
			return err
		}
		if _, dup := next.byName[sc.Name]; dup {
			return fmt.Errorf("scenario %q is defined twice", sc.Name)
		}
		next.byName[sc.Name] = &sc
		next.order = append(next.order, sc.Name)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.state.Load()
	for _, n := range cur.installed {
		if _, clash := next.byName[n]; clash {
			return &InstalledClashError{Name: n, File: next.byName[n].File}
		}
		next.byName[n] = cur.byName[n]
		next.order = append(next.order, n)
	}
	for _, g := range cur.global {
		if _, ok := next.byName[g]; !ok {
			return fmt.Errorf("scenario %q is globally active and would disappear: the files are loaded once it is no longer active (PUT /_sandbox/scenarios/active)", g)
		}
	}
	next.global, next.installed = cur.global, cur.installed
	e.state.Store(next)
	return nil
}

// SetLoadErrors records why files failed to load, for List. The loaded set stays as
// it is: a broken file keeps the last good set active. nil clears them.
func (e *Engine) SetLoadErrors(errs map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := *e.state.Load()
	next.loadErrs = errs
	e.state.Store(&next)
}

// CheckNames refuses the first of names that known does not hold, with an
// *UnknownError listing known: the check of SetGlobal, for a caller that has the
// scenario set but no engine yet.
func CheckNames(known, names []string) error {
	for _, n := range names {
		if !slices.Contains(known, n) {
			return &UnknownError{Name: n, Known: slices.Clone(known)}
		}
	}
	return nil
}

// SetGlobal makes names the globally active scenarios, in that order; an empty list
// deactivates them all. An unknown name changes nothing.
func (e *Engine) SetGlobal(names []string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.state.Load()
	if err := CheckNames(cur.order, names); err != nil {
		return err
	}
	var global []string
	for _, n := range names {
		if !slices.Contains(global, n) {
			global = append(global, n)
		}
	}
	next := *cur
	next.global = global
	e.state.Store(&next)
	return nil
}

// HasGlobal reports whether any scenario is globally active.
func (e *Engine) HasGlobal() bool { return len(e.state.Load().global) > 0 }

// Global returns the globally active scenario names.
func (e *Engine) Global() []string { return slices.Clone(e.state.Load().global) }

// Has reports whether a scenario of that name is loaded.
func (e *Engine) Has(name string) bool {
	_, ok := e.state.Load().byName[name]
	return ok
}

// Names returns the loaded scenario names in load order.
func (e *Engine) Names() []string { return slices.Clone(e.state.Load().order) }

// Entry is one line of List: a loaded scenario, or a file that failed to load.
type Entry struct {
	Name        string // empty for a file that failed to load and defines nothing loaded
	Description string
	File        string // empty for an installed scenario
	Installed   bool   // installed at run time rather than loaded from a file
	Global      bool   // globally active
	Rules       int    // number of rules
	LoadError   string // why File failed to load last time (the scenario shown is the last good one)
}

// List returns the loaded scenarios in load order, then files whose last load failed
// and that define none of them.
func (e *Engine) List() []Entry {
	st := e.state.Load()
	var out []Entry
	files := map[string]bool{}
	for _, n := range st.order {
		sc := st.byName[n]
		files[sc.File] = true
		out = append(out, Entry{
			Name: sc.Name, Description: sc.Description, File: sc.File, Rules: len(sc.Rules),
			Installed: slices.Contains(st.installed, n),
			Global:    slices.Contains(st.global, n), LoadError: st.loadErrs[sc.File],
		})
	}
	for _, f := range slices.Sorted(maps.Keys(st.loadErrs)) {
		if !files[f] {
			out = append(out, Entry{File: f, LoadError: st.loadErrs[f]})
		}
	}
	return out
}

// Activation sources, by precedence.
const (
	SourceHeader  = "header"
	SourceFixture = "fixture"
	SourceGlobal  = "global"
)

// Decision is what the engine decided for a request.
type Decision struct {
	Scenario string // the matched scenario; empty when no rule matched
	Rule     int    // index of the matched rule in the scenario's rules
	Step     int    // index of the sequence step used; -1 for a rule with then
	Outcome  Outcome
	Source   string // which activation made the scenarios active
	// Miss explains, when scenarios were active but no rule matched, the rule that came
	// closest and what differed: "adjustment-not-available#0: operation is order, want adjustment".
	Miss string
	// Draws are the chance draws of the rules that matched and carry a probability,
	// in the order tried: the last one applied when the decision matched its rule.
	Draws []Draw

	calls []counted // the calls the decision took of rules' counters, for GiveBack
}

// counted is one call of a rule's counter: the count it read in scope.
type counted struct {
	scope, name string
	rule, n     int
}

// Matched reports whether a rule matched.
func (d Decision) Matched() bool { return d.Scenario != "" }

// Ref is "<scenario>#<rule index>", the X-Sandbox-Rule header value.
func (d Decision) Ref() string {
	if !d.Matched() {
		return ""
	}
	return ruleRef(d.Scenario, d.Rule)
}

// Decide finds the first rule of the active scenarios that matches req and returns
// its outcome, consuming one step of a sequence rule in req's scope.
//
// The active scenarios are those the request names, else those its fixture records
// are bound to, else the global ones: the first of the three that names any is the
// whole active set. A name the request gives that is not loaded is an *UnknownError;
// unknown bound or global names are skipped.
func (e *Engine) Decide(req Request) (Decision, error) {
	st := e.state.Load()
	names, source := req.Named, SourceHeader
	switch {
	case len(req.Named) > 0:
		for _, n := range req.Named {
			if _, ok := st.byName[n]; !ok {
				return Decision{}, &UnknownError{Name: n}
			}
		}
	case len(req.Bound) > 0:
		names, source = req.Bound, SourceFixture
	default:
		names, source = st.global, SourceGlobal
	}
	var active []*Scenario
	for _, n := range names {
		if sc, ok := st.byName[n]; ok && !slices.Contains(active, sc) {
			active = append(active, sc)
		}
	}
	d := Decision{Rule: -1, Step: -1}
	if len(active) == 0 {
		return d, nil
	}
	d.Source = source
	for _, sc := range active {
		for i, r := range sc.Rules {
			if !r.When.matches(req) {
				continue
			}
			step, o := -1, Outcome{}
			if r.Then != nil {
				o = *r.Then
			}
			scope, n := "", 0
			if r.counted() {
				scope = r.stepScope(req)
				var err error
				if n, err = e.count(scope, sc.Name, i); err != nil {
					return Decision{}, err
				}
				d.calls = append(d.calls, counted{scope: scope, name: sc.Name, rule: i, n: n})
			}
			if len(r.Sequence) > 0 {
				step = r.stepAt(n)
				o = r.Sequence[step].Then
			}
			if o.Probability != nil {
				dr := draw(e.seed.Load(), ruleRef(sc.Name, i), scope, step, n+1, *o.Probability)
				d.Draws = append(d.Draws, dr)
				if !dr.Applied {
					continue
				}
			}
			d.Scenario, d.Rule, d.Step, d.Outcome = sc.Name, i, step, o
			return d, nil
		}
	}
	if len(d.Draws) == 0 {
		// Nothing matched and nothing was drawn: explain the closest miss. (A rule that
		// matched but whose draw said no is explained by its draw instead.)
		d.Miss = closestMiss(active, req)
	}
	return d, nil
}

// DecideNotification decides how a status notification is sent: the outcome may drop
// it, send it twice or delay it. req describes the order (MerchantID, AppID), its
// scope and active names as for Decide; its Operation is set here.
func (e *Engine) DecideNotification(req Request) (Decision, error) {
	req.Operation = OpNotification
	return e.Decide(req)
}

// DecidesNotifications reports whether a loaded scenario has a rule naming the
// notification operation. Without one DecideNotification matches nothing, whatever
// the order, so a caller may skip reading what a request would describe.
func (e *Engine) DecidesNotifications() bool {
	for _, sc := range e.state.Load().byName {
		for _, r := range sc.Rules {
			if slices.Contains(r.When.Operations, OpNotification) {
				return true
			}
		}
	}
	return false
}

// stepScope is the scope whose counter a sequence step of r consumes for req: req's
// own (its session, else its app), narrowed to the transaction or order when r says
// so. A request without that id counts in req's own scope. The id is the client's
// path segment: like a session, it is kept hashed when it carries card data.
func (r Rule) stepScope(req Request) string {
	scope := req.Scope
	if scope == "" {
		scope = "global"
	}
	id := ""
	switch r.Scope {
	case ScopeTransaction:
		id = req.TransactionID
	case ScopeOrder:
		id = req.OrderID
	}
	if id == "" {
		return scope
	}
	return scope + "/" + r.Scope + ":" + carddata.KeyWithout(id)
}

// GiveBack returns the calls d took of rules' counters (the matched rule's, and those
// of rules before it whose chance draw said no), when the request it was decided for
// was refused before a rule could shape it: each rule's next call is that call again,
// with the same step and draw. A call another request of the scope took since stays
// taken.
func (e *Engine) GiveBack(d Decision) error {
	if len(d.calls) == 0 {
		return nil
	}
	b := &e.counters
	b.mu.Lock()
	defer b.mu.Unlock()
	err := e.store.Update(func(tx sandbox.Tx) error {
		for _, c := range d.calls {
			n, err := tx.ScenarioStep(c.scope, c.name, c.rule)
			if err != nil {
				return err
			}
			if n != c.n+1 {
				continue
			}
			if err := tx.PutScenarioStep(c.scope, c.name, c.rule, c.n, time.Duration(e.stepLifetime.Load())); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("scenario rule counters: %w", err)
	}
	return nil
}

// count consumes one call of a counted rule in scope and returns how many calls of
// the scope reached the rule before it. Reading and incrementing the counter in one
// store transaction makes concurrent requests of one scope each take a different
// call. Every call keeps the counter for the step lifetime again, so that only a
// scope nobody uses any more loses its counter.
func (e *Engine) count(scope, name string, rule int) (int, error) {
	b := &e.counters
	b.mu.Lock()
	defer b.mu.Unlock()
	var n int
	err := e.store.Update(func(tx sandbox.Tx) error {
		var err error
		if n, err = tx.ScenarioStep(scope, name, rule); err != nil {
			return err
		}
		if n == 0 && b.trimDue() {
			if err := tx.TrimScenarioSteps(b.max - b.slack()); err != nil {
				return err
			}
		}
		return tx.PutScenarioStep(scope, name, rule, n+1, time.Duration(e.stepLifetime.Load()))
	})
	if err != nil {
		return 0, fmt.Errorf("scenario %s: rule counter: %w", name, err)
	}
	if n == 0 {
		b.created++
	}
	return n, nil
}

// counterBound keeps the sequence counters at most max in number. Counting the
// store's counters on every new one would read them all; instead every slack-th
// counter created (the first one since the engine started included) first drops the
// oldest down to max - slack, leaving room for itself and the slack - 1 after it.
// mu is held across each counting Update (which the store serialises anyway), so
// that created follows the commits exactly.
type counterBound struct {
	mu      sync.Mutex
	max     int
	created int // counters created since the bound was set
}

// slack is how many counters are created between two trims: a tenth of the bound,
// so that a trim, which reads every counter, comes once per max/10 new ones.
func (b *counterBound) slack() int { return max(1, b.max/10) }

// trimDue reports whether the next counter created must first make room.
func (b *counterBound) trimDue() bool { return b.created%b.slack() == 0 }

// stepAt is the index of the sequence step that answers a scope's call after n
// calls: the last step repeats for ever.
func (r Rule) stepAt(n int) int {
	for i, s := range r.Sequence {
		if n < max(s.Times, 1) {
			return i
		}
		n -= max(s.Times, 1)
	}
	return len(r.Sequence) - 1
}
