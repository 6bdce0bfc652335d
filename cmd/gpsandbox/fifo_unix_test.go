//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"syscall"
	"testing"
)

// validate given a named pipe refuses it without opening it: opening one waits for
// a writer, for as long as none comes.
func TestValidateNamedPipe(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"validate", pipe}, func(string) string { return "" }, &out, io.Discard)
	if want := pipe + ": not a regular file (p---------)\n"; err == nil || exitCode(err) != 1 || out.String() != want {
		t.Errorf("validate a named pipe: %v, %q; want exit 1 and %q", err, out.String(), want)
	}
}
