package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// tx adapts a buntdb transaction to sandbox.Tx. It is valid only inside the View or
// Update that made it.
type tx struct{ t *buntdb.Tx }

var _ sandbox.Tx = tx{}

func (x tx) App(id string) (sandbox.App, error) { return get[sandbox.App](x.t, "app:"+id) }
func (x tx) PutApp(a sandbox.App) error         { return put(x.t, "app:"+a.ID, a) }

func (x tx) Merchant(id string) (sandbox.Merchant, error) {
	return get[sandbox.Merchant](x.t, "merchant:"+id)
}
func (x tx) PutMerchant(m sandbox.Merchant) error { return put(x.t, "merchant:"+m.ID, m) }

func (x tx) PricingProfile(name string) (sandbox.PricingProfile, error) {
	return get[sandbox.PricingProfile](x.t, "pricing:"+name)
}
func (x tx) PutPricingProfile(p sandbox.PricingProfile) error {
	return put(x.t, "pricing:"+p.Name, p)
}

func (x tx) Transaction(id string) (sandbox.Transaction, error) {
	return get[sandbox.Transaction](x.t, "txn:"+id)
}

// adjKey names one history entry; the padded seq makes key order the order of age.
func adjKey(transactionID string, seq int) string {
	return fmt.Sprintf("adj:%s:%010d", transactionID, seq)
}

func (x tx) Adjustments(transactionID string) ([]sandbox.Adjustment, error) {
	return scan[sandbox.Adjustment](x.t, "adj:"+transactionID+":")
}

// AddAdjustment stores a and drops the entry keep seqs older, which the Service's
// seqs (one more per adjustment) make the oldest of keep+1: one delete, no scan.
func (x tx) AddAdjustment(transactionID string, a sandbox.Adjustment, keep int) error {
	if err := put(x.t, adjKey(transactionID, a.Seq), a); err != nil {
		return err
	}
	if a.Seq <= keep {
		return nil
	}
	return del(x.t, adjKey(transactionID, a.Seq-keep))
}

func (x tx) DeleteAdjustments(transactionID string) error {
	return deletePrefix(x.t, "adj:"+transactionID+":")
}

func (x tx) Order(id string) (sandbox.Order, error) { return get[sandbox.Order](x.t, "order:"+id) }
func (x tx) PutOrder(o sandbox.Order) error         { return put(x.t, "order:"+o.ID, o) }

func (x tx) Device(id string) (sandbox.Device, error) { return get[sandbox.Device](x.t, "device:"+id) }
func (x tx) PutDevice(d sandbox.Device) error         { return put(x.t, "device:"+d.ID, d) }

func (x tx) DeviceRequest(id string) (sandbox.DeviceRequest, error) {
	return get[sandbox.DeviceRequest](x.t, "devreq:"+id)
}
func (x tx) PutDeviceRequest(d sandbox.DeviceRequest) error { return put(x.t, "devreq:"+d.ID, d) }

func (x tx) Batch(id string) (sandbox.Batch, error) { return get[sandbox.Batch](x.t, "batch:"+id) }
func (x tx) PutBatch(b sandbox.Batch) error         { return put(x.t, "batch:"+b.ID, b) }

func (x tx) BatchMembers(batchID string) ([]string, error) {
	return scan[string](x.t, "bmember:"+batchID+":")
}

func (x tx) PutBatchMember(batchID, transactionID string) error {
	return put(x.t, "bmember:"+batchID+":"+transactionID, transactionID)
}

func (x tx) DeleteBatchMember(batchID, transactionID string) error {
	return del(x.t, "bmember:"+batchID+":"+transactionID)
}

// Outbox keys: ntf:<order id>:<seq> holds the entry, outbox:<order id>:<seq> (empty)
// marks it pending. The seq is zero-padded so that key order is delivery order.
func ntfKey(orderID string, seq int) string    { return fmt.Sprintf("ntf:%s:%08d", orderID, seq) }
func outboxKey(orderID string, seq int) string { return fmt.Sprintf("outbox:%s:%08d", orderID, seq) }

func (x tx) Notification(orderID string, seq int) (sandbox.Notification, error) {
	return get[sandbox.Notification](x.t, ntfKey(orderID, seq))
}

func (x tx) PutNotification(n sandbox.Notification) error {
	if err := put(x.t, ntfKey(n.OrderID, n.Seq), n); err != nil {
		return err
	}
	if n.State == sandbox.NotificationPending {
		return put(x.t, outboxKey(n.OrderID, n.Seq), "")
	}
	return del(x.t, outboxKey(n.OrderID, n.Seq))
}

func (x tx) PendingNotifications() ([]sandbox.Notification, error) {
	var keys []string
	err := ascendPrefix(x.t, "outbox:", func(key, _ string) bool {
		keys = append(keys, "ntf:"+strings.TrimPrefix(key, "outbox:"))
		return true
	})
	out := make([]sandbox.Notification, 0, len(keys))
	for _, k := range keys {
		if err != nil {
			break
		}
		var n sandbox.Notification
		if n, err = get[sandbox.Notification](x.t, k); err == nil {
			out = append(out, n)
		}
	}
	return out, err
}

func (x tx) Token(hash string) (sandbox.Token, error) {
	return get[sandbox.Token](x.t, "token:"+hash)
}
func (x tx) PutToken(t sandbox.Token, keep time.Duration) error {
	return putFor(x.t, "token:"+t.Hash, t, keep)
}
func (x tx) DeleteToken(hash string) error { return del(x.t, "token:"+hash) }

func (x tx) Idempotency(appID, key string) (sandbox.IdempotencyRecord, error) {
	r, err := get[sandbox.IdempotencyRecord](x.t, "idem:"+appID+":"+key)
	r.AppID, r.Key = appID, key // named by the record's key, not kept in its value
	return r, err
}
func (x tx) PutIdempotency(r sandbox.IdempotencyRecord, keep time.Duration) error {
	return putFor(x.t, "idem:"+r.AppID+":"+r.Key, r, keep)
}

func (x tx) PaymentMark(key string) (sandbox.PaymentMark, error) {
	return get[sandbox.PaymentMark](x.t, "paid:"+key)
}
func (x tx) PutPaymentMark(m sandbox.PaymentMark, keep time.Duration) error {
	return putFor(x.t, "paid:"+m.Key, m, keep)
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
func (x tx) PutScenarioStep(scope, scenario string, rule int, n int, keep time.Duration) error {
	return putFor(x.t, stepKey(scope, scenario, rule), n, keep)
}

// stepKey names a sequence counter. The scope comes last because it is the client's
// text (a session header) and may contain any character, ':' included.
func stepKey(scope, scenario string, rule int) string {
	return "step:" + scenario + ":" + strconv.Itoa(rule) + ":" + scope
}

// DeleteAll wipes every key but the mark, which it writes again (buntdb logs the wipe
// as a flushdb, after which the mark must again come first).
func (x tx) DeleteAll() error {
	if err := x.t.DeleteAll(); err != nil {
		return err
	}
	return putMark(x.t)
}

// get decodes the record at key; a missing key is sandbox.ErrNotFound.
func get[T any](t *buntdb.Tx, key string) (T, error) {
	s, err := t.Get(key)
	if err != nil {
		var zero T
		if errors.Is(err, buntdb.ErrNotFound) {
			return zero, sandbox.ErrNotFound
		}
		return zero, fmt.Errorf("store: get %s: %w", key, err)
	}
	if !keepsDecoded(key) {
		return decodeAs[T](key, s)
	}
	if kept, ok := decodedAs[T](key, s); ok {
		return kept, nil
	}
	v, err := decodeAs[T](key, s)
	if err == nil {
		keepDecoded(key, s, v)
	}
	return v, err
}

// decodeAs decodes value as a T. get calls it only when the kept decoding does not
// serve, so that a hit in that cache returns its T without a T on the heap.
func decodeAs[T any](key, value string) (T, error) {
	var v T
	err := decode(key, value, &v)
	return v, err
}

func decode(key, value string, v any) error {
	if err := json.Unmarshal([]byte(value), v); err != nil {
		return fmt.Errorf("store: decode %s: %w", key, err)
	}
	return nil
}

// put stores v at key as JSON, for good.
func put(t *buntdb.Tx, key string, v any) error { return putFor(t, key, v, 0) }

// putFor stores v at key as JSON; with keep > 0 buntdb deletes the key by itself once
// keep has passed (a TTL kept in the file, so it holds across restarts).
func putFor(t *buntdb.Tx, key string, v any, keep time.Duration) error {
	value, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode %s: %w", key, err)
	}
	var opts *buntdb.SetOptions
	if keep > 0 {
		opts = &buntdb.SetOptions{Expires: true, TTL: keep}
	}
	text := string(value)
	if _, _, err := t.Set(key, text, opts); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	if keepsPut(key) {
		keepDecoded(key, text, v)
	}
	return nil
}

// del deletes key; a missing key is no error.
func del(t *buntdb.Tx, key string) error {
	if _, err := t.Delete(key); err != nil && !errors.Is(err, buntdb.ErrNotFound) {
		return fmt.Errorf("store: delete %s: %w", key, err)
	}
	return nil
}

// deletePrefix deletes every key that starts with prefix.
func deletePrefix(t *buntdb.Tx, prefix string) error {
	return deleteMatching(t, prefix, func(string) bool { return true })
}

// deleteMatching deletes every key that starts with prefix and that match accepts,
// collecting them first: buntdb refuses writes while the transaction is iterating.
func deleteMatching(t *buntdb.Tx, prefix string, match func(key string) bool) error {
	var keys []string
	err := ascendPrefix(t, prefix, func(key, _ string) bool {
		if match(key) {
			keys = append(keys, key)
		}
		return true
	})
	for _, k := range keys {
		if err == nil {
			err = del(t, k)
		}
	}
	return err
}

// ascendPrefix calls fn for every key that starts with prefix, in key order, until fn
// returns false.
func ascendPrefix(t *buntdb.Tx, prefix string, fn func(key, value string) bool) error {
	return t.AscendGreaterOrEqual("", prefix, func(key, value string) bool {
		return strings.HasPrefix(key, prefix) && fn(key, value)
	})
}

// readThenDecode lists the records under prefix in key order, for a list that may
// hold thousands: its read only collects their text, and decoding them, most of such
// a list's time (150 ms for 10,000 actions), waits until the read has let writers in.
func readThenDecode[T any](s *Store, prefix string) ([]T, error) {
	var keys, texts []string
	err := s.db.View(func(t *buntdb.Tx) error {
		return ascendPrefix(t, prefix, func(key, value string) bool {
			keys, texts = append(keys, key), append(texts, value)
			return true
		})
	})
	if err != nil || len(texts) == 0 {
		return nil, err
	}
	all := make([]T, len(texts))
	for i, text := range texts {
		if err := decode(keys[i], text, &all[i]); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// scan decodes every value whose key starts with prefix, in key order; nil when
// there is none.
func scan[T any](t *buntdb.Tx, prefix string) ([]T, error) {
	out, err := page[T](t, prefix, "", -1)
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// PaymentMethods lists the stored card tokens in id order, decoded after the read
// (readThenDecode).
func (s *Store) PaymentMethods() ([]sandbox.PaymentMethod, error) {
	return readThenDecode[sandbox.PaymentMethod](s, "pmt:")
}

func (x tx) PaymentMethod(id string) (sandbox.PaymentMethod, error) {
	return get[sandbox.PaymentMethod](x.t, "pmt:"+id)
}
func (x tx) PutPaymentMethod(p sandbox.PaymentMethod) error { return put(x.t, "pmt:"+p.ID, p) }
func (x tx) DeletePaymentMethod(id string) error            { return del(x.t, "pmt:"+id) }
