package store

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// orderIDs lists the orders a store holds.
func orderIDs(t *testing.T, s *Store, n int) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	mustView(t, s, func(tx sandbox.Tx) error {
		for i := range n {
			id := fmt.Sprintf("ORD_%04d", i)
			if _, err := tx.Order(id); err == nil {
				got[id] = true
			} else if !errors.Is(err, sandbox.ErrNotFound) {
				t.Errorf("%s: %v", id, err)
			}
		}
		return nil
	})
	return got
}

func TestSalvageKeepsWhatIsReadable(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean")
	mustClosedFile(t, clean, 200)
	good := mustRead(t, clean)
	middle := bytes.Index(good, []byte(`{"id":"ORD_0100"`))
	lastOrder := bytes.Index(good, []byte(`{"id":"ORD_0199"`))
	tests := []struct {
		name     string
		damage   func([]byte) []byte
		lost     []string // orders the salvaged file lacks
		dropped  int
		skipped  int
		allFixed bool // the other records (mustHaveAll) all survive
	}{
		{"garbage inside a record", func(b []byte) []byte { return splice(b, middle+20, bytes.Repeat([]byte("A"), 64)) }, []string{"ORD_0100"}, 1, 0, true},
		{"a broken length line", func(b []byte) []byte {
			i := bytes.LastIndex(b[:middle], []byte("$"))
			b[i+1] = 'x'
			return b
		}, []string{"ORD_0100"}, 0, 1, true},
		{"cut inside the last record", func(b []byte) []byte { return b[:lastOrder+5] }, []string{"ORD_0199"}, 0, 1, true},
		{"cut to half", func(b []byte) []byte { return b[:len(b)/2] }, nil, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, dst := filepath.Join(t.TempDir(), "db"), filepath.Join(t.TempDir(), "db.repaired")
			damaged := tt.damage(bytes.Clone(good))
			mustWrite(t, src, damaged)
			rep, err := Salvage(src, dst)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Dropped) != tt.dropped || len(rep.Skipped) != tt.skipped {
				t.Errorf("report %+v: want %d dropped, %d skipped", rep, tt.dropped, tt.skipped)
			}
			if !bytes.Equal(mustRead(t, src), damaged) {
				t.Error("Salvage changed its source")
			}
			s := mustOpen(t, dst)
			got := orderIDs(t, s, 200)
			for _, id := range tt.lost {
				if got[id] {
					t.Errorf("%s survived", id)
				}
			}
			if tt.allFixed {
				if len(got) != 200-len(tt.lost) {
					t.Errorf("%d orders kept, want %d", len(got), 200-len(tt.lost))
				}
				mustHaveAll(t, s)
			} else if len(got) == 0 || len(got) == 200 {
				t.Errorf("%d orders kept of a half file", len(got))
			}
			var report strings.Builder
			rep.WriteTo(&report)
			if !strings.Contains(report.String(), fmt.Sprintf("kept %d records", rep.Kept)) {
				t.Errorf("report text %q", report.String())
			}
		})
	}
}

// A file from a sandbox without checksums or header (JSON values) is carried over.
func TestSalvageCarriesOverAnUnsealedFile(t *testing.T) {
	var old []byte
	old = appendCommand(old, "set", "order:ORD_0001", `{"id":"ORD_0001","merchant_id":"MER_1"}`)
	old = appendCommand(old, "set", "outbox:ORD_0001:00000001", "")
	old = appendCommand(old, "set", "order:ORD_0002", `not json`)
	src, dst := filepath.Join(t.TempDir(), "old"), filepath.Join(t.TempDir(), "new")
	mustWrite(t, src, old)
	mustRefuse(t, src, 0)
	rep, err := Salvage(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 2 || rep.Unsealed != 2 || len(rep.Dropped) != 1 || rep.Dropped[0].Key != "order:ORD_0002" {
		t.Errorf("report %+v", rep)
	}
	if got := orderIDs(t, mustOpen(t, dst), 3); !got["ORD_0001"] || len(got) != 1 {
		t.Errorf("orders %v", got)
	}
}

func TestSalvageWritesOnlyANewFile(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "db"), filepath.Join(dir, "there")
	mustClosedFile(t, src, 1)
	mustWrite(t, dst, []byte("keep me"))
	if _, err := Salvage(src, dst); err == nil {
		t.Fatal("Salvage wrote over an existing file")
	}
	if b := mustRead(t, dst); string(b) != "keep me" {
		t.Errorf("the existing file changed: %q", b)
	}
}
