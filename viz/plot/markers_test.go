package plot

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

// failuresYAML fails a task at 10s (reported at once: failover, restart
// after 2s, recovery) and a worker at 23s (noticed after the 3s heartbeat
// timeout; the single restart attempt is used up, so the job fails for
// good; the checkpoint triggered at 24s meanwhile is aborted).
const failuresYAML = `name: failures
duration: 40s
workers: {count: 2, slots: 1, heartbeat_timeout: 3s}
sources:
  - name: events
    parallelism: 2
    arrival: {process: constant, rate: 50/s}
operators:
  - name: count
    input: events
    partitioning: hash
    parallelism: 2
    service_time: {mean: 2ms}
    state: {bytes_per_key: 100B}
sinks:
  - {name: out, input: count, delivery: transactional}
checkpoint: {mode: aligned, interval: 4s}
restart: {type: fixed-delay, attempts: 1, delay: 2s}
failures:
  - {kind: task, at: 10s, vertex: count, subtask: 1}
  - {kind: worker, at: 23s, worker: 1}
`

// simRun runs yaml through the simulator and reads its outputs as the
// files of a run directory.
func simRun(t *testing.T, yaml string) (*Run, *sim.Result) {
	t.Helper()
	return simRunFiltered(t, yaml, TimeseriesFilter{Metrics: DefaultMetrics})
}

// simRunFiltered is simRun reading the time series through f.
func simRunFiltered(t *testing.T, yaml string, f TimeseriesFilter) (*Run, *sim.Result) {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	var ts, ev, ck, sum bytes.Buffer
	sw := sim.NewStreamWriter(&ts, &ev)
	res, err := sim.Run(context.Background(), sc, sim.Options{Observer: sw})
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := sim.WriteCheckpointsCSV(&ck, res.Checkpoints); err != nil {
		t.Fatal(err)
	}
	if err := sim.WriteSummaryJSON(&sum, &res.Summary); err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		runfiles.TimeseriesFile:  {Data: ts.Bytes()},
		runfiles.EventsFile:      {Data: ev.Bytes()},
		runfiles.CheckpointsFile: {Data: ck.Bytes()},
		runfiles.SummaryFile:     {Data: sum.Bytes()},
	}
	run, err := ReadRun(fsys, sc.Name, f)
	if err != nil {
		t.Fatal(err)
	}
	return run, res
}

// TestMarkersFromSimulatedFailures checks the markers of the events the
// simulator writes: one failure marker per failure event, none for its
// detection (failure_detected), the job failing for good (job_failed) or
// the checkpoints it aborts (checkpoint_failed); one recovery marker per
// recovery_completed.
func TestMarkersFromSimulatedFailures(t *testing.T) {
	run, res := simRun(t, failuresYAML)
	seen := map[string]int{}
	for _, e := range run.Events {
		seen[e.Type]++
	}
	for _, typ := range []string{sim.EventFailure, sim.EventFailureDetected, sim.EventRestart, sim.EventRecoveryCompleted, sim.EventJobFailed, sim.EventCheckpointFailed} {
		if seen[typ] == 0 {
			t.Errorf("the run has no %s event (events: %v); the test needs one", typ, seen)
		}
	}
	var failures, recoveries []float64
	for _, m := range run.Markers {
		switch m.Kind {
		case MarkerFailure:
			failures = append(failures, m.Time)
			if m.Type != sim.EventFailure {
				t.Errorf("a failure marker for a %s event at %gs", m.Type, m.Time)
			}
		case MarkerRecovery:
			recoveries = append(recoveries, m.Time)
		}
	}
	if len(failures) != 2 || failures[0] != 10 || failures[1] != 23 {
		t.Errorf("failure markers at %v, want 10s and 23s: one per failure", failures)
	}
	if len(recoveries) != seen[sim.EventRecoveryCompleted] || len(recoveries) != 1 || recoveries[0] <= 12 || recoveries[0] > 13 {
		t.Errorf("recovery markers at %v, want one just after the restart at 12s", recoveries)
	}
	if r := res.Summary.Recovery; r.Failures != len(failures) || r.JobState != sim.JobFailed {
		t.Errorf("recovery %+v: want %d failures, the job failed", r, len(failures))
	}

	// the figure marks them, and shades the checkpoint the failover aborted
	f, err := TimeSeries([]*Run{run}, TimeSeriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.WriteTo(&b, SVG); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">failure<", ">recovery<", ">checkpoint that failed<"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the figure's legend lacks %s", want)
		}
	}
}

// A heatmap draws the cells where a subtask was down (down_ms_per_s, read
// as an optional column) as down, with a legend entry, instead of as a
// value: a dead subtask is neither OK nor idle.
func TestHeatmapDrawsDownSubtasks(t *testing.T) {
	csv := "time_s,vertex,kind,subtask,backpressured_ms_per_s,down_ms_per_s,status\n" +
		"1,src,source,0,0,0,OK\n1,src,source,1,0,0,OK\n" +
		"2,src,source,0,900,0,HIGH\n2,src,source,1,0,1000,DOWN\n" +
		"3,src,source,0,1000,0,HIGH\n3,src,source,1,0,400,OK\n"
	ts, err := ReadTimeseries(strings.NewReader(csv), TimeseriesFilter{Metrics: []string{DefaultHeatmapMetric}, Subtasks: true, Optional: []string{DownMetric}})
	if err != nil {
		t.Fatal(err)
	}
	g := newGrid(ts.Series, DefaultHeatmapMetric)
	// rows top to bottom: src[0] is row 1, src[1] row 0
	if g.isDown(0, 0) || !g.isDown(1, 0) || g.isDown(1, 1) || g.isDown(2, 0) {
		t.Errorf("down cells %v; want only src[1] at 2s", g.down)
	}
	fig, err := Heatmap([]*Run{{Label: "r", Timeseries: ts}}, HeatmapOptions{Subtasks: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range fig.legend {
		found = found || strings.HasPrefix(e.name, "down (not running")
	}
	if !found {
		t.Errorf("legend %v has no entry for down cells", fig.legend)
	}
}

// TestOverlaidRunsMarkersByRun: of two overlaid runs, each run's failure
// and recovery lines are in its own color and named by it in the legend
// (issue 12), so that one sees which run failed when.
func TestOverlaidRunsMarkersByRun(t *testing.T) {
	a, _ := simRun(t, failuresYAML)
	a.Label = "runA"
	b, _ := simRun(t, strings.Replace(failuresYAML, "at: 10s, vertex", "at: 15s, vertex", 1))
	b.Label = "runB"
	d := decorations([]*Run{a, b}, false)
	got := map[string]*vlines{}
	for i, e := range d.legend {
		if v, ok := d.plotters[i].(*vlines); ok {
			got[e.name] = v
		}
	}
	fa, fb := got["failure of runA"], got["failure of runB"]
	if fa == nil || fb == nil || got["recovery of runA"] == nil || got["recovery of runB"] == nil {
		t.Fatalf("legend %v: want failure and recovery of runA and of runB", d.legend)
	}
	if len(fa.X) == 0 || fa.X[0] != 10 || len(fb.X) == 0 || fb.X[0] != 15 {
		t.Errorf("first failures: runA %v, runB %v; want 10 and 15", fa.X, fb.X)
	}
	if fa.Style.Color == fb.Style.Color {
		t.Errorf("failures of both runs in one color %v", fa.Style.Color)
	}
	if fa.Style.Color != palette[0] || fb.Style.Color != palette[1] {
		t.Errorf("failure colors %v, %v: want the runs' colors %v, %v", fa.Style.Color, fb.Style.Color, palette[0], palette[1])
	}
}
