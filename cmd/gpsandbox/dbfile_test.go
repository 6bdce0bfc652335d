package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

const tipPath = "/transactions/TRN_CapturedSale000000000000000001/adjustment"

// startTimeout bounds the wait for a start that must be refused: one that is not
// serves until killed.
const startTimeout = 15 * time.Second

// A database file deleted or replaced under a running sandbox: the next write answers
// 500 SYSTEM_ERROR naming the file, health says so, and nothing is written into the
// file that took its place.
func TestDatabaseFileLostUnderARunningSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := testrun.Build(t)
	for name, lose := range map[string]func(db string) error{
		"deleted":  os.Remove,
		"replaced": func(db string) error { return os.Rename(db+".restored", db) },
	} {
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "run.db")
			proc, base := testrun.Serve(t, bin, "--db", db)
			tok := mustIssueToken(t, base)
			if status, m := post(t, base+tipPath, tok, `{"gratuity_amount":"1"}`); status != 200 {
				t.Fatalf("adjustment: %d %v", status, m)
			}
			mustWriteFile(t, db+".restored", []byte("a file restored over the database\n"))
			if err := lose(db); err != nil {
				t.Fatal(err)
			}
			want := "database file " + db + " was deleted or replaced while the sandbox ran; restart it"
			// The watch looks every 100 ms: a write before then is taken, and lost with
			// the file. The deadline only stops a watch that never looks.
			status, m := post(t, base+tipPath, tok, `{"gratuity_amount":"2"}`)
			for deadline := time.Now().Add(time.Minute); status == 200 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
				status, m = post(t, base+tipPath, tok, `{"gratuity_amount":"2"}`)
			}
			if status != 500 || m["error_code"] != "SYSTEM_ERROR" || m["detailed_error_description"] != want {
				t.Errorf("write after the file was %s: %d %v", name, status, m)
			}
			resp, err := http.Get(base + "/_sandbox/health")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 503 || string(body) != `{"status":"failing","problem":"`+want+`"}` {
				t.Errorf("health: %d %s", resp.StatusCode, body)
			}
			proc.Process.Signal(syscall.SIGTERM)
			proc.Wait()
			if b, err := os.ReadFile(db); name == "replaced" && (err != nil || string(b) != "a file restored over the database\n") {
				t.Errorf("the file put in its place changed: %q %v", b, err)
			}
		})
	}
}

// Two starts racing for one file: exactly one serves, the other exits non-zero naming
// the file, whichever wins.
func TestRacingStartsOneServes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := testrun.Build(t)
	for round := range 5 {
		db := filepath.Join(t.TempDir(), "race.db")
		var wg sync.WaitGroup
		outs := make([]string, 2)
		cmds := make([]*exec.Cmd, 2)
		for i := range 2 {
			cmds[i] = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--reset")
			out, _ := cmds[i].StdoutPipe()
			cmds[i].Stderr = &strings.Builder{}
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmds[i].Process.Kill(); cmds[i].Wait() })
			wg.Go(func() {
				line, _ := io.ReadAll(io.LimitReader(out, 200))
				outs[i] = string(line)
			})
		}
		// The loser exits; the winner serves until killed, so wait for the loser only.
		exited := make(chan int, 2)
		for i := range 2 {
			go func() { cmds[i].Wait(); exited <- i }()
		}
		var loser int
		select {
		case loser = <-exited:
		case <-time.After(startTimeout):
			t.Fatalf("round %d: both starts serve one file", round)
		}
		winner := 1 - loser
		if code := cmds[loser].ProcessState.ExitCode(); code == 0 ||
			!strings.Contains(cmds[loser].Stderr.(*strings.Builder).String(), "database file "+db+" is in use by another gpsandbox") {
			t.Errorf("round %d: the loser exited %d: %s", round, code, cmds[loser].Stderr)
		}
		cmds[winner].Process.Signal(syscall.SIGTERM)
		<-exited
		wg.Wait()
		if !strings.Contains(outs[winner], " listening on ") {
			t.Errorf("round %d: the winner printed %q", round, outs[winner])
		}
	}
}

// An accidental second start (--reset on the running sandbox's file, or on its port)
// leaves the running sandbox's file alone: after a kill -9 of the running one, its
// restart opens the file and finds every acknowledged write.
func TestAccidentalSecondStartThenCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
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
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
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
