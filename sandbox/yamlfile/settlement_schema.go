package yamlfile

import (
	"fmt"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// depositDoc is a deposit as a test suite seeds it: its id, merchant, day and totals,
// and the settled transactions it paid.
type depositDoc struct {
	ID          ident          `yaml:"id,required"`
	MerchantID  ident          `yaml:"merchant_id,required"`
	TimeCreated day            `yaml:"time_created,required"`
	Currency    currency       `yaml:"currency,required"`
	Status      depositStatus  `yaml:"status"`
	Sales       totalsDoc      `yaml:"sales"`
	Refunds     totalsDoc      `yaml:"refunds"`
	Chargebacks totalsDoc      `yaml:"chargebacks"`
	Reversals   totalsDoc      `yaml:"reversals"`
	Fees        amount         `yaml:"fees"`
	BankLast4   last4          `yaml:"masked_account_number_last4"`
	Rows        []settledTxDoc `yaml:"transactions"`
}

// settledTxDoc is a transaction a deposit paid: the batch that settled it and when.
type settledTxDoc struct {
	TransactionID ident     `yaml:"transaction_id,required"`
	BatchTime     gpTime    `yaml:"batch_time_created,required"`
	ARN           arnDigits `yaml:"arn"`
}

type totalsDoc struct {
	Count  int    `yaml:"count"`
	Amount amount `yaml:"amount"`
}

// day is a date, 2021-05-03, or one some whole days from when the fixtures are read
// (now-30d), as a fixtureTime.
type day string

func (s day) check() string {
	if _, ok := s.at(time.Time{}); !ok {
		return fmt.Sprintf("must be a date like 2021-05-03, or now, now-30d (at most now+365d), got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

func (s day) at(now time.Time) (time.Time, bool) {
	if relativeTime.MatchString(string(s)) {
		t, ok := fixtureTime(s).at(now)
		return t.Truncate(24 * time.Hour), ok
	}
	t, err := time.Parse(time.DateOnly, string(s))
	return t, err == nil
}

// depositStatus is a deposit's status: FUNDED unless told.
type depositStatus string

func (s depositStatus) check() string {
	if s == "" {
		return ""
	}
	return oneOf(string(s), sandbox.DepositStatuses...)
}

// last4 is four digits.
type last4 string

func (s last4) check() string {
	if s != "" && (len(s) != 4 || !isDigits(string(s))) {
		return fmt.Sprintf("must be 4 digits, got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

// arnDigits is an acquirer reference number: up to 50 digits, or empty.
type arnDigits string

func (s arnDigits) check() string {
	if len(s) > sandbox.MaxIDLength || !isDigits(string(s)) {
		return fmt.Sprintf("must be up to %d digits, got %q", sandbox.MaxIDLength, carddata.Excerpt(string(s)))
	}
	return ""
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (t totalsDoc) toDomain() sandbox.Totals {
	return sandbox.Totals{Count: t.Count, Amount: orZero(string(t.Amount))}
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func (d depositDoc) toDomain(now time.Time) sandbox.Deposit {
	day, _ := d.TimeCreated.at(now)
	dep := sandbox.Deposit{
		ID: string(d.ID), Holder: sandbox.Holder{MerchantID: string(d.MerchantID)}, TimeCreated: day,
		Status: string(d.Status), Currency: string(d.Currency), Sales: d.Sales.toDomain(), Refunds: d.Refunds.toDomain(),
		Chargebacks: d.Chargebacks.toDomain(), Reversals: d.Reversals.toDomain(), Discounts: sandbox.Totals{Amount: "0"},
		Fees: orZero(string(d.Fees)), BankLast4: string(d.BankLast4),
	}
	if dep.Status == "" {
		dep.Status = sandbox.DepositFunded
	}
	for _, r := range d.Rows {
		at, _ := r.BatchTime.time()
		arn := string(r.ARN)
		if arn == "" {
			arn = sandbox.ARNOf(string(r.TransactionID))
		}
		dep.Rows = append(dep.Rows, sandbox.SettlementRow{TransactionID: string(r.TransactionID), BatchTime: at, ARN: arn})
	}
	return dep
}

// disputeDoc is a dispute as a test suite seeds it. Its transaction's members are
// read from the transaction it names when loaded; frozen makes it answer every
// action without changing, as GP's sandbox answers its fixed cases.
type disputeDoc struct {
	ID                ident         `yaml:"id,required"`
	MerchantID        ident         `yaml:"merchant_id,required"`
	TransactionID     ident         `yaml:"transaction_id"`
	TimeCreated       fixtureTime   `yaml:"time_created,required"`
	Stage             disputeStage  `yaml:"stage,required"`
	Status            disputeStatus `yaml:"status,required"`
	StageTimeCreated  fixtureTime   `yaml:"stage_time_created"`
	TimeToRespondBy   fixtureTime   `yaml:"time_to_respond_by"`
	Amount            amount        `yaml:"amount,required"`
	Currency          currency      `yaml:"currency,required"`
	ReasonCode        string        `yaml:"reason_code"`
	ReasonDescription string        `yaml:"reason_description"`
	Result            string        `yaml:"result"`
	Brand             string        `yaml:"brand"`
	ARN               arnDigits     `yaml:"arn"`
	DepositID         ident         `yaml:"deposit_id"`
	Funding           funding       `yaml:"last_adjustment_funding"`
	Frozen            bool          `yaml:"frozen"`
	Documents         []documentDoc `yaml:"documents"`
}

// documentDoc is a document a dispute holds: kept by hash and size, as a challenge's.
type documentDoc struct {
	ID     ident  `yaml:"id,required"`
	Type   string `yaml:"type"`
	SHA256 string `yaml:"sha256"`
	Size   int    `yaml:"size"`
}

// disputeStage is one of GP's dispute stages.
type disputeStage string

func (s disputeStage) check() string { return oneOf(string(s), sandbox.DisputeStages...) }

// disputeStatus is a dispute's status: WITH_MERCHANT, UNDER_REVIEW or CLOSED.
type disputeStatus string

func (s disputeStatus) check() string {
	return oneOf(string(s), sandbox.DisputeWithMerchant, sandbox.DisputeUnderReview, sandbox.DisputeClosed)
}

// funding is the way a dispute's funds went: DEBIT or CREDIT.
type funding string

func (s funding) check() string {
	if s == "" {
		return ""
	}
	return oneOf(string(s), "DEBIT", "CREDIT")
}

func (d disputeDoc) toDomain(now time.Time) sandbox.Dispute {
	created, _ := d.TimeCreated.at(now)
	stageTime, ok := d.StageTimeCreated.at(now)
	if !ok {
		stageTime = created
	}
	respondBy, _ := d.TimeToRespondBy.at(now)
	dis := sandbox.Dispute{
		ID: string(d.ID), Holder: sandbox.Holder{MerchantID: string(d.MerchantID)}, TimeCreated: created,
		Status:     string(d.Status),
		StatusTime: stageTime, Stage: string(d.Stage), StageTime: stageTime, Amount: string(d.Amount),
		Currency: string(d.Currency), ReasonCode: d.ReasonCode, ReasonDescription: d.ReasonDescription,
		Result: d.Result, RespondBy: respondBy, DepositID: string(d.DepositID), Frozen: d.Frozen,
		Transaction: sandbox.DisputedPayment{ID: string(d.TransactionID), Brand: d.Brand, ARN: string(d.ARN)},
		Action:      sandbox.Action{ID: "ACT_" + string(d.ID), Type: "DISPUTE_SINGLE", TimeCreated: sandbox.FormatTime(created), ResultCode: "SUCCESS"},
	}
	if dis.Result == "" {
		dis.Result = sandbox.ResultPending
	}
	if d.Funding != "" {
		dis.LastAdjustment = sandbox.DisputeFunds{Amount: dis.Amount, Currency: dis.Currency, Funding: string(d.Funding), Time: stageTime}
	}
	for _, doc := range d.Documents {
		dis.Documents = append(dis.Documents, sandbox.DisputeDocument{ID: string(doc.ID), Type: doc.Type, SHA256: doc.SHA256, Size: doc.Size})
	}
	return dis
}

// collectSettlement adds a document's deposits and disputes.
func (l *fixturesLoader) collectSettlement(d *decoder, doc *fixturesDoc) {
	for i := range doc.Deposits {
		dp := &doc.Deposits[i]
		l.define(d, "deposit", "id", string(dp.ID), &dp.ID)
		l.refer(d, "merchant", string(dp.MerchantID), &dp.MerchantID)
		deposit := dp.toDomain(l.now)
		for j := range dp.Rows {
			row := &dp.Rows[j]
			l.refer(d, "transaction", string(row.TransactionID), &row.TransactionID)
			batch := deposit.Rows[j].BatchTime
			if !batch.IsZero() && !deposit.TimeCreated.IsZero() && !batch.Before(deposit.TimeCreated.AddDate(0, 0, 1)) {
				l.problems = append(l.problems, l.site(d, &row.BatchTime).problemf(
					"%s is after the day of its deposit, %s: a deposit pays batches closed by then",
					sandbox.FormatTime(batch), deposit.TimeCreated.Format(time.DateOnly)))
			}
		}
		l.fixtures.Deposits = append(l.fixtures.Deposits, deposit)
	}
	for i := range doc.Disputes {
		ds := &doc.Disputes[i]
		l.define(d, "dispute", "id", string(ds.ID), &ds.ID)
		l.refer(d, "merchant", string(ds.MerchantID), &ds.MerchantID)
		l.refer(d, "transaction", string(ds.TransactionID), &ds.TransactionID)
		l.refer(d, "deposit", string(ds.DepositID), &ds.DepositID)
		dispute := ds.toDomain(l.now) // staged when opened, unless told
		l.notBefore(d, &ds.StageTimeCreated, dispute.StageTime, dispute.TimeCreated, "its time_created")
		stage := "its stage_time_created"
		if ds.StageTimeCreated == "" {
			stage = "its time_created, when it was staged"
		}
		l.notBefore(d, &ds.TimeToRespondBy, dispute.RespondBy, dispute.StageTime, stage)
		l.fixtures.Disputes = append(l.fixtures.Disputes, dispute)
	}
}
