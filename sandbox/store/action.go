package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// The back office's records:
//
//	act:<id>          sandbox.ActionRecord, an action a request did (or a refusal)
//	actseq:<seq>      a JSON string: the id of the seq-th action kept, seq zero-padded to 20 digits
//	rate:<id>         sandbox.RateLookup, a currency conversion rate looked up
//
// The last actseq: key is the newest action's: the seq is read from its key, one
// seek, rather than kept in a record of its own written by every action.
func init() {
	recordKinds["act:"] = kindOf[sandbox.ActionRecord]()
	recordKinds["actseq:"] = kindOf[string]()
	recordKinds["rate:"] = kindOf[sandbox.RateLookup]()
}

const actionSeqPrefix = "actseq:"

// retiredActionSeqKey held the last action's seq in files written before the seq was
// read from the actseq: keys; opening such a file drops it (upgradeLayout).
const retiredActionSeqKey = "meta:action_seq"

func actionSeqEntry(seq int) string { return fmt.Sprintf("%s%020d", actionSeqPrefix, seq) }

// lastActionSeq is the seq of the newest action kept, 0 when none is.
func lastActionSeq(t *buntdb.Tx) (int, error) {
	var last string
	err := t.DescendLessOrEqual("", actionSeqPrefix+"~", func(key, _ string) bool { // '~' sorts after every digit
		last = key
		return false
	})
	if err != nil || !strings.HasPrefix(last, actionSeqPrefix) {
		return 0, err
	}
	seq, err := strconv.Atoi(last[len(actionSeqPrefix):])
	if err != nil {
		return 0, fmt.Errorf("store: %s: %w", last, err)
	}
	return seq, nil
}

func (x tx) Action(id string) (sandbox.ActionRecord, error) {
	return get[sandbox.ActionRecord](x.t, "act:"+id)
}

// PutAction keeps a, numbered after the last action kept, and forgets the action
// that falls out of the newest keep.
func (x tx) PutAction(a sandbox.ActionRecord, keep int) error {
	seq, err := lastActionSeq(x.t)
	if err != nil {
		return err
	}
	seq++
	if err := put(x.t, "act:"+a.ID, a); err != nil {
		return err
	}
	if err := put(x.t, actionSeqEntry(seq), a.ID); err != nil {
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
