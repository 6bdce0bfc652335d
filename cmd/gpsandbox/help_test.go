package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// mustRunCLI runs the program with args and returns its output and exit status.
func mustRunCLI(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, &out, &errOut)
	if err != nil {
		status = exitCode(err)
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), status
}

func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"-help"}} {
		out, errOut, status := mustRunCLI(t, args...)
		if status != 0 {
			t.Errorf("%v: exit %d: %s", args, status, errOut)
		}
		for _, name := range []string{"serve", "validate", "healthcheck", "version", "help"} {
			if !strings.Contains(out, "\n  "+name+" ") {
				t.Errorf("%v does not list %s:\n%s", args, name, out)
			}
		}
		for _, c := range commands() {
			if !strings.Contains(out, c.summary) {
				t.Errorf("%v: no line for %s:\n%s", args, c.name, out)
			}
		}
	}
}

func TestHelpOfOneCommand(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string // in the output, exit 0
	}{
		{"serve", []string{"usage: gpsandbox serve [flags]", "-addr", "GPSANDBOX_ADDR", "-scenario", "replacing the built-in scenarios"}},
		{"validate", []string{"usage: gpsandbox validate [flags]", "-scenarios", "-fixtures", "instead of the built-ins"}},
		{"healthcheck", []string{"usage: gpsandbox healthcheck [flags]", "-addr", "-tls"}},
		{"version", []string{"usage: gpsandbox version", "print the version"}},
		{"help", []string{"commands:", "serve"}},
	} {
		out, errOut, status := mustRunCLI(t, "help", tc.command)
		if status != 0 {
			t.Errorf("help %s: exit %d: %s", tc.command, status, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("help %s lacks %q:\n%s", tc.command, w, out)
			}
		}
	}
}

// "gpsandbox X --help" is "gpsandbox help X" for every command, those without flags
// included.
func TestEveryCommandTakesHelp(t *testing.T) {
	for _, c := range commands() {
		want, _, _ := mustRunCLI(t, "help", c.name)
		for _, flag := range []string{"-h", "-help", "--help"} {
			out, errOut, status := mustRunCLI(t, c.name, flag)
			if status != 0 || out != want || !strings.Contains(out, "usage: gpsandbox") {
				t.Errorf("%s %s: exit %d (%s), output:\n%s\nwant:\n%s", c.name, flag, status, errOut, out, want)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		out, errOut, status := mustRunCLI(t, args...)
		if status != 0 || out != "gpsandbox "+version+"\n" {
			t.Errorf("%v: exit %d, %q %s", args, status, out, errOut)
		}
	}
}

func TestHelpMistakesAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"help", "nope"}, {"help", "serve", "extra"}, {"version", "extra"}, {"nope"}} {
		if _, errOut, status := mustRunCLI(t, args...); status != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, status, errOut)
		}
	}
}
