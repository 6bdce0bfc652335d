package yamlfile

import (
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

const settlementBase = `apps:
  - id: app1
    key: k
    name: a
    merchant_id: MER_1
    accounts: [{id: TRA_1, name: transaction_processing}]
merchants:
  - {id: MER_1, name: One}
`

// The SDK tests' fixed ids load as written: a deposit with its totals and rows, a
// frozen dispute with its document kept by hash and size.
func TestLoadSettlementFixtures(t *testing.T) {
	t.Parallel()
	f := mustLoadFixtures(t, files("f.yaml", settlementBase+`deposits:
  - id: DEP_2342423429
    merchant_id: MER_1
    time_created: "2021-03-10"
    currency: USD
    sales: {count: 2, amount: "2500"}
    refunds: {count: 1, amount: "500"}
    masked_account_number_last4: "1234"
disputes:
  - id: DIS_SAND_abcd1235
    merchant_id: MER_1
    time_created: 2021-03-11T10:24:43.999Z
    stage: CHARGEBACK
    status: UNDER_REVIEW
    amount: "1999"
    currency: USD
    deposit_id: DEP_2342423429
    last_adjustment_funding: DEBIT
    frozen: true
    documents: [{id: DOC_1, type: SALES_RECEIPT, sha256: abc, size: 29}]
`))
	if len(f.Deposits) != 1 || f.Deposits[0].Amount() != "2000" || f.Deposits[0].Status != sandbox.DepositFunded || f.Deposits[0].BankLast4 != "1234" {
		t.Errorf("deposits %+v", f.Deposits)
	}
	if len(f.Disputes) != 1 {
		t.Fatalf("disputes %+v", f.Disputes)
	}
	d := f.Disputes[0]
	if !d.Frozen || d.Stage != "CHARGEBACK" || d.DepositID != "DEP_2342423429" || d.LastAdjustment.Funding != "DEBIT" ||
		len(d.Documents) != 1 || d.Documents[0].Size != 29 || d.Result != sandbox.ResultPending {
		t.Errorf("dispute %+v", d)
	}
}

// A stage given as a status, a dangling deposit and a bad day are each reported where
// written.
func TestSettlementFixtureProblems(t *testing.T) {
	t.Parallel()
	got := strings.Join(mustProblems(t, files("f.yaml", settlementBase+`deposits:
  - {id: DEP_1, merchant_id: MER_1, time_created: "10 March", currency: USD}
  - {id: DEP_2, merchant_id: MER_1, time_created: "2021-03-10", currency: USD, status: IRREGULAR}
  - {id: DEP_3, merchant_id: MER_1, time_created: "2021-03-10", currency: USD, status: IRREG}
disputes:
  - {id: DIS_1, merchant_id: MER_1, time_created: 2021-03-11T10:24:43.999Z, stage: CLOSED, status: CLOSED, amount: "1", currency: USD, deposit_id: DEP_none}
`)), "\n")
	// A deposit's status is one GP writes, the one a list filters by: IRREG, not IRREGULAR.
	for _, want := range []string{"time_created: must be a date like 2021-05-03, or now, now-30d", "stage: must be one of RETRIEVAL", `deposit "DEP_none"`,
		`status: must be one of FUNDED, SPLIT FUNDING, DELAYED, RESERVED, IRREG, RELEASED, got "IRREGULAR"`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"IRREG"`) {
		t.Errorf("IRREG refused:\n%s", got)
	}
}

// A time written relative to now counts whole days from the time the fixtures are read
// at; any other form is a problem where it is written.
func TestRelativeFixtureTimes(t *testing.T) {
	t.Parallel()
	f := mustLoadFixtures(t, files("f.yaml", settlementBase+`deposits:
  - {id: DEP_1, merchant_id: MER_1, time_created: now-30d, currency: USD}
disputes:
  - {id: DIS_1, merchant_id: MER_1, time_created: now-8d, stage_time_created: now-7d, time_to_respond_by: now+14d, stage: RETRIEVAL, status: WITH_MERCHANT, amount: "1", currency: USD}
`))
	if got, want := f.Deposits[0].TimeCreated, testNow.AddDate(0, 0, -30).Truncate(24*time.Hour); !got.Equal(want) {
		t.Errorf("deposit day %v, want %v", got, want)
	}
	d := f.Disputes[0]
	if !d.TimeCreated.Equal(testNow.AddDate(0, 0, -8)) || !d.StageTime.Equal(testNow.AddDate(0, 0, -7)) || !d.RespondBy.Equal(testNow.AddDate(0, 0, 14)) ||
		d.Action.TimeCreated != sandbox.FormatTime(testNow.AddDate(0, 0, -8)) {
		t.Errorf("dispute times %v %v %v %q", d.TimeCreated, d.StageTime, d.RespondBy, d.Action.TimeCreated)
	}
	// A merchant and its accounts too; a clock so early that the days back reach
	// before year 1 gives the first time GP can show.
	early := time.Date(1, 1, 5, 0, 0, 0, 0, time.UTC)
	m, err := LoadFixtures(files("m.yaml", `merchants:
  - id: MER_1
    name: One
    time_created: now-60d
    accounts: [{id: TRA_1, type: TRANSACTION_PROCESSING, name: t, time_created: now-58d}]
`), testNow)
	if err != nil || !m.Merchants[0].Boarding.TimeCreated.Equal(testNow.AddDate(0, 0, -60)) || !m.Accounts[0].TimeCreated.Equal(testNow.AddDate(0, 0, -58)) {
		t.Errorf("merchant and account times: %v %+v", err, m)
	}
	if m, err := LoadFixtures(files("m.yaml", "merchants: [{id: MER_1, name: One, time_created: now-30d}]"), early); err != nil || !m.Merchants[0].Boarding.TimeCreated.Equal(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("before year 1: %v %+v", err, m)
	}
	got := strings.Join(mustProblems(t, files("f.yaml", settlementBase+`disputes:
  - {id: DIS_1, merchant_id: MER_1, time_created: now-7, stage: RETRIEVAL, status: WITH_MERCHANT, amount: "1", currency: USD}
  - {id: DIS_2, merchant_id: MER_1, time_created: yesterday, stage: RETRIEVAL, status: WITH_MERCHANT, amount: "1", currency: USD}
  - {id: DIS_3, merchant_id: MER_1, time_created: NOW, stage: RETRIEVAL, status: WITH_MERCHANT, amount: "1", currency: USD}
  - {id: DIS_4, merchant_id: MER_1, time_created: now-0d, stage: RETRIEVAL, status: WITH_MERCHANT, amount: "1", currency: USD}
  - {id: DIS_5, merchant_id: MER_1, time_created: now-1d, time_to_respond_by: now+366d, stage: RETRIEVAL, status: WITH_MERCHANT, amount: "1", currency: USD}
`)), "\n")
	if strings.Count(got, "or now, now-7d, now+30d (at most now+365d)") != 5 {
		t.Errorf("problems:\n%s", got)
	}
}

// Times that follow one another in GP's records are refused out of order, where the
// later one is written: an account made before its merchant, a dispute staged before
// it was opened or due before it was staged, a deposit paying a batch closed after
// its day.
func TestFixtureTimesOutOfOrder(t *testing.T) {
	t.Parallel()
	got := strings.Join(mustProblems(t, files("f.yaml", `merchants:
  - id: MER_1
    name: One
    time_created: now-10d
    accounts:
      - {id: TRA_1, type: TRANSACTION_PROCESSING, name: early, time_created: now-11d}
      - {id: TRA_2, type: TRANSACTION_PROCESSING, name: same day, time_created: now-10d}
deposits:
  - id: DEP_1
    merchant_id: MER_1
    time_created: "2021-03-10"
    currency: USD
    transactions:
      - {transaction_id: TRN_1, batch_time_created: 2021-03-10T23:59:59.999Z}
      - {transaction_id: TRN_1, batch_time_created: 2021-03-11T00:00:00.000Z}
disputes:
  - {id: DIS_1, merchant_id: MER_1, time_created: now-3d, stage_time_created: now-4d, stage: CHARGEBACK, status: WITH_MERCHANT, amount: "1", currency: USD}
  - {id: DIS_2, merchant_id: MER_1, time_created: now-3d, time_to_respond_by: now-5d, stage: CHARGEBACK, status: WITH_MERCHANT, amount: "1", currency: USD}
  - {id: DIS_3, merchant_id: MER_1, time_created: now-3d, stage_time_created: now-2d, time_to_respond_by: now-2d, stage: CHARGEBACK, status: WITH_MERCHANT, amount: "1", currency: USD}
  - {id: DIS_4, merchant_id: MER_1, time_created: now-3d, stage_time_created: now-1d, time_to_respond_by: now-2d, stage: CHARGEBACK, status: WITH_MERCHANT, amount: "1", currency: USD}
`)), "\n")
	for _, want := range []string{
		"f.yaml:6:", "accounts[0].time_created: ", "is before the merchant's time_created",
		"f.yaml:15:", "transactions[1].batch_time_created: 2021-03-11T00:00:00.000Z is after the day of its deposit, 2021-03-10",
		"f.yaml:17:", "disputes[0].stage_time_created: ", "is before its time_created, ",
		"f.yaml:18:", "disputes[1].time_to_respond_by: ", "is before its time_created, when it was staged, ",
		"f.yaml:20:", "disputes[3].time_to_respond_by: ", "is before its stage_time_created, ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	for _, notWanted := range []string{"accounts[1]", "transactions[0].batch", "disputes[2]"} {
		if strings.Contains(got, notWanted) {
			t.Errorf("problems name %s, which is in order:\n%s", notWanted, got)
		}
	}
}
