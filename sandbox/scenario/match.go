package scenario

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Request is what a rule's condition can look at.
type Request struct {
	Operation     string
	Command       string // a device command's operation (device.sale, ...); "" for others
	TransactionID string
	OrderID       string // the order a notification is about
	MerchantID    string // the path's merchant, else the transaction's
	AppID         string // the token's app; for /accesstoken the body's app_id
	Header        http.Header
	Body          map[string]any // the decoded JSON body (numbers as json.Number)

	// Scope is who owns sequence state: "session:<X-Sandbox-Session>" or "app:<id>".
	Scope string
	// Named are the scenarios the request names in X-Sandbox-Scenario, Bound those its
	// fixture records list; with neither, the global scenarios are active.
	Named []string
	Bound []string
}

// matches reports whether w holds for req.
func (w When) matches(req Request) bool { return len(w.mismatches(req, true)) == 0 }

// mismatches lists what differs between w and req, one phrase per field; with first
// it stops at the first difference. A phrase names the field, never the request's
// value: the miss is logged and journaled, and a request's values may be a CVV, a card
// number or a bearer token. Only the operation, the sandbox's own name for the
// route, is shown.
func (w When) mismatches(req Request, first bool) []string {
	var out []string
	add := func(s string) bool {
		out = append(out, s)
		return first
	}
	if !w.matchesOperation(req) {
		if add(fmt.Sprintf("operation is %s, want %s", orDefault(req.Command, req.Operation), strings.Join(w.Operations, " or "))) {
			return out
		}
	}
	for _, f := range []struct{ name, want, got string }{
		{"transaction_id", w.TransactionID, req.TransactionID},
		{"merchant_id", w.MerchantID, req.MerchantID},
		{"app_id", w.AppID, req.AppID},
	} {
		if f.want != "" && f.want != f.got {
			if add(f.name + notMatching) {
				return out
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w.Headers)) {
		if got := req.Header.Values(name); len(got) == 0 {
			if add("header " + name + " is absent") {
				return out
			}
		} else if got[0] != w.Headers[name] {
			if add("header " + name + notMatching) {
				return out
			}
		}
	}
	if w.Body != nil {
		if diff := subset(w.Body, req.Body, "body"); diff != "" {
			add(diff)
		}
	}
	return out
}

// notMatching ends the phrase of a field whose value differs from the rule's.
const notMatching = " does not match"

// matchesOperation reports whether the request is one of the rule's operations: its
// own, any, or for a device command its device.<command> name.
func (w When) matchesOperation(req Request) bool {
	for _, o := range w.Operations {
		if o == req.Operation || (o == OpAny && req.Operation != OpNotification) || (req.Command != "" && o == req.Command) {
			return true
		}
	}
	return false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// subset reports the first place where want is not contained in got: objects must
// have every key of want (recursively), lists must match element by element, and
// scalars must be equal (numbers by value). "" means contained. The report names the
// place, never got's value (see mismatches).
func subset(want, got any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path + " is not an object"
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			gv, present := g[k]
			if !present {
				return path + "." + k + " is absent"
			}
			if d := subset(w[k], gv, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path + notMatching
		}
		for i := range w {
			if d := subset(w[i], g[i], path+"["+strconv.Itoa(i)+"]"); d != "" {
				return d
			}
		}
		return ""
	}
	if !scalarEqual(want, got) {
		return path + notMatching
	}
	return ""
}

func scalarEqual(want, got any) bool {
	wn, wok := number(want)
	gn, gok := number(got)
	if wok || gok {
		return wok && gok && wn == gn
	}
	return want == got
}

// number reads the numeric types a body or a scenario can hold.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// closestMiss explains why none of the active scenarios matched: the rule with the
// fewest differing fields, preferring rules for the request's operation (the first
// such rule on a tie), and what differed.
func closestMiss(active []*Scenario, req Request) string {
	best, bestRef, bestScore := []string(nil), "", 0
	for _, sc := range active {
		for i, r := range sc.Rules {
			m := r.When.mismatches(req, false)
			score := len(m)
			if !r.When.matchesOperation(req) {
				score += 1000
			}
			if bestRef == "" || score < bestScore {
				best, bestRef, bestScore = m, ruleRef(sc.Name, i), score
			}
		}
	}
	if bestRef == "" {
		return ""
	}
	return bestRef + ": " + strings.Join(best, "; ")
}

func ruleRef(name string, rule int) string { return name + "#" + strconv.Itoa(rule) }

// SplitNames reads a list of scenario names separated by commas (the
// X-Sandbox-Scenario header, GPSANDBOX_SCENARIOS), dropping blanks and repeats.
func SplitNames(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
