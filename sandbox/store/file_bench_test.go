package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// BenchmarkOpen100kTransactions opens a closed file of 100,000 transactions (the
// .ci/startup set): "check" is the file check as Open runs it, "open" the whole Open and
// Close, buntdb's load included, so the check's share of a restart is their ratio.
func BenchmarkOpen100kTransactions(b *testing.B) {
	path := filepath.Join(b.TempDir(), "db")
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	err = s.Update(func(tx sandbox.Tx) error {
		for i := range 100000 {
			t := sandbox.Transaction{ID: fmt.Sprintf("TRN_Load%026d", i), MerchantID: "MER_00000000000000000000000000000001",
				TimeCreated: base, Type: "SALE", Status: sandbox.StatusCaptured, Amount: "1000", Currency: "USD", Country: "US",
				Reference: fmt.Sprint("load-", i), BatchID: "BAT_1136475",
				PaymentMethod: sandbox.PaymentResult{Result: "00", Message: "SUCCESS", Card: sandbox.CardResult{Authcode: "A36C21", BrandReference: "383224601004913"}}}
			if err := tx.PutTransaction(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || s.Close() != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.Logf("file: %d bytes", fi.Size())
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := checkFile(f, path, true); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			s, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}
