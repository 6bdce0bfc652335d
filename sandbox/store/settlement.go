package store

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// Deposits and disputes: one key each, deposit:<id> and dispute:<id>, listed by a
// scan of their prefix (id order).

func (x tx) Deposit(id string) (sandbox.Deposit, error) {
	return get[sandbox.Deposit](x.t, "deposit:"+id)
}
func (x tx) PutDeposit(d sandbox.Deposit) error { return put(x.t, "deposit:"+d.ID, d) }
func (x tx) Deposits() ([]sandbox.Deposit, error) {
	return scan[sandbox.Deposit](x.t, "deposit:")
}

func (x tx) Dispute(id string) (sandbox.Dispute, error) {
	return get[sandbox.Dispute](x.t, "dispute:"+id)
}
func (x tx) PutDispute(d sandbox.Dispute) error { return put(x.t, "dispute:"+d.ID, d) }
func (x tx) Disputes() ([]sandbox.Dispute, error) {
	return scan[sandbox.Dispute](x.t, "dispute:")
}
