package sandbox

import (
	"slices"
	"time"
)

// GetTransaction returns one transaction the caller's app may see: another merchant's
// is as unknown as a missing one, 40118 naming the path it was asked at (GP's
// /ucp/transactions/{id}).
func (s *Service) GetTransaction(c Caller, merchantID, id, path string) (Transaction, error) {
	var t Transaction
	err := s.store.View(func(tx Tx) error {
		var err error
		t, err = visible(c, merchantID, id, tx.Transaction, func(id string) *Error { return NotFoundTransactionDetail(id, path) })
		return err
	})
	return t, err
}

// TransactionQuery is GET /transactions: paging, ordering and the filters the SDKs'
// reporting builders send. Empty filters match everything.
type TransactionQuery struct {
	MerchantID string // the partner path's merchant
	Paging
	ID, Type, Channel string
	Status, Amount    string
	Currency, Country string
	BatchID           string
	EntryMode         string
	Reference         string
	AccountName       string // one of the app's accounts, else 40003
	Brand             string
	BrandReference    string
	Authcode          string
	NumberFirst6      string
	NumberLast4       string
	Name              string // the cardholder's, payment_method.name
	// TokenFirst6 and TokenLast4 are a digital wallet token's digits; the sandbox takes
	// no wallet payments, so either matches nothing [SB].
	TokenFirst6, TokenLast4 string
	PaymentMethod           string    // CARD matches every sandbox transaction, the other names none
	From, To                time.Time // whole days, UTC; zero: open
}

// ReportingBrands are the brand filter's values [GP].
var ReportingBrands = []string{"VISA", "MASTERCARD", "AMEX", "DINERS", "DISCOVER", "JCB", "CUP"}

// ReportingPaymentMethods are the payment_method filter's values as the SDKs send them
// [GP]: a bank transfer is BANK TRANSFER from Java and older .NET, BANK_TRANSFER from
// PHP and .NET 11, a bank payment BANK PAYMENT or .NET's BANK_PAYMENT; .NET also has
// BLIK. Their tests ask for every name they know and expect a list for each (PHP
// testReportFindTransactionsByPaymentMethod, .NET ReportFindTransactionsPaged_By_PaymentMethod).
var ReportingPaymentMethods = []string{"CARD", "DIGITAL WALLET", "APM", "BANK TRANSFER", "BANK_TRANSFER", "BANK PAYMENT", "BANK_PAYMENT", "BNPL", "BLIK"}

// TransactionPage is one page of a transaction list.
type TransactionPage struct {
	Query        TransactionQuery
	Merchant     Merchant // the caller's merchant (or the partner path's)
	Account      Account  // the caller's transaction-processing account
	Total        int
	Transactions []Transaction
	Action       Action // the list's own action, TRANSACTION_LIST [GP]
}

// Transaction list orderings [GP].
var TransactionOrderings = []string{"TIME_CREATED", "ID", "STATUS", "TYPE", "DEPOSIT_ID"}

// listChunk is how many transactions a list reads in one View: about a millisecond
// of decoding, so that a list never holds an adjustment back longer than that.
const listChunk = 256

// ListTransactions answers one page of the transactions the caller's app may see,
// filtered and ordered. An app sees its merchants' transactions only. The page is
// read in the list's order from the store's index, a chunk per View, and the walk
// stops once the page is full and its total known: without filters the total is the
// merchants' counts, which the store keeps without reading a transaction; with
// filters the walk reads on to the end, still a chunk at a time.
func (s *Service) ListTransactions(c Caller, q TransactionQuery) (TransactionPage, error) {
	page := TransactionPage{Query: q, Transactions: []Transaction{}}
	merchantID := orDefault(q.MerchantID, c.App.MerchantID)
	var counted bool
	err := s.store.View(func(tx Tx) error {
		if q.AccountName != "" && !slices.ContainsFunc(c.App.Accounts, func(a Account) bool { return a.Name == q.AccountName }) {
			return AccountNotMatched()
		}
		m, err := tx.Merchant(merchantID)
		if err != nil || !c.App.ActsFor(merchantID) {
			return notFoundAs(err, MerchantNotConfigured(accountFor(c.App, PermGetList), merchantID))
		}
		page.Merchant = m
		for _, a := range c.App.Accounts {
			if hasPermission(a, PermGetList) {
				page.Account = a
				break
			}
		}
		page.Total, counted, err = countUnfiltered(tx, c.App, q)
		return err
	})
	if err != nil {
		return page, err
	}
	skip := (q.Page - 1) * q.PageSize
	matched := 0
	visit := func(t Transaction) bool {
		if !t.Listed() || !c.Sees(t.MerchantID, q.MerchantID) || !q.matches(t) {
			return true
		}
		matched++
		if matched > skip && len(page.Transactions) < q.PageSize {
			page.Transactions = append(page.Transactions, t)
		}
		return !counted || len(page.Transactions) < q.PageSize
	}
	var last *Transaction
	for end := false; !end; {
		err := s.store.View(func(tx Tx) error {
			var err error
			last, end, err = tx.WalkTransactions(q.OrderBy, q.Order == "DESC", last, listChunk, visit)
			return err
		})
		if err != nil {
			return page, err
		}
		if counted && len(page.Transactions) == q.PageSize {
			break
		}
	}
	if !counted {
		page.Total = matched
	}
	page.Action = s.ReadAction(c, ActionTransactionList)
	return page, nil
}

// countUnfiltered counts the transactions a query without filters lists, from the
// store's counts; it reports false, counting nothing, when the query has filters.
func countUnfiltered(tx Tx, app App, q TransactionQuery) (int, bool, error) {
	if q != (TransactionQuery{MerchantID: q.MerchantID, Paging: q.Paging}) {
		return 0, false, nil
	}
	merchants := app.Merchants
	if q.MerchantID != "" {
		merchants = []string{q.MerchantID}
	}
	total := 0
	for _, m := range slices.Compact(slices.Sorted(slices.Values(merchants))) {
		n, err := tx.CountTransactions(m)
		if err != nil {
			return 0, false, err
		}
		total += n
	}
	return total, true, nil
}

func (q TransactionQuery) matches(t Transaction) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	return eq(q.ID, t.ID) && eq(q.Type, t.Type) && eq(q.Channel, t.Channel) && eq(q.Status, t.Status) &&
		eq(NormalizeAmount(q.Amount), t.Amount) && eq(q.Currency, t.Currency) && eq(q.Country, t.Country) &&
		eq(q.BatchID, t.BatchID) && eq(q.EntryMode, t.PaymentMethod.EntryMode) && eq(q.Reference, t.Reference) &&
		eq(q.AccountName, t.AccountName) && eq(q.Brand, t.Card.Brand) &&
		eq(q.BrandReference, t.PaymentMethod.Card.BrandReference) && eq(q.Authcode, t.PaymentMethod.Card.Authcode) &&
		eq(q.NumberFirst6, t.Card.First6) && eq(q.NumberLast4, t.Card.Last4) && eq(q.Name, t.Card.Name) &&
		q.TokenFirst6 == "" && q.TokenLast4 == "" && eq(q.PaymentMethod, "CARD") &&
		(q.From.IsZero() || !t.TimeCreated.Before(q.From)) &&
		(q.To.IsZero() || t.TimeCreated.Before(q.To.AddDate(0, 0, 1)))
}
