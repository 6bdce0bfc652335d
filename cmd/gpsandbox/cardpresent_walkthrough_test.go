package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCardPresentWalkthrough runs the wire contract's walkthrough from sale to closed
// batch, as written there, against the binary: twice, and again after a restart.
func TestCardPresentWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary")
	}
	for _, tool := range []string{"bash", "curl", "sha512sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the walkthrough needs %s: %v", tool, err)
			}
			t.Skipf("the walkthrough needs %s, which is not installed", tool)
		}
	}
	doc, err := os.ReadFile("../../sandbox/api/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n### From sale to closed batch with curl\n")
	_, script, ok2 := strings.Cut(section, "```sh\n")
	script, _, ok3 := strings.Cut(script, "```")
	const baseLine = "BASE=http://127.0.0.1:8080/ucp\n"
	if !ok || !ok2 || !ok3 || !strings.HasPrefix(script, baseLine) {
		t.Fatalf("the contract has no walkthrough block starting with %q", baseLine)
	}
	want := []string{
		`"status":"CAPTURED"`,                   // 1. the sale
		`"status":"CAPTURED"`,                   // 3. the capture
		`"status":"CAPTURED"`,                   // 4. the tip
		`"type":"REFUND"`,                       // 4. the refund
		`"transaction_count":3,"amount":"3550"`, // 5. the close
		`{"error_code":"INVALID_ACTION","detailed_error_code":"40290","detailed_error_description":"Cannot PROCESS Adjustment over a transaction that is in a closed batch."}`,
	}
	run := func(round, base string) {
		t.Helper()
		out, err := exec.Command("bash", "-c", "BASE="+base+"/ucp\n"+strings.TrimPrefix(script, baseLine)).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: the walkthrough failed: %v\n%s", round, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(want) {
			t.Fatalf("%s: %d lines of output, want %d:\n%s", round, len(lines), len(want), out)
		}
		for i, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("%s: answer %d is %s, want it to contain %s", round, i+1, lines[i], w)
			}
		}
	}
	bin := mustBuildBinary(t)
	db := filepath.Join(t.TempDir(), "walkthrough.db")
	cmd, base := mustStartBinary(t, bin, "--db", db)
	run("first run", base)
	run("second run", base)
	cmd.Process.Kill()
	cmd.Wait()
	_, base = mustStartBinary(t, bin, "--db", db)
	run("after a restart", base)
}
