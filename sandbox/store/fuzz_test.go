package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// FuzzOpenFile opens a database file of arbitrary bytes, as the sandbox does when it
// starts: the open either refuses the file with a *DamagedError (or, for a file of a
// later format, a *NewerFormatError) and leaves it byte for byte as it was, or succeeds with every record readable, and a file it accepted and
// closed opens again. Never a panic.
func FuzzOpenFile(f *testing.F) {
	good := filepath.Join(f.TempDir(), "good")
	s, err := Open(good)
	if err != nil {
		f.Fatal(err)
	}
	err = s.Update(func(tx sandbox.Tx) error {
		if err := tx.PutOrder(sandbox.Order{ID: "ORD_1", MerchantID: "MER_1"}); err != nil {
			return err
		}
		return tx.PutMeta("fixtures", `"loaded"`)
	})
	if err != nil || s.Close() != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add(append(bytes.Clone(headerCommand(0)), "*3\r\n$3\r\nset\r\n$4\r\nmeta"...))
	f.Add(append(bytes.Clone(headerCommand(0)), make([]byte, 16)...))
	f.Add(bytes.Replace(seed, []byte(headerPrefix), []byte(formatLead+"1"+slotLead), 1))
	f.Add(bytes.Replace(seed, []byte(headerPrefix), []byte(formatLead+"3"+slotLead), 1))
	f.Add(make([]byte, 64))
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path)
		if err != nil {
			var damaged *DamagedError
			var newer *NewerFormatError
			if !errors.As(err, &damaged) && !errors.As(err, &newer) {
				t.Fatalf("refused without a *DamagedError or a *NewerFormatError: %v", err)
			}
			if after, rerr := os.ReadFile(path); rerr != nil || !bytes.Equal(after, data) {
				t.Fatalf("a refused file changed (%v): %d bytes before, %d after", err, len(data), len(after))
			}
			return
		}
		err = s.View(func(tx sandbox.Tx) error {
			if _, err := tx.Order("ORD_1"); err != nil && !errors.Is(err, sandbox.ErrNotFound) {
				return err
			}
			_, err := tx.Notifications("")
			return err
		})
		if err != nil {
			t.Fatalf("an accepted file does not read: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		again, err := Open(path)
		if err != nil {
			t.Fatalf("a file the store accepted and closed does not open again: %v", err)
		}
		again.Close()
	})
}
