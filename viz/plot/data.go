package plot

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim"
)

// Names of the files of a run directory (`dspalab run --out DIR`).
const (
	TimeseriesFile  = "timeseries.csv"
	EventsFile      = "events.jsonl"
	SummaryFile     = "summary.json"
	CheckpointsFile = "checkpoints.csv"
)

// The columns of timeseries.csv that are not metrics.
var keyColumns = map[string]bool{"time_s": true, "vertex": true, "kind": true, "subtask": true, "status": true}

// Series is one vertex (Subtask -1) or one subtask over time.
type Series struct {
	Vertex  string
	Kind    string // source, operator or sink
	Subtask int    // -1 for the vertex as a whole
	// Time holds the ends of the metrics intervals, simulated seconds.
	Time []float64
	// Values holds the kept metrics by column name, one value per Time;
	// NaN where the file's cell is empty (a latency with no record).
	Values map[string][]float64
}

// Name returns "vertex" or "vertex[subtask]".
func (s *Series) Name() string {
	if s.Subtask < 0 {
		return s.Vertex
	}
	return fmt.Sprintf("%s[%d]", s.Vertex, s.Subtask)
}

// Timeseries is what was read of a timeseries.csv.
type Timeseries struct {
	// Metrics are the file's metric columns (all but time_s, vertex,
	// kind, subtask and status), in file order.
	Metrics []string
	// Vertices are the file's vertices, in order of first appearance
	// (the topological order of the job).
	Vertices []string
	// Series are the series kept by the filter, by vertex then subtask.
	Series []*Series
}

// TimeseriesFilter says what ReadTimeseries keeps, so that a long run's
// file need not be held in memory whole.
type TimeseriesFilter struct {
	// Metrics are the columns to keep; nil keeps every metric.
	Metrics []string
	// Vertices are the vertices to keep; nil keeps all.
	Vertices []string
	// Subtasks keeps the subtask rows (subtask >= 0) instead of the rows
	// of whole vertices (subtask -1).
	Subtasks bool
	// Optional are columns kept too when the file has them.
	Optional []string
}

// ReadTimeseries reads a timeseries.csv (sim.TimeseriesColumns, or any CSV
// with the columns time_s, vertex and subtask and numeric metric columns).
// It returns an *UnknownError for a metric of the filter that the file
// lacks or a vertex it never names, and an error for a file that is not
// such a CSV; a cell that is not a number reads as NaN.
func ReadTimeseries(r io.Reader, f TimeseriesFilter) (*Timeseries, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 64<<10))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &NoDataError{Msg: TimeseriesFile + " is empty"}
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", TimeseriesFile, err)
	}
	header = slices.Clone(header)
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range []string{"time_s", "vertex", "subtask"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s has no %s column: is it a dspalab timeseries.csv? (columns: %s)", TimeseriesFile, need, strings.Join(header, ", "))
		}
	}
	ts := &Timeseries{}
	for _, h := range header {
		if !keyColumns[h] {
			ts.Metrics = append(ts.Metrics, h)
		}
	}
	keep := f.Metrics
	if keep == nil {
		keep = ts.Metrics
	}
	for _, m := range keep {
		if !slices.Contains(ts.Metrics, m) {
			return nil, &UnknownError{What: "metric", Name: m, Valid: ts.Metrics}
		}
	}
	if f.Metrics != nil {
		for _, m := range f.Optional {
			if slices.Contains(ts.Metrics, m) && !slices.Contains(keep, m) {
				keep = append(slices.Clone(keep), m)
			}
		}
	}
	wantVertex := map[string]bool{}
	for _, v := range f.Vertices {
		wantVertex[v] = true
	}
	seenVertex := map[string]bool{}
	byKey := map[string]*Series{}
	tcol, vcol, scol := col["time_s"], col["vertex"], col["subtask"]
	kcol, hasKind := col["kind"]
	line := 1
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", TimeseriesFile, err)
		}
		v := rec[vcol]
		if !seenVertex[v] {
			seenVertex[v] = true
			ts.Vertices = append(ts.Vertices, v)
		}
		if len(wantVertex) > 0 && !wantVertex[v] {
			continue
		}
		sub, err := strconv.Atoi(rec[scol])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: subtask %q is not a whole number", TimeseriesFile, line, rec[scol])
		}
		if (sub >= 0) != f.Subtasks {
			continue
		}
		t := parseNum(rec[tcol])
		if math.IsNaN(t) {
			return nil, fmt.Errorf("%s line %d: time_s %q is not a number", TimeseriesFile, line, rec[tcol])
		}
		key := v + "\x00" + rec[scol]
		s := byKey[key]
		if s == nil {
			s = &Series{Vertex: v, Subtask: sub, Values: map[string][]float64{}}
			if hasKind {
				s.Kind = rec[kcol]
			}
			byKey[key] = s
			ts.Series = append(ts.Series, s)
		}
		s.Time = append(s.Time, t)
		for _, m := range keep {
			s.Values[m] = append(s.Values[m], parseNum(rec[col[m]]))
		}
	}
	for _, v := range f.Vertices {
		if !seenVertex[v] {
			return nil, &UnknownError{What: "vertex", Name: v, Valid: ts.Vertices}
		}
	}
	order := map[string]int{}
	for i, v := range ts.Vertices {
		order[v] = i
	}
	slices.SortStableFunc(ts.Series, func(a, b *Series) int {
		if d := order[a.Vertex] - order[b.Vertex]; d != 0 {
			return d
		}
		return a.Subtask - b.Subtask
	})
	return ts, nil
}

// parseNum reads a CSV cell; NaN for an empty or non-numeric one.
func parseNum(s string) float64 {
	if s == "" {
		return math.NaN()
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return x
}

// Event is one line of events.jsonl.
type Event struct {
	Time    float64 // simulated seconds
	Type    string
	Vertex  string
	Message string
	// Fields holds every field of the line, for the event types that
	// carry more (a checkpoint's id, a failure's worker).
	Fields map[string]json.RawMessage
}

// ReadEvents reads events.jsonl: one JSON object a line with at least
// time_s and type. Blank lines are skipped; a line that is not such an
// object is an error naming it.
func ReadEvents(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var evs []Event
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, fmt.Errorf("%s line %d: %v", EventsFile, line, err)
		}
		e := Event{Fields: fields}
		if err := json.Unmarshal(fields["time_s"], &e.Time); err != nil {
			return nil, fmt.Errorf("%s line %d: time_s is not a number", EventsFile, line)
		}
		if err := json.Unmarshal(fields["type"], &e.Type); err != nil {
			return nil, fmt.Errorf("%s line %d: type is not a string", EventsFile, line)
		}
		json.Unmarshal(fields["vertex"], &e.Vertex)
		json.Unmarshal(fields["message"], &e.Message)
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", EventsFile, err)
	}
	return evs, nil
}

// Checkpoint is one checkpoint's span, from its trigger to its end
// (completion, failure or time-out).
type Checkpoint struct {
	ID         string
	Start, End float64 // simulated seconds
	Status     string  // "completed", "failed", ... ("" if unknown)
}

// Failed reports whether the checkpoint did not complete.
func (c Checkpoint) Failed() bool {
	s := strings.ToLower(c.Status)
	return s != "" && !strings.Contains(s, "complet")
}

// ReadCheckpoints reads checkpoints.csv, one row per checkpoint. The
// columns are found by name: the trigger time is the first column whose
// name holds "trigger" (seconds, or milliseconds when it ends in _ms),
// else start_s or time_s; the end is a column holding "end", "complet" or
// "ack" in seconds, else the trigger plus a duration column (one holding
// "duration", preferring "end_to_end"; _ms or _s); the status is the
// column "status"; the id "id" or "checkpoint_id". Rows without a trigger
// time or an end are skipped.
func ReadCheckpoints(r io.Reader) ([]Checkpoint, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", CheckpointsFile, err)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	h := recs[0]
	find := func(pred func(string) bool) int {
		for i, c := range h {
			if pred(strings.ToLower(c)) {
				return i
			}
		}
		return -1
	}
	seconds := func(name string) float64 {
		if strings.HasSuffix(strings.ToLower(name), "_ms") {
			return 1e-3
		}
		return 1
	}
	start := find(func(c string) bool { return strings.Contains(c, "trigger") && !strings.Contains(c, "duration") })
	if start < 0 {
		start = find(func(c string) bool { return c == "start_s" || c == "time_s" })
	}
	end := find(func(c string) bool {
		return (strings.Contains(c, "end") || strings.Contains(c, "complet") || strings.Contains(c, "ack")) &&
			!strings.Contains(c, "duration") && !strings.Contains(c, "end_to_end") && strings.HasSuffix(c, "_s")
	})
	dur := find(func(c string) bool { return strings.Contains(c, "duration") && strings.Contains(c, "end_to_end") })
	if dur < 0 {
		dur = find(func(c string) bool {
			return strings.Contains(c, "duration") && !strings.Contains(c, "sync") && !strings.Contains(c, "align")
		})
	}
	status := find(func(c string) bool { return c == "status" })
	id := find(func(c string) bool { return c == "id" || c == "checkpoint_id" || c == "checkpoint" })
	if start < 0 || end < 0 && dur < 0 {
		return nil, fmt.Errorf("%s: found no trigger time and end or duration columns (columns: %s)", CheckpointsFile, strings.Join(h, ", "))
	}
	var cps []Checkpoint
	for _, rec := range recs[1:] {
		cp := Checkpoint{Start: parseNum(rec[start]) * seconds(h[start])}
		if end >= 0 {
			cp.End = parseNum(rec[end]) * seconds(h[end])
		} else {
			cp.End = cp.Start + parseNum(rec[dur])*seconds(h[dur])
		}
		if status >= 0 {
			cp.Status = rec[status]
		}
		if id >= 0 {
			cp.ID = rec[id]
		}
		if math.IsNaN(cp.Start) || math.IsNaN(cp.End) || cp.End < cp.Start {
			continue
		}
		cps = append(cps, cp)
	}
	return cps, nil
}

// CheckpointsFromEvents pairs checkpoint events: an event whose type holds
// "checkpoint" and "trigger" starts a checkpoint, one whose type holds
// "checkpoint" and "complet", "fail", "time", "expire", "abort" or
// "declin" ends it. Events are paired by a checkpoint id (the field
// "checkpoint_id", "checkpoint" or "id") when they carry one; an end
// without an id ends the oldest open checkpoint. A checkpoint still open at the last
// event ends at end.
func CheckpointsFromEvents(evs []Event, end float64) []Checkpoint {
	var cps []Checkpoint
	open := map[string]int{} // id -> index in cps
	var fifo []int
	for _, e := range evs {
		t := strings.ToLower(e.Type)
		if !strings.Contains(t, "checkpoint") {
			continue
		}
		id := eventID(e)
		switch {
		case strings.Contains(t, "trigger"):
			cps = append(cps, Checkpoint{ID: id, Start: e.Time, End: math.NaN()})
			if id != "" {
				open[id] = len(cps) - 1
			}
			fifo = append(fifo, len(cps)-1)
		case containsAny(t, "complet", "fail", "time", "expire", "abort", "declin"):
			k := -1
			if id != "" {
				if i, ok := open[id]; ok {
					k = i
					delete(open, id)
				}
			} else {
				for len(fifo) > 0 && !math.IsNaN(cps[fifo[0]].End) {
					fifo = fifo[1:]
				}
				if len(fifo) > 0 {
					k = fifo[0]
				}
			}
			if k < 0 {
				continue
			}
			cps[k].End = e.Time
			cps[k].Status = "completed"
			if !strings.Contains(t, "complet") {
				cps[k].Status = "failed"
			}
		}
	}
	for i := range cps {
		if math.IsNaN(cps[i].End) {
			cps[i].End = max(end, cps[i].Start)
			cps[i].Status = "in progress"
		}
	}
	return cps
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// eventID returns an event's checkpoint id, if it has one, as text.
func eventID(e Event) string {
	for _, k := range []string{"checkpoint_id", "checkpoint", "id"} {
		if raw, ok := e.Fields[k]; ok {
			return strings.Trim(string(raw), `"`)
		}
	}
	return ""
}

// Marker kinds: vertical lines at failures and recoveries.
const (
	MarkerFailure  = "failure"
	MarkerRecovery = "recovery"
)

// Marker is a vertical line at an event.
type Marker struct {
	Time float64
	Kind string // MarkerFailure or MarkerRecovery
	Type string // the event's type
}

// MarkersFromEvents returns a marker for each failure (an event whose type
// holds "fail") and each recovery (a type holding "recover"), one per
// failure: the events that follow a failure and also hold "fail" are left
// out, so that one failure is not marked twice. Those are its detection
// (failure_detected), the end of the job it causes (job_failed, job_lost:
// types starting "job"), and checkpoints (checkpoint_failed).
func MarkersFromEvents(evs []Event) []Marker {
	var ms []Marker
	for _, e := range evs {
		t := strings.ToLower(e.Type)
		switch {
		case strings.Contains(t, "checkpoint"), strings.HasPrefix(t, "job"):
		case strings.Contains(t, "recover"):
			ms = append(ms, Marker{Time: e.Time, Kind: MarkerRecovery, Type: e.Type})
		case strings.Contains(t, "fail") && !strings.Contains(t, "detect"):
			ms = append(ms, Marker{Time: e.Time, Kind: MarkerFailure, Type: e.Type})
		}
	}
	return ms
}

// Run is what a figure needs of one run's outputs.
type Run struct {
	// Label names the run in legends (its directory, usually).
	Label      string
	Timeseries *Timeseries
	// Summary is summary.json, nil when absent.
	Summary *sim.Summary
	// Events is events.jsonl, nil when absent.
	Events []Event
	// Checkpoints come from checkpoints.csv when present, else from
	// the checkpoint events.
	Checkpoints []Checkpoint
	Markers     []Marker
}

// ReadRun reads a run directory through fsys: timeseries.csv (required,
// read with the filter), and summary.json, events.jsonl and
// checkpoints.csv when present.
func ReadRun(fsys fs.FS, label string, f TimeseriesFilter) (*Run, error) {
	run := &Run{Label: label}
	tf, err := fsys.Open(TimeseriesFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s: is it the --out directory of dspalab run?", label, TimeseriesFile)
		}
		return nil, err
	}
	run.Timeseries, err = ReadTimeseries(tf, f)
	tf.Close()
	if err != nil {
		var ue *UnknownError
		if errors.As(err, &ue) {
			ue.In = label
			return nil, ue
		}
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if data, err := fs.ReadFile(fsys, SummaryFile); err == nil {
		var s sim.Summary
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: reading %s: %w", label, SummaryFile, err)
		}
		run.Summary = &s
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if ef, err := fsys.Open(EventsFile); err == nil {
		run.Events, err = ReadEvents(ef)
		ef.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if cf, err := fsys.Open(CheckpointsFile); err == nil {
		run.Checkpoints, err = ReadCheckpoints(cf)
		cf.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		run.Checkpoints = CheckpointsFromEvents(run.Events, run.End())
	} else {
		return nil, err
	}
	run.Markers = MarkersFromEvents(run.Events)
	return run, nil
}

// End returns the simulated time the run reached: the summary's, else the
// last sample's.
func (r *Run) End() float64 {
	if r.Summary != nil {
		return r.Summary.SimulatedS
	}
	end := 0.0
	if r.Timeseries != nil {
		for _, s := range r.Timeseries.Series {
			if n := len(s.Time); n > 0 {
				end = max(end, s.Time[n-1])
			}
		}
	}
	return end
}

// Warmup returns the warmup in simulated seconds (0 without a summary).
func (r *Run) Warmup() float64 {
	if r.Summary != nil {
		return r.Summary.WarmupS
	}
	return 0
}
