package admin

import (
	"encoding/json"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// GET /_sandbox/coverage: which flows the request journal holds, against the
// card-present checklist (coverage_checklist.go). It reads the journal (emptied by a
// reset or DELETE /_sandbox/requests, so: since then) and the notification log
// (emptied by a reset); it changes nothing.

// maxCoverageExamples is how many journal entries an item names.
const maxCoverageExamples = 5

// observation is what coverage reads of one journal entry: the operation, the
// answer's status and error, and the few request and answer members the checklist
// looks at.
type observation struct {
	example coverageExample
	op      string
	status  int
	request coverageRequest
	answer  coverageAnswer
	partial bool // a refund or capture for less than its original's amount
}

// coverageRequest holds the request members the checklist reads (masked, as
// journaled).
type coverageRequest struct {
	Type           string `json:"type"`
	Amount         string `json:"amount"`
	GratuityAmount string `json:"gratuity_amount"`
	Gratuity       string `json:"gratuity"` // a capture's tip as the Node and PHP SDKs name it
	PaymentMethod  struct {
		EntryMode string `json:"entry_mode"`
		Card      struct {
			Funding string `json:"funding"`
		} `json:"card"`
	} `json:"payment_method"`
	Request struct { // POST /devices: the UPA command
		Data struct {
			Command string `json:"command"`
		} `json:"data"`
	} `json:"request"`
}

// coverageAnswer holds the answer members the checklist reads.
type coverageAnswer struct {
	ID            string `json:"id"`
	Type          string `json:"type"` // the transaction's type as the sandbox took it
	Status        string `json:"status"`
	Amount        string `json:"amount"`
	PaymentMethod struct {
		Result    string `json:"result"`
		EntryMode string `json:"entry_mode"`
	} `json:"payment_method"`
	Code   string `json:"error_code"`
	Detail string `json:"detailed_error_code"`
}

// entryMode is the entry mode the sandbox took the card by (CHIP for a track with
// EMV data), else the one the request named.
func (o *observation) entryMode() string {
	if m := o.answer.PaymentMethod.EntryMode; m != "" {
		return m
	}
	return o.request.PaymentMethod.EntryMode
}

// tip reports whether the request adds a tip.
func (o *observation) tip() bool { return o.request.GratuityAmount != "" || o.request.Gratuity != "" }

// approved reports whether a payment's issuer approved it.
func (o *observation) approved() bool {
	return o.answer.PaymentMethod.Result == "00" && o.answer.Status != "DECLINED"
}

// declined is the result code of a declined payment, "" for anything else.
func (o *observation) declined() string {
	if !o.succeeded(sandbox.OpTransaction) || o.answer.Status != "DECLINED" {
		return ""
	}
	if r := o.answer.PaymentMethod.Result; r != "" {
		return r
	}
	return "DECLINED"
}

// coverageView is GET /_sandbox/coverage.
type coverageView struct {
	Requests int                `json:"requests"` // journal entries read
	Summary  coverageSummary    `json:"summary"`
	Items    []coverageItemView `json:"items"`
	Seen     coverageSeenView   `json:"seen"`
}

type coverageSummary struct {
	Items     int      `json:"items"`
	Covered   int      `json:"covered"`
	Uncovered []string `json:"uncovered"` // the ids of the items not covered
}

type coverageItemView struct {
	ID            string            `json:"id"`
	Group         string            `json:"group"`
	Title         string            `json:"title"`
	SatisfiedBy   string            `json:"satisfied_by"`
	Source        string            `json:"source"`
	Covered       bool              `json:"covered"`
	Count         int               `json:"count"`
	Examples      []coverageExample `json:"examples"`                // the first journal entries that satisfy it
	Notifications []string          `json:"notifications,omitempty"` // notification items: <order or device request id>#<seq>
}

// coverageSeenView is everything the journal holds, whether the checklist asks for it
// or not.
type coverageSeenView struct {
	Operations    map[string]int      `json:"operations"`
	EntryModes    map[string]int      `json:"entry_modes"`
	Outcomes      coverageOutcomes    `json:"outcomes"`
	Errors        []coverageErrorSeen `json:"errors"`
	Tips          int                 `json:"tips"`
	BatchCloses   int                 `json:"batch_closes"`
	Notifications map[string]int      `json:"notifications"` // by state, and "attempts"
}

type coverageOutcomes struct {
	Approved int            `json:"approved"`
	Declined map[string]int `json:"declined"` // by payment_method.result
	Partial  int            `json:"partial"`
}

// coverageErrorSeen is one GP error tuple the journal holds.
type coverageErrorSeen struct {
	Status   int               `json:"status"`
	Code     string            `json:"error_code"`
	Detail   string            `json:"detailed_error_code"`
	Count    int               `json:"count"`
	Examples []coverageExample `json:"examples"`
}

// coverageExample names a journal entry: its seq (for GET /_sandbox/requests?before=)
// and its request id (X-Request-Id, the inspector's link).
type coverageExample struct {
	Seq       uint64 `json:"seq"`
	RequestID string `json:"request_id"`
}

// GET /_sandbox/coverage
func (s *Server) adminCoverage(*http.Request) (any, error) {
	var entries []*JournalEntry
	if s.journal != nil {
		entries = s.journal.stored()
	}
	notes, err := s.svc.Notifications("")
	if err != nil {
		return nil, err
	}
	return coverage(observe(entries), notes), nil
}

// observe reads of the journal entries what the checklist needs, from the entries
// as stored: the request and answer of a 200 (a payment's entry mode and tip, the
// answer's status, result and amount), the answer of an error (its GP tuple).
func observe(entries []*JournalEntry) []observation {
	amounts := map[string]*big.Int{} // transaction id -> amount, from the answers
	out := make([]observation, len(entries))
	for i, e := range entries {
		o := &out[i]
		*o = observation{example: coverageExample{Seq: e.Seq, RequestID: e.RequestID}, op: e.Operation, status: e.Status}
		if o.status != http.StatusOK && o.status < http.StatusBadRequest {
			continue // neither an answer nor an error the report reads
		}
		if e.answer.written {
			_ = json.Unmarshal(e.answer.body, &o.answer) // a body that is not an object reads as empty
		}
		if o.status != http.StatusOK {
			continue
		}
		_ = json.Unmarshal(e.Body, &o.request)
		if o.op == string(sandbox.OpRefund) || o.op == string(sandbox.OpCapture) {
			original := amounts[pathID(e.Path)]
			amount, ok := new(big.Int).SetString(o.answer.Amount, 10)
			o.partial = ok && original != nil && amount.Cmp(original) < 0
		}
		if _, seen := amounts[o.answer.ID]; !seen && o.answer.ID != "" {
			// The first answer with an amount: the amount asked for at first.
			if a, ok := new(big.Int).SetString(o.answer.Amount, 10); ok {
				amounts[o.answer.ID] = a
			}
		}
	}
	return out
}

// pathID is the transaction id of a follow-up's path (…/transactions/{id}/refund).
func pathID(path string) string {
	segments := strings.Split(path, "/")
	for i := 0; i+1 < len(segments); i++ {
		if segments[i] == "transactions" {
			return segments[i+1]
		}
	}
	return ""
}

// coverage checks the observations and notifications against the checklist.
func coverage(obs []observation, notes []sandbox.Notification) coverageView {
	v := coverageView{Requests: len(obs), Items: make([]coverageItemView, 0, len(checklist)), Seen: seen(obs, notes)}
	v.Summary.Uncovered = []string{}
	for _, item := range checklist {
		iv := coverageItemView{ID: item.ID, Group: item.Group, Title: item.Title, SatisfiedBy: item.By, Source: item.Source, Examples: []coverageExample{}}
		if item.matches != nil {
			for i := range obs {
				if item.matches(&obs[i]) {
					iv.Count++
					if len(iv.Examples) < maxCoverageExamples {
						iv.Examples = append(iv.Examples, obs[i].example)
					}
				}
			}
		} else {
			iv.Count, iv.Notifications = notificationItem(item.ID, notes)
		}
		iv.Covered = iv.Count > 0
		if iv.Covered {
			v.Summary.Covered++
		} else {
			v.Summary.Uncovered = append(v.Summary.Uncovered, item.ID)
		}
		v.Items = append(v.Items, iv)
	}
	v.Summary.Items = len(checklist)
	return v
}

// notificationItem counts the notifications that satisfy a notification item, and
// names the first of them.
func notificationItem(id string, notes []sandbox.Notification) (int, []string) {
	n, names := 0, []string{}
	for _, note := range notes {
		ok := false
		switch id {
		case "notification.delivered":
			ok = note.State == sandbox.NotificationDelivered
		case "notification.retried":
			ok = len(note.Attempts) > 1
		}
		if !ok {
			continue
		}
		n++
		if len(names) < maxCoverageExamples {
			names = append(names, note.OrderID+"#"+strconv.Itoa(note.Seq))
		}
	}
	return n, names
}

// seen tallies what the journal and the notification log hold.
func seen(obs []observation, notes []sandbox.Notification) coverageSeenView {
	v := coverageSeenView{
		Operations: map[string]int{}, EntryModes: map[string]int{}, Errors: []coverageErrorSeen{},
		Outcomes: coverageOutcomes{Declined: map[string]int{}}, Notifications: map[string]int{},
	}
	errs := map[[3]string]*coverageErrorSeen{}
	for i := range obs {
		o := &obs[i]
		if o.op != "" {
			v.Operations[o.op]++
		}
		if o.succeeded(sandbox.OpTransaction, sandbox.OpVerification) && o.entryMode() != "" {
			v.EntryModes[o.entryMode()]++
		}
		switch {
		case o.declined() != "":
			v.Outcomes.Declined[o.declined()]++
		case o.succeeded(sandbox.OpTransaction) && o.approved():
			v.Outcomes.Approved++
		}
		if o.partial {
			v.Outcomes.Partial++
		}
		if o.succeeded(sandbox.OpAdjustment, sandbox.OpCapture, sandbox.OpTransaction) && o.tip() {
			v.Tips++
		}
		if o.succeeded(sandbox.OpBatchClose) || o.succeeded(sandbox.OpDevice) && o.request.Request.Data.Command == "EODProcessing" {
			v.BatchCloses++
		}
		if o.status >= 400 && o.answer.Code != "" {
			key := [3]string{strconv.Itoa(o.status), o.answer.Code, o.answer.Detail}
			e := errs[key]
			if e == nil {
				e = &coverageErrorSeen{Status: o.status, Code: o.answer.Code, Detail: o.answer.Detail, Examples: []coverageExample{}}
				errs[key] = e
			}
			e.Count++
			if len(e.Examples) < maxCoverageExamples {
				e.Examples = append(e.Examples, o.example)
			}
		}
	}
	for _, e := range errs {
		v.Errors = append(v.Errors, *e)
	}
	slices.SortFunc(v.Errors, func(a, b coverageErrorSeen) int {
		return strings.Compare(strconv.Itoa(a.Status)+a.Code+a.Detail, strconv.Itoa(b.Status)+b.Code+b.Detail)
	})
	for _, n := range notes {
		v.Notifications[n.State]++
		v.Notifications["attempts"] += len(n.Attempts)
	}
	return v
}
