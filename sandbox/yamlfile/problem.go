// Package yamlfile reads the sandbox's YAML files (fixtures and scenarios) strictly:
// unknown keys, wrong scalar types and invalid values are problems reported at the file,
// line and column where they are written, all of them at once rather than the first one.
//
// It is the only package of the project that imports go.yaml.in/yaml/v3 (yaml v3 at its
// maintained home; gopkg.in/yaml.v3 is archived). It parses into yaml.Node trees and
// decodes them with its own strict walker instead of yaml v3's Decoder: KnownFields
// exists only on the Decoder, node.Decode is lenient, and yaml v3 silently turns 12.75
// into 12 or "010" into 8 for integer fields.
package yamlfile

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Problem is one thing wrong in a YAML file, where it is written.
//
// Line and Col are 1-based. Col is 0 when only the line is known, and both are 0 when
// nothing is: the YAML parser reports syntax errors with a line at most.
type Problem struct {
	File      string
	Line, Col int
	Message   string
}

// String renders the problem as "file:line:col: message", leaving out the column or
// the line when it is unknown (as go/token.Position does).
func (p Problem) String() string {
	switch {
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Message)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	default:
		return fmt.Sprintf("%s: %s", p.File, p.Message)
	}
}

// Problems is every problem found while loading; as an error it lists one problem per
// line. Loaders return it only when it is not empty.
type Problems []Problem

// Error implements error.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sorted returns the problems in file and position order, keeping the order of
// problems found at the same place.
func (ps Problems) sorted() Problems {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return ps
}

// err returns the problems as an error, or nil when there are none, so that a caller
// never receives a non-nil error holding an empty list.
func (ps Problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps.reported()
}

// reported is the problems as every loader hands them out: in order, and masked.
// This is yamlfile's one masking step: problems go to the log, the terminal and admin
// answers, and a card number can reach one in a file's name, a key in a path, an
// anchor, a name quoted whole or the parser's own words. A value quoted through
// carddata.Excerpt is masked already, before its cut (see there).
func (ps Problems) reported() Problems {
	for i := range ps {
		ps[i].File, ps[i].Message = carddata.Mask(ps[i].File), carddata.Mask(ps[i].Message)
	}
	return ps.sorted()
}
