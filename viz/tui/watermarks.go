package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The watermark pane: one row per vertex of a job with event time (a
// source with watermarks, a window or a join), as Flink's web UI shows a
// vertex's watermarks: its currentInputWatermark (the least of its
// subtasks), the watermark lag (processing time − the watermark),
// numLateRecordsDropped of a window or join, and the input that holds the
// watermark back, read from the subtasks' watermark valves
// (sim.Sim.Watermarks): the channel at the minimum (an upstream subtask),
// with the idle ones, which the minimum leaves out, named after it.
// A job without event time has no such pane, and its frames are as they
// were before the pane existed.

// Least and most rows of the watermark pane below its title and header.
const (
	minWatermarkRows = 3
	// quietAfter is how long a source subtask must have read nothing for
	// the pane to say so ("read nothing for 20s").
	quietAfter = des.Second
	// queuedAfter is how far the output watermark of the upstream subtask
	// must be ahead of what came on the holding channel for the pane to
	// say the watermarks are queued in the buffers (behind data, under
	// back-pressure): less is a watermark on its way (periodic emission,
	// network latency).
	queuedAfter = des.Second
)

// eventTime says whether the job has event time: the snapshots carry its
// watermarks.
func (m model) eventTime() bool { return m.snap != nil && m.snap.Watermarks != nil }

// watermarkPaneHeight is the lines the whole pane wants: its title, the
// column header and a row per vertex; 0 for a job without event time.
func (m model) watermarkPaneHeight() int {
	if !m.eventTime() {
		return 0
	}
	return 2 + len(m.snap.Watermarks)
}

// Widths of the watermark pane's columns.
const (
	wmW   = 11 // "  1234.567s"
	lagW  = 7  // " 24.5s"
	lateW = 7
)

// watermarkPanel draws the pane in n lines at most: its title, the column
// header and the vertices' rows, scrolled to keep the selected task's
// vertices in sight, with "↑ 2 more" and "↓ 3 more" where rows are out of
// sight.
func (m model) watermarkPanel(w, n int) []string {
	if n <= 0 || !m.eventTime() {
		return nil
	}
	st := m.st
	s := m.snap
	nameW := len("VERTEX")
	for _, vw := range s.Watermarks {
		nameW = max(nameW, lipgloss.Width(vw.Vertex))
	}
	nameW = min(nameW, max(w/4, 8))
	title := st.title.Render("WATERMARKS") + st.faint.Render("  event time now · LAG = processing time − watermark · LATE = numLateRecordsDropped")
	header := st.faint.Render("  " + fit("VERTEX", nameW, false) + "  " + fit("WATERMARK", wmW, true) + "  " +
		fit("LAG", lagW, true) + "  " + fit("LATE", lateW, true) + "  HELD BACK BY")
	var rows []string
	sel := -1 // the first row of the selected task
	for i, vw := range s.Watermarks {
		marker := "  "
		name := fit(vw.Vertex, nameW, false)
		if m.selectedVertex(i) {
			marker = "› "
			name = st.selected.Render(name)
			if sel < 0 {
				sel = i
			}
		}
		wm := vertexWatermark(vw)
		wmText, lagText := "–", "–"
		if wm != sim.NoWatermark {
			wmText = eventTimeText(wm)
			lagText = durationText(max(s.Now-wm, 0))
		}
		late := "-"
		if vw.Windowed {
			late = countText(int64(vw.LateDropped))
			if vw.LateDropped > 0 {
				late = st.low.Render(padLeft(late, lateW))
			}
		}
		line := marker + name + "  " + fit(wmText, wmW, true) + "  " + fit(lagText, lagW, true) + "  " + fit(late, lateW, true) + "  "
		line += m.heldBackText(vw, max(w-lipgloss.Width(line), 0))
		rows = append(rows, line)
	}
	out := []string{title, header}
	k := n - 2
	if k <= 0 {
		return out[:n]
	}
	if k >= len(rows) {
		return append(out, rows...)
	}
	first := min(max(max(sel, 0)-(k-1)/2, 0), len(rows)-k)
	shown := append([]string(nil), rows[first:first+k]...)
	if first > 0 {
		shown[0] = st.faint.Render(fmt.Sprintf("   ↑ %d more", first+1))
	}
	if first+k < len(rows) {
		shown[k-1] = st.faint.Render(fmt.Sprintf("   ↓ %d more", len(rows)-(first+k-1)))
	}
	return append(out, shown...)
}

// selectedVertex says whether vertex i (an index of graph.vertices) runs
// in the selected task.
func (m model) selectedVertex(i int) bool {
	if m.sel >= len(m.g.tasks) {
		return false
	}
	for _, vi := range m.g.tasks[m.sel].members {
		if vi == i {
			return true
		}
	}
	return false
}

// vertexWatermark is a vertex's watermark: the least input watermark of
// its subtasks (Flink's web UI's low watermark of a vertex), as
// timeseries.csv's vertex rows; NoWatermark while a subtask has none.
func vertexWatermark(vw sim.VertexWatermarks) des.Time {
	if len(vw.Subtasks) == 0 {
		return sim.NoWatermark
	}
	lo := vw.Subtasks[0].Input
	for _, sw := range vw.Subtasks[1:] {
		lo = min(lo, sw.Input)
	}
	return lo
}

// eventTimeText formats a watermark, a point in event time, in seconds to
// the millisecond: "29.800s" (a watermark is one nanosecond less than the
// event time it covers, which this rounds away).
func eventTimeText(t des.Time) string {
	return strconv.FormatFloat(t.Seconds(), 'f', 3, 64) + "s"
}

// heldBackText says in w cells what holds the vertex's watermark back.
// Of a source: the subtask with the least watermark (of several), how
// long it has read nothing (past quietAfter), and its idle subtasks. Of
// an operator or sink: at its subtask with the least watermark, the input
// channel at the valve's minimum (the upstream subtask, "src[1]"), how
// long that one has read nothing if it is a quiet source, or how far its
// own output watermark is ahead when the watermarks are queued behind
// data; then the idle inputs, which the minimum leaves out.
func (m model) heldBackText(vw sim.VertexWatermarks, w int) string {
	st := m.st
	if len(vw.Subtasks) == 0 {
		return ""
	}
	least := 0
	for i, sw := range vw.Subtasks {
		if sw.Input < vw.Subtasks[least].Input {
			least = i
		}
	}
	sw := vw.Subtasks[least]
	var items []string
	if vw.Kind == sim.KindSource {
		if len(vw.Subtasks) > 1 {
			items = append(items, fmt.Sprintf("%s[%d]", vw.Vertex, least))
		}
		if q := m.quiet(sw); q != "" {
			items = append(items, q)
		}
		var idle []string
		for i, x := range vw.Subtasks {
			if x.Idle {
				idle = append(idle, fmt.Sprintf("%s[%d]", vw.Vertex, i))
			}
		}
		switch {
		case len(vw.Subtasks) == 1 && len(idle) == 1:
			items = append(items, st.faint.Render("IDLE (holds nothing back)"))
		case len(idle) > 0:
			items = append(items, st.faint.Render("idle: "+namesText(idle)))
		}
		switch {
		case sw.Input == sim.NoWatermark && len(items) == 0:
			items = append(items, st.faint.Render("no watermark yet"))
		case len(items) == 0:
			items = append(items, st.faint.Render(m.strategyText(vw.Vertex)))
		}
		return fitItems(items, w)
	}
	holders := 0
	var holder sim.InputWatermark
	for _, in := range sw.Inputs {
		if in.Holding {
			if holders == 0 {
				holder = in
			}
			holders++
		}
	}
	switch {
	case holders > 0:
		text := fmt.Sprintf("%s[%d]", holder.From, holder.Subtask)
		if holders > 1 {
			text += fmt.Sprintf(" +%d more", holders-1)
		}
		items = append(items, st.bold.Render(text))
		if up := m.upstream(holder); up != nil {
			if q := m.quiet(*up); q != "" {
				items = append(items, q)
			} else if ahead := up.Output - holder.Watermark; !holder.Chained && up.Output != sim.NoWatermark && ahead >= queuedAfter {
				items = append(items, st.low.Render(durationText(ahead)+" more queued in the buffers"))
			}
		}
	case sw.Input == sim.NoWatermark:
		items = append(items, st.faint.Render("no watermark yet"))
	}
	// the idle inputs of any subtask, once each
	var idle []string
	for _, x := range vw.Subtasks {
		for _, in := range x.Inputs {
			if name := fmt.Sprintf("%s[%d]", in.From, in.Subtask); in.Idle && !slices.Contains(idle, name) {
				idle = append(idle, name)
			}
		}
	}
	if len(idle) > 0 {
		items = append(items, st.faint.Render("idle: "+namesText(idle)))
	}
	return fitItems(items, w)
}

// upstream returns the watermarks of the subtask an input comes from
// (nil if the snapshot does not have it).
func (m model) upstream(in sim.InputWatermark) *sim.SubtaskWatermarks {
	for i := range m.snap.Watermarks {
		vw := &m.snap.Watermarks[i]
		if vw.Vertex == in.From && in.Subtask < len(vw.Subtasks) {
			return &vw.Subtasks[in.Subtask]
		}
	}
	return nil
}

// strategyText names the watermark strategy of source name as the
// plan resolved it: "bounded_out_of_orderness 200ms, every 200ms",
// "monotonous, every 200ms, idleness 2s"; "" without watermarks.
func (m model) strategyText(name string) string {
	if m.g.plan == nil {
		return ""
	}
	v := m.g.plan.Vertex(name)
	if v == nil || v.Source == nil || v.Source.Watermarks == nil {
		return ""
	}
	wm := v.Source.Watermarks
	text := wm.Strategy
	if wm.Strategy != scenario.WatermarksMonotonous {
		text += " " + sim.FormatTime(wm.BoundedOutOfOrderness)
	}
	if wm.Strategy != scenario.WatermarksPunctuated {
		text += ", every " + sim.FormatTime(wm.AutoWatermarkInterval)
	}
	if wm.Idleness > 0 {
		text += ", idleness " + sim.FormatTime(wm.Idleness)
	}
	return text
}

// quiet says how long a source subtask has read nothing, past
// quietAfter: "read nothing for 20s"; "" otherwise.
func (m model) quiet(sw sim.SubtaskWatermarks) string {
	if sw.LastRecord < 0 || sw.Idle {
		return ""
	}
	if d := m.snap.Now - sw.LastRecord; d >= quietAfter {
		return m.st.high.Render("read nothing for " + durationText(d))
	}
	return ""
}

// namesText lists names, the first two and how many more: "b[0], b[1] +2".
func namesText(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:2], ", ") + fmt.Sprintf(" +%d", len(names)-2)
}

// fitItems joins items with " · " as far as they fit in w cells; the
// first is cut if it alone does not.
func fitItems(items []string, w int) string {
	if len(items) == 0 {
		return ""
	}
	text := items[0]
	for _, it := range items[1:] {
		next := text + " · " + it
		if lipgloss.Width(next) > w {
			break
		}
		text = next
	}
	return ansi.Truncate(text, w, "…")
}
