package sandbox

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// The settlement and dispute operations.
const (
	OpSettlementTransactionList Operation = "settlement_transaction_list" // GET /settlement/transactions
	OpDepositList               Operation = "deposit_list"                // GET /settlement/deposits
	OpDepositDetail             Operation = "deposit_detail"              // GET /settlement/deposits/{id}
	OpDisputeList               Operation = "dispute_list"                // GET /disputes
	OpDisputeDetail             Operation = "dispute_detail"              // GET /disputes/{id}
	OpDisputeAcceptance         Operation = "dispute_acceptance"          // POST /disputes/{id}/acceptance
	OpDisputeChallenge          Operation = "dispute_challenge"           // POST /disputes/{id}/challenge
	OpDisputeDocument           Operation = "dispute_document"            // GET /disputes/{id}/documents/{doc}
	OpSettlementDisputeList     Operation = "settlement_dispute_list"     // GET /settlement/disputes
	OpSettlementDisputeDetail   Operation = "settlement_dispute_detail"   // GET /settlement/disputes/{id}
)

// SettlementOperations are the back office's settlement, deposit and dispute
// operations, in the order the wire contract presents them.
var SettlementOperations = []Operation{
	OpSettlementTransactionList, OpDepositList, OpDepositDetail,
	OpDisputeList, OpDisputeDetail, OpDisputeAcceptance, OpDisputeChallenge, OpDisputeDocument,
	OpSettlementDisputeList, OpSettlementDisputeDetail,
}

// DefaultDepositDelay is how long after a batch closes its deposit is made: the
// next day [SB].
const DefaultDepositDelay = 24 * time.Hour

// DepositFunded is the status of every deposit and of every settled transaction:
// the sandbox funds what it settles [SB].
const DepositFunded = "FUNDED"

// DepositStatuses are the statuses a deposit may have, as GP writes them: the SDKs'
// DepositStatus (Java, PHP, Node send SPLIT_FUNDING as SPLIT FUNDING's filter). A
// fixture's deposit takes one, and a list filters by one.
var DepositStatuses = []string{DepositFunded, "SPLIT FUNDING", "DELAYED", "RESERVED", "IRREG", "RELEASED"}

// SetDepositDelay sets how long after a batch closes its deposit is made:
// DefaultDepositDelay when d is zero, the same moment when d is negative.
func (s *Service) SetDepositDelay(d time.Duration) { s.deposits.delay.Store(int64(d)) }

// depositSettings are the Service's settlement settings.
type depositSettings struct{ delay atomic.Int64 }

func (s *Service) depositDelay() time.Duration {
	switch d := time.Duration(s.deposits.delay.Load()); {
	case d == 0:
		return DefaultDepositDelay
	case d < 0:
		return 0
	default:
		return d
	}
}

// Deposit is what one merchant was paid in one currency on one day: the net of the
// batches closed the day before (by default) and of the disputes' funds moved then.
// It is seen from its day on (TimeCreated, 00:00 UTC), with its settlement rows.
type Deposit struct {
	ID string `json:"id"`
	Holder
	TimeCreated time.Time       `json:"time_created"` // the deposit's day, 00:00 UTC
	Status      string          `json:"status"`
	Currency    string          `json:"currency"`
	Sales       Totals          `json:"sales"`
	Refunds     Totals          `json:"refunds"`
	Chargebacks Totals          `json:"chargebacks"`
	Reversals   Totals          `json:"reversals"`
	Discounts   Totals          `json:"discounts"`
	Fees        string          `json:"fees"`
	BankLast4   string          `json:"bank_last4,omitempty"` // masked_account_number_last4
	Rows        []SettlementRow `json:"rows,omitempty"`
	Disputes    []string        `json:"disputes,omitempty"` // the disputes whose funds it moved
}

// SettlementRow is one transaction as the settlement report shows it: the batch that
// settled it, its acquirer reference number and the deposit that paid it.
type SettlementRow struct {
	TransactionID string    `json:"transaction_id"`
	BatchID       string    `json:"batch_id"`
	BatchTime     time.Time `json:"batch_time"`
	ARN           string    `json:"arn"`
}

func (d Deposit) merchant() string { return d.MerchantID }

// Amount is what the deposit pays: sales less refunds, fees, discounts and
// chargebacks, plus the chargebacks reversed. FundingType says which way it goes.
func (d Deposit) Amount() string {
	n := bigAmount(d.Sales.Amount)
	for _, less := range []string{d.Refunds.Amount, d.Fees, d.Discounts.Amount, d.Chargebacks.Amount} {
		n.Sub(n, bigAmount(less))
	}
	return n.Add(n, bigAmount(d.Reversals.Amount)).String()
}

// FundingType is CREDIT when the deposit pays the merchant, DEBIT when it takes.
func (d Deposit) FundingType() string {
	if bigAmount(d.Amount()).Sign() < 0 {
		return "DEBIT"
	}
	return "CREDIT"
}

// Seen reports whether the deposit's day has come on the sandbox clock.
func (d Deposit) Seen(now time.Time) bool { return !now.Before(d.TimeCreated) }

// depositDay is the day a deposit made for something settled at at is paid.
func (s *Service) depositDay(at time.Time) time.Time {
	at = at.Add(s.depositDelay()).UTC()
	return time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
}

func depositDayMeta(merchantID, currency string, day time.Time) string {
	return "deposit_day:" + merchantID + ":" + currency + ":" + day.Format(time.DateOnly)
}

const depositSeqMeta = "deposit_seq"

// depositFor returns h's deposit in currency for the day something settled at at is
// paid, a new one when there is none yet.
func (s *Service) depositFor(tx Tx, h Holder, currency string, at time.Time) (Deposit, error) {
	day := s.depositDay(at)
	key := depositDayMeta(h.MerchantID, currency, day)
	if id, err := tx.Meta(key); err == nil && id != "" {
		return tx.Deposit(id)
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return Deposit{}, err
	}
	id, err := newDepositID(tx)
	if err != nil {
		return Deposit{}, err
	}
	m, err := tx.Merchant(h.MerchantID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Deposit{}, err
	}
	d := Deposit{
		ID: id, Holder: h, TimeCreated: day, Status: DepositFunded, Currency: currency,
		Sales: zeroCount(), Refunds: zeroCount(), Chargebacks: zeroCount(), Reversals: zeroCount(),
		Discounts: zeroCount(), Fees: "0", BankLast4: payoutLast4(m),
	}
	return d, tx.PutMeta(key, id)
}

// payoutLast4 is the last four digits of the bank account a merchant is paid into:
// that of its primary payout method, else of its first bank account; "" for a
// merchant boarded with none [SB].
func payoutLast4(m Merchant) string {
	var bank *Bank
	if m.Boarding != nil {
		for _, p := range m.Boarding.PaymentMethods {
			if p.Bank != nil && (bank == nil || slices.Contains(p.Functions, "PRIMARY_PAYOUT")) {
				bank = p.Bank
			}
		}
	}
	if bank == nil {
		return ""
	}
	n := bank.MaskedAccountNumber
	return n[max(0, len(n)-4):]
}

func zeroCount() Totals { return Totals{Amount: "0"} }

// newDepositID numbers the next deposit DEP_<10 digits>, passing over ids taken by
// fixtures.
func newDepositID(tx Tx) (string, error) {
	seq := 0
	if v, err := tx.Meta(depositSeqMeta); err == nil {
		seq, _ = strconv.Atoi(v)
	} else if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	for {
		seq++
		id := fmt.Sprintf("DEP_%010d", 1000000000+seq)
		if _, err := tx.Deposit(id); errors.Is(err, ErrNotFound) {
			return id, tx.PutMeta(depositSeqMeta, strconv.Itoa(seq))
		} else if err != nil {
			return "", err
		}
	}
}

// fundBatch puts a closed batch's captured transactions into its merchant's deposit:
// a settlement row each, and the batch's sales and refunds in the deposit's totals.
// Each sale on a dispute test card is disputed on the day its deposit is paid; a
// chargeback's funds move a deposit delay later, as a batch's do.
func (s *Service) fundBatch(tx Tx, b *Batch, members []Transaction, at time.Time) error {
	var settled []Transaction
	for _, t := range members {
		if t.Status == StatusCaptured && t.BatchID == b.ID {
			settled = append(settled, t)
		}
	}
	if len(settled) == 0 {
		return nil
	}
	d, err := s.depositFor(tx, b.Holder, b.Currency, at)
	if err != nil {
		return err
	}
	for _, t := range settled {
		d.Rows = append(d.Rows, SettlementRow{TransactionID: t.ID, BatchID: b.ID, BatchTime: at, ARN: ARNOf(t.ID)})
		counted := &d.Sales
		if t.Type == TypeRefund {
			counted = &d.Refunds
		}
		addCount(counted, t.SettledAmount())
	}
	if err := tx.PutDeposit(d); err != nil {
		return err
	}
	for _, t := range settled {
		if err := s.raiseForTestCard(tx, t, d.TimeCreated); err != nil {
			return err
		}
	}
	return nil
}

// addCount counts one transaction of amount in t.
func addCount(t *Totals, amount string) {
	t.Count++
	t.Amount = add(t.Amount, amount)
}

// ARNOf is the acquirer reference number of a settled transaction: 23 digits drawn
// from its id, so that the same transaction always has the same one [SB].
func ARNOf(transactionID string) string {
	sum := sha256.Sum256([]byte("arn:" + transactionID))
	n := new(big.Int).SetBytes(sum[:])
	return "7" + fmt.Sprintf("%022s", n.Mod(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(22), nil)).String())
}

// SettledTransaction is a settlement row with its transaction and deposit.
type SettledTransaction struct {
	Transaction
	Row     SettlementRow
	Deposit Deposit
}

// SettlementQuery is GET /settlement/transactions: paging, ordering and the filters
// the SDKs send. Empty filters match everything; dates are whole UTC days.
type SettlementQuery struct {
	MerchantID string // the partner path's merchant
	Paging
	NumberFirst6, NumberLast4 string
	DepositStatus, Brand, ARN string
	BrandReference, Authcode  string
	Reference, Status         string
	DepositID                 string
	MID, Hierarchy            string // system.mid (the merchant id), system.hierarchy
	From, To                  time.Time
	FromDeposit, ToDeposit    time.Time
	FromBatch, ToBatch        time.Time
}

// SettlementOrderings are the orders GET /settlement/transactions takes [GP].
var SettlementOrderings = []string{"TIME_CREATED", "STATUS", "TYPE", "DEPOSIT_ID"}

// SettlementPage is one page of settled transactions.
type SettlementPage struct {
	Query        SettlementQuery
	Merchant     Merchant
	Account      Account
	Total        int
	Transactions []SettledTransaction
}

// inDays reports whether t falls within the whole UTC days from..to (zero: open).
func inDays(t, from, to time.Time) bool {
	return (from.IsZero() || !t.Before(from)) && (to.IsZero() || t.Before(to.AddDate(0, 0, 1)))
}

func (q SettlementQuery) matches(r SettledTransaction) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	t := r.Transaction
	return eq(q.NumberFirst6, t.Card.First6) && eq(q.NumberLast4, t.Card.Last4) &&
		eq(q.DepositStatus, r.Deposit.Status) && eq(q.Brand, t.Card.Brand) && eq(q.ARN, r.Row.ARN) &&
		eq(q.BrandReference, t.PaymentMethod.Card.BrandReference) && eq(q.Authcode, t.PaymentMethod.Card.Authcode) &&
		eq(q.Reference, t.Reference) && eq(q.Status, DepositFunded) && eq(q.DepositID, r.Deposit.ID) &&
		eq(q.MID, t.MerchantID) && q.Hierarchy == "" &&
		inDays(t.TimeCreated, q.From, q.To) && inDays(r.Deposit.TimeCreated, q.FromDeposit, q.ToDeposit) &&
		inDays(r.Row.BatchTime, q.FromBatch, q.ToBatch)
}

// listingContext reads the merchant and the reporting account a settlement list
// answers for: the partner path's merchant or the app's own.
func listingContext(tx Tx, c Caller, merchantID string) (Merchant, Account, error) {
	merchantID = orDefault(merchantID, c.App.MerchantID)
	m, err := tx.Merchant(merchantID)
	if err != nil || !c.App.ActsFor(merchantID) {
		return Merchant{}, Account{}, notFoundAs(err, MerchantNotConfigured(accountFor(c.App, PermGetList), merchantID))
	}
	var acct Account
	for _, a := range c.App.Accounts {
		if hasPermission(a, PermGetList) {
			acct = a
			break
		}
	}
	return m, acct, nil
}

// seenDeposits lists the deposits the caller may see whose day has come, in id order.
func (s *Service) seenDeposits(tx Tx, c Caller, merchantID string, now time.Time) ([]Deposit, error) {
	all, err := tx.Deposits()
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(d Deposit) bool {
		return !d.Seen(now) || !c.Sees(d.MerchantID, merchantID)
	}), nil
}

// ListSettlementTransactions answers a page of the settled transactions the caller
// may see: those of the deposits whose day has come.
func (s *Service) ListSettlementTransactions(c Caller, q SettlementQuery) (SettlementPage, error) {
	page := SettlementPage{Query: q, Transactions: []SettledTransaction{}}
	var rows []SettledTransaction
	err := s.store.View(func(tx Tx) error {
		var err error
		if page.Merchant, page.Account, err = listingContext(tx, c, q.MerchantID); err != nil {
			return err
		}
		deposits, err := s.seenDeposits(tx, c, q.MerchantID, s.clock.Now())
		if err != nil {
			return err
		}
		for _, d := range deposits {
			for _, row := range d.Rows {
				t, err := tx.Transaction(row.TransactionID)
				if errors.Is(err, ErrNotFound) {
					continue
				} else if err != nil {
					return err
				}
				r := SettledTransaction{Transaction: t, Row: row, Deposit: d}
				if q.matches(r) {
					rows = append(rows, r)
				}
			}
		}
		return nil
	})
	if err != nil {
		return page, err
	}
	page.Total = len(rows)
	page.Transactions = sortedPage(rows, func(a, b SettledTransaction) int { return compareSettled(q.OrderBy, a, b) }, q.Paging)
	return page, nil
}

func compareSettled(orderBy string, a, b SettledTransaction) int {
	var n int
	switch orderBy {
	case "STATUS":
		n = cmp.Compare(a.Deposit.Status, b.Deposit.Status)
	case "TYPE":
		n = cmp.Compare(a.Type, b.Type)
	case "DEPOSIT_ID":
		n = cmp.Compare(a.Deposit.ID, b.Deposit.ID)
	}
	if n == 0 {
		n = a.TimeCreated.Compare(b.TimeCreated)
	}
	return cmp.Or(n, cmp.Compare(a.Transaction.ID, b.Transaction.ID))
}

// DepositQuery is GET /settlement/deposits.
type DepositQuery struct {
	MerchantID string
	Paging
	ID, Status     string
	Amount         string
	BankLast4      string
	MID, Hierarchy string
	From, To       time.Time
}

// DepositOrderings are the orders GET /settlement/deposits takes [GP].
var DepositOrderings = []string{"TIME_CREATED", "STATUS", "TYPE", "DEPOSIT_ID"}

// DepositPage is one page of deposits.
type DepositPage struct {
	Query    DepositQuery
	Merchant Merchant
	Account  Account
	Total    int
	Deposits []Deposit
}

func (q DepositQuery) matches(d Deposit) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	return eq(q.ID, d.ID) && eq(q.Status, d.Status) && eq(NormalizeAmount(q.Amount), d.Amount()) &&
		eq(q.BankLast4, d.BankLast4) && eq(q.MID, d.MerchantID) && q.Hierarchy == "" &&
		inDays(d.TimeCreated, q.From, q.To)
}

// ListDeposits answers a page of the deposits the caller may see whose day has come.
func (s *Service) ListDeposits(c Caller, q DepositQuery) (DepositPage, error) {
	page := DepositPage{Query: q}
	var all []Deposit
	err := s.store.View(func(tx Tx) error {
		var err error
		if page.Merchant, page.Account, err = listingContext(tx, c, q.MerchantID); err != nil {
			return err
		}
		all, err = s.seenDeposits(tx, c, q.MerchantID, s.clock.Now())
		return err
	})
	if err != nil {
		return page, err
	}
	all = slices.DeleteFunc(all, func(d Deposit) bool { return !q.matches(d) })
	page.Total = len(all)
	page.Deposits = sortedPage(all, func(a, b Deposit) int {
		var n int
		switch q.OrderBy {
		case "STATUS":
			n = cmp.Compare(a.Status, b.Status)
		case "TYPE":
			n = cmp.Compare(a.FundingType(), b.FundingType())
		case "DEPOSIT_ID":
			n = cmp.Compare(a.ID, b.ID)
		}
		return cmp.Or(n, a.TimeCreated.Compare(b.TimeCreated), cmp.Compare(a.ID, b.ID))
	}, q.Paging)
	return page, nil
}

// GetDeposit reads one deposit the caller may see whose day has come; any other is
// GP's 40118 naming the path.
func (s *Service) GetDeposit(c Caller, merchantID, id, path string) (Deposit, error) {
	var d Deposit
	err := s.store.View(func(tx Tx) error {
		var err error
		d, err = visible(c, merchantID, id, tx.Deposit, func(id string) *Error { return NotFoundDeposit(id, path) })
		if err == nil && !d.Seen(s.clock.Now()) {
			return NotFoundDeposit(id, path)
		}
		return err
	})
	return d, err
}

// settlementTx is the store's part for deposits and disputes. Listings are in id
// order; the sandbox holds few of either.
type settlementTx interface {
	Deposit(id string) (Deposit, error)
	PutDeposit(Deposit) error
	Deposits() ([]Deposit, error)
	Dispute(id string) (Dispute, error)
	PutDispute(Dispute) error
	Disputes() ([]Dispute, error)
}
