package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// outcomeMembers are the members compared by value: what happened, not which
// resource it happened to. Every other member is compared by its type only.
var outcomeMembers = []string{"type", "status", "action.type", "action.result_code", "payment_method.result"}

// members lists every member of doc by path with its JSON type. An array's elements
// are listed under path[] (the union of their members), so that a list of two and a
// list of three have the same shape.
func members(doc any) map[string]string {
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if path != "" {
			if prev, ok := out[path]; ok && prev != jsonType(v) {
				out[path] = prev + "|" + jsonType(v) // elements of mixed types
			} else {
				out[path] = jsonType(v)
			}
		}
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if path == "" {
					walk(k, e)
				} else {
					walk(path+"."+k, e)
				}
			}
		case []any:
			for _, e := range v {
				walk(path+"[]", e)
			}
		}
	}
	walk("", doc)
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	default:
		return "null"
	}
}

// outcomeValues picks the outcomeMembers that are strings.
func outcomeValues(obj map[string]any) map[string]string {
	var out map[string]string
	for _, path := range outcomeMembers {
		if v, ok := lookup(obj, path).(string); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[path] = v
		}
	}
	return out
}

// lookup follows a dotted path of object members.
func lookup(obj map[string]any, path string) any {
	var cur any = obj
	for len(path) > 0 {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		key, rest, _ := strings.Cut(path, ".")
		cur, path = m[key], rest
	}
	return cur
}

// resourceID is a GP resource id (TRN_…, BAT_…, ACT_…, PMT_…) as error descriptions
// quote them; two servers never share one.
var resourceID = regexp.MustCompile(`\b[A-Z]{3}_[A-Za-z0-9_-]+`)

// errorTuple reads GP's error members; nil when the answer has none.
func errorTuple(obj map[string]any) *sandbox.Error {
	code, _ := obj["error_code"].(string)
	detailed, _ := obj["detailed_error_code"].(string)
	desc, _ := obj["detailed_error_description"].(string)
	if code == "" && detailed == "" && desc == "" {
		return nil
	}
	return &sandbox.Error{Code: code, Detail: detailed, Description: resourceID.ReplaceAllString(desc, "{id}")}
}

// differences lists, one line each, where a and b differ (a is the "against" side).
func differences(a, b Outcome) []string {
	var out []string
	if a.Problem != b.Problem {
		out = append(out, fmt.Sprintf("problem: against %s; local %s", orNone(a.Problem), orNone(b.Problem)))
	}
	if a.Status != b.Status {
		out = append(out, fmt.Sprintf("status: against %d, local %d", a.Status, b.Status))
	}
	if ea, eb := errorText(a.Error), errorText(b.Error); ea != eb {
		out = append(out, fmt.Sprintf("error: against %s; local %s", ea, eb))
	}
	for _, path := range outcomeMembers {
		va, oka := a.Values[path]
		vb, okb := b.Values[path]
		if oka && okb && va != vb {
			out = append(out, fmt.Sprintf("value %s: against %q, local %q", path, va, vb))
		}
	}
	both := map[string]string{}
	maps.Copy(both, a.Members)
	maps.Copy(both, b.Members)
	paths := slices.Sorted(maps.Keys(both))
	for _, path := range paths {
		ta, oka := a.Members[path]
		tb, okb := b.Members[path]
		switch {
		case !okb:
			out = append(out, fmt.Sprintf("member %s (%s): against only", path, ta))
		case !oka:
			out = append(out, fmt.Sprintf("member %s (%s): local only", path, tb))
		case ta != tb:
			out = append(out, fmt.Sprintf("member %s: against %s, local %s", path, ta, tb))
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
