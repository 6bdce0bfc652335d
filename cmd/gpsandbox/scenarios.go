package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

// validate is "gpsandbox validate [--scenarios DIR] [--fixtures DIR]": it prints every
// problem of the scenario and fixture files as file:line:col: message and fails, or
// prints a one-line summary.
func validate(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg app.Config
	fset := newFlagSet("validate", stderr)
	fset.StringVar(&cfg.Scenarios.Dir, "scenarios", getenv("GPSANDBOX_SCENARIOS_DIR"), "scenario directory (default: the built-ins)")
	fset.StringVar(&cfg.Fixtures.Dir, "fixtures", getenv("GPSANDBOX_FIXTURES"), "fixtures directory (default: the embedded defaults)")
	if err := parseFlags(fset, args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	v := app.Validate(cfg)
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
