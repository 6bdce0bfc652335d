package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// tx adapts a buntdb transaction to sandbox.Tx. It is valid only inside the View or
// Update that made it.
type tx struct {
	t          *buntdb.Tx
	cache      *recordCache
	writes     *pendingWrites // nil in a View
	legacyIdem bool           // idempotency records of the earlier layout may exist
	scratch    *[]byte        // the Store's encoding buffer, nil in a View (see putRecord)
	idem       *idemIndex     // where idempotency entries are (idemlog.go)
	// The Store's spare transaction, nil in a View (see cachedPutTransaction).
	spare **sandbox.Transaction
}

var _ sandbox.Tx = tx{}

// Apps, merchants, pricing profiles and transactions go through the record cache.

func (x tx) App(id string) (sandbox.App, error) { return cachedGet(x, "app:"+id, cloneApp) }
func (x tx) PutApp(a sandbox.App) error         { return cachedPut(x, "app:"+a.ID, a, cloneApp) }

func (x tx) Merchant(id string) (sandbox.Merchant, error) {
	return cachedGet(x, "merchant:"+id, cloneMerchant)
}
func (x tx) PutMerchant(m sandbox.Merchant) error {
	return cachedPut(x, "merchant:"+m.ID, m, cloneMerchant)
}

func (x tx) PricingProfile(name string) (sandbox.PricingProfile, error) {
	return cachedGet(x, "pricing:"+name, clonePricingProfile)
}
func (x tx) PutPricingProfile(p sandbox.PricingProfile) error {
	return cachedPut(x, "pricing:"+p.Name, p, clonePricingProfile)
}

func (x tx) Transaction(id string) (sandbox.Transaction, error) {
	return cachedGet(x, "txn:"+id, cloneTransaction)
}
func (x tx) PutTransaction(t sandbox.Transaction) error {
	return x.cachedPutTransaction("txn:"+t.ID, t)
}

// DeleteAdjustments deletes adj:<transaction id>:*, collecting the keys first:
// buntdb refuses writes while the transaction is iterating.
func (x tx) DeleteAdjustments(transactionID string) error {
	var keys []string
	err := x.t.AscendKeys("adj:"+transactionID+":*", func(key, _ string) bool {
		keys = append(keys, key)
		return true
	})
	if err != nil {
		return fmt.Errorf("store: scan adjustments of %s: %w", transactionID, err)
	}
	for _, k := range keys {
		if _, err := x.t.Delete(k); err != nil {
			return fmt.Errorf("store: delete %s: %w", k, err)
		}
	}
	return nil
}

func (x tx) Order(id string) (sandbox.Order, error) { return get[sandbox.Order](x.t, "order:"+id) }
func (x tx) PutOrder(o sandbox.Order) error         { return put(x.t, "order:"+o.ID, o) }

// Outbox keys: ntf:<order id>:<seq> holds the entry, outbox:<order id>:<seq> (empty)
// marks it pending. The seq is zero-padded so that key order is delivery order.
func ntfKey(orderID string, seq int) string    { return fmt.Sprintf("ntf:%s:%08d", orderID, seq) }
func outboxKey(orderID string, seq int) string { return fmt.Sprintf("outbox:%s:%08d", orderID, seq) }

// Notifications go through the record cache too: the notification worker reads every
// pending entry on each of its passes, a pass per placed order and per delivery, and
// under load decoding their JSON each time was a fifth of the sandbox's CPU (and a
// View that long holds up every write).
func (x tx) Notification(orderID string, seq int) (sandbox.Notification, error) {
	return cachedGet(x, ntfKey(orderID, seq), cloneNotification)
}

func (x tx) PutNotification(n sandbox.Notification) error {
	if err := cachedPut(x, ntfKey(n.OrderID, n.Seq), n, cloneNotification); err != nil {
		return err
	}
	key := outboxKey(n.OrderID, n.Seq)
	if n.State == sandbox.NotificationPending {
		if _, _, err := x.t.Set(key, seal(key, ""), nil); err != nil {
			return fmt.Errorf("store: put %s: %w", key, err)
		}
		return nil
	}
	if _, err := x.t.Delete(key); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
		return fmt.Errorf("store: delete %s: %w", key, err)
	}
	return nil
}

func (x tx) Notifications(orderID string) ([]sandbox.Notification, error) {
	pattern := "ntf:*"
	if orderID != "" {
		pattern = "ntf:" + orderID + ":*"
	}
	return scan[sandbox.Notification](x.t, pattern)
}

func (x tx) PendingNotifications() ([]sandbox.Notification, error) {
	var keys []string
	err := x.t.AscendKeys("outbox:*", func(key, _ string) bool {
		keys = append(keys, "ntf:"+key[len("outbox:"):])
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("store: scan outbox: %w", err)
	}
	out := make([]sandbox.Notification, 0, len(keys))
	for _, k := range keys {
		n, err := cachedGet(x, k, cloneNotification)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func (x tx) Token(value string) (sandbox.Token, error) {
	return get[sandbox.Token](x.t, "token:"+value)
}
func (x tx) PutToken(t sandbox.Token, keep time.Duration) error {
	return putFor(x.t, "token:"+t.Value, t, keep)
}

func (x tx) DeleteToken(value string) error {
	if _, err := x.t.Delete("token:" + value); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
		return fmt.Errorf("store: delete token: %w", err)
	}
	return nil
}

func (x tx) Meta(key string) (string, error) { return get[string](x.t, "meta:"+key) }
func (x tx) PutMeta(key, value string) error { return put(x.t, "meta:"+key, value) }

func (x tx) ScenarioStep(scope, scenario string, rule int) (int, error) {
	n, err := get[int](x.t, stepKey(scope, scenario, rule))
	if errors.Is(err, sandbox.ErrNotFound) {
		return 0, nil
	}
	return n, err
}
func (x tx) PutScenarioStep(scope, scenario string, rule int, n int) error {
	return put(x.t, stepKey(scope, scenario, rule), n)
}

// stepKey names a sequence counter. The scope comes last because it is the client's
// text (a session header) and may contain any character, ':' included.
func stepKey(scope, scenario string, rule int) string {
	return "step:" + scenario + ":" + strconv.Itoa(rule) + ":" + scope
}

// DeleteAll wipes every key, and tells the transaction cache so.
func (x tx) DeleteAll() error {
	if err := x.t.DeleteAll(); err != nil {
		return err
	}
	if _, _, err := x.t.Set(headerKey, headerValue(0), nil); err != nil {
		return err // the header stays: a compaction writes it first again
	}
	x.writes.records, x.writes.wiped = map[string]any{}, true
	x.writes.idemPlaced = nil
	return nil
}

// get decodes the record at key; a missing key is sandbox.ErrNotFound.
func get[T any](t *buntdb.Tx, key string) (T, error) {
	s, err := t.Get(key)
	if err == nil {
		return decodeIn[T](t, key, s)
	}
	var zero T
	if errors.Is(err, buntdb.ErrNotFound) {
		return zero, sandbox.ErrNotFound
	}
	return zero, fmt.Errorf("store: get %s: %w", key, err)
}

// decode unseals and decodes one stored value.
func decode[T any](key, value string) (T, error) {
	var v T
	value, err := unseal(key, value)
	if err != nil {
		return v, err
	}
	if err := unmarshalRecord(value, &v); err != nil {
		return v, fmt.Errorf("store: decode %s: %w", key, err)
	}
	return v, nil
}

// decodeIn decodes the value stored at key as decode does, and applies a
// transaction's patch (txnpatch.go).
func decodeIn[T any](t *buntdb.Tx, key, value string) (T, error) {
	v, err := decode[T](key, value)
	if err == nil {
		err = patched(t, key, &v)
	}
	return v, err
}

// scan decodes every value whose key matches pattern, in key order.
func scan[T any](t *buntdb.Tx, pattern string) ([]T, error) {
	return scanWith(t, pattern, func(key, value string) (T, error) { return decodeIn[T](t, key, value) })
}

// scanWith decodes with decodeValue every value whose key matches pattern, in key
// order, and stops at the first it cannot decode.
func scanWith[T any](t *buntdb.Tx, pattern string, decodeValue func(key, value string) (T, error)) ([]T, error) {
	var out []T
	var decodeErr error
	err := t.AscendKeys(pattern, func(key, value string) bool {
		var v T
		if v, decodeErr = decodeValue(key, value); decodeErr != nil {
			return false
		}
		out = append(out, v)
		return true
	})
	if err == nil {
		err = decodeErr
	}
	return out, err
}

// putRecord stores v at key, for good: as JSON, but a transaction as a patch
// (txnpatch.go) or in its binary encoding (txnbin.go) unless it must be JSON.
func (x tx) putRecord(key string, v any) error {
	t, ok := v.(sandbox.Transaction)
	if !ok || x.scratch == nil {
		return put(x.t, key, v)
	}
	return x.putTransaction(key, &t)
}

// putWholeTransaction stores t at key in its binary encoding, or as JSON when it
// must be. It is encoded into the Store's encoding buffer (buffer), which only the
// one Update running uses, so that its encoding allocates nothing but the stored
// string.
func (x tx) putWholeTransaction(key string, t sandbox.Transaction) error {
	payload, ok, err := appendTransactionBinary(x.buffer(), t)
	if err == nil && !ok {
		return put(x.t, key, t) // a string that is not UTF-8: rare, stored as JSON
	}
	if err != nil {
		return fmt.Errorf("store: encode %s: %w", key, err)
	}
	x.keepBuffer(payload)
	if _, _, err := x.t.Set(key, sealBytes(key, payload), nil); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	return nil
}

// buffer returns the Store's encoding buffer, empty, for an encoding that is copied
// out (sealBytes) before the next one starts; nil in a View. The records an Update
// writes are encoded there, so that encoding them allocates only the stored string.
func (x tx) buffer() []byte {
	if x.scratch == nil {
		return nil
	}
	return (*x.scratch)[:0]
}

// keepBuffer keeps b, grown from buffer(), as the encoding buffer, and returns it.
func (x tx) keepBuffer(b []byte) []byte {
	if x.scratch != nil {
		*x.scratch = b
	}
	return b
}

// put stores v at key as JSON, for good.
func put(t *buntdb.Tx, key string, v any) error { return putFor(t, key, v, 0) }

// putFor stores v at key as JSON; with keep > 0 buntdb deletes the key by itself once
// keep has passed (a TTL kept in the file, so it holds across restarts).
func putFor(t *buntdb.Tx, key string, v any, keep time.Duration) error {
	value, err := sealedJSON(key, v)
	if err != nil {
		return fmt.Errorf("store: encode %s: %w", key, err)
	}
	var opts *buntdb.SetOptions
	if keep > 0 {
		opts = &buntdb.SetOptions{Expires: true, TTL: keep}
	}
	if _, _, err := t.Set(key, value, opts); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	return nil
}

// sealedJSON returns seal(key, the JSON of v) with one copy of the JSON: the
// allocation profile showed each record copied three times on its way to buntdb
// (out of json.Marshal's buffer, into a string, and into the sealed string) and a
// checksum hasher made per record.
func sealedJSON(key string, v any) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return sealBytes(key, payload), nil
}

// sealBytes is seal of a payload in bytes, copied once.
func sealBytes(key string, payload []byte) string {
	var sum [sumDigits]byte
	hexSum(sum[:], recordSumOf(key, payload))
	var b strings.Builder
	b.Grow(sumDigits + len(payload))
	b.Write(sum[:])
	b.Write(payload)
	return b.String()
}

// recordSumOf is recordSum of a payload in bytes, computed without allocating.
func recordSumOf(key string, payload []byte) uint32 {
	return crc32.Update(crcNUL(crcString(0, key)), castagnoli, payload)
}
