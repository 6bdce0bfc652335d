package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// What a new user meets first, through the built binary: its messages, its flags and
// what it leaves on disk.
func TestFirstHour(t *testing.T) {
	t.Parallel()
	bin := testrun.Build(t)

	t.Run("a --clock past the last time the clock takes is refused naming it", func(t *testing.T) {
		_, stderr, code := runBinary(t, bin, "serve", "--db", ":memory:", "--addr", "127.0.0.1:0", "--clock", "9999-12-31T23:59:59.999Z")
		if code != 2 || !strings.Contains(stderr, `--clock "9999-12-31T23:59:59.999Z": want a time from 0001-01-01T00:00:00.000Z to 9998-12-31T23:59:59.999Z`) {
			t.Errorf("exit %d, %q", code, stderr)
		}
	})

	t.Run("a clean stop leaves no lock file", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "gpsandbox.db")
		proc, _ := testrun.Serve(t, bin, "--db", db)
		if _, err := os.Stat(db + ".lock"); err != nil {
			t.Fatalf("no lock file while it runs: %v", err)
		}
		if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := proc.Wait(); err != nil {
			t.Fatalf("stop: %v", err)
		}
		if _, err := os.Stat(db + ".lock"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the lock file after a clean stop: %v", err)
		}
		if _, err := os.Stat(db); err != nil {
			t.Errorf("the database after a clean stop: %v", err)
		}
	})

	t.Run("fixtures no token can be issued from are refused, naming the folder", func(t *testing.T) {
		empty := t.TempDir()
		useless := t.TempDir()
		if err := os.WriteFile(filepath.Join(useless, "apps.yaml"), []byte(
			"apps:\n  - {id: LonelyApp, key: k, name: lonely, merchant_id: MER_1}\nmerchants:\n  - {id: MER_1, name: One}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		noApp := "fixtures folder " + empty + ": no app, so every access token request would be refused (40004); the folder holds no fixture file (*.yaml, *.yml)"
		noUse := "fixtures folder " + useless + ": no app both acts for a merchant (merchants) and has an account (accounts)"
		for _, tc := range []struct {
			args       []string
			want       string
			wantStdout bool
		}{
			{[]string{"validate", "--fixtures", empty}, noApp, true},
			{[]string{"validate", "--fixtures", useless}, noUse, true},
			{[]string{"serve", "--addr", "127.0.0.1:0", "--db", ":memory:", "--fixtures", empty}, noApp, false},
			{[]string{"serve", "--addr", "127.0.0.1:0", "--db", ":memory:", "--fixtures", useless}, noUse, false},
		} {
			stdout, stderr, code := runBinary(t, bin, tc.args...)
			out := stderr
			if tc.wantStdout {
				out = stdout
			}
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and %q", tc.args, code, stdout, stderr, tc.want)
			}
		}
	})

	t.Run("the start line gives the API base URL, the inspector and the database", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "start.db")
		cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("no start line: %v", err)
		}
		base, err := testrun.BaseURL(strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"API " + base + "/ucp,", "inspector " + base + "/_sandbox/ui/,", "database " + db + ")"} {
			if !strings.Contains(line, want) {
				t.Errorf("start line %q lacks %q", line, want)
			}
		}
	})

	t.Run("an unknown flag is one line saying where help is", func(t *testing.T) {
		for _, command := range []string{"serve", "validate", "healthcheck"} {
			stdout, stderr, code := runBinary(t, bin, command, "--no-such-flag")
			want := "gpsandbox: flag provided but not defined: -no-such-flag (gpsandbox " + command + " -h lists its flags)\n"
			if code != 2 || stdout != "" || stderr != want {
				t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %q; want exit 2 and %q", command, code, stdout, stderr, want)
			}
		}
	})

	t.Run("validate of a missing file names a file", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope.yaml")
		_, stderr, code := runBinary(t, bin, "validate", missing)
		if want := "gpsandbox: scenario file " + missing + ": no such file\n"; code != 2 || stderr != want {
			t.Errorf("exit %d, %q; want exit 2 and %q", code, stderr, want)
		}
	})

	t.Run("an unknown --scenario lists the known ones", func(t *testing.T) {
		_, stderr, code := runBinary(t, bin, "serve", "--addr", "127.0.0.1:0", "--db", ":memory:", "--scenario", "nope")
		if code != 2 || !strings.Contains(stderr, `--scenario: unknown scenario "nope"; known: `) ||
			!strings.Contains(stderr, "flaky-then-ok") || !strings.Contains(stderr, "slow-network") {
			t.Errorf("exit %d, %q", code, stderr)
		}
	})
}

// runBinary runs bin with args to its end and returns its output and exit status.
// One that never ends is killed at the test's deadline.
func runBinary(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), testrun.Deadline(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}
