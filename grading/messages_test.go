package grading

import (
	"strings"
	"testing"
)

// TestShortfallSaysEachReasonOnce checks that exercise validate's line for
// a solution short of full marks gives each reason once: items failed for
// the same reason share it, and items not graded because of a problem
// listed already only say so.
func TestShortfallSaysEachReasonOnce(t *testing.T) {
	const problem = "changed a field you may not change: workers.count (solution.yaml:6:18)"
	r := &Result{Problems: []string{problem},
		Checks: []Item{{ID: "a", Feedback: "not graded: " + problem}, {ID: "b", Feedback: "not graded: " + problem},
			{ID: "c", Feedback: "too slow"}, {ID: "d", Feedback: "too slow"}, {ID: "e", Passed: true, Feedback: "fine"}},
		Questions: []Item{{ID: "q", Feedback: "not graded: " + problem}}}
	want := problem + "; so a, b, q not graded; c, d: too slow"
	if got := shortfall(r); got != want {
		t.Errorf("shortfall =\n%q\nwant\n%q", got, want)
	}
}

// TestMarkdownKeepsComparisons checks that the feedback .md files read
// well as text: "<=" stays (no "&lt;="), and only what Markdown would take
// for HTML, code or a table column is escaped.
func TestMarkdownKeepsComparisons(t *testing.T) {
	for in, want := range map[string]string{
		"backpressured_ratio <= 0.2":  "backpressured_ratio <= 0.2",
		"a < b and 3<4":               "a < b and 3<4",
		"<script>alert(1)</script>":   `\<script>alert(1)\</script>`,
		"<!-- x --> <?php <http://x>": `\<!-- x --> \<?php \<http://x>`,
		"a | b `c`":                   "a \\| b \\`c\\`",
		"**bold** [x](javascript:1)":  `\*\*bold\*\* [x]\(javascript:1)`,
		"operators[work].parallelism": "operators[work].parallelism",
		"state_bytes":                 "state_bytes",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInstructorSeesTheRightAnswers checks what the instructor gets with
// ShowTruth (dspalab grade): each question's right answer in the feedback
// JSON and in summary.md next to the class's answers; a student's check
// (no ShowTruth) and feedback .md never give it. A broken answers.yaml is
// a problem of the submission, listed under "Submissions with problems".
func TestInstructorSeesTheRightAnswers(t *testing.T) {
	e := tiny(t)
	g, err := New(e, Options{Hidden: true, ShowTruth: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sol := read(t, e, "solution.yaml")
	rs := []*Result{
		gradeDir(t, g, dir, "alice", map[string]string{"scenario.yaml": sol, "answers.yaml": "which: work\nrate: 10\n"}),
		gradeDir(t, g, dir, "bob", map[string]string{"scenario.yaml": sol, "answers.yaml": "which: src\nrate: 40\n"}),
		gradeDir(t, g, dir, "carol", map[string]string{"scenario.yaml": sol, "answers.yaml": "which: work\nrate: [10\n"}),
	}
	a := rs[0]
	if a.Questions[0].Truth != "work" || a.Questions[1].Truth == "" {
		t.Fatalf("truths %q, %q; want work and the starter's rate", a.Questions[0].Truth, a.Questions[1].Truth)
	}
	rate := a.Questions[1].Truth
	if !strings.Contains(string(a.JSON()), `"truth": "work"`) {
		t.Errorf("the feedback JSON lacks the truth:\n%s", a.JSON())
	}
	if md := string(a.Markdown(e)); strings.Contains(md, "truth") || strings.Contains(md, "right answer") {
		t.Errorf("the student's feedback gives the answer away:\n%s", md)
	}
	sum := string(g.Summary(rs))
	for _, want := range []string{
		"| which | `work` | 1 of 3 | work ×1, src ×1, (no answer) ×1 |",
		"| rate | `" + rate + "` within 5% | ",
		"(no answer) ×1",
		"## Submissions with problems",
		"- **carol** (",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}
	if len(rs[2].Problems) != 1 || !strings.Contains(rs[2].Problems[0], "answers.yaml") {
		t.Errorf("carol's broken answers.yaml is not a problem: %q (notes %q)", rs[2].Problems, rs[2].Notes)
	}

	student, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := gradeDir(t, student, dir, "dave", map[string]string{"scenario.yaml": sol, "answers.yaml": "which: src\n"})
	if r.Questions[0].Truth != "" || strings.Contains(string(r.JSON()), `"truth"`) {
		t.Errorf("a student's check gives the answer away: %s", r.JSON())
	}
}
