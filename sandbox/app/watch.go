package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// ReloadInterval is how often a scenario directory is checked for changes.
const ReloadInterval = 500 * time.Millisecond

// startWatchingScenarios reloads the scenario directory on change until ctx ends,
// when the scenarios come from a directory.
func (a *App) startWatchingScenarios(ctx context.Context) {
	if f := a.cfg.Scenarios; f.Dir != "" && f.FS == nil {
		a.workers.Go(func() { a.watchScenarios(ctx, f.Dir, ReloadInterval) })
	}
}

// watchScenarios reloads the scenario directory when a file in it changes (its name,
// size or modification time), or when a scenario is installed or removed over the
// admin API (a file that defines one is loaded once it is removed), until ctx ends. A
// set with problems is not loaded: the last good set stays active, and the problems
// are logged and listed by the engine. A refused set is tried again once the active
// set changes, since one that dropped a globally active scenario may load then (one
// with problems in its files is refused, and logged, again).
func (a *App) watchScenarios(ctx context.Context, dir string, every time.Duration) {
	snapshot := func() string { return dirSnapshot(dir) + "installed:" + strings.Join(a.installedScenarios(), ",") }
	global := func() string { return strings.Join(a.engine.Global(), ",") }
	last, lastGlobal, refused := snapshot(), global(), false
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur, curGlobal := snapshot(), global()
		if cur == last && (!refused || curGlobal == lastGlobal) {
			continue
		}
		last, lastGlobal = cur, curGlobal
		refused = !a.reloadScenarios(dir)
	}
}

// reloadScenarios replaces the engine's set with the files of dir, or keeps the
// current set and records why the files were refused; it reports whether the set
// was loaded.
func (a *App) reloadScenarios(dir string) bool {
	scs, err := yamlfile.LoadScenarios(os.DirFS(dir))
	if err == nil {
		err = a.engine.Replace(scs)
	}
	if err != nil {
		a.log.Error("scenarios not reloaded: the last good set stays active", "dir", dir,
			"problems", located(err, Files{Dir: dir}, "").Error())
		a.engine.SetLoadErrors(problemsByFile(err))
		return false
	}
	a.log.Info("scenarios reloaded", "dir", dir, "count", len(scs))
	return true
}

// installedScenarios names the scenarios installed over the admin API.
func (a *App) installedScenarios() []string {
	var names []string
	for _, e := range a.engine.List() {
		if e.Installed {
			names = append(names, e.Name)
		}
	}
	return names
}

// dirSnapshot describes the scenario files of dir by name, size and modification time.
func dirSnapshot(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || e.IsDir() || (path.Ext(e.Name()) != ".yaml" && path.Ext(e.Name()) != ".yml") {
			continue
		}
		fmt.Fprintf(&b, "%s\x00%d\x00%d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
	}
	return b.String()
}

// problemsByFile groups a failed load's problems by file, for Engine.SetLoadErrors.
func problemsByFile(err error) map[string]string {
	out := map[string]string{}
	var ps yamlfile.Problems
	var clash *scenario.InstalledClashError
	if errors.As(err, &clash) {
		out[clash.File] = err.Error()
		return out
	}
	if !errors.As(err, &ps) {
		out[""] = err.Error()
		return out
	}
	for _, p := range ps {
		if out[p.File] != "" {
			out[p.File] += "\n"
		}
		out[p.File] += p.String()
	}
	return out
}
