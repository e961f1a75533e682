package tui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// idleYAML is the idle-source lesson: source clicks writes 200/s for the
// whole run, source quiet 20/s until 20s and nothing after; both, with
// bounded out-of-orderness watermarks, into a keyed tumbling window of
// 5s. quiet, read nothing and not idle, holds the window's watermark at
// about 20s; with idleness (idleYAML + idleness) it is marked idle and
// stops holding it back.
const idleYAML = `name: idle-source
description: quiet stops at 20s; without idleness it holds the window's watermark back.
duration: 60s
workers: {count: 1, slots: 4}
sources:
  - name: clicks
    parallelism: 2
    arrival: {process: poisson, rate: 200/s}
    keys: {count: 100}
    event_delay: {distribution: exponential, mean: 100ms}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 200ms%s}
  - name: quiet
    arrival: {process: schedule, schedule: [{at: 0s, rate: 20/s}, {at: 20s, rate: 0/s}]}
    keys: {count: 100}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 200ms%s}
operators:
  - {name: count, inputs: [clicks, quiet], partitioning: hash, parallelism: 2, service_time: {mean: 1ms}, window: {kind: tumbling, size: 5s}}
sinks:
  - {name: out, input: count}
`

// bpYAML is the back-pressure lesson: a source of 1000/s into a keyed
// tumbling window of 1s that serves 900/s: the source is back-pressured,
// and the watermarks queue behind the records in the buffers, so the
// window's watermark trails its source's and fires late.
const bpYAML = `name: watermark-backpressure
description: A window that serves 900/s behind a source of 1000/s.
duration: 60s
warmup: 10s
workers: {count: 2, slots: 2}
sources:
  - name: sensors
    arrival: {process: constant, rate: 1000/s}
    keys: {count: 100}
    event_delay: {distribution: exponential, mean: 100ms}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 200ms}
operators:
  - {name: parse, input: sensors, service_time: {mean: 100us}, chain: false}
  - {name: win, input: parse, partitioning: hash, service_time: {mean: 1111us}, window: {kind: tumbling, size: 1s}}
sinks:
  - {name: out, input: win}
`

// TestGoldenWatermarks compares frames of jobs with event time with
// testdata/TestGoldenWatermarks/*.golden: the idle source holding the
// window's watermark at 19.8s (quiet read nothing for 20s), the same with
// idleness (quiet IDLE, the window's watermark clicks'), the pane scrolled
// to the selected window at 80x24, the back-pressured window whose
// watermarks queue in the buffers, and the help that names the pane.
func TestGoldenWatermarks(t *testing.T) {
	parse := func(name, yaml string) *scenario.Scenario {
		sc, err := scenario.Parse(name, []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	stalled := parse("idle.yaml", fmt.Sprintf(idleYAML, "", ""))
	idleness := parse("idle.yaml", fmt.Sprintf(idleYAML, ", idleness: 2s", ", idleness: 2s"))
	bp := parse("bp.yaml", bpYAML)
	for _, tc := range []struct {
		name string
		sc   *scenario.Scenario
		w, h int
		keys []string
		to   des.Time
	}{
		{"idle_stalled_40s_100x30", stalled, 100, 30, nil, 40 * des.Second},
		{"idle_idleness_40s_100x30", idleness, 100, 30, nil, 40 * des.Second},
		{"idle_count_40s_80x24", stalled, 80, 24, []string{"down", "down"}, 40 * des.Second},
		{"backpressure_30s_100x30", bp, 100, 30, []string{"down", "down"}, 30 * des.Second},
		{"help_30s_100x30", bp, 100, 30, []string{"?"}, 30 * des.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := frame(t, tc.sc, tc.w, tc.h, tc.keys, tc.to)
			golden.RequireEqual(t, got)
		})
	}
	// the built-in lesson: eu goes quiet at 30s and holds the count's
	// watermark there (a change of the scenario changes the frame: look
	// at the new one, then go test -update)
	t.Run("builtin_idle-source_60s_100x30", func(t *testing.T) {
		if _, err := scenarios.Get("idle-source"); err != nil {
			t.Skip("no built-in scenario idle-source")
		}
		got, _ := frame(t, builtin(t, "idle-source"), 100, 30, []string{"down", "down"}, 60*des.Second)
		golden.RequireEqual(t, got)
	})
}

// TestHeldBackText checks what the pane says holds a watermark back, on
// snapshots made by hand: the holding channel and how many more are at
// the minimum, a quiet source upstream, watermarks queued in the
// buffers only from queuedAfter on, the idle inputs once each, a source's
// idle subtasks, and nothing yet.
func TestHeldBackText(t *testing.T) {
	sc, err := scenario.Parse("idle.yaml", []byte(fmt.Sprintf(idleYAML, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(testJob(sc), nil)
	m.st = styles{} // no colours: the words
	now := 40 * des.Second
	src := func(out, last des.Time, idle bool) sim.SubtaskWatermarks {
		return sim.SubtaskWatermarks{Input: out, Output: out, LastRecord: last, Idle: idle}
	}
	ch := func(from string, sub int, wm des.Time, idle, holding bool) sim.InputWatermark {
		return sim.InputWatermark{From: from, Subtask: sub, Watermark: wm, Idle: idle, Holding: holding}
	}
	op := func(in des.Time, chans ...sim.InputWatermark) sim.SubtaskWatermarks {
		return sim.SubtaskWatermarks{Input: in, Output: in, LastRecord: -1, Inputs: chans}
	}
	for _, tc := range []struct {
		name   string
		clicks []sim.SubtaskWatermarks
		quiet  sim.SubtaskWatermarks
		count  []sim.SubtaskWatermarks
		vertex string
		want   string
	}{
		{"quiet source holds", []sim.SubtaskWatermarks{src(39*des.Second, now, false), src(39*des.Second, now, false)}, src(20*des.Second, 20*des.Second, false),
			[]sim.SubtaskWatermarks{op(20*des.Second, ch("clicks", 0, 39*des.Second, false, false), ch("quiet", 0, 20*des.Second, false, true))},
			"count", "quiet[0] · read nothing for 20s"},
		{"queued in the buffers", []sim.SubtaskWatermarks{src(39*des.Second, now, false), src(39*des.Second, now, false)}, src(39*des.Second, now, false),
			[]sim.SubtaskWatermarks{op(37*des.Second, ch("clicks", 0, 37*des.Second, false, true), ch("clicks", 1, 37*des.Second, false, true), ch("quiet", 0, 38*des.Second, false, false))},
			"count", "clicks[0] +1 more · 2s more queued in the buffers"},
		{"on its way", []sim.SubtaskWatermarks{src(39*des.Second, now, false), src(39*des.Second, now, false)}, src(39*des.Second, now, false),
			[]sim.SubtaskWatermarks{op(38*des.Second+des.Millisecond, ch("clicks", 0, 38*des.Second+des.Millisecond, false, true))},
			"count", "clicks[0]"},
		{"idle inputs once", []sim.SubtaskWatermarks{src(39*des.Second, now, false), src(39*des.Second, now, false)}, src(20*des.Second, 20*des.Second, true),
			[]sim.SubtaskWatermarks{op(39*des.Second, ch("clicks", 0, 39*des.Second, false, true), ch("quiet", 0, 20*des.Second, true, false)),
				op(39*des.Second, ch("clicks", 1, 39*des.Second, false, true), ch("quiet", 0, 20*des.Second, true, false))},
			"count", "clicks[0] · idle: quiet[0]"},
		{"source subtasks", []sim.SubtaskWatermarks{src(39*des.Second, now, false), src(30*des.Second, 30*des.Second, false)}, src(39*des.Second, now, true),
			nil, "clicks", "clicks[1] · read nothing for 10s"},
		{"idle source", nil, src(20*des.Second, 20*des.Second, true), nil, "quiet", "IDLE (holds nothing back)"},
		{"strategy", nil, src(39*des.Second, now, false), nil, "quiet", "bounded_out_of_orderness 200ms, every 200ms"},
		{"nothing yet", nil, src(sim.NoWatermark, -1, false),
			[]sim.SubtaskWatermarks{op(sim.NoWatermark, ch("quiet", 0, sim.NoWatermark, false, false))}, "count", "no watermark yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := &Snapshot{Now: now, Watermarks: []sim.VertexWatermarks{
				{Vertex: "clicks", Kind: sim.KindSource, Subtasks: tc.clicks},
				{Vertex: "quiet", Kind: sim.KindSource, Subtasks: []sim.SubtaskWatermarks{tc.quiet}},
				{Vertex: "count", Kind: sim.KindOperator, Subtasks: tc.count, Windowed: true},
			}}
			m.snap = snap
			for _, vw := range snap.Watermarks {
				if vw.Vertex == tc.vertex {
					if got := m.heldBackText(vw, 80); got != tc.want {
						t.Errorf("got %q, want %q", got, tc.want)
					}
				}
			}
		})
	}
}
