package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// The checks of this file are the one statement of the rules that span an outcome's
// members or a rule's operations. Check reports their first problem after the rule's
// index; the YAML loader (sandbox/yamlfile) reports every one at the line and column
// of the member it names.

// OutcomeProblem is one thing wrong with an outcome: the member it is about, by its key
// in a scenario file ("issuer", "terminal", "duplicate_charge"), and what is wrong,
// naming that member.
type OutcomeProblem struct {
	Member  string
	Message string
}

// OutcomeProblems lists what is wrong with the issuer, terminal and duplicate_charge of
// an outcome of a rule for the operations ops: a member an error or fault would hide,
// one the operations cannot have, a value that is not one. Operations that are not
// valid are left to OperationProblem, so that each is reported once.
func OutcomeProblems(o Outcome, ops []string) []OutcomeProblem {
	var ps []OutcomeProblem
	add := func(member, format string, args ...any) {
		ps = append(ps, OutcomeProblem{Member: member, Message: fmt.Sprintf(format, args...)})
	}
	hidden := o.Error != nil || o.Fault != ""
	valid := slices.DeleteFunc(slices.Clone(ops), func(op string) bool { return !ValidOperation(op) })
	if o.Issuer != nil {
		if hidden {
			add("issuer", "issuer scripts the answer of an executed action: it cannot be combined with error or fault")
		}
		if i := slices.IndexFunc(valid, func(op string) bool { return !AsksIssuer(op) }); i >= 0 {
			add("issuer", "issuer applies only to operations that ask an issuer (transaction, verification), not %s", valid[i])
		}
	}
	if o.Terminal != nil {
		if p := TerminalProblem(*o.Terminal); p != "" {
			add("terminal", "terminal: %s", p)
		}
		if hidden {
			add("terminal", "terminal scripts what the terminal does: it cannot be combined with error or fault")
		}
		for _, op := range valid {
			if !IsDeviceOperation(op) {
				add("terminal", "terminal applies only to the device operations (POST /devices), not %s", op)
				break
			}
			if p := readsNoCardProblem(*o.Terminal, op); p != "" {
				add("terminal", "terminal: %s", p)
				break
			}
		}
	}
	if o.Rate != nil {
		ps = append(ps, rateProblems(*o.Rate, hidden, valid)...)
	}
	if o.DuplicateCharge != "" {
		if o.DuplicateCharge != DuplicateRefuse {
			add("duplicate_charge", "unknown duplicate_charge mode %q (want %s)", carddata.Excerpt(o.DuplicateCharge), DuplicateRefuse)
		}
		if hidden {
			add("duplicate_charge", "duplicate_charge decides how a payment executes: it cannot be combined with error or fault")
		}
		if i := slices.IndexFunc(valid, func(op string) bool { return op != string(sandbox.OpTransaction) }); i >= 0 {
			add("duplicate_charge", "duplicate_charge applies only to the transaction operation (POST /transactions), not %s", valid[i])
		}
	}
	if o.Dispute != "" {
		if o.Dispute != sandbox.StageRetrieval && o.Dispute != sandbox.StageChargeback {
			add("dispute", "unknown dispute stage %q (want RETRIEVAL or CHARGEBACK)", carddata.Excerpt(o.Dispute))
		}
		if hidden {
			add("dispute", "dispute marks the payment the action makes: it cannot be combined with error or fault")
		}
		if i := slices.IndexFunc(valid, func(op string) bool { return op != string(sandbox.OpTransaction) }); i >= 0 {
			add("dispute", "dispute applies only to the transaction operation (POST /transactions), not %s", valid[i])
		}
	}
	return ps
}

// OperationsProblem says why ops cannot be the operations of a rule, or "": none, one
// that is not an operation, or notification with others.
func OperationsProblem(ops []string) string {
	if len(ops) == 0 {
		return "needs at least one operation"
	}
	for _, op := range ops {
		if problem := OperationProblem(op); problem != "" {
			return problem
		}
		if op == OpNotification && len(ops) > 1 {
			return "notification cannot be listed with other operations: its outcomes differ"
		}
	}
	return ""
}

// ScopeProblem says why scope cannot be a rule's scope, or "" ("" is the default).
func ScopeProblem(scope string) string {
	if scope == "" || slices.Contains(SequenceScopes, scope) {
		return ""
	}
	return fmt.Sprintf("unknown scope %q (want %s)", carddata.Excerpt(scope), strings.Join(SequenceScopes, " or "))
}

// ScopeRuleProblem says why a rule cannot have its scope, or "": it counts nothing
// (counted: the rule has a sequence, or then with a probability), or it counts per a
// resource its operations have no id of (a notification has no transaction id, a
// request's path no order id).
func ScopeRuleProblem(scope string, counted, notification bool) string {
	switch {
	case scope == "":
		return ""
	case !counted:
		return "scope counts the calls of a sequence or of an outcome with a probability: a rule with scope needs sequence, or then with probability"
	case scope == ScopeTransaction && notification:
		return "scope transaction: a notification has no transaction id, use scope order"
	case scope == ScopeOrder && !notification:
		return "scope order applies to operation notification (the order a notification is about); a request's path names a transaction: use scope transaction"
	}
	return ""
}
