package grading

import (
	"testing"

	"github.com/dspalab/dspalab/exercises"
)

// A numeric answer's feedback names what it was compared with (a closed
// form is no "simulated value"), and a percentage is refused with the
// fraction to give instead: answers are plain numbers in every exercise.
func TestNumericAnswerFeedback(t *testing.T) {
	q := exercises.Question{ID: "expected", Truth: exercises.Truth{Metric: "delivery.sinks[out].dedup.expected_false_positive_rate"},
		Tolerance: exercises.Tolerance{Value: 0.05, Relative: true}, Points: 2}
	var g Grader
	for _, c := range []struct {
		ans, want string
		passed    bool
	}{
		{"0.69", "correct (within 5%)", true},
		{"0.5", "not within 5% of delivery.sinks[out].dedup.expected_false_positive_rate in the starter's run", false},
		{"34.7%", `expected a number, got "34.7%": answers are plain numbers, so give a percentage as a fraction (0.347)`, false},
		{"lots", `expected a number, got "lots"`, false},
	} {
		var it Item
		g.grade1(q, c.ans, 0.7035, &it)
		if it.Feedback != c.want || it.Passed != c.passed {
			t.Errorf("answer %q: %q (passed %v), want %q (%v)", c.ans, it.Feedback, it.Passed, c.want, c.passed)
		}
	}
	// a tolerance of 0 (a count) says exactly, not "within 0"
	exact := exercises.Question{ID: "failed-starter", Truth: exercises.Truth{Metric: "checkpoints.failed"}, Points: 2}
	var ok Item
	g.grade1(exact, "5", 5.0, &ok)
	if !ok.Passed || ok.Feedback != "correct (exactly)" {
		t.Errorf("exact answer: %q (passed %v), want correct (exactly)", ok.Feedback, ok.Passed)
	}
	q.Truth.Run = exercises.RunSubmission
	var it Item
	g.grade1(q, "0.5", 0.7035, &it)
	if want := "not within 5% of delivery.sinks[out].dedup.expected_false_positive_rate in your scenario's run"; it.Feedback != want {
		t.Errorf("feedback %q, want %q", it.Feedback, want)
	}
}
