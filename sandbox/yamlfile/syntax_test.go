package yamlfile

import (
	"testing"
	"testing/fstest"
)

// A syntax error is reported at the line yaml v3 gives, put right where its parser
// counts from zero and kept within the file, with yaml's own words, in scenario and
// fixture files alike. yaml gives no column, and no line for an unknown anchor.
func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unclosed flow sequence", "version: 1\nname: [unclosed\n", "x.yaml:2: invalid YAML: did not find expected ',' or ']'"},
		{"innermost open sequence", "version: 1\nname: [a, [b], [c, d\n", "x.yaml:2: invalid YAML: did not find expected ',' or ']'"},
		{"unclosed flow mapping", "version: 1\nwhen: {operation: order\n", "x.yaml:2: invalid YAML: did not find expected ',' or '}'"},
		{"unclosed on the first line", "[1, 2\n", "x.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		{"unclosed, lines later", "a: 1\n\n\nb: [1,\n  2,\n  3\n\n", "x.yaml:4: invalid YAML: did not find expected ',' or ']'"},
		{"bad indentation of a sequence item", "version: 1\nrules:\n  - a: 1\n - b: 2\n", "x.yaml:4: invalid YAML: did not find expected key"},
		{"a key after a sequence", "- a\nb: 1\n", "x.yaml:2: invalid YAML: did not find expected '-' indicator"},
		{"second colon", "a: 1\nb: c: d\n", "x.yaml:2: invalid YAML: mapping values are not allowed in this context"},
		{"indented key under a scalar", "version: 1\nname: x\n  bad: indent\n", "x.yaml:3: invalid YAML: mapping values are not allowed in this context"},
		{"reserved character", "a: 1\nb: @x\n", "x.yaml:2: invalid YAML: found character that cannot start any token"},
		{"tab", "a: 1\n\tb: 2\n", "x.yaml:2: invalid YAML: found a tab character that violates indentation"},
		{"key without colon", "a: 1\nb\nc: 2\n", "x.yaml:2: invalid YAML: could not find expected ':'"},
		{"unclosed double quote", "a: 1\nb: \"unclosed\nc: 2\n", "x.yaml:2: invalid YAML: found unexpected end of stream"},
		{"unclosed single quote", "key: 'it''s\n", "x.yaml:1: invalid YAML: found unexpected end of stream"},
		{"unknown anchor", "a: 1\nb: [x, *nope]\n", "x.yaml: invalid YAML: unknown anchor 'nope' referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadScenarios(fstest.MapFS{"x.yaml": {Data: []byte(tt.in)}})
			if err == nil || err.Error() != tt.want {
				t.Errorf("scenarios: %v\nwant %s", err, tt.want)
			}
			_, err = LoadFixtures(fstest.MapFS{"x.yaml": {Data: []byte(tt.in)}}, testNow)
			if err == nil || err.Error() != tt.want {
				t.Errorf("fixtures: %v\nwant %s", err, tt.want)
			}
		})
	}
}
