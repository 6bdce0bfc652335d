package testrun

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// MustMatchGolden compares got with the file testdata/name of the package under test,
// ending in one newline if got does not; go test -update rewrites the file. It is the
// golden helper of every package's tests.
func MustMatchGolden(t testing.TB, name string, got []byte) {
	t.Helper()
	if !bytes.HasSuffix(got, []byte("\n")) {
		got = append(bytes.Clone(got), '\n')
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from golden\n got: %s\nwant: %s", name, got, want)
	}
}
