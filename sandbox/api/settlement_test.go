package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// disputeCard is the sandbox's chargeback test card.
const disputeCard = `{"number":"4000000000000259","expiry_month":"12","expiry_year":"30","cvv":"123"}`

// A closed batch is deposited the next sandbox day: the settlement rows and the
// deposit appear then, not before; a sale on the dispute test card is charged back
// that day, its chargeback in the deposit and in the settlement disputes.
// Follows: Node ReportingSettlementTransactions.test "filter by Deposit Reference",
// ReportingDeposits.test "report deposit detail", ReportingDisputes.test
// "report settlement dispute detail".
// The settlement report's rows add up to their deposit: a tipped sale's row is its
// amount with the tip, a refund's its amount, as the deposit and the batch count them.
func TestSettlementRowsAddUpToTheDeposit(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	env.MustPost(tok, "/transactions/"+sale["id"].(string)+"/adjustment", `{"gratuity_amount":"200"}`)
	other := env.MustCharge(tok, apitest.SaleBody("700", "AUTO", apitest.ManualCard))
	env.MustPost(tok, "/transactions/"+other["id"].(string)+"/refund", `{"amount":"300"}`)
	closed := env.MustPost(tok, "/batches/"+sale["batch_id"].(string), "")
	if closed["amount"] != "1600" {
		t.Errorf("batch amount %v, want 1000+200+700-300", closed["amount"])
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"24h"}`)
	tok = env.PartnerToken()
	rows := env.mustGet(tok, "/settlement/transactions?page_size=10&from_batch_time_created=2021-03-22")
	amounts := map[string]string{}
	depositID := ""
	for _, r := range rows["transactions"].([]any) {
		row := r.(map[string]any)
		amounts[row["type"].(string)+" "+row["amount"].(string)] = row["deposit_id"].(string)
		depositID = row["deposit_id"].(string)
	}
	for _, want := range []string{"SALE 1200", "SALE 700", "REFUND 300"} {
		if amounts[want] != depositID {
			t.Errorf("no row %q in deposit %s: %v", want, depositID, amounts)
		}
	}
	if dep := env.mustGet(tok, "/settlement/deposits/"+depositID); dep["amount"] != "1600" || apitest.Dig(dep, "sales.amount") != "1900" || apitest.Dig(dep, "refunds.amount") != "300" {
		t.Errorf("deposit %v %v %v, want 1600: sales 1900, refunds 300", dep["amount"], apitest.Dig(dep, "sales.amount"), apitest.Dig(dep, "refunds.amount"))
	}
}

func TestBatchCloseMakesDepositNextDay(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	disputed := env.MustCharge(tok, apitest.SaleBody("700", "AUTO", disputeCard))
	env.MustPost(tok, "/batches/"+sale["batch_id"].(string), "")

	rows := env.Do("GET", "/settlement/transactions?from_batch_time_created=2021-03-22", apitest.APIHeader(tok), "").JSON(t)
	if rows["total_record_count"] != float64(0) {
		t.Fatalf("settled before the deposit day: %v", rows)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"24h"}`)
	tok = env.PartnerToken()
	rows = env.Do("GET", "/settlement/transactions?page_size=10&order_by=TIME_CREATED&order=ASC&from_batch_time_created=2021-03-22", apitest.APIHeader(tok), "").JSON(t)
	list := rows["transactions"].([]any)
	if rows["total_record_count"] != float64(2) || len(list) != 2 {
		t.Fatalf("settlement rows %v", rows)
	}
	var first map[string]any
	for _, row := range list {
		if row.(map[string]any)["id"] == sale["id"] {
			first = row.(map[string]any)
		}
	}
	depositID, _ := first["deposit_id"].(string)
	if first["status"] != "FUNDED" || !strings.HasPrefix(depositID, "DEP_") ||
		len(apitest.Dig(first, "payment_method.card.arn").(string)) != 23 || first["batch_time_created"] == "" {
		t.Errorf("settlement row %v", first)
	}
	dep := env.Do("GET", "/settlement/deposits/"+depositID, apitest.APIHeader(tok), "").JSON(t)
	if dep["amount"] != "1700" || apitest.Dig(dep, "sales.count") != float64(2) || dep["funding_type"] != "CREDIT" {
		t.Errorf("deposit %v: want the two sales, 1000+700", dep)
	}
	// The dispute card's sale is charged back on the deposit day; its funds move in
	// the next day's deposit.
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"24h"}`)
	tok = env.PartnerToken()
	disputes := env.Do("GET", "/settlement/disputes", apitest.APIHeader(tok), "").JSON(t)
	var ds []any
	for _, d := range disputes["disputes"].([]any) {
		if apitest.Dig(d.(map[string]any), "transaction.reference") == disputed["reference"] {
			ds = append(ds, d)
		}
	}
	if len(ds) != 1 || ds[0].(map[string]any)["status"] != "FUNDED" || ds[0].(map[string]any)["stage"] != "CHARGEBACK" {
		t.Fatalf("settlement disputes %v", disputes)
	}
	back := env.Do("GET", "/settlement/deposits/"+ds[0].(map[string]any)["deposit_id"].(string), apitest.APIHeader(tok), "").JSON(t)
	if back["amount"] != "700" || back["funding_type"] != "DEBIT" || apitest.Dig(back, "disputes.chargebacks.amount") != "700" {
		t.Errorf("chargeback deposit %v", back)
	}
	id := ds[0].(map[string]any)["id"].(string)
	doc := `{"documents":[{"type":"SALES_RECEIPT","b64_content":"R0lGODlhigPCAXAAACwAAAAAigPCAYf///8AQnv"}]}`
	challenged := env.MustPost(tok, "/disputes/"+id+"/challenge", doc)
	if challenged["status"] != "UNDER_REVIEW" || apitest.Dig(challenged, "action.result_code") != "SUCCESS" {
		t.Errorf("challenge %v", challenged)
	}
	docID := challenged["documents"].([]any)[0].(map[string]any)["id"].(string)
	got := env.Do("GET", "/disputes/"+id+"/documents/"+docID, apitest.APIHeader(tok), "").JSON(t)
	if got["id"] != docID || got["b64_content"] == "" || apitest.Dig(got, "action.type") != "DOCUMENT_SINGLE" {
		t.Errorf("document %v", got)
	}
	// A week under review: the issuer takes it to pre-arbitration.
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"168h"}`)
	tok = env.PartnerToken()
	detail := env.Do("GET", "/disputes/"+id, apitest.APIHeader(tok), "").JSON(t)
	if detail["stage"] != "PRE_ARBITRATION" || detail["status"] != "WITH_MERCHANT" {
		t.Errorf("a week after the challenge: %v", detail)
	}
}

// The SDK tests' fixed cases. Follows: Java GpApiDisputeTest DisputeAccept,
// DisputeChallenge, DisputeChallenge_MultipleDocuments, _ClosedStatus,
// _MissingDocument, DisputeAccept_WrongId, DisputeChallenge_WrongId;
// GpApiReportingDisputesTest ReportDisputeDetail(_WrongId),
// FindDocumentAssociatedWithDispute(_RandomDisputeId, _RandomDocumentId),
// ReportSettlementDisputeDetail(_WrongID); Node ReportingDeposits.test
// "report deposit detail - wrong id".
func TestDisputeFixturesAnswerAsTheSDKTestsExpect(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	one := `{"documents":[{"type":"SALES_RECEIPT","b64_content":"R0lGODlhigPCAXAAACwAAAAAigPCAYf///8AQnv"}]}`
	two := `{"documents":[{"type":"SALES_RECEIPT","b64_content":"R0lG"},{"type":"TERMS_AND_CONDITIONS","b64_content":"R0lG"}]}`
	// Java ReportDisputeDetail_stageTime: staged a week before the sandbox's today;
	// ReportFindDepositsPaged_FilterBy_DepositReference: a deposit of the last six months.
	h := apitest.APIHeader(tok)
	if got := env.mustGet(tok, "/disputes/DIS_SAND_abcd1234")["stage_time_created"]; got != sandbox.FormatTime(env.Clock.Now().AddDate(0, 0, -7)) {
		t.Errorf("stage time %v", got)
	}
	if got := env.mustGet(tok, "/settlement/deposits/DEP_2342423423")["time_created"]; got != daysAgo(env, 30) {
		t.Errorf("deposit day %v", got)
	}
	for _, c := range []struct{ path, body, status string }{
		{"/disputes/DIS_SAND_abcd1234/acceptance", "", "CLOSED"},
		{"/disputes/DIS_SAND_abcd1234/challenge", one, "CLOSED"},
		{"/disputes/DIS_SAND_abcd1234/challenge", `{"documents":[{"b64_content":"R0lG"}]}`, "CLOSED"},
		{"/disputes/DIS_SAND_abcd1241/challenge", two, "UNDER_REVIEW"},
	} {
		if got := env.MustPost(tok, c.path, c.body); got["status"] != c.status || apitest.Dig(got, "action.result_code") != "SUCCESS" {
			t.Errorf("POST %s: %v, want %s", c.path, got, c.status)
		}
	}
	for _, c := range []struct {
		method, path, body string
		want               apitest.GPError
	}{
		{"POST", "/disputes/DIS_SAND_abcd1234/challenge", two, apitest.Err(400, "INVALID_REQUEST_DATA", "40072", "131,The dispute stage, Retrieval, can be challenged with a single document only. Please correct the request and resubmit")},
		{"POST", "/disputes/DIS_SAND_abcd1234/challenge", `{"documents":[]}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40065", "Unable to challenge as No document provided with the request")},
		{"POST", "/disputes/DIS_SAND_abcd1234/challenge", `{"documents":[{"type":"SALES_RECEIPT"}]}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields documents.b64_content")},
		{"POST", "/disputes/DIS_SAND_abcd1234/challenge", `{"documents":[{"type":"SALES_RECEIPT","b64_content":""}]}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields documents.b64_content")},
		{"POST", "/disputes/DIS_SAND_abcd1234/challenge", `{"documents":[{},{"b64_content":""}]}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40065", "Unable to challenge as No document provided with the request")},
		{"POST", "/disputes/DIS_SAND_bbbb1111/acceptance", "", apitest.Err(400, "INVALID_DISPUTE_ACTION", "40067", "124,Unable to accept for that id. Please check the Case id again.")},
		{"POST", "/disputes/DIS_SAND_abcd1000/challenge", one, apitest.Err(400, "INVALID_DISPUTE_ACTION", "40060", "117,Unable to challenge for that id. Please check the Case id again.")},
		{"GET", "/disputes/DIS_SAND_abcd123a", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40073", "101,Unable to locate dispute record for that ID. Please recheck the ID provided.")},
		{"GET", "/disputes/DIS_SAND_abcd1235/documents/DOC_none", "", apitest.Err(400, "MANDATORY_DATA_MISSING", "40071", "128,No document found, please recheck the values provided")},
		{"GET", "/settlement/disputes/DIS_666", "", apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Disputes DIS_666 not found at this /ucp/settlement/disputes/DIS_666")},
		{"GET", "/settlement/deposits/DEP_0000000001", "", apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Deposits DEP_0000000001 not found at this /ucp/settlement/deposits/DEP_0000000001")},
		{"GET", "/disputes?arn=874091790340471", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40048", "105,Unable to locate dispute record for arn. Please recheck thevalue provided for arn.")},
		{"GET", "/settlement/deposits?page_size=0", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "page_size contains unexpected data")},
		// Java ReportFindDepositsPaged_FilterBy_RandomUUIDSystemHierarchy, ReportFindSettlementTransactionsPaged_By_Invalid_SystemMid
		{"GET", "/settlement/deposits?system.hierarchy=0b1c9a52-0e4d-4b8e-9d43-2f1a6c1e7b10", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40105", "Invalid Value provided in the input field - system.hierarchy")},
		{"GET", "/settlement/transactions?system.mid=0b1c9a52-0e4d-4b8e-9d43-2f1a6c1e7b10", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40090", "system.mid value is invalid. Please check the format and data provided is correct")},
		{"GET", "/settlement/disputes?system.mid=MER-1", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40090", "system.mid value is invalid. Please check the format and data provided is correct")},
	} {
		if got := env.Do(c.method, c.path, h, c.body).GPError(t); got != c.want {
			t.Errorf("%s %s: %+v, want %+v", c.method, c.path, got, c.want)
		}
	}
	if got := env.Do("GET", "/disputes/DIS_SAND_abcd1234", h, "").JSON(t); got["id"] != "DIS_SAND_abcd1234" || got["stage"] != "RETRIEVAL" {
		t.Errorf("dispute detail %v", got)
	}
	docs := env.Do("GET", "/disputes/DIS_SAND_abcd1235/documents/DOC_MyEvidence_234234AVCDE-1", h, "").JSON(t)
	if docs["id"] != "DOC_MyEvidence_234234AVCDE-1" || docs["b64_content"] == "" {
		t.Errorf("document %v", docs)
	}
	if got := env.Do("GET", "/settlement/disputes/DIS_810", h, "").JSON(t); got["id"] != "DIS_810" || got["deposit_id"] != "DEP_2342423443" {
		t.Errorf("settlement dispute %v", got)
	}
	// Well-formed filters that name no merchant of the sandbox match nothing (Java
	// ReportFindDepositsPaged_FilterBy_WrongSystemHierarchy, ..._NonExistent_SystemMerchantId);
	// the mid the sandbox answers matches its own.
	for path, want := range map[string]float64{
		"/settlement/deposits?system.hierarchy=000-70-024-000-000": 0,
		"/settlement/transactions?system.mid=738292374":            0,
		"/settlement/deposits?system.mid=" + apitest.MerchantOne:   4,
		// Java, .NET and PHP find disputes by this ARN and expect a list (ReportFindDisputesPaged_By_ARN).
		"/disputes?arn=135091790340196": 1,
	} {
		if got := env.Do("GET", path, h, "").JSON(t); got["total_record_count"] != want {
			t.Errorf("GET %s: %v records, want %v", path, got["total_record_count"], want)
		}
	}
	deposits := env.Do("GET", "/settlement/deposits?order_by=DEPOSIT_ID&order=ASC&page_size=2", h, "").JSON(t)
	// .NET ReportDepositDetail reads DEP_2342423423.
	if deposits["total_record_count"] != float64(4) || len(deposits["deposits"].([]any)) != 2 ||
		apitest.Dig(deposits["deposits"].([]any)[0].(map[string]any), "id") != "DEP_2342423423" {
		t.Errorf("deposits %v", deposits)
	}
}

// The admin API raises a dispute with stage and reason; left unanswered past its
// respond-by time, a retrieval becomes a chargeback that takes its funds, and an
// acceptance closes a dispute with the merchant. Follows: Java GpApiDisputeTest
// DisputeAccept (the acceptance's answer).
func TestAdminRaisedDisputeLifecycle(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1500", "AUTO", apitest.ManualCard))
	d := env.MustAdmin("POST", "/_sandbox/disputes", `{"transaction_id":"`+sale["id"].(string)+`","stage":"RETRIEVAL","reason_code":"NOT_RECEIVED"}`)
	id := d["id"].(string)
	if d["stage"] != "RETRIEVAL" || d["status"] != "WITH_MERCHANT" || d["reason_code"] != "NOT_RECEIVED" || d["amount"] != "1500" {
		t.Fatalf("raised %v", d)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"168h"}`)
	tok = env.PartnerToken()
	got := env.Do("GET", "/disputes/"+id, apitest.APIHeader(tok), "").JSON(t)
	if got["stage"] != "CHARGEBACK" || got["status"] != "WITH_MERCHANT" || got["last_adjustment_funding"] != "DEBIT" {
		t.Fatalf("a week unanswered: %v", got)
	}
	list := env.Do("GET", "/disputes?stage=CHARGEBACK&status=WITH_MERCHANT&order_by=id", apitest.APIHeader(tok), "").JSON(t)
	if !strings.Contains(fmt.Sprint(list["disputes"]), id) {
		t.Errorf("the chargeback is not listed: %v", list)
	}
	accepted := env.MustPost(tok, "/disputes/"+id+"/acceptance", "")
	if accepted["status"] != "CLOSED" || apitest.Dig(accepted, "action.result_code") != "SUCCESS" {
		t.Errorf("acceptance %v", accepted)
	}
	r := env.Do("POST", "/disputes/"+id+"/acceptance", apitest.APIHeader(tok), "")
	if got := r.GPError(t); got.Detail != "40067" {
		t.Errorf("accepting a closed dispute: %+v", got)
	}
	r = env.Do("POST", "/_sandbox/disputes", apitest.JSONHeader(), `{"transaction_id":"TRN_nope","stage":"CHARGEBACK"}`)
	if got := r.GPError(t); got.Detail != "40008" {
		t.Errorf("unknown transaction: %+v", got)
	}
}

// A scenario's dispute outcome marks the payment: once deposited it is disputed at
// the stage the rule names, like a sale on a dispute test card.
func TestScenarioDisputeOutcome(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	if r := env.MustInstallScenario(`version: 1
name: disputed-sale
rules:
  - when: {operation: transaction}
    then: {dispute: RETRIEVAL}
`); r.Status != 200 {
		t.Fatalf("install: %d %s", r.Status, r.Body)
	}
	tok := env.PartnerToken()
	h := apitest.APIHeader(tok)
	h["X-Sandbox-Scenario"] = "disputed-sale"
	r := env.Do("POST", "/transactions", h, apitest.SaleBody("1234", "AUTO", apitest.ManualCard))
	sale := r.JSON(t)
	env.MustPost(tok, "/batches/"+sale["batch_id"].(string), "")
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"24h"}`)
	tok = env.PartnerToken()
	list := env.Do("GET", "/disputes?stage=RETRIEVAL&page_size=100", apitest.APIHeader(tok), "").JSON(t)
	found := false
	for _, d := range list["disputes"].([]any) {
		if apitest.Dig(d.(map[string]any), "transaction.reference") == sale["reference"] {
			found = d.(map[string]any)["status"] == "WITH_MERCHANT" && d.(map[string]any)["amount"] == "1234"
		}
	}
	if !found {
		t.Errorf("no retrieval on the scenario's sale: %v", list)
	}
	bad := env.Do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, "version: 1\nname: bad-dispute\nrules:\n  - when: {operation: capture}\n    then: {dispute: LATER}\n")
	if bad.Status != 400 || !strings.Contains(string(bad.Body), "dispute") {
		t.Errorf("a bad dispute outcome: %d %s", bad.Status, bad.Body)
	}
}

// A dispute raised with a status_url notifies each change, as an order does: the
// opening, then the acceptance, in order, each body the dispute as the API shows it.
func TestDisputeNotifications(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("900", "AUTO", apitest.ManualCard))
	d := env.MustAdmin("POST", "/_sandbox/disputes", `{"transaction_id":"`+sale["id"].(string)+`","status_url":"http://127.0.0.1:1/disputes"}`)
	id := d["id"].(string)
	env.MustPost(tok, "/disputes/"+id+"/acceptance", "")
	got := env.Do("GET", "/_sandbox/notifications?order_id="+id, nil, "").JSON(t)
	list := got["notifications"].([]any)
	if len(list) != 2 {
		t.Fatalf("notifications %v: want the opening and the acceptance", got)
	}
	for i, status := range []string{"WITH_MERCHANT", "CLOSED"} {
		n := list[i].(map[string]any)
		if n["order_status"] != status || n["url"] != "http://127.0.0.1:1/disputes" || !strings.Contains(fmt.Sprint(n["body"]), id) {
			t.Errorf("notification %d: %v, want status %s", i, n, status)
		}
	}
}

// A challenge's document content is in no journal entry nor dispute: kept by hash and
// size only.
func TestChallengeDocumentNotKept(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	const content = "U2FuZGJveERvY3VtZW50Qnl0ZXNGb3JUaGVUZXN0"
	env.MustPost(tok, "/disputes/DIS_SAND_abcd1241/challenge", `{"documents":[{"type":"SALES_RECEIPT","b64_content":"`+content+`"}]}`)
	raw := env.Do("GET", "/_sandbox/requests?limit=1000", nil, "")
	if strings.Contains(string(raw.Body), content) {
		t.Errorf("the journal holds the document's bytes")
	}
	if !strings.Contains(string(raw.Body), "disputes/DIS_SAND_abcd1241/challenge") {
		t.Errorf("the challenge is not journaled: %s", raw.Body)
	}
}

// A status filter the SDKs' enumerations do not name is refused naming it, not an
// empty list; Node's SPLIT_FUNDING reads as GP's SPLIT FUNDING.
func TestSettlementStatusFiltersRefuseTypos(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	for _, q := range []string{
		"/settlement/transactions?status=captured", "/settlement/transactions?deposit_status=PAID", "/settlement/deposits?status=funded",
	} {
		name := q[strings.Index(q, "?")+1 : strings.Index(q, "=")]
		if got := env.Do("GET", q, apitest.APIHeader(tok), "").GPError(t); got != apitest.Err(400, "INVALID_REQUEST_DATA", "40213", name+" contains unexpected data") {
			t.Errorf("%s: %+v", q, got)
		}
	}
	for _, q := range []string{
		"/settlement/transactions?status=FUNDED&deposit_status=SPLIT_FUNDING", "/settlement/deposits?status=SPLIT%20FUNDING", "/settlement/deposits?status=IRREG",
	} {
		if r := env.Do("GET", q, apitest.APIHeader(tok), ""); r.Status != 200 {
			t.Errorf("%s: %d %s", q, r.Status, r.Body)
		}
	}
}
