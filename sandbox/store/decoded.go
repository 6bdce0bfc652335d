package store

import (
	"strings"
	"sync"
)

// Nearly every request reads its transaction, and the batch the transaction is in,
// and encoding/json decoding them again took 11 and 8 µs of an adjustment's 120 µs
// of CPU. decodedRecords keeps the last decoding of each such record beside the text
// it came from, and for a transaction what put wrote (a transaction survives the JSON
// round trip as it is: no member is left out of its JSON, and its times are in UTC to
// the millisecond; a batch's Members are not stored). One difference remains: an
// empty list put as such (a request's "types": []) is read back empty where its
// decoding would be nil; both encode alike (TestKeptTransactionIsItsDecoding), and
// the sandbox reads lists by their length.
//
// An entry serves a read only while the record holds that very text (buntdb hands
// back the string it was given, so the comparison of equal texts stops at their
// shared pointer), which a write, a rolled-back write or a restore changes: no entry
// needs forgetting for the store to stay right. The whole set is dropped when it
// reaches decodedLimit entries, so that a long list does not hold every record twice.
//
// A read gets a copy of the value, which shares what its pointer and slice members
// point to with the entry: the sandbox replaces such members, never changes what they
// point to, in a transaction or a batch. Merchants are not kept: a device order
// appends to its merchant's boarding in place.
const decodedLimit = 4096

var decodedRecords = struct {
	sync.Mutex
	m map[string]decodedRecord
}{m: map[string]decodedRecord{}}

type decodedRecord struct {
	text  string
	value any
}

// keepsDecoded tells the records decodedRecords keeps when read, and keepsPut those it
// keeps as put wrote them.
func keepsDecoded(key string) bool { return keepsPut(key) || strings.HasPrefix(key, "batch:") }
func keepsPut(key string) bool     { return strings.HasPrefix(key, "txn:") }

// decodedAs answers the kept decoding of text at key, if it is one of a T.
func decodedAs[T any](key, text string) (T, bool) {
	decodedRecords.Lock()
	d, ok := decodedRecords.m[key]
	decodedRecords.Unlock()
	if !ok || d.text != text {
		var zero T
		return zero, false
	}
	v, ok := d.value.(T)
	return v, ok
}

// keepDecoded remembers that text at key decodes as value.
func keepDecoded(key, text string, value any) {
	decodedRecords.Lock()
	defer decodedRecords.Unlock()
	if len(decodedRecords.m) >= decodedLimit {
		clear(decodedRecords.m)
	}
	decodedRecords.m[key] = decodedRecord{text: text, value: value}
}
