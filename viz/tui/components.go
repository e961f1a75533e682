package tui

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// render draws the whole screen: exactly height lines, none wider than
// width.
func (m model) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		w, h = defaultWidth, defaultHeight
	}
	var lines []string
	lines = append(lines, m.header(w)...)
	bodyH := max(h-len(lines)-1, 0)
	if m.showHelp {
		lines = append(lines, m.helpBody(w, bodyH)...)
	} else {
		lines = append(lines, m.body(w, bodyH)...)
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:min(len(lines), h-1)], m.footer(w))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines[:min(len(lines), h)], "\n")
}

// header is the title line (scenario, state, speed, simulated time) and
// the lines that say what is going on: the description, or why the run
// stopped (wrapped, on up to three lines).
func (m model) header(w int) []string {
	st := m.st
	left := st.title.Render("dspalab watch") + " · " + st.bold.Render(m.label) + st.faint.Render(fmt.Sprintf(" · seed %d", m.seed))
	s := m.snap
	if s == nil {
		return []string{left, st.faint.Render("starting…")}
	}
	icon := map[RunState]string{Running: "▶", Paused: "‖", Finished: "■", Stopped: "✗"}[s.State]
	// every field has a fixed width, so that nothing moves as time passes
	state := padLeft(fmt.Sprintf("%s %s · %s", icon, s.State, speedText(s)), 14)
	right := fmt.Sprintf("%s  %s / %s ", state, clockText(s.Now, s.Duration, s.State == Paused), sim.FormatTime(s.Duration))
	frac := 0.0
	if s.Duration > 0 {
		frac = min(max(float64(s.Now)/float64(s.Duration), 0), 1)
	}
	pct := fmt.Sprintf(" %3.0f%%", 100*frac)
	// the bar keeps 5 cells at least: the title gives way first
	barW := min(20, max(w-lipgloss.Width(left)-lipgloss.Width(right)-len(pct)-2, 5))
	right += bar(colorTitle, barW).ViewAs(frac) + pct
	left = ansi.Truncate(left, max(w-lipgloss.Width(right)-1, 0), "…")
	line1 := left + strings.Repeat(" ", max(w-lipgloss.Width(left)-lipgloss.Width(right), 1)) + right
	switch {
	case s.Err != "":
		// the whole reason, on three lines at most; the summary printed
		// after quitting has it all
		const hint, cut = " (q quits and prints the summary)", "… (see the summary after q)"
		text := "stopped at " + sim.FormatTime(s.Now) + ": " + stripSim(s.Err)
		wrapped := strings.Split(wrapWords(text+hint, max(w, 1)), "\n")
		if len(wrapped) > 3 {
			wrapped = strings.Split(wrapWords(text, max(w, 1)), "\n")
		}
		if len(wrapped) > 3 {
			wrapped = wrapped[:3]
			wrapped[2] = ansi.Truncate(ansi.Truncate(wrapped[2], max(w-lipgloss.Width(cut), 0), "")+cut, w, "")
		}
		lines := []string{line1}
		for _, l := range wrapped {
			lines = append(lines, st.err.Render(l))
		}
		return lines
	case s.State == Finished:
		return append(append([]string{line1}, m.jobBanner(s, w)...), st.bold.Render("finished: r restarts, q quits and prints the summary"))
	}
	if banner := m.jobBanner(s, w); len(banner) > 0 {
		return append([]string{line1}, banner...)
	}
	if s.Gen > 0 {
		return []string{line1, st.faint.Render(fmt.Sprintf("run %d, started again with r · %s", s.Gen+1, m.desc))}
	}
	return []string{line1, st.faint.Render(m.desc)}
}

// jobBanner says, on up to two lines, why the job is not running as it
// should: a worker down and not noticed yet, a failover in progress
// (RESTARTING), the job failed or lost for good; nothing when it runs.
func (m model) jobBanner(s *Snapshot, w int) []string {
	rec := s.Recovery
	var label, text string
	switch rec.JobState {
	case sim.JobRestarting:
		label = "RESTARTING"
		if n := len(rec.Failovers); n > 0 {
			fo := rec.Failovers[n-1]
			detected := des.FromSeconds(fo.DetectedS)
			text = " since " + sim.FormatTime(detected) + ": "
			switch {
			case fo.RestartS < 0:
				text += fo.Cause + " · restart at " + sim.FormatTime(detected+des.FromSeconds(fo.RestartWait/1000))
			case fo.Checkpoint > 0:
				text += fmt.Sprintf("restoring checkpoint %d (%s of state)", fo.Checkpoint, scenario.FormatByteSize(fo.RestoreBytes))
			default:
				text += "no checkpoint to restore: the sources start over"
			}
		}
	case sim.JobFailed:
		label, text = "JOB FAILED", " "+strings.TrimPrefix(rec.Message, "job failed for good ")
	case sim.JobLost:
		label, text = "JOB LOST", " "+strings.TrimPrefix(rec.Message, "job lost ")
	default:
		if len(s.DownWorkers) == 0 {
			return nil
		}
		ws := make([]string, len(s.DownWorkers))
		for i, d := range s.DownWorkers {
			ws[i] = strconv.Itoa(d.Worker)
		}
		label = "WORKER " + ws[0] + " DOWN"
		if len(ws) > 1 {
			label = "WORKERS " + strings.Join(ws, ", ") + " DOWN"
		}
		since := s.DownWorkers[0].Since
		text = fmt.Sprintf(" since %s; the JobManager notices at %s (heartbeat_timeout %s)",
			sim.FormatTime(since), sim.FormatTime(since+m.g.heartbeat), sim.FormatTime(m.g.heartbeat))
	}
	lines := strings.Split(wrapWords(label+text, max(w, 1)), "\n")
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = ansi.Truncate(lines[1], max(w-1, 0), "") + "…"
	}
	for i, l := range lines {
		if i == 0 && strings.HasPrefix(l, label) {
			lines[i] = m.st.high.Render(label) + m.st.err.Render(l[len(label):])
			continue
		}
		lines[i] = m.st.err.Render(l)
	}
	return lines
}

// wrapWords wraps each line of text wider than w cells at its spaces,
// never inside a word: a flag such as --replay or a name such as hot-key
// stays whole (ansi.Wrap breaks at hyphens). A word wider than w is cut
// into pieces of w cells. Lines that fit are left as they are, so that
// columns laid out with spaces keep their alignment.
func wrapWords(text string, w int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if ansi.StringWidth(line) <= w {
			out = append(out, line)
			continue
		}
		cur, curW := "", 0
		for _, word := range strings.Split(line, " ") {
			ww := ansi.StringWidth(word)
			switch {
			case curW == 0:
			case curW+1+ww <= w:
				cur, curW = cur+" "+word, curW+1+ww
				continue
			default:
				out = append(out, cur)
			}
			for ww > w {
				out = append(out, ansi.Truncate(word, w, ""))
				word = ansi.TruncateLeft(word, w, "")
				ww = ansi.StringWidth(word)
			}
			cur, curW = word, ww
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// padLeft pads s with spaces on the left to n cells.
func padLeft(s string, n int) string {
	return strings.Repeat(" ", max(n-lipgloss.Width(s), 0)) + s
}

// padRight pads s with spaces on the right to n cells.
func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(n-lipgloss.Width(s), 0))
}

// fit truncates s to n cells (with …) and pads it to n cells; right
// aligns it to the right.
func fit(s string, n int, right bool) string {
	s = ansi.Truncate(s, n, "…")
	if right {
		return padLeft(s, n)
	}
	return padRight(s, n)
}

// clockText is simulated time now in seconds with a fixed width, that of
// the run's duration to two decimals: "   5.0s" of 120s, so that the
// header does not move. Paused, it shows hundredths ("15.96s"), so that a
// step (s) from between two samples to the next one shows.
func clockText(now, duration des.Time, paused bool) string {
	prec := 1
	if duration >= 1000*des.Second {
		prec = 0
	}
	if paused {
		prec = 2
	}
	width := len(strconv.FormatFloat(duration.Seconds(), 'f', 2, 64)) + 1
	return padLeft(strconv.FormatFloat(now.Seconds(), 'f', prec, 64)+"s", width)
}

// speedText is the chosen speed, and as fast as possible the speed
// achieved: "1×", "0.1×", "3×", "max ≈  1.2k×".
func speedText(s *Snapshot) string {
	if s.Speed > 0 {
		return sig3(s.Speed) + "×"
	}
	if s.WallSpeed > 0 && s.State == Running {
		return "max ≈ " + padLeft(human(s.WallSpeed), 5) + "×"
	}
	return "max"
}

// stripSim removes the "sim: " prefixes of the simulator's errors, which
// say where an error comes from in the code, not what happened.
func stripSim(msg string) string {
	return strings.ReplaceAll(strings.TrimPrefix(msg, "sim: "), ": sim: ", ": ")
}

// bar returns a progress bubble of width w, filled in colour c.
func bar(c color.Color, w int) progress.Model {
	return progress.New(progress.WithWidth(w), progress.WithoutPercentage(),
		progress.WithFillCharacters('█', '░'), progress.WithColors(c))
}

// footer is the short key help; while the help is open, how to close it.
func (m model) footer(w int) string {
	if m.showHelp {
		return m.st.faint.Render("? or esc closes the help · q quits · ctrl+c interrupts")
	}
	h := m.help
	h.SetWidth(w)
	return h.ShortHelpView(m.keys.ShortHelp())
}

// Least heights of the panes of the body, titles included.
const (
	metricsH   = 4 // the charts and counters
	minEventsH = 3 // the title and two lines
	minSubRows = 4 // subtask rows (fewer when the vertex has fewer)
	maxSubRows = 8
	// maxChartRows is the most lines a chart of the metrics pane takes
	// when the terminal has room to spare
	maxChartRows = 4
)

// body lays out the panes in height h: the job graph, the subtasks of the
// selected vertex, the charts and counters, and the event log with what is
// left. The subtasks keep minSubRows rows; the graph scrolls. Room the
// event log does not need (it holds fewer lines) goes to more subtask
// rows, up to all of them, then to taller charts.
func (m model) body(w, h int) []string {
	v := m.g.tasks[m.sel]
	graphH := 2 + len(m.graphBody(w, m.graphLayout(w)))
	subH := 1 + v.parallelism
	take := func(want int) int {
		n := max(min(want, h), 0)
		h -= n
		return n
	}
	wmH := m.watermarkPaneHeight() // 0 without event time
	tpH := m.topicsPaneHeight()    // 0 without topics and shedding, or hidden
	gH := take(min(graphH, 3))
	sH := take(min(subH, 1+minSubRows))
	mH := take(metricsH)
	wH := take(min(wmH, 2+minWatermarkRows))
	tH := take(min(tpH, 3+minTopicRows))
	h -= minEventsH
	gH += take(graphH - gH)
	sH += take(min(subH, 1+maxSubRows) - sH)
	wH += take(wmH - wH)
	tH += take(tpH - tH)
	h += minEventsH
	// what the event log needs: its title and its lines (scrolled back:
	// a page more)
	events := 0
	if m.snap != nil {
		events = len(m.snap.Events)
	}
	need := max(1+events+m.logBack, minEventsH)
	if spare := h - need; spare > 0 {
		sH += take(min(subH-sH, spare))
	}
	// then the subtasks of the other parallel vertices, whole, as they
	// fit: skew shows at a glance whichever vertex is selected
	var others []string
	for i, ov := range m.g.tasks {
		if i == m.sel || ov.parallelism < 2 || 1+ov.parallelism > min(h-need, 1+maxSubRows) {
			continue
		}
		others = append(others, m.subtasksOf(w, take(1+ov.parallelism), i, -1)...)
	}
	rows := 1
	if spare := h - need; spare > 0 {
		rows = min(1+spare/2, maxChartRows)
		mH += take(2 * (rows - 1))
	}
	var out []string
	out = append(out, m.graphPanel(w, gH)...)
	out = append(out, m.subtaskPanel(w, sH)...)
	out = append(out, others...)
	out = append(out, m.watermarkPanel(w, wH)...)
	out = append(out, m.topicsPanel(w, tH)...)
	out = append(out, m.metricsLines(w, rows)[:mH]...)
	out = append(out, m.eventLines(w, h)...)
	return out
}

// vertexState returns the snapshot's state of vertex i (zero before the
// first snapshot).
func (m model) vertexState(i int) VertexState {
	if m.snap == nil || i >= len(m.snap.Vertices) {
		return VertexState{}
	}
	if m.instant && i < len(m.snap.Instant) {
		return m.snap.Instant[i]
	}
	return m.snap.Vertices[i]
}

// taskState returns the snapshot's state of task ti as one row (zero
// before the first snapshot): see taskRow.
func (m model) taskState(ti int) VertexState {
	if m.snap == nil {
		return VertexState{}
	}
	if m.instant {
		return m.g.tasks[ti].row(m.snap.Instant)
	}
	return m.g.tasks[ti].row(m.snap.Vertices)
}

// row returns the state of the task from the states of the vertices (in
// the graph's order): the head's row and subtasks (the simulator gives
// every vertex of a chain its task's busy, idle and back-pressured time,
// and the head has the task's input and buffers), with the task's kind
// and, as output rate, what its vertices write to edges that leave the
// task.
func (t taskInfo) row(states []VertexState) VertexState {
	if t.members[0] >= len(states) {
		return VertexState{}
	}
	st := states[t.members[0]]
	if !t.chained() {
		return st
	}
	st.Vertex, st.Kind = t.name, t.kind
	st.Subtasks = append([]sim.Row(nil), st.Subtasks...)
	st.OutRate = 0
	for i := range st.Subtasks {
		st.Subtasks[i].Kind, st.Subtasks[i].OutRate = t.kind, 0
	}
	for k, vi := range t.members {
		if !t.exits[k] || vi >= len(states) {
			continue
		}
		st.OutRate += states[vi].OutRate
		for i := range st.Subtasks {
			if i < len(states[vi].Subtasks) {
				st.Subtasks[i].OutRate += states[vi].Subtasks[i].OutRate
			}
		}
	}
	return st
}

// valuesText says which values the graph and the subtasks show: "10s
// average", or, shorter, what it averages since ("average since the
// restart, 2s"), or the last sample's.
func (m model) valuesText() string {
	if !m.instant && m.anyVertexDown() {
		return m.averageText() + " (DOWN*: not running now, averages; i: last sample)"
	}
	return m.averageText() + " (i: last sample)"
}

// averageText is what the values average over: "10s average", "average
// since the failover, 2s"; or "last sample (i: 10s average)".
func (m model) averageText() string {
	if m.instant {
		return "last sample (i: " + sim.FormatTime(SmoothWindow) + " average)"
	}
	if m.snap != nil && m.snap.Smoothed > 0 && m.snap.Smoothed < SmoothWindow && m.snap.SmoothedSince != "" {
		return "average since " + m.snap.SmoothedSince + ", " + sim.FormatTime(m.snap.Smoothed)
	}
	return sim.FormatTime(SmoothWindow) + " average"
}

// graphTitle is the title of the job graph; scrolled says that not every
// vertex fits.
func (m model) graphTitle(scrolled bool) string {
	sel := "↑/↓ select"
	if scrolled {
		sel = "↑/↓ select and scroll"
	}
	return m.st.title.Render("JOB GRAPH") + m.st.faint.Render("  "+m.valuesText()+" · "+sel+" · back-pressure: OK ≤ 10% < LOW ≤ 50% < HIGH")
}

// graphLayout holds the widths of the job graph's columns for a width;
// a width of 0 drops the column.
type graphLayout struct {
	name, kind, par, in, out, busy, bp, buf int
	bar                                     bool // the buffers column draws a bar
}

// Widths of the job graph's columns (the status column fits the longest
// status and its header).
const (
	statusW  = 6 // "STATUS"; the statuses are at most 4 wide (HIGH)
	barCells = 10
	colGap   = 2
)

// graphLayout fits the job graph's columns in w cells: it drops the least
// important ones first (the kind, the buffer bar, the parallelism, the
// rates, the buffers, busy and back-pressured time), never the status, and
// gives names what is left, truncating long ones.
func (m model) graphLayout(w int) graphLayout {
	longest := len("VERTEX")
	for _, v := range m.g.tasks {
		longest = max(longest, lipgloss.Width(v.name))
	}
	minName := min(longest, 8)
	l := graphLayout{kind: 8, par: 4, in: 8, out: 8, busy: 4, bp: 7, buf: barCells + 5, bar: true}
	width := func() int {
		n := 2 + statusW
		for _, c := range []int{l.kind, l.par, l.in, l.out, l.busy, l.bp, l.buf} {
			if c > 0 {
				n += c + colGap
			}
		}
		return n + colGap // after the name
	}
	drops := []func(){
		func() { l.kind = 0 },
		func() { l.buf, l.bar = 11, false },
		func() { l.par = 0 },
		func() { l.out = 0 },
		func() { l.in = 0 },
		func() { l.buf = 0 },
		func() { l.bp = 0 },
		func() { l.busy = 0 },
	}
	for _, drop := range drops {
		if width()+minName <= w {
			break
		}
		drop()
	}
	l.name = max(min(longest, w-width()), min(minName, 4))
	return l
}

// graphHeader is the job graph's column header.
func (m model) graphHeader(l graphLayout) string {
	cells := []string{"  " + fit("VERTEX", l.name, false)}
	add := func(width int, head string, right bool) {
		if width > 0 {
			cells = append(cells, fit(head, width, right))
		}
	}
	add(l.kind, "KIND", false)
	add(l.par, "P", true)
	add(l.in, "IN", true)
	add(l.out, "OUT", true)
	add(l.busy, "BUSY", true)
	add(l.bp, "BACKPR.", true)
	add(l.buf, "BUFFERS", false)
	cells = append(cells, "STATUS")
	return m.st.faint.Render(strings.Join(cells, strings.Repeat(" ", colGap)))
}

// graphLine is a line of the job graph below its header: a task (one
// vertex, or an operator chain), the edge into the task after it, or the
// operators of the chain above it.
type graphLine struct {
	text   string
	vertex int  // the task of the line (an index of graph.tasks), or of the line after an edge
	edge   bool // not a task's row: an edge line ("↓ hash") or a chain's operators
}

// graphBody draws the job graph in the order of the plan's tasks, one
// node per task as Flink's web UI draws a job: one line per task (an
// operator chain is one row, "enrich -> out", since one thread runs it:
// parallelism, the head's input, the output that leaves the task, busy and
// back-pressured time as the maximum over its subtasks, input-buffer
// occupancy of its fullest subtask or a source's lag, status) with its
// input edges above it and, for a chain, a line below listing its
// operators with the records per second each takes.
func (m model) graphBody(w int, l graphLayout) []graphLine {
	st := m.st
	var lines []graphLine
	for i, v := range m.g.tasks {
		if i > 0 && v.kind != sim.KindSource && len(v.inputs) > 0 {
			arrow := "   ↓ " + v.partitioning
			if len(v.inputs) != 1 || v.inputs[0] != m.g.tasks[i-1].name {
				arrow += " from " + strings.Join(v.inputs, ", ")
			}
			lines = append(lines, graphLine{text: st.faint.Render(ansi.Truncate(arrow, w, "…")), vertex: i, edge: true})
		}
		vs := m.taskState(i)
		marker := "  "
		name := fit(v.name, l.name, false)
		if i == m.sel {
			marker = "› "
			name = st.selected.Render(name)
		}
		in, out := rateText(vs.InRate), rateText(vs.OutRate)
		if v.kind == sim.KindSource {
			in = "-"
		}
		if v.kind == sim.KindSink || !v.leaves {
			out = "-"
		}
		busy, bp := pctText(vs.Busy/10), pctText(vs.Backpressured/10)
		status := vs.Status
		var buf string
		switch {
		case v.kind == sim.KindSource:
			buf = "lag " + countText(vs.SourceLag)
			if vs.Dropped > 0 {
				buf += " drop " + countText(int64(vs.Dropped))
			}
		case v.unbounded:
			buf = "queue " + countText(int64(vs.QueuedRecords))
		default:
			frac := 0.0 // of the fullest subtask, as a hot subtask is what matters
			for _, r := range vs.Subtasks {
				frac = max(frac, v.occupancy(r.Subtask, r.QueuedBuffers))
			}
			buf = pctText(100 * frac)
			if l.bar {
				buf = bar(statusColor(vs.Status), barCells).ViewAs(frac) + " " + buf
			}
		}
		if !vs.HaveTotal {
			in, out, busy, bp, status = "", "", "", "", ""
		}
		if m.vertexDown(v.vertexInfo) {
			status = statusDown
			if !m.instant && vs.HaveTotal {
				status += downAveraged // its figures: the average of before
			}
		}
		cells := []string{marker + name}
		add := func(width int, s string, right bool) {
			if width > 0 {
				cells = append(cells, fit(s, width, right))
			}
		}
		add(l.kind, v.kind, false)
		add(l.par, "p"+strconv.Itoa(v.parallelism), true)
		add(l.in, in, true)
		add(l.out, out, true)
		add(l.busy, busy, true)
		add(l.bp, bp, true)
		add(l.buf, buf, false)
		cells = append(cells, st.status(strings.TrimSuffix(status, downAveraged)).Render(status))
		lines = append(lines, graphLine{text: strings.Join(cells, strings.Repeat(" ", colGap)), vertex: i})
		if v.chained() {
			lines = append(lines, graphLine{text: st.faint.Render(ansi.Truncate(m.operatorsText(v), w, "…")), vertex: i, edge: true})
		}
	}
	return lines
}

// operatorsText lists the operators of chain t under its row, each with
// the records per second it takes (numRecordsInPerSecond of each
// operator, as Flink's web UI lists a chain's operators with their own
// record counts): "     operators: enrich 10.0/s → out 10.0/s".
func (m model) operatorsText(t taskInfo) string {
	parts := make([]string, len(t.members))
	for k, vi := range t.members {
		vs := m.vertexState(vi)
		parts[k] = m.g.vertices[vi].name
		switch {
		case !vs.HaveTotal:
		case m.g.vertices[vi].kind == sim.KindSource:
			parts[k] += " out " + rateText(vs.OutRate)
		default:
			parts[k] += " " + rateText(vs.InRate)
		}
	}
	return "     operators: " + strings.Join(parts, " → ")
}

// statusDown replaces the back-pressure status of a vertex with a subtask
// down, and of a subtask down.
const statusDown = "DOWN"

// downAveraged marks the status of a vertex down whose figures are
// averages (over the last SmoothWindow or since the failover): "DOWN*",
// which the job graph's title explains.
const downAveraged = "*"

// anyVertexDown says whether a vertex has a subtask down.
func (m model) anyVertexDown() bool {
	for _, v := range m.g.tasks {
		if m.vertexDown(v.vertexInfo) {
			return true
		}
	}
	return false
}

// vertexDown says whether a subtask of v is down.
func (m model) vertexDown(v vertexInfo) bool {
	s := m.snap
	if s == nil {
		return false
	}
	if s.JobDown() {
		return true
	}
	for _, d := range s.DownWorkers {
		for i := range v.parallelism { // where the plan places them
			if m.g.worker(i) == d.Worker {
				return true
			}
		}
	}
	return false
}

// graphPanel is the job graph in n lines at most: its title, its column
// header and the lines around the selected task, with "↑ 2 more" and
// "↓ 12 more" where vertices are out of sight.
func (m model) graphPanel(w, n int) []string {
	l := m.graphLayout(w)
	body := m.graphBody(w, l)
	k := n - 2 // lines for the body
	if k >= len(body) {
		all := append([]string{m.graphTitle(false), m.graphHeader(l)}, texts(body)...)
		return all[:min(max(n, 0), len(all))]
	}
	head := []string{m.graphTitle(true), m.graphHeader(l)}
	if k <= 0 {
		return head[:max(n, 0)]
	}
	selLine := 0
	for i, gl := range body {
		if !gl.edge && gl.vertex == m.sel {
			selLine = i
		}
	}
	if k < 3 { // the selected vertex, and below it an edge or a vertex
		return append(head, texts(body[selLine:min(selLine+k, len(body))])...)
	}
	first := min(max(selLine-(k-1)/2, 0), len(body)-k)
	end := first + k
	shown := texts(body[first:end])
	// out of sight: the vertices whose lines are hidden or replaced by a
	// "more" line
	more := func(lines []graphLine) int {
		c := 0
		for _, gl := range lines {
			if !gl.edge {
				c++
			}
		}
		return c
	}
	if first > 0 {
		shown[0] = m.st.faint.Render(fmt.Sprintf("   ↑ %d more", more(body[:first+1])))
	}
	if end < len(body) {
		shown[k-1] = m.st.faint.Render(fmt.Sprintf("   ↓ %d more", more(body[end-1:])))
	}
	return append(head, shown...)
}

// texts returns the texts of graph lines.
func texts(lines []graphLine) []string {
	out := make([]string, len(lines))
	for i, gl := range lines {
		out[i] = gl.text
	}
	return out
}

// downGlyph fills the down time of a subtask's bar.
const downGlyph = "×"

// pctText formats a percentage: "  7%", "100%".
func pctText(p float64) string { return fmt.Sprintf("%3.0f%%", p) }

func statusColor(s string) color.Color {
	switch s {
	case sim.StatusHigh:
		return colorHigh
	case sim.StatusLow:
		return colorLow
	}
	return colorOK
}

// subtaskPanel draws n lines at most: the title, with the rows shown
// ("1–4 of 64") when they are not all, and the selected task's subtasks
// around the selected one: a bar of busy, back-pressured and idle time per
// subtask, so that skew shows.
func (m model) subtaskPanel(w, n int) []string {
	return m.subtasksOf(w, n, m.sel, m.sub)
}

// subtasksOf is subtaskPanel for vertex vi, with subtask sub selected
// (-1: none, a vertex shown beside the selected one).
func (m model) subtasksOf(w, n, vi, sub int) []string {
	if n <= 0 {
		return nil
	}
	st := m.st
	v := m.g.tasks[vi]
	vs := m.taskState(vi)
	k := min(n-1, v.parallelism)
	first := min(max(sub-(k-1)/2, 0), v.parallelism-k)
	where := fmt.Sprintf(" (p%d)", v.parallelism)
	if k < v.parallelism {
		where += fmt.Sprintf(" %d–%d of %d", first+1, first+k, v.parallelism)
	}
	hint := "  ←/→ select · "
	if vi != m.sel {
		hint = "  (↑/↓ selects it) · "
	}
	title := st.title.Render("SUBTASKS of "+ansi.Truncate(v.name, 24, "…")) + st.faint.Render(where+hint) +
		st.busy.Render("█") + st.faint.Render(" busy ") + st.bp.Render("▒") + st.faint.Render(" back-pressured ") + st.idle.Render("░") + st.faint.Render(" idle")
	if m.anyVertexDown() {
		title += st.high.Render(" "+downGlyph) + st.faint.Render(" down")
	}
	lines := []string{title}
	idxW := len(strconv.Itoa(v.parallelism - 1))
	wkW := len(strconv.Itoa(m.g.worker(v.parallelism - 1)))
	for i := first; i < first+k; i++ {
		marker := "  "
		if i == sub {
			marker = "› "
		}
		id := fmt.Sprintf("%s#%-*d  w%-*d", marker, idxW, i, wkW, m.g.worker(i))
		if i >= len(vs.Subtasks) {
			lines = append(lines, st.faint.Render(id+"  no sample yet"))
			continue
		}
		r := vs.Subtasks[i]
		down := m.snap != nil && m.snap.Down(m.g.worker(i))
		if down && !m.instant {
			if now := v.row(m.snap.Instant); i < len(now.Subtasks) {
				r = now.Subtasks[i] // not running now: no average of before
			}
		}
		var extra string
		switch {
		case r.Kind == sim.KindSource:
			extra = fmt.Sprintf("out %7s  lag %s", rateText(r.OutRate), countText(r.SourceLag))
		case v.unbounded:
			extra = fmt.Sprintf("queue %-5s  in %7s", countText(int64(r.QueuedRecords)), rateText(r.InRate))
		default:
			extra = fmt.Sprintf("buf %s  in %7s", pctText(100*v.occupancy(r.Subtask, r.QueuedBuffers)), rateText(r.InRate))
		}
		if r.Kind == sim.KindOperator {
			extra += fmt.Sprintf("  out %7s", rateText(r.OutRate))
		}
		times := fmt.Sprintf("%s busy %s bp", pctText(r.Busy/10), pctText(r.Backpressured/10))
		idle := fmt.Sprintf(" %s idle", pctText(r.Idle/10))
		if down {
			idle = "      down" // as wide as " 100% idle": not running now
		}
		stText := r.Status
		if down {
			stText = statusDown
		}
		status := st.status(stText).Render(fmt.Sprintf("%-4s", stText))
		// the bar takes what is left, 10 cells at least: the idle
		// percentage (which the bar shows) gives way first, then the
		// worker
		fixed := func() int {
			return lipgloss.Width(id) + 1 + len(times) + lipgloss.Width(idle) + 2 + 4 + 2 + lipgloss.Width(extra) + 1
		}
		if w-fixed() < 10 {
			idle = ""
		}
		if w-fixed() < 8 {
			id = fmt.Sprintf("%s#%-*d", marker, idxW, i)
		}
		barW := min(max(w-fixed(), 6), 30)
		bar := m.timeBar(r, barW)
		if down { // not running now: the whole bar is down
			bar = st.high.Render(strings.Repeat(downGlyph, barW))
		}
		lines = append(lines, fmt.Sprintf("%s %s %s%s  %s  %s", id, bar, times, idle, status, extra))
	}
	return lines
}

// timeBar is a bar of w cells split into busy, back-pressured, down (×)
// and idle time.
func (m model) timeBar(r sim.Row, w int) string {
	nb := int(math.Round(r.Busy / 1000 * float64(w)))
	np := int(math.Round(r.Backpressured / 1000 * float64(w)))
	nd := int(math.Round(r.Down / 1000 * float64(w)))
	nb = min(max(nb, 0), w)
	np = min(max(np, 0), w-nb)
	nd = min(max(nd, 0), w-nb-np)
	ni := w - nb - np - nd
	return m.st.busy.Render(strings.Repeat("█", nb)) + m.st.bp.Render(strings.Repeat("▒", np)) +
		m.st.high.Render(strings.Repeat(downGlyph, nd)) + m.st.idle.Render(strings.Repeat("░", ni))
}

// metricsLines are 2 × rows + 2 lines in two columns: charts of
// throughput and p99 latency over the last minute, rows lines tall, and
// the sources' lag on the left; checkpoints and delivery counters on the
// right.
func (m model) metricsLines(w, rows int) []string {
	st := m.st
	leftW := w / 2
	if w >= 80 {
		leftW = min(leftW, w-42) // the right column keeps 41 cells
	}
	rightW := w - leftW - 1
	textW := max(leftW-1, 0) // a space before the separator
	s := m.snap
	if s == nil {
		s = &Snapshot{}
	}
	const labelW = 12
	const valueW = 8 // " 10.0/s", " 24.5s": values are padded to it
	sparkW := max(min(textW-labelW-valueW, HistoryBuckets), 4)
	rows = max(rows, 1)
	thr, p99 := make([]string, rows), make([]string, rows)
	if len(s.Throughput) > 0 {
		thr = sparklines(s.Throughput, sparkW, rows, false)
		p99 = sparklines(s.P99, sparkW, rows, true)
		thr[0] += padLeft(rateText(last(s.Throughput)), valueW)
		p99[0] += padLeft(msText(last(s.P99)), valueW)
	}
	chart := func(label string, lines []string, style lipgloss.Style) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			head := ""
			if i == 0 {
				head = label
			}
			out[i] = st.title.Render(fmt.Sprintf("%-*s", labelW, head)) + style.Render(l)
		}
		return out
	}
	left := append(chart("THROUGHPUT", thr, st.ok), chart("P99 LATENCY", p99, st.low)...)
	left = append(left,
		st.title.Render(fmt.Sprintf("%-*s", labelW, "SOURCE LAG"))+m.lagText(textW-labelW),
		st.faint.Render("charts: the last 60s, at the sinks"))
	right := append(m.checkpointLines(s, rightW), m.deliveryLines(s, rightW)...)
	out := make([]string, len(left))
	for len(right) < len(out) {
		right = append(right, "")
	}
	for i := range out {
		l := ansi.Truncate(left[i], textW, "…")
		out[i] = l + strings.Repeat(" ", max(leftW-lipgloss.Width(l), 0)) + st.faint.Render("│") + ansi.Truncate(right[i], rightW, "…")
	}
	return out
}

// lagText is the lag of every source in w cells: "sensors 2430 records",
// "a 1 · b 0 records"; the sources that do not fit are counted, "a 1
// record · +3 more", and no name is cut.
func (m model) lagText(w int) string {
	var items []string
	var lags []int64
	for i, v := range m.g.vertices {
		if v.kind == sim.KindSource {
			lag := m.vertexState(i).SourceLag
			lags = append(lags, lag)
			items = append(items, fmt.Sprintf("%s %s", v.name, countText(lag)))
		}
	}
	for n := len(items); n > 0; n-- {
		unit := " records"
		if n == 1 && lags[0] == 1 {
			unit = " record"
		}
		text := strings.Join(items[:n], " · ") + m.st.faint.Render(unit)
		if n < len(items) {
			text += fmt.Sprintf(" · +%d more", len(items)-n)
		}
		if lipgloss.Width(text) <= w || n == 1 {
			return text
		}
	}
	return ""
}

// checkpointLines are two lines: a timeline of the last minute, in which
// a checkpoint runs from its trigger (─) to its end (✓ completed, ✗ failed)
// or to now (◐ in progress), and the latest checkpoint that ended (its
// duration and alignment, or why it failed).
func (m model) checkpointLines(s *Snapshot, w int) []string {
	st := m.st
	title := st.title.Render("CHECKPOINTS ")
	if len(s.Checkpoints) == 0 {
		what := "none so far"
		if !m.g.checkpoints {
			what = "off in this scenario"
		}
		return []string{title + st.faint.Render(what), ""}
	}
	tw := max(w-12, 4)
	cells := make([]string, tw) // "" is an empty cell (·)
	from := s.Now - HistoryWindow
	cell := func(t des.Time) int {
		return min(max(int(float64(t-from)/float64(HistoryWindow)*float64(tw)), 0), tw-1)
	}
	var lastEnded *CheckpointMark
	for i := range s.Checkpoints {
		c := &s.Checkpoints[i]
		if c.Status != CheckpointInProgress {
			lastEnded = c
		}
		end := c.End
		if c.Status == CheckpointInProgress {
			end = s.Now
		}
		if end <= from {
			continue
		}
		a, b := cell(c.Trigger), cell(end)
		for j := a; j < b; j++ {
			cells[j] = "─"
		}
		cells[b] = checkpointMark(st, c.Status)
	}
	line2 := ""
	switch c := lastEnded; {
	case c != nil:
		line2 = st.faint.Render("last ") + fmt.Sprintf("#%d ", c.ID) + checkpointMark(st, c.Status) + " " + checkpointText(c)
	default:
		c = &s.Checkpoints[len(s.Checkpoints)-1]
		line2 = st.faint.Render("now ") + fmt.Sprintf("#%d ", c.ID) + checkpointMark(st, c.Status) +
			fmt.Sprintf(" in progress for %s", sim.FormatTime(s.Now-c.Trigger))
	}
	var b strings.Builder
	b.WriteString(title)
	for i := 0; i < len(cells); {
		j := i
		for j < len(cells) && cells[j] == "" {
			j++
		}
		if j > i { // a run of empty cells, drawn at once
			b.WriteString(st.faint.Render(strings.Repeat("·", j-i)))
			i = j
			continue
		}
		b.WriteString(cells[i])
		i++
	}
	return []string{b.String(), line2}
}

// checkpointMark is the timeline mark of a checkpoint status.
func checkpointMark(st styles, status string) string {
	switch status {
	case sim.CheckpointCompleted:
		return st.ok.Render("✓")
	case CheckpointInProgress:
		return st.low.Render("◐")
	}
	return st.high.Render("✗")
}

// checkpointText sums up a checkpoint that ended: "in 3.882s, alignment
// 25ms" for one that completed, why it failed otherwise ("timed out after
// 20s: ...", "aborted: the job failed over").
func checkpointText(c *CheckpointMark) string {
	if c.Status != sim.CheckpointCompleted {
		return strings.TrimPrefix(c.Message, fmt.Sprintf("checkpoint %d ", c.ID))
	}
	text := "in " + durationText(c.End-c.Trigger)
	// the simulator's line says "(alignment up to 25.006ms, ..."
	if _, rest, ok := strings.Cut(c.Message, "alignment up to "); ok {
		a, _, _ := strings.Cut(rest, ",")
		a = strings.TrimSuffix(a, ")")
		if d, err := scenario.ParseDuration(a); err == nil {
			a = durationText(d)
		}
		text += ", alignment " + a
	}
	return text
}

// durationText formats a simulated duration to 3 significant digits:
// "61.1ms", "3.88s", "0".
func durationText(d des.Time) string {
	if d == 0 {
		return "0"
	}
	return msText(d.Milliseconds())
}

// deliveryLines are two lines of delivery counters, checked by the
// simulator against the ids the sources emitted: records emitted and
// delivered, then duplicated and lost and, as they fit, uncommitted (in
// transactions of exactly-once sinks), replayed and in flight.
func (m model) deliveryLines(s *Snapshot, w int) []string {
	st := m.st
	d := s.Delivery
	line1 := st.title.Render("DELIVERY ") + st.faint.Render("emitted ") + countText(int64(d.Emitted)) +
		st.faint.Render(" · delivered ") + countText(int64(d.Delivered))
	count := func(label string, n uint64, bad lipgloss.Style) string {
		v := countText(int64(n))
		if n > 0 {
			v = bad.Render(v)
		}
		return st.faint.Render(label+" ") + v
	}
	items := []string{count("duplicated", d.Duplicated, st.low), count("lost", d.Lost, st.high)}
	if d.Uncommitted > 0 {
		items = append(items, count("uncommitted", d.Uncommitted, st.bold))
	}
	if d.Replayed > 0 {
		items = append(items, count("replayed", d.Replayed, st.bold))
	}
	items = append(items, count("in flight", d.InFlight, st.bold))
	line2 := items[0]
	sep := st.faint.Render(" · ")
	for _, it := range items[1:] {
		if lipgloss.Width(line2+sep+it) > w {
			break
		}
		line2 += sep + it
	}
	return []string{line1, line2}
}

// eventLines is the event log: its title and the latest lines that fit in
// h lines.
func (m model) eventLines(w, h int) []string {
	if h <= 0 {
		return nil
	}
	st := m.st
	out := []string{st.title.Render("EVENTS")}
	if m.snap == nil {
		return out
	}
	evs := m.snap.Events
	back := min(m.logBack, max(len(evs)-(h-1), 0)) // scrolled back, at most to the oldest
	end := len(evs) - back
	first := max(end-(h-1), 0)
	if first > 0 || back > 0 {
		out[0] += st.faint.Render(fmt.Sprintf("  %d–%d of %d · pgup/pgdn scroll", first+1, end, len(evs)))
	}
	evs = evs[first:end]
	for _, e := range evs {
		msg := ansi.Truncate(stripSim(e.Message), max(w-11, 1), "…")
		switch e.Type {
		case LogError, sim.EventFailure, sim.EventFailureDetected, sim.EventJobFailed, sim.EventJobLost:
			msg = st.err.Render(msg)
		case sim.EventStatusChanged:
			msg = st.status(e.To).Render(msg)
		case sim.EventRecoveryCompleted:
			msg = st.ok.Render(msg)
		case sim.EventRestart, sim.EventCheckpointFailed, sim.EventSlowdown, sim.EventNetworkPartition, sim.EventStorageOutage:
			msg = st.low.Render(msg)
		case sim.EventAction:
			msg = st.action.Render(msg)
		}
		out = append(out, st.faint.Render(fmt.Sprintf("%9s  ", sim.FormatTime(e.Time)))+msg)
	}
	return out
}

// helpBody is the help overlay: the keys and how to read the panes, in a
// box in the middle of the body; in too few lines, the box is cut short
// and says so.
func (m model) helpBody(w, h int) []string {
	st := m.st
	boxW := min(w, 86)
	inner := boxW - 4 // border and padding
	if inner < 10 || h < 3 {
		return nil
	}
	hm := m.help
	hm.SetWidth(inner)
	keys := m.keys
	keys.Topics.SetEnabled(m.topicsPane()) // listed only where it acts
	paras := []string{
		st.title.Render("Keys"),
		hm.FullHelpView(keys.FullHelp()),
		"",
		st.title.Render("Reading the view"),
		"Status is back-pressured time, as in Flink's web UI: " +
			st.ok.Render("OK") + " ≤ 10% < " + st.low.Render("LOW") + " ≤ 50% < " + st.high.Render("HIGH") +
			"; the busy vertex after HIGH ones is the bottleneck. " + st.high.Render("DOWN") + ": not running (" + st.high.Render(downGlyph) + " in a subtask's bar); DOWN*: not running now, its figures are averages over the window (i shows the last sample's).",
		"Rates and times: averages over the last 10s (or since the start, failover or restart), as Flink's web UI averages; i shows the last sample's. BUSY, BACKPR.: the most of any subtask (they may sum past 100%). BUFFERS: input buffers in use, fullest subtask (sources: lag). Charts: the last minute.",
		"A row is a task: an operator chain (enrich -> out) runs in one thread, so it has one busy and back-pressured time; its operators are listed under it.",
		"f fails the selected subtask (of a chain: the whole task), F its worker (noticed after heartbeat_timeout): the job restarts from the last completed checkpoint.",
		"f, F and c are recorded: with --out DIR in actions.jsonl, which dspalab run --replay reads. A refused one changes nothing: it is only in this event log, not in events.jsonl or actions.jsonl.",
	}
	if m.eventTime() {
		// after the status, before the rest: a short terminal shows it
		wm := "WATERMARKS, now: a vertex's currentInputWatermark (event time, its least subtask), LAG = processing time − watermark, LATE = numLateRecordsDropped, HELD BACK BY: the input at the minimum (idle inputs are left out, listed after it). \"read nothing\": a quiet source not marked idle (set watermarks.idleness); \"queued in the buffers\": watermarks behind data under back-pressure."
		paras = slices.Insert(paras, 5, wm)
	}
	if m.topicsPane() {
		tp := "TOPICS, at the last sample: a row per partition (clicks-3) and the reader subtask that owns it; the bar is the age of its oldest unread record against the topic's retention.time (┃: from there retention deletes records before they are read, counted in LOST), or without one its records-lag against the largest. RECORDS = records-lag (log end − position), AGE = that age. QUEUE: each queue consumer's messages ready in the broker, redelivered and paged in so far. SHED: each vertex's shed records per second in the last interval. t hides or shows the pane."
		paras = slices.Insert(paras, 5, tp)
	}
	text := strings.Join(paras, "\n")
	lines := strings.Split(wrapWords(text, inner), "\n")
	if len(lines) > h-2 {
		lines = append(lines[:h-3], st.faint.Render("(more: make the terminal taller)"))
	}
	box := st.box.Width(boxW).Render(strings.Join(lines, "\n"))
	placed := lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
	return strings.Split(placed, "\n")
}

// sparklines draws values as sparkline does, in rows lines (the first on
// top): each column is a bar rows × 8 steps high. One row is sparkline.
func sparklines(values []float64, w, rows int, peak bool) []string {
	if rows <= 1 {
		return []string{sparkline(values, w, peak)}
	}
	line := []rune(sparkline(values, w, peak)) // the columns' combined values, as levels
	cols := combine(values, w, peak)
	top := highest(cols)
	ticks := []rune("▁▂▃▄▅▆▇█")
	out := make([]string, rows)
	for r := range rows {
		level := rows - 1 - r // 0 is the bottom line
		var b strings.Builder
		for i, x := range cols {
			switch {
			case math.IsNaN(x):
				b.WriteByte(' ')
			case top <= 0:
				if level == 0 {
					b.WriteRune(line[i])
				} else {
					b.WriteByte(' ')
				}
			default:
				steps := int(x/top*float64(rows*8) + 0.5)
				n := steps - level*8
				switch {
				case n >= 8:
					b.WriteRune(ticks[7])
				case n > 0:
					b.WriteRune(ticks[n-1])
				case level == 0:
					b.WriteRune(ticks[0]) // measured: the bottom line shows it
				default:
					b.WriteByte(' ')
				}
			}
		}
		out[r] = b.String()
	}
	return out
}

// highest is the largest measured value of cols (NaN: nothing measured),
// 0 when none is positive: the top of a sparkline's scale.
func highest(cols []float64) float64 {
	top := 0.0
	for _, x := range cols {
		if !math.IsNaN(x) {
			top = max(top, x)
		}
	}
	return top
}

// sparkline draws values (NaN: nothing measured) as w cells of ▁..█ scaled
// to their maximum, combining neighbours by their mean, or by their
// maximum when peak is set.
func sparkline(values []float64, w int, peak bool) string {
	if w <= 0 || len(values) == 0 {
		return ""
	}
	cols := combine(values, w, peak)
	top := highest(cols)
	ticks := []rune("▁▂▃▄▅▆▇█")
	var b strings.Builder
	for _, x := range cols {
		switch {
		case math.IsNaN(x):
			b.WriteByte(' ')
		case top <= 0:
			b.WriteRune(ticks[0])
		default:
			b.WriteRune(ticks[min(int(x/top*float64(len(ticks)-1)+0.5), len(ticks)-1)])
		}
	}
	return b.String()
}

// combine fits values into at most w columns, combining neighbours by
// their mean (NaN ignored), or by their maximum when peak is set.
func combine(values []float64, w int, peak bool) []float64 {
	if len(values) <= w {
		return values
	}
	cols := make([]float64, w)
	for i := range cols {
		lo, hi := i*len(values)/w, (i+1)*len(values)/w
		v, n := 0.0, 0
		for _, x := range values[lo:hi] {
			if math.IsNaN(x) {
				continue
			}
			if peak {
				v = max(v, x)
			} else {
				v += x
			}
			n++
		}
		switch {
		case n == 0:
			cols[i] = math.NaN()
		case peak:
			cols[i] = v
		default:
			cols[i] = v / float64(n)
		}
	}
	return cols
}

// last returns the last value that is not NaN, or NaN.
func last(xs []float64) float64 {
	for i := len(xs) - 1; i >= 0; i-- {
		if !math.IsNaN(xs[i]) {
			return xs[i]
		}
	}
	return math.NaN()
}

// human formats a number with a metric suffix: 950, 12.3k, 123k, 1.2M,
// 3.4G.
func human(x float64) string {
	switch a := math.Abs(x); {
	case a >= 1e9:
		return strconv.FormatFloat(x/1e9, 'f', 1, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(x/1e6, 'f', 1, 64) + "M"
	case a >= 1e4:
		if a >= 99950 { // 3 significant digits: "123k", not "123.4k"
			return strconv.FormatFloat(x/1e3, 'f', 0, 64) + "k"
		}
		return strconv.FormatFloat(x/1e3, 'f', 1, 64) + "k"
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	default:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
}

// rateText formats records per second: "40.0/s", "1234/s", "12.3k/s".
func rateText(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return human(x) + "/s"
}

// countText formats a count of records: "1234", "12.3k".
func countText(n int64) string {
	if n < 10000 {
		return strconv.FormatInt(n, 10)
	}
	return human(float64(n))
}

// msText formats a latency in milliseconds to 3 significant digits:
// "504ms", "24.5s", "28s", "500µs"; "–" when nothing was measured.
func msText(ms float64) string {
	if math.IsNaN(ms) {
		return "–"
	}
	r := roundSig(ms, 3)
	switch {
	case r < 1:
		return sig3(ms*1000) + "µs"
	case r < 1000:
		return sig3(ms) + "ms"
	case r < 1000e3:
		return sig3(ms/1000) + "s"
	}
	return sim.FormatTime(des.Time(math.Round(ms/1000)) * des.Second)
}

// roundSig rounds x to n significant digits.
func roundSig(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(n-1)-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// sig3 formats x to 3 significant digits without trailing zeros: "504",
// "24.5", "28", "0.25".
func sig3(x float64) string {
	r := roundSig(x, 3)
	prec := 0
	if a := math.Abs(r); a > 0 && a < 100 {
		prec = 2 - int(math.Floor(math.Log10(a)))
	}
	s := strconv.FormatFloat(r, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
