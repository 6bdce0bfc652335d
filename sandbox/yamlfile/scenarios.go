package yamlfile

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// LoadScenarios reads the scenarios of every *.yaml and *.yml file at the root of fsys,
// in name order (names starting with "." are skipped). Each YAML document is one
// scenario; names must be unique across all files.
//
// When anything is wrong the error is Problems, listing every problem with its file,
// line and column. Problem.File (and Scenario.File) is the name within fsys. Other
// errors mean fsys itself could not be listed.
func LoadScenarios(fsys fs.FS) ([]scenario.Scenario, error) {
	l := &scenarioLoader{names: map[string]site{}}
	if err := eachYAMLFile(fsys, "scenario", scenarioLimits, &l.problems, l.file); err != nil {
		return nil, err
	}
	if err := l.problems.err(); err != nil {
		return nil, err
	}
	return l.scenarios, nil
}

// DecodeScenario decodes and validates one scenario written as a single YAML (or
// JSON) document, by the rules of a scenario file; name stands for the file in
// problems. When anything is wrong the error is Problems.
func DecodeScenario(data []byte, name string) (scenario.Scenario, error) {
	if len(data) > MaxScenarioFileSize {
		err := &tooLargeError{size: int64(len(data)), limit: MaxScenarioFileSize}
		return scenario.Scenario{}, Problems{{File: name, Message: err.Error()}}.err()
	}
	l := &scenarioLoader{names: map[string]site{}}
	l.file(name, data)
	if len(l.problems) == 0 && len(l.scenarios) > 1 {
		loc := l.names[l.scenarios[1].Name]
		l.problems = append(l.problems, loc.problemf("expected one scenario document, found a second one"))
	}
	if err := l.problems.err(); err != nil {
		return scenario.Scenario{}, err
	}
	return l.scenarios[0], nil
}

// withinRuleLimits counts the rules of a file's documents before they are decoded,
// and reports the file when it passes MaxScenarioRules, or the files read so far
// MaxScenarioDirRules.
func (l *scenarioLoader) withinRuleLimits(name string, roots []*yaml.Node) bool {
	inFile := 0
	for _, root := range roots {
		rules := mappingValue(root, "rules")
		if rules == nil || rules.Kind != yaml.SequenceNode {
			continue
		}
		inFile += len(rules.Content)
		at := site{file: name, line: rules.Line, col: rules.Column, path: "rules"}
		switch {
		case inFile > MaxScenarioRules:
			l.problems = append(l.problems, at.problemf("the file has more than %d rules, the limit per file", MaxScenarioRules))
			return false
		case l.rules+inFile > MaxScenarioDirRules:
			l.problems = append(l.problems, at.problemf("the files up to this one have more than %d rules, the limit for a directory", MaxScenarioDirRules))
			return false
		}
	}
	l.rules += inFile
	return true
}

// mappingValue returns the value of key in a mapping node, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// CheckScenarioBindings reports every fixture binding that names no scenario known
// to known.
func CheckScenarioBindings(bindings []ScenarioBinding, known func(name string) bool) Problems {
	var ps Problems
	for _, b := range bindings {
		if !known(b.Scenario) {
			ps = append(ps, b.Problem(fmt.Sprintf("%s %s: unknown scenario %q", b.Kind, b.ID, carddata.Excerpt(b.Scenario))))
		}
	}
	return ps.reported()
}

type scenarioLoader struct {
	scenarios []scenario.Scenario
	problems  Problems
	names     map[string]site
	rules     int // rules read so far, of every file
}

func (l *scenarioLoader) file(name string, data []byte) {
	if carddata.HoldsCardData(name) {
		// A scenario's file is listed by GET /_sandbox/scenarios and keys its load
		// errors: masked, two such names could be one.
		l.problems = append(l.problems, Problem{File: name, Message: "the file's name holds a card number: rename the file"})
		return
	}
	roots, problems := documents(name, data)
	l.problems = append(l.problems, problems...)
	if len(roots) == 0 && len(problems) == 0 {
		l.problems = append(l.problems, Problem{File: name, Message: "no scenario: the file is empty"})
	}
	if !l.withinRuleLimits(name, roots) {
		return
	}
	for _, root := range roots {
		d := newDecoder(name)
		doc := new(scenarioDoc)
		d.decode(root, "", doc)
		checkScenario(d, doc)
		// A scenario with other problems still claims its name, so that every
		// duplicate is reported in the same run as the rest.
		dup := l.claimName(d, doc)
		l.problems = append(l.problems, d.problems...)
		if len(d.problems) == 0 && !dup {
			l.scenarios = append(l.scenarios, doc.toScenario(name))
		}
	}
}

// claimName records where the scenario name is defined, or reports it as a duplicate
// of an earlier definition.
func (l *scenarioLoader) claimName(d *decoder, doc *scenarioDoc) (dup bool) {
	loc, ok := d.at(&doc.Name)
	if !ok || doc.Name == "" {
		return false
	}
	at := site{file: d.file, line: loc.node.Line, col: loc.node.Column, path: "name"}
	if first, dup := l.names[doc.Name]; dup {
		l.problems = append(l.problems, at.problemf("duplicate scenario name %q (first defined at %s)", doc.Name, first))
		return true
	}
	l.names[doc.Name] = at
	return false
}

// The scenario file schema.

type scenarioDoc struct {
	Version     int       `yaml:"version,required"`
	Name        string    `yaml:"name,required"`
	Description string    `yaml:"description"`
	Rules       []ruleDoc `yaml:"rules,required"`
}

type ruleDoc struct {
	When     whenDoc     `yaml:"when,required"`
	Then     *outcomeDoc `yaml:"then"`
	Sequence []stepDoc   `yaml:"sequence"`
	Scope    stepScope   `yaml:"scope"`
}

// stepScope is what a sequence counts its steps per: "scope: transaction".
type stepScope string

func (s stepScope) check() string { return scenario.ScopeProblem(string(s)) }

type whenDoc struct {
	Operation     operations                 `yaml:"operation,required"`
	TransactionID string                     `yaml:"transaction_id"`
	MerchantID    string                     `yaml:"merchant_id"`
	AppID         string                     `yaml:"app_id"`
	Headers       map[headerName]headerValue `yaml:"headers"`
	Body          map[string]any             `yaml:"body"`
}

type stepDoc struct {
	Then  *outcomeDoc `yaml:"then,required"`
	Times *int        `yaml:"times"`
}

type outcomeDoc struct {
	Pass        bool           `yaml:"pass"`
	Status      int            `yaml:"status"`
	Error       *errorDoc      `yaml:"error"`
	Body        map[string]any `yaml:"body"`
	Delay       duration       `yaml:"delay"`
	Fault       string         `yaml:"fault"`
	Apply       bool           `yaml:"apply"`
	Idempotency string         `yaml:"idempotency"`
	Issuer      *issuerDoc     `yaml:"issuer"`
	Terminal    *terminalDoc   `yaml:"terminal"`
	Rate        *rateDoc       `yaml:"rate"`
	Probability *probability   `yaml:"probability"`
	// DuplicateCharge "refuse" refuses a payment that repeats an earlier one.
	DuplicateCharge string `yaml:"duplicate_charge"`
	// Dispute opens a dispute at this stage on the payment when it is deposited.
	Dispute string `yaml:"dispute"`
}

// probability is the chance that an outcome applies: "probability: 0.3".
type probability float64

func (p *probability) setScalar(n *yaml.Node) string {
	f, err := strconv.ParseFloat(n.Value, 64)
	if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" || err != nil || !scenario.ValidProbability(f) {
		return fmt.Sprintf("must be a number from 0 to 1 such as 0.3, got %s", describe(n))
	}
	*p = probability(f)
	return ""
}

// terminalDoc scripts the simulated terminal of a device command:
// "terminal: {card: mastercard_manual, tip: "200"}" or "terminal: {outcome: customer_cancels}".
type terminalDoc struct {
	Card      string `yaml:"card"`
	EntryMode string `yaml:"entry_mode"`
	Tip       string `yaml:"tip"`
	PIN       string `yaml:"pin"`
	Outcome   string `yaml:"outcome"`
	Result    string `yaml:"result"` // with host_decline: the host's decline code (05 when absent)
}

func (t terminalDoc) value() scenario.Terminal {
	return scenario.Terminal{Card: t.Card, EntryMode: t.EntryMode, Tip: t.Tip, PIN: t.PIN, Outcome: t.Outcome, Result: t.Result}
}

// rateDoc scripts a currency conversion's rate: "rate: {exchange_rate: "0.857"}" or
// "rate: {status: NOT_AVAILABLE}".
type rateDoc struct {
	ExchangeRate string `yaml:"exchange_rate"`
	Status       string `yaml:"status"`
}

// issuerDoc scripts the issuer's answer: "issuer: {result: "51"}".
type issuerDoc struct {
	Result issuerResult `yaml:"result,required"`
}

// issuerResult is a result code of the issuer, such as "00" or "51".
type issuerResult string

func (r issuerResult) check() string { return scenario.IssuerResultProblem(string(r)) }

type errorDoc struct {
	Code        string `yaml:"code,required"`
	Detail      digits `yaml:"detail,required"`
	Description string `yaml:"description"`
}

// setScalar reads "then: pass".
func (o *outcomeDoc) setScalar(n *yaml.Node) string {
	if n.ShortTag() != "!!str" || n.Value != "pass" {
		return fmt.Sprintf("expected pass or a mapping of outcome fields, got %s", describe(n))
	}
	o.Pass = true
	return ""
}

// operations is "operation: adjustment" or "operation: [adjustment, order]".
type operations []string

func (o *operations) setScalar(n *yaml.Node) string {
	if n.ShortTag() != "!!str" {
		return fmt.Sprintf("expected an operation or a list of them, got %s", describe(n))
	}
	*o = operations{n.Value}
	return o.check()
}

func (o operations) check() string { return scenario.OperationsProblem(o) }

// headerName is an HTTP header name.
type headerName string

func (h headerName) check() string {
	if h == "" {
		return "a header name must not be empty"
	}
	for _, c := range []byte(h) {
		if !isAlnum(c) && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return fmt.Sprintf("not a header name: %q", carddata.Excerpt(string(h)))
		}
	}
	return ""
}

// headerValue may be written unquoted even where YAML reads a timestamp:
// X-GP-Version: 2020-12-22.
type headerValue string

func (headerValue) timestampText() {}

// duration is a Go duration such as 1s or 250ms.
type duration string

func (s duration) check() string {
	d, err := time.ParseDuration(string(s))
	if err != nil || d < 0 || d > scenario.MaxDelay {
		return fmt.Sprintf("must be a duration such as 1s or 250ms, at most %s, got %q", scenario.MaxDelay, carddata.Excerpt(string(s)))
	}
	return ""
}

func (s duration) value() time.Duration {
	d, _ := time.ParseDuration(string(s))
	return d
}

// digits is a GP detailed error code such as "40212".
type digits string

func (s digits) check() string {
	if s == "" || len(s) > 10 || strings.Trim(string(s), "0123456789") != "" {
		return fmt.Sprintf("must be the digits of a detailed error code such as \"40212\", got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

// checkScenario adds the rules that involve several fields.
func checkScenario(d *decoder, doc *scenarioDoc) {
	if l, ok := d.at(&doc.Version); ok && doc.Version != 1 && !d.refused(l.node) {
		d.addf(l.node, l.path, "unsupported version %d (want 1)", doc.Version)
	}
	if l, ok := d.at(&doc.Name); ok && doc.Name != "" && !scenario.ValidName(doc.Name) {
		d.addf(l.node, l.path, "%s", scenario.NameRule)
	}
	if l, ok := d.at(&doc.Rules); ok && len(doc.Rules) == 0 {
		d.addf(l.node, l.path, "a scenario needs at least one rule")
	}
	for i := range doc.Rules {
		r := &doc.Rules[i]
		at, _ := d.at(r)
		notification := checkWhen(d, &r.When)
		thenAt, thenWritten := d.at(&r.Then)
		_, sequenceWritten := d.at(&r.Sequence)
		switch {
		case thenWritten && sequenceWritten:
			d.addf(at.node, at.path, "a rule has either then or sequence, not both")
		case !thenWritten && !sequenceWritten:
			d.addf(at.node, at.path, "a rule needs then or sequence")
		case thenWritten && r.Then == nil:
			if isNull(thenAt.node) {
				d.addf(thenAt.node, thenAt.path, "then needs pass or outcome fields")
			} // else not decodable: already reported
		case r.Then != nil:
			checkOutcome(d, r.Then, notification, r.When.Operation)
		case len(r.Sequence) == 0:
			l, _ := d.at(&r.Sequence)
			d.addf(l.node, l.path, "a sequence needs at least one step")
		}
		checkScope(d, r, notification)
		for j := range r.Sequence {
			s := &r.Sequence[j]
			if s.Then != nil {
				checkOutcome(d, s.Then, notification, r.When.Operation)
			} else if l, ok := d.at(&s.Then); ok && isNull(l.node) {
				d.addf(l.node, l.path, "then needs pass or outcome fields")
			}
			if l, ok := d.at(&s.Times); ok && s.Times != nil && *s.Times < 1 {
				d.addf(l.node, l.path, "times must be at least 1")
			}
		}
	}
}

// checkScope reports a scope that has nothing to count: without a sequence, or per a
// resource the operation has no id of.
func checkScope(d *decoder, r *ruleDoc, notification bool) {
	l, ok := d.at(&r.Scope)
	if !ok {
		return
	}
	// A sequence written empty is reported as such: it would count, once it has steps.
	_, sequence := d.at(&r.Sequence)
	counted := sequence || r.Then != nil && r.Then.Probability != nil
	if problem := scenario.ScopeRuleProblem(string(r.Scope), counted, notification); problem != "" {
		d.addf(l.node, l.path, "%s", problem)
	}
}

// checkWhen reports conditions that cannot apply and tells whether the rule is about
// notifications.
func checkWhen(d *decoder, w *whenDoc) bool {
	if len(w.Operation) != 1 || w.Operation[0] != scenario.OpNotification {
		return false
	}
	for _, f := range []struct {
		ptr any
		set bool
	}{{&w.TransactionID, w.TransactionID != ""}, {&w.Headers, w.Headers != nil}, {&w.Body, w.Body != nil}} {
		if l, ok := d.at(f.ptr); ok && f.set {
			d.addf(l.node, l.path, "a notification has no request to match this against")
		}
	}
	return true
}

// checkOutcome reports fields that contradict one another or do not fit the operation.
func checkOutcome(d *decoder, o *outcomeDoc, notification bool, ops operations) {
	at, _ := d.at(o)
	problem := func(ptr any, format string, args ...any) {
		l, ok := d.at(ptr)
		if !ok {
			l = at
		}
		d.addf(l.node, l.path, format, args...)
	}
	if o.Pass {
		if o.Status != 0 || o.Error != nil || o.Body != nil || o.Delay != "" || o.Fault != "" || o.Apply || o.Idempotency != "" || o.Issuer != nil || o.Terminal != nil || o.Rate != nil || o.Probability != nil || o.DuplicateCharge != "" || o.Dispute != "" {
			problem(&o.Pass, "pass cannot be combined with other outcome fields")
		}
		return
	}
	if o.Probability != nil && o.Status == 0 && o.Error == nil && o.Body == nil && o.Delay == "" && o.Fault == "" &&
		o.Idempotency == "" && o.Issuer == nil && o.Terminal == nil && o.Rate == nil && o.DuplicateCharge == "" && o.Dispute == "" {
		problem(&o.Probability, "probability needs an outcome to apply by chance: with nothing else the outcome is pass")
	}
	if notification {
		if o.Status != 0 || o.Error != nil || o.Body != nil || o.Apply || o.Idempotency != "" || o.Issuer != nil || o.Terminal != nil || o.Rate != nil || o.DuplicateCharge != "" || o.Dispute != "" {
			d.addf(at.node, at.path, "a notification outcome has only delay and fault (drop or duplicate)")
		}
		if o.Fault != "" && o.Fault != scenario.FaultDrop && o.Fault != scenario.FaultDuplicate {
			problem(&o.Fault, "unknown notification fault %q (want drop or duplicate)", carddata.Excerpt(o.Fault))
		}
		return
	}
	if o.Status != 0 && o.Error == nil {
		problem(&o.Status, "status needs an error: a scripted status is always a GP error")
	}
	if o.Error != nil && o.Status == 0 {
		problem(&o.Error, "error needs a status")
	}
	if o.Status != 0 && (o.Status < 400 || o.Status > 599) {
		problem(&o.Status, "status must be an error status between 400 and 599, got %d", o.Status)
	}
	if e := o.Error; e != nil && e.Description == "" && e.Code != "" && e.Detail != "" &&
		sandbox.CatalogueDescription(e.Code, string(e.Detail)) == "" {
		problem(&e.Code, "the catalogue has no text for %s %s: write a description", carddata.Excerpt(e.Code), carddata.Excerpt(string(e.Detail)))
	}
	if o.Body != nil && o.Error != nil {
		problem(&o.Body, "body merges onto a success response: it cannot be combined with error")
	}
	switch o.Fault {
	case "", scenario.FaultEmpty, scenario.FaultMalformed:
	case scenario.FaultReset, scenario.FaultTimeout:
		if o.Error != nil || o.Body != nil {
			problem(&o.Fault, "fault %s sends no answer: error and body would never be seen", o.Fault)
		}
	default:
		problem(&o.Fault, "unknown fault %q (want reset, timeout, empty or malformed)", carddata.Excerpt(o.Fault))
	}
	if o.Apply && o.Error == nil && o.Fault == "" {
		problem(&o.Apply, "apply needs an error or a fault: without them the action is applied anyway")
	}
	if o.Idempotency != "" && o.Idempotency != scenario.IdempotencyReplay {
		problem(&o.Idempotency, "unknown idempotency mode %q (want replay)", carddata.Excerpt(o.Idempotency))
	}
	for _, p := range scenario.OutcomeProblems(o.toOutcome(), ops) {
		problem(o.member(p.Member), "%s", p.Message)
	}
}

// member points at the member of the outcome that key names in a scenario file, so
// that a problem about it is reported where it is written (nil: the outcome's place).
func (o *outcomeDoc) member(key string) any {
	switch key {
	case "issuer":
		return &o.Issuer
	case "terminal":
		return &o.Terminal
	case "rate":
		return &o.Rate
	case "duplicate_charge":
		return &o.DuplicateCharge
	case "dispute":
		return &o.Dispute
	}
	return nil
}

func (doc *scenarioDoc) toScenario(file string) scenario.Scenario {
	sc := scenario.Scenario{Name: doc.Name, Description: doc.Description, File: file}
	for _, r := range doc.Rules {
		rule := scenario.Rule{When: r.When.toWhen(), Scope: string(r.Scope)}
		if r.Then != nil {
			o := r.Then.toOutcome()
			rule.Then = &o
		}
		for _, s := range r.Sequence {
			times := 1
			if s.Times != nil {
				times = *s.Times
			}
			rule.Sequence = append(rule.Sequence, scenario.Step{Then: s.Then.toOutcome(), Times: times})
		}
		sc.Rules = append(sc.Rules, rule)
	}
	return sc
}

func (w *whenDoc) toWhen() scenario.When {
	out := scenario.When{
		Operations: []string(w.Operation), TransactionID: w.TransactionID,
		MerchantID: w.MerchantID, AppID: w.AppID, Body: w.Body,
	}
	if w.Headers != nil {
		out.Headers = make(map[string]string, len(w.Headers))
		for k, v := range w.Headers {
			out.Headers[string(k)] = string(v)
		}
	}
	return out
}

func (o *outcomeDoc) toOutcome() scenario.Outcome {
	out := scenario.Outcome{
		Status: o.Status, Body: o.Body, Delay: o.Delay.value(), Fault: o.Fault,
		Apply: o.Apply, Idempotency: o.Idempotency, DuplicateCharge: o.DuplicateCharge, Dispute: o.Dispute,
	}
	if o.Probability != nil {
		p := float64(*o.Probability)
		out.Probability = &p
	}
	if o.Issuer != nil {
		out.Issuer = &scenario.Issuer{Result: string(o.Issuer.Result)}
	}
	if o.Terminal != nil {
		t := o.Terminal.value()
		out.Terminal = &t
	}
	if o.Rate != nil {
		out.Rate = &scenario.Rate{ExchangeRate: o.Rate.ExchangeRate, Status: o.Rate.Status}
	}
	if e := o.Error; e != nil {
		out.Error = &scenario.Error{Code: e.Code, Detail: string(e.Detail), Description: e.Description}
		if out.Error.Description == "" {
			out.Error.Description = sandbox.CatalogueDescription(e.Code, string(e.Detail))
		}
	}
	return out
}
