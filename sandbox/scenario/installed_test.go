package scenario_test

import (
	"errors"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// An installed scenario survives a reload of the files, replaces itself, is never
// confused with a file's scenario, and leaves the global set when removed.
func TestInstalledScenarios(t *testing.T) {
	e, _ := mustEngine(t, ":memory:")
	files := testScenarios()
	mine := scenario.Scenario{Name: "mine", File: "ignored.yaml", Rules: files[0].Rules}

	if replaced, err := e.Install(mine); err != nil || replaced {
		t.Fatalf("Install: %v %v", replaced, err)
	}
	if replaced, err := e.Install(mine); err != nil || !replaced {
		t.Errorf("Install again: %v %v, want replaced", replaced, err)
	}
	var fromFile *scenario.FileScenarioError
	if _, err := e.Install(files[0]); !errors.As(err, &fromFile) || fromFile.File != files[0].File {
		t.Errorf("Install over a file's scenario: %v", err)
	}
	if err := e.SetGlobal([]string{"mine"}); err != nil {
		t.Fatal(err)
	}
	// A reload of the files keeps it, global; a file defining its name is refused.
	if err := e.Replace(files[1:]); err != nil || !e.Has("mine") || e.Has(files[0].Name) {
		t.Errorf("Replace kept the installed scenario: %v", err)
	}
	clash := append(files[1:2:2], scenario.Scenario{Name: "mine", File: "mine.yaml", Rules: files[0].Rules})
	if err := e.Replace(clash); err == nil {
		t.Error("Replace accepted a file defining an installed name")
	}
	list := e.List()
	last := list[len(list)-1]
	if last.Name != "mine" || !last.Installed || last.File != "" || !last.Global {
		t.Errorf("List: %+v", list)
	}
	if err := e.Remove(files[1].Name); !errors.As(err, &fromFile) {
		t.Errorf("Remove a file's scenario: %v", err)
	}
	if err := e.Remove("mine"); err != nil || e.Has("mine") || len(e.Global()) != 0 {
		t.Errorf("Remove: %v; global %v", err, e.Global())
	}
	var unknown *scenario.UnknownError
	if err := e.Remove("mine"); !errors.As(err, &unknown) {
		t.Errorf("Remove twice: %v", err)
	}
}
