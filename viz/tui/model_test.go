package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
		{"right", pos{1, 3}}, // the last subtask stays selected
		{"left", pos{1, 2}},
		{"h", pos{1, 1}},
		{"left", pos{1, 0}},
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
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := update(t, m, press(k))
		if cmd == nil {
			t.Fatalf("%s returned no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s did not quit", k)
		}
	}
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
	job := testJob(builtin(t, "hot-key"))
	e := manualEngine(t, job)
	e.send(command{kind: cmdAdvance, to: 30 * des.Second})
	snap := next(t, e, at(30*des.Second))
	for _, withSnap := range []bool{false, true} {
		for _, help := range []bool{false, true} {
			for w := 10; w <= 200; w += 7 {
				for h := 3; h <= 60; h += 5 {
					m := newModel(job, e)
					m.width, m.height, m.showHelp, m.sel = w, h, help, 1
					if withSnap {
						m.snap = snap
					}
					lines := strings.Split(m.render(), "\n")
					if len(lines) != h {
						t.Fatalf("%dx%d: %d lines", w, h, len(lines))
					}
					for i, l := range lines {
						if ansi.StringWidth(l) > w {
							t.Fatalf("%dx%d: line %d is %d wide: %q", w, h, i, ansi.StringWidth(l), ansi.Strip(l))
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
	for ms, want := range map[float64]string{25: "25ms", 9810: "9.81s", 0.5: "500µs"} {
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
	for s, want := range map[float64]int{0.1: 0, 0.12: 0, 3: 4, 7: 5, 1000: 12, 5000: 13, 0: 13} {
		if got := speedIndex(s); got != want {
			t.Errorf("speedIndex(%v) = %d, want %d", s, got, want)
		}
	}
}

// TestManySubtasks checks that the subtask pane scrolls to the selected
// subtask of a wide vertex, and the graph to the selected vertex of a long
// job, at 80x24.
func TestManySubtasks(t *testing.T) {
	yaml := `name: wide
duration: 10s
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
	if !strings.Contains(view, "› #41 w10") || !strings.Contains(view, "SUBTASKS of a (p60)") {
		t.Errorf("subtask 41 of a is not shown:\n%s", view)
	}
	for range 7 {
		m, _ = update(t, m, press("down"))
	}
	view = ansi.Strip(m.render())
	if !strings.Contains(view, "› out ") || !strings.Contains(view, "JOB GRAPH") {
		t.Errorf("the last vertex is not shown:\n%s", view)
	}
}
