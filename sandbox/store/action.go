package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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
// (three keys and six searches an action before). A read by id walks the at most
// sandbox.ActionsKept records, newest first, reading each one's leading id.
func init() {
	recordKinds[actionPrefix] = kindOf[sandbox.ActionRecord]()
	recordKinds[legacyActionSeqPrefix] = kindOf[string]()
	recordKinds["rate:"] = kindOf[sandbox.RateLookup]()
}

const actionPrefix = "act:"

// actionKey is the key of the seq-th action kept.
func actionKey(seq int) string { return fmt.Sprintf("%s%020d", actionPrefix, seq) }

// lastActionKey sorts after every action key.
const lastActionKey = actionPrefix + "99999999999999999999"

// actionSeq is the seq of an action key; ok is false for a key of another layout.
func actionSeq(key string) (seq int, ok bool) {
	digits, isAction := strings.CutPrefix(key, actionPrefix)
	if !isAction || len(digits) != 20 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	seq, err := strconv.Atoi(digits)
	return seq, err == nil
}

// lastActionSeq is the seq of the newest action kept, 0 when none is. Every act: key
// is a seq key once upgradeActions has run, as it does at every open and restore.
func lastActionSeq(t *buntdb.Tx) (int, error) {
	var last string
	err := t.DescendLessOrEqual("", lastActionKey, func(key, _ string) bool {
		last = key
		return false
	})
	if err != nil || !strings.HasPrefix(last, actionPrefix) {
		return 0, err
	}
	seq, ok := actionSeq(last)
	if !ok {
		return 0, fmt.Errorf("store: %s is no action key of this layout", last)
	}
	return seq, nil
}

// Action reads the action with that id, the newest if an id was used twice (a
// sandbox started again with the same --seed repeats its ids). It reads the records
// newest first as text: put writes an action's id as its first member, so only the
// record that starts with that id is decoded.
func (x tx) Action(id string) (sandbox.ActionRecord, error) {
	var a sandbox.ActionRecord
	quoted, err := json.Marshal(id)
	if err != nil {
		return a, err
	}
	lead := `{"id":` + string(quoted)
	var key, text string
	err = x.t.DescendLessOrEqual("", lastActionKey, func(k, value string) bool {
		if !strings.HasPrefix(k, actionPrefix) {
			return false
		}
		if strings.HasPrefix(value, lead) {
			key, text = k, value
		}
		return key == ""
	})
	if err != nil {
		return a, err
	}
	if key == "" {
		return a, sandbox.ErrNotFound
	}
	err = decode(key, text, &a)
	return a, err
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

// Actions lists the actions kept, oldest first, decoded after the read (readThenDecode).
func (s *Store) Actions() ([]sandbox.ActionRecord, error) {
	return readThenDecode[sandbox.ActionRecord](s, actionPrefix)
}

// Files written before actions were keyed by their order kept an action at act:<its
// id>; from a1e406f actseq:<seq> held that id as a JSON string, seq zero-padded to 20
// digits, and meta:action_seq for a while the last seq.
const (
	legacyActionSeqPrefix = "actseq:"
	retiredActionSeqKey   = "meta:action_seq"
)

// legacyAction is an action record at its key of an older layout, act:<its id>, with
// its place in that layout's order: its actseq: rank, or unnamed (-1) and its time.
type legacyAction struct {
	key, value string
	rank       int
	time       time.Time
}

// unnamed is the rank of an action no actseq: key names: one written before a1e406f,
// which never gave those an actseq: key nor forgot them, so older than every named one.
const unnamed = -1

// upgradeActions moves the actions of a file of an older layout to keys of this one,
// after any action already there and in their order: those no actseq: key names
// first, by time, then the actseq: keys' order. The newest keep stay, and what the
// older layouts kept beside them goes.
func upgradeActions(t *buntdb.Tx, keep int) error {
	if err := del(t, retiredActionSeqKey); err != nil {
		return err
	}
	order, err := legacyActionOrder(t)
	if err != nil {
		return err
	}
	if err := deletePrefix(t, legacyActionSeqPrefix); err != nil {
		return err
	}
	var moving []legacyAction
	err = ascendPrefix(t, actionPrefix, func(key, value string) bool {
		// With actseq: keys every act: key is of that layout, a 20-digit id included.
		if _, ok := actionSeq(key); !ok || len(order) > 0 {
			rank, named := order[strings.TrimPrefix(key, actionPrefix)]
			if !named {
				rank = unnamed
			}
			moving = append(moving, legacyAction{key: key, value: value, rank: rank})
		}
		return true
	})
	if err != nil || len(moving) == 0 {
		return err
	}
	for i, m := range moving {
		if m.rank != unnamed {
			continue
		}
		var created struct {
			Time time.Time `json:"time_created"`
		}
		if err := decode(m.key, m.value, &created); err != nil {
			return err
		}
		moving[i].time = created.Time
	}
	slices.SortFunc(moving, func(a, b legacyAction) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), a.time.Compare(b.time), strings.Compare(a.key, b.key))
	})
	for _, m := range moving { // every old key goes before a new one is written
		if err := del(t, m.key); err != nil {
			return err
		}
	}
	seq, err := lastActionSeq(t)
	if err != nil {
		return err
	}
	for _, m := range moving {
		seq++
		if _, _, err := t.Set(actionKey(seq), m.value, nil); err != nil {
			return fmt.Errorf("store: upgrade %s: %w", m.key, err)
		}
	}
	// The limit counts the actions already kept in this layout too.
	oldestKept := actionKey(seq - keep + 1)
	return deleteMatching(t, actionPrefix, func(key string) bool { return key < oldestKept })
}

// legacyActionOrder returns the rank of each id the actseq: keys name, by seq.
func legacyActionOrder(t *buntdb.Tx) (map[string]int, error) {
	order, rank := map[string]int{}, 0
	var decodeErr error
	err := ascendPrefix(t, legacyActionSeqPrefix, func(key, value string) bool {
		var id string
		if decodeErr = decode(key, value, &id); decodeErr != nil {
			return false
		}
		order[id] = rank
		rank++
		return true
	})
	return order, cmp.Or(err, decodeErr)
}

func (x tx) RateLookup(id string) (sandbox.RateLookup, error) {
	return get[sandbox.RateLookup](x.t, "rate:"+id)
}
func (x tx) PutRateLookup(r sandbox.RateLookup) error { return put(x.t, "rate:"+r.ID, r) }
