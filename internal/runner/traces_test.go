package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
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
		file + ": the up-front limits (--max-events, --max-memory) count no record of source s: the rate of its trace is not known before it is read; --max-queued still bounds the run\n" +
		"trace of s: 5 rows read, 4 records; skipped: 1 malformed (the first: " + data + ":3: expected 2 columns, got 1)\n" +
		file + ": warning: the trace of source s ends at 3s of 10s simulated: statistics after 3s see no input\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	if !strings.Contains(stdout.String(), "records: 4 emitted, 4 reached the sinks") {
		t.Errorf("table:\n%s", stdout.String())
	}

	strict := writeFile(t, dir, "strict.yaml", strings.Replace(string(must(os.ReadFile(file))), "key_column: k}", "key_column: k, malformed: strict}", 1))
	stdout.Reset()
	out := filepath.Join(dir, "out")
	err := Run(context.Background(), Options{Scenario: strict, OutDir: out, Stdout: &stdout, Stderr: &stderr})
	var ts *TraceStoppedError
	if !errors.As(err, &ts) || ExitCode(err) != ExitFailure ||
		err.Error() != "run stopped at 1s simulated: line 3 of "+data+", in the trace of source s, is malformed: expected 2 columns, got 1 (malformed: strict; skip would skip and count it); "+
			"the source reads one record ahead, so the run stopped when it wrote the record before that line; the outputs are partial" {
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

// Prepare gives options that runs in parallel may share (sweeps).
func TestPrepareShared(t *testing.T) {
	traceEnv(t)
	sc, label, err := Load("cluster-trace")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(sc, Setup{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	opts := p.Options(nil, nil)
	emitted := make(chan uint64, 2)
	for range 2 {
		go func() {
			res, err := sim.Run(context.Background(), sc, opts)
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
	if p, err := Prepare(must(scenario.Parse("mm1", must(scenarios.Get("mm1")))), Setup{Label: "mm1"}); err != nil || p.Options(nil, nil).OpenTrace != nil {
		t.Errorf("a scenario without traces: %v", err)
	}
}

// A run longer than the offline sample says, before it, when the trace
// ends, and marks it in events.jsonl; TraceSources says what is replayed.
func TestRunLongerThanTrace(t *testing.T) {
	traceEnv(t)
	d := 84 * des.Second
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), Options{Scenario: "cluster-trace", Duration: &d, OutDir: out, JSON: true, Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	warning := "the trace of source tasks ends at 30s of 84s simulated (the offline sample holds the first 30 minutes of part 1; fetch the data set for more): statistics after 30s see no input"
	want := "cluster-trace: source tasks replays clusterdata-2011-2/task_events part 1 from the embedded offline sample (the first 30 minutes of part 1, 25294 rows)\n" +
		"cluster-trace: (for the whole part: dspalab datasets fetch clusterdata-2011-2/task_events --parts 1)\n" +
		"cluster-trace: warning: " + warning + "\n" +
		"trace of tasks: 25294 rows read, 14650 records; skipped: 10644 without a machine_id\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	events := string(must(os.ReadFile(filepath.Join(out, runfiles.EventsFile))))
	line := `{"time_s":29.993613,"type":"trace_ended","vertex":"tasks","message":"` + warning + `"}` + "\n"
	i := strings.Index(events, line)
	if i < 0 {
		t.Fatalf("no trace_ended event in:\n%s", events)
	}
	// in time order: after the events of 29s, before those of 30s
	var prev, next struct {
		TimeS float64 `json:"time_s"`
	}
	before := strings.Split(strings.TrimSuffix(events[:i], "\n"), "\n")
	after := strings.SplitN(events[i+len(line):], "\n", 2)
	if err := json.Unmarshal([]byte(before[len(before)-1]), &prev); err != nil || prev.TimeS > 29.993613 {
		t.Errorf("the event before: %s (%v)", before[len(before)-1], err)
	}
	if err := json.Unmarshal([]byte(after[0]), &next); err != nil || next.TimeS < 29.993613 {
		t.Errorf("the event after: %s (%v)", after[0], err)
	}

	// the default 30 s is the sample's span: no warning
	sc, label, err := Load("cluster-trace")
	if err != nil {
		t.Fatal(err)
	}
	tr := must(resolveTraces(label, sc))
	if _, early := tr.knownEnd("tasks"); early {
		t.Error("the 30s sample in a 30s run ends early")
	}
	src, err := TraceSources(label, sc)
	if err != nil || !slices.Equal(src, []string{"tasks: clusterdata-2011-2/task_events part 1 (embedded offline sample)"}) {
		t.Errorf("TraceSources = %q, %v", src, err)
	}
	if src, err := TraceSources("mm1", must(scenario.Parse("mm1", must(scenarios.Get("mm1"))))); src != nil || err != nil {
		t.Errorf("TraceSources without traces = %q, %v", src, err)
	}
}

// What reading a file shows: an empty trace, rows out of order (in the
// singular), the end of the trace learnt from its reader (stderr and
// events.jsonl), a file named as the scenario names it; TraceSources of
// a file and of a user registry's sample, whose declared rows are checked.
func TestRunFileTraceWarnings(t *testing.T) {
	traceEnv(t)
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "empty.csv", "")
	writeFile(t, dir, "data.csv", "0,1\n2,2\n1,3\n")
	scen := func(name, file string) string {
		return writeFile(t, dir, name, `duration: 10s
sources:
  - name: s
    arrival: {process: trace, trace: {file: `+file+`, columns: [t, k], time_column: t, time_unit: s, key_column: k}}
sinks: [{name: out, input: s}]
`)
	}
	scen("empty.yaml", "empty.csv")
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), Options{Scenario: "empty.yaml", Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	want := "empty.yaml: source s replays file empty.csv\n" +
		"empty.yaml: the up-front limits (--max-events, --max-memory) count no record of source s: the rate of its trace is not known before it is read; --max-queued still bounds the run\n" +
		"trace of s: 0 rows read, 0 records\n" +
		"empty.yaml: warning: the trace of source s has no rows: file empty.csv is empty\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}

	scen("data.yaml", "data.csv")
	stderr.Reset()
	if err := Run(context.Background(), Options{Scenario: "data.yaml", OutDir: "out", Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	warning := "the trace of source s ends at 2s of 10s simulated: statistics after 2s see no input"
	if got := stderr.String(); !strings.Contains(got, "trace of s: 3 rows read, 3 records; 1 row out of timestamp order\n") ||
		!strings.HasSuffix(got, "data.yaml: warning: "+warning+"\nwrote out/summary.json, out/timeseries.csv, out/events.jsonl\n") {
		t.Errorf("stderr:\n%s", got)
	}
	events := string(must(os.ReadFile(filepath.Join("out", runfiles.EventsFile))))
	if !strings.Contains(events, `{"time_s":2,"type":"trace_ended","vertex":"s","message":"`+warning+`"}`) {
		t.Errorf("events.jsonl:\n%s", events)
	}
	sc, label, err := Load("data.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if src, err := TraceSources(label, sc); err != nil || !slices.Equal(src, []string{"s: file data.csv (file data.csv)"}) {
		t.Errorf("TraceSources = %q, %v", src, err)
	}

	// a user registry that declares 5000 rows for a 3-row sample
	reg := writeFile(t, dir, "reg.yaml", `datasets:
  - name: course/r
    bucket: bkt
    object: r{part}.csv
    parts: 1
    columns: [t, k]
    time_column: t
    time_unit: s
    sample: {part: 0, file: data.csv, description: all of it, rows: 5000, first: 0, last: 2}
`)
	t.Setenv("DSPALAB_REGISTRY", reg)
	writeFile(t, dir, "ds.yaml", `duration: 2s
sources:
  - name: s
    arrival: {process: trace, trace: {dataset: course/r}}
sinks: [{name: out, input: s}]
`)
	stderr.Reset()
	if err := Run(context.Background(), Options{Scenario: "ds.yaml", Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	if want := "ds.yaml: warning: the trace of source s has 3 rows, but the " + reg + " registry declares 5000 for course/r part 0 (the limits estimate used the declared rows): correct the registry\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant the end:\n%s", stderr.String(), want)
	}
	sc, label, err = Load("ds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if src, err := TraceSources(label, sc); err != nil || !slices.Equal(src, []string{"s: course/r part 0 (offline sample " + filepath.Join(dir, "data.csv") + ")"}) {
		t.Errorf("TraceSources = %q, %v", src, err)
	}
}
