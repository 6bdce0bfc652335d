package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// The curl walkthroughs of the documentation run here, as written there, against the
// binary: twice in a row, and again after a restart over the same database, so a user
// can paste them as often as they like.

// TestReadmeWalkthrough runs the front page's walkthrough: a token, a tip, the same
// key again, a price, an order.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	mustRunWalkthrough(t, "../../README.md", "### Walkthrough with curl", func(round string, lines []string) {
		mustContainEach(t, round, lines, []string{
			"token: ",
			`"status":"CAPTURED"`,
			`{"error_code":"DUPLICATE_ACTION","detailed_error_code":"40039","detailed_error_description":"Idempotency Key seen before: id=TRN_CapturedSale000000000000000001"}`,
			`"status":"FOR_REVIEW","time_created"`,
			`"status":"INITIATED"`,
		})
		if len(strings.TrimPrefix(lines[0], "token: ")) != 28 {
			t.Errorf("%s: step 1 printed %q, want a 28-character token", round, lines[0])
		}
		if !strings.Contains(lines[3], `"price":{"amount":"59800"`) {
			t.Errorf("%s: step 4 answered %s, want the price of two terminals", round, lines[3])
		}
	})
}

// TestCardPresentWalkthrough runs the wire contract's walkthrough from sale to closed
// batch.
func TestCardPresentWalkthrough(t *testing.T) {
	t.Parallel()
	mustRunWalkthrough(t, "../../sandbox/api/README.md", "### From sale to closed batch with curl", func(round string, lines []string) {
		mustContainEach(t, round, lines, []string{
			`"status":"CAPTURED"`,                   // 1. the sale
			`"status":"CAPTURED"`,                   // 3. the capture
			`"status":"CAPTURED"`,                   // 4. the tip
			`"type":"REFUND"`,                       // 4. the refund
			`"transaction_count":3,"amount":"3550"`, // 5. the close
			`{"error_code":"INVALID_ACTION","detailed_error_code":"40290","detailed_error_description":"Cannot PROCESS Adjustment over a transaction that is in a closed batch."}`,
		})
	})
}

// TestTerminalWalkthrough runs the front page's Meet in the Cloud walkthrough: a sale
// on the simulated terminal, a refund linked to it, the end of day.
func TestTerminalWalkthrough(t *testing.T) {
	t.Parallel()
	mustRunWalkthrough(t, "../../README.md", "## A terminal without hardware", func(round string, lines []string) {
		mustContainEach(t, round, lines, []string{
			`"response":{"response":"Sale"`,
			`"response":{"response":"Refund"`,
			`"response":{"response":"EODProcessing"`,
		})
		if !strings.Contains(lines[0], `"totalAmount":"12.00"`) || !strings.Contains(lines[2], `"batchStatus":"CLOSED"`) {
			t.Errorf("%s: the sale answered %s\nthe end of day %s", round, lines[0], lines[2])
		}
		for i, line := range lines {
			if !strings.Contains(line, `"status":"COMPLETE"`) || !strings.Contains(line, `"cmdResult":{"result":"Success"}`) {
				t.Errorf("%s: step %d answered %s", round, i+1, line)
			}
		}
	})
}

// TestOrderedTerminalWalkthrough runs the front page's walkthrough from a device order
// to a batch closed on the terminal it delivered: each run orders a new terminal, binds
// it in place of the last, tips a sale on it and closes that sale's batch alone.
func TestOrderedTerminalWalkthrough(t *testing.T) {
	t.Parallel()
	mustRunWalkthrough(t, "../../README.md", "### From an ordered terminal to a closed batch", func(round string, lines []string) {
		mustContainEach(t, round, lines, []string{
			`"status":"PROCESSING"`,
			`"status":"SHIPPED"`,
			`"status":"DELIVERED"`,
			`"account_id":"TRA_00000000000000000000000000000001"`,
			`"response":{"response":"TipAdjust"`,
			`"batchStatus":"CLOSED"`,
		})
		if !strings.Contains(lines[3], `"order_id":"ORD_`) || !strings.Contains(lines[3], `"tran_no":0`) {
			t.Errorf("%s: the delivered terminal %s", round, lines[3])
		}
		if !strings.Contains(lines[4], `"totalAmount":"12.00"`) || !strings.Contains(lines[5], `"totalAmount":"12.00","totalCnt":1`) {
			t.Errorf("%s: the tip answered %s\nthe end of day %s", round, lines[4], lines[5])
		}
	})
}

// mustRunWalkthrough runs the first sh block under heading in doc three times against
// the binary, with its BASE line pointed at the binary, and hands check each run's
// output lines.
func mustRunWalkthrough(t *testing.T, doc, heading string, check func(round string, lines []string)) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "sha512sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the walkthrough needs %s: %v", tool, err)
			}
			t.Skipf("the walkthrough needs %s, which is not installed", tool)
		}
	}
	script := mustDocBlock(t, doc, heading, "```sh\n")
	const baseLine = "BASE=http://127.0.0.1:8080/ucp\n"
	if !strings.HasPrefix(script, baseLine) {
		t.Fatalf("%s: the walkthrough no longer starts with %q", doc, baseLine)
	}
	run := func(round, base string) {
		t.Helper()
		out, err := exec.Command("bash", "-c", "BASE="+base+"/ucp\n"+strings.TrimPrefix(script, baseLine)).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: the walkthrough failed: %v\n%s", round, err, out)
		}
		check(round, strings.Split(strings.TrimSpace(string(out)), "\n"))
	}
	bin := testrun.Build(t)
	db := filepath.Join(t.TempDir(), "walkthrough.db")
	cmd, base := testrun.Serve(t, bin, "--db", db)
	run("first run", base)
	run("second run", base)
	cmd.Process.Kill()
	cmd.Wait()
	_, base = testrun.Serve(t, bin, "--db", db)
	run("after a restart", base)
}

// mustContainEach checks that there is one line per want and each holds its want.
func mustContainEach(t *testing.T, round string, lines, want []string) {
	t.Helper()
	if len(lines) != len(want) {
		t.Fatalf("%s: %d lines of output, want %d:\n%s", round, len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("%s: answer %d is %s, want it to contain %s", round, i+1, lines[i], w)
		}
	}
}

// mustDocBlock returns the first fenced block opened by fence after heading in doc.
func mustDocBlock(t *testing.T, doc, heading, fence string) string {
	t.Helper()
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", doc, heading)
	}
	_, block, ok := strings.Cut(section, fence)
	block, _, closed := strings.Cut(block, "```")
	if !ok || !closed {
		t.Fatalf("%s has no %q block under %q", doc, fence, heading)
	}
	return block
}
