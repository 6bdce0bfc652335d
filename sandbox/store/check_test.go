package store

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
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
// it was; --reset starts a damaged one afresh but leaves a foreign one as it was. A
// last command cut short is what a crash leaves, and opens.
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
			foreign := tc.want == "not a gp-sandbox database"
			wayOut := "move it away or use --reset"
			if foreign {
				wayOut = "move it away, or name another file with --db"
			}
			for _, opts := range []Options{{}, {Reset: foreign}} {
				_, err := OpenWith(path, opts)
				var damaged *DamagedError
				if !errors.As(err, &damaged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) ||
					!strings.Contains(err.Error(), wayOut) {
					t.Errorf("OpenWith(%+v) = %v; want a *DamagedError naming %s, %q and %q", opts, err, path, tc.want, wayOut)
				}
				if after, _ := os.ReadFile(path); !bytes.Equal(after, tc.content) {
					t.Errorf("OpenWith(%+v): the file changed: %d bytes before, %d after", opts, len(tc.content), len(after))
				}
			}
			if foreign {
				return
			}
			// --reset starts a damaged one afresh.
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

// valueAt returns the offset of the value of the first record of key in file, and
// that of its command.
func valueAt(t *testing.T, file []byte, key string) (value, command int) {
	t.Helper()
	head := fmt.Sprintf("*3\r\n$3\r\nset\r\n$%d\r\n%s\r\n$", len(key), key)
	command = bytes.Index(file, []byte(head))
	if command < 0 {
		t.Fatalf("no record of %s in the file", key)
	}
	value = command + len(head) + bytes.Index(file[command+len(head):], []byte("\r\n")) + 2
	return value, command
}

// mustRefuse opens content as a database file and wants a *DamagedError saying want,
// with the file left byte for byte as it was.
func mustRefuse(t *testing.T, content []byte, want string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	var damaged *DamagedError
	if !errors.As(err, &damaged) || !strings.Contains(err.Error(), path+" "+want) {
		t.Errorf("Open = %v; want a *DamagedError naming %s and %q", err, path, want)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, content) {
		t.Errorf("the file changed: %d bytes before, %d after", len(content), len(after))
	}
}

// Every record decodes as the kind its key names, or the start is refused naming the
// record and the offset of its command; a file a clean close wrote is refused when it
// was cut short or changed since, even where every record still decodes.
func TestOpenChecksRecordsAndCleanClose(t *testing.T) {
	good := mustSandboxFile(t)
	value, txn := valueAt(t, good, "txn:TRN_1")
	garbled := bytes.Clone(good)
	copy(garbled[value:], "#####") // the framing holds: only the value is damaged
	unknown := bytes.Replace(good, []byte("$9\r\ntxn:TRN_1\r\n"), []byte("$9\r\ntxx:TRN_1\r\n"), 1)
	amount := bytes.Index(good[value:], []byte(`"amount":"1000"`)) + value
	changed := bytes.Clone(good)
	copy(changed[amount:], `"amount":"9000"`) // still a transaction
	closing := bytes.LastIndex(good, closingPrefix)
	middle := bytes.Index(good[len(good)/2:], []byte("\r\n*")) + len(good)/2 + 2
	// After the clean close, a session that did not close appended a record.
	appended := func(value string) []byte {
		return append(bytes.Clone(good), setCommand("meta:later", value)...)
	}
	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"a value overwritten", garbled, fmt.Sprintf("is damaged at byte %d: record txn:TRN_1 does not decode as sandbox.Transaction", txn)},
		{"a key of no kind", unknown, fmt.Sprintf("is damaged at byte %d: record txx:TRN_1 is of no kind the sandbox writes", txn)},
		{"a value changed that decodes", changed, fmt.Sprintf("was changed since the sandbox closed it cleanly: its first %d bytes", closing)},
		{"cut at a command", good[:middle], fmt.Sprintf("is cut short at byte %d", middle)},
		{"cut inside a command", good[:middle+7], fmt.Sprintf("is cut short at byte %d", middle+7)},
		{"cut inside the closing record", good[:len(good)-3], fmt.Sprintf("is cut short at byte %d", len(good)-3)},
		{"a record appended after the close that does not decode", appended(`"x`), fmt.Sprintf("is damaged at byte %d: record meta:later does not decode as string", len(good))},
	} {
		t.Run(tc.name, func(t *testing.T) { mustRefuse(t, tc.content, tc.want) })
	}

	// What a later session appended, whole, opens with the rest.
	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path, appended(`"x"`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, path)
	mustHaveAll(t, s)
	mustView(t, s, func(tx sandbox.Tx) error {
		if v, err := tx.Meta("later"); err != nil || v != "x" {
			t.Errorf("the appended record: %q %v", v, err)
		}
		return nil
	})
}

// A clean close writes the opening and closing records around the records, and a
// start that writes nothing leaves the file as it was, the same file, byte for byte.
func TestCleanCloseWritesItsRecords(t *testing.T) {
	good := mustSandboxFile(t)
	opening := len(markCommand)
	if !bytes.Equal(good[opening:opening+len(openingCommand)], openingCommand) {
		t.Errorf("no opening record after the mark: %.120q", good)
	}
	closing := bytes.LastIndex(good, closingPrefix)
	want := setCommand(closeKey, fmt.Sprintf(`{"size":%d,"crc32c":%d}`, closing, crc32.Checksum(good[:closing], castagnoli)))
	if !bytes.Equal(good[closing:], want) {
		t.Errorf("the file ends with %q, want %q", good[closing:], want)
	}

	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	before := mustStat(t, path)
	s := mustOpen(t, path)
	mustHaveAll(t, s)
	mustClose(t, s)
	if after, _ := os.ReadFile(path); !bytes.Equal(after, good) || !os.SameFile(before, mustStat(t, path)) {
		t.Error("a start that wrote nothing changed the file")
	}
	// One that writes ends with a clean close again, which the next start proves.
	s = mustOpen(t, path)
	mustUpdate(t, s, func(tx sandbox.Tx) error { return tx.PutMeta("after", "x") })
	mustClose(t, s)
	s = mustOpen(t, path)
	if !s.proven {
		t.Error("the file a clean close rewrote is not proven at the next start")
	}
	mustHaveAll(t, s)
}

// With SetAside, records that do not decode are moved into a file beside the
// database, which opens with the others and no longer holds them; a file cut short
// opens with what is left.
func TestSetAsideDamagedRecords(t *testing.T) {
	good := mustSandboxFile(t)
	value, txn := valueAt(t, good, "txn:TRN_1")
	garbled := bytes.Clone(good)
	copy(garbled[value:], "#####")
	path := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(path, garbled, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := OpenWith(path, Options{SetAside: true})
	if err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(path + ".damaged-*.resp")
	repairs := strings.Join(s.Repairs(), "\n")
	if len(aside) != 1 || !strings.Contains(repairs, aside[0]) || !strings.Contains(repairs, fmt.Sprintf("damaged at byte %d: record txn:TRN_1", txn)) {
		t.Fatalf("set aside into %v; repairs %q", aside, repairs)
	}
	end := bytes.Index(garbled[txn:], []byte("\r\n*")) + txn + 2
	if b, _ := os.ReadFile(aside[0]); !bytes.Equal(b, garbled[txn:end]) {
		t.Errorf("the set-aside file holds %q, want the damaged command %q", b, garbled[txn:end])
	}
	mustView(t, s, func(tx sandbox.Tx) error {
		if _, err := tx.Transaction("TRN_1"); !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("the damaged transaction: %v, want not found", err)
		}
		if _, err := tx.App("app1"); err != nil {
			t.Errorf("a whole record: %v", err)
		}
		return nil
	})
	mustClose(t, s)
	mustClose(t, mustOpen(t, path)) // no longer damaged: opens without SetAside

	middle := bytes.Index(good[len(good)/2:], []byte("\r\n*")) + len(good)/2 + 2
	if err := os.WriteFile(path, good[:middle], 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = OpenWith(path, Options{SetAside: true})
	if err != nil || !strings.Contains(strings.Join(s.Repairs(), "\n"), fmt.Sprintf("cut short at byte %d", middle)) {
		t.Fatalf("cut short: %v, repairs %q", err, s.Repairs())
	}
	mustClose(t, s)
	mustClose(t, mustOpen(t, path))
}
