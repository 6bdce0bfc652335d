package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

func mustWrite(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustOpenFail opens path and expects Open to refuse it; it returns Open's error
// and the file's bytes from before, for mustUnchanged.
func mustOpenFail(t *testing.T, path string) (before []byte, err error) {
	t.Helper()
	before = mustRead(t, path)
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted the file")
	}
	return before, err
}

// mustUnchanged checks the file at path still holds before, byte for byte.
func mustUnchanged(t *testing.T, path string, before []byte) {
	t.Helper()
	if after := mustRead(t, path); !bytes.Equal(before, after) {
		t.Errorf("the refused file changed (%d bytes before, %d after)", len(before), len(after))
	}
}

// mustRefuse opens path, expects a *DamagedError at offset, and checks the file was
// left byte for byte as it was.
func mustRefuse(t *testing.T, path string, offset int64) *DamagedError {
	t.Helper()
	before, err := mustOpenFail(t, path)
	var d *DamagedError
	if !errors.As(err, &d) {
		t.Fatalf("Open: %v, want a *DamagedError", err)
	}
	if d.Path != path || d.Offset != offset || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q: path %q offset %d, want %q at %d", err, d.Path, d.Offset, path, offset)
	}
	mustUnchanged(t, path, before)
	return d
}

// mustClosedFile writes every kind of record, plus n orders, and closes the store.
func mustClosedFile(t *testing.T, path string, orders int) {
	t.Helper()
	s := mustOpen(t, path)
	mustPutAll(t, s)
	for i := range orders {
		mustUpdate(t, s, func(tx sandbox.Tx) error {
			return tx.PutOrder(sandbox.Order{ID: fmt.Sprintf("ORD_%04d", i), MerchantID: "MER_1", MerchantName: strings.Repeat("r", 100)})
		})
	}
	mustClose(t, s)
}

// Files the sandbox did not write are never opened, so never overwritten.
func TestForeignFilesRefusedUntouched(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	elf := mustRead(t, exe)[:4096]
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	tests := map[string][]byte{
		"4 KiB of zeros":         make([]byte, 4096),
		"4 KiB of random bytes":  random,
		"an ELF binary":          elf,
		"a text file":            []byte("hello, world\n"),
		"a buntdb file not ours": []byte("*3\r\n$3\r\nset\r\n$5\r\napp:1\r\n$2\r\n{}\r\n"),
		"a header cut short":     headerCommand(0)[:20],
		"one NUL byte":           {0},
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			mustWrite(t, path, content)
			if d := mustRefuse(t, path, 0); !strings.Contains(d.Reason, "not a gp-sandbox database") {
				t.Errorf("reason %q", d.Reason)
			}
		})
	}
}

// A file closed cleanly and then damaged is refused at the first damaged byte.
func TestDamagedFilesRefused(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean")
	mustClosedFile(t, clean, 200)
	good := mustRead(t, clean)
	middle := bytes.Index(good, []byte(`{"id":"ORD_0100"`)) // a record half way
	if middle < 0 {
		t.Fatal("no order record in the file")
	}
	recordStart := int64(bytes.LastIndex(good[:middle], []byte("*3\r\n")))

	garbage := make([]byte, 64)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	tests := []struct {
		name   string
		damage func([]byte) []byte
		offset int64
	}{
		{"truncated to half", func(b []byte) []byte { return b[:len(b)/2] }, int64(len(good) / 2)},
		{"last byte missing", func(b []byte) []byte { return b[:len(b)-1] }, int64(len(good) - 1)},
		{"64 random bytes inside a record", func(b []byte) []byte { return splice(b, middle+40, garbage) }, -1},
		{"64 letters inside a record", func(b []byte) []byte { return splice(b, middle+40, bytes.Repeat([]byte("A"), 64)) }, recordStart},
		{"one bit flipped in a value", func(b []byte) []byte { b[middle+2] ^= 1; return b }, recordStart},
		{"one bit flipped in a key", func(b []byte) []byte { b[middle] ^= 0x20; return b }, recordStart},
		{"a record appended after close", func(b []byte) []byte {
			return append(b, appendCommand(nil, "set", "meta:x", seal("meta:x", `"y"`))...)
		}, int64(len(good))},
		{"zeros appended after close", func(b []byte) []byte { return append(b, make([]byte, 100)...) }, int64(len(good))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			mustWrite(t, path, tt.damage(bytes.Clone(good)))
			offset := tt.offset
			if offset < 0 { // random bytes: refused at the record or just after it
				s, err := Open(path)
				var d *DamagedError
				if !errors.As(err, &d) {
					if s != nil {
						s.Close()
					}
					t.Fatalf("Open: %v, want a *DamagedError", err)
				}
				offset = d.Offset
				if offset < recordStart || offset > int64(middle)+40+64 {
					t.Errorf("damage reported at %d, want within [%d, %d]", offset, recordStart, middle+40+64)
				}
			}
			mustRefuse(t, path, offset)
		})
	}
}

func splice(b []byte, at int, with []byte) []byte {
	copy(b[at:], with)
	return b
}

// A file left by kill -9 may end inside its last write: that write was never
// acknowledged, so the store cuts it off (keeping a copy) and opens with every
// acknowledged record.
func TestTornLastWriteAfterCrash(t *testing.T) {
	nextRecord := appendCommand(nil, "set", "order:ORD_torn", seal("order:ORD_torn", `{"id":"ORD_torn"}`))
	tests := map[string][]byte{
		"half a command":         nextRecord[:len(nextRecord)/2],
		"all but the last CR":    nextRecord[:len(nextRecord)-2],
		"only the star":          nextRecord[:1],
		"zeros an OS crash left": make([]byte, 512),
	}
	for name, tail := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			live := filepath.Join(dir, "live")
			s := mustOpen(t, live)
			mustPutAll(t, s)
			// What kill -9 leaves: the file as it is while the store runs, plus the tail.
			crashed := filepath.Join(dir, "crashed")
			acknowledged := mustRead(t, live)
			mustWrite(t, crashed, append(bytes.Clone(acknowledged), tail...))

			s2 := mustOpen(t, crashed)
			mustHaveAll(t, s2)
			torn := s2.TornWrite()
			if torn == nil || torn.Offset != int64(len(acknowledged)) || torn.Bytes != int64(len(tail)) {
				t.Fatalf("TornWrite() = %+v, want %d bytes at %d", torn, len(tail), len(acknowledged))
			}
			if saved := mustRead(t, torn.SavedAs); !bytes.Equal(saved, tail) {
				t.Errorf("saved tail %q, want %q", saved, tail)
			}
			mustClose(t, s2)
			mustHaveAll(t, mustOpen(t, crashed)) // and it opens cleanly after that
		})
	}
}

// A file in use (not closed) opens as it is; a clean close and reopen reports nothing
// torn; the header survives a reset and a compaction.
func TestHeaderSurvivesResetAndCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	mustPutAll(t, s)
	if err := s.db.Shrink(); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	if b := mustRead(t, path); !bytes.HasPrefix(b, headerCommand(int64(len(b)))) {
		t.Fatalf("file starts %q, want the header closed at %d", b[:min(len(b), 80)], len(b))
	}
	s = mustOpen(t, path)
	if s.TornWrite() != nil {
		t.Errorf("a cleanly closed file reported a torn write: %+v", s.TornWrite())
	}
	mustHaveAll(t, s)
}
