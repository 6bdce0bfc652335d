package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// boundTo is the id of the terminal BoundDevice finds, "" for none.
func boundTo(t *testing.T, s *Store, merchantID, accountID string) string {
	t.Helper()
	var id string
	mustView(t, s, func(tx sandbox.Tx) error {
		d, err := tx.BoundDevice(merchantID, accountID)
		if errors.Is(err, sandbox.ErrNotFound) {
			return nil
		}
		id = d.ID
		return err
	})
	return id
}

// pendingIDs are the ids PendingDevices lists, joined.
func pendingIDs(t *testing.T, s *Store) string {
	t.Helper()
	var ids []string
	mustView(t, s, func(tx sandbox.Tx) error {
		devices, err := tx.PendingDevices()
		for _, d := range devices {
			ids = append(ids, d.ID)
		}
		return err
	})
	return strings.Join(ids, " ")
}

// The lookups follow every write of a device: binding, re-binding, unbinding, a
// command pending and done, a rolled back Update, a snapshot restored, a reopen and a
// wipe.
func TestDeviceLookups(t *testing.T) {
	const m1, m2, t1, t2 = "MER_1", "MER_2", "TRA_1", "TRA_2"
	put := func(t *testing.T, s *Store, devices ...sandbox.Device) {
		t.Helper()
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			for _, d := range devices {
				if err := tx.PutDevice(d); err != nil {
					return err
				}
			}
			return nil
		})
	}
	check := func(t *testing.T, s *Store, want map[[2]string]string, pending string) {
		t.Helper()
		for ma, id := range want {
			if got := boundTo(t, s, ma[0], ma[1]); got != id {
				t.Errorf("bound to %s %s: %q, want %q", ma[0], ma[1], got, id)
			}
		}
		if got := pendingIDs(t, s); got != pending {
			t.Errorf("pending: %q, want %q", got, pending)
		}
	}
	a := sandbox.Device{ID: "DEV_A", MerchantID: m1, AccountID: t1}
	b := sandbox.Device{ID: "DEV_B", MerchantID: m1}
	c := sandbox.Device{ID: "DEV_C", MerchantID: m2, AccountID: t1, Pending: "DRQ_1"}
	z := sandbox.Device{ID: "DEV_Z", MerchantID: m1, AccountID: t1, Pending: "DRQ_0"}
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	put(t, s, z, c, b, a)
	check(t, s, map[[2]string]string{{m1, t1}: "DEV_A", {m2, t1}: "DEV_C", {m1, t2}: "", {m2, t2}: ""}, "DEV_C DEV_Z")

	// Re-bound: A a spare, B on t2, Z alone on t1; C's command done.
	a.AccountID, b.AccountID, c.Pending = "", t2, ""
	put(t, s, a, b, c)
	check(t, s, map[[2]string]string{{m1, t1}: "DEV_Z", {m1, t2}: "DEV_B", {m2, t1}: "DEV_C"}, "DEV_Z")
	if _, err := s.SaveSnapshot("rebound", "", false); err != nil {
		t.Fatal(err)
	}

	// A rolled back Update leaves the lookups as they were.
	if err := s.Update(func(tx sandbox.Tx) error {
		b.AccountID = ""
		if err := tx.PutDevice(b); err != nil {
			return err
		}
		return errors.New("refused")
	}); err == nil {
		t.Fatal("the Update did not fail")
	}
	check(t, s, map[[2]string]string{{m1, t2}: "DEV_B"}, "DEV_Z")

	// Moved on, then the snapshot restored: the lookups are the snapshot's.
	b.AccountID, c.AccountID, c.Pending = "", "", "DRQ_2"
	put(t, s, b, c, sandbox.Device{ID: "DEV_N", MerchantID: m1, AccountID: t2})
	check(t, s, map[[2]string]string{{m1, t2}: "DEV_N", {m2, t1}: ""}, "DEV_C DEV_Z")
	if _, err := s.RestoreSnapshot("rebound"); err != nil {
		t.Fatal(err)
	}
	restored := map[[2]string]string{{m1, t1}: "DEV_Z", {m1, t2}: "DEV_B", {m2, t1}: "DEV_C"}
	check(t, s, restored, "DEV_Z")

	// Built again at the next open.
	mustClose(t, s)
	s = mustOpen(t, path)
	check(t, s, restored, "DEV_Z")

	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	check(t, s, map[[2]string]string{{m1, t1}: "", {m1, t2}: "", {m2, t1}: ""}, "")
}
