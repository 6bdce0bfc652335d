package scenario

import (
	"fmt"
	"maps"
	"slices"
)

// FileScenarioError is an attempt to install or remove, at run time, a scenario that
// a scenario file defines: files are changed by editing them.
type FileScenarioError struct{ Name, File string }

func (e *FileScenarioError) Error() string {
	return fmt.Sprintf("scenario %q is loaded from the file %s: change the file instead", e.Name, e.File)
}

// InstalledClashError is a scenario file defining a scenario installed over the admin
// API: the file is not loaded until the installed one is removed.
type InstalledClashError struct{ Name, File string }

func (e *InstalledClashError) Error() string {
	return fmt.Sprintf("scenario %q is installed over the admin API: remove it before loading a file that defines it", e.Name)
}

// Install adds sc to the loaded set, or replaces the scenario of the same name that
// was installed before (reported by replaced). Installed scenarios live in memory:
// a reload of the scenario files keeps them, a restart forgets them. A scenario of
// the same name loaded from a file is a FileScenarioError.
func (e *Engine) Install(sc Scenario) (replaced bool, err error) {
	if err := sc.Check(); err != nil {
		return false, err
	}
	sc.File = ""
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.state.Load()
	if old, ok := cur.byName[sc.Name]; ok && !slices.Contains(cur.installed, sc.Name) {
		return false, &FileScenarioError{Name: sc.Name, File: old.File}
	}
	next := *cur
	next.byName = maps.Clone(cur.byName)
	next.byName[sc.Name] = &sc
	if slices.Contains(cur.installed, sc.Name) {
		replaced = true
	} else {
		next.order = append(slices.Clone(cur.order), sc.Name)
		next.installed = append(slices.Clone(cur.installed), sc.Name)
	}
	e.state.Store(&next)
	return replaced, nil
}

// Remove removes an installed scenario, and deactivates it when it was globally
// active. An unknown name is an UnknownError; a scenario loaded from a file is a
// FileScenarioError.
func (e *Engine) Remove(name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := e.state.Load()
	sc, ok := cur.byName[name]
	switch {
	case !ok:
		return &UnknownError{Name: name}
	case !slices.Contains(cur.installed, name):
		return &FileScenarioError{Name: name, File: sc.File}
	}
	next := *cur
	next.byName = maps.Clone(cur.byName)
	delete(next.byName, name)
	without := func(names []string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == name })
	}
	next.order, next.installed, next.global = without(cur.order), without(cur.installed), without(cur.global)
	e.state.Store(&next)
	return nil
}
