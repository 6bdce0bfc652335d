package sandbox

import "errors"

// OpNotification names the sending of an order's status notification, for scenarios.
const OpNotification Operation = "notification"

// Subjects is what the fixtures say about the records a request touches: the scenario
// names bound to them, most specific first (transaction, merchant, app), and the
// transaction's merchant, which a scenario can match even on the plain adjustment path.
type Subjects struct {
	Scenarios           []string
	TransactionMerchant string
}

// Subjects reads the transaction, merchant and app of a request (each may be empty or
// unknown) in one read transaction. Unknown records bind nothing: the action itself
// reports them.
func (s *Service) Subjects(appID, merchantID, transactionID string) (Subjects, error) {
	var sub Subjects
	err := s.store.View(func(tx Tx) error {
		if transactionID != "" {
			t, err := tx.Transaction(transactionID)
			switch {
			case err == nil:
				sub.Scenarios = append(sub.Scenarios, t.Scenarios...)
				sub.TransactionMerchant = t.MerchantID
				if merchantID == "" {
					merchantID = t.MerchantID
				}
			case !errors.Is(err, ErrNotFound):
				return err
			}
		}
		if merchantID != "" {
			m, err := tx.Merchant(merchantID)
			switch {
			case err == nil:
				sub.Scenarios = append(sub.Scenarios, m.Scenarios...)
			case !errors.Is(err, ErrNotFound):
				return err
			}
		}
		if appID != "" {
			a, err := tx.App(appID)
			switch {
			case err == nil:
				sub.Scenarios = append(sub.Scenarios, a.Scenarios...)
			case !errors.Is(err, ErrNotFound):
				return err
			}
		}
		return nil
	})
	return sub, err
}
