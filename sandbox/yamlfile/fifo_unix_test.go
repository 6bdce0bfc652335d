//go:build unix

package yamlfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe among the files is refused, naming it, without being opened: opening
// one waits for a writer, and held a start, a reload and a shutdown for as long.
func TestNamedPipeRefusedUnopened(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), scenarioWithRules("a", 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "b.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScenarios(os.DirFS(dir))
	if err == nil || !strings.Contains(err.Error(), "b.yaml: not a regular file (p---------)") {
		t.Errorf("scenarios: got %v, want b.yaml refused as no regular file", err)
	}
	_, err = LoadFixtures(os.DirFS(dir), time.Now())
	if err == nil || !strings.Contains(err.Error(), "b.yaml: not a regular file") {
		t.Errorf("fixtures: got %v, want b.yaml refused as no regular file", err)
	}
}
