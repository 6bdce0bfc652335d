package scenario_test

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
)

func errorOutcome(status int, code, detail string) *scenario.Outcome {
	return &scenario.Outcome{Status: status, Error: &scenario.Error{Code: code, Detail: detail}}
}

func testScenarios() []scenario.Scenario {
	return []scenario.Scenario{
		{Name: "deny", File: "deny.yaml", Rules: []scenario.Rule{{
			When: scenario.When{Operations: []string{string(sandbox.OpAdjustment)}},
			Then: errorOutcome(403, "ACTION_NOT_AUTHORIZED", "40212"),
		}}},
		{Name: "picky", File: "picky.yaml", Rules: []scenario.Rule{
			{
				When: scenario.When{
					Operations: []string{string(sandbox.OpAdjustment)}, TransactionID: "TRN_1",
					Headers: map[string]string{"X-GP-Version": "2020-12-22"},
					Body:    map[string]any{"gratuity_amount": "999", "payment_method": map[string]any{"card": map[string]any{"tag": "9F"}}},
				},
				Then: errorOutcome(502, "SYSTEM_ERROR_DOWNSTREAM", "50046"),
			},
			{
				When: scenario.When{Operations: []string{string(sandbox.OpOrder)}, Body: map[string]any{"quantity": json.Number("2")}},
				Then: &scenario.Outcome{Fault: scenario.FaultEmpty},
			},
		}},
		{Name: "slow", File: "slow.yaml", Rules: []scenario.Rule{{
			When: scenario.When{Operations: []string{scenario.OpAny}},
			Then: &scenario.Outcome{Delay: 1},
		}}},
		{Name: "flaky", File: "flaky.yaml", Rules: []scenario.Rule{{
			When: scenario.When{Operations: []string{string(sandbox.OpAdjustment), string(sandbox.OpOrder)}},
			Sequence: []scenario.Step{
				{Then: *errorOutcome(502, "SYSTEM_ERROR_DOWNSTREAM", "50046"), Times: 2},
				{Then: scenario.Outcome{}},
			},
		}}},
		{Name: "notify", File: "notify.yaml", Rules: []scenario.Rule{{
			When: scenario.When{Operations: []string{scenario.OpNotification}, MerchantID: "MER_1"},
			Sequence: []scenario.Step{
				{Then: scenario.Outcome{Fault: scenario.FaultDrop}},
				{Then: scenario.Outcome{Fault: scenario.FaultDuplicate}},
			},
		}}},
	}
}

func mustEngine(t *testing.T, path string) (*scenario.Engine, *store.Store) {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e, err := scenario.NewEngine(db, testScenarios())
	if err != nil {
		t.Fatal(err)
	}
	return e, db
}

func TestDecidePrecedence(t *testing.T) {
	e, _ := mustEngine(t, ":memory:")
	if err := e.SetGlobal([]string{"slow"}); err != nil {
		t.Fatal(err)
	}
	adj := scenario.Request{Operation: string(sandbox.OpAdjustment), Scope: "app:A"}
	for _, tc := range []struct {
		name         string
		named, bound []string
		want, source string
	}{
		{"global only", nil, nil, "slow", scenario.SourceGlobal},
		{"binding beats global", nil, []string{"deny"}, "deny", scenario.SourceFixture},
		{"header beats binding", []string{"picky", "slow"}, []string{"deny"}, "slow", scenario.SourceHeader},
		{"unknown bound names are skipped", nil, []string{"gone", "deny"}, "deny", scenario.SourceFixture},
	} {
		req := adj
		req.Named, req.Bound = tc.named, tc.bound
		d, err := e.Decide(req)
		if err != nil || d.Scenario != tc.want || d.Source != tc.source {
			t.Errorf("%s: got %q from %q (err %v), want %q from %q", tc.name, d.Scenario, d.Source, err, tc.want, tc.source)
		}
	}
	req := adj
	req.Named = []string{"deny", "nope"}
	var unknown *scenario.UnknownError
	if _, err := e.Decide(req); !errors.As(err, &unknown) || unknown.Name != "nope" {
		t.Errorf("unknown header name: err %v", err)
	}
	// With no scenario active there is nothing to explain.
	if err := e.SetGlobal(nil); err != nil {
		t.Fatal(err)
	}
	if d, err := e.Decide(adj); err != nil || d.Matched() || d.Miss != "" || d.Source != "" {
		t.Errorf("nothing active: %+v %v", d, err)
	}
}

func TestMatching(t *testing.T) {
	e, _ := mustEngine(t, ":memory:")
	header := http.Header{}
	header.Set("x-gp-version", "2020-12-22")
	body := map[string]any{"gratuity_amount": "999", "amount": "5", "payment_method": map[string]any{"card": map[string]any{"tag": "9F"}}}
	base := scenario.Request{Operation: string(sandbox.OpAdjustment), TransactionID: "TRN_1", Header: header, Body: body, Named: []string{"picky"}}
	if d, err := e.Decide(base); err != nil || d.Ref() != "picky#0" || d.Outcome.Status != 502 {
		t.Fatalf("full match: %+v %v", d, err)
	}
	for _, tc := range []struct {
		name   string
		change func(r *scenario.Request)
		miss   string
	}{
		{"other transaction", func(r *scenario.Request) { r.TransactionID = "TRN_2" }, "picky#0: transaction_id does not match"},
		{"header value differs", func(r *scenario.Request) {
			r.Header = http.Header{"X-Gp-Version": {"2021-03-22"}}
		}, `picky#0: header X-GP-Version does not match`},
		{"header absent", func(r *scenario.Request) { r.Header = http.Header{} }, `picky#0: header X-GP-Version is absent`},
		{"body value differs", func(r *scenario.Request) {
			r.Body = map[string]any{"gratuity_amount": "998", "payment_method": map[string]any{"card": map[string]any{"tag": "9F"}}}
		}, `picky#0: body.gratuity_amount does not match`},
		{"nested body member absent", func(r *scenario.Request) {
			r.Body = map[string]any{"gratuity_amount": "999", "payment_method": map[string]any{"card": map[string]any{}}}
		}, `picky#0: body.payment_method.card.tag is absent`},
		{"number is not a string", func(r *scenario.Request) {
			r.Body = map[string]any{"gratuity_amount": json.Number("999"), "payment_method": map[string]any{"card": map[string]any{"tag": "9F"}}}
		}, `picky#0: body.gratuity_amount does not match`},
	} {
		req := base
		tc.change(&req)
		d, err := e.Decide(req)
		if err != nil || d.Matched() || d.Miss != tc.miss {
			t.Errorf("%s: matched %q, miss %q (err %v), want miss %q", tc.name, d.Ref(), d.Miss, err, tc.miss)
		}
	}
	// Numbers compare by value: 2.0 in the request matches 2 in the rule.
	order := scenario.Request{Operation: string(sandbox.OpOrder), Body: map[string]any{"quantity": json.Number("2.0")}, Named: []string{"picky"}}
	if d, _ := e.Decide(order); d.Ref() != "picky#1" || d.Outcome.Fault != scenario.FaultEmpty {
		t.Errorf("order: %+v", d)
	}
	// The closest miss is the rule with the fewest differences, across scenarios.
	token := scenario.Request{Operation: string(sandbox.OpAccessToken), Named: []string{"picky", "deny"}}
	if d, _ := e.Decide(token); !strings.HasPrefix(d.Miss, "deny#0: operation is accesstoken, want adjustment") {
		t.Errorf("closest miss: %q", d.Miss)
	}
}

// mustDecideFlaky decides an order in scope with the flaky scenario named.
func mustDecideFlaky(t *testing.T, e *scenario.Engine, scope string) scenario.Decision {
	t.Helper()
	d, err := e.Decide(scenario.Request{Operation: string(sandbox.OpOrder), Scope: scope, Named: []string{"flaky"}})
	if err != nil {
		t.Error(err) // t.Fatal may not be called from the goroutines of TestSequenceScopes
	}
	return d
}

// A call given back is the rule's next call again, unless another request of the
// scope took a call since.
func TestGiveBack(t *testing.T) {
	e, _ := mustEngine(t, filepath.Join(t.TempDir(), "steps.db"))
	decideIn := func(scope string) scenario.Decision { return mustDecideFlaky(t, e, scope) }
	decide := func() scenario.Decision { return decideIn("session:B") }
	first := decide()
	if err := e.GiveBack(first); err != nil {
		t.Fatal(err)
	}
	// The same call again: the first failing step, then the second, then a pass.
	if got := []int{decide().Step, decide().Step, decide().Step}; got[0] != 0 || got[1] != 0 || got[2] != 1 {
		t.Errorf("after a call given back: steps %v, want 0 0 1", got)
	}
	// Two failing calls taken, the first given back after the second: both stay taken.
	taken := decideIn("session:C")
	decideIn("session:C")
	if err := e.GiveBack(taken); err != nil {
		t.Fatal(err)
	}
	if got := decideIn("session:C"); got.Step != 1 {
		t.Errorf("a call taken since was given back too: step %d, want the pass step 1", got.Step)
	}
	if err := e.GiveBack(scenario.Decision{}); err != nil {
		t.Errorf("giving back no call: %v", err)
	}
}

func TestSequenceScopes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.db")
	e, db := mustEngine(t, path)
	decide := func(scope string) scenario.Decision { return mustDecideFlaky(t, e, scope) }
	// Twenty concurrent requests of one scope: exactly two get the failing step.
	var wg sync.WaitGroup
	var mu sync.Mutex
	steps := map[int]int{}
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := decide("session:A")
			mu.Lock()
			steps[d.Step]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if steps[0] != 2 || steps[1] != 18 {
		t.Errorf("steps taken in one scope: %v, want 2 of step 0 and 18 of step 1", steps)
	}
	// Another scope starts from the beginning.
	if d := decide("session:B"); d.Step != 0 || d.Outcome.Status != 502 {
		t.Errorf("scope B first call: %+v", d)
	}
	// Counters survive a restart.
	db.Close()
	e2, _ := mustEngine(t, path)
	d, err := e2.Decide(scenario.Request{Operation: string(sandbox.OpAdjustment), Scope: "session:B", Named: []string{"flaky"}})
	if err != nil || d.Step != 0 || d.Ref() != "flaky#0" {
		t.Errorf("scope B second call after restart: %+v %v", d, err)
	}
	d, _ = e2.Decide(scenario.Request{Operation: string(sandbox.OpAdjustment), Scope: "session:B", Named: []string{"flaky"}})
	if d.Step != 1 || !d.Outcome.Pass() {
		t.Errorf("scope B third call after restart: %+v", d)
	}
}

func TestDecideNotification(t *testing.T) {
	e, _ := mustEngine(t, ":memory:")
	if err := e.SetGlobal([]string{"slow", "notify"}); err != nil {
		t.Fatal(err)
	}
	n := scenario.Request{MerchantID: "MER_1", AppID: "APP", Scope: "app:APP"}
	var faults []string
	for range 3 {
		d, err := e.DecideNotification(n)
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, d.Outcome.Fault)
	}
	// "slow" matches any API operation but not notifications.
	if strings.Join(faults, ",") != "drop,duplicate,duplicate" {
		t.Errorf("notification faults %v", faults)
	}
	n.MerchantID = "MER_2"
	if d, _ := e.DecideNotification(n); d.Matched() || !strings.Contains(d.Miss, "merchant_id does not match") {
		t.Errorf("other merchant: %+v", d)
	}
	// A notification rule never matches an API request.
	if d, _ := e.Decide(scenario.Request{Operation: string(sandbox.OpOrder), MerchantID: "MER_1", Named: []string{"notify"}}); d.Matched() {
		t.Errorf("order matched a notification rule: %+v", d)
	}
}

func TestEngineSetManagement(t *testing.T) {
	e, _ := mustEngine(t, ":memory:")
	var unknown *scenario.UnknownError
	if err := e.SetGlobal([]string{"deny", "missing"}); !errors.As(err, &unknown) {
		t.Errorf("SetGlobal unknown: %v", err)
	}
	if err := e.SetGlobal([]string{"deny", "deny"}); err != nil || strings.Join(e.Global(), ",") != "deny" {
		t.Errorf("SetGlobal: %v %v", err, e.Global())
	}
	// A new set without the globally active scenario is refused; the old set stays.
	if err := e.Replace(testScenarios()[1:]); err == nil || !e.Has("deny") {
		t.Errorf("Replace dropping a global scenario: %v", err)
	}
	dup := append(testScenarios(), testScenarios()[0])
	if err := e.Replace(dup); err == nil {
		t.Error("Replace accepted a repeated name")
	}
	if err := e.Replace([]scenario.Scenario{{Name: "bad name", Rules: testScenarios()[0].Rules}}); err == nil {
		t.Error("Replace accepted an invalid name")
	}
	e.SetLoadErrors(map[string]string{"deny.yaml": "deny.yaml:3:5: boom", "new.yaml": "new.yaml:1:1: bad"})
	list := e.List()
	if len(list) != 6 || list[0].Name != "deny" || !list[0].Global || list[0].LoadError == "" ||
		list[1].LoadError != "" || list[5].File != "new.yaml" || list[5].Name != "" {
		t.Errorf("List: %+v", list)
	}
	if err := e.SetGlobal(nil); err != nil || len(e.Global()) != 0 {
		t.Errorf("SetGlobal(nil): %v %v", err, e.Global())
	}
	if err := e.Replace(testScenarios()[1:2]); err != nil || e.Has("deny") || len(e.List()) != 1 {
		t.Errorf("Replace: %v %+v", err, e.List())
	}
}

// A scripted issuer result must be one, must be seen, and must be for an operation
// that asks an issuer.
func TestCheckIssuer(t *testing.T) {
	issuer := func(ops []string, o scenario.Outcome) *scenario.Scenario {
		return &scenario.Scenario{Name: "s", Rules: []scenario.Rule{{When: scenario.When{Operations: ops}, Then: &o}}}
	}
	for _, tc := range []struct {
		name string
		sc   *scenario.Scenario
		want string // "" for no error
	}{
		{"approval", issuer([]string{"transaction", "verification"}, scenario.Outcome{Issuer: &scenario.Issuer{Result: "00"}}), ""},
		{"three letters", issuer([]string{"transaction"}, scenario.Outcome{Issuer: &scenario.Issuer{Result: "N7A"}}), ""},
		{"too long", issuer([]string{"transaction"}, scenario.Outcome{Issuer: &scenario.Issuer{Result: "0000"}}),
			`scenario s rule 0: issuer.result: must be an issuer result of 2 or 3 letters or digits such as "00" or "51", got "0000"`},
		{"with a fault", issuer([]string{"transaction"}, scenario.Outcome{Issuer: &scenario.Issuer{Result: "51"}, Fault: scenario.FaultEmpty}),
			"scenario s rule 0: issuer scripts the answer of an executed action: it cannot be combined with error or fault"},
		{"no issuer asked", issuer([]string{"transaction", "capture"}, scenario.Outcome{Issuer: &scenario.Issuer{Result: "51"}}),
			"scenario s rule 0: issuer applies only to operations that ask an issuer (transaction, verification), not capture"},
		{"in a sequence", &scenario.Scenario{Name: "s", Rules: []scenario.Rule{{When: scenario.When{Operations: []string{scenario.OpAny}},
			Sequence: []scenario.Step{{Then: scenario.Outcome{}}, {Then: scenario.Outcome{Issuer: &scenario.Issuer{Result: "51"}}}}}}},
			"scenario s rule 0: issuer applies only to operations that ask an issuer (transaction, verification), not any"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.sc.Check()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Check() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecidesNotificationsOnlyWithANotificationRule(t *testing.T) {
	all := testScenarios()
	without := slices.DeleteFunc(slices.Clone(all), func(sc scenario.Scenario) bool { return sc.Name == "notify" })
	for _, tc := range []struct {
		name      string
		scenarios []scenario.Scenario
		want      bool
	}{
		{"none loaded", nil, false},
		{"API rules only, one for any operation", without, false},
		{"a notification rule among others", all, true},
	} {
		e, _ := mustEngine(t, ":memory:")
		if err := e.Replace(tc.scenarios); err != nil {
			t.Fatal(err)
		}
		if got := e.DecidesNotifications(); got != tc.want {
			t.Errorf("%s: DecidesNotifications() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// A scenario built in Go is refused an unknown scope, a scope on a rule that counts
// nothing or per a resource its operation has no id of, a duplicate_charge that could
// not apply, or a probability out of 0 to 1.
func TestCheckScope(t *testing.T) {
	ops := scenario.When{Operations: []string{"adjustment"}}
	seq := []scenario.Step{{Then: scenario.Outcome{}}}
	for _, tc := range []struct {
		name string
		rule scenario.Rule
		want string
	}{
		{"transaction", scenario.Rule{When: ops, Sequence: seq, Scope: scenario.ScopeTransaction}, ""},
		{"unknown", scenario.Rule{When: ops, Sequence: seq, Scope: "session"},
			`scenario s rule 0: unknown scope "session" (want transaction or order)`},
		{"with then", scenario.Rule{When: ops, Then: &scenario.Outcome{}, Scope: scenario.ScopeTransaction},
			"scenario s rule 0: scope counts the calls of a sequence or of an outcome with a probability: a rule with scope needs sequence, or then with probability"},
		{"then with probability", scenario.Rule{When: ops, Then: &scenario.Outcome{Probability: ptr(0.5)}, Scope: scenario.ScopeTransaction}, ""},
		{"duplicate_charge on adjustment", scenario.Rule{When: ops, Then: &scenario.Outcome{DuplicateCharge: scenario.DuplicateRefuse}},
			"scenario s rule 0: duplicate_charge applies only to the transaction operation (POST /transactions), not adjustment"},
		{"duplicate_charge unknown", scenario.Rule{When: scenario.When{Operations: []string{"transaction"}}, Then: &scenario.Outcome{DuplicateCharge: "block"}},
			`scenario s rule 0: unknown duplicate_charge mode "block" (want refuse)`},
		{"duplicate_charge with a fault", scenario.Rule{When: scenario.When{Operations: []string{"transaction"}},
			Then: &scenario.Outcome{DuplicateCharge: scenario.DuplicateRefuse, Fault: scenario.FaultReset}},
			"scenario s rule 0: duplicate_charge decides how a payment executes: it cannot be combined with error or fault"},
		{"order on a request", scenario.Rule{When: ops, Sequence: seq, Scope: scenario.ScopeOrder},
			"scenario s rule 0: scope order applies to operation notification (the order a notification is about); a request's path names a transaction: use scope transaction"},
		{"transaction on a notification", scenario.Rule{When: scenario.When{Operations: []string{scenario.OpNotification}}, Sequence: seq, Scope: scenario.ScopeTransaction},
			"scenario s rule 0: scope transaction: a notification has no transaction id, use scope order"},
		{"order on a notification", scenario.Rule{When: scenario.When{Operations: []string{scenario.OpNotification}}, Sequence: seq, Scope: scenario.ScopeOrder}, ""},
		{"probability over 1", scenario.Rule{When: ops, Then: &scenario.Outcome{Probability: ptr(1.5)}},
			"scenario s rule 0: probability 1.5: want a number from 0 to 1"},
		{"probability NaN", scenario.Rule{When: ops, Sequence: []scenario.Step{{Then: scenario.Outcome{Probability: ptr(math.NaN())}}}},
			"scenario s rule 0: probability NaN: want a number from 0 to 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := scenario.Scenario{Name: "s", Rules: []scenario.Rule{tc.rule}}
			got := ""
			if err := sc.Check(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Check() = %q, want %q", got, tc.want)
			}
		})
	}
}

// A device.<command> rule matches the device requests of that command only; device
// matches them all. A Go-built scenario is refused an unknown command and a card for a
// command that reads none.
func TestDeviceCommandOperations(t *testing.T) {
	e, _ := mustEngine(t, ":memory:")
	terminal := &scenario.Outcome{Terminal: &scenario.Terminal{Card: "visa_swipe"}}
	if err := e.Replace([]scenario.Scenario{{Name: "till", Rules: []scenario.Rule{
		{When: scenario.When{Operations: []string{"device.sale"}}, Then: terminal},
		{When: scenario.When{Operations: []string{"device"}}, Then: &scenario.Outcome{Delay: 1}},
	}}}); err != nil {
		t.Fatal(err)
	}
	for command, want := range map[string]string{"device.sale": "till#0", "device.refund": "till#1", "": "till#1"} {
		d, err := e.Decide(scenario.Request{Operation: "device", Command: command, Named: []string{"till"}})
		if err != nil || d.Ref() != want {
			t.Errorf("%q: rule %q (%v), want %s", command, d.Ref(), err, want)
		}
	}
	if err := e.Replace([]scenario.Scenario{{Name: "sale", Rules: []scenario.Rule{{When: scenario.When{Operations: []string{"device.sale"}}, Then: terminal}}}}); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.Decide(scenario.Request{Operation: "device", Command: "device.void", Named: []string{"sale"}}); d.Matched() || d.Miss != "sale#0: operation is device.void, want device.sale" {
		t.Errorf("a void: matched %q, miss %q", d.Ref(), d.Miss)
	}
	for op, want := range map[string]string{
		"device.sail": `scenario s rule 0: unknown device command "device.sail" (want device.sale, device.preauth, device.capture, device.refund, device.void, device.tip_adjust, device.verify, device.end_of_day, device.batch_report, device.line_item, device.ping, device.cancel, or device for every command)`,
		"device.ping": "scenario s rule 0: terminal: device.ping reads no card: card, entry_mode, tip, pin and host_decline apply to device.sale, device.preauth, device.refund, device.verify",
		"refund":      "scenario s rule 0: terminal applies only to the device operations (POST /devices), not refund",
	} {
		sc := scenario.Scenario{Name: "s", Rules: []scenario.Rule{{When: scenario.When{Operations: []string{op}}, Then: terminal}}}
		if err := sc.Check(); err == nil || err.Error() != want {
			t.Errorf("%s: Check() = %v, want %s", op, err, want)
		}
	}
}

// A scenario built in Go is refused a rule without operations or one that lists
// notification with others, in the words of the scenario files.
func TestCheckOperations(t *testing.T) {
	for ops, want := range map[string]string{
		"":                        "scenario s rule 0: needs at least one operation",
		"notification adjustment": "scenario s rule 0: notification cannot be listed with other operations: its outcomes differ",
		"adjustment capture":      "",
	} {
		sc := scenario.Scenario{Name: "s", Rules: []scenario.Rule{{When: scenario.When{Operations: strings.Fields(ops)}, Then: &scenario.Outcome{}}}}
		got := ""
		if err := sc.Check(); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("operations %q: Check() = %q, want %q", ops, got, want)
		}
	}
}
