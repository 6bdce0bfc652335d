package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runOnce runs the command line to its end (serve stops at once when it fails to start)
// and returns its error and what it printed.
func runOnce(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, &out, io.Discard)
	return out.String(), err
}

// A database file the sandbox did not write, or one damaged since, stops the start
// with an error naming the file and the byte; the file is left as it was.
func TestDamagedDatabaseStopsTheStart(t *testing.T) {
	dir := t.TempDir()
	// A real database, closed cleanly, with an adjustment of its own.
	real := filepath.Join(dir, "real.db")
	base, stop := mustRun(t, "--db", real)
	tok := mustIssueToken(t, base)
	if status, body := post(t, base+"/transactions/TRN_CapturedSale000000000000000001/adjustment", tok, `{"gratuity_amount":"250"}`); status != 200 {
		t.Fatalf("adjustment: %d %v", status, body)
	}
	stop()
	good := mustReadFile(t, real)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// 64 bytes of garbage a little way into the adjusted transaction's record (its
	// value, past the RESP header that follows its key).
	garbled := bytes.Clone(good)
	header := []byte("txn:TRN_CapturedSale000000000000000001\r\n$")
	at := bytes.LastIndex(garbled, header) + len(header)
	at += bytes.Index(garbled[at:], []byte("\r\n")) + 2 + 16
	copy(garbled[at:], strings.Repeat("#", 64))
	tests := []struct {
		name    string
		content []byte
		offset  string
	}{
		{"4 KiB of zeros", make([]byte, 4096), "at byte 0"},
		{"4 KiB of random bytes", random, "at byte 0"},
		{"an ELF binary", mustReadFile(t, exe)[:4096], "at byte 0"},
		{"cut to half", good[:len(good)/2], "at byte " + itoa(len(good)/2)},
		{"64 bytes of garbage inside a record", garbled, "checksum does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "z.db")
			mustWriteFile(t, path, tt.content)
			_, err := runOnce(t, "--db", path, "--addr", "127.0.0.1:0")
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.offset) || !strings.Contains(err.Error(), "gpsandbox repair --db") {
				t.Errorf("start: %v; want an error naming %s, %q and the repair command", err, path, tt.offset)
			}
			if after := mustReadFile(t, path); !bytes.Equal(after, tt.content) {
				t.Errorf("the file changed: %d bytes before, %d after", len(tt.content), len(after))
			}
		})
	}

	// repair writes the readable records to a new file; that file serves.
	damaged := filepath.Join(t.TempDir(), "z.db")
	mustWriteFile(t, damaged, garbled)
	out, err := runOnce(t, "repair", "--db", damaged)
	if err != nil || !strings.Contains(out, "dropped 1 records") || !strings.Contains(out, damaged+".repaired") {
		t.Fatalf("repair: %v\n%s", err, out)
	}
	if !bytes.Equal(mustReadFile(t, damaged), garbled) {
		t.Error("repair changed the damaged file")
	}
	if _, err := runOnce(t, "repair", "--db", damaged); err == nil {
		t.Error("a second repair wrote over the first one's file")
	}
	_, stop = mustRun(t, "--db", damaged+".repaired")
	stop()
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// A database file written by a newer sandbox, in a later format, stops the start and
// the repair with an error naming the file and the format; the file is left as it was
// and nothing is written beside it.
func TestNewerDatabaseFormatStopsTheStart(t *testing.T) {
	real := filepath.Join(t.TempDir(), "real.db")
	_, stop := mustRun(t, "--db", real)
	stop()
	good := mustReadFile(t, real)
	newer := bytes.Replace(good, []byte("gp-sandbox database format 2;"), []byte("gp-sandbox database format 3;"), 1)
	if bytes.Equal(newer, good) {
		t.Fatalf("the file does not start with a format-2 header: %.80q", good)
	}
	path := filepath.Join(t.TempDir(), "z.db")
	mustWriteFile(t, path, newer)
	for _, args := range [][]string{{"--db", path, "--addr", "127.0.0.1:0"}, {"repair", "--db", path}} {
		_, err := runOnce(t, args...)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "written by a newer gp-sandbox (database format 3)") {
			t.Errorf("%v: %v; want an error naming %s and format 3", args, err, path)
		}
	}
	if after := mustReadFile(t, path); !bytes.Equal(after, newer) {
		t.Errorf("the file changed: %d bytes before, %d after", len(newer), len(after))
	}
	if _, err := os.Stat(path + ".repaired"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("repair wrote %s.repaired: %v", path, err)
	}
}
