package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// # Transaction patches
//
// An adjustment changes a few fields of its transaction (an amount, the action, the
// adjustment count), yet rewriting the whole record (txnbin.go) made it over half of
// the bytes each adjustment appended to the file: more for a restart to read and
// for a compaction to copy while it holds the writer's lock. So a transaction whose
// previous version the record cache holds is written as a patch, at
// txp:<transaction id>: the fields by which it differs from the record at
// txn:<transaction id>, a few dozen bytes. The record is rewritten whole (and the
// patch deleted) when the transaction is new or not cached, when a field a patch
// does not carry changed (times, slices, pointers), when a value is not UTF-8 (the
// record then goes to JSON), or when the patch would grow past maxPatch bytes,
// about half of a record.
//
// A patch's payload is txpFormat, then for each field it carries, in field order,
// the field's number and its value: a string (uvarint length + bytes) for the
// fields of patchStrings, a varint for the adjustment count, a byte for
// batch_closed. A patch carries every field its earlier version carried, with the
// transaction's current value, plus those that changed.
const (
	txpFormat        = 1
	txnPatchPrefix   = "txp:"
	txnRecordPrefix  = "txn:"
	patchCountField  = numPatchStrings
	patchClosedField = numPatchStrings + 1
	numPatchFields   = numPatchStrings + 2
)

var errTransactionPatch = errors.New("malformed transaction patch")

const numPatchStrings = 42

// patchStrings points at the string fields of t a patch may carry, in the order of
// their numbers (every string field but the id, which names the record).
func patchStrings(t *sandbox.Transaction) [numPatchStrings]*string {
	p, c, a, s := &t.PaymentMethod, &t.PaymentMethod.Card, &t.Action, &t.Card
	return [numPatchStrings]*string{
		&t.MerchantID, &t.Type, &t.Status, &t.Amount, &t.AuthorizationAmount, &t.GratuityAmount,
		&t.Currency, &t.Country, &t.Reference, &p.Result, &p.Message, &p.EntryMode,
		&c.Brand, &c.MaskedNumberLast4, &c.Authcode, &c.BrandReference, &c.BrandTimeCreated,
		&c.TagResponse, &c.CVVResult, &c.Funding, &t.BatchID, &t.EMVTag,
		&a.ID, &a.Type, &a.TimeCreated, &a.ResultCode, &a.AppID, &a.AppName,
		&t.Channel, &t.CaptureMode, &t.MerchantName, &t.AccountID, &t.AccountName, &t.AppID,
		&t.ParentID, &t.RefundedAmount, &t.CapturedAmount, &t.ReversedStatus,
		&s.Brand, &s.First6, &s.Last4, &s.Funding,
	}
}

// patchable reports whether t differs from prev only in fields a patch carries.
func patchable(prev, t *sandbox.Transaction) bool {
	return prev.ID == t.ID && prev.TimeCreated == t.TimeCreated &&
		equalPtr(prev.PaymentMethod.BNPL, t.PaymentMethod.BNPL) && equalOrder(prev.Order, t.Order) &&
		slices.Equal(prev.Scenarios, t.Scenarios) && prev.Lodging == nil && t.Lodging == nil
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// equalOrder compares order amounts whole, a field added later included: they are
// rare, and a difference a patch missed would be lost.
func equalOrder(a, b *sandbox.OrderAmounts) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(*a, *b)
}

// appendPatch appends to b the patch that turns the stored record into t: the fields
// carried already (carried[i]) and those in which t differs from prev. ok is false
// when a value is not UTF-8 (the record then goes to JSON, which a patch cannot
// follow).
func appendPatch(b []byte, prev, t *sandbox.Transaction, carried *[numPatchFields]bool) (_ []byte, ok bool) {
	b = append(b, txpFormat)
	was, now := patchStrings(prev), patchStrings(t)
	for i := range now {
		if carried[i] || *was[i] != *now[i] {
			if !utf8.ValidString(*now[i]) {
				return b, false
			}
			b = appendString(append(b, byte(i)), *now[i])
		}
	}
	if carried[patchCountField] || prev.AdjustmentCount != t.AdjustmentCount {
		b = binary.AppendVarint(append(b, patchCountField), int64(t.AdjustmentCount))
	}
	if carried[patchClosedField] || prev.BatchClosed != t.BatchClosed {
		b = append(b, patchClosedField, boolByte(t.BatchClosed))
	}
	return b, true
}

func boolByte(yes bool) byte {
	if yes {
		return 1
	}
	return 0
}

// applyPatch sets on t the fields a patch payload carries, and notes them in
// carried when it is not nil.
func applyPatch(t *sandbox.Transaction, payload string, carried *[numPatchFields]bool) error {
	if payload == "" || payload[0] != txpFormat {
		return errTransactionPatch
	}
	d := binReader{idemDecoder{rest: payload[1:]}}
	fields := patchStrings(t)
	last := -1
	for d.rest != "" && !d.bad {
		i := int(d.rest[0])
		d.rest = d.rest[1:]
		if i <= last || i >= numPatchFields {
			return errTransactionPatch
		}
		last = i
		switch i {
		case patchCountField:
			t.AdjustmentCount = int(d.varint())
		case patchClosedField:
			t.BatchClosed = d.present()
		default:
			*fields[i] = d.str()
		}
		if carried != nil {
			carried[i] = true
		}
	}
	if d.bad {
		return errTransactionPatch
	}
	return nil
}

// patchKey is the key of the patch of the record at key (txn:<id>).
func patchKey(recordKey string) string { return txnPatchPrefix + recordKey[len(txnRecordPrefix):] }

// storedPatch returns the payload of the patch at key, and whether there is one.
func storedPatch(t *buntdb.Tx, key string) (string, bool, error) {
	stored, err := readBucket(t, key)
	if err != nil || stored == "" {
		return "", false, err
	}
	payload, err := unseal(key, stored)
	return payload, err == nil, err
}

// patched applies to a transaction decoded from the record at key its patch, if
// there is one; other kinds of records pass as they are.
func patched[T any](t *buntdb.Tx, key string, v *T) error {
	txn, ok := any(v).(*sandbox.Transaction)
	if !ok || !strings.HasPrefix(key, txnRecordPrefix) {
		return nil
	}
	pkey := patchKey(key)
	payload, found, err := storedPatch(t, pkey)
	if err != nil || !found {
		return err
	}
	if err := applyPatch(txn, payload, nil); err != nil {
		return fmt.Errorf("store: decode %s: %w", pkey, err)
	}
	return nil
}

// putTransaction stores t at key (txn:<id>): as a patch when it can (see the top
// of this file), else whole.
func (x tx) putTransaction(key string, t *sandbox.Transaction) error {
	pkey := patchKey(key)
	old, hasOld, err := storedPatch(x.t, pkey)
	if err != nil {
		return err
	}
	if prev, ok := x.committedTransaction(key); ok && patchable(&prev, t) {
		var carried [numPatchFields]bool
		if hasOld {
			var scratch sandbox.Transaction
			if err := applyPatch(&scratch, old, &carried); err != nil {
				return fmt.Errorf("store: decode %s: %w", pkey, err)
			}
		}
		payload, ok := appendPatch(x.buffer(), &prev, t, &carried)
		x.keepBuffer(payload)
		if ok && len(payload) <= maxPatch {
			if _, _, err := x.t.Set(pkey, sealBytes(pkey, payload), nil); err != nil {
				return fmt.Errorf("store: put %s: %w", pkey, err)
			}
			return nil
		}
	}
	if err := x.putWholeTransaction(key, *t); err != nil {
		return err
	}
	if hasOld {
		if _, err := x.t.Delete(pkey); err != nil {
			return fmt.Errorf("store: delete %s: %w", pkey, err)
		}
	}
	return nil
}

// maxPatch is the longest patch written: about half of a typical record, past
// which rewriting the record is the cheaper thing to replay.
const maxPatch = 256

// committedTransaction returns the transaction at key as the Update sees it, from
// its own writes or the cache, without a copy (not to be changed); false when
// neither holds it.
func (x tx) committedTransaction(key string) (sandbox.Transaction, bool) {
	if x.writes.overflow {
		return sandbox.Transaction{}, false
	}
	v, ok := x.writes.records[key]
	if !ok && !x.writes.wiped {
		v, ok = x.cache.Get(key)
	}
	if !ok {
		return sandbox.Transaction{}, false
	}
	switch t := v.(type) {
	case *sandbox.Transaction:
		return *t, true
	case sandbox.Transaction:
		return t, true
	}
	return sandbox.Transaction{}, false
}
