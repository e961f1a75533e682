package tui

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
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

// header is the title line (scenario, state, speed, simulated time) and a
// line that says what is going on.
func (m model) header(w int) []string {
	st := m.st
	left := st.title.Render("dspalab watch") + " · " + st.bold.Render(m.label) + st.faint.Render(fmt.Sprintf(" · seed %d", m.seed))
	s := m.snap
	if s == nil {
		return []string{left, st.faint.Render("starting…")}
	}
	icon := map[RunState]string{Running: "▶", Paused: "‖", Finished: "■", Stopped: "✗"}[s.State]
	right := fmt.Sprintf("%s %s · %s  %s / %s ", icon, s.State, speedText(s), sim.FormatTime(s.Now), sim.FormatTime(s.Duration))
	frac := 0.0
	if s.Duration > 0 {
		frac = float64(s.Now) / float64(s.Duration)
	}
	barW := min(20, max(w-lipgloss.Width(left)-lipgloss.Width(right)-7, 0))
	if barW >= 5 {
		right += bar(colorTitle, barW).ViewAs(frac)
	}
	right += fmt.Sprintf(" %3.0f%%", 100*frac)
	line1 := left + strings.Repeat(" ", max(w-lipgloss.Width(left)-lipgloss.Width(right), 1)) + right
	var line2 string
	switch {
	case s.Err != "":
		line2 = st.err.Render("stopped at " + sim.FormatTime(s.Now) + ": " + s.Err)
	case s.State == Finished:
		line2 = st.bold.Render("finished: r restarts, q quits and prints the summary")
	case s.Gen > 0:
		line2 = st.faint.Render(fmt.Sprintf("restart %d · %s", s.Gen, m.desc))
	default:
		line2 = st.faint.Render(m.desc)
	}
	return []string{line1, line2}
}

// speedText is the chosen speed, and as fast as possible the speed
// achieved: "1×", "0.1×", "max ≈ 1.2k×".
func speedText(s *Snapshot) string {
	if s.Speed > 0 {
		return strconv.FormatFloat(s.Speed, 'f', -1, 64) + "×"
	}
	if s.WallSpeed > 0 && s.State == Running {
		return "max ≈ " + human(s.WallSpeed) + "×"
	}
	return "max"
}

// bar returns a progress bubble of width w, filled in colour c.
func bar(c color.Color, w int) progress.Model {
	return progress.New(progress.WithWidth(w), progress.WithoutPercentage(),
		progress.WithFillCharacters('█', '░'), progress.WithColors(c))
}

// footer is the short key help.
func (m model) footer(w int) string {
	h := m.help
	h.SetWidth(w)
	return h.ShortHelpView(m.keys.ShortHelp())
}

// body lays out the panes in height h: the job graph, the subtasks of the
// selected vertex, the charts and counters, and the event log with what is
// left.
func (m model) body(w, h int) []string {
	const metricsH = 4
	graph := m.graphLines(w)
	subs, selRow := m.subtaskLines(w)
	// least heights: a title and one line each, the metrics, two log lines
	gH, sH := min(len(graph), 2), min(len(subs), 2)
	rest := h - gH - sH - metricsH - 3
	grow := func(have *int, want int) {
		add := max(min(want-*have, rest), 0)
		*have += add
		rest -= add
	}
	grow(&gH, len(graph))
	grow(&sH, min(len(subs), 9))
	var out []string
	out = append(out, m.window(graph, gH)...)
	out = append(out, subWindow(subs, selRow, sH)...)
	out = append(out, m.metricsLines(w)...)
	out = append(out, m.eventLines(w, max(h-len(out), 0))...)
	return out[:min(len(out), h)]
}

// window shows n lines of the graph, the title and those around the
// selected vertex.
func (m model) window(lines []string, n int) []string {
	if n >= len(lines) || n < 2 {
		return lines[:max(min(n, len(lines)), 0)]
	}
	// the selected vertex's line: title, then vertex i at line 1 + 2i at
	// most (arrow lines between)
	selLine := 1
	for i, l := range lines {
		if strings.HasPrefix(ansi.Strip(l), "›") {
			selLine = i
			break
		}
	}
	first := min(max(selLine-(n-1)/2, 1), len(lines)-(n-1))
	return append([]string{m.graphTitle(true)}, lines[first:first+n-1]...)
}

// subWindow shows n lines of the subtask pane: the title and the rows
// around the selected one, lines[sel].
func subWindow(lines []string, sel, n int) []string {
	if n >= len(lines) || n < 2 {
		return lines[:max(min(n, len(lines)), 0)]
	}
	first := min(max(sel-(n-1)/2, 1), len(lines)-(n-1))
	return append([]string{lines[0]}, lines[first:first+n-1]...)
}

// vertexState returns the snapshot's state of vertex i (zero before the
// first snapshot).
func (m model) vertexState(i int) VertexState {
	if m.snap == nil || i >= len(m.snap.Vertices) {
		return VertexState{}
	}
	return m.snap.Vertices[i]
}

// graphTitle is the title of the job graph; scrolled says that not every
// vertex fits.
func (m model) graphTitle(scrolled bool) string {
	sel := "↑/↓ select"
	if scrolled {
		sel = "↑/↓ select and scroll"
	}
	return m.st.title.Render("JOB GRAPH") + m.st.faint.Render("  "+sel+" · back-pressure: OK ≤ 10% < LOW ≤ 50% < HIGH")
}

// graphLines draws the job graph in topological order: one line per vertex
// (parallelism, rates, input-buffer occupancy, status) with arrows between.
func (m model) graphLines(w int) []string {
	st := m.st
	lines := []string{m.graphTitle(false)}
	nameW := 4
	for _, v := range m.g.vertices {
		nameW = max(nameW, lipgloss.Width(v.name))
	}
	// fixed columns take 66 cells; names get the rest, 6 at least
	nameW = min(nameW, max(w-66, 6))
	for i, v := range m.g.vertices {
		if i > 0 && v.kind != sim.KindSource {
			arrow := "   ↓ " + v.partitioning
			if len(v.inputs) != 1 || v.inputs[0] != m.g.vertices[i-1].name {
				arrow += " from " + strings.Join(v.inputs, ", ")
			}
			lines = append(lines, st.faint.Render(arrow))
		}
		vs := m.vertexState(i)
		marker := "  "
		name := fmt.Sprintf("%-*s", nameW, ansi.Truncate(v.name, nameW, "…"))
		if i == m.sel {
			marker = "› "
			name = st.selected.Render(name)
		}
		in, out := rateText(vs.InRate), rateText(vs.OutRate)
		if v.kind == sim.KindSource {
			in = "-"
		}
		if v.kind == sim.KindSink {
			out = "-"
		}
		if !vs.HaveTotal {
			in, out = "", ""
		}
		var buf string
		switch {
		case v.kind == sim.KindSource:
			buf = "lag " + countText(vs.SourceLag)
			if vs.Dropped > 0 {
				buf += " drop " + countText(int64(vs.Dropped))
			}
			buf = fmt.Sprintf("%-16s", buf)
		case v.unbounded:
			buf = fmt.Sprintf("%-16s", "queue "+countText(int64(vs.QueuedRecords)))
		default:
			frac := 0.0 // of the fullest subtask, as a hot subtask is what matters
			for _, r := range vs.Subtasks {
				frac = max(frac, v.occupancy(r.Subtask, r.QueuedBuffers))
			}
			buf = bar(statusColor(vs.Status), 10).ViewAs(frac) + fmt.Sprintf(" %4.0f%%", 100*frac)
		}
		status := vs.Status
		if !vs.HaveTotal {
			status = ""
		}
		lines = append(lines, fmt.Sprintf("%s%s %-8s %4s  in %8s  out %8s  %s  %s",
			marker, name, v.kind, "p"+strconv.Itoa(v.parallelism), in, out, buf, st.status(status).Render(status)))
	}
	return lines
}

func statusColor(s string) color.Color {
	switch s {
	case sim.StatusHigh:
		return colorHigh
	case sim.StatusLow:
		return colorLow
	}
	return colorOK
}

// subtaskRows is how many subtasks on each side of the selected one
// subtaskLines draws (the pane shows fewer).
const subtaskRows = 12

// subtaskLines draws the selected vertex's subtasks around the selected
// one: a bar of busy, back-pressured and idle time per subtask, so that
// skew shows. It returns the title and the rows, and the index of the
// selected row.
func (m model) subtaskLines(w int) ([]string, int) {
	st := m.st
	v := m.g.vertices[m.sel]
	vs := m.vertexState(m.sel)
	title := st.title.Render("SUBTASKS of "+v.name) + st.faint.Render(fmt.Sprintf(" (p%d)  ←/→ select · ", v.parallelism)) +
		st.busy.Render("█") + st.faint.Render(" busy ") + st.bp.Render("▒") + st.faint.Render(" back-pressured ") + st.idle.Render("░") + st.faint.Render(" idle")
	lines := []string{title}
	lo, hi := max(m.sub-subtaskRows, 0), min(m.sub+subtaskRows+1, v.parallelism)
	sel := 1 + m.sub - lo
	if len(vs.Subtasks) == 0 {
		for i := lo; i < hi; i++ {
			marker := "  "
			if i == m.sub {
				marker = "› "
			}
			lines = append(lines, st.faint.Render(fmt.Sprintf("%s#%-2d w%-2d no sample yet", marker, i, i/m.g.slots)))
		}
		return lines, sel
	}
	barW := min(max(w-78, 10), 30)
	for _, r := range vs.Subtasks[lo:min(hi, len(vs.Subtasks))] {
		marker := "  "
		if r.Subtask == m.sub {
			marker = "› "
		}
		var extra string
		switch {
		case r.Kind == sim.KindSource:
			extra = fmt.Sprintf("out %7s  lag %s", rateText(r.OutRate), countText(r.SourceLag))
		case v.unbounded:
			extra = fmt.Sprintf("queue %-5s in %7s", countText(int64(r.QueuedRecords)), rateText(r.InRate))
		default:
			extra = fmt.Sprintf("buf %3.0f%%  in %7s", 100*v.occupancy(r.Subtask, r.QueuedBuffers), rateText(r.InRate))
		}
		if w >= 90 && r.Kind == sim.KindOperator {
			extra += fmt.Sprintf(" out %7s", rateText(r.OutRate))
		}
		lines = append(lines, fmt.Sprintf("%s#%-2d w%-2d %s %3.0f%% busy %3.0f%% bp %3.0f%% idle  %s %s",
			marker, r.Subtask, r.Subtask/m.g.slots, m.timeBar(r, barW), r.Busy/10, r.Backpressured/10, r.Idle/10,
			st.status(r.Status).Render(fmt.Sprintf("%-4s", r.Status)), extra))
	}
	return lines, sel
}

// timeBar is a bar of w cells split into busy, back-pressured and idle
// time.
func (m model) timeBar(r sim.Row, w int) string {
	nb := int(math.Round(r.Busy / 1000 * float64(w)))
	np := int(math.Round(r.Backpressured / 1000 * float64(w)))
	nb = min(max(nb, 0), w)
	np = min(max(np, 0), w-nb)
	ni := w - nb - np
	return m.st.busy.Render(strings.Repeat("█", nb)) + m.st.bp.Render(strings.Repeat("▒", np)) + m.st.idle.Render(strings.Repeat("░", ni))
}

// metricsLines are four lines in two columns: sparklines of throughput and
// p99 latency over the last minute and the sources' lag on the left;
// checkpoints and delivery counters on the right.
func (m model) metricsLines(w int) []string {
	st := m.st
	leftW := w / 2
	rightW := w - leftW - 1
	s := m.snap
	if s == nil {
		s = &Snapshot{}
	}
	const labelW = 12
	sparkW := max(min(leftW-labelW-10, HistoryBuckets), 4)
	thr, p99 := "", ""
	if len(s.Throughput) > 0 {
		thr = sparkline(s.Throughput, sparkW, false) + " " + rateText(last(s.Throughput))
		p99 = sparkline(s.P99, sparkW, true) + " " + msText(last(s.P99))
	}
	var lag []string
	for i, v := range m.g.vertices {
		if v.kind == sim.KindSource {
			lag = append(lag, fmt.Sprintf("%s %s", v.name, countText(m.vertexState(i).SourceLag)))
		}
	}
	left := []string{
		st.title.Render(fmt.Sprintf("%-*s", labelW, "THROUGHPUT")) + st.ok.Render(thr),
		st.title.Render(fmt.Sprintf("%-*s", labelW, "P99 LATENCY")) + st.low.Render(p99),
		st.title.Render(fmt.Sprintf("%-*s", labelW, "SOURCE LAG")) + strings.Join(lag, " · ") + st.faint.Render(" records"),
		st.faint.Render("charts: the last 60s, at the sinks"),
	}
	right := m.checkpointLines(s, rightW)
	right = append(right,
		st.title.Render("DELIVERY ")+fmt.Sprintf("emitted %s · delivered %s", countText(int64(s.Emitted)), countText(int64(s.Delivered))),
		st.faint.Render("duplicated –, lost – (not simulated)"))
	out := make([]string, 4)
	for i := range out {
		l := ansi.Truncate(left[i], leftW, "…")
		out[i] = l + strings.Repeat(" ", max(leftW-lipgloss.Width(l), 0)) + st.faint.Render("│") + ansi.Truncate(right[i], rightW, "…")
	}
	return out
}

// checkpointLines are two lines: a timeline of the last minute (◐ in
// progress, ✓ completed, ✗ failed) and the last checkpoint event.
func (m model) checkpointLines(s *Snapshot, w int) []string {
	st := m.st
	title := st.title.Render("CHECKPOINTS ")
	if len(s.Checkpoints) == 0 {
		what := "none so far"
		if s.NotModelled[sim.ActionCheckpoint] {
			what = "not simulated yet"
		}
		return []string{title + st.faint.Render(what), ""}
	}
	tw := max(w-12, 4)
	cells := []rune(strings.Repeat("·", tw))
	from := s.Now - HistoryWindow
	for _, c := range s.Checkpoints {
		if c.Time <= from {
			continue
		}
		i := min(int(float64(c.Time-from)/float64(HistoryWindow)*float64(tw)), tw-1)
		cells[i] = checkpointMark(c.Type)
	}
	lastC := s.Checkpoints[len(s.Checkpoints)-1]
	return []string{
		title + string(cells),
		st.faint.Render("  last ") + sim.FormatTime(lastC.Time) + " " + lastC.Message,
	}
}

// checkpointMark is the timeline mark of a checkpoint event type.
func checkpointMark(typ string) rune {
	switch {
	case strings.Contains(typ, "complet"):
		return '✓'
	case strings.Contains(typ, "fail"), strings.Contains(typ, "timeout"), strings.Contains(typ, "timed_out"),
		strings.Contains(typ, "declin"), strings.Contains(typ, "expire"), strings.Contains(typ, "abort"):
		return '✗'
	}
	return '◐'
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
	evs = evs[max(len(evs)-(h-1), 0):]
	for _, e := range evs {
		msg := e.Message
		switch {
		case e.Type == LogError:
			msg = st.err.Render(msg)
		case e.Type == sim.EventStatusChanged:
			msg = st.status(e.To).Render(msg)
		case e.Type == sim.EventAction || strings.HasPrefix(e.Type, "checkpoint") || strings.Contains(e.Type, "fail"):
			msg = st.action.Render(msg)
		}
		out = append(out, st.faint.Render(fmt.Sprintf("%9s  ", sim.FormatTime(e.Time)))+msg)
	}
	return out
}

// helpBody is the help overlay: the keys and how to read the panes, in a
// box in the middle of the body.
func (m model) helpBody(w, h int) []string {
	st := m.st
	hm := m.help
	hm.SetWidth(max(min(w, 86)-4, 20))
	text := strings.Join([]string{
		st.title.Render("Keys"),
		hm.FullHelpView(m.keys.FullHelp()),
		"",
		st.title.Render("Reading the view"),
		"Status is a vertex's back-pressured time, as Flink's web UI shows it:",
		"  " + st.ok.Render("OK") + " ≤ 10% < " + st.low.Render("LOW") + " ≤ 50% < " + st.high.Render("HIGH") + "; the busy vertex after HIGH ones is the bottleneck.",
		"Buffers: input-gate network buffers in use (exclusive + floating), fullest subtask.",
		"Charts: the last minute of simulated time; speed is simulated s per wall s.",
		"f, F and c act at once and are recorded (--out DIR writes actions.jsonl,",
		"which dspalab run --replay reproduces); what the simulator refuses is",
		"said in the event log. ? or esc closes this help.",
	}, "\n")
	box := st.box.Width(min(w, 86)).Render(text)
	placed := lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
	return strings.Split(placed, "\n")
}

// sparkline draws values (NaN: nothing measured) as w cells of ▁..█ scaled
// to their maximum, combining neighbours by their mean, or by their
// maximum when peak is set.
func sparkline(values []float64, w int, peak bool) string {
	if w <= 0 || len(values) == 0 {
		return ""
	}
	cols := values
	if len(values) > w {
		cols = make([]float64, w)
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
	}
	top := 0.0
	for _, x := range cols {
		if !math.IsNaN(x) {
			top = max(top, x)
		}
	}
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

// last returns the last value that is not NaN, or NaN.
func last(xs []float64) float64 {
	for i := len(xs) - 1; i >= 0; i-- {
		if !math.IsNaN(xs[i]) {
			return xs[i]
		}
	}
	return math.NaN()
}

// human formats a number with a metric suffix: 950, 12.3k, 1.2M, 3.4G.
func human(x float64) string {
	switch a := math.Abs(x); {
	case a >= 1e9:
		return strconv.FormatFloat(x/1e9, 'f', 1, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(x/1e6, 'f', 1, 64) + "M"
	case a >= 1e4:
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

// msText formats a latency in milliseconds: "25ms", "9.81s"; "–" when
// nothing was measured.
func msText(ms float64) string {
	if math.IsNaN(ms) {
		return "–"
	}
	return sim.FormatTime(des.Time(math.Round(ms * float64(des.Millisecond))))
}
