package store

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Transaction lists walk an order rather than decoding and sorting every transaction:
// a page reads its own transactions, and a list that has to read many reads them a
// chunk per View, so that it never holds writers back for long.
//
// ID order is the order of the txn: keys. The other orderings walk a buntdb index over
// a small sort record beside each transaction, sort:txn:<id>, holding what they
// compare: time created, id, status and type (and the merchant, for the counts below).
// PutTransaction writes it in the same Update as the transaction, and only when one
// of them changed, which no adjustment does: a write of the transaction itself is in
// no index. buntdb keeps indexes in memory only: createIndexes builds them on every
// open, over the sort records, not the transactions.

const sortPrefix = "sort:txn:"

func sortKey(transactionID string) string { return sortPrefix + transactionID }

// The members of a sort record: its time created, at a fixed width, then its id,
// status, type and merchant, each ended by a NUL byte but the merchant, which comes
// last so that it is read whole whatever it holds. Time order is the order of the
// text itself: the fixed width time, then the id up to its NUL, which sorts before
// every character that may go on a longer id.

// timeWidth is the width of a time as sandbox.FormatTime writes one (years 0 to 9999).
const timeWidth = len(sandbox.TimeFormat)

// sortRecord is the sort record of t. The time is as GP shows it, so that the text
// sorts in time order, to the millisecond; one beyond the years 0 to 9999, which no
// payment has, sorts as the first or the last instant of them.
func sortRecord(t sandbox.Transaction) string {
	created := t.TimeCreated.UTC()
	switch {
	case created.Year() < 0:
		created = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	case created.Year() > 9999:
		created = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
	}
	return sandbox.FormatTime(created) + t.ID + "\x00" + t.Status + "\x00" + t.Type + "\x00" + t.MerchantID
}

// sortMembers returns the status (byType false) or the type of a sort record, and
// its id. The index comparisons call it a few million times at an open of 60,000
// transactions: it reads no more of the record than it needs.
func sortMembers(record string, byType bool) (member, id string) {
	id, rest := nextMember(record[min(len(record), timeWidth):])
	member, rest = nextMember(rest)
	if byType {
		member, _ = nextMember(rest)
	}
	return member, id
}

// sortMerchant returns the merchant of a sort record.
func sortMerchant(record string) string {
	_, rest := nextMember(record[min(len(record), timeWidth):])
	for range 2 {
		_, rest = nextMember(rest)
	}
	return rest
}

// nextMember splits the member that starts s from the rest, after its NUL.
func nextMember(s string) (member, rest string) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// txnIndexes names the index of each ordering of sandbox.TransactionOrderings; ""
// walks the txn: keys.
var txnIndexes = map[string]string{
	"TIME_CREATED": "txn_time",
	"ID":           "",
	"STATUS":       "txn_status",
	"TYPE":         "txn_type",
	"DEPOSIT_ID":   "", // no deposits in the sandbox: id order
}

func createTransactionIndexes(db *buntdb.DB) error {
	for name, less := range map[string]func(a, b string) bool{
		"txn_time":   buntdb.IndexBinary, // the text's order: see sortRecord
		"txn_status": memberLess(false),
		"txn_type":   memberLess(true),
	} {
		if err := db.CreateIndex(name, sortPrefix+"*", less); err != nil {
			return err
		}
	}
	return nil
}

// memberLess orders sort records by status or type, then by id, as the list always
// has: every record's place is unique, so a walk resumes exactly after the last one
// it gave.
func memberLess(byType bool) func(a, b string) bool {
	return func(a, b string) bool {
		x, xid := sortMembers(a, byType)
		y, yid := sortMembers(b, byType)
		if x != y {
			return x < y
		}
		return xid < yid
	}
}

// WalkTransactions implements sandbox.Tx. The walk resumes at after's place: for ID
// order its key, for the others its sort record as after was given, which is where
// it stood when the walk gave it, even if it changed since.
func (x tx) WalkTransactions(orderBy string, desc bool, after *sandbox.Transaction, limit int,
	fn func(sandbox.Transaction) bool) (*sandbox.Transaction, bool, error) {
	index, ok := txnIndexes[orderBy]
	if !ok {
		index = txnIndexes["TIME_CREATED"]
	}
	w := &txnWalk{after: after, last: after, end: true, limit: limit, fn: fn}
	var err error
	if index == "" {
		err = w.byID(x.t, desc)
	} else {
		err = w.byIndex(x.t, index, desc)
	}
	if err == nil {
		err = w.err
	}
	return w.last, w.end, err
}

// txnWalk is one call of WalkTransactions.
type txnWalk struct {
	after *sandbox.Transaction
	limit int
	fn    func(sandbox.Transaction) bool
	last  *sandbox.Transaction
	end   bool
	err   error
}

// byID walks the txn: keys.
func (w *txnWalk) byID(t *buntdb.Tx, desc bool) error {
	visit := func(key, value string) bool {
		id, ok := strings.CutPrefix(key, "txn:")
		return ok && w.give(id, key, value)
	}
	switch {
	case w.after == nil && desc:
		return t.DescendLessOrEqual("", "txn;", visit) // ';' follows ':'
	case w.after == nil:
		return t.AscendGreaterOrEqual("", "txn:", visit)
	case desc:
		return t.DescendLessOrEqual("", "txn:"+w.after.ID, visit)
	}
	return t.AscendGreaterOrEqual("", "txn:"+w.after.ID, visit)
}

// byIndex walks an index over the sort records, reading each transaction they name.
func (w *txnWalk) byIndex(t *buntdb.Tx, index string, desc bool) error {
	visit := func(key, _ string) bool {
		id := strings.TrimPrefix(key, sortPrefix)
		value, err := t.Get("txn:" + id)
		if errors.Is(err, buntdb.ErrNotFound) {
			return true // not written whole (see the counts below): passed over
		}
		if err != nil {
			w.err = fmt.Errorf("store: get txn:%s: %w", id, err)
			return false
		}
		return w.give(id, "txn:"+id, value)
	}
	if w.after == nil {
		if desc {
			return t.Descend(index, visit)
		}
		return t.Ascend(index, visit)
	}
	// The pivot takes in after's own record, when it has not moved: given already.
	pivot := sortRecord(*w.after)
	if desc {
		return t.DescendLessOrEqual(index, pivot, visit)
	}
	return t.AscendGreaterOrEqual(index, pivot, visit)
}

// give passes the transaction of id, its record value at key, to fn, and says whether
// to go on.
func (w *txnWalk) give(id, key, value string) bool {
	if w.after != nil && id == w.after.ID {
		return true // the pivot: the walk's last transaction, given already
	}
	if w.limit == 0 {
		w.end = false
		return false
	}
	var t sandbox.Transaction
	if w.err = decode(key, value, &t); w.err != nil {
		return false
	}
	w.limit--
	w.last = &t
	if !w.fn(t) {
		w.end = false
		return false
	}
	return true
}

// Transaction counts: count:listed:<merchant id> holds how many transactions a merchant
// has that GET /transactions lists (Transaction.Listed), kept by PutTransaction in the transaction that stores one, so that a list's
// total costs one read. Nothing else writes a transaction: DeleteAll wipes the counts
// with them, and a restore copies a snapshot's counts with its transactions. The
// derived records, the sort records and the counts, are written again from the
// transactions (indexTransactions) only when the sort records do not number the
// transactions: a file or a snapshot written before the sort records existed, or a
// commit cut short by a crash of the machine (the file is synced once a second, and
// a torn last command is dropped) that kept a transaction without its sort record.

func countKey(merchantID string) string { return "count:listed:" + merchantID }

// legacyCountPrefix held counts of every transaction, verifications included, before
// the counts were of listed transactions: a file or snapshot holding such keys is
// indexed again (indexTransactions) and the keys dropped.
const legacyCountPrefix = "count:txn:"

// CountTransactions implements sandbox.Tx.
func (x tx) CountTransactions(merchantID string) (int, error) {
	n, err := get[int](x.t, countKey(merchantID))
	if errors.Is(err, sandbox.ErrNotFound) {
		return 0, nil
	}
	return n, err
}

// PutTransaction implements sandbox.Tx: it stores t and keeps its sort record and the
// counts.
func (x tx) PutTransaction(t sandbox.Transaction) error {
	if strings.ContainsRune(t.ID+t.Status+t.Type, 0) {
		// A NUL would end the member in the sort record: no such value is valid.
		return fmt.Errorf("store: put txn:%s: a NUL byte in its id, status or type", t.ID)
	}
	if err := put(x.t, "txn:"+t.ID, t); err != nil {
		return err
	}
	key, record := sortKey(t.ID), sortRecord(t)
	prev, err := x.t.Get(key)
	switch {
	case err == nil && prev == record:
		return nil // an adjustment: nothing a list orders by changed
	case errors.Is(err, buntdb.ErrNotFound):
		prev = ""
	case err != nil:
		return fmt.Errorf("store: get %s: %w", key, err)
	}
	if _, _, err := x.t.Set(key, record, nil); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	if !t.Listed() {
		return nil // counted by no list; a verification stays one
	}
	if prev == "" {
		return x.addCount(t.MerchantID, 1)
	}
	if old := sortMerchant(prev); old != t.MerchantID {
		if err := x.addCount(old, -1); err != nil {
			return err
		}
		return x.addCount(t.MerchantID, 1)
	}
	return nil
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

// indexTransactions writes the sort records and the counts again from the
// transactions when the sort records do not number them, or counts of the older
// layout remain (see the counts above).
func indexTransactions(t *buntdb.Tx) error {
	transactions, err := countPrefix(t, "txn:")
	if err != nil {
		return err
	}
	sorted, err := countPrefix(t, sortPrefix)
	if err != nil {
		return err
	}
	legacy, err := countPrefix(t, legacyCountPrefix)
	if err != nil || sorted == transactions && legacy == 0 {
		return err
	}
	if err := deletePrefix(t, legacyCountPrefix); err != nil {
		return err
	}
	if err := deletePrefix(t, sortPrefix); err != nil {
		return err
	}
	if err := deletePrefix(t, countKey("")); err != nil {
		return err
	}
	records := map[string]string{} // sort records by key, written once the walk is over
	counts := map[string]int{}
	err = ascendPrefix(t, "txn:", func(key, value string) bool {
		var tr sandbox.Transaction
		if err = decode(key, value, &tr); err == nil {
			tr.ID = strings.TrimPrefix(key, "txn:") // what the walk reads it by
			records[sortKey(tr.ID)] = sortRecord(tr)
			if tr.Listed() {
				counts[tr.MerchantID]++
			}
		}
		return err == nil
	})
	for key, record := range records {
		if err == nil {
			_, _, err = t.Set(key, record, nil)
		}
	}
	for merchant, n := range counts {
		if err == nil {
			err = put(t, countKey(merchant), n)
		}
	}
	return err
}

// countPrefix counts the keys that start with prefix, reading no value.
func countPrefix(t *buntdb.Tx, prefix string) (int, error) {
	n := 0
	err := ascendPrefix(t, prefix, func(string, string) bool { n++; return true })
	return n, err
}
