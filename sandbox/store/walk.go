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

// Transaction lists walk buntdb indexes rather than decoding and sorting every
// transaction: a page reads its own transactions, and a list that has to read many
// reads them a chunk per View, so that it never holds writers back for long.
// buntdb keeps indexes in memory only: createIndexes builds them on every open.
//
// The indexes are not over the transaction records but over a small record beside
// each, sort:txn:<id>, holding what the lists order by (sortKey). buntdb places a
// record in every index of its pattern whenever it is written; most writes of a
// transaction (an adjustment, a capture) change none of these members, and leave the
// sort record, and the indexes, alone.

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

// The members of a sort record, in the order sortKey writes them.
const (
	sortTime = iota
	sortStatus
	sortType
	sortID
)

func createIndexes(db *buntdb.DB) error {
	for _, ix := range []struct {
		name   string
		fields []int
	}{
		{"txn_time", []int{sortTime, sortID}},
		{"txn_id", []int{sortID}},
		{"txn_status", []int{sortStatus, sortID}},
		{"txn_type", []int{sortType, sortID}},
	} {
		if err := db.CreateIndex(ix.name, sortPrefix+"*", sortLess(ix.fields)); err != nil {
			return err
		}
	}
	return nil
}

const sortPrefix = "sort:txn:"

// sortSep separates the members of a sort record. The id comes last, so it may hold
// anything; the others are a time, a status and a type.
const sortSep = "\x1f"

// sortKey is the sort record of t: its time created to the millisecond, as GP shows
// it (sandbox.FormatTime), its status, its type and its id.
func sortKey(t sandbox.Transaction) string {
	return sandbox.FormatTime(t.TimeCreated) + sortSep + t.Status + sortSep + t.Type + sortSep + t.ID
}

// sortField returns member n of a sort record.
func sortField(record string, n int) string {
	for range n {
		_, record, _ = strings.Cut(record, sortSep)
	}
	if n == sortID {
		return record
	}
	field, _, _ := strings.Cut(record, sortSep)
	return field
}

// sortLess orders sort records by their members fields, the first that differs.
func sortLess(fields []int) func(a, b string) bool {
	return func(a, b string) bool {
		for _, n := range fields {
			if x, y := sortField(a, n), sortField(b, n); x != y {
				return x < y
			}
		}
		return false
	}
}

// WalkTransactions implements sandbox.Tx.
func (x tx) WalkTransactions(orderBy string, desc bool, after sandbox.TransactionCursor, limit int,
	fn func(sandbox.Transaction) bool) (sandbox.TransactionCursor, bool, error) {
	index, ok := txnIndexes[orderBy]
	if !ok {
		index = txnIndexes["TIME_CREATED"]
	}
	last, end := after, true
	var decodeErr error
	visit := func(key, value string) bool {
		if key == after.Key {
			return true // the pivot: the walk's last record, given already
		}
		if limit == 0 {
			end = false
			return false
		}
		t, err := x.Transaction(strings.TrimPrefix(key, sortPrefix))
		if errors.Is(err, sandbox.ErrNotFound) {
			return true // a sort record left without its transaction: not listed
		} else if decodeErr = err; err != nil {
			return false
		}
		limit--
		last = sandbox.TransactionCursor{Key: key, Record: value}
		if !fn(t) {
			end = false
			return false
		}
		return true
	}
	var err error
	switch {
	case after.Key == "" && desc:
		err = x.t.Descend(index, visit)
	case after.Key == "":
		err = x.t.Ascend(index, visit)
	case desc:
		// buntdb's pivot has no key: it sorts after, and here takes in, every record
		// its index holds equal to it, the last one given among them.
		err = x.t.DescendLessOrEqual(index, after.Record, visit)
	default:
		err = x.t.AscendGreaterOrEqual(index, after.Record, visit)
	}
	if err == nil {
		err = decodeErr
	}
	return last, end, err
}

// Transaction counts: count:txn:<merchant id> holds how many transactions a merchant
// has, kept by PutTransaction in the transaction that stores one, so that a list's
// total costs one read. The counts and the sort records are derived from the
// transaction records, as buntdb's indexes are, and indexTransactions sets them right
// whenever records come from anywhere but PutTransaction: at every open, and after a
// snapshot is restored.

func countKey(merchantID string) string { return "count:txn:" + merchantID }

// merchantOf is the merchant_id of a transaction record, read as text rather than
// decoded: a replaced record's merchant is all PutTransaction needs of it. It relies
// on what encoding/json writes for a sandbox.Transaction (TestMerchantOf checks it):
// its members in the order of the struct, the ones before merchant_id all strings,
// inside which every quote is escaped, so the first "merchant_id":" is the member.
func merchantOf(record string) string {
	const key = `"merchant_id":"`
	i := strings.Index(record, key)
	if i < 0 {
		return ""
	}
	raw, end := record[i+len(key):], -1
	for j := 0; j < len(raw) && end < 0; j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			end = j
		}
	}
	if end >= 0 {
		raw = raw[:end]
	}
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

// PutTransaction implements sandbox.Tx: it stores t, its sort record when that
// changed, and the counts.
func (x tx) PutTransaction(t sandbox.Transaction) error {
	value, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("store: encode txn:%s: %w", t.ID, err)
	}
	prev, replaced, err := x.t.Set("txn:"+t.ID, string(value), nil)
	if err == nil {
		err = x.putSortKey(t)
	}
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

// putSortKey writes t's sort record unless it holds that already.
func (x tx) putSortKey(t sandbox.Transaction) error {
	key, want := sortPrefix+t.ID, sortKey(t)
	if have, err := x.t.Get(key); err == nil && have == want {
		return nil
	}
	_, _, err := x.t.Set(key, want, nil)
	return err
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

// indexTransactions gives every transaction its sort record when it has none, and
// sets every merchant's count to what the records say, writing only the counts that
// differ.
func indexTransactions(t *buntdb.Tx) error {
	counts := map[string]int{} // by count key
	var unsorted []string      // keys of transactions without a sort record
	err := ascendPrefix(t, "txn:", func(key, value string) bool {
		counts[countKey(merchantOf(value))]++
		if _, err := t.Get(sortPrefix + strings.TrimPrefix(key, "txn:")); err != nil {
			unsorted = append(unsorted, key)
		}
		return true
	})
	for _, key := range unsorted {
		if err == nil {
			err = sortTransaction(t, key)
		}
	}
	have := map[string]string{}
	if err == nil {
		err = ascendPrefix(t, "count:txn:", func(key, value string) bool {
			have[key] = value
			return true
		})
	}
	for key := range have {
		if _, ok := counts[key]; ok || err != nil {
			continue
		}
		err = del(t, key)
	}
	for key, n := range counts {
		if have[key] != strconv.Itoa(n) && err == nil {
			err = put(t, key, n)
		}
	}
	return err
}

// sortTransaction writes the sort record of the transaction at key, under the key's
// id whatever id its record holds.
func sortTransaction(t *buntdb.Tx, key string) error {
	txn, err := get[sandbox.Transaction](t, key)
	if err == nil {
		txn.ID = strings.TrimPrefix(key, "txn:")
		_, _, err = t.Set(sortPrefix+txn.ID, sortKey(txn), nil)
	}
	return err
}
