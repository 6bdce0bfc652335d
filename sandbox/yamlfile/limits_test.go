package yamlfile

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// scenarioWithRules is a valid scenario file of n short rules.
func scenarioWithRules(name string, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nname: %s\nrules:\n", name)
	for i := 0; i < n; i++ {
		b.WriteString("  - {when: {operation: order}, then: pass}\n")
	}
	return []byte(b.String())
}

// Files over a limit are refused, naming the file and the limit, before they are
// parsed; files within the limits load.
func TestScenarioLimits(t *testing.T) {
	manyFiles := func(n, rules int) fstest.MapFS {
		fsys := fstest.MapFS{}
		for i := 0; i < n; i++ {
			fsys[fmt.Sprintf("f%02d.yaml", i)] = &fstest.MapFile{Data: scenarioWithRules(fmt.Sprintf("s%02d", i), rules)}
		}
		return fsys
	}
	big := append(scenarioWithRules("big", 1), []byte("# "+strings.Repeat("x", MaxScenarioFileSize)+"\n")...)
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string // "" when the set loads
	}{
		{"at the rule limit", fstest.MapFS{"a.yaml": {Data: scenarioWithRules("a", MaxScenarioRules)}}, ""},
		{"over the rule limit", fstest.MapFS{"a.yaml": {Data: scenarioWithRules("a", MaxScenarioRules+1)}},
			"a.yaml:4:3: rules: the file has more than 1000 rules, the limit per file"},
		{"over the rule limit in two documents", fstest.MapFS{"a.yaml": {Data: append(append(scenarioWithRules("a", 600), "---\n"...), scenarioWithRules("b", 600)...)}},
			"a.yaml:608:3: rules: the file has more than 1000 rules, the limit per file"},
		{"over the size limit", fstest.MapFS{"a.yaml": {Data: big}},
			fmt.Sprintf("a.yaml: %d bytes, over the limit of 128 KiB per scenario file", len(big))},
		{"a directory at the rule limit", manyFiles(10, 1000), ""},
		{"a directory over the rule limit", manyFiles(11, 1000),
			"f10.yaml:4:3: rules: the files up to this one have more than 10000 rules, the limit for a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadScenarios(tt.fsys)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestScenarioDirectorySizeLimit(t *testing.T) {
	fsys := fstest.MapFS{}
	pad := "# " + strings.Repeat("x", MaxScenarioFileSize-200) + "\n"
	for i := 0; i < MaxScenarioDirSize/MaxScenarioFileSize+1; i++ {
		fsys[fmt.Sprintf("f%d.yaml", i)] = &fstest.MapFile{Data: append(scenarioWithRules(fmt.Sprintf("s%d", i), 1), pad...)}
	}
	_, err := LoadScenarios(fsys)
	if err == nil || !strings.HasPrefix(err.Error(), "f8.yaml: the scenario files up to this one total ") ||
		!strings.HasSuffix(err.Error(), "bytes, over the limit of 1 MiB for a directory") {
		t.Errorf("got %v", err)
	}
}

func TestDecodeScenarioSizeLimit(t *testing.T) {
	doc := append(scenarioWithRules("a", 1), []byte("# "+strings.Repeat("x", MaxScenarioFileSize))...)
	_, err := DecodeScenario(doc, "body")
	if want := fmt.Sprintf("body: %d bytes, over the limit of 128 KiB per scenario file", len(doc)); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
