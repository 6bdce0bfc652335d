package store

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
	"github.com/tidwall/buntdb"
)

// A transaction read back after put is the one its stored JSON decodes to, for every
// transaction of the default fixtures and for one the API makes: the kept value
// stands for a decoding only if the round trip changes nothing.
func TestKeptTransactionIsItsDecoding(t *testing.T) {
	fx, err := yamlfile.LoadFixtures(fixtures.FS, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	made := fx.Transactions[0]
	made.ID, made.TimeCreated = "TRN_MadeByTheAPI0000000000000000001", time.Now().UTC().Truncate(time.Millisecond)
	made.Lodging, made.Scenarios = &sandbox.Lodging{}, []string{"decline"}
	// Empty lists as a request's JSON decodes them: kept empty, decoded nil.
	emptyLists := made
	emptyLists.ID, emptyLists.Scenarios = "TRN_MadeWithEmptyLists000000000001", []string{}
	emptyLists.Lodging = &sandbox.Lodging{ChargeItems: []sandbox.LodgingItem{{Types: []string{}, ProgramCodes: []string{}}}}
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	for _, want := range append(fx.Transactions, made, emptyLists) {
		mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(want) })
		mustView(t, s, func(tx sandbox.Tx) error {
			kept, err := tx.Transaction(want.ID)
			if err != nil {
				return err
			}
			var decoded sandbox.Transaction
			err = s.db.View(func(t2 *buntdb.Tx) error {
				text, err := t2.Get("txn:" + want.ID)
				if err == nil {
					err = json.Unmarshal([]byte(text), &decoded)
				}
				return err
			})
			if err != nil {
				return err
			}
			if want.ID != emptyLists.ID && !reflect.DeepEqual(kept, decoded) {
				t.Errorf("%s: kept\n%+v\ndecodes as\n%+v", want.ID, kept, decoded)
			}
			keptJSON, _ := json.Marshal(kept)
			decodedJSON, _ := json.Marshal(decoded)
			if string(keptJSON) != string(decodedJSON) {
				t.Errorf("%s: kept encodes as\n%s\ndecoding as\n%s", want.ID, keptJSON, decodedJSON)
			}
			return nil
		})
	}
}

// A write rolled back leaves the record as it was, and a read answers that, not the
// value the rolled-back put kept.
func TestRolledBackPutIsNotRead(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "db"))
	sale := sandbox.Transaction{ID: "TRN_RolledBack00000000000000000001", Status: "CAPTURED", Amount: "1000",
		TimeCreated: time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)}
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(sale) })
	refused := errors.New("refused after the put")
	err := s.Update(func(tx sandbox.Tx) error {
		changed := sale
		changed.Amount, changed.Status = "9999", "REVERSED"
		if err := tx.PutTransaction(changed); err != nil {
			return err
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("Update: %v", err)
	}
	mustView(t, s, func(tx sandbox.Tx) error {
		got, err := tx.Transaction(sale.ID)
		if err == nil && (got.Amount != "1000" || got.Status != "CAPTURED") {
			t.Errorf("after the rollback: amount %s, status %s; want 1000, CAPTURED", got.Amount, got.Status)
		}
		return err
	})
}
