package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

const tipPath = "/transactions/TRN_CapturedSale000000000000000001/adjustment"

// A database file deleted or replaced under a running sandbox: the next write answers
// 500 SYSTEM_ERROR naming the file, nothing is written into the file that took its
// place, and what the sandbox held is saved beside it, in a file the error and the
// health check name, with the way to go on from it.
func TestDatabaseFileLostUnderARunningSandbox(t *testing.T) {
	t.Parallel()
	bin := testrun.Build(t)
	for name, lose := range map[string]func(db string) error{
		"deleted":  os.Remove,
		"replaced": func(db string) error { return os.Rename(db+".restored", db) },
	} {
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "run.db")
			proc, base := testrun.Serve(t, bin, "--db", db)
			tok := mustIssueToken(t, base)
			if status, m, err := postJSON(http.DefaultClient, base+tipPath, tok, "before-the-loss", `{"gratuity_amount":"1"}`); err != nil || status != 200 {
				t.Fatalf("adjustment: %d %v %v", status, m, err)
			}
			mustWriteFile(t, db+".restored", []byte("a file restored over the database\n"))
			if err := lose(db); err != nil {
				t.Fatal(err)
			}
			lost := "database file " + db + " was deleted or replaced while the sandbox ran; "
			// The watch looks every 100 ms: a write before then is taken, and saved with
			// the rest.
			var status int
			var m map[string]any
			testrun.WaitFor(t, "a write refused once the file was "+name, func() bool {
				status, m = post(t, base+tipPath, tok, `{"gratuity_amount":"2"}`)
				return status != 200
			})
			if description, _ := m["detailed_error_description"].(string); status != 500 || m["error_code"] != "SYSTEM_ERROR" || !strings.HasPrefix(description, lost) {
				t.Errorf("write after the file was %s: %d %v", name, status, m)
			}
			rescued, problem := waitRescued(t, base, db)
			want := lost + "every write it acknowledged is saved in " + rescued +
				": to go on from there, stop the sandbox, move that file to " + db + " and start it again"
			if problem != want {
				t.Errorf("health: %q, want %q", problem, want)
			}
			if status, m := post(t, base+tipPath, tok, `{"gratuity_amount":"3"}`); status != 500 || m["detailed_error_description"] != want {
				t.Errorf("write after the rescue: %d %v", status, m)
			}
			proc.Process.Signal(syscall.SIGTERM)
			proc.Wait()
			if b, err := os.ReadFile(db); name == "replaced" && (err != nil || string(b) != "a file restored over the database\n") {
				t.Errorf("the file put in its place changed: %q %v", b, err)
			}
			// Going on from the rescued file as the error says: the adjustment is there,
			// its key consumed.
			if err := os.Rename(rescued, db); err != nil {
				t.Fatal(err)
			}
			_, base = testrun.Serve(t, bin, "--db", db)
			status, m, err := postJSON(http.DefaultClient, base+tipPath, tok, "before-the-loss", `{"gratuity_amount":"1"}`)
			if err != nil || status != 409 || m["error_code"] != "DUPLICATE_ACTION" {
				t.Errorf("the key used before the loss, after going on from the rescued file: %d %v %v", status, m, err)
			}
		})
	}
}

// A database file replaced under a sandbox taking many concurrent writes: every write
// it acknowledged, before the replacement and after it until the watch noticed, is in
// the file it saves what it held into.
func TestFileReplacedUnderLoadLosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	bin := testrun.Build(t)
	db := filepath.Join(t.TempDir(), "run.db")
	proc, base := testrun.Serve(t, bin, "--db", db)
	load := startKeyedLoad(base, mustIssueToken(t, base), "replaced")
	testrun.WaitFor(t, "200 acknowledged writes", func() bool { return load.count() >= 200 })
	mustWriteFile(t, db+".restored", []byte("a file restored over the database\n"))
	if err := os.Rename(db+".restored", db); err != nil {
		t.Fatal(err)
	}
	rescued, _ := waitRescued(t, base, db)
	acks := load.stop()
	proc.Process.Signal(syscall.SIGTERM)
	proc.Wait()
	if len(acks) < 200 {
		t.Fatalf("only %d acknowledged writes: load too light to prove anything", len(acks))
	}
	mustHoldAcks(t, rescued, acks)
	t.Logf("%d acknowledged writes, all in %s", len(acks), filepath.Base(rescued))
}

// waitRescued waits until the health check of base says what the sandbox held is
// saved beside db, and returns that file and the health check's problem.
func waitRescued(t *testing.T, base, db string) (file, problem string) {
	t.Helper()
	type answer struct {
		Code            int
		Status, Problem string
		Err             error
	}
	savedIn := func(problem string) string {
		_, rest, _ := strings.Cut(problem, " is saved in ")
		file, _, _ := strings.Cut(rest, ": ")
		return file
	}
	h := testrun.WaitForValue(t, "health naming the rescued file", func() (a answer) {
		resp, err := http.Get(base + "/_sandbox/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		a.Code, a.Err = resp.StatusCode, json.NewDecoder(resp.Body).Decode(&a)
		return a
	}, func(a answer) bool {
		return a.Err == nil && a.Code == 503 && a.Status == "failing" && strings.HasPrefix(savedIn(a.Problem), db+".rescued-")
	})
	return savedIn(h.Problem), h.Problem
}

// Two starts racing for one file: exactly one serves, the other exits non-zero naming
// the file, whichever wins.
func TestRacingStartsOneServes(t *testing.T) {
	t.Parallel()
	bin := testrun.Build(t)
	for round := range 5 {
		db := filepath.Join(t.TempDir(), "race.db")
		cmds := make([]*exec.Cmd, 2)
		firstLines := make([]chan string, 2) // what each start printed first: "" when it printed nothing
		for i := range 2 {
			cmds[i] = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--reset")
			out, _ := cmds[i].StdoutPipe()
			cmds[i].Stderr = &strings.Builder{}
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmds[i].Process.Kill(); cmds[i].Wait() })
			firstLines[i] = make(chan string, 1)
			go func() {
				r := bufio.NewReader(out)
				line, _ := r.ReadString('\n')
				firstLines[i] <- line
				io.Copy(io.Discard, r)
			}()
		}
		// The loser exits; the winner serves until stopped, so wait for the loser only.
		exited := make(chan int, 2)
		for i := range 2 {
			go func() { cmds[i].Wait(); exited <- i }()
		}
		loser := testrun.Receive(t, fmt.Sprintf("round %d: one start to exit (both serve one file?)", round), exited)
		winner := 1 - loser
		if code := cmds[loser].ProcessState.ExitCode(); code == 0 ||
			!strings.Contains(cmds[loser].Stderr.(*strings.Builder).String(), "database file "+db+" is in use by another gpsandbox") {
			t.Errorf("round %d: the loser exited %d: %s", round, code, cmds[loser].Stderr)
		}
		// The winner may still be starting when the loser gives up: stop it only once
		// it says it serves, or once it has exited without saying so. Its stderr is
		// read once it has exited: exec writes it until then.
		first := testrun.Receive(t, fmt.Sprintf("round %d: the winner's first line", round), firstLines[winner])
		cmds[winner].Process.Signal(syscall.SIGTERM)
		<-exited
		if !strings.Contains(first, " listening on ") {
			t.Errorf("round %d: the winner printed %q: %s", round, first, cmds[winner].Stderr)
		}
	}
}

// An accidental second start (--reset on the running sandbox's file, or on its port)
// leaves the running sandbox's file alone: after a kill -9 of the running one, its
// restart opens the file and finds every acknowledged write.
func TestAccidentalSecondStartThenCrash(t *testing.T) {
	t.Parallel()
	bin := testrun.Build(t)
	db := filepath.Join(t.TempDir(), "a.db")
	a, base := testrun.Serve(t, bin, "--db", db)
	tok := mustIssueToken(t, base)
	var keys []string
	write := func() {
		key := fmt.Sprintf("acked-%d", len(keys))
		status, m, err := postJSON(http.DefaultClient, base+tipPath, tok, key, `{"gratuity_amount":"5"}`)
		if err != nil || status != 200 {
			t.Fatalf("write %s: %d %v %v", key, status, m, err)
		}
		keys = append(keys, key)
	}
	write()
	u, _ := url.Parse(base)
	for _, args := range [][]string{
		{"--db", db, "--reset", "--addr", "127.0.0.1:0"},
		{"--db", db, "--reset", "--addr", u.Host},
		{"--db", filepath.Join(t.TempDir(), "b.db"), "--addr", u.Host},
	} {
		ctx, cancel := context.WithDeadline(context.Background(), testrun.Deadline(t))
		out, err := exec.CommandContext(ctx, bin, append([]string{"serve"}, args...)...).CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || timedOut {
			t.Errorf("%v: %v %s, want a refused start", args, err, out)
		}
		write()
	}
	a.Process.Signal(syscall.SIGKILL)
	a.Wait()

	_, base = testrun.Serve(t, bin, "--db", db)
	for _, key := range keys {
		status, m, err := postJSON(http.DefaultClient, base+tipPath, tok, key, `{"gratuity_amount":"5"}`)
		if err != nil || status != 409 || m["error_code"] != "DUPLICATE_ACTION" {
			t.Errorf("acknowledged key %s after the restart: %d %v %v", key, status, m, err)
		}
	}
}
