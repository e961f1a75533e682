package sim

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// TimeseriesColumns are the columns of timeseries.csv, in order. Units are
// in the names: _s simulated seconds, _rps records per simulated second,
// _ms_per_s milliseconds per simulated second, _ms milliseconds.
var TimeseriesColumns = []string{
	"time_s", "vertex", "kind", "subtask",
	"in_rate_rps", "out_rate_rps", "queued_records", "queued_buffers",
	"busy_ms_per_s", "idle_ms_per_s", "backpressured_ms_per_s", "down_ms_per_s", "status",
	"latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_max_ms",
	"source_lag_records", "dropped_records", "state_bytes",
}

// EventTimeColumns follow TimeseriesColumns in the timeseries.csv of a
// job with event time (watermarks or windows): Flink's
// currentInputWatermark and currentOutputWatermark in seconds of event
// time (empty before the first), the watermark lag (time_s − the input
// watermark), numLateRecordsDropped so far (window operators), and the
// event-time lag of what a sink wrote in the interval (p50, p99).
var EventTimeColumns = []string{
	"current_input_watermark_s", "current_output_watermark_s", "watermark_lag_s",
	"num_late_records_dropped", "event_time_lag_p50_ms", "event_time_lag_p99_ms",
}

// WriteSummaryJSON writes s as indented JSON (summary.json).
func WriteSummaryJSON(w io.Writer, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("sim: encoding summary: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// StreamWriter is an Observer that writes samples as timeseries.csv rows
// and events as events.jsonl lines while the run goes on, so neither grows
// in memory. Either writer may be nil. Check Err (or Flush) at the end.
type StreamWriter struct {
	ts     *csv.Writer
	parts  *csv.Writer // partitions.csv, nil unless WritePartitions
	ev     io.Writer
	err    error
	header bool
	rec    []string
}

// NewStreamWriter returns a StreamWriter writing CSV to timeseries and
// JSON lines to events.
func NewStreamWriter(timeseries, events io.Writer) *StreamWriter {
	sw := &StreamWriter{ev: events, rec: make([]string, len(TimeseriesColumns))}
	if timeseries != nil {
		sw.ts = csv.NewWriter(timeseries)
	}
	return sw
}

// WritePartitions makes sw write partitions.csv to w as well: its
// header now (a run that samples nothing still has it), then each
// sample's Partitions.
func (sw *StreamWriter) WritePartitions(w io.Writer) {
	sw.parts = csv.NewWriter(w)
	sw.fail(sw.parts.Write(PartitionColumns))
}

// Sample writes one CSV row per Row of s (and the header before the
// first), and the rows of its partitions.
func (sw *StreamWriter) Sample(s *Sample) {
	if sw.parts != nil && sw.err == nil {
		sw.fail(WritePartitionRows(sw.parts, s))
	}
	if sw.ts == nil || sw.err != nil {
		return
	}
	if !sw.header {
		sw.header = true
		header := TimeseriesColumns
		if s.EventTime {
			header = append(append([]string(nil), header...), EventTimeColumns...)
		}
		if s.Graph {
			header = append(append([]string(nil), header...), GraphColumns...)
		}
		if s.Shedding {
			header = append(append([]string(nil), header...), ShedColumns...)
		}
		header = append(append([]string(nil), header...), s.Counters...)
		if s.Groups {
			header = append(append([]string(nil), header...), GroupColumns...)
		}
		sw.fail(sw.ts.Write(header))
	}
	t := num(s.Time.Seconds())
	for _, r := range s.Rows {
		lag, dropped, state := "", "", ""
		if r.Kind == KindConsumer {
			lag = strconv.FormatInt(r.SourceLag, 10)
		}
		if r.Kind == KindSource {
			lag, dropped = strconv.FormatInt(r.SourceLag, 10), strconv.FormatUint(r.Dropped, 10)
		}
		if r.Kind == KindOperator {
			state = strconv.FormatInt(r.StateBytes, 10)
		}
		rec := sw.rec[:0]
		rec = append(rec, t, r.Vertex, r.Kind, strconv.Itoa(r.Subtask),
			num(r.InRate), num(r.OutRate), strconv.Itoa(r.QueuedRecords), strconv.Itoa(r.QueuedBuffers),
			num(r.Busy), num(r.Idle), num(r.Backpressured), num(r.Down), r.Status,
			num(r.LatencyP50), num(r.LatencyP90), num(r.LatencyP99), num(r.LatencyMax),
			lag, dropped, state)
		if s.EventTime {
			rec = r.EventTime.appendCSV(rec, r.Kind)
		}
		if s.Graph {
			rec = r.Graph.appendCSV(rec)
		}
		if s.Shedding {
			rec = r.Shed.appendCSV(rec)
		}
		rec = appendCounters(rec, &r)
		for range len(s.Counters) - len(r.Counters) { // a consumer group's row has none
			rec = append(rec, "")
		}
		if s.Groups {
			rec = r.Group.appendCSV(rec)
		}
		sw.fail(sw.ts.Write(rec))
	}
}

// eventJSON is the shape of one line of events.jsonl.
type eventJSON struct {
	TimeS      float64 `json:"time_s"`
	Type       string  `json:"type"`
	Vertex     string  `json:"vertex,omitempty"`
	From       string  `json:"from,omitempty"`
	To         string  `json:"to,omitempty"`
	Checkpoint int64   `json:"checkpoint_id,omitempty"`
	Worker     *int    `json:"worker,omitempty"` // failure events of a worker
	Message    string  `json:"message"`
}

// Event writes e as one JSON line.
func (sw *StreamWriter) Event(e Event) {
	if sw.ev == nil || sw.err != nil {
		return
	}
	ev := eventJSON{TimeS: round6(e.Time.Seconds()), Type: e.Type, Vertex: e.Vertex, From: e.From, To: e.To, Checkpoint: e.Checkpoint, Message: e.Message}
	if e.Type == EventFailure && e.Worker >= 0 {
		w := e.Worker
		ev.Worker = &w
	}
	b, err := json.Marshal(ev)
	if err == nil {
		b = append(b, '\n')
		_, err = sw.ev.Write(b)
	}
	sw.fail(err)
}

// Flush flushes the CSV writer and returns the first error seen.
func (sw *StreamWriter) Flush() error {
	for _, w := range [...]*csv.Writer{sw.ts, sw.parts} {
		if w != nil {
			w.Flush()
			sw.fail(w.Error())
		}
	}
	return sw.err
}

func (sw *StreamWriter) fail(err error) {
	if err != nil && sw.err == nil {
		sw.err = fmt.Errorf("sim: writing outputs: %w", err)
	}
}

// num formats a metric for CSV: up to 3 decimals, empty for NaN.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64)
}

// WriteTable writes the human summary: a table per vertex, run totals and
// the diagnosis.
func WriteTable(w io.Writer, s *Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", s.Scenario)
	if s.Description != "" {
		fmt.Fprintf(&b, ": %s", s.Description)
	}
	fmt.Fprintf(&b, "\nsimulated %s, seed %d; statistics over %s..%s", seconds(s.SimulatedS), s.Seed, seconds(s.Window.FromS), seconds(s.Window.ToS))
	if s.Partial {
		fmt.Fprintf(&b, "\nPARTIAL: %s", s.PartialReason)
	}
	b.WriteString("\n\n")
	rows := [][]string{{"VERTEX", "KIND", "P", "IN/s", "OUT/s", "BUSY", "BACKPRESSURED", "STATUS", "LAT p50", "LAT p99"}}
	for _, r := range tableRows(s) {
		v := r.VertexSummary
		in, out := rate(v.InRate), rate(v.OutRate)
		if r.noIn {
			in = "-"
		}
		if r.noOut {
			out = "-"
		}
		rows = append(rows, []string{v.Name, v.Kind, strconv.Itoa(v.Parallelism), in, out,
			pct(v.Busy), pct(v.Backpressured), v.Status, latencyCell(v.LatencyP50), latencyCell(v.LatencyP99)})
	}
	job := len(s.Vertices) > 0 // else only producers and consumer groups
	if job {
		writeColumns(&b, rows, 2) // names and kinds left, numbers right
	}
	for _, r := range tableRows(s) {
		if len(r.through) > 0 {
			fmt.Fprintf(&b, "%s\n", throughText(r))
		}
	}
	for _, r := range tableRows(s) {
		v := r.VertexSummary
		if v.Parallelism < 2 || v.Parallelism > 16 || v.Busy-minBusy(v.Subtasks) < 0.2 {
			continue
		}
		busy := make([]string, len(v.Subtasks))
		for i, st := range v.Subtasks {
			busy[i] = pct(st.Busy)
		}
		fmt.Fprintf(&b, "%s subtasks 0..%d busy: %s\n", v.Name, v.Parallelism-1, strings.Join(busy, " "))
	}
	for _, tr := range s.Trends {
		fmt.Fprintf(&b, "%s\n", trendText(tr, s))
	}
	t := s.Totals
	if job {
		fmt.Fprintf(&b, "\nrecords: %d emitted", t.Emitted)
	} else {
		fmt.Fprintf(&b, "no Flink job: producers and consumer groups only")
	}
	if d := s.Delivery; d != nil && d.Replayed > 0 {
		fmt.Fprintf(&b, " incl. %d replays", d.Replayed)
	}
	// Every write, as the emitted count above: the delivery line's
	// "delivered" counts each record once, once visible.
	if job {
		fmt.Fprintf(&b, ", %d reached the sinks", t.Delivered)
		if d := s.Delivery; d != nil && d.Replayed > 0 {
			b.WriteString(" incl. replays")
		}
		fmt.Fprintf(&b, ", %d in flight, %d dropped", t.InFlight, t.Dropped)
	}
	if t.SourceLag > 0 {
		fmt.Fprintf(&b, "; source lag %s", plural.Count(int64(t.SourceLag), "record"))
	}
	if c := s.Checkpoints; c != nil {
		fmt.Fprintf(&b, "\ncheckpoints (%s, every %s, timeout %s): %d triggered, %d completed, %d failed",
			c.Mode, seconds(c.IntervalS), seconds(c.TimeoutS), c.Triggered, c.Completed, c.Failed)
		if c.InProgress > 0 {
			fmt.Fprintf(&b, ", %d in progress at the end", c.InProgress)
		}
		if c.LastDuration != nil && c.MaxDuration != nil {
			fmt.Fprintf(&b, "; last took %s, longest %s", FormatTime(des.Time(*c.LastDuration*1e6)), FormatTime(des.Time(*c.MaxDuration*1e6)))
		}
		if c.Triggered > 0 {
			fmt.Fprintf(&b, "; longest alignment %s, start delay %s", FormatTime(des.Time(c.MaxAlignment*1e6)), FormatTime(des.Time(c.MaxStartDelay*1e6)))
		}
	}
	if c := s.Checkpoints; c != nil && c.Triggered > 0 {
		fmt.Fprintf(&b, "; in progress %s of the time", pct(c.Overhead))
		if c.SourcesHeld > 0 {
			fmt.Fprintf(&b, ", sources held %s", pct(c.SourcesHeld))
		}
	}
	if c := s.Checkpoints; c != nil && (c.LastSize > 0 || c.MaxPersisted > 0) {
		fmt.Fprintf(&b, "; last size %s", scenario.FormatByteSize(c.LastSize))
		if c.MaxPersisted > 0 {
			fmt.Fprintf(&b, ", in-flight data persisted up to %s", scenario.FormatByteSize(c.MaxPersisted))
		}
	}
	if d := s.Delivery; d != nil && (len(d.Sinks) > 0) {
		running := s.Recovery == nil || s.Recovery.JobState == JobRunning || s.Recovery.JobState == JobRestarting
		fmt.Fprintf(&b, "\n%s", deliveryText(d, running))
	}
	for i := range s.Topics {
		if ts := &s.Topics[i]; len(ts.PartitionList) == 0 && s.groupReads(ts.Name) {
			continue // its consumer groups' lines say how it is read
		}
		fmt.Fprintf(&b, "\n%s", topicText(&s.Topics[i]))
	}
	for i := range s.Queues {
		fmt.Fprintf(&b, "\n%s", queueText(&s.Queues[i]))
	}
	for i := range s.ConsumerGroups {
		fmt.Fprintf(&b, "\n%s", groupText(&s.ConsumerGroups[i]))
	}
	if d := s.Delivery; d != nil {
		for i := range d.Sinks {
			if k := &d.Sinks[i]; k.Dedup != nil {
				fmt.Fprintf(&b, "\n%s", dedupText(k))
			}
		}
	}
	if r := s.Recovery; r != nil && (r.Failures > 0 || r.JobState != JobRunning) {
		fmt.Fprintf(&b, "\nrecovery: %s%s, %s; %s", plural.Count(r.Failures, "failure"), r.causesText(), plural.Count(r.Restarts, "restart"), downtimeText(r))
		if r.MaxRecoveryTime != 0 && !r.SourcesReplayable && r.Restarts > 0 {
			b.WriteString("; no backlog to catch up: the source is not replayable")
			if s.Delivery != nil && s.Delivery.Lost > 0 {
				b.WriteString(" (the records inside the job when it failed are lost, not replayed)")
			}
		} else if r.MaxRecoveryTime > 0 {
			if len(r.Failovers) > 1 {
				fmt.Fprintf(&b, "; processing again at most %s after a failure", seconds(r.MaxRecoveryTime))
			}
			switch {
			case r.MaxCatchUpTime > 0:
				fmt.Fprintf(&b, "; caught up with the backlog %s after the failure", seconds(r.MaxCatchUpTime))
				if len(r.Failovers) > 1 {
					b.WriteString(" at most")
				}
				if i := r.interrupted(); i >= 0 {
					fmt.Fprintf(&b, " (the job failed again at %s, before it had caught up from the failure at %s)",
						seconds(r.Failovers[i+1].FailedS), seconds(r.Failovers[i].FailedS))
				}
			case r.MaxCatchUpTime < 0:
				b.WriteString("; not caught up with the backlog by the end")
				if fo := r.notCaughtUp(); fo != nil && s.Totals.SourceLag > 0 {
					fmt.Fprintf(&b, " (source lag %d records, %d when the job failed at %s and %d when it ran again",
						s.Totals.SourceLag, fo.LagAtFailure, seconds(fo.FailedS), fo.LagAtRecovery)
					if int64(s.Totals.SourceLag) >= fo.LagAtRecovery {
						b.WriteString(": it kept growing")
					}
					b.WriteString(")")
				}
			}
		}
		fmt.Fprintf(&b, "; job %s", r.JobState)
		if fo := r.unnoticed(); fo != nil {
			fmt.Fprintf(&b, " (%s)", fo.Cause)
		}
		if r.Message != "" {
			fmt.Fprintf(&b, "\n  %s", r.Message)
		}
		if r.FailoversCount > 0 {
			fmt.Fprintf(&b, "\n  %s", r.ListedText())
		}
	}
	if r := s.Recovery; r != nil {
		b.WriteString(WithoutEffectText(r.WithoutEffect, r.WithoutEffectCount))
	}
	for _, g := range s.Graphs {
		fmt.Fprintf(&b, "\n%s", graphText(g))
	}
	if job {
		fmt.Fprintf(&b, "\nbusy and back-pressured are each the maximum over a vertex's subtasks (they may come from different subtasks and sum past 100%%); status: OK <= 10%% < LOW <= 50%% < HIGH\n")
	} else {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\ndiagnosis: %s\n", s.Diagnosis.Message)
	for _, e := range s.Diagnosis.Evidence {
		fmt.Fprintf(&b, "  - %s\n", e)
	}
	if et := s.EventTime; et != nil {
		for _, d := range et.Diagnosis {
			fmt.Fprintf(&b, "event time: %s\n", d)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// downtimeText says how long the job was down and how that splits:
// "down 12.02s from the failure to running again (10s detection, 2s
// restart delay, 19.766ms restore)".
func downtimeText(r *RecoverySummary) string {
	t := fmt.Sprintf("down %s from the failure to running again", seconds(r.DowntimeS))
	switch {
	case len(r.Failovers) == 1 && r.Failovers[0].RecoveredS < 0:
		t = fmt.Sprintf("down %s from the failure to the end", seconds(r.DowntimeS))
	case r.JobState != JobRunning || r.unnoticed() != nil:
		t = fmt.Sprintf("down %s in all, from each failure to running again or to the end", seconds(r.DowntimeS))
	case len(r.Failovers) > 1:
		t = fmt.Sprintf("down %s in all, from each failure to running again", seconds(r.DowntimeS))
	}
	if r.DowntimeS <= 0 {
		return t
	}
	t += " (" + downtimeSplit(des.FromSeconds(r.DetectionS), des.FromSeconds(r.RestartDelayS), des.FromSeconds(r.RestoreS))
	if r.TerminalS > 0 {
		t += fmt.Sprintf(", then %s %s", seconds(r.TerminalS), r.JobState)
	}
	if r.unnoticed() != nil {
		t += " so far"
	}
	return t + ")"
}

// seconds formats simulated seconds for people (see FormatTime).
func seconds(x float64) string { return FormatTime(des.FromSeconds(x)) }

// FormatTime formats simulated time for people, the same way everywhere:
// scenario.FormatDuration of t rounded to the microsecond below a second,
// to the millisecond below 1000s, and to the tenth of a second
// above ("250µs", "20ms", "13.882s", "4h4m19.7s").
func FormatTime(t des.Time) string {
	neg := t < 0
	if neg {
		t = -t
	}
	var unit des.Time
	switch {
	case t < des.Microsecond:
		unit = 1
	case t < des.Second:
		unit = des.Microsecond
	case t < 1000*des.Second:
		unit = des.Millisecond
	default:
		unit = 100 * des.Millisecond
	}
	if t <= des.Never-unit/2 {
		t += unit / 2
	}
	t = t / unit * unit
	if neg {
		return "-" + scenario.FormatDuration(t)
	}
	return scenario.FormatDuration(t)
}

func minBusy(ss []SubtaskSummary) float64 {
	m := 1.0
	for _, s := range ss {
		m = min(m, s.Busy)
	}
	return m
}

// writeColumns lays rows out in columns two spaces apart; the first
// `left` columns are aligned left, the others right.
func writeColumns(b *strings.Builder, rows [][]string, left int) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		line := ""
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i < left {
				line += c + pad
			} else {
				line += pad + c
			}
			if i < len(r)-1 {
				line += "  "
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

func rate(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	default:
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
}

func latencyCell(ms *float64) string {
	if ms == nil {
		return "-"
	}
	return FormatLatency(*ms)
}

// FormatLatency writes a latency in milliseconds to three significant
// digits or so, as the table of dspalab run and the report show
// latencies: "5.08s" from 1s, "77.8ms" from 1ms, "850µs" below.
func FormatLatency(ms float64) string {
	switch {
	case ms >= 1000:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + "s"
	case ms >= 1:
		return strconv.FormatFloat(ms, 'f', 1, 64) + "ms"
	default:
		return strconv.FormatFloat(ms*1000, 'f', 0, 64) + "µs"
	}
}
