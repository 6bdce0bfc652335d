// Package scenario decides what the sandbox answers when a test has scripted an
// outcome: a GP error instead of the action, a changed response, latency, a broken
// connection, idempotency replay, or a sequence of those per session.
//
// It is pure evaluation over the standard library and package sandbox: scenario files
// are read by sandbox/yamlfile, requests arrive already parsed from sandbox/api, and
// sequence counters live in the sandbox Store so that they survive a restart.
package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// A rule names operations by their sandbox.Operation names, defined once in package
// sandbox; OpAny matches every API operation (not notifications, which are not
// requests of the client).
const (
	OpAny          = "any"
	OpNotification = string(sandbox.OpNotification)
)

// Faults a rule can script. The first four break an API answer; drop and duplicate
// concern status notifications.
const (
	FaultReset     = "reset"     // close the connection without an answer
	FaultTimeout   = "timeout"   // hold the connection for the delay, then close it
	FaultEmpty     = "empty"     // answer with no body
	FaultMalformed = "malformed" // answer with a truncated JSON body
	FaultDrop      = "drop"      // do not send the notification
	FaultDuplicate = "duplicate" // send the notification twice
)

// DefaultTimeoutHold is how long a timeout fault holds the connection when its outcome
// names no delay.
const DefaultTimeoutHold = 10 * time.Second

// MaxDelay bounds a delay: the server's write timeout is a minute, so a longer delay
// would lose the answer it delays.
const MaxDelay = 45 * time.Second

// Scenario is one loaded scenario file.
type Scenario struct {
	Name        string
	Description string
	File        string // where it was loaded from, for listings
	Rules       []Rule
}

// Rule is a condition and what to do when it holds: one outcome (Then) or a sequence.
// Scope, for a counted rule only (a sequence, or an outcome with a probability),
// counts its calls per resource within the request's session or app:
// ScopeTransaction per path transaction, ScopeOrder per order.
type Rule struct {
	When     When
	Then     *Outcome
	Sequence []Step
	Scope    string
}

// Sequence scopes a rule may name besides the default (the session, else the app).
const (
	ScopeTransaction = "transaction"
	ScopeOrder       = "order"
)

// SequenceScopes lists the values of a rule's scope, for messages.
var SequenceScopes = []string{ScopeTransaction, ScopeOrder}

// When is a rule's condition. Empty fields match anything.
type When struct {
	Operations    []string // any of these; OpAny matches every API operation
	TransactionID string
	MerchantID    string
	AppID         string
	Headers       map[string]string // names case-insensitive, values exact
	Body          map[string]any    // a JSON subset of the request body
}

// Step is one step of a sequence, applied Times times (at least once); the last step
// of a sequence repeats for ever.
type Step struct {
	Then  Outcome
	Times int
}

// Outcome is what the sandbox does for a matched request. The zero Outcome is pass:
// the normal behaviour.
type Outcome struct {
	Status      int    // with Error: the HTTP status of the scripted error
	Error       *Error // a GP error instead of the action
	Body        map[string]any
	Delay       time.Duration
	Fault       string
	Apply       bool   // execute the action even though the client sees Error or Fault
	Idempotency string // "replay" switches the request's key to replay mode
	Issuer      *Issuer
	Terminal    *Terminal
	Rate        *Rate // the DCC rate a currency conversion answers (rate.go)
	// Probability, when set, is the chance (0 to 1) that the outcome applies to a
	// call: a draw from the run's seed decides (see Draw); when it does not, the
	// rule does not apply and the next rule, or the normal behaviour, answers.
	Probability *float64
	// DuplicateCharge "refuse" refuses a payment that repeats an earlier approved one
	// (sandbox.DuplicateTransaction) instead of charging twice and flagging it.
	DuplicateCharge string
	// Dispute opens a dispute at this stage (RETRIEVAL or CHARGEBACK) on the payment
	// when its batch is deposited, as the dispute test cards do.
	Dispute string
}

// DuplicateRefuse is the only Outcome.DuplicateCharge value.
const DuplicateRefuse = "refuse"

// Terminal scripts what happens at the simulated terminal of a device command: the
// card presented, how, a tip added on screen, or an outcome without a card read
// (sandbox.Presentation). Empty members keep the terminal's own.
type Terminal struct {
	Card      string
	EntryMode string
	Tip       string // minor units
	PIN       string // sandbox.PINWrong: the customer keys a wrong PIN
	Outcome   string
	Result    string // with host_decline: the host's decline code; "" is 05
}

// Issuer scripts the issuer's answer to an operation that asks one (see AsksIssuer):
// the action executes and is stored with this result instead of the one the card's
// test values give. "00" approves; any other result declines.
type Issuer struct {
	Result string
}

// IssuerApproved is the result with which a scripted issuer approves.
const IssuerApproved = "00"

// ValidIssuerResult reports whether result can be a scripted issuer result: 2 or 3
// letters or digits, as GP's result codes are ("00", "51", "N7", "101").
func ValidIssuerResult(result string) bool {
	if len(result) < 2 || len(result) > 3 {
		return false
	}
	for _, c := range []byte(result) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// IssuerResultProblem says why result cannot be a scripted issuer result, or "".
func IssuerResultProblem(result string) string {
	if ValidIssuerResult(result) {
		return ""
	}
	return fmt.Sprintf("must be an issuer result of 2 or 3 letters or digits such as \"00\" or \"51\", got %q", carddata.Excerpt(result))
}

// AsksIssuer reports whether the operation op asks a card issuer, so that a rule may
// script the issuer's answer to it.
func AsksIssuer(op string) bool {
	return op == string(sandbox.OpTransaction) || op == string(sandbox.OpVerification)
}

// Error is a scripted GP error. An empty Description means the catalogue's text.
type Error struct {
	Code        string
	Detail      string
	Description string
}

// IdempotencyReplay is the only Outcome.Idempotency value.
const IdempotencyReplay = "replay"

// Pass reports whether the outcome leaves the answer as it would be anyway.
func (o Outcome) Pass() bool {
	return o.Error == nil && o.Body == nil && o.Delay == 0 && o.Fault == "" && o.Idempotency == "" && o.Issuer == nil && o.Terminal == nil &&
		o.DuplicateCharge == "" && o.Dispute == "" && o.Rate == nil
}

// String renders an outcome briefly, for logs and listings.
func (o Outcome) String() string {
	var parts []string
	if o.Error != nil {
		parts = append(parts, strconv.Itoa(o.Status)+" "+o.Error.Code+" "+o.Error.Detail)
	}
	if o.Issuer != nil {
		parts = append(parts, "issuer "+o.Issuer.Result)
	}
	if r := o.Rate; r != nil {
		parts = append(parts, "rate "+strings.TrimSpace(r.Status+" "+r.ExchangeRate))
	}
	if t := o.Terminal; t != nil {
		parts = append(parts, "terminal "+strings.TrimSpace(strings.Join([]string{t.Card, t.EntryMode, t.Tip, t.PIN, t.Outcome, t.Result}, " ")))
	}
	if o.Body != nil {
		parts = append(parts, "body")
	}
	if o.Delay > 0 {
		parts = append(parts, "delay "+o.Delay.String())
	}
	if o.Fault != "" {
		parts = append(parts, "fault "+o.Fault)
	}
	if o.Apply {
		parts = append(parts, "apply")
	}
	if o.Idempotency != "" {
		parts = append(parts, "idempotency "+o.Idempotency)
	}
	if o.DuplicateCharge != "" {
		parts = append(parts, "duplicate_charge "+o.DuplicateCharge)
	}
	if o.Dispute != "" {
		parts = append(parts, "dispute "+o.Dispute)
	}
	if o.Probability != nil {
		parts = append(parts, "probability "+strconv.FormatFloat(*o.Probability, 'g', -1, 64))
	}
	if len(parts) == 0 {
		return "pass"
	}
	return strings.Join(parts, ", ")
}

// Hold is how long a timeout fault holds the connection.
func (o Outcome) Hold() time.Duration {
	if o.Delay > 0 {
		return o.Delay
	}
	return DefaultTimeoutHold
}

// Check reports what is wrong with a scenario that did not come through the YAML
// loader (which reports the same mistakes with their positions, from the same
// checks: OperationProblem, ScopeProblem, OutcomeProblems and the others): nil when
// it is usable by an Engine. It reports the first problem only.
func (s *Scenario) Check() error {
	if !ValidName(s.Name) {
		return fmt.Errorf("scenario name %q: %s", carddata.Excerpt(s.Name), NameRule)
	}
	if len(s.Rules) == 0 {
		return fmt.Errorf("scenario %s: no rules", s.Name)
	}
	for i, r := range s.Rules {
		if problem := r.problem(); problem != "" {
			return fmt.Errorf("scenario %s rule %d: %s", s.Name, i, problem)
		}
	}
	return nil
}

// problem says what is wrong with a rule built in Go, or "".
func (r Rule) problem() string {
	if (r.Then == nil) == (len(r.Sequence) == 0) {
		return "needs either then or a sequence with steps"
	}
	if problem := ScopeProblem(r.Scope); problem != "" {
		return problem
	}
	if problem := ScopeRuleProblem(r.Scope, r.counted(), r.notification()); problem != "" {
		return problem
	}
	for _, o := range r.outcomes() {
		if o.Probability != nil && !ValidProbability(*o.Probability) {
			return fmt.Sprintf("probability %v: want a number from 0 to 1", *o.Probability)
		}
	}
	if problem := OperationsProblem(r.When.Operations); problem != "" {
		return problem
	}
	for _, o := range r.outcomes() {
		if o.Issuer != nil {
			if problem := IssuerResultProblem(o.Issuer.Result); problem != "" {
				return "issuer.result: " + problem
			}
		}
		if problems := OutcomeProblems(o, r.When.Operations); len(problems) > 0 {
			return problems[0].Message
		}
	}
	return ""
}

// notification reports whether the rule is about status notifications: its only
// operation is notification.
func (r Rule) notification() bool {
	return len(r.When.Operations) == 1 && r.When.Operations[0] == OpNotification
}

// NameRule describes a valid scenario name, for messages.
const NameRule = "must be 1 to 100 letters, digits, '-', '_' or '.', starting with a letter or digit, and hold no card number"

// ValidName reports whether name can name a scenario: it is listed in a header
// separated by commas, so it has no commas, spaces or other punctuation; and it is
// shown, logged and journaled as it is, so it holds no card number.
func ValidName(name string) bool {
	if name == "" || len(name) > 100 || carddata.HoldsCardData(name) {
		return false
	}
	for i, c := range []byte(name) {
		alnum := '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !alnum && (i == 0 || !strings.ContainsRune("-_.", rune(c))) {
			return false
		}
	}
	return true
}

// ValidOperation reports whether op is an operation a rule can name.
func ValidOperation(op string) bool { return slices.Contains(OperationNames(), op) }

// OperationNames lists the operation names a rule can use, for messages: every API
// operation, the device commands (device.sale, ...), then notification and any.
func OperationNames() []string {
	var names []string
	for _, op := range sandbox.Operations() {
		names = append(names, string(op))
	}
	names = append(names, sandbox.DeviceCommandOperations()...)
	return append(names, OpNotification, OpAny)
}

// OperationProblem says why op cannot name a rule's operation, or "". An unknown
// device.<command> lists the device commands only: the full list would bury them.
func OperationProblem(op string) string {
	switch {
	case ValidOperation(op):
		return ""
	case strings.HasPrefix(op, string(sandbox.OpDevice)+"."):
		return fmt.Sprintf("unknown device command %q (want %s, or device for every command)", carddata.Excerpt(op), strings.Join(sandbox.DeviceCommandOperations(), ", "))
	}
	return fmt.Sprintf("unknown operation %q (want %s)", carddata.Excerpt(op), strings.Join(OperationNames(), ", "))
}

// IsDeviceOperation reports whether op names device commands: device, or one
// device.<command>.
func IsDeviceOperation(op string) bool {
	return op == string(sandbox.OpDevice) || slices.Contains(sandbox.DeviceCommandOperations(), op)
}

// readsNoCardProblem says why a scripted terminal cannot apply to the device
// operation op, or "": op is a command that reads no card and t gives a card's members.
func readsNoCardProblem(t Terminal, op string) string {
	if op == string(sandbox.OpDevice) || sandbox.DeviceOperationReadsCard(op) {
		return ""
	}
	if t.Card != "" || t.EntryMode != "" || t.Tip != "" || t.PIN != "" || t.Outcome == sandbox.OutcomeHostDecline {
		return fmt.Sprintf("%s reads no card: card, entry_mode, tip, pin and host_decline apply to %s", op, strings.Join(cardOperations(), ", "))
	}
	return ""
}

// cardOperations lists the device.<command> operations that may read a card.
func cardOperations() []string {
	var out []string
	for _, op := range sandbox.DeviceCommandOperations() {
		if sandbox.DeviceOperationReadsCard(op) {
			out = append(out, op)
		}
	}
	return out
}

// TerminalProblem says what is wrong with a scripted terminal, or "".
func TerminalProblem(t Terminal) string {
	switch {
	case t == Terminal{}:
		return "needs card, entry_mode, tip, pin or outcome"
	case t.Card != "" && !sandbox.KnownTerminalCard(t.Card):
		return fmt.Sprintf("card %q: want a terminal test card (%s)", carddata.Excerpt(t.Card), strings.Join(sandbox.TerminalCardNames(), ", "))
	case t.EntryMode != "" && !slices.Contains(TerminalEntryModes, t.EntryMode):
		return fmt.Sprintf("entry_mode %q: want one of %s", carddata.Excerpt(t.EntryMode), strings.Join(TerminalEntryModes, ", "))
	case t.Tip != "" && (!sandbox.AllDigits(t.Tip) || len(t.Tip) > 12):
		return fmt.Sprintf("tip %q: want an amount in minor units such as \"200\"", carddata.Excerpt(t.Tip))
	case t.PIN != "" && t.PIN != sandbox.PINWrong:
		return fmt.Sprintf("pin %q: want %s (the customer keys a wrong PIN)", carddata.Excerpt(t.PIN), sandbox.PINWrong)
	case t.Outcome != "" && !slices.Contains(TerminalOutcomes, t.Outcome):
		return fmt.Sprintf("outcome %q: want one of %s", carddata.Excerpt(t.Outcome), strings.Join(TerminalOutcomes, ", "))
	case t.Result != "" && t.Outcome != sandbox.OutcomeHostDecline:
		return "result is the host's decline code: it needs outcome host_decline"
	case t.Result != "" && (!ValidIssuerResult(t.Result) || t.Result == IssuerApproved):
		return fmt.Sprintf("result %q: want a decline code of 2 or 3 letters or digits other than 00, such as \"51\"", carddata.Excerpt(t.Result))
	}
	return ""
}

// TerminalEntryModes and TerminalOutcomes are what a scripted terminal may say.
var (
	TerminalEntryModes = []string{"CHIP", "SWIPE", "CONTACTLESS_CHIP", "MANUAL"}
	TerminalOutcomes   = []string{sandbox.OutcomeCustomerCancels, sandbox.OutcomeTerminalTimeout, sandbox.OutcomeTerminalBusy, sandbox.OutcomeHostDecline}
)

// counted reports whether the rule counts its calls: a sequence to know its step, an
// outcome with a probability to draw for each call anew.
func (r Rule) counted() bool {
	return len(r.Sequence) > 0 || r.Then != nil && r.Then.Probability != nil
}

// outcomes lists every outcome of a rule: its then, or its sequence's steps.
func (r Rule) outcomes() []Outcome {
	outcomes := []Outcome{}
	if r.Then != nil {
		outcomes = append(outcomes, *r.Then)
	}
	for _, s := range r.Sequence {
		outcomes = append(outcomes, s.Then)
	}
	return outcomes
}
