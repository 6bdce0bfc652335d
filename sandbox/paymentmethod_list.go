package sandbox

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// PaymentMethodQuery is a GET /payment-methods query, or a POST /payment-methods/search
// body: paging, order and GP's filters, each an exact match when set. Card, when its
// number is set, finds the tokens of that card (first six and last four digits, as a
// token keeps them) and expiry.
type PaymentMethodQuery struct {
	Paging
	ID                     string
	NumberLast4            string
	Reference              string
	Status                 string
	From, To               time.Time // time_created, whole days
	FromUpdated, ToUpdated time.Time // time_last_updated, whole days
	AccountID, AccountName string
	Card                   *CardInput
}

// PaymentMethodOrderings are the orders a token list offers [GP].
var PaymentMethodOrderings = []string{"TIME_CREATED"}

func (q PaymentMethodQuery) matches(p PaymentMethod) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	within := func(from, to, t time.Time) bool {
		return (from.IsZero() || !t.Before(from)) && (to.IsZero() || t.Before(to.AddDate(0, 0, 1)))
	}
	return eq(q.ID, p.ID) && eq(q.NumberLast4, p.Card.Last4) && eq(q.Reference, p.Reference) &&
		eq(q.Status, p.Status) && eq(q.AccountID, p.AccountID) && eq(q.AccountName, p.AccountName) &&
		within(q.From, q.To, p.TimeCreated) && within(q.FromUpdated, q.ToUpdated, p.TimeLastUpdated) &&
		q.cardMatches(p)
}

func (q PaymentMethodQuery) cardMatches(p PaymentMethod) bool {
	if q.Card == nil {
		return true
	}
	d := readCard(*q.Card)
	n := d.number
	return len(n) >= 10 && p.Card.First6 == n[:6] && p.Card.Last4 == n[len(n)-4:] &&
		(d.expiryMM == "" || twoDigits(d.expiryMM) == p.ExpiryMonth) &&
		(d.expiryYY == "" || twoDigits(d.expiryYY) == p.ExpiryYear)
}

// PaymentMethodPage is one page of stored card tokens, with the total that matched.
type PaymentMethodPage struct {
	Query          PaymentMethodQuery
	Total          int
	Merchant       Merchant
	PaymentMethods []PaymentMethod
}

// ListPaymentMethods lists the tokens of the merchants the caller's app acts for (of
// the partner path's merchant, when it names one). A search by card without its
// number is GP's 40005.
func (s *Service) ListPaymentMethods(c Caller, merchantID string, q PaymentMethodQuery) (PaymentMethodPage, error) {
	page := PaymentMethodPage{Query: q}
	if q.Card != nil && q.Card.Number == "" {
		return page, MissingFields(": number") // GP's spacing [GP]
	}
	err := s.store.View(func(tx Tx) error {
		if m, err := tx.Merchant(orDefault(merchantID, c.App.MerchantID)); err == nil {
			page.Merchant = m
		}
		return nil
	})
	if err != nil {
		return page, err
	}
	all, err := s.store.PaymentMethods()
	if err != nil {
		return page, err
	}
	hits := slices.DeleteFunc(all, func(p PaymentMethod) bool { return !c.Sees(p.MerchantID, merchantID) || !q.matches(p) })
	page.Total = len(hits)
	page.PaymentMethods = sortedPage(hits, func(a, b PaymentMethod) int {
		return cmp.Or(a.TimeCreated.Compare(b.TimeCreated), strings.Compare(a.ID, b.ID))
	}, q.Paging)
	return page, nil
}
