package yamlfile

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sample exercises every kind of target the strict decoder supports.
type sample struct {
	Name    string         `yaml:"name,required"`
	Count   int            `yaml:"count"`
	Enabled bool           `yaml:"enabled"`
	Tags    []string       `yaml:"tags"`
	Sub     *sample        `yaml:"sub"`
	Items   map[string]int `yaml:"items"`
	Amount  amount         `yaml:"amount"`
}

// mustDecodeSample decodes src as one document into a sample and returns the problems
// as strings.
func mustDecodeSample(t *testing.T, src string) (sample, []string) {
	t.Helper()
	roots, problems := documents("s.yaml", []byte(src))
	if len(problems) > 0 {
		t.Fatalf("parse %q: %v", src, problems)
	}
	if len(roots) != 1 {
		t.Fatalf("parse %q: %d documents, want 1", src, len(roots))
	}
	d := newDecoder("s.yaml")
	var s sample
	d.decode(roots[0], "", &s)
	return s, problemStrings(d.problems)
}

func problemStrings(ps Problems) []string {
	out := []string{}
	for _, p := range ps.sorted() {
		out = append(out, p.String())
	}
	return out
}

func TestDecodeAcceptsWellTypedValues(t *testing.T) {
	src := `name: top
count: -12
enabled: TRUE
tags: &tags [a, "b"]
sub:
  name: inner
  tags: *tags
items: {x: 1, y: 0}
amount: "000"
`
	got, problems := mustDecodeSample(t, src)
	if len(problems) > 0 {
		t.Fatalf("problems: %q", problems)
	}
	want := sample{
		Name: "top", Count: -12, Enabled: true, Tags: []string{"a", "b"},
		Sub:   &sample{Name: "inner", Tags: []string{"a", "b"}},
		Items: map[string]int{"x": 1, "y": 0}, Amount: "000",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestDecodeProblems(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"float for int", "name: a\ncount: 12.75\n",
			[]string{"s.yaml:2:8: count: expected an integer, got the number 12.75"}},
		{"octal trap", "name: a\ncount: 010\n",
			[]string{"s.yaml:2:8: count: expected a plain decimal integer, got 010 (leading zeros, octal, hex and _ are not accepted)"}},
		{"hex", "name: a\ncount: 0x1F\n",
			[]string{"s.yaml:2:8: count: expected a plain decimal integer, got 0x1F (leading zeros, octal, hex and _ are not accepted)"}},
		{"underscores", "name: a\ncount: 1_000\n",
			[]string{"s.yaml:2:8: count: expected a plain decimal integer, got 1_000 (leading zeros, octal, hex and _ are not accepted)"}},
		{"quoted int", "name: a\ncount: '12'\n",
			[]string{`s.yaml:2:8: count: expected an integer, got the string "12"`}},
		{"int overflow", "name: a\ncount: 9300000000000000000\n",
			[]string{"s.yaml:2:8: count: integer 9300000000000000000 is out of range"}},
		{"number for string", "name: 12\n",
			[]string{"s.yaml:1:7: name: expected a string, got the number 12; write it in quotes"}},
		{"float for string", "name: a\namount: 12.75\n",
			[]string{"s.yaml:2:9: amount: expected a string, got the number 12.75; write it in quotes"}},
		{"null for string", "name:\n",
			[]string{"s.yaml:1:6: name: expected a string, got null"}},
		{"yes is no bool", "name: a\nenabled: yes\n",
			[]string{`s.yaml:2:10: enabled: expected true or false, got the string "yes"`}},
		{"tagged bool", "name: a\nenabled: !!bool yes\n",
			[]string{`s.yaml:2:10: enabled: expected true or false, got "yes"`}},
		{"binary for string", "name: !!binary aGk=\n",
			[]string{"s.yaml:1:7: name: expected a string, got a !!binary value"}},
		{"missing required", "count: 1\n",
			[]string{`s.yaml:1:1: missing required key "name"`}},
		{"empty required", "name: ''\n",
			[]string{"s.yaml:1:7: name: must not be empty"}},
		{"unknown key", "name: a\nnmae: b\n",
			[]string{`s.yaml:2:1: unknown key "nmae"`}},
		{"duplicate key", "name: a\nname: b\n",
			[]string{`s.yaml:2:1: duplicate key "name" (first at line 1)`}},
		{"non-string key", "name: a\n1: b\n",
			[]string{"s.yaml:2:1: expected a string key, got the number 1"}},
		{"merge key", "name: a\nsub:\n  <<: {name: b}\n",
			[]string{"s.yaml:3:3: sub: merge keys (<<) are not supported", `s.yaml:3:3: sub: missing required key "name"`}},
		{"list for mapping", "name: a\nsub: [1]\n",
			[]string{"s.yaml:2:6: sub: expected a mapping, got a list"}},
		{"scalar for list", "name: a\ntags: a\n",
			[]string{`s.yaml:2:7: tags: expected a list, got the string "a"`}},
		{"nested paths", "name: a\nsub:\n  name: b\n  items: {x: 1.5}\n  tags: [a, [b]]\n",
			[]string{"s.yaml:4:14: sub.items.x: expected an integer, got the number 1.5", "s.yaml:5:13: sub.tags[1]: expected a string, got a list"}},
		{"checker", "name: a\namount: '12.75'\n",
			[]string{`s.yaml:2:9: amount: must be 1 to 50 digits in minor units ("1000" is 10.00), got "12.75"`}},
		// Problems inside an alias are reported where the aliased value is written.
		{"alias cycle", "name: a\ntags: &t [*t]\n",
			[]string{"s.yaml:2:7: tags[0]: expected a string, got a list"}},
		{"self-containing mapping", "&m\nname: a\nsub: *m\n",
			[]string{"s.yaml:3:6: sub.sub: alias *m refers to itself"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := mustDecodeSample(t, tc.src)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}
}

func TestDecodeBoundsAliasExpansion(t *testing.T) {
	// "Billion laughs": each level lists the previous one ten times, so ten levels
	// stand for 10^10 nodes once aliases are expanded.
	type tree struct {
		Kids []tree `yaml:"k"`
	}
	var b strings.Builder
	b.WriteString("- &a0 {k: []}\n")
	for i := 1; i < 10; i++ {
		prev := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "- &a%d {k: [%s]}\n", i, strings.TrimSuffix(strings.Repeat(prev+", ", 10), ", "))
	}
	roots, problems := documents("s.yaml", []byte(b.String()))
	if len(problems) > 0 || len(roots) != 1 {
		t.Fatalf("parse: %v", problems)
	}
	d := newDecoder("s.yaml")
	var out []tree
	d.decode(roots[0], "", &out)
	if len(d.problems) != 1 || !strings.Contains(d.problems[0].Message, "aliases expand to more than") {
		t.Fatalf("problems: %v", d.problems)
	}
}

func TestProblemString(t *testing.T) {
	ps := Problems{
		{File: "a.yaml", Line: 3, Col: 7, Message: "bad"},
		{File: "a.yaml", Line: 4, Message: "invalid YAML: x"},
		{File: "b.yaml", Message: "invalid YAML: y"},
	}
	want := "a.yaml:3:7: bad\na.yaml:4: invalid YAML: x\nb.yaml: invalid YAML: y"
	if got := ps.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if err := (Problems{}).err(); err != nil {
		t.Errorf("empty Problems.err() = %v, want nil", err)
	}
}
