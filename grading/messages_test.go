package grading

import "testing"

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
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}
