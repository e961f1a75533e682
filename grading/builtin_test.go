package grading

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/exercises"
)

// The built-in pack grades as its authors meant: every starter validates
// and scores below the maximum, every reference solution gets full marks,
// and every typical wrong answer scores exactly what is written here
// (questions answered right, so the scores are the checks' and the
// questions' points together).
func TestBuiltinPack(t *testing.T) {
	want := map[string][]string{
		"bloom-sizing":         {"starter.yaml: 9/14", "solution.yaml: 14/14", "wrong-hashes.yaml: 9/14", "wrong.yaml: 11/14"},
		"bottleneck":           {"starter.yaml: 4/14", "solution.yaml: 14/14", "wrong-faster-code.yaml: 4/14", "wrong-over-budget.yaml: 4/14", "wrong.yaml: 6/14"},
		"checkpoint-interval":  {"starter.yaml: 10/14", "solution.yaml: 14/14", "wrong-20s.yaml: 10/14", "wrong-lucky.yaml: 12/14", "wrong.yaml: 10/14"},
		"cluster-trace":        {"starter.yaml: 7/14", "solution.yaml: 14/14", "wrong-over-budget.yaml: 4/14", "wrong.yaml: 7/14"},
		"exactly-once":         {"starter.yaml: 10/14", "solution.yaml: 14/14", "wrong-no-checkpoints.yaml: 11/14", "wrong-socket.yaml: 8/14", "wrong.yaml: 11/14"},
		"graph-spanner":        {"starter.yaml: 8/14", "solution.yaml: 14/14", "wrong.yaml: 8/14"},
		"kafka-retention":      {"starter.yaml: 8/14", "solution.yaml: 14/14", "wrong-short.yaml: 8/14", "wrong.yaml: 10/14"},
		"hot-key":              {"starter.yaml: 6/16", "solution.yaml: 16/16", "wrong-max-parallelism.yaml: 6/16", "wrong.yaml: 6/16"},
		"shedding-threshold":   {"starter.yaml: 9/14", "solution.yaml: 14/14", "wrong-batch.yaml: 9/14", "wrong.yaml: 9/14"},
		"spark-batch-interval": {"starter.yaml: 4/14", "solution.yaml: 14/14", "wrong-no-batch.yaml: 2/14", "wrong-too-long.yaml: 11/14", "wrong.yaml: 7/14"},
		"spark-output-mode":    {"starter.yaml: 9/12", "solution.yaml: 12/12", "wrong-update.yaml: 9/12", "wrong.yaml: 9/12"},
		"spark-pid":            {"starter.yaml: 4/14", "solution.yaml: 14/14", "wrong-frozen.yaml: 12/14", "wrong-off.yaml: 2/14", "wrong.yaml: 4/14"},
		"stalled-watermark":    {"starter.yaml: 2/10", "solution.yaml: 10/10", "wrong.yaml: 2/10"},
		"state-backend":        {"starter.yaml: 7/14", "solution.yaml: 14/14", "wrong-more-workers.yaml: 4/14", "wrong.yaml: 11/14"},
		"unaligned":            {"starter.yaml: 4/14", "solution.yaml: 14/14", "wrong-aligned-timeout.yaml: 12/14", "wrong-stop-the-world.yaml: 4/14", "wrong-timeout.yaml: 2/14", "wrong.yaml: 4/14"},
		"watermark-bound":      {"starter.yaml: 6/10", "solution.yaml: 10/10", "wrong.yaml: 6/10"},
		"window-budget":        {"starter.yaml: 2/12", "solution.yaml: 12/12", "wrong-process.yaml: 6/12", "wrong.yaml: 10/12"},
	}
	p, err := exercises.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.IDs(); len(got) < 6 || len(got) != len(want) {
		t.Fatalf("built-in exercises %v, want the %d listed here (at least 6)", got, len(want))
	}
	for _, e := range p.Exercises() {
		t.Run(e.ID, func(t *testing.T) {
			t.Parallel()
			lines, ok, err := ValidateExercise(context.Background(), e)
			if err != nil || !ok {
				t.Errorf("ok %v, err %v:\n%q", ok, err, lines)
			}
			if !slices.Equal(lines, want[e.ID]) {
				t.Errorf("scores %q\nwant   %q", lines, want[e.ID])
			}
		})
	}
}

// The loophole of spark-batch-interval: a batch interval no batch can
// complete in (10m of a 60 s run) delivered nothing and scored 14/14, its
// zeros passing stable (a mean processing time of 0 is under any
// interval), no-queue and latency, and my-latency: 0 matching a latency
// of 0. No batch measured them: they are null, every check fails and the
// question about the student's own run is not graded.
func TestSparkBatchIntervalNoBatch(t *testing.T) {
	e, g := builtinGrader(t, "spark-batch-interval")
	starter, err := e.StarterYAML()
	if err != nil {
		t.Fatal(err)
	}
	sub := strings.Replace(string(starter), "batch_interval: 1s  ", "batch_interval: 10m ", 1)
	if sub == string(starter) {
		t.Fatal("the starter has no batch_interval: 1s to change")
	}
	r, err := g.GradeYAML(context.Background(), "s", "scenario.yaml", []byte(sub), []byte("starter-processing: 1302\nmy-latency: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Score != 2 || r.Max != 14 || len(r.Problems) != 0 {
		t.Errorf("score %v/%v, problems %q; want 2/14 (starter-processing only), none", r.Score, r.Max, r.Problems)
	}
	why := ": no batch completed in the window: the batch interval 600s is not shorter than the run (60s), and the first batch is generated one batch interval after the start (seed 1)"
	want := map[string]string{
		"stable":   "streaming.stable: absent from this run's summary (null)" + why,
		"no-queue": "streaming.scheduling_delay: absent from this run's summary (null)" + why,
		"latency":  "latency.mean_ms: absent from this run's summary (null)" + why,
	}
	for _, c := range r.Checks {
		if c.Passed || c.Points != 0 || c.Feedback != want[c.ID] {
			t.Errorf("check %s: passed %v, %v points, feedback %q; want failed, 0, %q", c.ID, c.Passed, c.Points, c.Feedback, want[c.ID])
		}
	}
	for _, q := range r.Questions {
		switch q.ID {
		case "starter-processing":
			if !q.Passed || q.Points != 2 {
				t.Errorf("starter-processing: passed %v, %v points; want 2", q.Passed, q.Points)
			}
		case "my-latency":
			if q.Passed || q.Points != 0 || q.Feedback != "not graded: your scenario's run does not measure it (latency.mean_ms: absent from this run's summary (null))" {
				t.Errorf("my-latency: passed %v, %v points, feedback %q", q.Passed, q.Points, q.Feedback)
			}
		}
	}
}

// Vertices are matched by name, not by index: bottleneck's solution with
// its operators listed in another order (score, parse, enrich) is the same
// job and scores as the solution does; a forbidden edit in the moved list
// is named where the submission has it.
func TestReorderedVerticesAreTheSameJob(t *testing.T) {
	e, g := builtinGrader(t, "bottleneck")
	b, err := e.ReadFile("solution.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sol := string(b)
	i, j, k := strings.Index(sol, "  - name: parse\n"), strings.Index(sol, "  - name: score\n"), strings.Index(sol, "sinks:\n")
	if i < 0 || j < i || k < j {
		t.Fatal("the solution's operators are not parse, enrich, score")
	}
	moved := sol[:i] + sol[j:k] + sol[i:j] + sol[k:]
	answers := []byte("bottleneck: enrich\nthroughput: 167\n")
	want, err := g.GradeYAML(context.Background(), "s", "scenario.yaml", b, answers)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.GradeYAML(context.Background(), "s", "scenario.yaml", []byte(moved), answers)
	if err != nil {
		t.Fatal(err)
	}
	if got.Score != want.Score || got.Max != want.Max || got.Score != 14 || len(got.Problems) != 0 {
		t.Errorf("reordered: %v/%v, problems %q; the solution scores %v/%v", got.Score, got.Max, got.Problems, want.Score, want.Max)
	}

	// score is operators[0] in the submission, [2] in the starter: named; the
	// checks get 0, the questions (4 points) are still graded
	bad := strings.Replace(moved, "mean: 3ms", "mean: 1ms", 1)
	r, err := g.GradeYAML(context.Background(), "s", "scenario.yaml", []byte(bad), answers)
	if err != nil {
		t.Fatal(err)
	}
	msg := "changed a field you may not change: operators[score].service_time.mean (scenario.yaml:26:53; 3ms in the starter, 1ms here)"
	if r.Score != 4 || len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], msg) {
		t.Errorf("forbidden edit in the moved list: %v/%v, problems %q; want 4 and %q", r.Score, r.Max, r.Problems, msg)
	}

	// over the budget too (enrich 4: 9 subtasks, the budget 8): both
	// problems are said at once, as validate says every error
	over := strings.Replace(bad, "parallelism: 3\n", "parallelism: 4\n", 1)
	r, err = g.GradeYAML(context.Background(), "s", "scenario.yaml", []byte(over), answers)
	if err != nil {
		t.Fatal(err)
	}
	budget := "the total parallelism is 9, over the budget of 8"
	if over == bad || r.Score != 4 || len(r.Problems) != 2 || !strings.HasPrefix(r.Problems[0], msg) || !strings.HasPrefix(r.Problems[1], budget) {
		t.Errorf("a forbidden edit and over the budget: %v/%v, problems %q; want 4, %q and %q", r.Score, r.Max, r.Problems, msg, budget)
	}
}

// builtinGrader returns the built-in exercise id and its grader.
func builtinGrader(t *testing.T, id string) (*exercises.Exercise, *Grader) {
	t.Helper()
	p, err := exercises.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e, g
}

// A checkpoint metric that is null because no checkpoint completed says
// so: unaligned with stop-the-world checkpoints, whose drain outlasts the
// 10s timeout under back-pressure, fails all 5 (the feedback said only
// "absent from this run's summary (null)"), and none-failed's text fits
// both modes.
func TestCheckpointMetricNullReason(t *testing.T) {
	e, g := builtinGrader(t, "unaligned")
	sub, err := e.ReadFile("wrong-stop-the-world.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.GradeYAML(context.Background(), "s", "scenario.yaml", sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"none-failed": "5 checkpoints failed (timed out after 10s): an aligned checkpoint's barriers wait behind the buffered records, a stop-the-world one waits for them all to drain (seed 1).",
		"quick":       "checkpoints.max_completed_duration_ms: absent from this run's summary (null): no checkpoint completed (5 checkpoints triggered, 5 failed) (seed 1)",
	}
	for _, c := range r.Checks {
		if w, ok := want[c.ID]; ok && (c.Passed || c.Feedback != w) {
			t.Errorf("check %s: passed %v, feedback %q; want failed, %q", c.ID, c.Passed, c.Feedback, w)
		}
	}
}
