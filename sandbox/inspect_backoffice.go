package sandbox

import "time"

// Read-only listings of the back office's deposits and disputes for the admin API and
// the inspector: every stored record, whether or not its day has come, as stored (a
// dispute moves along the sandbox clock when GP's API reads it, not here).

// DepositRecords reads every stored deposit by id and the sandbox time they are read at.
func (s *Service) DepositRecords() ([]Deposit, time.Time, error) {
	now := s.clock.Now()
	all, err := view(s, func(tx Tx) ([]Deposit, error) { return tx.Deposits() })
	return all, now, err
}

// DisputeRecords reads every stored dispute by id and the sandbox time they are read at.
func (s *Service) DisputeRecords() ([]Dispute, time.Time, error) {
	now := s.clock.Now()
	all, err := view(s, func(tx Tx) ([]Dispute, error) { return tx.Disputes() })
	return all, now, err
}
