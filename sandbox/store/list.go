package store

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Listings for the admin API: records in key order (by id, then seq). The orders and
// apps are in sandbox.Tx too (the order schedule and the terminal binding read them);
// the others are sandbox.InspectTx's alone.

var _ sandbox.InspectTx = tx{}

func (x tx) OrderPage(after string, limit int) ([]sandbox.Order, error) {
	return page[sandbox.Order](x.t, "order:", after, limit)
}

func (x tx) BatchPage(after string, limit int) ([]sandbox.Batch, error) {
	return page[sandbox.Batch](x.t, "batch:", after, limit)
}

func (x tx) Devices() ([]sandbox.Device, error) { return scan[sandbox.Device](x.t, "device:") }

// Notifications lists by seq (ntf keys, see tx.go) the entries of one order, or all.
func (x tx) Notifications(orderID string) ([]sandbox.Notification, error) {
	prefix := "ntf:"
	if orderID != "" {
		prefix = "ntf:" + orderID + ":"
	}
	return scan[sandbox.Notification](x.t, prefix)
}

func (x tx) Apps() ([]sandbox.App, error) { return scan[sandbox.App](x.t, "app:") }

func (x tx) Merchants() ([]sandbox.Merchant, error) {
	return scan[sandbox.Merchant](x.t, "merchant:")
}

// ScenarioSteps lists every sequence counter; see stepKey for the key layout.
func (x tx) ScenarioSteps() ([]sandbox.ScenarioStep, error) {
	var out []sandbox.ScenarioStep
	var decodeErr error
	err := ascendPrefix(x.t, "step:", func(key, value string) bool {
		// step:<scenario>:<rule>:<scope>; a scenario name has no ':', the scope may.
		parts := strings.SplitN(strings.TrimPrefix(key, "step:"), ":", 3)
		var count int
		if len(parts) != 3 {
			decodeErr = fmt.Errorf("store: decode %s", key)
			return false
		}
		rule, err := strconv.Atoi(parts[1])
		if err == nil {
			err = decode(key, value, &count)
		}
		if err != nil {
			decodeErr = fmt.Errorf("store: decode %s: %w", key, err)
			return false
		}
		out = append(out, sandbox.ScenarioStep{Scenario: parts[0], Rule: rule, Scope: parts[2], Count: count})
		return true
	})
	if err == nil {
		err = decodeErr
	}
	return out, err
}

// page decodes up to limit values (all when limit < 0) whose key starts with prefix
// and sorts after prefix+after, in key order.
func page[T any](t *buntdb.Tx, prefix, after string, limit int) ([]T, error) {
	out := []T{}
	var decodeErr error
	pivot := prefix
	if after != "" {
		pivot = prefix + after + "\x00" // the first key after prefix+after
	}
	err := t.AscendGreaterOrEqual("", pivot, func(key, value string) bool {
		if !strings.HasPrefix(key, prefix) || len(out) == limit {
			return false
		}
		var v T
		if decodeErr = decode(key, value, &v); decodeErr != nil {
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
