package sandbox

import (
	"slices"
	"strings"
	"time"
)

// GetTransaction returns one transaction the caller's app may see: another merchant's
// is as unknown as a missing one, 40118 naming the path it was asked at (GP's
// /ucp/transactions/{id}).
func (s *Service) GetTransaction(c Caller, merchantID, id, path string) (Transaction, error) {
	var t Transaction
	err := s.store.View(func(tx Tx) error {
		var err error
		if t, err = tx.Transaction(id); err != nil {
			return notFoundAs(err, NotFoundTransactionDetail(id, path))
		}
		if !c.App.ActsFor(t.MerchantID) || (merchantID != "" && merchantID != t.MerchantID) {
			return NotFoundTransactionDetail(id, path)
		}
		return nil
	})
	return t, err
}

// TransactionQuery is GET /transactions: paging, ordering and the filters the SDKs'
// reporting builders send. Empty filters match everything.
type TransactionQuery struct {
	MerchantID        string // the partner path's merchant
	Page, PageSize    int
	OrderBy, Order    string // TIME_CREATED, ID, STATUS, TYPE; ASC or DESC
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
// [GP].
var ReportingPaymentMethods = []string{"CARD", "DIGITAL WALLET", "APM", "BANK TRANSFER", "BANK PAYMENT", "BNPL"}

// TransactionPage is one page of a transaction list.
type TransactionPage struct {
	Query        TransactionQuery
	Merchant     Merchant // the caller's merchant (or the partner path's)
	Account      Account  // the caller's transaction-processing account
	Total        int
	Transactions []Transaction
}

// Transaction list orderings [GP].
var TransactionOrderings = []string{"TIME_CREATED", "ID", "STATUS", "TYPE", "DEPOSIT_ID"}

// ListTransactions answers one page of the transactions the caller's app may see,
// filtered and ordered. An app sees its merchants' transactions only.
func (s *Service) ListTransactions(c Caller, q TransactionQuery) (TransactionPage, error) {
	page := TransactionPage{Query: q}
	err := s.store.View(func(tx Tx) error {
		if q.AccountName != "" && !slices.ContainsFunc(c.App.Accounts, func(a Account) bool { return a.Name == q.AccountName }) {
			return AccountNotMatched()
		}
		merchantID := orDefault(q.MerchantID, c.App.MerchantID)
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
		all, err := tx.TransactionPage("", -1)
		if err != nil {
			return err
		}
		var hits []Transaction
		for _, t := range all {
			if c.App.ActsFor(t.MerchantID) && (q.MerchantID == "" || t.MerchantID == q.MerchantID) && q.matches(t) {
				hits = append(hits, t)
			}
		}
		sortTransactions(hits, q.OrderBy, q.Order)
		page.Total = len(hits)
		start := min((q.Page-1)*q.PageSize, len(hits))
		page.Transactions = hits[start:min(start+q.PageSize, len(hits))]
		return nil
	})
	return page, err
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

// sortTransactions orders a list; ties keep the order of ids, so pages are stable.
func sortTransactions(list []Transaction, orderBy, order string) {
	key := func(t Transaction) string {
		switch orderBy {
		case "ID":
			return t.ID
		case "STATUS":
			return t.Status
		case "TYPE":
			return t.Type
		case "DEPOSIT_ID":
			return "" // no deposits in the sandbox
		}
		return FormatTime(t.TimeCreated)
	}
	slices.SortStableFunc(list, func(a, b Transaction) int {
		c := strings.Compare(key(a), key(b))
		if c == 0 {
			c = strings.Compare(a.ID, b.ID)
		}
		if order == "DESC" {
			return -c
		}
		return c
	})
}
