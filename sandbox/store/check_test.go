package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// mustSandboxFile writes the records to a new file, closes it, and returns its bytes.
func mustSandboxFile(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	// Close rewrites the file in key order: a transaction whose key sorts last keeps
	// the records above from being the file's last command.
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutTransaction(sandbox.Transaction{ID: "TRN_~last"}) })
	mustClose(t, s)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(markCommand)) {
		t.Fatalf("the file does not start with the mark: %.80q", b)
	}
	return b
}

// A damaged or foreign file is refused, naming the file and the offset, and left as
// it was; a last command cut short is what a crash leaves, and opens.
func TestCheckRefusesDamagedFiles(t *testing.T) {
	good := mustSandboxFile(t)
	txn := bytes.Index(good, []byte("*3\r\n$3\r\nset\r\n$9\r\ntxn:TRN_1"))
	garbled := bytes.Clone(good)
	copy(garbled[txn+5:], "#####") // inside the command's framing
	// The key's length made to run past the end of the file, as a torn tail would.
	badLength := bytes.Replace(good, []byte("$9\r\ntxn:TRN_1"), []byte("$99999999\r\ntxn:TRN_1"), 1)
	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"4 KiB of zeros", make([]byte, 4096), "not a gp-sandbox database"},
		{"text", []byte("hello, world\n"), "not a gp-sandbox database"},
		{"another buntdb file", []byte("*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n"), "not a gp-sandbox database"},
		{"garbage in the middle", garbled, "damaged at byte " + itoa(txn)},
		{"a length past the end, commands after it", badLength, "damaged at byte " + itoa(txn)},
		{"a record appended", append(bytes.Clone(good), "*2\r\n$3\r\nget\r\n$1\r\na\r\n"...), "damaged at byte " + itoa(len(good))},
		{"set with a bad TTL", append(bytes.Clone(good), "*5\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n$2\r\nex\r\n$1\r\nx\r\n"...), "damaged at byte " + itoa(len(good))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			if err := os.WriteFile(path, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path)
			var damaged *DamagedError
			if !errors.As(err, &damaged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), "move it away or use --reset") {
				t.Errorf("Open = %v; want a *DamagedError naming %s and %q", err, path, tc.want)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, tc.content) {
				t.Errorf("the file changed: %d bytes before, %d after", len(tc.content), len(after))
			}
			// --reset starts it afresh.
			s := mustOpenWith(t, path, Options{Reset: true})
			mustHaveNone(t, s)
			mustPutAll(t, s)
			mustClose(t, s)
			mustHaveAll(t, mustOpen(t, path))
		})
	}
}

// A crash while a commit is written leaves its last command cut short: buntdb cuts
// it off, and every whole record before it is there.
func TestCheckAcceptsTornTail(t *testing.T) {
	good := mustSandboxFile(t)
	last := []byte("*3\r\n$3\r\nset\r\n$9\r\nmeta:torn\r\n$4\r\n\"ab\"\r\n")
	for _, cut := range []int{1, 5, 20, len(last) - 1} {
		path := filepath.Join(t.TempDir(), "db")
		if err := os.WriteFile(path, append(bytes.Clone(good), last[:cut]...), 0o600); err != nil {
			t.Fatal(err)
		}
		s := mustOpen(t, path)
		mustHaveAll(t, s)
		mustClose(t, s)
		if after, _ := os.ReadFile(path); !bytes.Equal(after, good) {
			t.Errorf("cut at %d: the file is %d bytes, want the %d whole ones", cut, len(after), len(good))
		}
	}
	// A file whose first write was cut short is a new one.
	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path, []byte(markCommand[:10]), 0o600); err != nil {
		t.Fatal(err)
	}
	mustHaveNone(t, mustOpen(t, path))
}

// The mark stays first when buntdb rewrites the file, so a rewritten file opens.
func TestMarkSurvivesShrink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s := mustOpen(t, path)
	mustPutAll(t, s)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.DeleteAll() })
	mustPutAll(t, s)
	if err := s.db.Shrink(); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	mustHaveAll(t, mustOpen(t, path))
}

func itoa(n int) string { return strconv.Itoa(n) }
