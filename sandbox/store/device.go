package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Two buntdb indexes over device:* find a terminal without reading the others: by
// merchant and account (the terminal a MiC request reaches), and by the command
// pending on it (what the terminal delay waits on). buntdb keeps them in the
// transaction that writes a device, binding, unbinding or deleting it, so a rolled
// back Update, a reset, fixtures, a restored snapshot (its device records copied in)
// and a file written before the indexes existed need nothing more; like the
// transaction indexes, they are built in memory at every open. Terminals number in
// the hundreds, not the tens of thousands of transactions: buntdb's own JSON
// comparison does.
const (
	deviceAccountIndex = "device_account"
	devicePendingIndex = "device_pending"
)

func createDeviceIndexes(db *buntdb.DB) error {
	// Ties sort by key, so the first of two terminals bound to one account (fixtures
	// may name two) is the lower id, as when every terminal was read.
	err := db.CreateIndex(deviceAccountIndex, "device:*",
		buntdb.IndexJSONCaseSensitive("merchant_id"), buntdb.IndexJSONCaseSensitive("account_id"))
	if err == nil {
		err = db.CreateIndex(devicePendingIndex, "device:*", buntdb.IndexJSONCaseSensitive("pending"))
	}
	return err
}

// BoundDevice implements sandbox.Tx: one seek in the index, one record read.
func (x tx) BoundDevice(merchantID, accountID string) (sandbox.Device, error) {
	// The pivot is a record as put writes one, with the members the index compares.
	pivot, err := json.Marshal(sandbox.Device{MerchantID: merchantID, AccountID: accountID})
	if err != nil {
		return sandbox.Device{}, fmt.Errorf("store: device of %s %s: %w", merchantID, accountID, err)
	}
	var d sandbox.Device
	err = sandbox.ErrNotFound
	iterErr := x.t.AscendEqual(deviceAccountIndex, string(pivot), func(key, value string) bool {
		err = decode(key, value, &d)
		return false
	})
	if iterErr != nil {
		return sandbox.Device{}, iterErr
	}
	return d, err
}

// PendingDevices implements sandbox.Tx: the devices with no pending command (the
// member left out) sort first in the index, so the walk down it stops at the first
// of them.
func (x tx) PendingDevices() ([]sandbox.Device, error) {
	var out []sandbox.Device
	var err error
	iterErr := x.t.Descend(devicePendingIndex, func(key, value string) bool {
		var d sandbox.Device
		if err = decode(key, value, &d); err != nil || d.Pending == "" {
			return false
		}
		out = append(out, d)
		return true
	})
	if err == nil {
		err = iterErr
	}
	slices.SortFunc(out, func(a, b sandbox.Device) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}
