package admin_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

func (env *sandboxEnv) mustCoverage() wantCoverage {
	env.T.Helper()
	r := env.Do("GET", "/_sandbox/coverage", nil, "")
	var c wantCoverage
	if r.Status != 200 || json.Unmarshal(r.Body, &c) != nil {
		env.T.Fatalf("GET /_sandbox/coverage: %d %s", r.Status, r.Body)
	}
	return c
}

// item returns the report's item id, its examples by seq; a missing item fails the
// test.
func (c wantCoverage) item(t *testing.T, id string) (covered bool, count int, examples []uint64) {
	t.Helper()
	for _, it := range c.Items {
		if it.ID == id {
			for _, e := range it.Examples {
				examples = append(examples, e.Seq)
			}
			return it.Covered, it.Count, examples
		}
	}
	t.Fatalf("no checklist item %s", id)
	return false, 0, nil
}

// lastSeq is the seq of the newest journal entry.
func (env *sandboxEnv) lastSeq() uint64 {
	env.T.Helper()
	return env.MustJournal("?limit=1")[0].Seq
}

// The report names what the journal holds against the checklist, with the journal
// entries that satisfy each item, and forgets it all at a reset.
func TestCoverageReport(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	empty := env.mustCoverage()
	if empty.Requests != 0 || empty.Summary.Covered != 0 || len(empty.Summary.Uncovered) != empty.Summary.Items || empty.Summary.Items < 30 {
		t.Fatalf("before any request: %+v", empty.Summary)
	}

	tok := env.PartnerToken()
	tokenSeq := env.lastSeq()
	swipe := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.TrackCard()))
	swipeSeq := env.lastSeq()
	env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag))))
	chipSeq := env.lastSeq()
	declined := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.TrackCard(apitest.Quoted("tag", apitest.EMVTag), apitest.Quoted("pin_block", apitest.PINBlock))))
	if declined["status"] != "DECLINED" {
		t.Fatalf("the chip sale with GP's PIN block: %v", declined["status"])
	}
	id := swipe["id"].(string)
	env.MustPost(tok, "/transactions/"+id+"/adjustment", `{"gratuity_amount":"150"}`)
	tipSeq := env.lastSeq()
	env.MustPost(tok, "/transactions/"+id+"/refund", `{"amount":"400"}`)
	refundSeq := env.lastSeq()
	auth := env.MustTransactionIn(tok, "PREAUTHORIZED")
	env.MustPost(tok, "/transactions/"+auth+"/reversal", `{}`)
	captured := env.MustTransactionIn(tok, "PREAUTHORIZED")
	env.MustPost(tok, "/transactions/"+captured+"/capture", `{"amount":"1000","gratuity":"100"}`) // as the Node SDK sends it
	captureSeq := env.lastSeq()
	env.MustPost(tok, "/batches/"+swipe["batch_id"].(string), `{}`)
	closeSeq := env.lastSeq()
	env.Do("GET", "/transactions/TRN_nope", apitest.APIHeader(tok), "")
	notFoundSeq := env.lastSeq()
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{}`)
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-GP-Idempotency", "k1"), `{"gratuity_amount":"1"}`)
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-GP-Idempotency", "k1"), `{"gratuity_amount":"1"}`)

	c := env.mustCoverage()
	if c.Requests != 15 {
		t.Errorf("requests read: %d, want 15", c.Requests)
	}
	for _, tt := range []struct {
		id       string
		count    int
		examples []uint64
	}{
		{"token", 1, []uint64{tokenSeq}},
		{"sale.swipe", 1, []uint64{swipeSeq}},
		{"sale.chip", 1, []uint64{chipSeq}},
		{"tip.adjustment", 2, []uint64{tipSeq, notFoundSeq + 2}},
		{"refund", 1, []uint64{refundSeq}},
		{"outcome.partial", 1, []uint64{refundSeq}},
		{"outcome.declined.55", 1, []uint64{chipSeq + 1}},
		{"batch.close", 1, []uint64{closeSeq}},
		{"tip.capture", 1, []uint64{captureSeq}},
		{"error.not_found", 1, []uint64{notFoundSeq}},
		{"error.missing_fields", 1, []uint64{notFoundSeq + 1}},
		{"error.duplicate", 1, []uint64{notFoundSeq + 3}},
	} {
		covered, count, examples := c.item(t, tt.id)
		if !covered || count != tt.count || !slices.Equal(examples, tt.examples) {
			t.Errorf("%s: covered %v, count %d, examples %v; want %d, %v", tt.id, covered, count, examples, tt.count, tt.examples)
		}
	}
	for _, id := range []string{"reversal", "authorize", "sale.manual"} {
		if covered, _, _ := c.item(t, id); !covered {
			t.Errorf("%s not covered", id)
		}
	}
	for _, id := range []string{"reauthorization", "terminal.sale", "sale.contactless", "notification.delivered", "outcome.declined.54", "report.detail"} {
		if covered, _, _ := c.item(t, id); covered || !slices.Contains(c.Summary.Uncovered, id) {
			t.Errorf("%s covered, or not listed as uncovered", id)
		}
	}
	if c.Summary.Covered+len(c.Summary.Uncovered) != c.Summary.Items {
		t.Errorf("summary: %+v", c.Summary)
	}
	s := c.Seen
	if s.Operations["transaction"] != 5 || s.EntryModes["SWIPE"] != 1 || s.EntryModes["CHIP"] != 2 || s.EntryModes["MANUAL"] != 2 ||
		s.Outcomes.Approved != 4 || s.Outcomes.Declined["55"] != 1 || s.Outcomes.Partial != 1 ||
		s.Tips != 3 || s.BatchCloses != 1 {
		t.Errorf("seen: %+v", s)
	}
	var tuples []string
	for _, e := range s.Errors {
		tuples = append(tuples, fmt.Sprintf("%d %s %s", e.Status, e.Code, e.Detail))
	}
	wantTuples := []string{"400 MANDATORY_DATA_MISSING 40005", "404 RESOURCE_NOT_FOUND 40118", "409 DUPLICATE_ACTION 40039"}
	for _, w := range wantTuples {
		if !slices.Contains(tuples, w) {
			t.Errorf("errors seen %v lack %s", tuples, w)
		}
	}

	env.MustAdmin("POST", "/_sandbox/reset", "")
	if after := env.mustCoverage(); after.Requests != 0 || after.Summary.Covered != 0 {
		t.Errorf("after a reset: %+v", after.Summary)
	}
}

// Notification deliveries come from the notification log: a delivered one covers
// notification.delivered, naming it.
func TestCoverageNotificationDelivered(t *testing.T) {
	t.Parallel()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer hook.Close()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	order := env.MustPlaceOrder(tok, `{"notifications":{"status_url":"`+hook.URL+`/gp"}}`)
	isDelivered := func(it wantCoverageItem) bool { return it.ID == "notification.delivered" && it.Covered }
	c := testrun.WaitForValue(t, "a delivery in the coverage report", env.mustCoverage,
		func(c wantCoverage) bool { return slices.ContainsFunc(c.Items, isDelivered) })
	delivered := c.Items[slices.IndexFunc(c.Items, isDelivered)]
	if !slices.Equal(delivered.Notifications, []string{order + "#1"}) || c.Seen.Notifications["DELIVERED"] != 1 {
		t.Errorf("delivered: %+v, seen %v", delivered, c.Seen.Notifications)
	}
}

// README.md lists the checklist as the code has it: the same rows in the same order,
// none missing and none left over.
func TestCoverageChecklistDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const header = "| id | item | satisfied by | SDK tests |\n|---|---|---|---|\n"
	_, table, found := strings.Cut(string(doc), header)
	if !found {
		t.Fatalf("README.md has no checklist table headed\n%s", header)
	}
	var documented []string
	for line := range strings.Lines(table) {
		if !strings.HasPrefix(line, "|") {
			break
		}
		documented = append(documented, strings.TrimSuffix(line, "\n"))
	}
	var want []string
	for _, it := range admin.Checklist() {
		want = append(want, "| `"+it.ID+"` | "+it.Title+" | "+it.By+" | "+it.Source+" |")
	}
	for _, row := range want {
		if !slices.Contains(documented, row) {
			t.Errorf("README.md lacks the checklist row\n%s", row)
		}
	}
	for _, row := range documented {
		if !slices.Contains(want, row) {
			t.Errorf("README.md's checklist has a row the code does not\n%s", row)
		}
	}
	if !t.Failed() && !slices.Equal(documented, want) {
		t.Errorf("README.md lists the checklist out of the code's order:\n%s\nwant\n%s", strings.Join(documented, "\n"), strings.Join(want, "\n"))
	}
}

// The checklist's groups, stated here apart from the code's table, so that an item
// moved to another group, or the order of the items changed, is seen.
func TestCoverageChecklistGroups(t *testing.T) {
	t.Parallel()
	want := []struct {
		group string
		ids   []string
	}{
		{"access", []string{"token", "token.refused"}},
		{"entry modes", []string{"sale.swipe", "sale.chip", "sale.contactless", "sale.contactless_swipe", "sale.manual", "sale.debit"}},
		{"payments", []string{"authorize", "refund.standalone", "verify"}},
		{"outcomes", []string{"outcome.declined.55", "outcome.declined.54", "outcome.not_verified", "outcome.partial"}},
		{"follow-ups", []string{"capture", "tip.adjustment", "tip.capture", "adjustment.amount", "refund", "reversal", "reauthorization", "incremental"}},
		{"batches", []string{"batch.close", "batch.detail"}},
		{"reporting", []string{"report.detail", "report.list"}},
		{"card tokens", []string{"card_token"}},
		{"terminal", []string{"terminal.sale"}},
		{"error paths", []string{"error.not_found", "error.duplicate", "error.missing_fields", "error.permission", "error.invalid_action", "error.over_limit", "error.pin_refund"}},
		{"back office", []string{"report.actions", "report.action_detail", "dcc.rate", "report.stored_cards"}},
		{"notifications", []string{"notification.delivered", "notification.retried"}},
		{"merchants", []string{"merchant.board", "merchant.detail", "merchant.list", "merchant.edit", "merchant.document",
			"account.list", "account.detail", "account.edit", "account.addresses"}},
		{"settlement and disputes", []string{"settlement.transactions", "deposit.list", "deposit.detail", "dispute.list",
			"dispute.detail", "dispute.accept", "dispute.challenge", "dispute.document", "settlement.disputes"}},
	}
	var wantItems, gotItems []string
	for _, g := range want {
		for _, id := range g.ids {
			wantItems = append(wantItems, g.group+": "+id)
		}
	}
	for _, it := range admin.Checklist() {
		gotItems = append(gotItems, it.Group+": "+it.ID)
	}
	if !slices.Equal(gotItems, wantItems) {
		t.Errorf("checklist groups:\n got %q\nwant %q", gotItems, wantItems)
	}
}

// The checklist counts what the sandbox did, not what the body spelled: an
// authorization sent without type is the SALE the sandbox took it for, PREAUTHORIZED.
func TestCoverageCountsWhatTheSandboxDid(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	body := strings.Replace(apitest.SaleBody("1000", "LATER", apitest.ManualCard), `"type":"SALE",`, "", 1)
	auth := env.MustCharge(tok, body)
	if auth["type"] != "SALE" || auth["status"] != "PREAUTHORIZED" {
		t.Fatalf("authorization without type: %v", auth)
	}
	seq := env.lastSeq()
	c := env.mustCoverage()
	for _, id := range []string{"authorize", "sale.manual"} {
		if covered, count, examples := c.item(t, id); !covered || count != 1 || !slices.Equal(examples, []uint64{seq}) {
			t.Errorf("%s: covered %v, count %d, examples %v; want the authorization %d", id, covered, count, examples, seq)
		}
	}
}
