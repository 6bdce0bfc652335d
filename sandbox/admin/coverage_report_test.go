package admin_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/notify"
)

// The whole report for a journal of every kind of request the checklist reads, compared
// byte for byte with the report the requests sent must give: each request says which
// items it satisfies and what it adds to seen, and the report is built from that.

// wantCoverage mirrors the report's JSON, field for field: its encoding is the bytes the
// sandbox must answer, and other tests read GET /_sandbox/coverage into it.
type wantCoverage struct {
	Requests int `json:"requests"`
	Summary  struct {
		Items     int      `json:"items"`
		Covered   int      `json:"covered"`
		Uncovered []string `json:"uncovered"`
	} `json:"summary"`
	Items []wantCoverageItem `json:"items"`
	Seen  struct {
		Operations map[string]int `json:"operations"`
		EntryModes map[string]int `json:"entry_modes"`
		Outcomes   struct {
			Approved int            `json:"approved"`
			Declined map[string]int `json:"declined"`
			Partial  int            `json:"partial"`
		} `json:"outcomes"`
		Errors        []wantCoverageError `json:"errors"`
		Tips          int                 `json:"tips"`
		BatchCloses   int                 `json:"batch_closes"`
		Notifications map[string]int      `json:"notifications"`
	} `json:"seen"`
}

type wantCoverageItem struct {
	ID            string                `json:"id"`
	Group         string                `json:"group"`
	Title         string                `json:"title"`
	SatisfiedBy   string                `json:"satisfied_by"`
	Source        string                `json:"source"`
	Covered       bool                  `json:"covered"`
	Count         int                   `json:"count"`
	Examples      []wantCoverageExample `json:"examples"`
	Notifications []string              `json:"notifications,omitempty"`
}

type wantCoverageError struct {
	Status   int                   `json:"status"`
	Code     string                `json:"error_code"`
	Detail   string                `json:"detailed_error_code"`
	Count    int                   `json:"count"`
	Examples []wantCoverageExample `json:"examples"`
}

type wantCoverageExample struct {
	Seq       uint64 `json:"seq"`
	RequestID string `json:"request_id"`
}

// coverageStep is a journaled request and what the report must make of it.
type coverageStep struct {
	example    wantCoverageExample
	op         string   // the journal's operation
	items      []string // the checklist items it satisfies
	err        string   // "status code detail" of an error answer
	entryMode  string   // the entry mode of an answered payment or verification
	approved   bool
	declined   string // payment_method.result of a declined payment
	partial    bool
	tip        bool
	batchClose bool
}

// coverageJournal sends requests, checking each answer against its step, and keeps
// the steps.
type coverageJournal struct {
	env   *sandboxEnv
	steps []coverageStep
}

// send sends a request, checks its answer and journal entry against want, and
// returns the answer.
func (j *coverageJournal) send(method, path string, header map[string]string, body string, want coverageStep) apitest.Reply {
	t := j.env.T
	t.Helper()
	r := j.env.Do(method, path, header, body)
	if want.err != "" {
		e := r.GPError(t)
		if got := strconv.Itoa(e.Status) + " " + e.Code + " " + e.Detail; got != want.err {
			t.Fatalf("%s %s: %s, want %s", method, path, got, want.err)
		}
	} else if r.Status != 200 {
		t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	if want.entryMode != "" || want.declined != "" || want.approved {
		answer := r.JSON(t)
		result, mode := apitest.Dig(answer, "payment_method.result"), apitest.Dig(answer, "payment_method.entry_mode")
		if mode != want.entryMode || want.declined != "" && (answer["status"] != "DECLINED" || result != want.declined) ||
			want.approved && (answer["status"] == "DECLINED" || result != "00") {
			t.Fatalf("%s %s: status %v, result %v, entry mode %v; want %+v", method, path, answer["status"], result, mode, want)
		}
	}
	e := j.env.MustJournal("?limit=1")[0]
	if e.Seq != uint64(len(j.steps)+1) || e.Method != method || e.Path != strings.Split(path, "?")[0] || e.Operation != want.op {
		t.Fatalf("%s %s journaled as %d %s %s %q, want seq %d operation %q", method, path, e.Seq, e.Method, e.Path, e.Operation, len(j.steps)+1, want.op)
	}
	want.example = wantCoverageExample{Seq: e.Seq, RequestID: e.RequestID}
	j.steps = append(j.steps, want)
	return r
}

// report is the report the steps and the notifications must give.
func (j *coverageJournal) report(t *testing.T, notes []sandbox.Notification) wantCoverage {
	var w wantCoverage
	w.Requests = len(j.steps)
	w.Summary.Uncovered = []string{}
	checklist := admin.Checklist()
	for _, s := range j.steps {
		for _, id := range s.items {
			if !slices.ContainsFunc(checklist, func(c admin.ChecklistItem) bool { return c.ID == id }) {
				t.Fatalf("a step names %q, which is no checklist item", id)
			}
		}
	}
	for _, c := range checklist {
		it := wantCoverageItem{ID: c.ID, Group: c.Group, Title: c.Title, SatisfiedBy: c.By, Source: c.Source, Examples: []wantCoverageExample{}}
		for _, s := range j.steps {
			if slices.Contains(s.items, it.ID) {
				it.Count++
				if len(it.Examples) < 5 {
					it.Examples = append(it.Examples, s.example)
				}
			}
		}
		if strings.HasPrefix(it.ID, "notification.") {
			it.Notifications = []string{}
			for _, n := range notes {
				if it.ID == "notification.delivered" && n.State == sandbox.NotificationDelivered ||
					it.ID == "notification.retried" && len(n.Attempts) > 1 {
					it.Count++
					it.Notifications = append(it.Notifications, n.OrderID+"#"+strconv.Itoa(n.Seq))
				}
			}
		}
		it.Covered = it.Count > 0
		if it.Covered {
			w.Summary.Covered++
		} else {
			w.Summary.Uncovered = append(w.Summary.Uncovered, it.ID)
		}
		w.Items = append(w.Items, it)
	}
	w.Summary.Items = len(w.Items)

	s := &w.Seen
	s.Operations, s.EntryModes, s.Outcomes.Declined = map[string]int{}, map[string]int{}, map[string]int{}
	s.Errors, s.Notifications = []wantCoverageError{}, map[string]int{}
	for _, st := range j.steps {
		if st.op != "" {
			s.Operations[st.op]++
		}
		if st.entryMode != "" {
			s.EntryModes[st.entryMode]++
		}
		if st.approved {
			s.Outcomes.Approved++
		}
		if st.declined != "" {
			s.Outcomes.Declined[st.declined]++
		}
		if st.partial {
			s.Outcomes.Partial++
		}
		if st.tip {
			s.Tips++
		}
		if st.batchClose {
			s.BatchCloses++
		}
		if st.err == "" {
			continue
		}
		fields := strings.Fields(st.err)
		status, _ := strconv.Atoi(fields[0])
		i := slices.IndexFunc(s.Errors, func(e wantCoverageError) bool {
			return e.Status == status && e.Code == fields[1] && e.Detail == fields[2]
		})
		if i < 0 {
			s.Errors = append(s.Errors, wantCoverageError{Status: status, Code: fields[1], Detail: fields[2], Examples: []wantCoverageExample{}})
			i = len(s.Errors) - 1
		}
		s.Errors[i].Count++
		if len(s.Errors[i].Examples) < 5 {
			s.Errors[i].Examples = append(s.Errors[i].Examples, st.example)
		}
	}
	slices.SortFunc(s.Errors, func(a, b wantCoverageError) int {
		return strings.Compare(strconv.Itoa(a.Status)+a.Code+a.Detail, strconv.Itoa(b.Status)+b.Code+b.Detail)
	})
	for _, n := range notes {
		s.Notifications[n.State]++
		s.Notifications["attempts"] += len(n.Attempts)
	}
	return w
}

// withEntryMode sets a payment body's entry mode, whatever its card.
func withEntryMode(body, mode string) string {
	for _, m := range []string{"SWIPE", "CHIP", "MANUAL"} {
		body = strings.Replace(body, `"entry_mode":"`+m+`"`, `"entry_mode":"`+mode+`"`, 1)
	}
	return body
}

// asRefund makes a sale body a standalone refund's.
func asRefund(body string) string { return strings.Replace(body, `"SALE"`, `"REFUND"`, 1) }

// fillCoverageJournal sends the requests of a rich journal: every entry mode,
// outcomes, follow-ups with and without tips, batch closes on the API and a
// terminal, reports, tokens, and every error item, some twice and more.
func fillCoverageJournal(env *sandboxEnv) (j *coverageJournal, tok string) {
	j = &coverageJournal{env: env}
	t := env.T
	tokenAnswer := j.send("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""), coverageStep{op: "accesstoken", items: []string{"token"}})
	tok = tokenAnswer.JSON(t)["token"].(string)
	j.send("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, "WrongKey", ""),
		coverageStep{op: "accesstoken", items: []string{"token.refused"}, err: "403 ACTION_NOT_AUTHORIZED 40004"})
	restricted := j.send("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.RestrictedApp, apitest.RestrictedKey, ""), coverageStep{op: "accesstoken", items: []string{"token"}}).JSON(t)["token"].(string)
	j.send("GET", "/accesstoken", nil, "", coverageStep{op: "", err: "405 INVALID_ACTION 40290"}) // not the 400 error.invalid_action names

	h := apitest.APIHeader(tok)
	sale := func(body string, want coverageStep) map[string]any {
		want.op = "transaction"
		return j.send("POST", "/transactions", h, body, want).JSON(t)
	}
	approved := func(mode string, items ...string) coverageStep {
		return coverageStep{entryMode: mode, approved: true, items: items}
	}
	declined := func(mode, result string, items ...string) coverageStep {
		return coverageStep{entryMode: mode, declined: result, items: items}
	}
	swipe := sale(apitest.SaleBody("1000", "AUTO", apitest.TrackCard()), approved("SWIPE", "sale.swipe"))
	chip := sale(apitest.SaleBody("1000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag))), approved("CHIP", "sale.chip"))
	sale(withEntryMode(apitest.SaleBody("1000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag))), "CONTACTLESS_CHIP"), approved("CONTACTLESS_CHIP", "sale.contactless"))
	sale(withEntryMode(apitest.SaleBody("1000", "AUTO", apitest.TrackCard()), "CONTACTLESS_SWIPE"), approved("CONTACTLESS_SWIPE", "sale.contactless_swipe"))
	manual := sale(apitest.SaleBody("1000", "AUTO", apitest.ManualCard), approved("MANUAL", "sale.manual"))
	sale(apitest.SaleBody("1800", "AUTO", apitest.CardOf("DEBIT", apitest.Quoted("track", apitest.VisaTrack), apitest.Quoted("pin_block", apitest.PINBlock))), approved("SWIPE", "sale.swipe", "sale.debit"))
	tipped := approved("SWIPE", "sale.swipe")
	tipped.tip = true
	sale(apitest.SaleBody("1000", "AUTO", apitest.TrackCard(), apitest.Quoted("gratuity_amount", "100")), tipped)
	for range 6 { // more than an item names
		sale(apitest.SaleBody("700", "AUTO", apitest.ManualCard), approved("MANUAL", "sale.manual"))
	}
	sale(apitest.SaleBody("1000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag), apitest.Quoted("pin_block", apitest.PINBlock))), declined("CHIP", "55", "outcome.declined.55"))
	sale(apitest.SaleBody("1000", "AUTO", apitest.CardOf("CREDIT", apitest.Quoted("track", apitest.ExpiredTrack), apitest.Quoted("tag", apitest.InteracTag), apitest.Quoted("pin_block", apitest.ExpiredPINBlock))),
		declined("CHIP", "54", "outcome.declined.54"))
	sale(apitest.SaleBody("1000", "AUTO", apitest.DeclinedCard), declined("MANUAL", "101"))
	sale(apitest.SaleBody("000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag))), declined("CHIP", "13"))
	auth := func(amount string) string {
		return sale(apitest.SaleBody(amount, "LATER", apitest.ManualCard), approved("MANUAL", "sale.manual", "authorize"))["id"].(string)
	}
	incremented, tipCaptured, captured, overCaptured := auth("2500"), auth("2500"), auth("1000"), auth("1000")
	sale(asRefund(apitest.SaleBody("500", "AUTO", apitest.TrackCard())), approved("SWIPE", "refund.standalone"))
	sale(asRefund(apitest.SaleBody("500", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag), apitest.Quoted("pin_block", apitest.PINBlock)))),
		coverageStep{items: []string{"error.pin_refund"}, err: "400 INVALID_REQUEST_DATA 40029"})

	verification := `{"account_name":"transaction_processing","channel":"CP","currency":"USD","country":"US","payment_method":{"entry_mode":"MANUAL","card":%s}}`
	j.send("POST", "/verifications", h, strings.Replace(verification, "%s", apitest.ManualCard, 1),
		coverageStep{op: "verification", entryMode: "MANUAL", items: []string{"verify"}})
	j.send("POST", "/verifications", h, strings.Replace(verification, "%s", `{"number":"4000120000001154","expiry_month":"12","expiry_year":"20","cvv":"123"}`, 1),
		coverageStep{op: "verification", entryMode: "MANUAL", items: []string{"outcome.not_verified"}})

	follow := func(id, action, body string, want coverageStep) map[string]any {
		want.op = action
		return j.send("POST", "/transactions/"+id+"/"+action, h, body, want).JSON(t)
	}
	swipeID, chipID, manualID := swipe["id"].(string), chip["id"].(string), manual["id"].(string)
	follow(swipeID, "adjustment", `{"gratuity_amount":"150"}`, coverageStep{items: []string{"tip.adjustment"}, tip: true})
	follow(manualID, "adjustment", `{"amount":"1200"}`, coverageStep{items: []string{"adjustment.amount"}})
	follow(manualID, "adjustment", `{"amount":"1300","gratuity_amount":"50"}`, coverageStep{items: []string{"tip.adjustment", "adjustment.amount"}, tip: true})
	follow(swipeID, "refund", `{"amount":"400"}`, coverageStep{items: []string{"refund", "outcome.partial"}, partial: true})
	// Less than the amount adjusted to, not less than the one asked for at first.
	follow(manualID, "refund", `{"amount":"1100"}`, coverageStep{items: []string{"refund"}})
	// The original's answer is not in the journal.
	follow(apitest.CapturedOne, "refund", `{"amount":"1"}`, coverageStep{items: []string{"refund"}})
	follow(chipID, "refund", `{"amount":"100000"}`, coverageStep{items: []string{"error.over_limit"}, err: "400 INVALID_REQUEST_DATA 40087"})
	follow(chipID, "reversal", `{}`, coverageStep{items: []string{"reversal"}})
	follow(chipID, "reauthorization", `{}`, coverageStep{items: []string{"reauthorization"}})
	follow(incremented, "incremental", `{"amount":"100"}`, coverageStep{items: []string{"incremental"}})
	follow(manualID, "incremental", `{"amount":"100"}`, coverageStep{items: []string{"error.invalid_action"}, err: "400 INVALID_ACTION 40290"})
	follow(tipCaptured, "capture", `{"amount":"1000","gratuity":"100"}`, coverageStep{items: []string{"capture", "tip.capture", "outcome.partial"}, tip: true, partial: true})
	follow(captured, "capture", `{}`, coverageStep{items: []string{"capture"}})
	follow(overCaptured, "capture", `{"amount":"5000"}`, coverageStep{items: []string{"error.over_limit"}, err: "400 INVALID_REQUEST_DATA 50020"})
	follow(apitest.CapturedOne, "adjustment", `{}`, coverageStep{items: []string{"error.missing_fields"}, err: "400 MANDATORY_DATA_MISSING 40005"})
	follow("TRN_NoSuchTransaction", "adjustment", `{"gratuity_amount":"1"}`, coverageStep{items: []string{"error.not_found"}, err: "404 RESOURCE_NOT_FOUND 40008"})
	j.send("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(restricted), `{"gratuity_amount":"1"}`,
		coverageStep{op: "adjustment", items: []string{"error.permission"}, err: "403 ACTION_NOT_AUTHORIZED 40212"})
	keyed := apitest.APIHeader(tok, "X-GP-Idempotency", "coverage-1")
	j.send("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", keyed, `{"gratuity_amount":"5"}`,
		coverageStep{op: "adjustment", items: []string{"tip.adjustment"}, tip: true})
	j.send("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", keyed, `{"gratuity_amount":"5"}`,
		coverageStep{op: "adjustment", items: []string{"error.duplicate"}, err: "409 DUPLICATE_ACTION 40039"})

	batch := swipe["batch_id"].(string)
	j.send("POST", "/batches/"+batch, h, `{}`, coverageStep{op: "batch_close", items: []string{"batch.close"}, batchClose: true})
	follow(swipeID, "adjustment", `{"gratuity_amount":"1"}`, coverageStep{items: []string{"error.invalid_action"}, err: "400 INVALID_ACTION 40290"})
	j.send("GET", "/batches/"+batch, h, "", coverageStep{op: "batch_detail", items: []string{"batch.detail"}})
	j.send("GET", "/transactions/"+swipeID, h, "", coverageStep{op: "transaction_detail", items: []string{"report.detail"}})
	j.send("GET", "/transactions/TRN_nope", h, "", coverageStep{op: "transaction_detail", items: []string{"error.not_found"}, err: "404 RESOURCE_NOT_FOUND 40118"})
	j.send("GET", "/transactions?page_size=5", h, "", coverageStep{op: "transaction_list", items: []string{"report.list"}})
	j.send("POST", "/payment-methods", h, strings.Replace(apitest.TokenizeBody, "%s", "MULTIPLE", 1), coverageStep{op: "payment_method_create", items: []string{"card_token"}})
	j.send("POST", "/devices", h, apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00","tipAmount":"1.00"}}`), coverageStep{op: "device", items: []string{"terminal.sale"}})
	j.send("POST", "/devices", h, apitest.MICBody("GetBatchReport", ""), coverageStep{op: "device"})
	j.send("POST", "/devices", h, apitest.MICBody("EODProcessing", ""), coverageStep{op: "device", items: []string{"batch.close"}, batchClose: true})
	return j, tok
}

// The report of a rich journal is, to the byte, what its requests make of it.
func TestCoverageReportOfARichJournal(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	j, tok := fillCoverageJournal(env)

	// Two orders notified: one delivered at once, one after a 500 and a retry.
	var calls atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/flaky") && calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer hook.Close()
	order := func(path string) string {
		r := j.send("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok), `{"notifications":{"status_url":"`+hook.URL+path+`"}}`,
			coverageStep{op: "order"})
		return r.JSON(t)["id"].(string)
	}
	steady, flaky := order("/steady"), order("/flaky")
	// The outbox lists by order id, which says nothing of which order is which.
	byHook := func(notes []sandbox.Notification) []sandbox.Notification {
		if len(notes) == 2 && notes[0].OrderID == flaky {
			return []sandbox.Notification{notes[1], notes[0]}
		}
		return notes
	}
	awaitNotes(t, env, func(notes []sandbox.Notification) bool {
		n := byHook(notes)
		return len(n) == 2 && n[0].State != sandbox.NotificationPending && len(n[1].Attempts) == 1
	})
	env.Clock.Advance(notify.FirstRetry)
	notes := awaitNotes(t, env, func(notes []sandbox.Notification) bool {
		return len(notes) == 2 && notes[0].State == sandbox.NotificationDelivered && notes[1].State == sandbox.NotificationDelivered
	})
	if n := byHook(notes); n[0].OrderID != steady || len(n[0].Attempts) != 1 || n[1].OrderID != flaky || len(n[1].Attempts) != 2 {
		t.Fatalf("notifications: %+v", notes)
	}

	r := env.Do("GET", "/_sandbox/coverage", nil, "")
	want, err := json.Marshal(j.report(t, notes))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 200 || !bytes.Equal(r.Body, want) {
		at := 0
		for at < min(len(r.Body), len(want)) && r.Body[at] == want[at] {
			at++
		}
		t.Errorf("GET /_sandbox/coverage: %d, differs at byte %d:\n got …%s\nwant …%s", r.Status, at, around(r.Body, at), around(want, at))
	}

	// The rules the expected report shares with the code, stated apart from both: two
	// orders, three attempts, both delivered; at most five examples, the first ones;
	// errors by status, then code, then detail.
	var got wantCoverage
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if n := got.Seen.Notifications; n["DELIVERED"] != 2 || n["attempts"] != 3 {
		t.Errorf("notifications seen: %v, want 2 delivered after 3 attempts", n)
	}
	for _, it := range got.Items {
		if it.Notifications != nil {
			continue // a notification item names its orders, not requests
		}
		if len(it.Examples) > 5 || !slices.IsSortedFunc(it.Examples, func(a, b wantCoverageExample) int { return int(a.Seq) - int(b.Seq) }) ||
			it.Count > len(it.Examples) && len(it.Examples) != 5 {
			t.Errorf("%s: %d examples of %d: %v", it.ID, len(it.Examples), it.Count, it.Examples)
		}
	}
	for i := 1; i < len(got.Seen.Errors); i++ {
		a, b := got.Seen.Errors[i-1], got.Seen.Errors[i]
		if a.Status > b.Status || a.Status == b.Status && (a.Code > b.Code || a.Code == b.Code && a.Detail >= b.Detail) {
			t.Errorf("errors out of order: %d %s %s before %d %s %s", a.Status, a.Code, a.Detail, b.Status, b.Code, b.Detail)
		}
	}
}

// around is b from a little before at to a little after.
func around(b []byte, at int) []byte { return b[max(0, at-120):min(len(b), at+120)] }

// awaitNotes waits until the notification log, oldest first, is as done says.
func awaitNotes(t *testing.T, env *sandboxEnv, done func([]sandbox.Notification) bool) []sandbox.Notification {
	t.Helper()
	return testrun.WaitForValue(t, "the notifications", func() []sandbox.Notification {
		notes, err := env.Service.Notifications("")
		if err != nil {
			t.Fatal(err)
		}
		return notes
	}, done)
}
