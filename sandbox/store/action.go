package store

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The back office's records:
//
//	act:<id>          sandbox.ActionRecord, an action a request did (or a refusal)
//	actseq:<seq>      a JSON string: the id of the seq-th action kept, seq zero-padded to 20 digits
//	meta:action_seq   a JSON string of digits: the seq of the last action kept
//	rate:<id>         sandbox.RateLookup, a currency conversion rate looked up
func init() {
	recordKinds["act:"] = kindOf[sandbox.ActionRecord]()
	recordKinds["actseq:"] = kindOf[string]()
	recordKinds["rate:"] = kindOf[sandbox.RateLookup]()
}

const actionSeqKey = "meta:action_seq"

func actionSeqEntry(seq int) string { return fmt.Sprintf("actseq:%020d", seq) }

func (x tx) Action(id string) (sandbox.ActionRecord, error) {
	return get[sandbox.ActionRecord](x.t, "act:"+id)
}

// PutAction keeps a, numbered after the last action kept, and forgets the action
// that falls out of the newest keep.
func (x tx) PutAction(a sandbox.ActionRecord, keep int) error {
	seq := 0
	last, err := get[string](x.t, actionSeqKey)
	switch {
	case err == nil:
		if seq, err = strconv.Atoi(last); err != nil {
			return fmt.Errorf("store: %s: %w", actionSeqKey, err)
		}
	case !errors.Is(err, sandbox.ErrNotFound):
		return err
	}
	seq++
	if err := put(x.t, "act:"+a.ID, a); err != nil {
		return err
	}
	if err := put(x.t, actionSeqEntry(seq), a.ID); err != nil {
		return err
	}
	if err := put(x.t, actionSeqKey, strconv.Itoa(seq)); err != nil {
		return err
	}
	if seq <= keep {
		return nil
	}
	old, err := get[string](x.t, actionSeqEntry(seq-keep))
	if errors.Is(err, sandbox.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := del(x.t, actionSeqEntry(seq-keep)); err != nil {
		return err
	}
	return del(x.t, "act:"+old)
}

func (x tx) Actions() ([]sandbox.ActionRecord, error) { return scan[sandbox.ActionRecord](x.t, "act:") }

func (x tx) RateLookup(id string) (sandbox.RateLookup, error) {
	return get[sandbox.RateLookup](x.t, "rate:"+id)
}
func (x tx) PutRateLookup(r sandbox.RateLookup) error { return put(x.t, "rate:"+r.ID, r) }

// PaymentMethods lists the stored card tokens in id order.
func (x tx) PaymentMethods() ([]sandbox.PaymentMethod, error) {
	return scan[sandbox.PaymentMethod](x.t, "pmt:")
}
