package grading

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/exercises"
)

// ValidateExercise grades the exercise's own scenarios, on its grading
// and hidden seeds, each with the right answers to the questions
// (AnswersFor): the starter must fail a check (when there are checks), and
// solution.yaml, when there is one, full marks; wrong*.yaml are graded
// and their scores reported. It returns one line per scenario ("starter
// starter.yaml: 4/10"), with what is wrong, and whether all is as it
// should be. The error is ctx's or the exercise's (its starter does not
// run).
func ValidateExercise(ctx context.Context, e *exercises.Exercise) (lines []string, ok bool, err error) {
	g, err := New(e, Options{Hidden: true})
	if err != nil {
		return nil, false, err
	}
	if err := g.Prepare(ctx); err != nil {
		return nil, false, err
	}
	ok = true
	for _, f := range append([]string{e.Starter}, e.InstructorFiles()...) {
		data, err := e.ReadFile(f)
		if err != nil {
			return nil, false, err
		}
		ans, err := g.AnswersFor(ctx, f, data)
		line := ""
		var r *Result
		if err == nil {
			r, err = g.GradeYAML(ctx, f, f, data, ans)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			ok = false
			lines = append(lines, fmt.Sprintf("%s: cannot be graded: %v", f, err))
			continue
		}
		line = fmt.Sprintf("%s: %s/%s", f, points(r.Score), points(r.Max))
		switch {
		case f == e.Starter && len(r.Checks) > 0 && checksFull(r):
			ok = false
			line += ": the starter passes every check; there is nothing to do"
		case f == exercises.SolutionFile && !r.Full():
			ok = false
			line += ": the reference solution must score full marks; " + shortfall(r)
		case f != e.Starter && f != exercises.SolutionFile && r.Full():
			line += " (a wrong answer with full marks: is it wrong?)"
		}
		lines = append(lines, line)
	}
	return lines, ok, nil
}

// checksFull reports whether every check passed.
func checksFull(r *Result) bool {
	for _, it := range r.Checks {
		if !it.Passed {
			return false
		}
	}
	return true
}

// shortfall lists what a result lost points on; items that failed for the
// same reason (a run that could not be made fails every check alike) share
// one entry: "a, b, c: reason".
func shortfall(r *Result) string {
	var s []string
	s = append(s, r.Problems...)
	var reasons []string
	ids := map[string][]string{}
	for _, it := range append(append([]Item(nil), r.Checks...), r.Questions...) {
		if !it.Passed {
			why := oneLine(it.Feedback)
			if _, seen := ids[why]; !seen {
				reasons = append(reasons, why)
			}
			ids[why] = append(ids[why], it.ID)
		}
	}
	for _, why := range reasons {
		if rest, ok := strings.CutPrefix(why, "not graded: "); ok && slices.Contains(r.Problems, rest) {
			// the problem is listed already
			s = append(s, "so "+strings.Join(ids[why], ", ")+" not graded")
			continue
		}
		s = append(s, strings.Join(ids[why], ", ")+": "+why)
	}
	return strings.Join(s, "; ")
}
