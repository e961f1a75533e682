package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

func TestCheckActions(t *testing.T) {
	sc, _, err := Load("backpressure") // 120s; parse has parallelism 1
	if err != nil {
		t.Fatal(err)
	}
	ok := []sim.Action{
		{AtS: 0, Kind: sim.ActionCheckpoint},
		{AtS: 120, Kind: sim.ActionFailure, Vertex: "parse", Worker: true},
	}
	if err := CheckActions(sc, ok); err != nil {
		t.Errorf("CheckActions(%+v) = %v", ok, err)
	}
	for _, tc := range []struct {
		a    sim.Action
		want string
	}{
		{sim.Action{AtS: 120.5, Kind: sim.ActionCheckpoint}, "replayed action 2 (checkpoint at 120.5s) comes after the end of the run at 120s"},
		{sim.Action{At: 5 * des.Second, Kind: sim.ActionFailure, Vertex: "nope"}, `replayed action 2 (failure at 5s): the job has no vertex "nope"`},
		{sim.Action{AtS: 5, Kind: sim.ActionFailure, Vertex: "parse", Subtask: 1}, "replayed action 2 (failure at 5s): parse has subtasks 0..0, not 1"},
	} {
		err := CheckActions(sc, []sim.Action{ok[0], tc.a})
		if err == nil || err.Error() != tc.want {
			t.Errorf("CheckActions(%+v) = %v, want %q", tc.a, err, tc.want)
		}
	}
}

// TestRunReplay checks --replay: an empty list of actions runs as a plain
// run does and writes an empty actions.jsonl beside the outputs; actions
// the simulator applies are written back as they were read (a replayed
// failure: TestReplayFailure).
func TestRunReplay(t *testing.T) {
	dir := t.TempDir()
	d := 50 * des.Second
	plain, replayed := filepath.Join(dir, "plain"), filepath.Join(dir, "replayed")
	if err := Run(context.Background(), Options{Duration: &d, OutDir: plain}); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := Run(context.Background(), Options{Duration: &d, OutDir: replayed, Actions: []sim.Action{}, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	for _, name := range runfiles.OutputFiles {
		a, _ := os.ReadFile(filepath.Join(plain, name))
		b, _ := os.ReadFile(filepath.Join(replayed, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs with no action replayed", name)
		}
	}
	if data, err := os.ReadFile(filepath.Join(replayed, runfiles.ActionsFile)); err != nil || len(data) != 0 {
		t.Errorf("actions.jsonl = %q, %v; want an empty file", data, err)
	}
	if _, err := os.Stat(filepath.Join(plain, runfiles.ActionsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a plain run wrote actions.jsonl: %v", err)
	}
	if !strings.HasSuffix(stderr.String(), ", "+filepath.Join(replayed, runfiles.ActionsFile)+"\n") {
		t.Errorf("wrote line %q lacks actions.jsonl", stderr.String())
	}

	actions := []sim.Action{{At: 5 * des.Second, AtS: 5, Kind: sim.ActionCheckpoint}}
	out := filepath.Join(dir, "checkpoint")
	bp, _ := scenarios.Get("backpressure")
	withCheckpoints := filepath.Join(dir, "bp-checkpoints.yaml")
	if err := os.WriteFile(withCheckpoints, append(bp, "checkpoint: {mode: aligned, interval: 100s}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), Options{Scenario: withCheckpoints, Duration: &d, OutDir: out, Actions: actions}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, runfiles.ActionsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := runfiles.ReadActions(f, runfiles.ActionsFile)
	if err != nil || len(back) != 1 || back[0] != actions[0] {
		t.Errorf("actions.jsonl holds %+v, %v; want %+v", back, err, actions)
	}
}

// TestRunLive checks the pass-through to a live view: it gets the scenario
// and a Start that builds simulations writing the output files; a second
// Start (a restart) starts the files again; Run reports the simulation it
// returns, partial where it stopped, with actions.jsonl.
func TestRunLive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout bytes.Buffer
	var seen []sim.Event
	live := func(ctx context.Context, r LiveRun) (*sim.Sim, error) {
		if r.Label != "backpressure" || r.Scenario.Name != "backpressure" {
			t.Errorf("live run of %q (%q)", r.Label, r.Scenario.Name)
		}
		s, err := r.Start(eventRecorder{&seen})
		if err != nil {
			return nil, err
		}
		if err := s.RunUntil(ctx, 50*des.Second); err != nil {
			return s, err
		}
		seen = nil
		if s, err = r.Start(eventRecorder{&seen}); err != nil { // restart
			return nil, err
		}
		return s, s.RunUntil(ctx, 30*des.Second)
	}
	if err := Run(context.Background(), Options{OutDir: dir, Stdout: &stdout, Live: live, Progress: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "PARTIAL: stopped at 30s of 120s") {
		t.Errorf("table:\n%s", stdout.String())
	}
	if len(seen) == 0 || seen[0].Type != sim.EventRunStarted {
		t.Errorf("the live view's observer saw %+v", seen)
	}
	events, err := os.ReadFile(filepath.Join(dir, runfiles.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(events), `"type":"run_started"`); n != 1 {
		t.Errorf("events.jsonl holds %d runs, want the one after the restart:\n%s", n, events)
	}
	if !strings.Contains(string(events), `{"time_s":30,"type":"run_stopped"`) {
		t.Errorf("events.jsonl does not end at 30s:\n%s", events)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "actions.jsonl events.jsonl run.json summary.json timeseries.csv" {
		t.Errorf("output directory holds %v", names)
	}

	// A live view stopped by Ctrl-C: interrupted, outputs partial.
	ctx, cancel := context.WithCancel(context.Background())
	err = Run(ctx, Options{OutDir: dir, Live: func(ctx context.Context, r LiveRun) (*sim.Sim, error) {
		s, err := r.Start(nil)
		if err != nil {
			return nil, err
		}
		s.RunUntil(ctx, 10*des.Second)
		cancel()
		return s, s.RunUntil(ctx, 20*des.Second)
	}})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Reached < 10*des.Second || ie.Reached >= 120*des.Second {
		t.Errorf("interrupted live view: %v", err)
	}

	// A live view that fails reports its error, and writes nothing.
	out2 := filepath.Join(t.TempDir(), "out")
	boom := errors.New("no terminal")
	err = Run(context.Background(), Options{OutDir: out2, Live: func(context.Context, LiveRun) (*sim.Sim, error) { return nil, boom }})
	if !errors.Is(err, boom) {
		t.Errorf("failed live view: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out2, runfiles.SummaryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed live view wrote outputs: %v", err)
	}
}

type eventRecorder struct{ events *[]sim.Event }

func (eventRecorder) Sample(*sim.Sample)  {}
func (r eventRecorder) Event(e sim.Event) { *r.events = append(*r.events, e) }

// TestLiveRefusesOutHoldingScenario: the live view (dspalab watch) into a
// directory holding the scenario file under an output's name is refused
// before the view starts, as run is (CheckNotInput), and the file stays.
func TestLiveRefusesOutHoldingScenario(t *testing.T) {
	dir := t.TempDir()
	data, err := scenarios.Get("backpressure")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, runfiles.SummaryFile)
	if err := os.WriteFile(file, data, 0o666); err != nil {
		t.Fatal(err)
	}
	started := false
	err = Run(context.Background(), Options{Scenario: file, OutDir: dir, Live: func(context.Context, LiveRun) (*sim.Sim, error) {
		started = true
		return nil, errors.New("started")
	}})
	var oe *OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "refusing to write "+file+": it would replace "+file+", which this command reads") {
		t.Errorf("live run into the scenario's directory: %v", err)
	}
	if started {
		t.Error("the live view started")
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, data) {
		t.Errorf("%s was changed", file)
	}
}

// TestLiveQuitKeepsComplete: the live view quit with q before the end (no
// error, the simulation returned where it stands) into a directory holding
// a complete run keeps that run, as Ctrl-C does: the partial outputs go to
// DIR/partial, and stderr says so.
func TestLiveQuitKeepsComplete(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	d := 50 * des.Second
	if err := Run(context.Background(), Options{OutDir: dir, Duration: &d}); err != nil {
		t.Fatal(err)
	}
	complete, err := os.ReadFile(filepath.Join(dir, runfiles.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err = Run(context.Background(), Options{OutDir: dir, Stderr: &stderr, Live: func(ctx context.Context, r LiveRun) (*sim.Sim, error) {
		s, err := r.Start(nil)
		if err != nil {
			return nil, err
		}
		return s, s.RunUntil(ctx, 10*des.Second) // q at 10s
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, runfiles.SummaryFile)); !bytes.Equal(got, complete) {
		t.Errorf("the complete run's summary.json was replaced:\n%s", got)
	}
	partial := filepath.Join(dir, runfiles.PartialDir)
	if sum, err := os.ReadFile(filepath.Join(partial, runfiles.SummaryFile)); err != nil || !bytes.Contains(sum, []byte(`"simulated_s": 10,`)) {
		t.Errorf("partial/summary.json: %v\n%s", err, sum)
	}
	want := "the run stopped before its end: its partial outputs are in " + partial + " (" + dir + " holds a complete earlier run, which was kept)\n"
	if !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to end with:\n%s", stderr.String(), want)
	}
}
