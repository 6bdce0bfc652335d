package app

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
	"github.com/gp-sandbox/gp-sandbox/scenarios"
)

// Where the embedded sets live in the repository, to name their files in messages.
const (
	embeddedFixtures  = "fixtures"
	embeddedScenarios = "scenarios"
)

// fsys is the file system to read: f.FS, else the directory, else embedded.
func (f Files) fsys(embedded fs.FS) fs.FS {
	switch {
	case f.FS != nil:
		return f.FS
	case f.Dir != "":
		return os.DirFS(f.Dir)
	}
	return embedded
}

// name is how a file of the set is named in messages: joined to the directory, to
// the repository path of an embedded set, or as it is for a caller's FS.
func (f Files) name(embedded, file string) string {
	switch {
	case f.Dir != "":
		return filepath.Join(f.Dir, file)
	case f.FS != nil:
		return file
	}
	return path.Join(embedded, file)
}

// located names the file of every problem in err as f.name does, so that
// file:line:col leads to it.
func located(err error, f Files, embedded string) error {
	var ps yamlfile.Problems
	switch {
	case f.Dir != "" && errors.Is(err, fs.ErrNotExist):
		// The folder itself, gone since the start: os.DirFS calls it ".".
		return fmt.Errorf("folder %s: no such folder", f.Dir)
	case !errors.As(err, &ps):
		return err
	}
	out := make(yamlfile.Problems, len(ps))
	for i, p := range ps {
		p.File = f.name(embedded, p.File)
		out[i] = p
	}
	return out
}

// seed loads the fixtures into a new database, or over everything with Reset. Over
// a database that has them already it reads no fixture file: a restart keeps what the
// API changed and is ready in milliseconds whatever the size of the fixture set
// (Validate checks the files). A database that holds records but no fixtures was not
// started by the sandbox whole (cut short, say): loading them over its records would
// mix two states without a word, so it is refused. The fixtures are those Open read
// before the store opened, else read now; their scenario bindings are checked against
// the scenario set scs before anything is loaded.
func (a *App) seed(scs []scenario.Scenario) error {
	already, err := a.svc.FixturesLoaded()
	if err != nil {
		return fmt.Errorf("open %s: %w", a.cfg.DB, err)
	}
	if n := a.store.Records(); !already && !a.cfg.Reset && n > 0 {
		return fmt.Errorf("database file %s holds %d records but none saying its fixtures were loaded, which every database the sandbox started holds "+
			"(cut short, or written by something else?): fixtures are loaded only into a new database; move it away or use --reset", a.cfg.DB, n)
	}
	var fx sandbox.Fixtures
	if a.cfg.Reset || !already {
		set := a.fixtures
		if set == nil {
			if set, err = a.readFixtureSet(scs); err != nil {
				return err
			}
		}
		fx, a.fixtures = *set, nil
		// Decoding and storing a large set leaves a great deal of garbage behind (YAML
		// node trees, encoded records): give that memory back once it is done.
		defer debug.FreeOSMemory()
	}
	// Over loaded fixtures this writes nothing; it only learns what the store holds.
	loaded, err := a.svc.LoadFixtures(fx, a.cfg.Reset)
	if err != nil {
		return fmt.Errorf("load fixtures: %w", err)
	}
	a.log.Info("store ready", "db", a.cfg.DB, "fixtures_loaded", loaded, "reset", a.cfg.Reset)
	if already && !a.cfg.Reset && a.cfg.Fixtures.Dir != "" {
		// Someone who edits their fixtures and starts again would otherwise see no change
		// and no word why.
		a.log.Warn("fixtures not read: the database holds the fixtures it was started with; --reset loads them again",
			"fixtures", a.cfg.Fixtures.Dir, "db", a.cfg.DB)
	}
	return nil
}

// readFixtureSet reads the fixtures and checks the scenarios they bind are in scs.
func (a *App) readFixtureSet(scs []scenario.Scenario) (*sandbox.Fixtures, error) {
	fx, bindings, err := a.readFixtures()
	if err != nil {
		return nil, err
	}
	if ps := bindingProblems(a.cfg.Fixtures, scs, bindings); len(ps) > 0 {
		return nil, fmt.Errorf("fixtures bind unknown scenarios:\n%w", ps)
	}
	return &fx, nil
}

// newDatabase reports whether path names no database yet: one in memory, no file,
// or an empty one (mktemp's).
func newDatabase(path string) bool {
	if path == ":memory:" {
		return true
	}
	st, err := os.Stat(path)
	return errors.Is(err, os.ErrNotExist) || err == nil && st.Mode().IsRegular() && st.Size() == 0
}

// readFixtures reads the fixture files.
func (a *App) readFixtures() (sandbox.Fixtures, []yamlfile.ScenarioBinding, error) {
	f := a.cfg.Fixtures
	fx, bindings, err := yamlfile.LoadFixturesWithBindings(f.fsys(fixtures.FS), a.now())
	if err != nil {
		return fx, nil, fmt.Errorf("fixtures:\n%w", located(err, f, embeddedFixtures))
	}
	if problem := noTokenProblem(f, fx); problem != "" {
		return fx, nil, errors.New(problem)
	}
	return fx, bindings, nil
}

// now is the sandbox clock's time, which a fixture's relative time (now-7d) counts
// from: before the clock is made (fixtures are read before the database is opened),
// the time it will start at.
func (a *App) now() time.Time {
	if a.clock != nil {
		return a.clock.Now()
	}
	return a.cfg.startTime()
}

// startTime is the time the sandbox clock starts at: --clock, else the wall clock.
func (cfg Config) startTime() time.Time {
	if !cfg.Clock.IsZero() {
		return cfg.Clock
	}
	return time.Now()
}

// noTokenProblem says why no client could act on the fixtures read from f, naming
// the folder and what it lacks, or "" when one can: an access token is issued to an
// app of the fixtures, and acts for the merchants the app may act for with the
// permissions of its accounts. An empty folder (a wrong path, a wrong Docker mount)
// would otherwise start a sandbox on which every token request fails.
func noTokenProblem(f Files, fx sandbox.Fixtures) string {
	folder := "fixtures folder " + f.Dir
	switch {
	case f.Dir == "" && f.FS != nil:
		folder = "the fixtures given"
	case f.Dir == "":
		folder = "the embedded fixtures"
	}
	if slices.ContainsFunc(fx.Apps, func(a sandbox.App) bool { return len(a.Merchants) > 0 && len(a.Accounts) > 0 }) {
		return ""
	}
	if len(fx.Apps) > 0 {
		return folder + ": no app both acts for a merchant (merchants) and has an account (accounts): a token could do nothing"
	}
	problem := folder + ": no app, so every access token request would be refused (40004)"
	if names, err := yamlfile.YAMLFiles(f.fsys(fixtures.FS)); err == nil && len(names) == 0 {
		problem += "; the folder holds no fixture file (*.yaml, *.yml): is it the one you meant (--fixtures, GPSANDBOX_FIXTURES, a Docker mount)?"
	}
	return problem
}

// readScenarios reads the scenario set and checks that the global scenarios are in
// it. It runs before the database is opened: a start refused for its scenarios
// leaves the file as it was, --reset or not.
func (a *App) readScenarios() ([]scenario.Scenario, error) {
	f := a.cfg.Scenarios
	scs, err := yamlfile.LoadScenarios(f.fsys(scenarios.FS))
	if err != nil {
		return nil, fmt.Errorf("scenarios:\n%w", located(err, f, embeddedScenarios))
	}
	names := make([]string, len(scs))
	for i, sc := range scs {
		names[i] = sc.Name
	}
	if err := scenario.CheckNames(names, a.cfg.GlobalScenarios); err != nil {
		return nil, fmt.Errorf("global scenarios: %w", err)
	}
	return scs, nil
}

// newEngine builds the engine over scs with the global scenarios active.
func (a *App) newEngine(scs []scenario.Scenario) (*scenario.Engine, error) {
	engine, err := scenario.NewEngine(a.store, scs)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	engine.SetStepLifetime(a.cfg.StepLifetime)
	engine.SetMaxStepCounters(a.cfg.MaxStepCounters)
	seed := a.cfg.Seed
	if !a.cfg.Seeded {
		seed = rand.Uint64()
	}
	engine.SetSeed(seed)
	if err := engine.SetGlobal(a.cfg.GlobalScenarios); err != nil {
		return nil, fmt.Errorf("global scenarios: %w", err)
	}
	a.log.Info("scenarios ready", "count", len(scs), "dir", a.cfg.Scenarios.Dir, "global", strings.Join(a.cfg.GlobalScenarios, ","), "seed", seed)
	return engine, nil
}

// bindingProblems reports fixture records bound to scenarios that scs lacks.
func bindingProblems(fixtureFiles Files, scs []scenario.Scenario, bindings []yamlfile.ScenarioBinding) yamlfile.Problems {
	known := map[string]bool{}
	for _, sc := range scs {
		known[sc.Name] = true
	}
	ps := yamlfile.CheckScenarioBindings(bindings, func(n string) bool { return known[n] })
	if len(ps) == 0 {
		return nil
	}
	return located(ps, fixtureFiles, embeddedFixtures).(yamlfile.Problems)
}

// decodeTransaction validates a transaction document of the admin API the way a
// fixture file is validated; keys it omits get their defaults when it is stored.
func decodeTransaction(data []byte, name string) (sandbox.Transaction, error) {
	return yamlfile.DecodeTransactionSeed(data, name)
}

// Validation is what Validate found in a configuration's files.
type Validation struct {
	// Problems are file:line:col: message lines; none means the files are good.
	Problems                      []string
	Scenarios                     int
	Apps, Merchants, Transactions int
}

// Validate reads the fixture and scenario files of cfg as Open would, without opening
// anything, and lists every problem.
func Validate(cfg Config) Validation {
	var v Validation
	add := func(err error) {
		var ps yamlfile.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				v.Problems = append(v.Problems, p.String())
			}
		} else if err != nil {
			v.Problems = append(v.Problems, err.Error())
		}
	}
	scs, scErr := yamlfile.LoadScenarios(cfg.Scenarios.fsys(scenarios.FS))
	add(located(scErr, cfg.Scenarios, embeddedScenarios))
	fx, bindings, fxErr := yamlfile.LoadFixturesWithBindings(cfg.Fixtures.fsys(fixtures.FS), cfg.startTime())
	add(located(fxErr, cfg.Fixtures, embeddedFixtures))
	if problem := noTokenProblem(cfg.Fixtures, fx); fxErr == nil && problem != "" {
		v.Problems = append(v.Problems, problem)
	}
	if scErr == nil && fxErr == nil {
		for _, p := range bindingProblems(cfg.Fixtures, scs, bindings) {
			v.Problems = append(v.Problems, p.String())
		}
	}
	v.Scenarios = len(scs)
	v.Apps, v.Merchants, v.Transactions = len(fx.Apps), len(fx.Merchants), len(fx.Transactions)
	return v
}
