package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
func (x tx) PutTransaction(t sandbox.Transaction) error { return put(x.t, "txn:"+t.ID, t) }

// Adjustment history keys sort by time (GP's fixed-width millisecond format) and
// then action id: adj:<transaction id>:<time>:<action id>.
func (x tx) Adjustments(transactionID string) ([]sandbox.Adjustment, error) {
	var out []sandbox.Adjustment
	var decodeErr error
	err := x.t.AscendKeys("adj:"+transactionID+":*", func(key, value string) bool {
		var a sandbox.Adjustment
		if decodeErr = json.Unmarshal([]byte(value), &a); decodeErr != nil {
			decodeErr = fmt.Errorf("store: decode %s: %w", key, decodeErr)
			return false
		}
		out = append(out, a)
		return true
	})
	if err == nil {
		err = decodeErr
	}
	return out, err
}
func (x tx) PutAdjustment(transactionID string, a sandbox.Adjustment) error {
	return put(x.t, "adj:"+transactionID+":"+a.Time+":"+a.ActionID, a)
}

func (x tx) Order(id string) (sandbox.Order, error) { return get[sandbox.Order](x.t, "order:"+id) }
func (x tx) PutOrder(o sandbox.Order) error         { return put(x.t, "order:"+o.ID, o) }

func (x tx) Token(value string) (sandbox.Token, error) {
	return get[sandbox.Token](x.t, "token:"+value)
}
func (x tx) PutToken(t sandbox.Token) error { return put(x.t, "token:"+t.Value, t) }

func (x tx) Idempotency(appID, key string) (sandbox.IdempotencyRecord, error) {
	return get[sandbox.IdempotencyRecord](x.t, idemKey(appID, key))
}
func (x tx) PutIdempotency(r sandbox.IdempotencyRecord) error {
	return put(x.t, idemKey(r.AppID, r.Key), r)
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

// idemKey scopes an idempotency key to its app: two apps may use the same key.
func idemKey(appID, key string) string { return "idem:" + appID + ":" + key }

// DeleteExpired walks the two time indexes up to the cutoffs, then deletes what it
// found: buntdb refuses writes while the transaction is iterating.
func (x tx) DeleteExpired(tokenCutoff, keyCutoff time.Time) (int, error) {
	var keys []string
	collect := func(key, _ string) bool { keys = append(keys, key); return true }
	if err := x.t.AscendLessThan(tokenIndex, pivot(tokenField, tokenCutoff), collect); err != nil {
		return 0, fmt.Errorf("store: scan tokens: %w", err)
	}
	if err := x.t.AscendLessThan(idemIndex, pivot(idemField, keyCutoff), collect); err != nil {
		return 0, fmt.Errorf("store: scan idempotency keys: %w", err)
	}
	for _, k := range keys {
		if _, err := x.t.Delete(k); err != nil {
			return 0, fmt.Errorf("store: delete %s: %w", k, err)
		}
	}
	return len(keys), nil
}

// DeleteAll wipes every key; the indexes stay defined.
func (x tx) DeleteAll() error { return x.t.DeleteAll() }

// get decodes the JSON at key; a missing key is sandbox.ErrNotFound.
func get[T any](t *buntdb.Tx, key string) (T, error) {
	var v T
	s, err := t.Get(key)
	if errors.Is(err, buntdb.ErrNotFound) {
		return v, sandbox.ErrNotFound
	}
	if err != nil {
		return v, fmt.Errorf("store: get %s: %w", key, err)
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return v, fmt.Errorf("store: decode %s: %w", key, err)
	}
	return v, nil
}

// put stores v at key as JSON.
func put(t *buntdb.Tx, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode %s: %w", key, err)
	}
	if _, _, err := t.Set(key, string(b), nil); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	return nil
}
