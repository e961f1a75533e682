package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// fakeController records the commands the model sends.
type fakeController struct {
	sent []command
	ch   chan *Snapshot
}

func (f *fakeController) send(c command)              { f.sent = append(f.sent, c) }
func (f *fakeController) snapshots() <-chan *Snapshot { return f.ch }

// fakeModel is a model of the hot-key job (3 vertices, count with
// parallelism 4) on a fake controller.
func fakeModel(t *testing.T) (model, *fakeController) {
	t.Helper()
	ctl := &fakeController{ch: make(chan *Snapshot, 1)}
	return newModel(testJob(builtin(t, "hot-key")), ctl), ctl
}

func update(t *testing.T, m model, msg tea.Msg) (model, tea.Cmd) {
	t.Helper()
	next, cmd := m.Update(msg)
	return next.(model), cmd
}

// TestKeysSendCommands checks every key that acts on the simulation: each
// sends one command to the engine and nothing else.
func TestKeysSendCommands(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want command
	}{
		{[]string{"space", "p"}, command{kind: cmdTogglePause}},
		{[]string{"s"}, command{kind: cmdStep}},
		{[]string{"+", "="}, command{kind: cmdFaster}},
		{[]string{"-", "_"}, command{kind: cmdSlower}},
		{[]string{"r"}, command{kind: cmdRestart}},
		{[]string{"c"}, command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}}},
		{[]string{"f"}, command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure, Vertex: "clicks"}}},
		{[]string{"F"}, command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure, Vertex: "clicks", Worker: true}}},
	} {
		for _, k := range tc.keys {
			m, ctl := fakeModel(t)
			m, cmd := update(t, m, press(k))
			if cmd != nil {
				t.Errorf("key %q returned a command", k)
			}
			if len(ctl.sent) != 1 || ctl.sent[0] != tc.want {
				t.Errorf("key %q sent %+v, want %+v", k, ctl.sent, tc.want)
			}
			if m.showHelp || m.sel != 0 || m.sub != 0 {
				t.Errorf("key %q changed the view's state", k)
			}
		}
	}
}

// TestKeysSelect checks the keys that select a vertex and a subtask, and
// that f and F act on the selection.
func TestKeysSelect(t *testing.T) {
	m, ctl := fakeModel(t)
	type pos struct{ sel, sub int }
	steps := []struct {
		key  string
		want pos
	}{
		{"down", pos{1, 0}}, // count, p4
		{"right", pos{1, 1}},
		{"l", pos{1, 2}},
		{"right", pos{1, 3}},
		{"right", pos{1, 0}}, // wraps around, as ↑/↓ do
		{"left", pos{1, 3}},
		{"left", pos{1, 2}},
		{"h", pos{1, 1}},
		{"left", pos{1, 0}},
		{"tab", pos{2, 0}},
		{"j", pos{0, 0}}, // wraps around
		{"up", pos{2, 0}},
		{"k", pos{1, 0}},
		{"shift+tab", pos{0, 0}},
		{"down", pos{1, 0}},
		{"right", pos{1, 1}},
		{"down", pos{2, 0}}, // a new vertex starts at subtask 0
	}
	for _, s := range steps {
		m, _ = update(t, m, press(s.key))
		if got := (pos{m.sel, m.sub}); got != s.want {
			t.Fatalf("after %q: selection %+v, want %+v", s.key, got, s.want)
		}
	}
	if len(ctl.sent) != 0 {
		t.Errorf("selecting sent %+v", ctl.sent)
	}
	m, _ = update(t, m, press("up"))
	m, _ = update(t, m, press("right"))
	m, _ = update(t, m, press("right"))
	m, _ = update(t, m, press("f"))
	m, _ = update(t, m, press("F"))
	want := []sim.Action{
		{Kind: sim.ActionFailure, Vertex: "count", Subtask: 2},
		{Kind: sim.ActionFailure, Vertex: "count", Subtask: 2, Worker: true},
	}
	if len(ctl.sent) != 2 || ctl.sent[0].action != want[0] || ctl.sent[1].action != want[1] {
		t.Errorf("f and F on count[2] sent %+v, want %+v", ctl.sent, want)
	}
	if !strings.Contains(ansi.Strip(m.render()), "› count") {
		t.Errorf("the selected vertex is not marked:\n%s", ansi.Strip(m.render()))
	}
}

// TestKeysHelpAndQuit checks ?, esc, q and ctrl+c, and that other keys do
// nothing.
func TestKeysHelpAndQuit(t *testing.T) {
	m, ctl := fakeModel(t)
	m, _ = update(t, m, press("?"))
	if !m.showHelp || !strings.Contains(ansi.Strip(m.render()), "Reading the view") {
		t.Fatal("? did not open the help")
	}
	m, _ = update(t, m, press("?"))
	if m.showHelp {
		t.Fatal("? did not close the help")
	}
	m, _ = update(t, m, press("?"))
	m, _ = update(t, m, press("esc"))
	if m.showHelp {
		t.Fatal("esc did not close the help")
	}
	// while the help is open, only ?, esc, q and ctrl+c act
	m, _ = update(t, m, press("?"))
	for _, k := range []string{"space", "s", "+", "-", "r", "f", "F", "c", "down", "right", "tab"} {
		m2, cmd := update(t, m, press(k))
		if cmd != nil || !m2.showHelp || m2.sel != 0 || m2.sub != 0 {
			t.Errorf("key %q acted while the help was open", k)
		}
	}
	if len(ctl.sent) != 0 {
		t.Errorf("keys under the help sent %+v", ctl.sent)
	}
	// q quits; ctrl+c quits as an interrupt; with the help open or not
	for _, help := range []bool{false, true} {
		m.showHelp = help
		for _, k := range []string{"q", "ctrl+c"} {
			m2, cmd := update(t, m, press(k))
			if cmd == nil {
				t.Fatalf("%s returned no command", k)
			}
			if _, ok := cmd().(tea.QuitMsg); !ok {
				t.Errorf("%s did not quit", k)
			}
			if m2.interrupted != (k == "ctrl+c") {
				t.Errorf("%s: interrupted %v", k, m2.interrupted)
			}
		}
	}
	m.showHelp = false
	for _, k := range []string{"x", "enter", "1"} {
		m2, cmd := update(t, m, press(k))
		if cmd != nil || m2.sel != m.sel || m2.showHelp != m.showHelp {
			t.Errorf("key %q did something", k)
		}
	}
	if len(ctl.sent) != 0 {
		t.Errorf("help and quit sent %+v", ctl.sent)
	}
}

// TestMessages checks resizes, snapshots and the test mode's advance.
func TestMessages(t *testing.T) {
	m, ctl := fakeModel(t)
	m, _ = update(t, m, tea.WindowSizeMsg{Width: 81, Height: 25})
	if m.width != 81 || m.height != 25 {
		t.Errorf("size %dx%d after a resize to 81x25", m.width, m.height)
	}
	s := &Snapshot{Now: 3 * des.Second, Duration: 120 * des.Second}
	m, cmd := update(t, m, snapshotMsg{s})
	if m.snap != s || cmd == nil {
		t.Errorf("a snapshot: stored %v, next wait %v", m.snap == s, cmd != nil)
	}
	m, _ = update(t, m, advanceMsg{to: 7 * des.Second})
	if len(ctl.sent) != 1 || ctl.sent[0] != (command{kind: cmdAdvance, to: 7 * des.Second}) {
		t.Errorf("advance sent %+v", ctl.sent)
	}
	// the pending wait hands over the next snapshot, then the end
	ctl.ch <- s
	if msg, ok := cmd().(snapshotMsg); !ok || msg.s != s {
		t.Errorf("wait returned %#v", msg)
	}
	close(ctl.ch)
	if _, ok := cmd().(engineDoneMsg); !ok {
		t.Error("wait on a closed engine did not say so")
	}
	if _, cmd := update(t, m, engineDoneMsg{}); cmd == nil {
		t.Error("the end of the engine did not quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("the end of the engine did not quit")
	}
}

// TestRenderFitsEverySize checks that the view fills the terminal exactly,
// without a line wider than it, from tiny sizes up to large ones, with and
// without a snapshot, with the help open or not.
func TestRenderFitsEverySize(t *testing.T) {
	recovery, err := scenario.Parse("recovery.yaml", []byte(recoveryYAML))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		job Job
		to  des.Time
	}{
		{testJob(builtin(t, "hot-key")), 30 * des.Second},
		{testJob(recovery), 50 * des.Second}, // a worker down
		{testJob(recovery), 62 * des.Second}, // restarting
	} {
		e := manualEngine(t, tc.job)
		e.send(command{kind: cmdAdvance, to: tc.to})
		snap := next(t, e, at(tc.to))
		for _, withSnap := range []bool{false, true} {
			for _, help := range []bool{false, true} {
				if tc.job.Label != "hot-key" && (!withSnap || help) {
					continue // as hot-key's
				}
				for w := 10; w <= 200; w += 7 {
					for h := 3; h <= 60; h += 5 {
						m := newModel(tc.job, e)
						m.width, m.height, m.showHelp, m.sel = w, h, help, 1
						if withSnap {
							m.snap = snap
						}
						lines := strings.Split(m.render(), "\n")
						if len(lines) != h {
							t.Fatalf("%s at %s, %dx%d: %d lines", tc.job.Label, tc.to, w, h, len(lines))
						}
						for i, l := range lines {
							if ansi.StringWidth(l) > w {
								t.Fatalf("%s at %s, %dx%d: line %d is %d wide: %q", tc.job.Label, tc.to, w, h, i, ansi.StringWidth(l), ansi.Strip(l))
							}
						}
					}
				}
			}
		}
	}
}

func TestSparkline(t *testing.T) {
	nan := func() float64 { var z float64; return z / z }()
	for _, tc := range []struct {
		in   []float64
		w    int
		peak bool
		want string
	}{
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 8, false, "▁▂▃▄▅▆▇█"},
		{[]float64{nan, nan, 1, 1}, 4, false, "  ██"},
		{[]float64{0, 0, 0}, 3, false, "▁▁▁"},
		{[]float64{1, 3, 2, 8}, 2, false, "▄█"},
		{[]float64{1, 8, 2, 2}, 2, true, "█▃"},
	} {
		if got := sparkline(tc.in, tc.w, tc.peak); got != tc.want {
			t.Errorf("sparkline(%v, %d, %v) = %q, want %q", tc.in, tc.w, tc.peak, got, tc.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	for x, want := range map[float64]string{0: "0.0/s", 9.04: "9.0/s", 250: "250/s", 1234: "1234/s", 12345: "12.3k/s", 2.5e6: "2.5M/s"} {
		if got := rateText(x); got != want {
			t.Errorf("rateText(%v) = %q, want %q", x, got, want)
		}
	}
	for ms, want := range map[float64]string{25: "25ms", 9810: "9.81s", 0.5: "500µs", 503.863: "504ms",
		28000: "28s", 24449: "24.4s", 999.7: "1s", 0.0123: "12.3µs", 2e6: "33m20s"} {
		if got := msText(ms); got != want {
			t.Errorf("msText(%v) = %q, want %q", ms, got, want)
		}
	}
	for s, want := range map[float64]string{0.1: "0.1×", 1: "1×", 1000: "1000×", 0: "max"} {
		if got := speedText(&Snapshot{Speed: s}); got != want {
			t.Errorf("speedText(%v) = %q, want %q", s, got, want)
		}
	}
	if got := speedText(&Snapshot{WallSpeed: 12345, State: Running}); got != "max ≈ 12.3k×" {
		t.Errorf("speedText at max = %q", got)
	}
	for s, want := range map[float64]string{3: "3×", 2.5: "2.5×", 0.25: "0.25×", 123.456: "123×", 1.23456: "1.23×"} {
		if got := speedText(&Snapshot{Speed: s}); got != want {
			t.Errorf("speedText(%v) = %q, want %q", s, got, want)
		}
	}
	// any speed from 0.1 to 1000 is kept; + and - go on from the steps
	// around it
	for _, tc := range []struct{ s, clamped, faster, slower float64 }{
		{0.1, 0.1, 0.2, 0.1},
		{0.12, 0.12, 0.2, 0.1},
		{1, 1, 2, 0.5},
		{3, 3, 5, 2},
		{7, 7, 10, 5},
		{1000, 1000, 0, 500},
		{0.01, 0.1, 0.2, 0.1},
		{5000, 0, 0, 1000},
		{0, 0, 0, 1000},
	} {
		if got := clampSpeed(tc.s); got != tc.clamped {
			t.Errorf("clampSpeed(%v) = %v, want %v", tc.s, got, tc.clamped)
		}
		if got := fasterSpeed(tc.clamped); got != tc.faster {
			t.Errorf("fasterSpeed(%v) = %v, want %v", tc.clamped, got, tc.faster)
		}
		if got := slowerSpeed(tc.clamped); got != tc.slower {
			t.Errorf("slowerSpeed(%v) = %v, want %v", tc.clamped, got, tc.slower)
		}
	}
}

// TestManySubtasks checks that the subtask pane scrolls to the selected
// subtask of a wide vertex, and the graph to the selected vertex of a long
// job, at 80x24 (chaining: false, so that b..g are nine rows, not one
// chain: TestChainIsOneRow has the chain).
func TestManySubtasks(t *testing.T) {
	yaml := `name: wide
duration: 10s
chaining: false
workers: {count: 16, slots: 4}
sources:
  - name: src
    arrival: {process: constant, rate: 1000/s}
operators:
  - {name: a, input: src, parallelism: 60, service_time: {mean: 1ms}}
  - {name: b, input: a, parallelism: 2, service_time: {mean: 1us}}
  - {name: c, input: b, parallelism: 2, service_time: {mean: 1us}}
  - {name: d, input: c, parallelism: 2, service_time: {mean: 1us}}
  - {name: e, input: d, parallelism: 2, service_time: {mean: 1us}}
  - {name: f, input: e, parallelism: 2, service_time: {mean: 1us}}
  - {name: g, input: f, parallelism: 2, service_time: {mean: 1us}}
sinks:
  - {name: out, input: g}
`
	sc, err := scenario.Parse("wide.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	job := testJob(sc)
	e := manualEngine(t, job)
	e.send(command{kind: cmdAdvance, to: 3 * des.Second})
	m := newModel(job, e)
	m.width, m.height = 80, 24
	m.snap = next(t, e, at(3*des.Second))
	m, _ = update(t, m, press("down"))
	for range 41 {
		m, _ = update(t, m, press("right"))
	}
	view := ansi.Strip(m.render())
	if !strings.Contains(view, "› #41  w10") || !strings.Contains(view, "SUBTASKS of a (p60) 41–44 of 60") {
		t.Errorf("subtask 41 of a is not shown:\n%s", view)
	}
	// scrolling never leaves an edge without its vertex at the top
	for range 7 {
		m, _ = update(t, m, press("down"))
		lines := strings.Split(ansi.Strip(m.render()), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "  VERTEX") && strings.HasPrefix(lines[i+1], "   ↓ ") && !strings.Contains(lines[i+1], "more") {
				t.Errorf("an edge without its vertex at the top of the graph:\n%s", strings.Join(lines, "\n"))
			}
		}
	}
	view = ansi.Strip(m.render())
	if !strings.Contains(view, "› out ") || !strings.Contains(view, "JOB GRAPH") || !strings.Contains(view, "   ↑ 4 more") {
		t.Errorf("the last vertex is not shown:\n%s", view)
	}
}

// TestGraphKeepsStatus checks that a long vertex name never pushes the
// status out of its row, and that busy and back-pressured time are shown
// with the buffers' column labelled, at every width from 40 cells.
func TestGraphKeepsStatus(t *testing.T) {
	sc, err := scenario.Parse("wide.yaml", []byte(wideYAML))
	if err != nil {
		t.Fatal(err)
	}
	job := testJob(sc)
	e := manualEngine(t, job)
	e.send(command{kind: cmdAdvance, to: 3 * des.Second})
	snap := next(t, e, at(3*des.Second))
	for w := 40; w <= 160; w++ {
		m := newModel(job, e)
		m.width, m.height, m.snap = w, 40, snap
		view := ansi.Strip(m.render())
		if w >= 80 && (!strings.Contains(view, "BUSY") || !strings.Contains(view, "BACKPR.") || !strings.Contains(view, "BUFFERS")) {
			t.Errorf("%d wide: no BUSY, BACKPR. or BUFFERS column:\n%s", w, view)
		}
		rows := 0
		for _, gl := range m.graphBody(w, m.graphLayout(w)) {
			l := ansi.Strip(gl.text)
			if gl.edge {
				continue
			}
			rows++
			if !strings.HasSuffix(l, "OK") && !strings.HasSuffix(l, "LOW") && !strings.HasSuffix(l, "HIGH") {
				t.Errorf("%d wide: the status is cut: %q", w, l)
			}
			if lipgloss.Width(l) > w {
				t.Errorf("%d wide: %q is too wide", w, l)
			}
			if !strings.Contains(view, l) {
				t.Errorf("%d wide: %q is not shown", w, l)
			}
		}
		if rows != len(m.g.tasks) {
			t.Errorf("%d wide: %d task rows, want %d", w, rows, len(m.g.tasks))
		}
	}
}

// TestHeaderStaysPut checks that the header's fields keep their places as
// simulated time passes (and the bar stays), whatever the time's width.
func TestHeaderStaysPut(t *testing.T) {
	m, _ := fakeModel(t)
	for _, w := range []int{80, 100} {
		m.width = w
		var want int
		for i, now := range []des.Time{0, 123 * des.Microsecond, 5500 * des.Millisecond, 99999 * des.Millisecond, 120 * des.Second} {
			m.snap = &Snapshot{Now: now, Duration: 120 * des.Second, Speed: 1}
			line := ansi.Strip(m.header(w)[0])
			at := strings.Index(line, "/ 120s")
			if i == 0 {
				want = at
			}
			if at != want || lipgloss.Width(line) != w {
				t.Errorf("%d wide, at %s: %q (\"/ 120s\" at %d, want %d)", w, now, line, at, want)
			}
			if !strings.Contains(line, "░░░░") && !strings.Contains(line, "████") {
				t.Errorf("%d wide, at %s: no progress bar: %q", w, now, line)
			}
		}
	}
}

// TestEventWording checks the wording of the event log and the lag: no
// "sim: " prefix, "1 record".
func TestEventWording(t *testing.T) {
	m, _ := fakeModel(t)
	m.width, m.height = 100, 30
	m.snap = &Snapshot{Duration: 120 * des.Second, Vertices: make([]VertexState, 3),
		Events: []LogLine{{Type: LogError, Message: `failure of nope[0]: sim: no vertex "nope"`}}}
	m.snap.Vertices[0].SourceLag = 1
	view := ansi.Strip(m.render())
	if strings.Contains(view, "sim: ") || !strings.Contains(view, `failure of nope[0]: no vertex "nope"`) {
		t.Errorf("the event log shows the sim: prefix:\n%s", view)
	}
	if !strings.Contains(view, "SOURCE LAG  clicks 1 record ") {
		t.Errorf("the lag of one record:\n%s", view)
	}
}

// TestChainIsOneRow checks that an operator chain is one row of the job
// graph, as Flink's web UI draws it as one node: named "b -> c -> d",
// with its operators listed under it and the records per second each
// takes, the task's busy time, the output that leaves the task; the
// subtasks pane shows the task's subtasks; f fails the task through its
// head.
func TestChainIsOneRow(t *testing.T) {
	sc, err := scenario.Parse("chain.yaml", []byte(`name: chain
duration: 10s
sources:
  - {name: src, arrival: {process: constant, rate: 50/s}}
operators:
  - {name: b, input: src, partitioning: rebalance, service_time: {distribution: constant, mean: 2ms}}
  - {name: c, input: b, selectivity: 2, service_time: {distribution: constant, mean: 3ms}}
  - {name: d, input: c, service_time: {distribution: constant, mean: 4ms}}
sinks:
  - {name: out, input: d, partitioning: rebalance}
`))
	if err != nil {
		t.Fatal(err)
	}
	job := testJob(sc)
	e := manualEngine(t, job)
	e.send(command{kind: cmdAdvance, to: 5 * des.Second})
	ctl := &fakeController{ch: make(chan *Snapshot, 1)}
	m := newModel(job, ctl)
	m.width, m.height, m.instant = 100, 30, true
	m.snap = next(t, e, at(5*des.Second))
	m, _ = update(t, m, press("down"))
	var rows, ops []string
	for _, gl := range m.graphBody(m.width, m.graphLayout(m.width)) {
		l := ansi.Strip(gl.text)
		switch {
		case strings.Contains(l, "operators:"):
			ops = append(ops, strings.TrimSpace(l))
		case !gl.edge:
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	// the chain takes 50/s and writes 100/s out of the task (c doubles
	// them); its thread is busy 50 x 2ms + 50 x 3ms + 100 x 4ms = 65%
	want := []string{
		"src source p1 - 50.0/s 0% 0% lag 1 OK",
		"› b -> c -> d operator p1 50.0/s 100/s 65% 0% ░░░░░░░░░░ 0% OK",
		"out sink p1 100/s - 0% 0% ░░░░░░░░░░ 0% OK",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("graph rows:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if want := "operators: b 50.0/s → c 50.0/s → d 100/s"; len(ops) != 1 || ops[0] != want {
		t.Errorf("operators %q, want one line %q", ops, want)
	}
	view := ansi.Strip(m.render())
	if !strings.Contains(view, "SUBTASKS of b -> c -> d (p1)") || !strings.Contains(view, " 65% busy   0% bp  35% idle  OK    buf   0%  in  50.0/s  out   100/s") {
		t.Errorf("the chain's subtasks are not the task's:\n%s", view)
	}
	m, _ = update(t, m, press("f"))
	if want := (command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure, Vertex: "b"}}); len(ctl.sent) != 1 || ctl.sent[0] != want {
		t.Errorf("f on the chain sent %+v, want %+v", ctl.sent, want)
	}
}
