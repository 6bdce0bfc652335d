package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// mustGet reads path with tok, failing the test on anything but 200.
func (env *sandboxEnv) mustGet(tok, path string) map[string]any {
	env.T.Helper()
	r := env.Do("GET", path, apitest.APIHeader(tok), "")
	if r.Status != 200 {
		env.T.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// merchantMIC is a MiC command sent for merchant, as the partner form of the SDKs'
// request names it.
func merchantMIC(merchant, command, data string) string {
	return strings.Replace(apitest.MICBody(command, data), `{`, `{"merchant_id":"`+merchant+`",`, 1)
}

// One partner's day through HTTP, every link checked: a merchant boarded with two
// terminals, its device order delivered and its review passed, a sale on its
// terminal, the end of day, the next day's settlement row and deposit, a chargeback
// on the sale challenged with a document, and each of the partner's actions in
// GET /actions. Follows the boarding of GpApiMerchantsOnboardTest::testBoardMerchant,
// the MiC sale and EODProcessing of the SDKs' UPA tests, the settlement and dispute
// reads of ReportingSettlementTransactions.test, ReportingDeposits.test and
// GpApiDisputeTest DisputeChallenge.
func TestPartnersDay(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")

	// Morning: the merchant is boarded, UNDER_REVIEW, with one device order.
	boarded := env.MustPost(tok, "/merchants", boardingBody("Partner Day Bakery", "2"))
	merchant, _ := boarded["id"].(string)
	if boarded["status"] != "UNDER_REVIEW" || !merchantID.MatchString(merchant) {
		t.Fatalf("boarded: %v", boarded)
	}
	var order map[string]any
	for _, o := range env.MustAdmin("GET", "/_sandbox/orders", "")["orders"].([]any) {
		if o.(map[string]any)["merchant_id"] == merchant {
			order = o.(map[string]any)
		}
	}
	if order == nil || order["status"] != "INITIATED" {
		t.Fatalf("no INITIATED order for %s", merchant)
	}
	orderID := order["id"].(string)

	// The order is delivered: two terminals of the merchant, one bound to take its
	// requests, the other a spare.
	env.mustDeliver(orderID)
	if got := env.orderState(orderID); got["status"] != "DELIVERED" {
		t.Fatalf("order: %v", got)
	}
	devices := env.mustDevices("order_id=" + orderID)
	var bound []map[string]any
	for _, d := range devices {
		if d["merchant_id"] != merchant || d["status"] != "ACTIVE" {
			t.Errorf("terminal %v: want ACTIVE for %s", d, merchant)
		}
		if d["account_id"] != "" {
			bound = append(bound, d)
		}
	}
	if len(devices) != 2 || len(bound) != 1 {
		t.Fatalf("terminals: %v, want two, one bound", devices)
	}

	// The review is passed.
	if got := env.MustAdmin("POST", "/_sandbox/merchants/"+merchant+"/status", `{"status":"ACTIVE"}`); got["status"] != "ACTIVE" {
		t.Fatalf("review: %v", got)
	}
	if got := env.mustGet(tok, "/merchants/"+merchant); got["status"] != "ACTIVE" {
		t.Fatalf("merchant after review: %v", got)
	}

	// A sale of 10.00 on the bound terminal over Meet in the Cloud.
	r := env.Do("POST", "/devices", apitest.APIHeader(tok), merchantMIC(merchant, "Sale", `{"transaction":{"baseAmount":"10.00"}}`))
	sale := r.JSON(t)
	saleDRQ, _ := sale["id"].(string)
	trn, _ := apitest.Dig(sale, "response.data.host.referenceNumber").(string)
	if r.Status != 200 || sale["merchant_id"] != merchant || sale["account_id"] != bound[0]["account_id"] ||
		!strings.HasPrefix(trn, "TRN_") || apitest.Dig(sale, "response.data.host.totalAmount") != "10.00" {
		t.Fatalf("sale: %d %s", r.Status, r.Body)
	}
	txn := env.mustGet(tok, "/merchants/"+merchant+"/transactions/"+trn)
	batchID, _ := txn["batch_id"].(string)
	if txn["status"] != "CAPTURED" || txn["merchant_id"] != merchant || txn["amount"] != "1000" || batchID == "" {
		t.Fatalf("the sale's transaction: %v", txn)
	}

	// Evening: the terminal's end of day closes the batch holding the sale.
	r = env.Do("POST", "/devices", apitest.APIHeader(tok), merchantMIC(merchant, "EODProcessing", ""))
	eod := r.JSON(t)
	eodDRQ, _ := eod["id"].(string)
	if r.Status != 200 || apitest.Dig(eod, "response.data.batchRecord.batchStatus") != "CLOSED" ||
		apitest.Dig(eod, "response.data.batchRecord.totalAmount") != "10.00" || apitest.Dig(eod, "response.data.batchRecord.totalCnt") != 1.0 {
		t.Fatalf("end of day: %d %s", r.Status, r.Body)
	}
	if got := env.mustGet(tok, "/merchants/"+merchant+"/transactions/"+trn); got["batch_id"] != batchID {
		t.Errorf("the sale's batch after the end of day: %v, want %s", got["batch_id"], batchID)
	}

	// The next day: the sale is settled into the merchant's deposit.
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"24h"}`)
	tok = env.MustToken(layoutApp, layoutKey, "")
	rows := env.mustGet(tok, "/merchants/"+merchant+"/settlement/transactions?page_size=100&from_batch_time_created=2021-03-22")
	var row map[string]any
	for _, x := range rows["transactions"].([]any) {
		if x.(map[string]any)["id"] == trn {
			row = x.(map[string]any)
		}
	}
	if row == nil {
		t.Fatalf("no settlement row for %s: %v", trn, rows)
	}
	depositID, _ := row["deposit_id"].(string)
	if row["status"] != "FUNDED" || row["amount"] != "1000" || !strings.HasPrefix(depositID, "DEP_") ||
		len(apitest.Dig(row, "payment_method.card.arn").(string)) != 23 {
		t.Errorf("settlement row: %v", row)
	}
	deposits := env.mustGet(tok, "/merchants/"+merchant+"/settlement/deposits?id="+depositID)
	if list := deposits["deposits"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != depositID {
		t.Fatalf("deposit %s not listed: %v", depositID, deposits)
	}
	deposit := env.mustGet(tok, "/merchants/"+merchant+"/settlement/deposits/"+depositID)
	if deposit["amount"] != "1000" || deposit["funding_type"] != "CREDIT" || deposit["currency"] != "USD" ||
		apitest.Dig(deposit, "sales.count") != 1.0 || apitest.Dig(deposit, "sales.amount") != "1000" {
		t.Errorf("deposit: %v", deposit)
	}

	// A chargeback on the sale, challenged with a receipt.
	raised := env.MustAdmin("POST", "/_sandbox/disputes", `{"transaction_id":"`+trn+`","stage":"CHARGEBACK"}`)
	disputeID, _ := raised["id"].(string)
	if raised["stage"] != "CHARGEBACK" || raised["status"] != "WITH_MERCHANT" || raised["amount"] != "1000" {
		t.Fatalf("chargeback: %v", raised)
	}
	dispute := env.mustGet(tok, "/merchants/"+merchant+"/disputes/"+disputeID)
	if apitest.Dig(dispute, "transaction.reference") != txn["reference"] || apitest.Dig(dispute, "transaction.amount") != "1000" ||
		apitest.Dig(dispute, "transaction.payment_method.card.arn") != apitest.Dig(row, "payment_method.card.arn") {
		t.Errorf("the dispute's transaction: %v, want the sale %v", dispute["transaction"], txn)
	}
	doc := `{"documents":[{"type":"SALES_RECEIPT","b64_content":"R0lGODlhigPCAXAAACwAAAAAigPCAYf///8AQnv"}]}`
	challenged := env.MustPost(tok, "/merchants/"+merchant+"/disputes/"+disputeID+"/challenge", doc)
	if challenged["id"] != disputeID || challenged["status"] != "UNDER_REVIEW" || len(challenged["documents"].([]any)) != 1 {
		t.Errorf("challenge: %v", challenged)
	}

	// Each of the partner's actions is in GET /actions, under the id its answer gave,
	// for the merchant it acted for.
	for _, want := range []struct {
		answer                    map[string]any
		resourceID, typ, resource string
	}{
		{boarded, merchant, "MERCHANT_CREATE", "MERCHANTS"},
		{sale, saleDRQ, "PROCESS_DEVICE_COMMAND", "DEVICES"},
		{eod, eodDRQ, "PROCESS_DEVICE_COMMAND", "DEVICES"},
		{challenged, disputeID, "DISPUTE_CHALLENGE", "DISPUTES"},
	} {
		got, _ := env.actionsOf(tok, "?resource_id="+want.resourceID)
		if len(got) != 1 || got[0]["id"] != apitest.Dig(want.answer, "action.id") || got[0]["type"] != want.typ ||
			got[0]["resource"] != want.resource || got[0]["merchant_id"] != merchant || got[0]["response_code"] != "SUCCESS" {
			t.Errorf("actions of %s: %v, want one %s %s of %s", want.resourceID, got, want.resource, want.typ, merchant)
		}
	}
}
