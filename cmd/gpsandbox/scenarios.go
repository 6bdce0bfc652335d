package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
	"github.com/gp-sandbox/gp-sandbox/scenarios"
)

// reloadInterval is how often --scenarios DIR is checked for changes.
const reloadInterval = 500 * time.Millisecond

// scenarioFS is the scenario directory when one is given, else the built-ins.
func scenarioFS(dir string) fs.FS {
	if dir == "" {
		return scenarios.FS
	}
	return os.DirFS(dir)
}

// located prefixes the file of every problem in err with the directory it was read
// from (the repository path of the embedded sets), so that file:line:col leads to it.
func located(err error, dir, embedded string) error {
	var ps yamlfile.Problems
	if !errors.As(err, &ps) {
		return err
	}
	out := make(yamlfile.Problems, len(ps))
	for i, p := range ps {
		p.File = filePath(dir, embedded, p.File)
		out[i] = p
	}
	return out
}

func filePath(dir, embedded, name string) string {
	if dir == "" {
		return path.Join(embedded, name)
	}
	return filepath.Join(dir, name)
}

// loadScenarios reads the scenario set and checks the fixtures' bindings against it.
func loadScenarios(cfg config, bindings []yamlfile.ScenarioBinding) ([]scenario.Scenario, error) {
	scs, err := yamlfile.LoadScenarios(scenarioFS(cfg.scenariosDir))
	if err != nil {
		return nil, fmt.Errorf("scenarios:\n%w", located(err, cfg.scenariosDir, "scenarios"))
	}
	if ps := bindingProblems(cfg, scs, bindings); len(ps) > 0 {
		return nil, fmt.Errorf("fixtures bind unknown scenarios:\n%w", ps)
	}
	return scs, nil
}

// bindingProblems reports fixture records bound to scenarios that scs lacks.
func bindingProblems(cfg config, scs []scenario.Scenario, bindings []yamlfile.ScenarioBinding) yamlfile.Problems {
	known := map[string]bool{}
	for _, sc := range scs {
		known[sc.Name] = true
	}
	ps := yamlfile.CheckScenarioBindings(bindings, func(n string) bool { return known[n] })
	if len(ps) == 0 {
		return nil
	}
	return located(ps, cfg.fixtures, "fixtures").(yamlfile.Problems)
}

// validate is "gpsandbox validate [--scenarios DIR] [--fixtures DIR]": it prints every
// problem of the scenario and fixture files as file:line:col: message and fails, or
// prints a one-line summary.
func validate(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg config
	fset := flag.NewFlagSet("gpsandbox validate", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.StringVar(&cfg.scenariosDir, "scenarios", getenv("GPSANDBOX_SCENARIOS_DIR"), "scenario directory (default: the built-ins)")
	fset.StringVar(&cfg.fixtures, "fixtures", getenv("GPSANDBOX_FIXTURES"), "fixtures directory (default: the embedded defaults)")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError(err.Error())
	}
	if fset.NArg() > 0 {
		return usageError(fmt.Sprintf("unexpected argument %q", fset.Arg(0)))
	}
	var problems []string
	add := func(err error) {
		var ps yamlfile.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				problems = append(problems, p.String())
			}
		} else if err != nil {
			problems = append(problems, err.Error())
		}
	}
	scs, scErr := yamlfile.LoadScenarios(scenarioFS(cfg.scenariosDir))
	add(located(scErr, cfg.scenariosDir, "scenarios"))
	fx, bindings, fxErr := yamlfile.LoadFixturesWithBindings(fixtureFS(cfg.fixtures))
	add(located(fxErr, cfg.fixtures, "fixtures"))
	if scErr == nil && fxErr == nil {
		for _, p := range bindingProblems(cfg, scs, bindings) {
			problems = append(problems, p.String())
		}
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("validate: %d problem(s)", len(problems))
	}
	fmt.Fprintf(stdout, "ok: %d scenarios; fixtures: %d apps, %d merchants, %d transactions\n",
		len(scs), len(fx.Apps), len(fx.Merchants), len(fx.Transactions))
	return nil
}

// watchScenarios reloads the scenario directory when a file in it changes (its name,
// size or modification time), until ctx ends. A set with problems is not loaded: the
// last good set stays active, and the problems are logged and listed by the engine.
func watchScenarios(ctx context.Context, dir string, engine *scenario.Engine, logger *slog.Logger, every time.Duration) {
	last := dirSnapshot(dir)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cur := dirSnapshot(dir)
		if cur == last {
			continue
		}
		last = cur
		scs, err := yamlfile.LoadScenarios(os.DirFS(dir))
		if err == nil {
			err = engine.Replace(scs)
		}
		if err != nil {
			logger.Error("scenarios not reloaded: the last good set stays active", "dir", dir, "problems", located(err, dir, "").Error())
			engine.SetLoadErrors(problemsByFile(err))
			continue
		}
		logger.Info("scenarios reloaded", "dir", dir, "count", len(scs))
	}
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
