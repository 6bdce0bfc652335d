package admin

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// GET /_sandbox/scenarios: every loaded scenario with its source file, files whose
// last load failed with the reason, and the globally active names.
func (s *Server) adminScenarios(*http.Request) (any, error) {
	view := scenariosView{Scenarios: []scenarioView{}, Active: []string{}}
	if s.engine == nil {
		return view, nil
	}
	for _, e := range s.engine.List() {
		view.Scenarios = append(view.Scenarios, scenarioView{
			Name: e.Name, Description: carddata.Mask(e.Description), File: e.File, Installed: e.Installed,
			Rules: e.Rules, Global: e.Global, LoadError: e.LoadError,
		})
	}
	view.Active = append(view.Active, s.engine.Global()...)
	view.Seed = strconv.FormatUint(s.engine.Seed(), 10)
	return view, nil
}

var activeScenariosBody = web.NewBody[activeScenariosRequest]()

// activeScenariosRequest is the body of PUT /_sandbox/scenarios/active.
type activeScenariosRequest struct {
	Names []string `json:"names" gp:"required,max=100"`
}

// PUT /_sandbox/scenarios/active with {"names": [...]}: replaces the global set.
func (s *Server) adminSetActiveScenarios(r *http.Request) (any, error) {
	req, err := activeScenariosBody.Read(r)
	if err != nil {
		return nil, err
	}
	if s.engine == nil {
		return nil, sandbox.InvalidDocument("this sandbox runs without scenarios")
	}
	names := req.Names
	var unknown *scenario.UnknownError
	if err := s.engine.SetGlobal(names); errors.As(err, &unknown) {
		return nil, sandbox.InvalidDocument("names: no scenario is named " + carddata.Excerpt(unknown.Name))
	} else if err != nil {
		return nil, err
	}
	return s.adminScenarios(r)
}

// POST /_sandbox/scenarios: installs the scenario of a YAML (or JSON) body, checked
// exactly as a scenario file (problems are located at "body:<line>:<col>"). It lives
// until removed or until the sandbox stops; a reload of the scenario files keeps it.
func (s *Server) adminInstallScenario(r *http.Request) (any, error) {
	if s.engine == nil || s.decodeScenario == nil {
		return nil, sandbox.InvalidDocument("this sandbox runs without scenarios")
	}
	raw, err := web.ReadBody(nil, r)
	if err != nil {
		return nil, err
	}
	sc, err := s.decodeScenario(raw, "body")
	if err != nil {
		return nil, sandbox.InvalidDocument(strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	replaced, err := s.engine.Install(sc)
	var fromFile *scenario.FileScenarioError
	if errors.As(err, &fromFile) {
		return nil, sandbox.InvalidDocument("name: " + err.Error())
	} else if err != nil {
		return nil, sandbox.InvalidDocument(err.Error())
	}
	return installedView{scenarioView: scenarioView{
		Name: sc.Name, Description: carddata.Mask(sc.Description), Installed: true, Rules: len(sc.Rules),
		Global: slices.Contains(s.engine.Global(), sc.Name),
	}, Replaced: replaced}, nil
}

// DELETE /_sandbox/scenarios/{name}: removes an installed scenario (and deactivates
// it when it was globally active); a file's scenario is removed by editing the file.
func (s *Server) adminRemoveScenario(r *http.Request) (any, error) {
	name := api.PathVar(r, "name")
	if s.engine == nil {
		return nil, sandbox.NotFoundScenario(name)
	}
	var unknown *scenario.UnknownError
	var fromFile *scenario.FileScenarioError
	switch err := s.engine.Remove(name); {
	case errors.As(err, &unknown):
		return nil, sandbox.NotFoundScenario(name)
	case errors.As(err, &fromFile):
		return nil, sandbox.InvalidDocument(err.Error())
	case err != nil:
		return nil, err
	}
	return s.adminScenarios(r)
}
