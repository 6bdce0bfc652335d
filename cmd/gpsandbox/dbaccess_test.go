package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// A database in a folder the process may not write names the folder, the process's
// uid and the two ways out, before anything is served: the container's case, a
// root-owned host folder on /data and the image's uid 65532. Run as root (as CI
// does), the binary is started as uid 65532, since root writes anywhere.
func TestUnwritableDatabaseFolderIsExplained(t *testing.T) {
	top, err := os.MkdirTemp("", "gpsandbox-perm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	data := filepath.Join(top, "data")
	for dir, mode := range map[string]os.FileMode{top: 0o755, data: 0o555} {
		if err := os.MkdirAll(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--addr", "127.0.0.1:0", "--db", filepath.Join(data, "gpsandbox.db")}
	var said string
	if os.Getuid() == 0 {
		bin := filepath.Join(top, "gpsandbox")
		exe, err := os.ReadFile(testrun.Build(t)) // a copy uid 65532 may run: the build's folder is root's
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, exe, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("serve as uid 65532 started in a folder it cannot write:\n%s", out)
		}
		said = string(out)
	} else {
		err := serve(context.Background(), args, func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil {
			t.Fatal("serve started in a folder it cannot write")
		}
		said = err.Error()
	}
	for _, want := range []string{"the database folder " + data + " is not writable by uid", "--user", "chown"} {
		if !strings.Contains(said, want) {
			t.Errorf("serve said %q; want it to contain %q", said, want)
		}
	}
}

func TestExplainDBAccessLeavesOtherErrors(t *testing.T) {
	if got := explainDBAccess(os.ErrNotExist, "/data/gpsandbox.db"); got != os.ErrNotExist {
		t.Errorf("a non-permission error was changed: %v", got)
	}
}
