package yamlfile

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// yaml v3 reports a syntax error as text only, "yaml: line N: what went wrong", with a
// line and no column: syntaxProblem keeps that line and the words. Its scanner counts
// lines from 1, its parser from 0 (the line of the construct being parsed, so one line
// early); the parser's messages are listed here to put that line right.
var parserProblems = []string{
	"did not find expected <document start>", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive", "found undefined tag handle",
}

// syntaxProblem turns a yaml v3 parser error into a Problem at the line yaml gives,
// without a column: yaml gives none. An error with no line (an unknown anchor) names
// the file only.
func syntaxProblem(file string, data []byte, err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, text, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, text
			}
		}
	}
	if slices.Contains(parserProblems, msg) {
		line++ // zero-based; no line at all is the first line
	}
	// The end of the input counts as a line of its own: a problem found there is on
	// the last line that holds anything.
	if last := lastLine(data); line > last && last > 0 {
		line = last
	}
	return Problem{File: file, Line: line, Message: "invalid YAML: " + msg}
}

// lastLine returns the number of the last line of data that holds anything.
func lastLine(data []byte) int {
	data = bytes.TrimRight(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return bytes.Count(data, []byte("\n")) + 1
}
