// Package testrun runs the gpsandbox binary for the tests that need the real process
// (signals, crashes, restarts, a browser): it builds the binary, starts `gpsandbox
// serve` on a free port, reads the address from its first line and waits until it is
// healthy; it finds the Chromium a browser test drives; it holds the one
// golden-file helper, MustMatchGolden, and the one way a test waits (WaitFor).
//
// Only tests import it: the binary's tests, the API's and the admin API's, and any
// test that waits for background work (notifications, the store's file watch, the
// app's shutdown). It is not internal because its users sit under both cmd/ and
// sandbox/: an internal package is importable only below its parent, so only a
// module-root internal/ would serve both, and the repository's top level holds only
// the product's own folders.
package testrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// built is the binary Build compiled, once per test process: linking it takes seconds
// on a small machine, and a dozen tests run it.
var built struct {
	once    sync.Once
	dir     string // removed by Main
	bin     string
	err     error
	mainRan bool
}

// Main runs a package's tests and then removes the binary Build compiled for them. A
// package whose tests call Build runs them through it:
//
//	func TestMain(m *testing.M) { testrun.Main(m) }
func Main(m *testing.M) {
	built.mainRan = true
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// Build returns the path of the gpsandbox command compiled for this test process, the
// same binary for every test; a test must not change or move it. With -short the test
// is skipped: building and running the binary is what makes a test slow.
func Build(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the gpsandbox binary: skipped with -short")
	}
	if !built.mainRan {
		t.Fatal("testrun.Build: the package's TestMain must call testrun.Main, which removes the binary after the tests")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "gpsandbox-test-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "gpsandbox")
		out, err := exec.Command("go", "build", "-o", built.bin, "github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// Serve starts `bin serve --addr 127.0.0.1:0 args...`, waits until it is healthy and
// returns the process and its base URL. Its standard error is discarded; the process
// is killed when the test ends, unless the test has ended it already.
func Serve(t testing.TB, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base, err := BaseURL(out)
	if err != nil {
		t.Fatalf("the binary printed no address: %v", err)
	}
	WaitHealthy(t, http.DefaultClient, base)
	return cmd, base
}

// BaseURL reads the first line a serving gpsandbox prints ("gpsandbox VERSION
// listening on URL (...)") from r and returns the URL. It reads nothing past that line, so
// the caller may go on reading r.
func BaseURL(r io.Reader) (string, error) {
	line, err := firstLine(r)
	if err != nil {
		return "", fmt.Errorf("reading the first line: %w (read %q)", err, line)
	}
	_, rest, ok := strings.Cut(strings.TrimSpace(line), " listening on ")
	base, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return "", fmt.Errorf("unexpected first line %q", line)
	}
	return base, nil
}

// firstLine reads r one byte at a time up to and including the first newline: a
// buffered reader would take bytes of the lines after it away from the caller.
func firstLine(r io.Reader) (string, error) {
	var line bytes.Buffer
	b := make([]byte, 1)
	for {
		n, err := r.Read(b)
		if n == 1 {
			line.WriteByte(b[0])
			if b[0] == '\n' {
				return line.String(), nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return line.String(), err
		}
	}
}

// WaitHealthy polls base's health check with client until it answers 200
// {"status":"ok"}, and fails t at Deadline(t) if it has not.
func WaitHealthy(t testing.TB, client *http.Client, base string) {
	t.Helper()
	const healthy = `200 OK: {"status":"ok"}`
	WaitForValue(t, base+" healthy", func() string {
		resp, err := client.Get(base + "/_sandbox/health")
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.Status + ": " + string(body)
	}, func(answer string) bool { return answer == healthy })
}

// Chromium returns the path of the browser a test drives: $GPSANDBOX_CHROMIUM, else
// the first of Debian's chromium, chromium-browser, google-chrome and headless-shell on
// PATH. Without one the test cannot run: it says so and skips, except in CI (CI set),
// where a missing browser is a failure. With -short the test is skipped.
func Chromium(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a browser: skipped with -short")
	}
	for _, name := range []string{os.Getenv("GPSANDBOX_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if name == "" {
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	msg := "no Chromium found (install Debian's chromium: apt-get install -y chromium, or set GPSANDBOX_CHROMIUM): the browser test did NOT run"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
