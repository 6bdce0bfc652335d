package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// Scenario headers. X-Sandbox-Scenario names the scenarios of one request (commas
// between names); X-Sandbox-Rule names the rule that shaped the answer. The session
// (web.SessionHeader) scopes sequence state.
const (
	headerScenario = "X-Sandbox-Scenario"
	headerRule     = "X-Sandbox-Rule"
)

// decide asks the scenario engine what to do with a call that passed every check.
// It runs after prepare, so a request the real API would refuse is refused whatever
// the scenarios say, and before execute, so a scripted error leaves no trace.
func (s *Server) decide(r *http.Request, op operation, c *call) (scenario.Decision, error) {
	if s.engine == nil {
		return scenario.Decision{}, nil
	}
	rec := web.RecordOf(r)
	session, err := web.Session(r)
	if err != nil {
		return scenario.Decision{}, err
	}
	req := scenario.Request{
		Operation:     string(op.op),
		TransactionID: c.vars["id"],
		MerchantID:    c.vars["merchant_id"],
		AppID:         c.caller.App.ID,
		Header:        r.Header,
		Body:          c.body,
	}
	if named := r.Header.Values(headerScenario); len(named) > 0 {
		req.Named = scenario.SplitNames(strings.Join(named, ","))
	}
	if device, ok := c.req.(*deviceBody); ok {
		// A rule may name one UPA command: device.sale for Sale, whichever SDK sent it.
		req.Command = sandbox.DeviceCommandOperation(device.Request.Data.Command)
	}
	if token, ok := c.req.(*accessTokenRequest); ok {
		// No token yet: the app is the one asking for it.
		req.AppID = token.AppID
	}
	if len(req.Named) == 0 && !s.engine.HasGlobal() && !s.svc.HasBindings() {
		// No scenario can apply: spare the request the lookups.
		if rec != nil {
			rec.Session = session
		}
		return scenario.Decision{Rule: -1, Step: -1}, nil
	}
	sub, err := s.svc.Subjects(req.AppID, req.MerchantID, req.TransactionID)
	if err != nil {
		return scenario.Decision{}, err
	}
	req.Bound = sub.Scenarios
	if req.MerchantID == "" {
		req.MerchantID = sub.TransactionMerchant
	}
	req.Scope = "app:" + req.AppID
	if session != "" {
		req.Scope = sessionScope(session)
	}
	d, err := s.engine.Decide(req)
	var unknown *scenario.UnknownError
	if errors.As(err, &unknown) {
		return d, sandbox.UnknownScenario(headerScenario, unknown.Name, s.engine.Names())
	}
	if rec != nil {
		rec.Session, rec.Rule, rec.Step, rec.Miss = session, d.Ref(), d.Step, d.Miss
		rec.Draws = d.Draws
		rec.Fault = d.Outcome.Fault
	}
	return d, err
}

// requestHash identifies a request for idempotency replay: a hash of its method, its
// path and its body in canonical form (members sorted, no insignificant whitespace,
// numbers as written), so that the pretty-printed and the compact copy of one JSON
// object are the same request. The hash is of the masked form, with the masked card
// number of each track beside it (a track is [REDACTED] whole): one of the clear
// card number and CVV, kept beside the masked body the action records, would give
// them back to anyone who tried the hidden digits. So two requests that differ only
// in what masking hides (a CVV, a PIN block, a card number's middle digits) are the
// same request here.
func requestHash(method, path string, body web.Object) string {
	canonical, _ := json.Marshal(body) // strings, json.Numbers, bools, nil, maps, slices: cannot fail
	masked := append([]byte(method+" "+carddata.Mask(path)+" "), carddata.MaskJSON(canonical)...)
	for _, number := range carddata.TrackNumbers(string(canonical)) {
		masked = append(masked, " track "+number...)
	}
	sum := sha256.Sum256(masked)
	return hex.EncodeToString(sum[:])
}

// sessionScope is the sequence scope of an X-Sandbox-Session (sandbox.SessionScope).
func sessionScope(session string) string { return sandbox.SessionScope(session) }

// script answers a call as the matched rule says. The action executes unless the
// rule scripts an error or a fault instead of it (apply executes it anyway); then the
// answer is delayed, broken or sent as the rule says.
func (s *Server) script(w http.ResponseWriter, r *http.Request, op operation, c *call, d scenario.Decision) {
	o := d.Outcome
	w.Header().Set(headerRule, d.Ref())
	if o.Idempotency == scenario.IdempotencyReplay && c.idem.Key != "" {
		// Only replay tells a true repeat from another request under the same key,
		// so only replay pays for hashing the body.
		c.idem.Replay, c.idem.Request = true, requestHash(r.Method, r.URL.Path, c.body)
	}
	if o.Issuer != nil {
		// Handlers that ask an issuer pass it on in their domain request.
		c.issuer = o.Issuer.Result
	}
	c.refuseDuplicate = o.DuplicateCharge == scenario.DuplicateRefuse
	c.disputeStage = o.Dispute
	if r := o.Rate; r != nil {
		c.rate = &sandbox.ScriptedRate{ExchangeRate: r.ExchangeRate, Status: r.Status}
	}
	if t := o.Terminal; t != nil {
		c.terminal = sandbox.Presentation{Card: t.Card, EntryMode: t.EntryMode, Tip: t.Tip, PIN: t.PIN, Outcome: t.Outcome, Result: t.Result}
	}
	// Without apply, a scripted error or fault stands for an action that did not
	// happen: with nothing to show, an empty or malformed answer is 200 "{".
	status, body := http.StatusOK, []byte("{}")
	if (o.Error == nil && o.Fault == "") || o.Apply {
		answer, err := s.execute(op, c)
		switch {
		case err != nil:
			status, body = web.ErrorResponse(r, err)
		case o.Body != nil:
			status, body = http.StatusOK, mergeJSON(answer, o.Body)
		default:
			status, body = http.StatusOK, answer
		}
	}
	if e := o.Error; e != nil {
		// The client sees the scripted error even when apply executed the action (or
		// the action failed): that is what the rule is for.
		status, body = web.ErrorResponse(r, web.WithStatus(o.Status, sandbox.Scripted(e.Code, e.Detail, e.Description)))
	}
	switch o.Fault {
	case scenario.FaultTimeout:
		hold(r.Context(), o.Hold())
		dropConnection(w, false)
		return
	case scenario.FaultReset:
		hold(r.Context(), o.Delay)
		dropConnection(w, true)
		return
	}
	hold(r.Context(), o.Delay)
	switch o.Fault {
	case scenario.FaultEmpty:
		if rec := web.RecordOf(r); rec != nil {
			rec.Status = status
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(status)
	case scenario.FaultMalformed:
		web.WriteBody(w, r, status, body[:len(body)/2])
	default:
		web.WriteBody(w, r, status, body)
	}
}

// rehearse runs the action a scripted error stands in for (without apply), every
// check and write of it, and rolls the writes back: it returns the refusal GP would
// have answered first (an unknown or unseen resource, a state the action refuses),
// nil when the action would have been taken. A scripted 401 or 403 is not rehearsed:
// GP checks the token and the permission before it looks anything up. Nor is a
// fault: the client gets no answer, whatever GP would have answered.
func (s *Server) rehearse(op operation, c *call, o scenario.Outcome) error {
	if o.Error == nil || o.Apply || o.Fault != "" || checkedFirst(o) {
		return nil
	}
	c.caller.Rehearsal = true
	defer func() { c.caller.Rehearsal = false }()
	_, err := op.handler.execute(s, c, c.req)
	if _, refused := sandbox.AsError(err); refused {
		return err
	}
	return nil // ErrRehearsed; a failure of the sandbox's own is the rule's to mask
}

// checkedFirst reports whether a scripted error is one GP answers before it looks
// anything up: the token's (401) or the permission's (403).
func checkedFirst(o scenario.Outcome) bool {
	switch o.Error.Code {
	case sandbox.CodeNotAuthenticated, sandbox.CodeActionNotAuthorized:
		return true
	}
	return o.Status == http.StatusUnauthorized || o.Status == http.StatusForbidden
}

// hold waits d, or less if the client goes away.
func hold(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// dropConnection closes the client's connection without an answer. With reset the
// close is abortive (TCP RST, as a crashed peer or a middlebox would send) rather than
// an orderly FIN. Where the connection cannot be taken over (HTTP/2), aborting the
// handler makes net/http drop the stream instead.
func dropConnection(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok && reset {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// mergeJSON merges patch onto the JSON object body, keeping the order of body's
// members (GP's field order) and appending new ones in key order: objects merge
// member by member, anything else replaces. A body that is not an object is returned
// unchanged.
func mergeJSON(body []byte, patch map[string]any) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	base, err := decodeOrdered(dec)
	if err != nil {
		return body
	}
	if _, ok := base.(orderedObject); !ok {
		return body
	}
	out, err := json.Marshal(merge(base, patch))
	if err != nil {
		return body
	}
	return out
}

type member struct {
	key string
	val any
}

// orderedObject is a JSON object that keeps its members' order.
type orderedObject []member

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch delim {
	case '{':
		obj := orderedObject{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, member{key: k.(string), val: v})
		}
		_, err = dec.Token()
		return obj, err
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err = dec.Token()
		return arr, err
	}
	return nil, errors.New("unexpected JSON delimiter")
}

func merge(base any, patch any) any {
	pm, ok := patch.(map[string]any)
	bo, isObject := base.(orderedObject)
	if !ok || !isObject {
		return patch
	}
	out := append(orderedObject{}, bo...)
	keys := make([]string, 0, len(pm))
	for k := range pm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		found := false
		for i := range out {
			if out[i].key == k {
				out[i].val = merge(out[i].val, pm[k])
				found = true
				break
			}
		}
		if !found {
			out = append(out, member{key: k, val: pm[k]})
		}
	}
	return out
}
