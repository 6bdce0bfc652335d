package yamlfile

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// yaml v3 reports a syntax error as text only ("yaml: line 3: did not find expected
// key"), with no column, and for errors of its parser (as opposed to its scanner)
// the line it gives is the zero-based line of the construct being parsed, so one
// line early. syntaxProblem puts the line right and finds the column on that line
// from what the message says went wrong.

var syntaxLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// parserProblems are the messages of yaml v3's parser, whose line is zero-based.
var parserProblems = []string{
	"did not find expected <document start>", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive", "found undefined tag handle",
}

var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// syntaxProblem turns a yaml v3 parser error into a Problem at the line and column
// where the problem (or the construct it leaves unfinished) is.
func syntaxProblem(file string, data []byte, err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := syntaxLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if isParserProblem(msg) {
		line++ // zero-based; no "line" at all means the first line
	}
	p := Problem{File: file, Line: line, Message: "invalid YAML: " + msg}
	lines := strings.Split(string(data), "\n") // lines[n-1] is line n
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		p.Line, p.Col = find(data, "*"+m[1])
		return p
	}
	if open, close, ok := flowProblem(msg); ok {
		// The innermost flow collection still open at the end of the reported line,
		// wherever it was opened.
		if l, c := innermostOpen(lines, line, open, close); l > 0 {
			p.Line, p.Col = l, c
			return p
		}
	}
	if msg == "found unexpected end of stream" {
		// A quote left open: reported at the end of the input, or at the line that
		// opens it; the quote is on the last line before that which leaves one open.
		for n := min(line, len(lines)); n >= 1; n-- {
			if col := unclosedQuote(lines[n-1]); col > 0 {
				p.Line, p.Col = n, col
				return p
			}
		}
	}
	if last := lastLine(data); line > last && last > 0 {
		// The parser ran into the end of the input, which it counts as a line of its
		// own: the problem is just past the end of the last line.
		p.Line, p.Col = last, len(lines[last-1])+1
		return p
	}
	if line >= 1 && line <= len(lines) {
		p.Col = columnOf(msg, lines[line-1])
	}
	return p
}

func isParserProblem(msg string) bool {
	for _, m := range parserProblems {
		if msg == m {
			return true
		}
	}
	return false
}

// lastLine returns the number of the last line of data that holds anything.
func lastLine(data []byte) int {
	data = bytes.TrimRight(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return bytes.Count(data, []byte("\n")) + 1
}

// columnOf says, from the message, where on the line the problem is (1-based): the
// second ": " of a line, the character no
// token starts with, the tab; otherwise the line's first
// character, where the node (or the key, or the "-") the parser stopped at starts.
func columnOf(msg, text string) int {
	var col int
	switch msg {
	case "mapping values are not allowed in this context":
		col = outsideQuotes(text, func(s string, i int) bool {
			return s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ') && strings.Contains(s[:i], ": ")
		})
		if col == 0 {
			col = outsideQuotes(text, func(s string, i int) bool { return s[i] == ':' })
		}
	case "found character that cannot start any token":
		col = outsideQuotes(text, func(s string, i int) bool {
			return (s[i] == '@' || s[i] == '`') && (i == 0 || s[i-1] == ' ' || s[i-1] == '[' || s[i-1] == '{' || s[i-1] == ',')
		})
	case "found a tab character that violates indentation":
		col = strings.IndexByte(text, '\t') + 1
	}
	if col > 0 {
		return col
	}
	return len(text) - len(strings.TrimLeft(text, " \t")) + 1
}

// outsideQuotes returns the 1-based column of the first byte of s outside quotes and
// comments for which at holds, or 0.
func outsideQuotes(s string, at func(s string, i int) bool) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' '):
			return 0
		case at(s, i):
			return i + 1
		}
	}
	return 0
}

// flowProblem reports whether msg is about a flow collection left open, and its
// brackets.
func flowProblem(msg string) (open, close byte, ok bool) {
	switch msg {
	case "did not find expected ',' or ']'":
		return '[', ']', true
	case "did not find expected ',' or '}'":
		return '{', '}', true
	}
	return 0, 0, false
}

// innermostOpen returns the 1-based line and column of the innermost open bracket
// still open at the end of line upTo, or 0, 0.
func innermostOpen(lines []string, upTo int, open, close byte) (line, col int) {
	type pos struct{ line, col int }
	var stack []pos
	for n := 1; n <= upTo && n <= len(lines); n++ {
		outsideQuotes(lines[n-1], func(s string, i int) bool {
			switch s[i] {
			case open:
				stack = append(stack, pos{n, i + 1})
			case close:
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
			return false
		})
	}
	if len(stack) == 0 {
		return 0, 0
	}
	return stack[len(stack)-1].line, stack[len(stack)-1].col
}

// unclosedQuote returns the 1-based column of a quote the line opens and does not
// close, or 0.
func unclosedQuote(s string) int {
	var quote byte
	at := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote == 0 && (c == '"' || c == '\''):
			quote, at = c, i+1
		case quote == '"' && c == '\\':
			i++
		case quote == '\'' && c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++ // '' is a quote inside a single-quoted scalar
		case c == quote:
			quote = 0
		}
	}
	if quote == 0 {
		return 0
	}
	return at
}

// find returns the 1-based line and column of the first occurrence of s in data.
func find(data []byte, s string) (line, col int) {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0, 0
	}
	line = bytes.Count(data[:i], []byte("\n")) + 1
	return line, i - bytes.LastIndexByte(data[:i], '\n')
}
