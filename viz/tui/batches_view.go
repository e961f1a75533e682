package tui

import (
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// batchController is what batchModel needs of its engine.
type batchController interface {
	send(command)
	batchSnapshots() <-chan *BatchSnapshot
}

// batchSnapshotMsg hands the batch model the engine's latest snapshot.
type batchSnapshotMsg struct{ s *BatchSnapshot }

// batchModel is the live view of a micro-batch job: the batch timeline
// (queued, running, done), the PID rate against the input rate, Spark's
// active and completed batches, and the event log. Like model, it never
// touches the simulation.
type batchModel struct {
	ctl                   batchController
	label, desc, engine   string
	seed                  uint64
	backpressure, structd bool
	keys                  keyMap
	help                  help.Model
	st                    styles
	width, height         int
	snap                  *BatchSnapshot
	vertices              []microbatch.VertexTasks // the job's, the same on every restart
	sel, sub              int                      // the vertex and subtask f and F fail
	showHelp, interrupted bool
	quitWhen              func(*BatchSnapshot) bool // tests: quit at the first snapshot it accepts
}

func newBatchModel(job BatchJob, ctl batchController, vertices []microbatch.VertexTasks) batchModel {
	sc := job.Scenario
	return batchModel{ctl: ctl, label: job.Label, desc: sc.Description, engine: string(sc.Engine), seed: sc.Seed, vertices: vertices,
		backpressure: sc.Spark.Backpressure && sc.Engine == scenario.EngineSparkStreaming,
		structd:      sc.Engine == scenario.EngineStructuredStreaming,
		keys:         newKeyMap(), help: help.New(), st: newStyles(), width: defaultWidth, height: defaultHeight}
}

// Init waits for the first snapshot.
func (m batchModel) Init() tea.Cmd { return m.wait() }

func (m batchModel) wait() tea.Cmd {
	ch := m.ctl.batchSnapshots()
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return engineDoneMsg{}
		}
		return batchSnapshotMsg{s}
	}
}

// Update handles keys, snapshots and resizes: the keys of the Flink view
// (tab and the arrows select the subtask that f fails, F its executor;
// c is refused: Spark checkpoints by its interval).
func (m batchModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case batchSnapshotMsg:
		m.snap = msg.s
		if m.quitWhen != nil && m.quitWhen(msg.s) {
			return m, tea.Quit
		}
		return m, m.wait()
	case engineDoneMsg:
		return m, tea.Quit
	case advanceMsg:
		m.ctl.send(command{kind: cmdAdvance, to: msg.to})
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Interrupt):
			m.interrupted = true
			return m, tea.Quit
		case key.Matches(msg, k.Quit):
			return m, tea.Quit
		case key.Matches(msg, k.Help):
			m.showHelp = !m.showHelp
		case key.Matches(msg, k.Close):
			m.showHelp = false
		case m.showHelp:
		case key.Matches(msg, k.Pause):
			m.ctl.send(command{kind: cmdTogglePause})
		case key.Matches(msg, k.Step):
			m.ctl.send(command{kind: cmdStep})
		case key.Matches(msg, k.Faster):
			m.ctl.send(command{kind: cmdFaster})
		case key.Matches(msg, k.Slower):
			m.ctl.send(command{kind: cmdSlower})
		case key.Matches(msg, k.Restart):
			m.ctl.send(command{kind: cmdRestart})
		case len(m.vertices) == 0:
		case key.Matches(msg, k.Next):
			m.sel, m.sub = (m.sel+1)%len(m.vertices), 0
		case key.Matches(msg, k.Prev):
			m.sel, m.sub = (m.sel+len(m.vertices)-1)%len(m.vertices), 0
		case key.Matches(msg, k.Left):
			n := max(m.vertices[m.sel].Subtasks, 1)
			m.sub = (m.sub + n - 1) % n
		case key.Matches(msg, k.Right):
			m.sub = (m.sub + 1) % max(m.vertices[m.sel].Subtasks, 1)
		case key.Matches(msg, k.Fail), key.Matches(msg, k.FailWorker):
			m.ctl.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure,
				Vertex: m.vertices[m.sel].Vertex, Subtask: m.sub, Worker: key.Matches(msg, k.FailWorker)}})
		case key.Matches(msg, k.Ckpt):
			m.ctl.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}})
		}
	}
	return m, nil
}

// selected names the subtask f fails: "work[1]".
func (m batchModel) selected() string {
	if m.sel >= len(m.vertices) {
		return ""
	}
	return fmt.Sprintf("%s[%d]", m.vertices[m.sel].Vertex, m.sub)
}

// View draws the live view on the alternate screen.
func (m batchModel) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "dspalab watch " + m.label
	return v
}

// render draws exactly height lines, none wider than width.
func (m batchModel) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		w, h = defaultWidth, defaultHeight
	}
	lines := m.header(w)
	bodyH := max(h-len(lines)-1, 0)
	if m.showHelp {
		lines = append(lines, m.helpBody(w, bodyH)...)
	} else if m.snap != nil {
		lines = append(lines, m.body(w, bodyH)...)
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	foot := m.st.faint.Render("? or esc closes the help · q quits · ctrl+c interrupts")
	if !m.showHelp {
		hm := m.help
		hm.SetWidth(w)
		k := m.keys
		speed := k.Faster
		speed.SetHelp("+/-", "speed")
		fail := k.Fail
		fail.SetHelp("f/F", "fail "+m.selected())
		sel := k.Next
		sel.SetHelp("tab/←→", "select")
		pause, step, restart := k.Pause, k.Step, k.Restart
		pause.SetHelp("space", "pause")
		step.SetHelp("s", "step")
		restart.SetHelp("r", "restart")
		foot = hm.ShortHelpView([]key.Binding{pause, step, speed, sel, fail, restart, k.Help, k.Quit})
	}
	lines = append(lines[:min(len(lines), h-1)], foot)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines[:min(len(lines), h)], "\n")
}

// header is the title line (scenario, state, speed, simulated time) and
// the description, or why the run stopped.
func (m batchModel) header(w int) []string {
	st := m.st
	left := st.title.Render("dspalab watch") + " · " + st.bold.Render(m.label) + st.faint.Render(fmt.Sprintf(" · %s · seed %d", m.engine, m.seed))
	s := m.snap
	if s == nil {
		return []string{left, st.faint.Render("starting…")}
	}
	icon := map[RunState]string{Running: "▶", Paused: "‖", Finished: "■", Stopped: "✗"}[s.State]
	spd := "max"
	if s.Speed > 0 {
		spd = sig3(s.Speed) + "×"
	}
	right := fmt.Sprintf("%s  %s / %s ", padLeft(fmt.Sprintf("%s %s · %s", icon, s.State, spd), 14),
		clockText(s.Now, s.Duration, s.State == Paused), sim.FormatTime(s.Duration))
	frac := 0.0
	if s.Duration > 0 {
		frac = min(max(float64(s.Now)/float64(s.Duration), 0), 1)
	}
	pct := fmt.Sprintf(" %3.0f%%", 100*frac)
	barW := min(20, max(w-lipgloss.Width(left)-lipgloss.Width(right)-len(pct)-2, 5))
	right += bar(colorTitle, barW).ViewAs(frac) + pct
	left = ansi.Truncate(left, max(w-lipgloss.Width(right)-1, 0), "…")
	line1 := left + strings.Repeat(" ", max(w-lipgloss.Width(left)-lipgloss.Width(right), 1)) + right
	switch {
	case s.Err != "":
		return []string{line1, st.err.Render(ansi.Truncate("stopped at "+sim.FormatTime(s.Now)+": "+stripSim(s.Err), w, "…"))}
	case s.Notice != "":
		return []string{line1, st.err.Render(ansi.Truncate(s.Notice, w, "…"))}
	case s.State == Finished:
		return []string{line1, st.bold.Render("finished: r restarts, q quits and prints the summary")}
	case len(s.Rows) > 0 && jobStatusText[s.Rows[len(s.Rows)-1].Status] != "":
		return []string{line1, st.err.Render(ansi.Truncate(jobStatusText[s.Rows[len(s.Rows)-1].Status], w, "…"))}
	case s.Gen > 0:
		return []string{line1, st.faint.Render(fmt.Sprintf("run %d, started again with r · %s", s.Gen+1, m.desc))}
	}
	return []string{line1, st.faint.Render(m.desc)}
}

// jobStatusText says what the last metrics sample's job status
// (microbatch.TimeseriesRow.Status) means, for those that stop batches.
var jobStatusText = map[string]string{
	microbatch.StatusDown:       "the driver is down: no batch runs until it restarts from the checkpoint (the events say when)",
	microbatch.StatusLost:       "the job is lost: the driver failed without checkpoint: true, nothing reads the sources any more",
	microbatch.StatusFailed:     "the job failed: a task failed spark.task.maxFailures times, the application stopped",
	microbatch.StatusTerminated: "the available-now query has read what it found at its start and terminated",
}

// labelW is the width of the labels before the timeline's rows.
const labelW = 16

// Glyphs of the batch timeline: one cell per batch, oldest on the left.
const (
	glyphOnTime  = "█" // done, its job started at its batch time
	glyphWaited  = "▓" // done after waiting for its job (scheduling delay > 0)
	glyphRunning = "▶" // its job runs
	glyphQueued  = "░" // cut, waiting for its job
)

// body lays out the panes: the batch timeline, the rates, the active
// batches, then the completed batches and the events with what is left.
func (m batchModel) body(w, h int) []string {
	var lines []string
	lines = append(lines, m.timelinePanel(w)...)
	lines = append(lines, m.ratePanel(w)...)
	lines = append(lines, m.activePanel(w)...)
	rest := h - len(lines)
	evH := min(max(rest/3, 3), 6)
	lines = append(lines, m.completedPanel(w, rest-evH)...)
	lines = append(lines, m.eventPanel(w, h-len(lines))...)
	return lines[:min(len(lines), h)]
}

// timelinePanel is BATCHES: the counts, a cell per batch (done, running,
// queued) and the scheduling and total delay of the batches done.
func (m batchModel) timelinePanel(w int) []string {
	s, st := m.snap, m.st
	what := "batch interval " + sim.FormatTime(s.Interval)
	if m.structd {
		what = "trigger interval " + sim.FormatTime(s.Interval)
		if s.Interval == 0 {
			what = "trigger: as fast as possible"
		}
	}
	running := "none running"
	if r := s.Running; r != nil {
		running = fmt.Sprintf("running batch %s (%s of %s)", sim.FormatTime(r.Time), sim.FormatTime(s.Now-r.Start), sim.FormatTime(r.Processing))
	}
	title := st.title.Render("BATCHES") + fmt.Sprintf("  %s · %d done · %d queued · %s", what, s.Completed, len(s.Queued), running)
	cells := max(w-labelW-10, 10)
	var glyphs []string
	for _, b := range s.Done {
		g := st.ok.Render(glyphOnTime)
		if b.SchedulingDelayMs > 0 {
			g = st.low.Render(glyphWaited)
		}
		glyphs = append(glyphs, g)
	}
	if s.Running != nil {
		glyphs = append(glyphs, st.busy.Render(glyphRunning))
	}
	for range s.Queued {
		glyphs = append(glyphs, st.high.Render(glyphQueued))
	}
	glyphs = glyphs[max(len(glyphs)-cells, 0):]
	// the delays of the batches done, aligned with their cells
	nDone := max(len(glyphs)-len(s.Queued)-btoi(s.Running != nil), 0)
	done := s.Done[len(s.Done)-nDone:]
	sched, total := make([]float64, nDone), make([]float64, nDone)
	for i, b := range done {
		sched[i], total[i] = b.SchedulingDelayMs, b.TotalDelayMs
	}
	lastMs := func(xs []float64) string {
		if len(xs) == 0 {
			return "–"
		}
		return msText(xs[len(xs)-1])
	}
	return []string{
		title,
		padRight("  timeline", labelW) + strings.Join(glyphs, ""),
		padRight("  sched. delay", labelW) + padRight(sparkline(sched, nDone, true), nDone) + "  " + lastMs(sched),
		padRight("  total delay", labelW) + padRight(sparkline(total, nDone, true), nDone) + "  " + lastMs(total),
		st.faint.Render(fmt.Sprintf("  %s done  %s done after waiting  %s running  %s queued", glyphOnTime, glyphWaited, glyphRunning, glyphQueued)),
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ratePanel is RATES: the PID rate (the rate controller's latest rate,
// which caps the next batches) against the input rate, one cell per
// metrics sample, on one scale.
func (m batchModel) ratePanel(w int) []string {
	s, st := m.snap, m.st
	cells := max(w-30, 10)
	rows := s.Rows[max(len(s.Rows)-cells, 0):]
	in, pid := make([]float64, len(rows)), make([]float64, len(rows))
	for i, r := range rows {
		in[i], pid[i] = r.InputRate, math.NaN()
		if r.RateLimit > 0 {
			pid[i] = r.RateLimit
		}
	}
	lastIn := math.NaN()
	if len(in) > 0 {
		lastIn = in[len(in)-1]
	}
	title := st.title.Render("RATES") + "  records read per second"
	if !m.backpressure {
		title += st.faint.Render(" · no PID rate: spark.streaming.backpressure.enabled is off")
		return []string{title, padRight("  input rate", labelW) + padRight(sparkline(in, len(in), false), len(in)) + "  " + rateText(lastIn)}
	}
	title += " · PID rate: PIDRateEstimator's latest, the cap of the next batch"
	pidText := "–"
	if s.Rate > 0 {
		pidText = rateText(s.Rate)
	}
	// one scale for both: the PID rate against the input rate
	both := append(append([]float64{}, in...), pid...)
	line := []rune(sparkline(both, len(both), false))
	return []string{title,
		padRight("  input rate", labelW) + string(line[:len(in)]) + "  " + rateText(lastIn),
		padRight("  PID rate", labelW) + string(line[len(in):]) + "  " + pidText}
}

// activePanel is ACTIVE BATCHES, as Spark's streaming UI lists them: the
// running batch and the first queued ones.
func (m batchModel) activePanel(w int) []string {
	s, st := m.snap, m.st
	const most = 3
	lines := []string{st.title.Render("ACTIVE BATCHES") + "     " + st.faint.Render(fmt.Sprintf("%-12s %10s  %s", "BATCH TIME", "RECORDS", "STATUS"))}
	if r := s.Running; r != nil {
		lines = append(lines, fmt.Sprintf("  %-12s %10s  processing, %s of %s", sim.FormatTime(r.Time), countText(r.Records), sim.FormatTime(s.Now-r.Start), sim.FormatTime(r.Processing)))
	}
	for i, q := range s.Queued {
		if i == most {
			lines = append(lines, st.faint.Render(fmt.Sprintf("  … %d more queued", len(s.Queued)-most)))
			break
		}
		lines = append(lines, fmt.Sprintf("  %-12s %10s  queued %s", sim.FormatTime(q.Time), countText(q.Records), sim.FormatTime(s.Now-q.Time)))
	}
	if len(lines) == 1 {
		lines = append(lines, st.faint.Render("  none"))
	}
	return lines
}

// completedPanel is COMPLETED BATCHES, the latest first, with
// StreamingListener's figures, in h lines.
func (m batchModel) completedPanel(w, h int) []string {
	s, st := m.snap, m.st
	if h < 2 {
		return nil
	}
	lines := []string{st.title.Render("COMPLETED BATCHES") + "  " +
		st.faint.Render(fmt.Sprintf("%-12s %10s %12s %12s %12s", "BATCH TIME", "RECORDS", "SCHED. DELAY", "PROCESSING", "TOTAL DELAY"))}
	for i := len(s.Done) - 1; i >= 0 && len(lines) < h; i-- {
		b := s.Done[i]
		lines = append(lines, fmt.Sprintf("  %-12s %10s %12s %12s %12s", sim.FormatTime(des.FromSeconds(b.TimeS)), countText(b.Records),
			msText(b.SchedulingDelayMs), msText(b.ProcessingMs), msText(b.TotalDelayMs)))
	}
	return lines
}

// eventPanel is EVENTS: the latest of the run's events in h lines.
func (m batchModel) eventPanel(w, h int) []string {
	s, st := m.snap, m.st
	if h < 2 {
		return nil
	}
	lines := []string{st.title.Render("EVENTS")}
	evs := s.Events[max(len(s.Events)-(h-1), 0):]
	for _, e := range evs {
		lines = append(lines, "  "+st.faint.Render(padLeft(sim.FormatTime(e.Time), 7))+"  "+e.Message)
	}
	return lines
}

// helpBody is the help overlay: the keys and the panes.
func (m batchModel) helpBody(w, h int) []string {
	st := m.st
	boxW := min(w, 86)
	inner := boxW - 4
	if inner < 10 || h < 3 {
		return nil
	}
	hm := m.help
	hm.SetWidth(inner)
	k := m.keys
	text := strings.Join([]string{
		st.title.Render("Keys"),
		hm.FullHelpView([][]key.Binding{{k.Pause, k.Step, k.Faster, k.Slower}, {k.Next, k.Prev, k.Left, k.Right}, {k.Fail, k.FailWorker, k.Restart, k.Help, k.Quit, k.Interrupt}}),
		"",
		st.title.Render("Reading the view"),
		"BATCHES, the batch timeline: a cell per batch, oldest on the left: " + glyphOnTime + " done, " + glyphWaited +
			" done after waiting for its job, " + glyphRunning + " running, " + glyphQueued + " queued. Jobs run one at a time (spark.streaming.concurrentJobs = 1): when a batch's processing time passes the batch interval, the next batches queue and their scheduling delay grows. sched. delay and total delay: per batch done, as StreamingListener reports them.",
		"RATES: records read per second, per metrics interval; with back-pressure, the PID rate is PIDRateEstimator's latest rate (records/s over all partitions), which caps the next batch (maxRatePerPartition spreads it over the Kafka partitions).",
		"ACTIVE and COMPLETED BATCHES: as Spark's streaming UI lists them.",
		"f fails the selected task's attempt (tab and the arrows select a vertex and subtask): it runs again, the batch's processing time grows by its duration, and its spark.task.maxFailures-th failure aborts the job. F fails the executor that runs it. c is refused: Spark writes checkpoints every checkpoint interval. The actions are recorded (actions.jsonl with --out) for dspalab run --replay.",
	}, "\n")
	lines := strings.Split(wrapWords(text, inner), "\n")
	if len(lines) > h-2 {
		lines = append(lines[:h-3], st.faint.Render("(more: make the terminal taller)"))
	}
	box := st.box.Width(boxW).Render(strings.Join(lines, "\n"))
	return strings.Split(lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box), "\n")
}
