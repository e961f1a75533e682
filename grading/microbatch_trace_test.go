package grading

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dspalab/dspalab/sim/scenario"
)

// A micro-batch scenario of an exercise replays the files of its folder,
// as a Flink one does: runScenario opens its trace (it refused it, "no
// trace opener was given").
func TestMicroBatchTraceRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.csv"), []byte("1.2,a\n1.5,b\n3.5,c\n5.9,d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("s.yaml", []byte(`engine: spark-streaming
duration: 6s
spark: {batch_interval: 1s}
sources:
  - name: s
    arrival: {process: trace, trace: {file: data.csv, columns: [t, k], time_column: t, time_unit: s}}
sinks: [{name: out, input: s}]
`))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := runScenario(context.Background(), sc, runSpec{MaxEvents: 1e6, MaxQueued: 1e6, MaxMemory: 1 << 30, BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	totals, _ := doc.(map[string]any)["totals"].(map[string]any)
	if totals["records_read"] != float64(4) || totals["records_delivered"] != float64(4) {
		t.Errorf("totals %v, want the trace's 4 records read and delivered", totals)
	}
}
