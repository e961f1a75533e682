package grading

import (
	"context"
	"slices"
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
		"checkpoint-interval":  {"starter.yaml: 10/14", "solution.yaml: 14/14", "wrong-20s.yaml: 10/14", "wrong.yaml: 10/14"},
		"cluster-trace":        {"starter.yaml: 7/14", "solution.yaml: 14/14", "wrong-over-budget.yaml: 4/14", "wrong.yaml: 7/14"},
		"exactly-once":         {"starter.yaml: 10/14", "solution.yaml: 14/14", "wrong-no-checkpoints.yaml: 11/14", "wrong-socket.yaml: 8/14", "wrong.yaml: 11/14"},
		"graph-spanner":        {"starter.yaml: 8/14", "solution.yaml: 14/14", "wrong.yaml: 8/14"},
		"kafka-retention":      {"starter.yaml: 8/14", "solution.yaml: 14/14", "wrong-short.yaml: 8/14", "wrong.yaml: 10/14"},
		"hot-key":              {"starter.yaml: 6/16", "solution.yaml: 16/16", "wrong-max-parallelism.yaml: 6/16", "wrong.yaml: 6/16"},
		"shedding-threshold":   {"starter.yaml: 9/14", "solution.yaml: 14/14", "wrong-batch.yaml: 9/14", "wrong.yaml: 9/14"},
		"spark-batch-interval": {"starter.yaml: 4/14", "solution.yaml: 14/14", "wrong-too-long.yaml: 11/14", "wrong.yaml: 7/14"},
		"spark-output-mode":    {"starter.yaml: 9/12", "solution.yaml: 12/12", "wrong-update.yaml: 9/12", "wrong.yaml: 9/12"},
		"spark-pid":            {"starter.yaml: 2/12", "solution.yaml: 12/12", "wrong-off.yaml: 2/12", "wrong.yaml: 2/12"},
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
