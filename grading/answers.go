package grading

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/scenario"
)

// answer is one answer of answers.yaml.
type answer struct {
	value     string
	line, col int
	null      bool   // given without a value
	bad       string // why it is not an answer (a list, a mapping)
}

// parseAnswers reads answers.yaml: a mapping of question ids to one
// answer each. It returns the answers, and notes for the student (unknown
// questions, with the nearest id). Aliases are not expanded, only
// followed to a scalar.
func parseAnswers(label string, data []byte, ids []string) (map[string]answer, []string, error) {
	out := map[string]answer{}
	root, err := strictyaml.Document(data)
	var se *strictyaml.SyntaxError
	switch {
	case errors.Is(err, strictyaml.ErrEmpty):
		return out, nil, nil
	case errors.As(err, &se):
		return nil, nil, &scenario.Error{File: label, Line: se.Line, Col: se.Col, Msg: "invalid YAML: " + se.Msg}
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return out, nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, &scenario.Error{File: label, Line: root.Line, Col: root.Column, Msg: "expected a mapping of question ids to answers (which: enrich)"}
	}
	var notes []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		for j := 0; v.Kind == yaml.AliasNode && j < 100; j++ {
			v = v.Alias
		}
		key := k.Value
		if !slices.Contains(ids, key) {
			msg := fmt.Sprintf("%s:%d:%d: there is no question %q", label, k.Line, k.Column, shorten(key))
			if n := scenario.Nearest(key, ids); n != "" {
				msg += fmt.Sprintf("; did you mean %q?", n)
			} else if len(ids) > 0 {
				msg += "; the questions are " + strings.Join(ids, ", ")
			}
			notes = append(notes, msg)
			continue
		}
		if _, dup := out[key]; dup {
			notes = append(notes, fmt.Sprintf("%s:%d:%d: %s is answered twice; the first answer counts", label, k.Line, k.Column, key))
			continue
		}
		a := answer{line: v.Line, col: v.Column}
		switch {
		case v == nil || v.Kind == yaml.AliasNode:
			a.null = true
		case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
			a.null = true
		case v.Kind != yaml.ScalarNode:
			a.bad = "expected one answer, got a list or a mapping"
		default:
			a.value = strings.TrimSpace(v.Value)
			a.null = a.value == ""
		}
		out[key] = a
	}
	return out, notes, nil
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "..."
	}
	return s
}

// answer grades the questions of r: the answers in f (answers.yaml, nil
// when there is none), against the starter's summary or the submission's
// (subDoc, nil when the submission did not run). An answers.yaml that
// could not be read is a problem: every question gets 0, with the reason.
func (g *Grader) answer(ctx context.Context, r *Result, f files, subDoc any) error {
	if len(g.ex.Questions) == 0 {
		return nil
	}
	var starterDoc any
	if g.needsStarter() {
		var err error
		if starterDoc, err = g.starterTruth(ctx); err != nil {
			return err
		}
	}
	ids := make([]string, len(g.ex.Questions))
	for i, q := range g.ex.Questions {
		ids[i] = q.ID
	}
	data, label := f.answers, f.answersLabel
	var answers map[string]answer
	none := ""
	switch {
	case f.answersErr != nil:
		r.Problems = append(r.Problems, f.answersErr.Error())
		none = "not graded: " + f.answersErr.Error()
	case data == nil:
		none = "not answered: there is no answers.yaml"
	default:
		a, notes, err := parseAnswers(label, data, ids)
		if err != nil {
			// a broken answers.yaml is a problem of the submission, listed
			// as such for the instructor, not a note
			none = "not graded: " + err.Error()
			r.Problems = append(r.Problems, err.Error())
		}
		answers = a
		r.Notes = append(r.Notes, notes...)
	}
	for i, q := range g.ex.Questions {
		it := &r.Questions[i]
		if g.opts.ShowTruth {
			doc := starterDoc
			if q.Truth.Run == exercises.RunSubmission {
				doc = subDoc
			}
			if doc != nil {
				if t, err := exercises.Lookup(doc, q.MetricPath()); err == nil {
					it.Truth = formatValue(t)
				}
			}
		}
		a, ok := answers[q.ID]
		switch {
		case none != "":
			it.Feedback = none
			continue
		case !ok || a.null:
			it.Feedback = "not answered"
			continue
		case a.bad != "":
			it.Feedback = fmt.Sprintf("%s:%d:%d: %s", label, a.line, a.col, a.bad)
			continue
		}
		it.Value = a.value
		doc := starterDoc
		if q.Truth.Run == exercises.RunSubmission {
			if subDoc == nil {
				it.Feedback = "not graded: the question is about your scenario's run, which did not take place"
				continue
			}
			doc = subDoc
		}
		truth, err := exercises.Lookup(doc, q.MetricPath())
		if err != nil && q.Truth.Run == exercises.RunSubmission {
			// a metric null in the student's own run (no batch
			// completed, no record delivered): nothing to compare with
			it.Feedback = "not graded: your scenario's run does not measure it (" + err.Error() + ")"
			continue
		}
		if err != nil {
			it.Feedback = "not graded: the truth could not be measured (" + err.Error() + "); tell your instructor"
			continue
		}
		g.grade1(q, a.value, truth, it)
	}
	return nil
}

// grade1 compares one answer with the truth.
func (g *Grader) grade1(q exercises.Question, ans string, truth any, it *Item) {
	if len(q.Choices) > 0 {
		chosen := ""
		for _, c := range q.Choices {
			if sameAnswer(ans, c) {
				chosen = c
				break
			}
		}
		if chosen == "" {
			it.Feedback = fmt.Sprintf("%q is not one of the choices: %s", shorten(ans), strings.Join(q.Choices, ", "))
			return
		}
		if sameAnswer(chosen, formatValue(truth)) {
			it.Passed, it.Points, it.Feedback = true, q.Points, "correct"
			return
		}
		it.Feedback = "not correct"
		return
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(ans), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		it.Feedback = fmt.Sprintf("expected a number, got %q", shorten(ans))
		if pc, ok := strings.CutSuffix(strings.TrimSpace(ans), "%"); ok {
			if p, err := strconv.ParseFloat(strings.TrimSpace(pc), 64); err == nil {
				it.Feedback += fmt.Sprintf(": answers are plain numbers, so give a percentage as a fraction (%s)", strconv.FormatFloat(p/100, 'g', 12, 64))
			}
		}
		return
	}
	t, ok := truth.(float64)
	if !ok {
		it.Feedback = "not graded: the truth is not a number; tell your instructor"
		return
	}
	if q.Tolerance.Within(x, t) {
		it.Passed, it.Points, it.Feedback = true, q.Points, "correct (within "+q.Tolerance.String()+")"
		if q.Tolerance.Value == 0 {
			it.Feedback = "correct (exactly)" // "within 0" reads as a slip
		}
		return
	}
	// the truth is a metric of a run, measured or (a closed form) computed
	// from it: name it, not "the simulated value"
	run := "the starter's run"
	if q.Truth.Run == exercises.RunSubmission {
		run = "your scenario's run"
	}
	it.Feedback = "not within " + q.Tolerance.String() + " of " + q.Truth.Metric + " in " + run
}

// sameAnswer compares answers ignoring case and surrounding space, and
// numbers by value.
func sameAnswer(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if strings.EqualFold(a, b) {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

// AnswersFor returns an answers.yaml with the right answer to every
// question for the submission scenario scenarioYAML (parsed under label):
// the truths of the starter's run and, for questions about the
// submission's run, of that scenario's run on the first seed (none for
// one that run leaves null: it has no right answer). The pack tests grade
// reference solutions with it.
func (g *Grader) AnswersFor(ctx context.Context, label string, scenarioYAML []byte) ([]byte, error) {
	var b strings.Builder
	var subDoc any
	for _, q := range g.ex.Questions {
		var doc any
		if q.Truth.Run == exercises.RunSubmission {
			if subDoc == nil {
				sc, err := scenario.Parse(label, scenarioYAML)
				if err != nil {
					return nil, err
				}
				sc.Seed = g.seeds[0]
				if subDoc, err = g.simulate(ctx, sc); err != nil {
					return nil, err
				}
			}
			doc = subDoc
		} else {
			var err error
			if doc, err = g.starterTruth(ctx); err != nil {
				return nil, err
			}
		}
		v, err := exercises.Lookup(doc, q.MetricPath())
		if err != nil && q.Truth.Run == exercises.RunSubmission {
			continue // the submission's run does not measure it (null): no right answer
		}
		if err != nil {
			return nil, fmt.Errorf("grading: the truth of question %s: %w", q.ID, err)
		}
		s := formatValue(v)
		if f, ok := v.(float64); ok {
			s = strconv.FormatFloat(f, 'g', -1, 64)
		}
		fmt.Fprintf(&b, "%s: %s\n", q.ID, strconv.Quote(s))
	}
	return []byte(b.String()), nil
}
