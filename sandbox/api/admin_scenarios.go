package api

import (
	"errors"
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

type scenarioView struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	File        string `json:"file"`
	Rules       int    `json:"rules"`
	Global      bool   `json:"global"`
	LoadError   string `json:"load_error,omitempty"`
}

type scenariosView struct {
	Scenarios []scenarioView `json:"scenarios"`
	Active    []string       `json:"active"`
}

// GET /_sandbox/scenarios: every loaded scenario with its source file, files whose
// last load failed with the reason, and the globally active names.
func (s *Server) adminScenarios(*http.Request) (any, error) {
	view := scenariosView{Scenarios: []scenarioView{}, Active: []string{}}
	if s.engine == nil {
		return view, nil
	}
	for _, e := range s.engine.List() {
		view.Scenarios = append(view.Scenarios, scenarioView{
			Name: e.Name, Description: e.Description, File: e.File, Rules: e.Rules,
			Global: e.Global, LoadError: e.LoadError,
		})
	}
	view.Active = append(view.Active, s.engine.Global()...)
	return view, nil
}

var activeScenariosBody = []field{
	{name: "names", kind: kArray, elem: kString, required: true, max: 100},
}

// PUT /_sandbox/scenarios/active with {"names": [...]}: replaces the global set.
func (s *Server) adminSetActiveScenarios(r *http.Request) (any, error) {
	body, err := s.adminBody(r, activeScenariosBody)
	if err != nil {
		return nil, err
	}
	if s.engine == nil {
		return nil, sandbox.InvalidDocument("this sandbox runs without scenarios")
	}
	var names []string
	for _, n := range list(body, "names") {
		names = append(names, n.(string))
	}
	var unknown *scenario.UnknownError
	if err := s.engine.SetGlobal(names); errors.As(err, &unknown) {
		return nil, sandbox.InvalidDocument("names: no scenario is named " + unknown.Name)
	} else if err != nil {
		return nil, err
	}
	return s.adminScenarios(r)
}
