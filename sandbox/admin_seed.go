package sandbox

import (
	"errors"
	"time"
)

// defaultMerchantMeta records the first merchant of the fixtures: the merchant of a
// seeded transaction that names none.
const defaultMerchantMeta = "default_merchant"

func putDefaultMerchant(tx Tx, f Fixtures) error {
	if len(f.Merchants) == 0 {
		return nil
	}
	return tx.PutMeta(defaultMerchantMeta, f.Merchants[0].ID)
}

// currencyCountry is the country of a merchant whose pricing profile bills in the
// currency, for seeded transactions that give neither [SB].
var currencyCountry = map[string]string{
	"USD": "US", "CAD": "CA", "GBP": "GB", "AUD": "AU", "NZD": "NZ", "MXN": "MX",
}

// SeedTransaction creates or replaces a transaction for a test, as a fixture would
// have it, giving every field left zero its default: a generated TRN_ id, the first
// merchant of the fixtures, the sandbox time, type SALE, status CAPTURED, amount 0,
// the currency of the merchant's pricing profile (USD without one) and its country,
// an approved payment result, and, for a captured transaction, the merchant's open
// batch (a new BAT_ batch when none is open). A replaced transaction starts with no
// adjustment history. Its card members are masked as a fixture's are
// (withCardMembersMasked); every other member is kept as sent.
func (s *Service) SeedTransaction(t Transaction) (Transaction, error) {
	if t.ID != "" {
		if problem := IDProblem(t.ID); problem != "" {
			return Transaction{}, InvalidDocument("id: " + problem)
		}
	}
	t = t.withCardMembersMasked()
	err := s.store.Update(func(tx Tx) error {
		now := s.clock.Now()
		if err := s.seedDefaults(tx, &t, now); err != nil {
			return err
		}
		if err := tx.DeleteAdjustments(t.ID); err != nil {
			return err
		}
		if len(t.Scenarios) > 0 {
			if err := tx.PutMeta(bindingsMeta, "yes"); err != nil {
				return err
			}
		}
		if err := s.seedBatch(tx, &t, now); err != nil {
			return err
		}
		return tx.PutTransaction(t)
	})
	if err == nil && len(t.Scenarios) > 0 {
		s.bound.Store(true)
	}
	return t, err
}

// seedBatch puts a seeded transaction into its batch as a capture joins one: a
// CAPTURED one without a batch_id joins its merchant account's open batch; one that
// names a batch becomes its member, so that the batch's close counts it and marks it,
// and is in a closed batch when that batch is closed already. A replaced transaction
// leaves the batch it was in.
func (s *Service) seedBatch(tx Tx, t *Transaction, now time.Time) error {
	if prev, err := tx.Transaction(t.ID); err == nil && prev.BatchID != "" && prev.BatchID != t.BatchID {
		if err := tx.DeleteBatchMember(prev.BatchID, t.ID); err != nil {
			return err
		}
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	switch {
	case t.Status == StatusCaptured && t.BatchID == "" && !t.BatchClosed:
		return s.joinBatch(tx, t, now)
	case t.BatchID == "":
		return nil
	}
	if err := batchAgrees(tx, *t); err != nil {
		return err
	}
	if err := tx.PutBatchMember(t.BatchID, t.ID); err != nil {
		return err
	}
	return s.refreshBatch(tx, t, now)
}

// batchAgrees refuses a seed that says batch_closed of a batch the sandbox keeps
// open: the transaction would be refused every change as closed, yet counted by the
// batch's close. (Seeded into a closed batch, a transaction is closed with it,
// whatever it says.)
func batchAgrees(tx Tx, t Transaction) error {
	if !t.BatchClosed {
		return nil
	}
	b, err := tx.Batch(t.BatchID)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil // a batch only the seeds name: as they say
	case err != nil:
		return err
	case b.Status == BatchStatusOpen:
		return InvalidDocument("batch_closed: true, but batch " + t.BatchID + " is open: leave batch_closed out, or close the batch first")
	}
	return nil
}

// seedDefaults fills the zero fields of a seeded transaction (see SeedTransaction)
// and checks its merchant.
func (s *Service) seedDefaults(tx Tx, t *Transaction, now time.Time) error {
	generated := t.ID == ""
	if generated {
		t.ID = "TRN_" + s.ids.Alphanumeric(30)
	}
	if t.MerchantID == "" {
		id, err := tx.Meta(defaultMerchantMeta)
		if err != nil {
			return notFoundAs(err, MissingFields("merchant_id"))
		}
		t.MerchantID = id
	}
	m, err := tx.Merchant(t.MerchantID)
	if err != nil {
		return notFoundAs(err, InvalidDocument("merchant_id: unknown merchant "+t.MerchantID))
	}
	if t.MerchantName == "" {
		t.MerchantName = m.Name
	}
	if err := seedMoney(tx, t, m); err != nil {
		return err
	}
	if t.TimeCreated.IsZero() {
		t.TimeCreated = now
	}
	t.Type, t.Status = orDefault(t.Type, TypeSale), orDefault(t.Status, StatusCaptured)
	if t.PaymentMethod.Result == "" && t.PaymentMethod.Message == "" {
		t.PaymentMethod.Result, t.PaymentMethod.Message = "00", "SUCCESS"
		if t.Status == StatusDeclined {
			t.PaymentMethod.Result, t.PaymentMethod.Message = "05", "DECLINED"
		}
	}
	if t.Action.ID == "" || generated {
		t.Action.ID = "ACT_" + s.ids.Alphanumeric(30)
	}
	t.Action.Type = orDefault(t.Action.Type, "AUTHORIZE")
	t.Action.TimeCreated = orDefault(t.Action.TimeCreated, FormatTime(t.TimeCreated))
	t.Action.ResultCode = orDefault(t.Action.ResultCode, "SUCCESS")
	return nil
}

// seedMoney fills the amount, currency and country of a seeded transaction.
func seedMoney(tx Tx, t *Transaction, m Merchant) error {
	t.Amount = orDefault(t.Amount, "0")
	if t.AuthorizationAmount == "" {
		t.AuthorizationAmount = t.Amount
	}
	if t.Currency == "" {
		t.Currency = "USD"
		if p, err := tx.PricingProfile(m.PricingProfile); err == nil && p.Currency != "" {
			t.Currency = p.Currency
		} else if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	if t.Country == "" {
		country, known := currencyCountry[t.Currency]
		if !known {
			return MissingFields("country")
		}
		t.Country = country
	}
	return nil
}
