package tui

import (
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// frame runs the live view of sc in a bubbletea program (teatest) at a
// fixed size, with the engine in the test mode: it presses keys, advances
// the simulation to simulated time to, and returns the program's last
// frame once the snapshot of that instant has arrived, and the program's
// output. The frame is the same on every run.
func frame(t *testing.T, sc *scenario.Scenario, w, h int, keys []string, to des.Time, opts ...tea.ProgramOption) (string, []byte) {
	t.Helper()
	return jobFrame(t, testJob(sc), w, h, keys, to, opts...)
}

// jobFrame is frame for a job.
func jobFrame(t *testing.T, job Job, w, h int, keys []string, to des.Time, opts ...tea.ProgramOption) (string, []byte) {
	t.Helper()
	return scriptFrame(t, job, w, h, []step{{keys, to}}, opts...)
}

// step presses keys, then advances the simulation to simulated time to.
type step struct {
	keys []string
	to   des.Time
}

// scriptFrame is jobFrame for steps, in order: keys pressed after the
// first step act at the simulated time it reached. The frame is taken at
// the last step's time, which is the latest.
func scriptFrame(t *testing.T, job Job, w, h int, steps []step, opts ...tea.ProgramOption) (string, []byte) {
	t.Helper()
	to := steps[len(steps)-1].to
	e := manualEngine(t, job)
	m := newModel(job, e)
	m.quitWhen = func(s *Snapshot) bool { return s.Now >= to || s.State == Stopped }
	if len(opts) == 0 {
		opts = []tea.ProgramOption{tea.WithColorProfile(colorprofile.Ascii)}
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h), teatest.WithProgramOptions(opts...))
	for _, st := range steps {
		for _, k := range st.keys {
			tm.Send(press(k))
		}
		tm.Send(advanceMsg{st.to})
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(model)
	out, err := io.ReadAll(tm.FinalOutput(t))
	if err != nil {
		t.Fatal(err)
	}
	view := fm.View()
	if !view.AltScreen {
		t.Error("the view is not on the alternate screen")
	}
	lines := strings.Split(view.Content, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("line %d is %d wide, more than %d", i+1, ansi.StringWidth(l), w)
		}
	}
	return ansi.Strip(view.Content) + "\n", out
}

// TestGolden compares frames of the back-pressure scenario at fixed
// simulated instants with testdata/TestGolden/*.golden (go test -update
// rewrites them).
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
		to   des.Time
	}{
		{"start_100x30", 100, 30, nil, 0},
		{"warmup_5s_100x30", 100, 30, []string{"space"}, 5 * des.Second},
		{"parse_30s_100x30", 100, 30, []string{"down"}, 30 * des.Second},
		{"enrich_60s_80x24", 80, 24, []string{"down", "down", "-", "-"}, 60 * des.Second},
		{"finished_120s_100x30", 100, 30, []string{"up"}, 120 * des.Second},
		{"help_20s_80x24", 80, 24, []string{"?"}, 20 * des.Second},
		{"help_20s_80x16", 80, 16, []string{"?"}, 20 * des.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := frame(t, builtin(t, "backpressure"), tc.w, tc.h, tc.keys, tc.to)
			golden.RequireEqual(t, got)
		})
	}
}

// recoveryYAML is a job with keyed state, aligned checkpoints every 10s
// to a slow storage (each takes about 4s to upload its state, and a
// restore as long), an at-least-once sink, and worker 1 (subtasks 1 of
// every vertex) failing at 45s, which the JobManager notices at 55s; the
// job restarts at 60s from checkpoint 4 and runs again at 63.9s, its
// sink writing again what it had written since checkpoint 4: duplicates.
const recoveryYAML = `name: recovery
description: Checkpoints every 10s, an at-least-once sink; worker 1 dies at 45s.
duration: 2m
workers: {count: 2, slots: 1, heartbeat_timeout: 10s}
sources:
  - name: orders
    parallelism: 2
    arrival: {process: poisson, rate: 50/s}
    keys: {count: 1000}
operators:
  - name: totals
    input: orders
    partitioning: hash
    parallelism: 2
    service_time: {distribution: exponential, mean: 5ms}
    state: {bytes_per_key: 1KiB}
sinks:
  - name: out
    input: totals
    parallelism: 2
    delivery: at-least-once
checkpoint: {mode: aligned, interval: 10s, timeout: 1m, storage: {bandwidth: 256KiB/s}}
restart: {type: fixed-delay, delay: 5s}
failures:
  - {kind: worker, at: 45s, worker: 1}
`

// TestGoldenRecovery compares frames of a job with checkpoints and
// failures at fixed simulated instants: a worker down and not noticed
// yet, the failover (RESTARTING), the restore, the job running again with
// duplicates, and a failure injected with f.
func TestGoldenRecovery(t *testing.T) {
	sc, err := scenario.Parse("recovery.yaml", []byte(recoveryYAML))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		w, h  int
		steps []step
	}{
		{"worker_down_50s_80x24", 80, 24, []step{{[]string{"down", "right"}, 50 * des.Second}}},
		{"restarting_58s_80x24", 80, 24, []step{{[]string{"down"}, 58 * des.Second}}},
		{"restoring_62s_100x30", 100, 30, []step{{[]string{"down", "right"}, 62 * des.Second}}},
		{"recovered_90s_100x30", 100, 30, []step{{[]string{"up"}, 90 * des.Second}}},
		{"f_at_95s_97s_80x24", 80, 24, []step{{[]string{"down"}, 95 * des.Second}, {[]string{"f"}, 97 * des.Second}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := scriptFrame(t, testJob(sc), tc.w, tc.h, tc.steps)
			golden.RequireEqual(t, got)
		})
	}
	// the back-pressure job with an aligned checkpoint every 30s and a 20s
	// timeout (as the built-in checkpoint-aligned): every checkpoint times
	// out behind the buffered records
	data, err := scenarios.Get("backpressure")
	if err != nil {
		t.Fatal(err)
	}
	aligned, err := scenario.Parse("backpressure", append(data, "checkpoint: {mode: aligned, interval: 30s, timeout: 20s}\n"...))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("checkpoint_timeouts_75s_80x24", func(t *testing.T) {
		got, _ := frame(t, aligned, 80, 24, nil, 75*des.Second)
		golden.RequireEqual(t, got)
	})
}

// TestGoldenBuiltinRecovery compares frames of the built-in exactly-once
// and at-least-once scenarios (the same job, worker 1 failing at 45s and
// noticed at 55s, restarted from checkpoint 4 at 57s) with
// testdata/TestGoldenBuiltinRecovery/*.golden: the failover, and the
// delivery counters after it (exactly-once: nothing duplicated, output
// uncommitted until the next checkpoint; at-least-once: duplicates). A
// change of those scenarios changes the frames: look at the new ones, then
// go test -update.
func TestGoldenBuiltinRecovery(t *testing.T) {
	for _, tc := range []struct {
		name, scenario string
		w, h           int
		keys           []string
		to             des.Time
	}{
		{"exactly-once_90s_80x24", "exactly-once", 80, 24, []string{"up"}, 90 * des.Second},
		{"at-least-once_56s_80x24", "at-least-once", 80, 24, []string{"down"}, 56 * des.Second},
		{"at-least-once_90s_80x24", "at-least-once", 80, 24, []string{"up"}, 90 * des.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := scenarios.Get(tc.scenario); err != nil {
				t.Skip("no built-in scenario", tc.scenario)
			}
			got, _ := frame(t, builtin(t, tc.scenario), tc.w, tc.h, tc.keys, tc.to)
			golden.RequireEqual(t, got)
		})
	}
}

// wideYAML is a job with a long vertex name, a vertex of parallelism 64,
// two sources and more vertices than fit at 80x24.
const wideYAML = `name: wide
description: A long name, a wide vertex, two sources.
duration: 30s
workers: {count: 16, slots: 4}
sources:
  - name: clicks
    arrival: {process: constant, rate: 1000/s}
  - name: impressions-from-the-ad-server
    arrival: {process: constant, rate: 10/s}
operators:
  - {name: enrich-with-customer-profile-lookup, inputs: [clicks, impressions-from-the-ad-server], parallelism: 64, service_time: {mean: 60ms}}
  - {name: b, input: enrich-with-customer-profile-lookup, parallelism: 2, service_time: {mean: 1us}}
  - {name: c, input: b, parallelism: 2, service_time: {mean: 1us}}
  - {name: d, input: c, parallelism: 2, service_time: {mean: 1us}}
sinks:
  - {name: out, input: d}
`

// TestGoldenCutOffs compares frames that used to lose their ends: a long
// vertex name, a wide vertex, a graph taller than its pane, a run stopped
// by --max-queued.
func TestGoldenCutOffs(t *testing.T) {
	wide, err := scenario.Parse("wide.yaml", []byte(wideYAML))
	if err != nil {
		t.Fatal(err)
	}
	mm1 := builtin(t, "mm1")
	mm1.Operators[0].ServiceTime.Mean *= 100 // overloaded without flow control
	stopped := Job{Label: "mm1", Scenario: mm1, Start: func(obs sim.Observer) (*sim.Sim, error) {
		return sim.New(mm1, sim.Options{Observer: obs, MaxQueued: 500})
	}}
	for _, tc := range []struct {
		name string
		job  Job
		w, h int
		keys []string
		to   des.Time
	}{
		{"wide_10s_80x24", testJob(wide), 80, 24, []string{"down", "down", "right", "right", "right", "right", "right", "right"}, 10 * des.Second},
		{"wide_10s_100x30", testJob(wide), 100, 30, []string{"down", "down", "down", "down"}, 10 * des.Second},
		{"stopped_80x24", stopped, 80, 24, []string{"down"}, 60 * des.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := jobFrame(t, tc.job, tc.w, tc.h, tc.keys, tc.to)
			golden.RequireEqual(t, got)
		})
	}
}

// TestNoColor checks that NO_COLOR removes every colour from what the
// program writes, and only then.
func TestNoColor(t *testing.T) {
	colour := func(out []byte) bool {
		s := string(out)
		return strings.Contains(s, "[38;") || strings.Contains(s, "[48;") || strings.Contains(s, ";38;") || strings.Contains(s, ";48;")
	}
	env := []string{"TERM=xterm-256color", "COLORTERM=truecolor", "TTY_FORCE=1"}
	recovery, err := scenario.Parse("recovery.yaml", []byte(recoveryYAML))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sc   *scenario.Scenario
		to   des.Time
		want []string // written without colours
	}{
		{builtin(t, "backpressure"), 30 * des.Second, []string{"HIGH"}},
		{recovery, 58 * des.Second, []string{"RESTARTING", "DOWN", "✓", "✗"}},
	} {
		_, out := frame(t, tc.sc, 100, 30, nil, tc.to, tea.WithEnvironment(env))
		if !colour(out) {
			t.Fatalf("%s: no colour on a true-colour terminal: the check below proves nothing", tc.sc.Name)
		}
		_, out = frame(t, tc.sc, 100, 30, nil, tc.to, tea.WithEnvironment(append(env, "NO_COLOR=1")))
		if colour(out) {
			t.Errorf("%s: colours with NO_COLOR=1:\n%q", tc.sc.Name, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: %q is not written without colours", tc.sc.Name, w)
			}
		}
	}
}

// TestReadmeFrame checks that the README's samples of the live view are
// the golden frames they say they are: the back-pressure example, and any
// other frame the README names (viz/tui/testdata/.../NAME.golden).
func TestReadmeFrame(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip("no README:", err)
	}
	const prefix = "viz/tui/"
	frames := []string{"testdata/TestGolden/parse_30s_100x30.golden"}
	for _, m := range regexp.MustCompile(`viz/tui/testdata/[A-Za-z]+/[A-Za-z0-9_-]+\.golden`).FindAllString(string(readme), -1) {
		if p := strings.TrimPrefix(m, prefix); !slices.Contains(frames, p) {
			frames = append(frames, p)
		}
	}
	for _, name := range frames {
		frame, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("README.md names %s%s: %v", prefix, name, err)
			continue
		}
		if !strings.Contains(string(readme), "```\n"+string(frame)+"```\n") {
			t.Errorf("README.md, section \"Live view: dspalab watch\": the sample is not %s%s; copy it there", prefix, name)
		}
	}
}
