package yamlfile

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

const boardedMerchant = `
pricing_profiles: [{name: p, currency: USD}]
merchants:
  - id: MER_b
    name: Boarded
    pricing_profile: p
    status: UNDER_REVIEW
    time_created: "2023-01-10T10:00:00.000Z"
    legal_name: Legal
    addresses: [{functions: [BUSINESS], line_1: "1 Main", postal_code: "30346", country: US}]
    payment_methods:
      - functions: [PRIMARY_PAYOUT]
        bank_transfer: {account_number: "123456788", bank_name: National, code: "102000076"}
      - card: {number: "4111111111111111", expiry_month: "12", expiry_year: "30"}
    accounts:
      - {id: FMA_1, type: FUND_MANAGEMENT, name: Funds, time_created: "2023-01-10T10:00:00.000Z", currencies: [USD]}
      - {id: TRA_1, type: TRANSACTION_PROCESSING, name: transaction_processing, status: INACTIVE}
  - {id: MER_plain, name: Plain}
`

// A merchant's boarding members and accounts load as a suite seeds them: exact ids and
// dates, the payout numbers masked as they load.
func TestLoadBoardedMerchant(t *testing.T) {
	t.Parallel()
	f := mustLoadFixtures(t, files("m.yaml", boardedMerchant))
	b := f.Merchants[0].Boarding
	created := time.Date(2023, 1, 10, 10, 0, 0, 0, time.UTC)
	if b == nil || b.Status != sandbox.MerchantUnderReview || !b.TimeCreated.Equal(created) || b.LegalName != "Legal" ||
		len(b.Addresses) != 1 || b.Addresses[0].PostalCode != "30346" {
		t.Fatalf("boarding: %+v", b)
	}
	if len(b.PaymentMethods) != 2 || b.PaymentMethods[0].Bank.MaskedAccountNumber != "XXXXX6788" || b.PaymentMethods[0].Bank.AccountNumber != "" ||
		b.PaymentMethods[1].Card.Number != "" || !strings.HasSuffix(b.PaymentMethods[1].Card.MaskedNumber, "1111") {
		t.Errorf("payout methods not masked: %+v %+v", b.PaymentMethods[0].Bank, b.PaymentMethods[1].Card)
	}
	// GP dates every merchant: one with no boarding members was boarded when the
	// fixtures were read.
	if b := f.Merchants[1].Boarding; b == nil || !reflect.DeepEqual(*b, *undated()) {
		t.Errorf("a merchant with no boarding members: %+v", b)
	}
	// An account given no time_created was opened with its merchant.
	if len(f.Accounts) != 2 || f.Accounts[0].MerchantID != "MER_b" || !f.Accounts[0].TimeCreated.Equal(created) ||
		f.Accounts[0].Status != sandbox.MerchantActive || f.Accounts[1].Status != "INACTIVE" || !f.Accounts[1].TimeCreated.Equal(created) {
		t.Errorf("accounts: %+v", f.Accounts)
	}
}

// A merchant given no time_created was boarded with its oldest account, and its
// accounts given none with it: GP dates every merchant and account, never one before
// its merchant.
func TestLoadUndatedMerchant(t *testing.T) {
	t.Parallel()
	f := mustLoadFixtures(t, files("m.yaml", `
merchants:
  - id: MER_u
    name: Undated
    accounts:
      - {id: TRA_u, type: TRANSACTION_PROCESSING, name: t, time_created: now-30d}
      - {id: FMA_u, type: FUND_MANAGEMENT, name: f}
`))
	oldest := testNow.AddDate(0, 0, -30)
	if b := f.Merchants[0].Boarding; b == nil || !b.TimeCreated.Equal(oldest) || !b.TimeLastUpdated.Equal(oldest) {
		t.Errorf("merchant: %+v", b)
	}
	for _, a := range f.Accounts {
		if !a.TimeCreated.Equal(oldest) {
			t.Errorf("account %s: %v", a.ID, a.TimeCreated)
		}
	}
}

// Bad boarding members are refused where they are written.
func TestLoadBoardedMerchantProblems(t *testing.T) {
	t.Parallel()
	src := strings.NewReplacer("status: UNDER_REVIEW", "status: OPEN", "type: FUND_MANAGEMENT", "type: SAVINGS",
		"id: TRA_1", "id: FMA_1").Replace(boardedMerchant)
	got := strings.Join(mustProblems(t, files("m.yaml", src)), "\n")
	for _, want := range []string{"merchants[0].status", "merchants[0].accounts[0].type", `duplicate account id "FMA_1"`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
