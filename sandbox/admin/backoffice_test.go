package admin_test

import (
	"regexp"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// byID finds the listed record with id under key in an admin list.
func byID(t *testing.T, list map[string]any, key, id string) map[string]any {
	t.Helper()
	for _, item := range list[key].([]any) {
		if m := item.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("no %s %s in %v", key, id, list)
	return nil
}

// GET /_sandbox/deposits lists the fixtures' deposits as GP's API shows one, with the
// transactions each paid; only the last four digits of the bank account show.
func TestAdminListsDeposits(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	r := env.Do("GET", "/_sandbox/deposits", map[string]string{}, "")
	if r.Status != 200 {
		t.Fatalf("GET /_sandbox/deposits: %d %s", r.Status, r.Body)
	}
	d := byID(t, r.JSON(t), "deposits", "DEP_2342423429")
	if d["status"] != "FUNDED" || d["amount"] != "1999" || d["funding_type"] != "CREDIT" || d["visible"] != true ||
		apitest.Dig(d, "bank_transfer.masked_account_number_last4") != "1234" || apitest.Dig(d, "system.mid") != apitest.MerchantOne {
		t.Errorf("deposit: %v", d)
	}
	if ids := d["transaction_ids"].([]any); len(ids) != 1 || ids[0] != "TRN_BatchedSale0000000000000000001" {
		t.Errorf("transaction_ids: %v", ids)
	}
	if bank := d["bank_transfer"].(map[string]any); len(bank) != 1 {
		t.Errorf("bank_transfer shows more than the last four digits: %v", bank)
	}
}

// GET /_sandbox/disputes lists the fixtures' disputes as GET /disputes/{id} shows one,
// with the disputed transaction and its documents' ids alone; the card masked.
func TestAdminListsDisputes(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	r := env.Do("GET", "/_sandbox/disputes", map[string]string{}, "")
	if r.Status != 200 {
		t.Fatalf("GET /_sandbox/disputes: %d %s", r.Status, r.Body)
	}
	list := r.JSON(t)
	d := byID(t, list, "disputes", "DIS_SAND_abcd1234")
	if d["stage"] != "RETRIEVAL" || d["status"] != "WITH_MERCHANT" || d["amount"] != "1999" || d["visible"] != true ||
		d["transaction_id"] != "TRN_BatchedSale0000000000000000001" || d["deposit_id"] != "" {
		t.Errorf("dispute: %v", d)
	}
	withDoc := byID(t, list, "disputes", "DIS_SAND_abcd1235")
	if docs := withDoc["documents"].([]any); len(docs) != 1 || apitest.Dig(docs[0].(map[string]any), "id") != "DOC_MyEvidence_234234AVCDE-1" {
		t.Errorf("documents: %v", withDoc["documents"])
	}
	for _, item := range list["disputes"].([]any) {
		card := apitest.Dig(item.(map[string]any), "transaction.payment_method.card").(map[string]any)
		for _, member := range []string{"number", "masked_number_first6last4"} {
			if n := card[member].(string); unmaskedCard.MatchString(n) {
				t.Errorf("%v: card %s %q", item.(map[string]any)["id"], member, n)
			}
		}
	}
}

// unmaskedCard is a card number in clear: a run of 12 digits or more.
var unmaskedCard = regexp.MustCompile(`\d{12,}`)
