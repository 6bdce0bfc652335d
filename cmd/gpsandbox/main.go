// Command gpsandbox runs the offline GP API sandbox.
//
//	gpsandbox [serve] [flags]   serve the API (the default)
//	gpsandbox validate [flags]  check scenario and fixture files
//	gpsandbox healthcheck       probe a running sandbox: exit 0 when healthy, 1 otherwise
//	gpsandbox compare [flags]   run fixed flows against a GP API and a sandbox, report differences
//	gpsandbox version           print the version
//	gpsandbox help [command]    describe the commands, or one command's flags
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gpsandbox:", err)
		os.Exit(exitCode(err))
	}
}

// env is what a command reads beside its arguments.
type env struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

// command is a subcommand: its name, the arguments it takes, one line on what it does,
// and what runs it.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, args []string, e env) error
}

// commands lists the subcommands in the order help shows them; the first is the
// default.
func commands() []command {
	return []command{
		{"serve", "[flags]", "serve the API (the default command)", func(ctx context.Context, args []string, e env) error {
			return serve(ctx, args, e.getenv, e.stdout, e.stderr)
		}},
		{"validate", "[flags] [scenario file or folder]", "check scenario and fixture files, printing every problem as file:line:col", func(_ context.Context, args []string, e env) error {
			return validate(args, e.getenv, e.stdout, e.stderr)
		}},
		{"healthcheck", "[flags]", "probe a running sandbox: exit 0 when healthy, 1 otherwise", func(ctx context.Context, args []string, e env) error {
			return healthcheck(ctx, args, e.getenv, e.stdout, e.stderr)
		}},
		{"compare", "--against URL [flags]", "run the fixed GP API flows against a GP API and a sandbox and report where they differ", compareCmd},
		{"version", "", "print the version", printVersion},
		{"help", "[command]", "describe the commands, or one command's flags", help},
	}
}

// run is the whole program with its environment passed in, so tests can call it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdout: stdout, stderr: stderr}
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			return help(ctx, args[1:], e)
		case "-version", "--version":
			return printVersion(ctx, args[1:], e)
		}
	}
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	c, ok := lookup(name)
	if !ok {
		return usageError(fmt.Sprintf("unknown command %q (see gpsandbox help)", name))
	}
	// "gpsandbox version --help" is "gpsandbox help version", for every command: those
	// without flags (version, help) would otherwise take -h for an argument.
	if len(args) > 0 && isHelpFlag(args[0]) {
		return help(ctx, []string{c.name}, e)
	}
	return c.run(ctx, args, e)
}

func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func printVersion(_ context.Context, args []string, e env) error {
	if len(args) > 0 {
		return usageError(fmt.Sprintf("version: unexpected argument %q", args[0]))
	}
	fmt.Fprintln(e.stdout, "gpsandbox", version)
	return nil
}

// help is "gpsandbox help": the commands with one line each; "gpsandbox help serve"
// is the flags of serve.
func help(ctx context.Context, args []string, e env) error {
	switch {
	case len(args) > 1:
		return usageError(fmt.Sprintf("help: unexpected argument %q", args[1]))
	case len(args) == 1 && args[0] != "help":
		c, ok := lookup(args[0])
		if !ok {
			return usageError(fmt.Sprintf("help: unknown command %q (see gpsandbox help)", args[0]))
		}
		if c.args == "" {
			fmt.Fprintf(e.stdout, "usage: gpsandbox %s\n\n%s.\n", c.name, c.summary)
			return nil
		}
		// A command's -h prints its usage and flags to its error output.
		return c.run(ctx, []string{"-h"}, env{getenv: e.getenv, stdout: e.stdout, stderr: e.stdout})
	}
	fmt.Fprintf(e.stdout, "gpsandbox %s: an offline sandbox of the Global Payments GP API.\n\nusage: gpsandbox [command] [flags]\n\ncommands:\n", version)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s %s\t%s\n", c.name, c.args, c.summary)
	}
	tw.Flush()
	fmt.Fprintln(e.stdout, "\nRun gpsandbox help <command> for a command's flags; each flag also reads a GPSANDBOX_ environment variable.")
	return nil
}

// newFlagSet is a command's flag set: errors are returned (exit status 2), and -h
// prints the command's usage line, summary and flags (see parseCommand).
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gpsandbox "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		c, _ := lookup(name)
		fmt.Fprintf(fs.Output(), "usage: gpsandbox %s %s\n\n%s.\n\nflags:\n", c.name, c.args, c.summary)
		fs.PrintDefaults()
	}
	return fs
}

// parseCommand parses args with fs. -h prints the command's usage and flags and
// answers flag.ErrHelp, which the commands treat as done; a mistake is one line that
// says where the flags are listed. (Left to itself, flag prints every flag after a
// mistake: its output and usage are silenced while it parses.)
func parseCommand(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	case err != nil:
		return usageError(fmt.Sprintf("%v (%s -h lists its flags)", err, fs.Name()))
	}
	return nil
}

// parseFlags is parseCommand for a command that takes no positional argument.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseCommand(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	return nil
}

// usageError is a mistake in the command line: exit status 2, like package flag.
type usageError string

func (e usageError) Error() string { return string(e) }

func exitCode(err error) int {
	if _, ok := errors.AsType[usageError](err); ok {
		return 2
	}
	return 1
}
