package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

// validate is "gpsandbox validate [--scenarios DIR|FILE] [--fixtures DIR] [FILE|DIR]":
// it prints every problem of the scenario and fixture files as file:line:col: message
// and fails, or prints a one-line summary. A path without a flag is --scenarios, and a
// scenario file may be given alone.
func validate(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var scenariosPath, fixturesPath, clock string
	fset := newFlagSet("validate", stderr)
	fset.StringVar(&scenariosPath, "scenarios", getenv("GPSANDBOX_SCENARIOS_DIR"), "scenario folder, or one scenario file, to check instead of the built-ins (GPSANDBOX_SCENARIOS_DIR)")
	fset.StringVar(&fixturesPath, "fixtures", getenv("GPSANDBOX_FIXTURES"), "fixtures folder to check instead of the embedded defaults (GPSANDBOX_FIXTURES)")
	fset.StringVar(&clock, "clock", getenv("GPSANDBOX_CLOCK"), "read the fixtures' relative times (now-7d) from this time, as serve --clock does (GPSANDBOX_CLOCK)")
	if err := parseCommand(fset, args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	switch {
	case fset.NArg() > 1:
		return usageError(fmt.Sprintf("unexpected argument %q", fset.Arg(1)))
	case fset.NArg() == 1 && fset.Arg(0) != "" && scenariosPath != "" && scenariosPath != fset.Arg(0):
		return usageError(fmt.Sprintf("%q and --scenarios %s: give the scenarios once", fset.Arg(0), scenariosPath))
	case fset.NArg() == 1:
		scenariosPath = fset.Arg(0)
	}
	var cfg app.Config
	var err error
	if cfg.Clock, err = parseClock(clock); err != nil {
		return err
	}
	if cfg.Scenarios, err = folderFlag("scenarios", "scenarios", scenariosPath, true); err != nil {
		return err
	}
	if cfg.Fixtures, err = folderFlag("fixtures", "fixtures", fixturesPath, false); err != nil {
		return err
	}
	v := app.Validate(cfg)
	if noYAMLFiles(cfg.Scenarios) {
		// Validating an empty folder is a mistake (a wrong path, files not saved yet):
		// "ok: 0 scenarios" would hide it.
		v.Problems = append([]string{fmt.Sprintf("no scenario files (*.yaml, *.yml) in %s", scenariosPath)}, v.Problems...)
	}
	for _, p := range v.Problems {
		fmt.Fprintln(stdout, p)
	}
	if len(v.Problems) > 0 {
		return fmt.Errorf("validate: %d problem(s)", len(v.Problems))
	}
	fmt.Fprintf(stdout, "ok: %d scenarios; fixtures: %d apps, %d merchants, %d transactions\n",
		v.Scenarios, v.Apps, v.Merchants, v.Transactions)
	return nil
}
