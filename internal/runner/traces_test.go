package runner

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

// traceEnv isolates the data-set cache and registry of a test.
func traceEnv(t *testing.T) string {
	t.Helper()
	cache := t.TempDir()
	t.Setenv("DSPALAB_CACHE", cache)
	t.Setenv("DSPALAB_REGISTRY", "")
	return cache
}

// cluster-trace runs offline on the embedded sample and says so; the
// limits estimate uses the sample's rate.
func TestRunClusterTraceOffline(t *testing.T) {
	traceEnv(t)
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), Options{Scenario: "cluster-trace", JSON: true, Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	want := "cluster-trace: source tasks replays clusterdata-2011-2/task_events part 1 from the embedded offline sample (the first 30 minutes of part 1, 25294 rows)\n" +
		"cluster-trace: (for the whole part: dspalab datasets fetch clusterdata-2011-2/task_events --parts 1)\n" +
		"trace of tasks: 25294 rows read, 14650 records; skipped: 10644 without a machine_id\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	if !strings.Contains(stdout.String(), `"records_emitted": 14650`) {
		t.Errorf("summary:\n%s", stdout.String())
	}

	sc, label, err := Load("cluster-trace")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := resolveTraces(label, sc)
	if err != nil {
		t.Fatal(err)
	}
	e := measure(sc, tr.rates())
	// 25294 rows over 1799.6 trace seconds at speed-up 60
	if want := 25294 / (1799.616759 / 60); math.Abs(e.Offered-want) > 0.01 {
		t.Errorf("offered %v records/s, want %v", e.Offered, want)
	}
	if Measure(sc).Offered != 0 {
		t.Error("Measure without the trace rates counts a trace source as 0")
	}
	err = checkLimits(label, sc, Limits{MaxEventRate: 1000}, tr.rates())
	if err == nil || !strings.HasPrefix(err.Error(), `scenario "cluster-trace": about 2541.9 events per simulated second`) ||
		!strings.Contains(err.Error(), "(records through 3 vertices: 843.3/s offered by the sources, 2529.9/s handled in all") {
		t.Errorf("limits: %v", err)
	}
}

// A file trace is relative to the scenario; a malformed line in strict
// mode stops the run with partial results; validate checks the names.
func TestRunFileTrace(t *testing.T) {
	traceEnv(t)
	dir := t.TempDir()
	writeFile(t, dir, "data.csv", "0,1\n1,2\nbad\n2,3\n3,1\n")
	file := writeFile(t, dir, "trace.yaml", `duration: 10s
sources:
  - name: s
    arrival: {process: trace, trace: {file: data.csv, columns: [t, k], time_column: t, time_unit: s, key_column: k}}
sinks: [{name: out, input: s}]
`)
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), Options{Scenario: file, Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data.csv")
	want := file + ": source s replays file data.csv from " + data + "\n" +
		file + ": the limits estimate leaves out source s: the rate of its trace is not known before it is read\n" +
		"trace of s: 5 rows read, 4 records; skipped: 1 malformed (the first: " + data + ":3: expected 2 columns, got 1)\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	if !strings.Contains(stdout.String(), "records: 4 emitted, 4 delivered") {
		t.Errorf("table:\n%s", stdout.String())
	}

	strict := writeFile(t, dir, "strict.yaml", strings.Replace(string(must(os.ReadFile(file))), "key_column: k}", "key_column: k, malformed: strict}", 1))
	stdout.Reset()
	out := filepath.Join(dir, "out")
	err := Run(context.Background(), Options{Scenario: strict, OutDir: out, Stdout: &stdout, Stderr: &stderr})
	var ts *TraceStoppedError
	if !errors.As(err, &ts) || ExitCode(err) != ExitFailure ||
		err.Error() != "run stopped: reading the trace of source s (subtask 0) at 1s: "+data+":3: expected 2 columns, got 1 (malformed: strict); the outputs are partial" {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(stdout.String(), "PARTIAL") {
		t.Errorf("the partial table:\n%s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Errorf("the partial outputs: %v", err)
	}

	bad := writeFile(t, dir, "bad.yaml", `duration: 10s
sources:
  - name: s
    arrival: {process: trace, trace: {dataset: clusterdata-2011-2/task_event}}
sinks: [{name: out, input: s}]
`)
	stdout.Reset()
	stderr.Reset()
	if err := Validate(&stdout, &stderr, []string{bad, "cluster-trace"}); !errors.Is(err, ErrReported) {
		t.Errorf("Validate: %v", err)
	}
	if want := bad + `:4:48: sources[0].arrival.trace.dataset: unknown data set "clusterdata-2011-2/task_event"; did you mean "clusterdata-2011-2/task_events"?` + "\n"; stderr.String() != want {
		t.Errorf("validate stderr %q, want %q", stderr.String(), want)
	}
	if stdout.String() != "cluster-trace: ok\n" {
		t.Errorf("validate stdout %q", stdout.String())
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// OpenTraces gives an opener that runs in parallel may share (sweeps).
func TestOpenTracesShared(t *testing.T) {
	traceEnv(t)
	sc, label, err := Load("cluster-trace")
	if err != nil {
		t.Fatal(err)
	}
	open, closeAll, err := OpenTraces(label, sc)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	emitted := make(chan uint64, 2)
	for range 2 {
		go func() {
			res, err := sim.Run(context.Background(), sc, sim.Options{OpenTrace: open})
			if err != nil {
				t.Error(err)
				emitted <- 0
				return
			}
			emitted <- res.Summary.Totals.Emitted
		}()
	}
	if a, b := <-emitted, <-emitted; a != 14650 || b != 14650 {
		t.Errorf("emitted %d and %d, want 14650 each", a, b)
	}
	if open, _, err := OpenTraces("mm1", must(scenario.Parse("mm1", must(scenarios.Get("mm1"))))); err != nil || open != nil {
		t.Errorf("a scenario without traces: %v, %v", open != nil, err)
	}
}
