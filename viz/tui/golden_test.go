package tui

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

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
	e := manualEngine(t, job)
	m := newModel(job, e)
	m.quitWhen = func(s *Snapshot) bool { return s.Now >= to || s.State == Stopped }
	if len(opts) == 0 {
		opts = []tea.ProgramOption{tea.WithColorProfile(colorprofile.Ascii)}
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h), teatest.WithProgramOptions(opts...))
	for _, k := range keys {
		tm.Send(press(k))
	}
	tm.Send(advanceMsg{to})
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
	_, out := frame(t, builtin(t, "backpressure"), 100, 30, nil, 30*des.Second, tea.WithEnvironment(env))
	if !colour(out) {
		t.Fatal("no colour on a true-colour terminal: the check below proves nothing")
	}
	_, out = frame(t, builtin(t, "backpressure"), 100, 30, nil, 30*des.Second, tea.WithEnvironment(append(env, "NO_COLOR=1")))
	if colour(out) {
		t.Errorf("colours with NO_COLOR=1:\n%q", out)
	}
	if !strings.Contains(string(out), "HIGH") {
		t.Error("the statuses are not written without colours")
	}
}

// TestReadmeFrame checks that the README's sample of the live view is the
// golden frame it says it is.
func TestReadmeFrame(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip("no README:", err)
	}
	frame, err := os.ReadFile("testdata/TestGolden/parse_30s_100x30.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```\n"+string(frame)+"```\n") {
		t.Error("README.md, section \"Live view: dspalab watch\": the sample is not testdata/TestGolden/parse_30s_100x30.golden; copy it there")
	}
}
