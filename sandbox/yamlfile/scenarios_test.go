package yamlfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/scenarios"
)

func mustScenarioProblems(t *testing.T, src string) []string {
	t.Helper()
	_, err := LoadScenarios(files("s.yaml", src))
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("LoadScenarios error = %v, want Problems", err)
	}
	return problemStrings(ps)
}

func TestLoadScenariosReadsEveryField(t *testing.T) {
	src := `version: 1
name: every-field
description: all of it
rules:
  - when:
      operation: adjustment
      transaction_id: TRN_1
      merchant_id: MER_1
      app_id: APP_1
      headers: {X-GP-Version: 2020-12-22}
      body: {gratuity_amount: "999", n: 2, ok: true, none: null, list: [1.5, x]}
    then:
      status: 403
      error: {code: ACTION_NOT_AUTHORIZED, detail: "40212"}
      apply: true
      delay: 250ms
  - when: {operation: [adjustment, order]}
    sequence:
      - {then: {body: {status: DECLINED}, fault: malformed}, times: 2}
      - then: pass
  - when: {operation: any}
    then: {idempotency: replay, fault: timeout, delay: 2s, apply: true}
  - when: {operation: [transaction, verification]}
    then: {issuer: {result: "N7"}, delay: 1s}
  - when: {operation: capture}
    scope: transaction
    then: {fault: reset, probability: 0.25}
  - when: {operation: transaction}
    then: {duplicate_charge: refuse}
---
version: 1
name: notes
rules:
  - when: {operation: notification, merchant_id: MER_1}
    then: {fault: duplicate, delay: 1s}
`
	got, err := LoadScenarios(files("a.yaml", src))
	if err != nil {
		t.Fatal(err)
	}
	quarter := 0.25
	want := []scenario.Scenario{
		{Name: "every-field", Description: "all of it", File: "a.yaml", Rules: []scenario.Rule{
			{
				When: scenario.When{
					Operations: []string{"adjustment"}, TransactionID: "TRN_1", MerchantID: "MER_1", AppID: "APP_1",
					Headers: map[string]string{"X-GP-Version": "2020-12-22"},
					Body: map[string]any{"gratuity_amount": "999", "n": json.Number("2"), "ok": true, "none": nil,
						"list": []any{json.Number("1.5"), "x"}},
				},
				Then: &scenario.Outcome{Status: 403, Apply: true, Delay: 250 * time.Millisecond, Error: &scenario.Error{
					Code: "ACTION_NOT_AUTHORIZED", Detail: "40212", Description: "Permission not enabled to execute action"}},
			},
			{
				When: scenario.When{Operations: []string{"adjustment", "order"}},
				Sequence: []scenario.Step{
					{Then: scenario.Outcome{Body: map[string]any{"status": "DECLINED"}, Fault: "malformed"}, Times: 2},
					{Then: scenario.Outcome{}, Times: 1},
				},
			},
			{
				When: scenario.When{Operations: []string{"any"}},
				Then: &scenario.Outcome{Idempotency: "replay", Fault: "timeout", Delay: 2 * time.Second, Apply: true},
			},
			{
				When: scenario.When{Operations: []string{"transaction", "verification"}},
				Then: &scenario.Outcome{Issuer: &scenario.Issuer{Result: "N7"}, Delay: time.Second},
			},
			{
				When: scenario.When{Operations: []string{"capture"}}, Scope: "transaction",
				Then: &scenario.Outcome{Fault: "reset", Probability: &quarter},
			},
			{
				When: scenario.When{Operations: []string{"transaction"}},
				Then: &scenario.Outcome{DuplicateCharge: "refuse"},
			},
		}},
		{Name: "notes", File: "a.yaml", Rules: []scenario.Rule{{
			When: scenario.When{Operations: []string{"notification"}, MerchantID: "MER_1"},
			Then: &scenario.Outcome{Fault: "duplicate", Delay: time.Second},
		}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

func TestLoadScenariosProblems(t *testing.T) {
	head := "version: 1\nname: x\nrules:\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unknown key", head + "  - when: {operation: order}\n    then: {stauts: 400}\n",
			[]string{`s.yaml:5:12: rules[0].then: unknown key "stauts"`}},
		{"unknown operation", head + "  - when: {operation: chargeback}\n    then: pass\n",
			[]string{`s.yaml:4:23: rules[0].when.operation: unknown operation "chargeback" (want ` + strings.Join(scenario.OperationNames(), ", ") + `)`}},
		{"unknown device command", head + "  - when: {operation: [device.sale, device.refnd]}\n    then: {terminal: {outcome: host_decline}}\n",
			[]string{`s.yaml:4:23: rules[0].when.operation: unknown device command "device.refnd" (want device.sale, device.preauth, device.capture, device.refund, device.void, device.tip_adjust, device.verify, device.end_of_day, device.batch_report, device.line_item, device.ping, device.cancel, or device for every command)`}},
		{"card for a command that reads none", head + "  - when: {operation: [device.sale, device.void]}\n    then: {terminal: {tip: \"100\"}}\n",
			[]string{`s.yaml:5:22: rules[0].then.terminal: terminal: device.void reads no card: card, entry_mode, tip, pin and host_decline apply to device.sale, device.preauth, device.refund, device.verify`}},
		{"result without host_decline", head + "  - when: {operation: device.sale}\n    then: {terminal: {outcome: customer_cancels, result: \"51\"}}\n",
			[]string{`s.yaml:5:22: rules[0].then.terminal: terminal: result is the host's decline code: it needs outcome host_decline`}},
		{"status without error", head + "  - when: {operation: order}\n    then: {status: 400}\n",
			[]string{`s.yaml:5:20: rules[0].then.status: status needs an error: a scripted status is always a GP error`}},
		{"error without status", head + "  - when: {operation: order}\n    then: {error: {code: SYSTEM_ERROR, detail: \"50000\"}}\n",
			[]string{`s.yaml:5:19: rules[0].then.error: error needs a status`}},
		{"unquoted detail", head + "  - when: {operation: order}\n    then: {status: 500, error: {code: SYSTEM_ERROR, detail: 50000}}\n",
			[]string{`s.yaml:5:61: rules[0].then.error.detail: expected a string, got the number 50000; write it in quotes`}},
		{"bad duration", head + "  - when: {operation: order}\n    then: {delay: soon}\n",
			[]string{`s.yaml:5:19: rules[0].then.delay: must be a duration such as 1s or 250ms, at most 45s, got "soon"`}},
		{"empty sequence", head + "  - when: {operation: order}\n    sequence: []\n",
			[]string{`s.yaml:5:15: rules[0].sequence: a sequence needs at least one step`}},
		{"then and sequence", head + "  - when: {operation: order}\n    then: pass\n    sequence: [{then: pass}]\n",
			[]string{`s.yaml:4:5: rules[0]: a rule has either then or sequence, not both`}},
		{"unknown fault", head + "  - when: {operation: order}\n    then: {fault: drop}\n",
			[]string{`s.yaml:5:19: rules[0].then.fault: unknown fault "drop" (want reset, timeout, empty or malformed)`}},
		{"notification outcome", head + "  - when: {operation: notification, headers: {A: b}}\n    then: {status: 500, error: {code: SYSTEM_ERROR, detail: \"50000\"}}\n",
			[]string{
				`s.yaml:4:46: rules[0].when.headers: a notification has no request to match this against`,
				`s.yaml:5:11: rules[0].then: a notification outcome has only delay and fault (drop or duplicate)`,
			}},
		{"uncatalogued error without description", head + "  - when: {operation: order}\n    then: {status: 418, error: {code: TEAPOT, detail: \"41800\"}}\n",
			[]string{`s.yaml:5:39: rules[0].then.error.code: the catalogue has no text for TEAPOT 41800: write a description`}},
		{"apply alone", head + "  - when: {operation: order}\n    then: {apply: true}\n",
			[]string{`s.yaml:5:19: rules[0].then.apply: apply needs an error or a fault: without them the action is applied anyway`}},
		{"bad name and version", "version: 2\nname: a b\nrules: [{when: {operation: any}, then: pass}]\n",
			[]string{`s.yaml:1:10: version: unsupported version 2 (want 1)`, `s.yaml:2:7: name: ` + scenario.NameRule}},
		{"a version that is no number, said once", "version: \"one\"\nname: a\nrules: [{when: {operation: any}, then: pass}]\n",
			[]string{`s.yaml:1:10: version: expected an integer, got the string "one"`}},
		{"not pass", head + "  - when: {operation: order}\n    then: fail\n",
			[]string{`s.yaml:5:11: rules[0].then: expected pass or a mapping of outcome fields, got the string "fail"`}},
		{"missing keys", "name: x\nrules:\n  - then: pass\n",
			[]string{`s.yaml:1:1: missing required key "version"`, `s.yaml:3:5: rules[0]: missing required key "when"`}},
		{"times below one", head + "  - when: {operation: order}\n    sequence: [{then: pass, times: 0}]\n",
			[]string{`s.yaml:5:36: rules[0].sequence[0].times: times must be at least 1`}},
		{"empty file", "", []string{`s.yaml: no scenario: the file is empty`}},
		{"unquoted issuer result", head + "  - when: {operation: transaction}\n    then: {issuer: {result: 51}}\n",
			[]string{`s.yaml:5:29: rules[0].then.issuer.result: expected a string, got the number 51; write it in quotes`}},
		{"bad issuer result", head + "  - when: {operation: transaction}\n    then: {issuer: {result: \"5-1\"}}\n",
			[]string{`s.yaml:5:29: rules[0].then.issuer.result: must be an issuer result of 2 or 3 letters or digits such as "00" or "51", got "5-1"`}},
		{"issuer without result", head + "  - when: {operation: transaction}\n    then: {issuer: {code: \"51\"}}\n",
			[]string{`s.yaml:5:20: rules[0].then.issuer: missing required key "result"`, `s.yaml:5:21: rules[0].then.issuer: unknown key "code"`}},
		{"issuer with error", head + "  - when: {operation: transaction}\n    then: {status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: \"50046\"}, issuer: {result: \"51\"}}\n",
			[]string{`s.yaml:5:90: rules[0].then.issuer: issuer scripts the answer of an executed action: it cannot be combined with error or fault`}},
		{"issuer with fault", head + "  - when: {operation: verification}\n    sequence: [{then: {fault: empty, issuer: {result: \"51\"}}}]\n",
			[]string{`s.yaml:5:46: rules[0].sequence[0].then.issuer: issuer scripts the answer of an executed action: it cannot be combined with error or fault`}},
		{"issuer on an operation without one", head + "  - when: {operation: [transaction, capture]}\n    then: {issuer: {result: \"51\"}}\n",
			[]string{`s.yaml:5:20: rules[0].then.issuer: issuer applies only to operations that ask an issuer (transaction, verification), not capture`}},
		{"issuer on any", head + "  - when: {operation: any}\n    then: {issuer: {result: \"00\"}}\n",
			[]string{`s.yaml:5:20: rules[0].then.issuer: issuer applies only to operations that ask an issuer (transaction, verification), not any`}},
		{"unknown scope", head + "  - when: {operation: adjustment}\n    scope: session\n    sequence: [{then: pass}]\n",
			[]string{`s.yaml:5:12: rules[0].scope: unknown scope "session" (want transaction or order)`}},
		{"scope without sequence", head + "  - when: {operation: adjustment}\n    scope: transaction\n    then: pass\n",
			[]string{`s.yaml:5:12: rules[0].scope: scope counts the calls of a sequence or of an outcome with a probability: a rule with scope needs sequence, or then with probability`}},
		{"unknown duplicate_charge", head + "  - when: {operation: transaction}\n    then: {duplicate_charge: block}\n",
			[]string{`s.yaml:5:30: rules[0].then.duplicate_charge: unknown duplicate_charge mode "block" (want refuse)`}},
		{"duplicate_charge on capture", head + "  - when: {operation: [transaction, capture]}\n    then: {duplicate_charge: refuse}\n",
			[]string{`s.yaml:5:30: rules[0].then.duplicate_charge: duplicate_charge applies only to the transaction operation (POST /transactions), not capture`}},
		{"duplicate_charge with error", head + "  - when: {operation: transaction}\n    then: {status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: \"50046\"}, duplicate_charge: refuse}\n",
			[]string{`s.yaml:5:100: rules[0].then.duplicate_charge: duplicate_charge decides how a payment executes: it cannot be combined with error or fault`}},
		{"probability over 1", head + "  - when: {operation: adjustment}\n    then: {status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: \"50046\"}, probability: 1.5}\n",
			[]string{`s.yaml:5:95: rules[0].then.probability: must be a number from 0 to 1 such as 0.3, got the number 1.5`}},
		{"probability negative", head + "  - when: {operation: adjustment}\n    sequence: [{then: {delay: 1s, probability: -0.1}}]\n",
			[]string{`s.yaml:5:48: rules[0].sequence[0].then.probability: must be a number from 0 to 1 such as 0.3, got the number -0.1`}},
		{"probability quoted", head + "  - when: {operation: adjustment}\n    then: {delay: 1s, probability: \"0.3\"}\n",
			[]string{`s.yaml:5:36: rules[0].then.probability: must be a number from 0 to 1 such as 0.3, got the string "0.3"`}},
		{"probability not a number", head + "  - when: {operation: adjustment}\n    then: {delay: 1s, probability: .nan}\n",
			[]string{`s.yaml:5:36: rules[0].then.probability: must be a number from 0 to 1 such as 0.3, got the number .nan`}},
		{"probability alone", head + "  - when: {operation: adjustment}\n    then: {probability: 0.5}\n",
			[]string{`s.yaml:5:25: rules[0].then.probability: probability needs an outcome to apply by chance: with nothing else the outcome is pass`}},
		{"scope transaction on notification", head + "  - when: {operation: notification}\n    scope: transaction\n    sequence: [{then: pass}]\n",
			[]string{`s.yaml:5:12: rules[0].scope: scope transaction: a notification has no transaction id, use scope order`}},
		{"scope order on a request", head + "  - when: {operation: order}\n    scope: order\n    sequence: [{then: pass}]\n",
			[]string{`s.yaml:5:12: rules[0].scope: scope order applies to operation notification (the order a notification is about); a request's path names a transaction: use scope transaction`}},
		{"notification with others", head + "  - when: {operation: [notification, order]}\n    then: pass\n",
			[]string{`s.yaml:4:23: rules[0].when.operation: notification cannot be listed with other operations: its outcomes differ`}},
		{"issuer on an unknown operation", head + "  - when: {operation: [transaction, chargeback]}\n    then: {issuer: {result: \"51\"}, duplicate_charge: refuse}\n",
			[]string{`s.yaml:4:23: rules[0].when.operation: unknown operation "chargeback" (want ` + strings.Join(scenario.OperationNames(), ", ") + `)`}},
		{"long terminal card", head + "  - when: {operation: device.sale}\n    then: {terminal: {card: " + strings.Repeat("x", 50) + "}}\n",
			[]string{`s.yaml:5:22: rules[0].then.terminal: terminal: card "` + strings.Repeat("x", 40) + `…": want a terminal test card (` + strings.Join(sandbox.TerminalCardNames(), ", ") + `)`}},
		{"issuer on notification", head + "  - when: {operation: notification}\n    then: {issuer: {result: \"00\"}}\n",
			[]string{`s.yaml:5:11: rules[0].then: a notification outcome has only delay and fault (drop or duplicate)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustScenarioProblems(t, tc.src); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// A rule that both the loader and Check refuse is refused in the same words: the
// loader's first message, after its position, is Check's after the rule's index.
func TestScenarioChecksAgree(t *testing.T) {
	head := "version: 1\nname: x\nrules:\n"
	for _, rule := range []string{
		"  - when: {operation: [transaction, capture]}\n    then: {issuer: {result: \"51\"}}\n",
		"  - when: {operation: any}\n    sequence: [{then: {fault: reset, issuer: {result: \"51\"}}}]\n",
		"  - when: {operation: transaction}\n    then: {duplicate_charge: block}\n",
		"  - when: {operation: transaction}\n    then: {fault: empty, duplicate_charge: refuse}\n",
		"  - when: {operation: [transaction, device.sale]}\n    then: {duplicate_charge: refuse}\n",
		"  - when: {operation: refund}\n    then: {terminal: {card: visa_swipe}}\n",
		"  - when: {operation: device.ping}\n    then: {terminal: {tip: \"100\"}}\n",
		"  - when: {operation: device}\n    then: {fault: reset, terminal: {outcome: customer_cancels}}\n",
		"  - when: {operation: device}\n    then: {terminal: {pin: right}}\n",
		"  - when: {operation: order}\n    scope: order\n    sequence: [{then: pass}]\n",
		"  - when: {operation: notification}\n    scope: transaction\n    sequence: [{then: pass}]\n",
		"  - when: {operation: adjustment}\n    scope: transaction\n    then: {delay: 1s}\n",
	} {
		roots, _ := documents("s.yaml", []byte(head+rule))
		if len(roots) != 1 {
			t.Fatalf("%s: %d documents", rule, len(roots))
		}
		d := newDecoder("s.yaml")
		doc := new(scenarioDoc)
		d.decode(roots[0], "", doc)
		if len(d.problems) > 0 {
			t.Fatalf("%s: does not decode: %v", rule, d.problems)
		}
		sc := doc.toScenario("s.yaml")
		checkScenario(d, doc)
		if len(d.problems) == 0 {
			t.Fatalf("%s: the loader finds no problem", rule)
		}
		_, loaded, _ := strings.Cut(d.problems.sorted()[0].Message, ": ")
		if err := sc.Check(); err == nil || err.Error() != "scenario x rule 0: "+loaded {
			t.Errorf("%s: Check() = %v, the loader says %q", rule, err, loaded)
		}
	}
}

func TestLoadScenariosDuplicateNames(t *testing.T) {
	doc := "version: 1\nname: same\nrules: [{when: {operation: any}, then: pass}]\n"
	_, err := LoadScenarios(files("a.yaml", doc, "b.yml", doc, "c.txt", "ignored"))
	if err == nil || err.Error() != `b.yml:2:7: name: duplicate scenario name "same" (first defined at a.yaml:2:7)` {
		t.Errorf("err = %v", err)
	}
}

// A scenario with problems of its own still has its name checked, and one outcome
// can have several problems: validate lists them all in one run.
func TestLoadScenariosReportsEveryProblem(t *testing.T) {
	good := "version: 1\nname: same\nrules: [{when: {operation: any}, then: pass}]\n"
	bad := "version: 1\nname: same\nrules: [{when: {operation: order}, then: {status: 200}}, {when: {operation: any}, then: {stauts: 1}}]\n"
	_, err := LoadScenarios(files("a.yaml", good, "b.yaml", bad))
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("LoadScenarios error = %v, want Problems", err)
	}
	want := []string{
		`b.yaml:2:7: name: duplicate scenario name "same" (first defined at a.yaml:2:7)`,
		`b.yaml:3:51: rules[0].then.status: status needs an error: a scripted status is always a GP error`,
		`b.yaml:3:51: rules[0].then.status: status must be an error status between 400 and 599, got 200`,
		`b.yaml:3:90: rules[1].then: unknown key "stauts"`,
	}
	got := problemStrings(ps)
	slices.Sort(got)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestCheckScenarioBindings(t *testing.T) {
	_, bindings, err := LoadFixturesWithBindings(files("f.yaml", `merchants:
  - id: MER_1
    name: one
    scenarios: [slow-network, nope]
`), testNow)
	if err != nil {
		t.Fatal(err)
	}
	ps := CheckScenarioBindings(bindings, func(n string) bool { return n == "slow-network" })
	if got := problemStrings(ps); !reflect.DeepEqual(got, []string{`f.yaml:4:31: merchant MER_1: unknown scenario "nope"`}) {
		t.Errorf("got %q", got)
	}
}

// The built-in scenarios load, each with the name of its file, and satisfy the
// engine's own checks.
func TestBuiltinScenariosLoad(t *testing.T) {
	got, err := LoadScenarios(scenarios.FS)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range got {
		names = append(names, sc.Name)
		if sc.File != sc.Name+".yaml" || sc.Description == "" {
			t.Errorf("%s: file %s, description %q", sc.Name, sc.File, sc.Description)
		}
		if err := sc.Check(); err != nil {
			t.Error(err)
		}
	}
	want := "adjustment-not-available batch-closed capture-over-limit declined-adjustment declined-sale downstream-error flaky-then-ok " +
		"idempotency-replay order-merchant-not-configured slow-network timeout-after-commit token-expired"
	if strings.Join(names, " ") != want {
		t.Errorf("built-ins: %s", names)
	}
}

// FuzzLoadScenarios: loading never panics, and whatever loads without problems is a
// set the engine accepts.
func FuzzLoadScenarios(f *testing.F) {
	entries, _ := scenarios.FS.ReadDir(".")
	for _, e := range entries {
		if data, err := scenarios.FS.ReadFile(e.Name()); err == nil && strings.HasSuffix(e.Name(), ".yaml") {
			f.Add(data)
		}
	}
	f.Add([]byte("version: 1\nname: n\nrules: [{when: {operation: [order]}, sequence: [{then: pass, times: 3}]}]\n"))
	f.Add([]byte("version: 1\nname: &a n\nrules: [{when: {operation: *a}, then: {body: {a: [1, {b: null}]}}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := LoadScenarios(files("f.yaml", string(data)))
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error is not Problems: %v", err)
			}
			return
		}
		if _, err := scenario.NewEngine(nil, got); err != nil {
			t.Fatalf("loaded set refused by the engine: %v\n%s", err, data)
		}
	})
}

// A problem quoting a value the file wrote masks a card number in it, and in the
// file's name: problems go to the log, the terminal and admin answers.
func TestProblemsHoldNoCardNumber(t *testing.T) {
	const pan, masked = "4263970000005262", "426397******5262"
	scenarioFile := "version: 1\nname: x\nrules:\n" +
		"  - when: {operation: device}\n    then: {terminal: {card: \"" + pan + "\"}}\n" +
		"  - when: {operation: \"" + pan + "\"}\n    then: pass\n" +
		"  - when: {operation: any}\n    then: {body: {\"" + pan + "\": 0x10}}\n"
	_, err := LoadScenarios(files("s.yaml", scenarioFile))
	var ps Problems
	if !errors.As(err, &ps) || len(ps) < 3 {
		t.Fatalf("LoadScenarios: %v, want a problem for each rule", err)
	}
	fixtureFile := "transactions:\n  - id: TRN_x\n    status: \"" + pan + "\"\n"
	_, err = LoadFixtures(files("f.yaml", fixtureFile), testNow)
	var fps Problems
	if !errors.As(err, &fps) {
		t.Fatalf("LoadFixtures: %v, want problems", err)
	}
	for _, p := range append(ps, fps...) {
		if s := p.String(); strings.Contains(s, pan) {
			t.Errorf("problem %q holds the card number in clear", s)
		}
	}
	// Each quotes it, masked: the terminal card, the operation, the body's key in the
	// path, the fixture's status.
	all := ps.Error() + "\n" + fps.Error()
	for _, want := range []string{"card \"" + masked + "\"", "unknown operation \"" + masked + "\"", "body." + masked + ": ", "status: must be one of CAPTURED, PREAUTHORIZED, DECLINED, REVERSED, got \"" + masked + "\""} {
		if !strings.Contains(all, want) {
			t.Errorf("no problem quotes %q:\n%s", want, all)
		}
	}
	sc := scenario.Scenario{Name: "x", Rules: []scenario.Rule{{
		When: scenario.When{Operations: []string{"device"}},
		Then: &scenario.Outcome{Terminal: &scenario.Terminal{Card: pan}},
	}}}
	if err := sc.Check(); err == nil || strings.Contains(err.Error(), pan) || !strings.Contains(err.Error(), masked) {
		t.Errorf("Check() = %v, want the card number masked", err)
	}
	// A card number is no scenario's name, and a binding to one is quoted masked.
	if got := mustScenarioProblems(t, "version: 1\nname: \""+pan+"\"\nrules: [{when: {operation: any}, then: pass}]\n"); len(got) != 1 || strings.Contains(got[0], pan) || !strings.Contains(got[0], "hold no card number") {
		t.Errorf("a scenario named %s: %q, want one problem, the number masked", pan, got)
	}
	_, bindings, err := LoadFixturesWithBindings(files(pan+".yaml", "merchants:\n  - id: MER_1\n    name: one\n    scenarios: [\""+pan+"\"]\n"), testNow)
	if err != nil {
		t.Fatal(err)
	}
	bound := CheckScenarioBindings(bindings, func(string) bool { return false })
	if s := bound.Error(); len(bound) != 1 || strings.Contains(s, pan) || !strings.Contains(s, masked+".yaml") {
		t.Errorf("binding problems %q, want one, the card number masked in the file's name and the scenario's", s)
	}
}

// A scenario file named with a card number is refused, named masked: its name would
// be listed and key its load errors, and masked, two such names could be one.
func TestScenarioFileNamedWithCardNumber(t *testing.T) {
	const doc = "version: 1\nname: %s\nrules: [{when: {operation: any}, then: pass}]\n"
	for name, masked := range map[string]string{
		"4263970000005262.yaml":   "426397******5262.yaml",
		"4263-9700-0000-5262.yml": "4263-97**-****-5262.yml",
	} {
		_, err := LoadScenarios(files(name, fmt.Sprintf(doc, "a"), "ok.yaml", fmt.Sprintf(doc, "b")))
		var ps Problems
		if !errors.As(err, &ps) || len(ps) != 1 {
			t.Fatalf("LoadScenarios(%s): %v, want one problem", name, err)
		}
		if got, want := ps[0].String(), masked+": the file's name holds a card number: rename the file"; got != want {
			t.Errorf("LoadScenarios(%s): %q, want %q", name, got, want)
		}
	}
}
