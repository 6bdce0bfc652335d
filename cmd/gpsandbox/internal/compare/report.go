package compare

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Report is the result of a run: every step of the chosen flows, both sides'
// outcomes and where they differ.
type Report struct {
	Against     string       `json:"against"` // base URLs
	Local       string       `json:"local"`
	Steps       []StepReport `json:"steps"`
	Differences int          `json:"differences"` // steps that differ

	secrets []string // tokens, app keys and card data: never written
}

// StepReport is one step on both sides.
type StepReport struct {
	Flow        string   `json:"flow"`
	Step        string   `json:"step"`
	Request     string   `json:"request"` // method and path template
	Against     Outcome  `json:"against_outcome"`
	Local       Outcome  `json:"local_outcome"`
	Differences []string `json:"differences,omitempty"`
}

// Names are the flows' names in their order.
func Names() []string {
	var out []string
	for _, f := range Flows() {
		out = append(out, f.Name)
	}
	return out
}

// Run runs the flows named (all when none) against both sides, each side's flows in
// order and the two sides at the same time. The token flow runs first on each side
// whether chosen or not, since every other flow needs its token; it is reported when
// chosen, or when a side gave no token. An unknown name is an error.
func Run(ctx context.Context, against, local Side, names []string) (*Report, error) {
	chosen, err := choose(names)
	if err != nil {
		return nil, err
	}
	run := newRun()
	secrets := [2][]string{{against.AppKey}, {local.AppKey}}
	var results [2][][]Outcome
	var wg sync.WaitGroup
	for i, side := range []Side{against, local} {
		wg.Go(func() {
			r := &runner{side: side, run: run, secrets: &secrets[i]}
			vars := r.vars(time.Now())
			for _, f := range chosen {
				steps := r.flow(ctx, f, vars)
				if f.Name == TokenFlow && gaveToken(steps) {
					vars["token"] = steps[0].saved["token"]
				}
				results[i] = append(results[i], steps)
			}
		})
	}
	wg.Wait()
	rep := &Report{Against: against.BaseURL, Local: local.BaseURL}
	rep.secrets = append(append(append(rep.secrets, secrets[0]...), secrets[1]...), Secrets()...)
	for fi, f := range chosen {
		if f.Name == TokenFlow && !slices.Contains(names, TokenFlow) && len(names) > 0 &&
			gaveToken(results[0][fi]) && gaveToken(results[1][fi]) {
			continue
		}
		for si, s := range f.Steps {
			a, b := results[0][fi][si], results[1][fi][si]
			d := differences(a, b)
			if len(d) > 0 {
				rep.Differences++
			}
			rep.Steps = append(rep.Steps, StepReport{
				Flow: f.Name, Step: s.Name, Request: s.Method + " " + s.Path,
				Against: a, Local: b, Differences: d,
			})
		}
	}
	return rep, nil
}

// gaveToken reports whether the token flow's steps got a token: when they did not,
// every later step answers 401, and the report shows why.
func gaveToken(steps []Outcome) bool { return len(steps) > 0 && steps[0].saved["token"] != "" }

// choose is the flows to run: the token flow, then the named ones in the fixed order.
func choose(names []string) ([]Flow, error) {
	all := Flows()
	for _, n := range names {
		if !slices.Contains(Names(), n) {
			return nil, fmt.Errorf("unknown flow %q (flows: %s)", n, strings.Join(Names(), ", "))
		}
	}
	var out []Flow
	for _, f := range all {
		if len(names) == 0 || f.Name == TokenFlow || slices.Contains(names, f.Name) {
			out = append(out, f)
		}
	}
	return out, nil
}

// textMembers is how many member differences of a step the text report lists; the
// JSON report lists them all. A step whose status differs differs in most members.
const textMembers = 8

// WriteText writes the report for people: one line per step, the differences under
// it, and a summary.
func (r *Report) WriteText(w io.Writer) error {
	var lines strings.Builder
	tw := tabwriter.NewWriter(&lines, 0, 4, 2, ' ', 0)
	for _, s := range r.Steps {
		mark := "same"
		if len(s.Differences) > 0 {
			mark = "DIFF"
		}
		fmt.Fprintf(tw, "%s\t%s/%s\t%s\tagainst %s\tlocal %s\n", mark, s.Flow, s.Step, s.Request, brief(s.Against), brief(s.Local))
	}
	tw.Flush()
	var b strings.Builder
	fmt.Fprintf(&b, "against %s\nlocal   %s\n\n", r.Against, r.Local)
	for i, line := range strings.SplitAfter(strings.TrimSuffix(lines.String(), "\n"), "\n") {
		b.WriteString(strings.TrimRight(line, " \n") + "\n")
		shown, hidden := 0, 0
		for _, d := range r.Steps[i].Differences {
			if strings.HasPrefix(d, "member ") {
				if shown++; shown > textMembers {
					hidden++
					continue
				}
			}
			b.WriteString("      " + d + "\n")
		}
		if hidden > 0 {
			fmt.Fprintf(&b, "      and %d more members (--json lists them)\n", hidden)
		}
	}
	fmt.Fprintf(&b, "\n%d of %d steps differ\n", r.Differences, len(r.Steps))
	_, err := io.WriteString(w, r.redact(b.String()))
	return err
}

// brief is an outcome in a few words: the status and the error's detailed code.
func brief(o Outcome) string {
	switch {
	case o.Status == 0:
		return "-"
	case o.Error != nil:
		return fmt.Sprintf("%d %s", o.Status, o.Error.Detail)
	case o.Values["status"] != "":
		return fmt.Sprintf("%d %s", o.Status, o.Values["status"])
	}
	return fmt.Sprint(o.Status)
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, r.redact(string(raw))+"\n")
	return err
}

// redact is the last guard before output: the report holds member names, types,
// outcome values and error tuples, none of which should carry a secret, but an error
// description could echo what was sent. Every token, app key and card datum sent is
// replaced, and any card number left is masked.
func (r *Report) redact(text string) string {
	for _, s := range r.secrets {
		if len(s) >= 4 {
			text = strings.ReplaceAll(text, s, carddata.Redacted)
		}
	}
	return carddata.Mask(text)
}
