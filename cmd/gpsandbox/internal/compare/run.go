package compare

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Version is the X-GP-Version every request sends, as current SDKs do.
const Version = "2021-03-22"

// maxAnswer bounds what is read of one answer: GP's answers are a few KiB.
const maxAnswer = 1 << 20

// Side is one server the flows run against.
type Side struct {
	Name    string // "against" or "local", as the report names it
	BaseURL string // the API's base, ending in /ucp
	AppID   string
	AppKey  string
	Client  *http.Client
}

// Outcome is what one side answered to one step.
type Outcome struct {
	// Status is the HTTP status; 0 when the step was not sent or had no answer.
	Status int `json:"status"`
	// Error is the GP error tuple of an error answer, ids in its description
	// replaced by {id}.
	Error *sandbox.Error `json:"error,omitempty"`
	// Values are the outcome members that are compared by value (outcomeMembers).
	Values map[string]string `json:"values,omitempty"`
	// Members is every member of the answer by path (a.b, a[] for an array's
	// elements) with its JSON type.
	Members map[string]string `json:"members,omitempty"`
	// Problem says why there is no answer to compare: not sent, no connection, not
	// JSON.
	Problem string `json:"problem,omitempty"`

	saved map[string]string // the Save members of the answer, for later steps
}

// errorText is an outcome's GP error tuple as the report writes it: "none" for none.
func errorText(e *sandbox.Error) string {
	if e == nil {
		return "none"
	}
	return e.Code + " " + e.Detail + " " + strconv.Quote(e.Description)
}

// runner runs flows against one side, keeping what the report must never show.
type runner struct {
	side    Side
	run     string // this run's random tag, in references and idempotency keys
	secrets *[]string
}

// vars are the run's placeholder values of a side; a flow starts from a copy.
func (r *runner) vars(now time.Time) map[string]string {
	nonce := now.UTC().Format("2006-01-02T15:04:05.000Z") + "-" + r.run
	return map[string]string{
		"app_id":   r.side.AppID,
		"nonce":    nonce,
		"secret":   sandbox.Secret(nonce, r.side.AppKey),
		"exp_year": strconv.Itoa((now.Year() + 3) % 100),
		"run":      r.run,
	}
}

// flow runs the steps of f with a copy of vars, saving into it what each step saves.
func (r *runner) flow(ctx context.Context, f Flow, base map[string]string) []Outcome {
	vars := maps.Clone(base)
	out := make([]Outcome, len(f.Steps))
	for i, s := range f.Steps {
		out[i] = r.step(ctx, f.Name, s, vars)
		for name, v := range out[i].saved {
			vars[name] = v
		}
	}
	return out
}

// step sends one request and describes its answer.
func (r *runner) step(ctx context.Context, flow string, s Step, vars map[string]string) Outcome {
	var missing []string
	expand := func(text string) string {
		return os.Expand(text, func(name string) string {
			v, ok := vars[name]
			if !ok || v == "" {
				missing = append(missing, name)
			}
			return v
		})
	}
	path, body := expand(s.Path), expand(s.Body)
	if len(missing) > 0 {
		return Outcome{Problem: "not sent: no ${" + strings.Join(missing, "}, ${") + "} from an earlier step"}
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, s.Method, strings.TrimSuffix(r.side.BaseURL, "/")+path, rd)
	if err != nil {
		return Outcome{Problem: "not sent: " + err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-GP-Version", Version)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok := vars["token"]; tok != "" && s.Path != "/accesstoken" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if s.Key != "" {
		req.Header.Set("X-GP-Idempotency", "compare-"+r.run+"-"+flow+"-"+s.Key)
	}
	resp, err := r.side.Client.Do(req)
	if err != nil {
		return Outcome{Problem: "no answer: " + err.Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return Outcome{Status: resp.StatusCode, Problem: "answer cut short: " + err.Error()}
	}
	return r.describe(resp.StatusCode, raw, s.Save)
}

// describe turns an answer into its outcome: members and types, the compared values,
// the error tuple, and the members later steps need.
func (r *runner) describe(status int, raw []byte, save map[string]string) Outcome {
	o := Outcome{Status: status}
	if len(bytes.TrimSpace(raw)) == 0 {
		return o
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		o.Problem = fmt.Sprintf("answer is not JSON (%d bytes)", len(raw))
		return o
	}
	o.Members = members(doc)
	obj, _ := doc.(map[string]any)
	o.Values = outcomeValues(obj)
	o.Error = errorTuple(obj)
	for name, member := range save {
		if v, ok := obj[member].(string); ok && v != "" {
			if o.saved == nil {
				o.saved = map[string]string{}
			}
			o.saved[name] = v
			if name == "token" {
				*r.secrets = append(*r.secrets, v)
			}
		}
	}
	return o
}

// newRun is a random tag for one run: references, idempotency keys and nonces of two
// runs never meet.
func newRun() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
