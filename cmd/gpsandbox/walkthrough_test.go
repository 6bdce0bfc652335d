package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// The curl walkthroughs of the documentation run here, as written there, against the
// binary started afresh (`--db :memory:`, as each walkthrough says to start), and their
// answers must be the ones the document shows, member for member.

// walkthroughs are the documents' walkthroughs: the heading each sits under, and
// its parts: an `sh` block, then the plain block of its answers, as many times as
// parts says (the blocks of one walkthrough run in one shell).
var walkthroughs = []struct {
	doc, heading string
	parts        int
}{
	{"../../README.md", "## Three calls", 1},
	{"../../sandbox/api/README.md", "### From sale to closed batch with curl", 2},
	{"../../sandbox/api/README.md", "### A terminal without hardware, with curl", 1},
	{"../../sandbox/api/README.md", "### From an ordered terminal to a closed batch", 1},
}

// TestWalkthroughAnswers runs each walkthrough on a sandbox started with
// `--db :memory:`, and again on a database file restarted with `--reset` after a first
// run, the two starts the documents name.
func TestWalkthroughAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary")
	}
	for _, tool := range []string{"sh", "curl", "sha512sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the walkthroughs need %s: %v", tool, err)
			}
			t.Skipf("the walkthroughs need %s, which is not installed", tool)
		}
	}
	bin := testrun.Build(t)
	for _, w := range walkthroughs {
		t.Run(w.heading, func(t *testing.T) {
			t.Parallel()
			script, answers := mustWalkthrough(t, w.doc, w.heading, w.parts)
			check := func(start string, got []string) {
				t.Helper()
				want := strings.Split(strings.TrimSpace(answers), "\n")
				if len(got) != len(want) {
					t.Fatalf("%s, %s: %d answers, the document shows %d:\n%s", w.doc, start, len(got), len(want), strings.Join(got, "\n"))
				}
				for i := range want {
					for _, d := range answerDiffs(want[i], got[i]) {
						t.Errorf("%s, %s, answer %d: %s\nthe sandbox answered: %s", w.doc, start, i+1, d, got[i])
					}
				}
			}
			_, base := testrun.Serve(t, bin, "--db", ":memory:")
			check("--db :memory:", mustRunScript(t, script, base))

			db := filepath.Join(t.TempDir(), "walkthrough.db")
			cmd, base := testrun.Serve(t, bin, "--db", db)
			mustRunScript(t, script, base)
			cmd.Process.Kill()
			cmd.Wait()
			_, base = testrun.Serve(t, bin, "--db", db, "--reset")
			check("--reset after a run", mustRunScript(t, script, base))
		})
	}
}

// TestAnswerDiffsCatchDrift: the comparison finds a member missing, one too many, a
// changed value, a changed generated id's kind, and lets ids and times vary.
func TestAnswerDiffsCatchDrift(t *testing.T) {
	t.Parallel()
	doc := `{"id":"TRN_RRK68IpQeVf8ikV39kKlyYE5S1Vnwn","time_created":"2026-11-25T22:30:22.493Z","status":"CAPTURED","n":3,"card":{"authcode":"UlLVHw"}}`
	for _, tc := range []struct {
		real string
		want []string
	}{
		{`{"id":"TRN_dtaT6miXk4VZPftjeKwN0KLCgpgkk6","time_created":"2027-01-02T03:04:05.006Z","status":"CAPTURED","n":3,"card":{"authcode":"62i0lf"}}`, nil},
		{`{"id":"TRN_dtaT6miXk4VZPftjeKwN0KLCgpgkk6","time_created":"2027-01-02T03:04:05.006Z","status":"CAPTURED","n":3,"card":{}}`,
			[]string{"card.authcode: the sandbox no longer answers it"}},
		{`{"id":"TRN_dtaT6miXk4VZPftjeKwN0KLCgpgkk6","time_created":"2027-01-02T03:04:05.006Z","status":"CAPTURED","n":3,"card":{"authcode":"62i0lf"},"x":1}`,
			[]string{"x: answered by the sandbox, not shown"}},
		{`{"id":"ACT_dtaT6miXk4VZPftjeKwN0KLCgpgkk6","time_created":"2027-01-02T03:04:05.006Z","status":"REVERSED","n":4,"card":{"authcode":"62i0lf"}}`,
			[]string{`id: shown "TRN_RRK68IpQeVf8ikV39kKlyYE5S1Vnwn", answered "ACT_dtaT6miXk4VZPftjeKwN0KLCgpgkk6"`,
				`n: shown 3, answered 4`, `status: shown "CAPTURED", answered "REVERSED"`}},
		{`"status":"CAPTURED"`, []string{`shown {"id":"TRN_RRK68IpQeVf8ikV39kKlyYE5S1Vnwn",`}},
	} {
		got := answerDiffs(doc, tc.real)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %q", tc.real, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("%s: %q, want %q", tc.real, got[i], tc.want[i])
			}
		}
	}
}

// mustRunScript runs script with bash, its BASE line pointed at base, and returns its
// output lines.
func mustRunScript(t *testing.T, script, base string) []string {
	t.Helper()
	const baseLine = "BASE=http://127.0.0.1:8080/ucp\n"
	if !strings.HasPrefix(script, baseLine) {
		t.Fatalf("the walkthrough no longer starts with %q", baseLine)
	}
	out, err := exec.Command("sh", "-c", "BASE="+base+"/ucp\n"+strings.TrimPrefix(script, baseLine)).CombinedOutput()
	if err != nil {
		t.Fatalf("the walkthrough failed: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// Values that differ from run to run: times, generated ids (compared by their kind,
// the prefix), and the members named in variableMembers.
var (
	timeValue      = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	generatedID    = regexp.MustCompile(`^([A-Z]{3})_[A-Za-z0-9]{30}$`)
	variableMember = map[string]bool{
		"token":           true, // an access token
		"authcode":        true, // the issuer's approval code
		"approvalCode":    true, // the same, on a terminal
		"brand_reference": true, // the card brand's transaction reference
		"requestId":       true, // the walkthroughs' own, from the time
	}
)

// answerDiffs compares one answer the document shows with the sandbox's: JSON member
// for member (times, generated ids and variableMembers may differ), other text exactly.
func answerDiffs(shown, real string) []string {
	var s, r any
	if json.Unmarshal([]byte(shown), &s) != nil || json.Unmarshal([]byte(real), &r) != nil {
		if shown != real {
			return []string{fmt.Sprintf("shown %s", shown)}
		}
		return nil
	}
	var diffs []string
	compareValues("", s, r, &diffs)
	return diffs
}

func compareValues(path string, shown, real any, diffs *[]string) {
	switch s := shown.(type) {
	case map[string]any:
		r, ok := real.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: shown an object, answered %v", path, real))
			return
		}
		for _, k := range slices.Sorted(mapKeys(s, r)) {
			sv, inShown := s[k]
			rv, inReal := r[k]
			switch {
			case !inReal:
				*diffs = append(*diffs, join(path, k)+": the sandbox no longer answers it")
			case !inShown:
				*diffs = append(*diffs, join(path, k)+": answered by the sandbox, not shown")
			default:
				compareValues(join(path, k), sv, rv, diffs)
			}
		}
	case []any:
		r, ok := real.([]any)
		if !ok || len(r) != len(s) {
			*diffs = append(*diffs, fmt.Sprintf("%s: shown %d items, answered %v", path, len(s), real))
			return
		}
		for i := range s {
			compareValues(fmt.Sprintf("%s[%d]", path, i), s[i], r[i], diffs)
		}
	default:
		if !sameValue(path, shown, real) {
			sj, _ := json.Marshal(shown)
			rj, _ := json.Marshal(real)
			*diffs = append(*diffs, fmt.Sprintf("%s: shown %s, answered %s", path, sj, rj))
		}
	}
}

// sameValue reports whether a shown scalar stands for the answered one.
func sameValue(path string, shown, real any) bool {
	if shown == real {
		return true
	}
	s, ok1 := shown.(string)
	r, ok2 := real.(string)
	if !ok1 || !ok2 {
		return false
	}
	member := path[strings.LastIndex(path, ".")+1:]
	switch {
	case variableMember[member]:
		return true
	case timeValue.MatchString(s):
		return timeValue.MatchString(r)
	}
	sm, rm := generatedID.FindStringSubmatch(s), generatedID.FindStringSubmatch(r)
	return sm != nil && rm != nil && sm[1] == rm[1]
}

func mapKeys(a, b map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
		for k := range b {
			if _, dup := a[k]; !dup && !yield(k) {
				return
			}
		}
	}
}

func join(path, member string) string {
	if path == "" {
		return member
	}
	return path + "." + member
}

// mustWalkthrough returns the first parts `sh` blocks after heading in doc, and the
// plain blocks that follow each, their answers.
func mustWalkthrough(t *testing.T, doc, heading string, parts int) (script, answers string) {
	t.Helper()
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(text), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", doc, heading)
	}
	for range parts {
		var s, a string
		s, rest = mustFenced(t, doc, heading, rest, "```sh\n")
		a, rest = mustFenced(t, doc, heading, rest, "```\n")
		script += s
		answers += a
	}
	return script, answers
}

// mustFenced returns the first block in text opened by fence, and the text after it.
func mustFenced(t *testing.T, doc, heading, text, fence string) (block, rest string) {
	t.Helper()
	_, after, ok := strings.Cut(text, fence)
	block, rest, closed := strings.Cut(after, "\n```")
	if !ok || !closed {
		t.Fatalf("%s has no %q block under %q", doc, fence, heading)
	}
	return block + "\n", rest
}
