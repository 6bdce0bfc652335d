// Command gpsandbox runs the offline GP API sandbox.
//
//	gpsandbox [serve] [flags]   serve the API (the default)
//	gpsandbox validate [flags]  check scenario and fixture files
//	gpsandbox healthcheck       probe a running sandbox: exit 0 when healthy, 1 otherwise
//	gpsandbox version           print the version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
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

// run is the whole program with its environment passed in, so tests can call it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, getenv, stdout, stderr)
	case "validate":
		return validate(args, getenv, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, args, getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "gpsandbox", version)
		return nil
	default:
		return usageError(fmt.Sprintf("unknown command %q (want serve, validate, healthcheck or version)", cmd))
	}
}

// usageError is a mistake in the command line: exit status 2, like package flag.
type usageError string

func (e usageError) Error() string { return string(e) }

func exitCode(err error) int {
	if _, ok := err.(usageError); ok {
		return 2
	}
	return 1
}
