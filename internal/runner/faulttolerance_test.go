package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// ftYAML is a small exactly-once job: a replayable source, keyed state,
// aligned checkpoints and a transactional sink over two workers (one slot
// each, so that subtask 1 of every vertex runs on worker 1).
const ftYAML = `name: ft
duration: 40s
workers: {count: 2, slots: 1, heartbeat_timeout: 5s}
sources:
  - name: events
    parallelism: 2
    arrival: {process: constant, rate: 100/s}
    keys: {count: 100}
operators:
  - name: count
    input: events
    partitioning: hash
    parallelism: 2
    service_time: {distribution: constant, mean: 2ms}
    state: {bytes_per_key: 1KiB}
sinks:
  - name: out
    input: count
    delivery: transactional
checkpoint: {mode: aligned, interval: 5s}
restart: {type: fixed-delay, delay: 2s}
`

// With checkpointing in any mode, --out also writes checkpoints.csv (one
// row per checkpoint that ended, the rows of sim.Result.Checkpoints) and
// checkpoint_subtasks.csv (one row per subtask that acknowledged one),
// both streamed while the run goes on; summary.json sums them up. A later
// run without checkpoints removes both.
func TestCheckpointsFile(t *testing.T) {
	dir := t.TempDir()
	base, _ := scenarios.Get("sensors-1000")
	for _, mode := range []string{scenario.CheckpointAligned, scenario.CheckpointUnaligned, scenario.CheckpointStopTheWorld} {
		t.Run(mode, func(t *testing.T) {
			file := filepath.Join(dir, mode+".yaml")
			if err := os.WriteFile(file, append(base, "checkpoint: {mode: "+mode+", interval: 10s, timeout: 1m}\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+mode)
			var stderr bytes.Buffer
			if err := Run(context.Background(), Options{Scenario: file, OutDir: out, Stderr: &stderr}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(stderr.String(), ", "+filepath.Join(out, runfiles.CheckpointsFile)+", "+filepath.Join(out, runfiles.CheckpointSubtasksFile)+"\n") {
				t.Errorf("wrote line %q lacks the checkpoint files", stderr.String())
			}
			data, err := os.ReadFile(filepath.Join(out, runfiles.CheckpointsFile))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) != 6 || lines[0] != strings.Join(sim.CheckpointColumns, ",") || !strings.HasPrefix(lines[1], "1,10,completed,") {
				t.Errorf("checkpoints.csv:\n%s", data)
			}
			// the rows streamed are the rows of the result, byte for byte
			sc, _, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(context.Background(), sc, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := sim.WriteCheckpointsCSV(&want, res.Checkpoints); err != nil {
				t.Fatal(err)
			}
			if want.String() != string(data) {
				t.Errorf("checkpoints.csv streamed:\n%s\nwant (sim.WriteCheckpointsCSV):\n%s", data, want.String())
			}

			subs := readCSV(t, filepath.Join(out, runfiles.CheckpointSubtasksFile))
			if strings.Join(subs[0], ",") != strings.Join(sim.CheckpointSubtaskColumns, ",") {
				t.Errorf("checkpoint_subtasks.csv header %v", subs[0])
			}
			// sensors-1000 has 2 + 4 + 2 subtasks: 5 completed checkpoints
			// acknowledged by all eight
			if len(subs) != 1+5*8 {
				t.Errorf("checkpoint_subtasks.csv has %d rows, want 40", len(subs)-1)
			}
			if len(subs) > 1 && strings.Join(subs[1][:4], ",") != "1,completed,sensors,0" {
				t.Errorf("first row %v", subs[1])
			}

			sum, _ := os.ReadFile(filepath.Join(out, runfiles.SummaryFile))
			if !strings.Contains(string(sum), `"mode": "`+mode+`"`) || !strings.Contains(string(sum), `"completed": 5`) || !strings.Contains(string(sum), `"in_progress": 0`) {
				t.Errorf("summary.json has no %s checkpoint section with 5 completed, none in progress (no trigger at the very end):\n%s", mode, sum)
			}
		})
	}

	// a later run without checkpoints into the same directory leaves no
	// stale checkpoint files for plot and report to pick up
	out := filepath.Join(dir, "out-"+scenario.CheckpointAligned)
	if err := Run(context.Background(), Options{Scenario: "sensors-1000", OutDir: out}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{runfiles.CheckpointsFile, runfiles.CheckpointSubtasksFile} {
		if _, err := os.Stat(filepath.Join(out, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of the earlier run is still there: %v", name, err)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// TestReplayFailure checks that a failure injected into a live run (as the
// live view's F key does, at a whole microsecond) and recorded in
// actions.jsonl replays, with run --replay, to the very same run: every
// output file byte for byte, summary.json with its delivery and recovery
// sections included.
func TestReplayFailure(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "ft.yaml", ftYAML)
	at := 12*des.Second + 345678*des.Microsecond
	live := filepath.Join(dir, "live")
	err := Run(context.Background(), Options{Scenario: file, OutDir: live, Live: func(ctx context.Context, r LiveRun) (*sim.Sim, error) {
		s, err := r.Start(nil)
		if err != nil {
			return nil, err
		}
		if err := s.RunUntil(ctx, at); err != nil {
			return s, err
		}
		if err := s.Inject(sim.Action{Kind: sim.ActionFailure, Vertex: "count", Subtask: 1, Worker: true}); err != nil {
			return s, err
		}
		return s, s.RunUntil(ctx, r.Scenario.Duration)
	}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(live, runfiles.ActionsFile))
	if err != nil {
		t.Fatal(err)
	}
	actions, err := runfiles.ReadActions(f, runfiles.ActionsFile)
	f.Close()
	if err != nil || len(actions) != 1 || actions[0].At != at {
		t.Fatalf("actions.jsonl holds %+v, %v; want one failure at %s", actions, err, sim.FormatTime(at))
	}

	replayed := filepath.Join(dir, "replayed")
	if err := Run(context.Background(), Options{Scenario: file, OutDir: replayed, Actions: actions}); err != nil {
		t.Fatal(err)
	}
	names := runfiles.Names(runfiles.Contents{Actions: true, Checkpoints: true})
	for _, name := range names {
		a, _ := os.ReadFile(filepath.Join(live, name))
		b, err := os.ReadFile(filepath.Join(replayed, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the live run and its replay (%v)", name, err)
		}
	}

	// and the failure did happen: detected after the heartbeat timeout,
	// recovered from a checkpoint, nothing lost or duplicated
	var sum sim.Summary
	data, _ := os.ReadFile(filepath.Join(replayed, runfiles.SummaryFile))
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	r, d := sum.Recovery, sum.Delivery
	if r == nil || d == nil {
		t.Fatalf("summary.json lacks delivery or recovery:\n%s", data)
	}
	if r.JobState != sim.JobRunning || r.Failures != 1 || r.Restarts != 1 || len(r.Failovers) != 1 {
		t.Errorf("recovery %+v, want one failure and one restart, running", r)
	} else if fo := r.Failovers[0]; fo.FailedS != at.Seconds() || fo.DetectedS != at.Seconds()+5 || fo.Checkpoint != 2 {
		t.Errorf("failover %+v, want failed at %v, detected 5s later, restored checkpoint 2", fo, at.Seconds())
	}
	if d.Lost != 0 || d.Duplicated != 0 || d.Replayed == 0 || d.Emitted != d.Delivered+d.Uncommitted+d.InFlight {
		t.Errorf("delivery %+v, want exactly once: 0 lost, 0 duplicated, emitted = delivered + uncommitted + in flight", d)
	}
}

// TestCheckpointRowsLimit: with --out, the rows of checkpoint_subtasks.csv
// (one per subtask and checkpoint) count against --max-rows too.
func TestCheckpointRowsLimit(t *testing.T) {
	sc := parse(t, `duration: 24h
metrics: {interval: 1m}
workers: {count: 100, slots: 4}
sources: [{name: s, parallelism: 400, arrival: {process: constant, rate: 0.001/s}}]
sinks: [{name: o, input: s, parallelism: 400}]
checkpoint: {mode: aligned, interval: 1s}
`)
	if e := Measure(sc); e.CheckpointRows != 800*86400 {
		t.Errorf("CheckpointRows = %v, want 800 subtasks x 86400 checkpoints", e.CheckpointRows)
	}
	err := CheckLimits("c.yaml", sc, Limits{WritesOutputs: true})
	want := `scenario "c.yaml": about 6.9e7 rows of checkpoint_subtasks.csv (800 subtasks every 1s over 24h, some 5.15GiB) exceed the limit of 2e7; lengthen checkpoint.interval, shorten the duration, or raise --max-rows`
	if err == nil || err.Error() != want {
		t.Errorf("CheckLimits =\n%v\nwant\n%s", err, want)
	}
	if err := CheckLimits("c.yaml", sc, Limits{}); err != nil {
		t.Errorf("without outputs: %v", err)
	}
}

// --duration shorter than a scripted failure leaves the failure out
// instead of refusing the scenario; random failures stay.
func TestDurationDropsLaterFailures(t *testing.T) {
	sc := &scenario.Scenario{Duration: 120 * des.Second, Failures: []scenario.Failure{
		{Kind: scenario.FailureWorker, At: 20 * des.Second},
		{Kind: scenario.FailureTask, At: 45 * des.Second},
		{Kind: scenario.FailureWorker, MTBF: des.Minute},
	}}
	d := 30 * des.Second
	if _, err := applyOverrides("x", sc, Options{Duration: &d}); err != nil {
		t.Fatal(err)
	}
	if len(sc.Failures) != 2 || sc.Failures[0].At != 20*des.Second || sc.Failures[1].MTBF != des.Minute {
		t.Errorf("failures after --duration 30s: %+v, want the one at 20s and the random one", sc.Failures)
	}
}

// A replayed action naming a vertex the job does not have is refused with
// the nearest name; actions out of time order are refused.
func TestCheckActionsHints(t *testing.T) {
	sc, err := scenario.Parse("x.yaml", []byte("name: x\nduration: 10s\nsources: [{name: events, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: out, input: events}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = CheckActions(sc, []sim.Action{{AtS: 1, Kind: sim.ActionFailure, Vertex: "evnets"}})
	if err == nil || !strings.Contains(err.Error(), `did you mean "events"?`) {
		t.Errorf("misspelt vertex: %v", err)
	}
	err = CheckActions(sc, []sim.Action{{AtS: 5, Kind: sim.ActionCheckpoint}, {AtS: 2, Kind: sim.ActionCheckpoint}})
	if err == nil || !strings.Contains(err.Error(), "time order") {
		t.Errorf("out of order: %v", err)
	}
}

// A live run quit before its end records where it stopped (a final stop
// action, exact to the nanosecond): its replay stops there too, with the
// same partial outputs.
func TestReplayStopsWhereTheLiveRunQuit(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "ft.yaml", ftYAML)
	failAt := 12*des.Second + 345678*des.Microsecond
	quitAt := 23*des.Second + 456789123 // not a whole microsecond
	live := filepath.Join(dir, "live")
	err := Run(context.Background(), Options{Scenario: file, OutDir: live, Live: func(ctx context.Context, r LiveRun) (*sim.Sim, error) {
		s, err := r.Start(nil)
		if err != nil {
			return nil, err
		}
		if err := s.RunUntil(ctx, failAt); err != nil {
			return s, err
		}
		if err := s.Inject(sim.Action{Kind: sim.ActionFailure, Vertex: "count", Subtask: 1}); err != nil {
			return s, err
		}
		return s, s.RunUntil(ctx, quitAt) // then q
	}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(live, runfiles.ActionsFile))
	if err != nil {
		t.Fatal(err)
	}
	actions, err := runfiles.ReadActions(f, runfiles.ActionsFile)
	f.Close()
	if err != nil || len(actions) != 2 || actions[1].Kind != runfiles.ActionStop || actions[1].At != quitAt {
		t.Fatalf("actions.jsonl holds %+v, %v; want a failure and a stop at %d ns", actions, err, quitAt)
	}
	replayed := filepath.Join(dir, "replayed")
	if err := Run(context.Background(), Options{Scenario: file, OutDir: replayed, Actions: actions}); err != nil {
		t.Fatal(err)
	}
	for _, name := range runfiles.Names(runfiles.Contents{Actions: true, Checkpoints: true}) {
		a, _ := os.ReadFile(filepath.Join(live, name))
		b, err := os.ReadFile(filepath.Join(replayed, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the live run quit at %s and its replay (%v)", name, sim.FormatTime(quitAt), err)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(replayed, runfiles.SummaryFile))
	if !strings.Contains(string(sum), `"partial": true`) {
		t.Errorf("the replay is not partial:\n%.400s", sum)
	}
}

// A failure at exactly the end of a shortened run, or after it, leaves a
// trace: listed among the failures without effect with the reason, and a
// note under the table, not counted as a failure.
func TestDurationAtFailureListsIt(t *testing.T) {
	for _, tc := range []struct{ duration, want string }{
		{"45s", "worker 1 fails at the end of the run, which stops before the failure acts"},
		{"30s", "worker 1 fails after the end of the run (30s), so it never happens"},
	} {
		var stdout bytes.Buffer
		dir := filepath.Join(t.TempDir(), "out")
		if err := Run(context.Background(), Options{Scenario: "exactly-once", Duration: durationPtr(t, tc.duration), OutDir: dir, Stdout: &stdout}); err != nil {
			t.Fatal(err)
		}
		var sum sim.Summary
		readSummaryJSON(t, dir, &sum)
		r := sum.Recovery
		if r.Failures != 0 || r.WithoutEffectCount != 1 || len(r.WithoutEffect) != 1 ||
			r.WithoutEffect[0] != (sim.IneffectiveFailure{AtS: 45, What: tc.want}) {
			t.Errorf("--duration %s: recovery %+v, want no failure and one without effect: %q", tc.duration, r, tc.want)
		}
		if note := "note: at 45s " + tc.want + ": the failure had no effect\n"; !strings.Contains(stdout.String(), note) {
			t.Errorf("--duration %s: table lacks %q:\n%s", tc.duration, note, stdout.String())
		}
	}
}

// A Spark run shortened below its failures lists them as a Flink run
// does, in the driver's and the executors' words (spark-recovery: an
// executor lost at 25s, the driver at 62.1s).
func TestDurationAtFailureListsItSpark(t *testing.T) {
	var stdout bytes.Buffer
	dir := filepath.Join(t.TempDir(), "out")
	if err := Run(context.Background(), Options{Scenario: "spark-recovery", Duration: durationPtr(t, "40s"), OutDir: dir, Stdout: &stdout}); err != nil {
		t.Fatal(err)
	}
	var sum microbatch.Summary
	readSummaryJSON(t, dir, &sum)
	r := sum.Recovery
	want := sim.IneffectiveFailure{AtS: 62.1, What: "the driver fails after the end of the run (40s), so it never happens"}
	if r == nil || r.Failures != 1 || r.WithoutEffectCount != 1 || len(r.WithoutEffect) != 1 || r.WithoutEffect[0] != want || r.JobState != "running" {
		t.Fatalf("recovery %+v, want the executor's failure and the driver's without effect: %+v", r, want)
	}
	if note := "note: at 62.1s " + want.What + ": the failure had no effect\n"; !strings.Contains(stdout.String(), note) {
		t.Errorf("the summary lacks %q:\n%s", note, stdout.String())
	}
}

// readSummaryJSON decodes dir's summary.json into sum (a *sim.Summary or
// a *microbatch.Summary).
func readSummaryJSON(t *testing.T, dir string, sum any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, runfiles.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, sum); err != nil {
		t.Fatal(err)
	}
}

// TestPartitionRowsLimit: with --out, the rows of partitions.csv (one per
// partition and reader at every metrics sample) count against --max-rows
// too: 20,000 partitions read by two jobs' sources for 600 samples.
func TestPartitionRowsLimit(t *testing.T) {
	sc := parse(t, `duration: 10m
topics: [{name: t, partitions: 20000}]
sources:
  - {name: app, arrival: {process: constant, rate: 10/s}, writes: {topic: t}}
  - {name: a, arrival: {process: topic, topic: t}}
  - {name: b, parallelism: 2, arrival: {process: topic, topic: t}}
sinks: [{name: oa, input: a}, {name: ob, input: b}]
`)
	if e := Measure(sc); e.PartitionRows != 2*20000*600 {
		t.Errorf("PartitionRows = %v, want 20000 partitions x 2 readers x 600 samples", e.PartitionRows)
	}
	err := CheckLimits("p.yaml", sc, Limits{WritesOutputs: true})
	want := `scenario "p.yaml": about 2.4e7 rows of partitions.csv (40000 partition-reader pairs every 1s over 600s, some 960MB) exceed the limit of 2e7; lengthen metrics.interval, shorten the duration, or raise --max-rows`
	if err == nil || err.Error() != want {
		t.Errorf("CheckLimits =\n%v\nwant\n%s", err, want)
	}
	if err := CheckLimits("p.yaml", sc, Limits{}); err != nil {
		t.Errorf("without outputs: %v", err)
	}
}
