package sandbox

// GetTransaction returns one transaction the caller's app may see: another merchant's
// is as unknown as a missing one (40008).
func (s *Service) GetTransaction(c Caller, merchantID, id string) (Transaction, error) {
	var t Transaction
	err := s.store.View(func(tx Tx) error {
		var err error
		if t, err = tx.Transaction(id); err != nil {
			return notFoundAs(err, NotFoundTransaction(id))
		}
		if !c.App.ActsFor(t.MerchantID) || (merchantID != "" && merchantID != t.MerchantID) {
			return NotFoundTransaction(id)
		}
		return nil
	})
	return t, err
}
