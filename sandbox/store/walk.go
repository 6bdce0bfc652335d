package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Transaction lists walk buntdb indexes rather than decoding and sorting every
// transaction: a page reads its own transactions, and a list that has to read many
// reads them a chunk per View, so that it never holds writers back for long.
// buntdb keeps indexes in memory only: createIndexes builds them on every open.

// txnIndexes names the index of each ordering of sandbox.TransactionOrderings. Each
// breaks ties by id, as the list always has, which also makes every record's place in
// its index unique: a walk resumes exactly after the last record it gave.
var txnIndexes = map[string]string{
	"TIME_CREATED": "txn_time",
	"ID":           "txn_id",
	"STATUS":       "txn_status",
	"TYPE":         "txn_type",
	"DEPOSIT_ID":   "txn_id", // no deposits in the sandbox: id order
}

func createTransactionIndexes(db *buntdb.DB) error {
	for _, ix := range []struct {
		name string
		less []func(a, b string) bool
	}{
		{"txn_time", []func(a, b string) bool{timeCreatedLess, memberLess("id")}},
		{"txn_id", []func(a, b string) bool{memberLess("id")}},
		{"txn_status", []func(a, b string) bool{memberLess("status"), memberLess("id")}},
		{"txn_type", []func(a, b string) bool{memberLess("type"), memberLess("id")}},
	} {
		if err := db.CreateIndex(ix.name, "txn:*", ix.less...); err != nil {
			return err
		}
	}
	return nil
}

// The index orders compare members of the records every time buntdb places one, so
// 60,000 transactions cost a million comparisons at every open. buntdb.IndexJSON
// (gjson) takes about 90 ns a member passed over, ten times what finding the member
// takes here: leadingMember relies on what encoding/json writes for a
// sandbox.Transaction (TestIndexedMembersLead checks it), its members in the order of
// the struct, the ones indexed first and all strings.

// memberLess orders records by the text of one of their leading members.
func memberLess(name string) func(a, b string) bool {
	key := memberKey(name)
	return func(a, b string) bool { return leadingMember(a, key) < leadingMember(b, key) }
}

// memberKey is what leadingMember looks for: the member's name and the quote that
// opens its value.
func memberKey(name string) string { return `"` + name + `":"` }

// leadingMember returns the raw text of a string member of a transaction record,
// escapes and all, given its memberKey: it is the first text "name":" in the record,
// since the members before it are strings, inside which every quote is escaped.
func leadingMember(record, key string) string {
	i := strings.Index(record, key)
	if i < 0 {
		return ""
	}
	v := record[i+len(key):]
	for j := 0; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return v[:j]
		}
	}
	return v
}

// timeCreatedLess orders records by time_created to the millisecond, as GP shows it
// (sandbox.FormatTime): encoding/json writes a time with as many fraction digits as
// it has, so the text alone does not sort.
var timeCreatedKey = memberKey("time_created")

func timeCreatedLess(a, b string) bool { return createdAt(a) < createdAt(b) }

// createdAt is a record's time_created as FormatTime writes it, less the final Z.
// A time in UTC, as the sandbox's clock gives, is cut to the millisecond as text;
// any other is parsed.
func createdAt(record string) string {
	s := leadingMember(record, timeCreatedKey)
	const seconds, millis = len("2006-01-02T15:04:05"), len("2006-01-02T15:04:05.000")
	switch {
	case !strings.HasSuffix(s, "Z") || len(s) < seconds+1:
		t, _ := time.Parse(time.RFC3339Nano, s)
		return sandbox.FormatTime(t)[:millis]
	case len(s) > millis:
		return s[:millis] // no copy: three fraction digits or more
	case len(s) == seconds+1:
		return s[:seconds] + ".000"
	}
	return s[:len(s)-1] + "000"[len(s)-1-seconds-1:]
}

// WalkTransactions implements sandbox.Tx. The walk resumes at after's place in the
// index: its record as encoding/json writes it, which is what the index compared when
// it was stored, since the index orders read the record's text (memberLess).
func (x tx) WalkTransactions(orderBy string, desc bool, after *sandbox.Transaction, limit int,
	fn func(sandbox.Transaction) bool) (*sandbox.Transaction, bool, error) {
	index, ok := txnIndexes[orderBy]
	if !ok {
		index = txnIndexes["TIME_CREATED"]
	}
	var pivot, afterKey string
	if after != nil {
		record, err := json.Marshal(after)
		if err != nil {
			return after, false, fmt.Errorf("store: encode txn:%s: %w", after.ID, err)
		}
		pivot, afterKey = string(record), "txn:"+after.ID
	}
	last, end := after, true
	var decodeErr error
	visit := func(key, value string) bool {
		if key == afterKey {
			return true // the pivot: the walk's last record, given already
		}
		if limit == 0 {
			end = false
			return false
		}
		var t sandbox.Transaction
		if decodeErr = decode(key, value, &t); decodeErr != nil {
			return false
		}
		limit--
		last = &t
		if !fn(t) {
			end = false
			return false
		}
		return true
	}
	var err error
	switch {
	case after == nil && desc:
		err = x.t.Descend(index, visit)
	case after == nil:
		err = x.t.Ascend(index, visit)
	case desc:
		// buntdb's pivot has no key: it sorts after, and here takes in, every record
		// its index holds equal to it, the last one given among them.
		err = x.t.DescendLessOrEqual(index, pivot, visit)
	default:
		err = x.t.AscendGreaterOrEqual(index, pivot, visit)
	}
	if err == nil {
		err = decodeErr
	}
	return last, end, err
}

// Transaction counts: count:txn:<merchant id> holds how many transactions a merchant
// has, kept by PutTransaction in the transaction that stores one, so that a list's
// total costs one read. Nothing else writes a transaction: DeleteAll wipes the counts
// with them, and a restore copies a snapshot's counts with its transactions. An open
// does not count them again: every file it opens was written by the sandbox
// (check.go refuses any other), which keeps them. The one exception is a commit cut
// short by a crash of the machine (the file is synced once a second, and a torn last
// command is dropped): it may keep a transaction without its count, and its
// merchant's unfiltered total stays one off until a reset.

func countKey(merchantID string) string { return "count:txn:" + merchantID }

var merchantKey = memberKey("merchant_id")

// merchantOf is the merchant_id of a transaction record.
func merchantOf(record string) string {
	raw := leadingMember(record, merchantKey)
	if !strings.Contains(raw, `\`) {
		return raw
	}
	var id string
	_ = json.Unmarshal([]byte(`"`+raw+`"`), &id)
	return id
}

// CountTransactions implements sandbox.Tx.
func (x tx) CountTransactions(merchantID string) (int, error) {
	n, err := get[int](x.t, countKey(merchantID))
	if errors.Is(err, sandbox.ErrNotFound) {
		return 0, nil
	}
	return n, err
}

// PutTransaction implements sandbox.Tx: it stores t and keeps the counts.
func (x tx) PutTransaction(t sandbox.Transaction) error {
	value, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("store: encode txn:%s: %w", t.ID, err)
	}
	prev, replaced, err := x.t.Set("txn:"+t.ID, string(value), nil)
	if err != nil {
		return fmt.Errorf("store: put txn:%s: %w", t.ID, err)
	}
	if replaced {
		old := merchantOf(prev)
		if old == t.MerchantID {
			return nil
		}
		if err := x.addCount(old, -1); err != nil {
			return err
		}
	}
	return x.addCount(t.MerchantID, 1)
}

func (x tx) addCount(merchantID string, delta int) error {
	n, err := x.CountTransactions(merchantID)
	if err != nil {
		return err
	}
	if n+delta <= 0 {
		return del(x.t, countKey(merchantID))
	}
	return put(x.t, countKey(merchantID), n+delta)
}
