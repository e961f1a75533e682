package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// TestSmoothedValues checks that the graph and the subtasks show rates and
// times averaged over the last SmoothWindow, weighted by interval, with
// the status of the averaged back-pressured time and the vertex's times
// the most of its subtasks' averages; i shows the last sample.
func TestSmoothedValues(t *testing.T) {
	m, _ := fakeModel(t) // hot-key: clicks p1, count p4, out p1
	c := newCollector(m.g)
	row := func(v, kind string, sub int, in, busy, bp float64) sim.Row {
		return sim.Row{Vertex: v, Kind: kind, Subtask: sub, InRate: in, Busy: busy, Backpressured: bp, Idle: 1000 - busy - bp,
			Status: sim.Status(bp / 1000), SourceLag: int64(in)}
	}
	sample := func(at des.Time, hot float64) {
		rows := []sim.Row{row("clicks", sim.KindSource, 0, 0, 0, 1000), row("clicks", sim.KindSource, -1, 0, 0, 1000)}
		for i := range 4 {
			busy := 1000 - hot // the cold subtasks: all busy or all idle
			if i == 2 {
				busy = 1000
			}
			rows = append(rows, row("count", sim.KindOperator, i, busy, busy, 0))
		}
		rows = append(rows, row("count", sim.KindOperator, -1, 0, 1000, 0), row("out", sim.KindSink, 0, 0, 0, 0), row("out", sim.KindSink, -1, 0, 0, 0))
		c.Sample(&sim.Sample{Time: at, Interval: des.Second, Rows: rows})
	}
	// 12 samples, cold subtasks busy in 3 of every 4 seconds (the last
	// one busy): the last 10 s hold 7 busy seconds (3..12 minus 4, 8, 12
	// idle... counted below), the last sample says 100%
	busy := 0
	for s := 1; s <= 12; s++ {
		hot := 0.0
		if s%4 == 1 {
			hot = 1000 // idle second
		}
		if s > 2 && hot == 0 {
			busy++
		}
		sample(des.Time(s)*des.Second, hot)
	}
	snap := c.snapshot(sim.DeliverySummary{}, sim.RecoverySummary{})
	if snap.Smoothed != 10*des.Second {
		t.Fatalf("smoothed over %v, want 10s", snap.Smoothed)
	}
	want := float64(busy) * 100 // ms/s over 10 s
	if got := snap.Vertices[1].Subtasks[0].Busy; got != want {
		t.Errorf("count[0] averaged busy %v ms/s, want %v", got, want)
	}
	if got := snap.Vertices[1].Subtasks[0].InRate; got != want {
		t.Errorf("count[0] averaged in rate %v/s, want %v", got, want)
	}
	if got := snap.Instant[1].Subtasks[0].Busy; got != 1000 {
		t.Errorf("count[0] last busy %v ms/s, want 1000", got)
	}
	if got := snap.Vertices[1].Busy; got != 1000 {
		t.Errorf("count's averaged busy %v, want 1000 (count[2], the most)", got)
	}
	if snap.Vertices[0].Status != sim.StatusHigh || snap.Vertices[0].SourceLag != 0 {
		t.Errorf("clicks %s lag %d, want HIGH, the last lag", snap.Vertices[0].Status, snap.Vertices[0].SourceLag)
	}

	m.width, m.height = 120, 40
	m.snap = snap
	m.sel = 1
	view := ansi.Strip(m.render())
	if !strings.Contains(view, "10s average (i: last sample)") || !strings.Contains(view, fmt.Sprintf("%3.0f%% busy", want/10)) {
		t.Errorf("the view does not show the 10s averages (%.0f%% busy):\n%s", want/10, view)
	}
	m, _ = update(t, m, press("i"))
	view = ansi.Strip(m.render())
	if !strings.Contains(view, "last sample (i: 10s average)") || strings.Count(view, "100% busy") != 4 {
		t.Errorf("i does not show the last sample (every subtask 100%% busy):\n%s", view)
	}
}

// TestHelpKeepsFlagsWhole checks that the help box never breaks a flag
// or a name at its hyphen (ansi.Wrap does: "dspalab run --" / "replay").
func TestHelpKeepsFlagsWhole(t *testing.T) {
	m, _ := fakeModel(t)
	m.showHelp = true
	m.snap = &Snapshot{Duration: 120 * des.Second}
	for w := 60; w <= 120; w++ {
		m.width, m.height = w, 60
		view := ansi.Strip(m.render())
		if !strings.Contains(view, "--replay") || !strings.Contains(view, "heartbeat_timeout") {
			t.Errorf("%d wide: a flag is broken:\n%s", w, view)
		}
		for _, l := range strings.Split(view, "\n") {
			if strings.HasSuffix(strings.TrimRight(strings.Trim(l, "│ "), " "), "-") {
				t.Errorf("%d wide: a line ends in a hyphen: %q", w, l)
			}
		}
	}
	if got := wrapWords("use dspalab run --replay FILE", 18); got != "use dspalab run\n--replay FILE" {
		t.Errorf("wrapWords = %q", got)
	}
	if got := wrapWords("abcdefghij", 4); got != "abcd\nefgh\nij" {
		t.Errorf("wrapWords of a long word = %q", got)
	}
}

// TestPausedClock checks that the paused clock shows hundredths, so that a
// step from 15.96 s to the 16 s sample shows, and keeps its width.
func TestPausedClock(t *testing.T) {
	d := 120 * des.Second
	at := 15960 * des.Millisecond
	if got, want := clockText(at, d, true), " 15.96s"; got != want {
		t.Errorf("paused at 15.96s: %q, want %q", got, want)
	}
	if got, want := clockText(16*des.Second, d, true), " 16.00s"; got != want {
		t.Errorf("paused at 16s: %q, want %q", got, want)
	}
	if got, want := clockText(at, d, false), "  16.0s"; got != want {
		t.Errorf("running at 15.96s: %q, want %q", got, want)
	}
}

// TestEventLogScrolls checks that pgup and pgdn scroll the event log and
// that its title says which lines show.
func TestEventLogScrolls(t *testing.T) {
	m, _ := fakeModel(t)
	m.width, m.height = 100, 30
	m.snap = &Snapshot{Duration: 120 * des.Second, Vertices: make([]VertexState, 3)}
	for i := range 60 {
		m.snap.Events = append(m.snap.Events, LogLine{Time: des.Time(i) * des.Second, Type: sim.EventAction, Message: fmt.Sprintf("event number %d", i)})
	}
	view := ansi.Strip(m.render())
	if !strings.Contains(view, "event number 59") || strings.Contains(view, "event number 40 ") {
		t.Fatalf("the latest events do not show:\n%s", view)
	}
	m, _ = update(t, m, press("pgup"))
	view = ansi.Strip(m.render())
	if strings.Contains(view, "event number 59") || !strings.Contains(view, "event number 54") || !strings.Contains(view, "of 60 · pgup/pgdn scroll") {
		t.Errorf("pgup does not scroll back 5 lines:\n%s", view)
	}
	m, _ = update(t, m, press("pgdown"))
	if view = ansi.Strip(m.render()); !strings.Contains(view, "event number 59") {
		t.Errorf("pgdn does not scroll forward:\n%s", view)
	}
}

// TestRoomIsUsed checks that a tall terminal shows the subtasks of the
// other parallel vertices (count's, while clicks is selected) and taller
// charts, instead of empty lines.
func TestRoomIsUsed(t *testing.T) {
	m, _ := fakeModel(t)
	m.width, m.height = 160, 50
	m.snap = &Snapshot{Duration: 120 * des.Second, Vertices: make([]VertexState, 3),
		Throughput: []float64{1, 2, 3}, P99: []float64{1, 2, 3}}
	view := ansi.Strip(m.render())
	if !strings.Contains(view, "SUBTASKS of count (p4)  (↑/↓ selects it)") {
		t.Errorf("count's subtasks do not show while clicks is selected:\n%s", view)
	}
	empty := 0
	for _, l := range strings.Split(view, "\n") {
		if strings.TrimSpace(l) == "" {
			empty++
		}
	}
	// 50 lines: header 2, graph 7, subtasks 2 + 5, charts 2×4 + 2, the
	// events' title 1 (no event yet), footer 1; the rest is empty
	if empty != 50-2-7-7-10-1-1 {
		t.Errorf("%d empty lines at 160×50:\n%s", empty, view)
	}
}

// TestRefusedActionSaysNotRecorded checks the event log's line for an
// action the simulator refuses: nothing was applied or recorded (it is in
// neither events.jsonl nor actions.jsonl).
func TestRefusedActionSaysNotRecorded(t *testing.T) {
	e := manualEngine(t, testJob(builtin(t, "hot-key")))
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}})
	s := next(t, e, func(s *Snapshot) bool { return len(s.Events) > 1 })
	last := s.Events[len(s.Events)-1]
	if last.Type != LogError || !strings.HasPrefix(last.Message, "checkpoint refused (nothing applied or recorded): ") {
		t.Errorf("refused c: %s %q", last.Type, last.Message)
	}
}

// TestSmoothedKeepsDown checks that a subtask down in the last sample is
// DOWN in the averages too, with its down time averaged.
func TestSmoothedKeepsDown(t *testing.T) {
	m, _ := fakeModel(t)
	c := newCollector(m.g)
	for s := 1; s <= 2; s++ {
		st, down := sim.StatusOK, 0.0
		if s == 2 {
			st, down = sim.StatusDown, 1000
		}
		rows := []sim.Row{{Vertex: "clicks", Kind: sim.KindSource, Subtask: 0, Status: st, Down: down},
			{Vertex: "clicks", Kind: sim.KindSource, Subtask: -1, Status: st, Down: down}}
		c.Sample(&sim.Sample{Time: des.Time(s) * des.Second, Interval: des.Second, Rows: rows})
	}
	snap := c.snapshot(sim.DeliverySummary{}, sim.RecoverySummary{})
	v := snap.Vertices[0]
	if v.Status != sim.StatusDown || v.Subtasks[0].Status != sim.StatusDown || v.Subtasks[0].Down != 500 || v.Down != 500 {
		t.Errorf("averaged: vertex %s down %v, subtask %s down %v; want DOWN, 500 ms/s", v.Status, v.Down, v.Subtasks[0].Status, v.Subtasks[0].Down)
	}
}

// TestSmoothedSinceSays checks that the JOB GRAPH title says what a
// shorter average covers: since the start of the run, or since the job's
// failover or restart (where the averages begin again), never "2s
// average" beside the help's "averages over the last 10s".
func TestSmoothedSinceSays(t *testing.T) {
	m, _ := fakeModel(t)
	m.width, m.height = 120, 40
	c := newCollector(m.g)
	sample := func(s int) {
		rows := []sim.Row{{Vertex: "clicks", Kind: sim.KindSource, Subtask: 0, Status: sim.StatusOK},
			{Vertex: "clicks", Kind: sim.KindSource, Subtask: -1, Status: sim.StatusOK}}
		c.Sample(&sim.Sample{Time: des.Time(s) * des.Second, Interval: des.Second, Rows: rows})
	}
	title := func() string {
		m.snap = c.snapshot(sim.DeliverySummary{}, sim.RecoverySummary{})
		view := ansi.Strip(m.render())
		for _, line := range strings.Split(view, "\n") {
			if strings.HasPrefix(line, "JOB GRAPH") {
				return line
			}
		}
		t.Fatalf("no JOB GRAPH line:\n%s", view)
		return ""
	}
	for s := 1; s <= 4; s++ {
		sample(s)
	}
	if got := title(); !strings.Contains(got, "JOB GRAPH  average since the start, 4s (i: last sample)") {
		t.Errorf("at 4s: %q", got)
	}
	for s := 5; s <= 20; s++ {
		sample(s)
	}
	if got := title(); !strings.Contains(got, "JOB GRAPH  10s average (i: last sample)") {
		t.Errorf("at 20s: %q", got)
	}
	c.Event(sim.Event{Time: 20 * des.Second, Type: sim.EventFailureDetected, Message: "worker 1 lost"})
	sample(21)
	if got := title(); !strings.Contains(got, "JOB GRAPH  average since the failover, 1s (i: last sample)") {
		t.Errorf("after the failover: %q", got)
	}
	c.Event(sim.Event{Time: 22 * des.Second, Type: sim.EventRecoveryCompleted, Message: "recovered"})
	sample(22)
	sample(23)
	if got := title(); !strings.Contains(got, "JOB GRAPH  average since the restart, 2s (i: last sample)") {
		t.Errorf("after the restart: %q", got)
	}
	for s := 24; s <= 40; s++ {
		sample(s)
	}
	if got := title(); !strings.Contains(got, "JOB GRAPH  10s average (i: last sample)") {
		t.Errorf("10s after the restart: %q", got)
	}
}
