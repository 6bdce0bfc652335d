package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeWalkthrough runs the README's curl walkthrough, as written there, against
// the binary: twice in a row, and again after a restart over the same database, so a
// user can paste it as often as they like.
func TestReadmeWalkthrough(t *testing.T) {
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
	script := mustReadmeBlock(t, "### Walkthrough with curl", "```sh\n")
	const baseLine = "BASE=http://127.0.0.1:8080/ucp\n"
	if !strings.HasPrefix(script, baseLine) {
		t.Fatalf("the walkthrough no longer starts with %q", baseLine)
	}
	run := func(round, base string) {
		t.Helper()
		out, err := exec.Command("bash", "-c", "BASE="+base+"/ucp\n"+strings.TrimPrefix(script, baseLine)).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: the walkthrough failed: %v\n%s", round, err, out)
		}
		mustMatchWalkthrough(t, round, string(out))
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

// mustMatchWalkthrough checks each answer of the walkthrough for what its comment says.
func mustMatchWalkthrough(t *testing.T, round, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"token: ",
		`"status":"CAPTURED"`,
		`{"error_code":"DUPLICATE_ACTION","detailed_error_code":"40039","detailed_error_description":"Idempotency Key seen before: id=TRN_CapturedSale000000000000000001"}`,
		`"status":"FOR_REVIEW"`,
		`"status":"INITIATED"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%s: %d lines of output, want %d:\n%s", round, len(lines), len(want), out)
	}
	if len(strings.TrimPrefix(lines[0], "token: ")) != 28 {
		t.Errorf("%s: step 1 printed %q, want a 28-character token", round, lines[0])
	}
	for i, w := range want[1:] {
		if !strings.Contains(lines[i+1], w) {
			t.Errorf("%s: step %d answered %s, want it to contain %s", round, i+2, lines[i+1], w)
		}
	}
	if !strings.Contains(lines[3], `"price":{"amount":"59800"`) {
		t.Errorf("%s: step 4 answered %s, want the price of two terminals", round, lines[3])
	}
}

// mustReadmeBlock returns the first fenced block opened by fence after heading in the
// repository's README.md.
func mustReadmeBlock(t *testing.T, heading, fence string) string {
	t.Helper()
	doc, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	_, block, ok := strings.Cut(section, fence)
	block, _, closed := strings.Cut(block, "```")
	if !ok || !closed {
		t.Fatalf("README.md has no %q block under %q", fence, heading)
	}
	return block
}
