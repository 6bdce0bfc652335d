package store

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// The back office's records:
//
//	act:<id>    sandbox.ActionRecord, an action a request did (or a refusal)
//	rate:<id>   sandbox.RateLookup, a currency conversion rate looked up
func init() {
	recordKinds["act:"] = kindOf[sandbox.ActionRecord]()
	recordKinds["rate:"] = kindOf[sandbox.RateLookup]()
}

func (x tx) Action(id string) (sandbox.ActionRecord, error) {
	return get[sandbox.ActionRecord](x.t, "act:"+id)
}
func (x tx) PutAction(a sandbox.ActionRecord) error   { return put(x.t, "act:"+a.ID, a) }
func (x tx) Actions() ([]sandbox.ActionRecord, error) { return scan[sandbox.ActionRecord](x.t, "act:") }
func (x tx) RateLookup(id string) (sandbox.RateLookup, error) {
	return get[sandbox.RateLookup](x.t, "rate:"+id)
}
func (x tx) PutRateLookup(r sandbox.RateLookup) error { return put(x.t, "rate:"+r.ID, r) }

// PaymentMethods lists the stored card tokens in id order.
func (x tx) PaymentMethods() ([]sandbox.PaymentMethod, error) {
	return scan[sandbox.PaymentMethod](x.t, "pmt:")
}
