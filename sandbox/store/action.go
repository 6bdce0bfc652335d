package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// The back office's records:
//
//	act:<seq>   sandbox.ActionRecord, the seq-th action kept, seq zero-padded to 20 digits
//	rate:<id>   sandbox.RateLookup, a currency conversion rate looked up
//
// Actions are keyed by their order, not their id: a new one goes at the end of the
// key order and the oldest kept falls out at its start, both where the tree is already
// in memory, rather than at a random place among the idempotency keys a load piles up
// (three keys and six searches an action before). A read by id scans the at most
// sandbox.ActionsKept records, as a list of them does.
func init() {
	recordKinds[actionPrefix] = kindOf[sandbox.ActionRecord]()
	recordKinds[legacyActionSeqPrefix] = kindOf[string]()
	recordKinds["rate:"] = kindOf[sandbox.RateLookup]()
}

const actionPrefix = "act:"

// actionKey is the key of the seq-th action kept.
func actionKey(seq int) string { return fmt.Sprintf("%s%020d", actionPrefix, seq) }

// lastActionKey sorts after every action key.
var lastActionKey = actionPrefix + strings.Repeat("9", 20)

// lastActionSeq is the seq of the newest action kept, 0 when none is.
func lastActionSeq(t *buntdb.Tx) (int, error) {
	var last string
	err := t.DescendLessOrEqual("", lastActionKey, func(key, _ string) bool {
		last = key
		return false
	})
	if err != nil || !strings.HasPrefix(last, actionPrefix) {
		return 0, err
	}
	seq, err := strconv.Atoi(last[len(actionPrefix):])
	if err != nil {
		return 0, fmt.Errorf("store: %s: %w", last, err)
	}
	return seq, nil
}

// Action reads the action with that id. The id is looked for as text first, so that
// only a record that holds it is decoded.
func (x tx) Action(id string) (sandbox.ActionRecord, error) {
	var found sandbox.ActionRecord
	quoted, err := json.Marshal(id)
	if err != nil {
		return found, err
	}
	var decodeErr error
	err = x.t.AscendGreaterOrEqual("", actionPrefix, func(key, value string) bool {
		if !strings.HasPrefix(key, actionPrefix) {
			return false
		}
		if !strings.Contains(value, string(quoted)) {
			return true
		}
		var a sandbox.ActionRecord
		if decodeErr = decode(key, value, &a); decodeErr != nil || a.ID == id {
			found = a
			return false
		}
		return true
	})
	switch {
	case err != nil:
		return found, err
	case decodeErr != nil:
		return found, decodeErr
	case found.ID != id:
		return found, sandbox.ErrNotFound
	}
	return found, nil
}

// PutAction keeps a, numbered after the last action kept, and forgets the action
// that falls out of the newest keep.
func (x tx) PutAction(a sandbox.ActionRecord, keep int) error {
	seq, err := lastActionSeq(x.t)
	if err != nil {
		return err
	}
	seq++
	if err := put(x.t, actionKey(seq), a); err != nil {
		return err
	}
	if seq <= keep {
		return nil
	}
	return del(x.t, actionKey(seq-keep))
}

func (x tx) Actions() ([]sandbox.ActionRecord, error) {
	return scan[sandbox.ActionRecord](x.t, actionPrefix)
}

// In files written before actions were keyed by their order, an action was kept at
// act:<its id>, and actseq:<seq> held that id as a JSON string, seq zero-padded to 20
// digits; meta:action_seq, older still, held the last seq.
const (
	legacyActionSeqPrefix = "actseq:"
	retiredActionSeqKey   = "meta:action_seq"
)

// upgradeActions moves the actions of a file of the older layout to their keys of
// this one, in the same order and with the same seq, and drops what that layout kept
// beside them.
func upgradeActions(t *buntdb.Tx) error {
	if err := del(t, retiredActionSeqKey); err != nil {
		return err
	}
	var seqKeys, ids []string
	err := t.AscendGreaterOrEqual("", legacyActionSeqPrefix, func(key, value string) bool {
		if !strings.HasPrefix(key, legacyActionSeqPrefix) {
			return false
		}
		seqKeys, ids = append(seqKeys, key), append(ids, value)
		return true
	})
	if err != nil {
		return err
	}
	records := make([]string, len(seqKeys))
	for i, seqKey := range seqKeys {
		var id string
		if err := decode(seqKey, ids[i], &id); err != nil {
			return err
		}
		// The old keys go before any new one is written: an id of 20 digits would
		// otherwise be taken for a seq.
		records[i], err = t.Delete(actionPrefix + id)
		if err != nil && !errors.Is(err, buntdb.ErrNotFound) {
			return fmt.Errorf("store: upgrade %s: %w", seqKey, err)
		}
		if err := del(t, seqKey); err != nil {
			return err
		}
	}
	for i, seqKey := range seqKeys {
		if records[i] == "" {
			continue // an order without its record: nothing to move
		}
		if _, _, err := t.Set(actionPrefix+seqKey[len(legacyActionSeqPrefix):], records[i], nil); err != nil {
			return fmt.Errorf("store: upgrade %s: %w", seqKey, err)
		}
	}
	return nil
}

func (x tx) RateLookup(id string) (sandbox.RateLookup, error) {
	return get[sandbox.RateLookup](x.t, "rate:"+id)
}
func (x tx) PutRateLookup(r sandbox.RateLookup) error { return put(x.t, "rate:"+r.ID, r) }

// PaymentMethods lists the stored card tokens in id order.
func (x tx) PaymentMethods() ([]sandbox.PaymentMethod, error) {
	return scan[sandbox.PaymentMethod](x.t, "pmt:")
}
