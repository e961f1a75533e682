package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// The topics pane: one row per partition of a topic and reader (the
// source vertex reading it), as a Kafka lag exporter shows a consumer
// group, from the last sample's partitions (partitions.csv's rows): the
// partition as Kafka names it ("clicks-3"), the reader subtask that owns
// it, a bar of the lag's age against the topic's retention.time (the
// record at the bar's end ┃ is the next that retention deletes unread),
// or of the records lag against the largest one without retention by
// time, the records lag (records-lag), its age and the records lost to
// retention. Under the rows, a line of the queues' consumers (the
// messages ready in the broker, redelivered and paged in so far) and a
// line of the vertices that shed load: their shed rate in the last
// interval and the records shed so far. The pane shows in a job that
// reads topics or a queue, or sheds; t hides it and shows it again. A
// job with neither has no such pane, and its frames are as they were
// before the pane existed.

// Least rows of the pane's partitions below its title and header, and
// the widths of its columns.
const (
	minTopicRows = 3
	lagBarW      = 24
	partCountW   = 7 // " 15.2k"
	partAgeW     = 7 // " 60.3s"
)

// topicsPane says whether the job has the pane: it reads topics or a
// queue, or sheds.
func (m model) topicsPane() bool {
	return m.snap != nil && (len(m.snap.Partitions) > 0 || len(m.shedRows()) > 0 || len(m.queueItems()) > 0)
}

// queueItems are the queues' figures at the last sample, one per vertex
// that consumes a queue, from its counter columns (sim/counters.go):
// "orders → billing 24.2k ready (0 redelivered, 19.2k paged in)".
func (m model) queueItems() []string {
	if m.snap == nil {
		return nil
	}
	col := slices.Index(m.snap.Counters, "queue_depth")
	if col < 0 {
		return nil
	}
	var out []string
	for _, v := range m.snap.Instant {
		if !v.HaveTotal || len(v.Row.Counters) < col+3 || v.Row.Counters[col] == sim.NoCount {
			continue
		}
		c := v.Row.Counters[col : col+3]
		name := v.Row.Vertex
		if m.g.plan != nil {
			if pv := m.g.plan.Vertex(name); pv != nil && pv.Source != nil && pv.Source.Arrival.Queue != "" {
				name = pv.Source.Arrival.Queue + " → " + name // the queue and its consumer
			}
		}
		out = append(out, name+" "+countText(c[0])+" ready"+m.st.faint.Render(" ("+countText(c[1])+" redelivered, "+countText(c[2])+" paged in)"))
	}
	return out
}

// shedRows are the last sample's rows of the vertices that shed.
func (m model) shedRows() []sim.Row {
	if m.snap == nil {
		return nil
	}
	var out []sim.Row
	for _, v := range m.snap.Instant {
		if v.HaveTotal && v.Shed.On {
			out = append(out, v.Row)
		}
	}
	return out
}

// topicsPaneHeight is the lines the whole pane wants: its title, the
// column header and a row per partition, and the shedding line; 0 when
// hidden or without topics and shedding.
func (m model) topicsPaneHeight() int {
	if m.hideTopics || !m.topicsPane() {
		return 0
	}
	n := 1 + len(m.snap.Partitions)
	if len(m.snap.Partitions) > 0 {
		n++ // the header
	}
	if len(m.shedRows()) > 0 {
		n++
	}
	if len(m.queueItems()) > 0 {
		n++
	}
	return n
}

// topicsPanel draws the pane in n lines at most: title, header, the
// partitions' rows (cut with "↓ 3 more" where they do not fit) and the
// shedding line last.
func (m model) topicsPanel(w, n int) []string {
	if n <= 0 || m.hideTopics || !m.topicsPane() {
		return nil
	}
	st := m.st
	s := m.snap
	title := st.title.Render("TOPICS") + st.faint.Render("  lag per partition: records-lag and the age of the oldest unread · ┃ retention.time · t hides")
	switch {
	case len(s.Partitions) > 0:
	case len(m.queueItems()) > 0:
		title = st.title.Render("QUEUES") + st.faint.Render("  messages ready in the broker, redelivered and paged in so far · t hides")
	default:
		title = st.title.Render("LOAD SHEDDING") + st.faint.Render("  records shed per second in the last interval, and so far · t hides")
	}
	out := []string{title}
	var queue string
	if items := m.queueItems(); len(items) > 0 {
		queue = st.title.Render("QUEUE ") + fitItems(items, max(w-6, 0))
	}
	var shed string
	if rows := m.shedRows(); len(rows) > 0 {
		items := make([]string, 0, len(rows))
		for _, r := range rows {
			rate := rateText(r.Shed.Rate)
			if r.Shed.Rate > 0 {
				rate = st.low.Render(rate)
			}
			items = append(items, r.Vertex+" "+rate+st.faint.Render(" ("+countText(int64(r.Shed.Records))+" so far)"))
		}
		shed = st.title.Render("SHED ") + fitItems(items, max(w-5, 0))
	}
	room := n - 1
	if shed != "" {
		room--
	}
	if queue != "" {
		room--
	}
	if len(s.Partitions) > 0 && room > 0 {
		nameW, readerW := len("PARTITION"), len("READER")
		var maxLag uint64
		for _, p := range s.Partitions {
			nameW = max(nameW, len(p.Topic)+1+len(strconv.Itoa(p.Partition)))
			readerW = max(readerW, lipgloss.Width(fmt.Sprintf("%s[%d]", p.Reader, p.Subtask)))
			maxLag = max(maxLag, p.Lag)
		}
		nameW, readerW = min(nameW, max(w/5, 10)), min(readerW, max(w/6, 8))
		header := st.faint.Render("  " + fit("PARTITION", nameW, false) + "  " + fit("READER", readerW, false) + "  " +
			fit("LAG", lagBarW+1, false) + "  " + fit("RECORDS", partCountW, true) + "  " + fit("AGE", partAgeW, true) + "  " + fit("LOST", partCountW, true))
		out = append(out, header)
		rows := make([]string, 0, len(s.Partitions))
		for _, p := range s.Partitions {
			line := "  " + fit(p.Topic+"-"+strconv.Itoa(p.Partition), nameW, false) + "  " +
				fit(fmt.Sprintf("%s[%d]", p.Reader, p.Subtask), readerW, false) + "  " + m.lagBar(p, maxLag) + "  " +
				fit(countText(int64(p.Lag)), partCountW, true) + "  " + fit(ageText(p.LagS), partAgeW, true) + "  "
			lost := fit(countText(int64(p.LostToRetention)), partCountW, true)
			if p.LostToRetention > 0 {
				lost = st.high.Render(lost)
			}
			rows = append(rows, line+lost)
		}
		k := room - 1
		if k > 0 && k < len(rows) {
			rows = append(rows[:k-1], st.faint.Render(fmt.Sprintf("   ↓ %d more", len(rows)-(k-1))))
		}
		out = append(out, rows[:max(min(k, len(rows)), 0)]...)
	}
	if queue != "" && len(out) < n {
		out = append(out, queue)
	}
	if shed != "" && len(out) < n {
		out = append(out, shed)
	}
	return out[:min(len(out), n)]
}

// lagBar draws p's lag in lagBarW cells and the retention mark: the age
// against the topic's retention.time (red from half of it on, full and
// past the mark once records are deleted unread), or without one the
// records lag against maxLag, the largest of the pane.
func (m model) lagBar(p sim.PartitionSample, maxLag uint64) string {
	st := m.st
	var ret des.Time
	if m.g.plan != nil {
		if tp := m.g.plan.Topic(p.Topic); tp != nil {
			ret = tp.Retention.Time
		}
	}
	var frac float64
	style := st.ok
	mark := st.faint.Render(" ")
	if ret > 0 {
		frac = p.LagS / ret.Seconds()
		mark = st.bold.Render("┃")
		switch {
		case frac >= 1:
			style = st.high
		case frac >= 0.5:
			style = st.low
		}
	} else if maxLag > 0 {
		frac = float64(p.Lag) / float64(maxLag)
	}
	fill := min(int(frac*lagBarW+0.5), lagBarW)
	if p.Lag > 0 && fill == 0 {
		fill = 1 // a lag shows
	}
	return style.Render(strings.Repeat("█", fill)) + st.faint.Render(strings.Repeat("░", lagBarW-fill)) + mark
}

// ageText formats a lag's age in seconds: "60.3s", "0".
func ageText(s float64) string { return durationText(des.FromSeconds(s)) }
