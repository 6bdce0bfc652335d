package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
)

// repair copies what is readable of a damaged (or older) database file to a new file,
// and says what it kept and dropped. The damaged file is only read: the user moves
// the new file into place once they have read the report.
func repair(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fset := newFlagSet("repair", stderr)
	db := fset.String("db", getenv("GPSANDBOX_DB"), "the database file to repair, only read (GPSANDBOX_DB)")
	out := fset.String("out", "", "the new file to write (default: the --db file with .repaired appended; must not exist)")
	if err := parseFlags(fset, args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if *db == "" || *db == ":memory:" {
		return usageError("repair needs --db FILE")
	}
	if *out == "" {
		*out = *db + ".repaired"
	}
	rep, err := store.Salvage(*db, *out)
	if err != nil {
		return fmt.Errorf("repair %s: %w", *db, err)
	}
	fmt.Fprintf(stdout, "repaired %s into %s (%s is unchanged)\n", *db, *out, *db)
	if _, err := rep.WriteTo(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "to use it: mv %s %s\n", *out, *db)
	return nil
}
