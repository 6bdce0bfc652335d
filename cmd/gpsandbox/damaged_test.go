package main

import (
	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"net/http"

	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
// with an error naming the file (and the byte, for damage); the file is left as it
// was, and --reset starts it afresh.
func TestDamagedDatabaseStopsTheStart(t *testing.T) {
	t.Parallel()
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
	// 64 bytes of garbage from the start of the adjusted transaction's last record.
	garbled := bytes.Clone(good)
	at := bytes.LastIndex(garbled, []byte("*3\r\n$3\r\nset\r\n$38\r\ntxn:TRN_CapturedSale000000000000000001\r\n"))
	if at < 0 {
		t.Fatalf("no record of the adjusted transaction in %q", good)
	}
	copy(garbled[at:], strings.Repeat("#", 64))
	tests := []struct {
		name    string
		content []byte
		want    string
	}{
		{"4 KiB of zeros", make([]byte, 4096), "is not a gp-sandbox database"},
		{"4 KiB of random bytes", random, "is not a gp-sandbox database"},
		{"an ELF binary", mustReadFile(t, exe)[:4096], "is not a gp-sandbox database"},
		{"64 bytes of garbage inside the file", garbled, "is damaged at byte " + strconv.Itoa(at)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "z.db")
			mustWriteFile(t, path, tt.content)
			// A file the sandbox did not write is refused by --reset too, left as it was.
			foreign := strings.Contains(tt.want, "not a gp-sandbox database")
			wayOut := "move it away or use --reset"
			if foreign {
				wayOut = "move it away, or name another file with --db"
			}
			starts := [][]string{{"--db", path, "--addr", "127.0.0.1:0"}}
			if foreign {
				starts = append(starts, []string{"--db", path, "--addr", "127.0.0.1:0", "--reset"})
			}
			for _, args := range starts {
				_, err := runOnce(t, args...)
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) ||
					!strings.Contains(err.Error(), wayOut) {
					t.Errorf("start %v: %v; want an error naming %s, %q and %q", args, err, path, tt.want, wayOut)
				}
				if after := mustReadFile(t, path); !bytes.Equal(after, tt.content) {
					t.Errorf("start %v: the file changed: %d bytes before, %d after", args, len(tt.content), len(after))
				}
			}
			if !foreign {
				_, stop := mustRun(t, "--db", path, "--reset")
				stop()
			}
		})
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	return sha256.Sum256(mustReadFile(t, path))
}

// A second gpsandbox on a running sandbox's file exits non-zero naming the file and
// the running process, with or without --reset, and the file stays byte for byte as
// it was.
func TestSecondInstanceRefused(t *testing.T) {
	t.Parallel()
	bin := testrun.Build(t)
	db := filepath.Join(t.TempDir(), "run.db")
	first, base := testrun.Serve(t, bin, "--db", db)
	mustIssueToken(t, base) // a write of the first instance's own
	before := fileSum(t, db)
	for _, args := range [][]string{{"--db", db}, {"--db", db, "--reset"}} {
		cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Errorf("%v: %v, want a non-zero exit", args, err)
		}
		want := "database file " + db + " is in use by another gpsandbox (pid " + strconv.Itoa(first.Process.Pid) + ")"
		if !strings.Contains(string(out), want) {
			t.Errorf("%v said %q; want %q", args, out, want)
		}
		if fileSum(t, db) != before {
			t.Errorf("%v changed the running sandbox's file", args)
		}
	}
	testrun.WaitHealthy(t, http.DefaultClient, base)
	first.Process.Signal(syscall.SIGTERM)
	first.Wait()
	_, stop := mustRun(t, "--db", db) // the file opens once the first has stopped
	stop()
}

// A start on a busy port writes nothing: a new database file is not created, an
// existing one stays byte for byte as it was, even with --reset.
func TestBusyPortWritesNothing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()

	fresh := filepath.Join(t.TempDir(), "new.db")
	if _, err := runOnce(t, "--db", fresh, "--addr", busy); err == nil {
		t.Fatal("a start on a busy port succeeded")
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed start left %s: %v", fresh, err)
	}

	existing := filepath.Join(t.TempDir(), "old.db")
	_, stop := mustRun(t, "--db", existing)
	stop()
	before := fileSum(t, existing)
	for _, args := range [][]string{{"--db", existing, "--addr", busy}, {"--db", existing, "--addr", busy, "--reset"}} {
		if _, err := runOnce(t, args...); err == nil {
			t.Fatalf("%v succeeded", args)
		}
		if fileSum(t, existing) != before {
			t.Errorf("%v changed the file", args)
		}
	}
}

// refusedStart runs `bin serve` with args, wants it to exit non-zero before it serves,
// and returns what it printed.
func refusedStart(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), testrun.Deadline(t))
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || ctx.Err() != nil {
		t.Errorf("%v: %v %s, want a refused start", args, err, out)
	}
	return string(out)
}

// Damage is found when the file is opened, not when a request reads it: a value
// overwritten inside the file stops the start naming the record and its offset, a
// file cut short since its clean close stops it too, and a file that holds records but
// none saying its fixtures were loaded is not seeded over; each is left as it was.
// --set-aside-damaged opens it, setting the damaged records aside in a file it names.
func TestDamageFoundAtStart(t *testing.T) {
	t.Parallel()
	bin := testrun.Build(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	proc, base := testrun.Serve(t, bin, "--db", real)
	if status, m := post(t, base+tipPath, mustIssueToken(t, base), `{"gratuity_amount":"250"}`); status != 200 {
		t.Fatalf("adjustment: %d %v", status, m)
	}
	proc.Process.Signal(syscall.SIGTERM)
	proc.Wait()
	good := mustReadFile(t, real)

	const key = "txn:TRN_CapturedSale000000000000000001"
	head := []byte("*3\r\n$3\r\nset\r\n$38\r\n" + key + "\r\n$")
	at := bytes.Index(good, head)
	if at < 0 {
		t.Fatalf("no record of %s in %q", key, good)
	}
	value := at + len(head) + bytes.Index(good[at+len(head):], []byte("\r\n")) + 2
	garbled := bytes.Clone(good)
	copy(garbled[value:], strings.Repeat("#", 64)) // the value only: its length and framing hold
	cut := len(good) * 20 / 56                     // as 56 KB cut to 20 KB

	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"a value overwritten", garbled, "is damaged at byte " + strconv.Itoa(at) + ": record " + key + " does not decode as sandbox.Transaction"},
		{"cut short", good[:cut], "is cut short at byte " + strconv.Itoa(cut)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "z.db")
			mustWriteFile(t, path, tc.content)
			if out := refusedStart(t, bin, "--db", path); !strings.Contains(out, "database file "+path+" "+tc.want) {
				t.Errorf("start said %q; want %q", out, tc.want)
			}
			if after := mustReadFile(t, path); !bytes.Equal(after, tc.content) {
				t.Errorf("the file changed: %d bytes before, %d after", len(tc.content), len(after))
			}
		})
	}

	t.Run("set aside", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "z.db")
		mustWriteFile(t, path, garbled)
		cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", path, "--set-aside-damaged")
		var log bytes.Buffer
		cmd.Stderr = &log
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		base, err := testrun.BaseURL(out)
		if err != nil {
			t.Fatal(err)
		}
		testrun.WaitHealthy(t, http.DefaultClient, base)
		status, m, err := postJSON(http.DefaultClient, base+tipPath, mustIssueToken(t, base), "", `{"gratuity_amount":"1"}`)
		if err != nil || status != 404 {
			t.Errorf("an adjustment of the transaction set aside: %d %v %v, want 404", status, m, err)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		aside, _ := filepath.Glob(path + ".damaged-*.resp")
		if len(aside) != 1 || !strings.Contains(log.String(), aside[0]) || !strings.Contains(log.String(), "record "+key) {
			t.Errorf("set aside into %v; the log said %s", aside, log.String())
		}
		if len(aside) == 1 && !bytes.Contains(mustReadFile(t, aside[0]), garbled[value:value+64]) {
			t.Errorf("the set-aside file does not hold the damaged record")
		}
		_, stop := mustRun(t, "--db", path) // no longer damaged
		stop()
	})

	t.Run("records without fixtures", func(t *testing.T) {
		// A file no clean close proves (its sandbox was killed), from which the record
		// saying the fixtures were loaded went missing.
		path := filepath.Join(t.TempDir(), "z.db")
		proc, _ := testrun.Serve(t, bin, "--db", path)
		proc.Process.Signal(syscall.SIGKILL)
		proc.Wait()
		killed := mustReadFile(t, path)
		meta := []byte("*3\r\n$3\r\nset\r\n$20\r\nmeta:fixtures_loaded\r\n")
		from := bytes.Index(killed, meta)
		if from < 0 {
			t.Fatalf("no fixtures mark in %q", killed)
		}
		to := from + 1 + bytes.Index(killed[from+1:], []byte("\r\n*")) + 2
		if to <= from+2 {
			to = len(killed)
		}
		missing := append(bytes.Clone(killed[:from]), killed[to:]...)
		mustWriteFile(t, path, missing)
		out := refusedStart(t, bin, "--db", path)
		if !strings.Contains(out, "database file "+path+" holds ") || !strings.Contains(out, "records but none saying its fixtures were loaded") {
			t.Errorf("start said %q", out)
		}
		if after := mustReadFile(t, path); !bytes.Equal(after, missing) {
			t.Errorf("the file changed: %d bytes before, %d after", len(missing), len(after))
		}
	})
}
