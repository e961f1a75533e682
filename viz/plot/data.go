package plot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
)

// The types of what is read of a run directory, owned by runfiles (the
// one owner of dspalab's output files); plot draws them.
type (
	// Series is one vertex (Subtask -1) or one subtask over time
	// (runfiles.Series).
	Series = runfiles.Series
	// Timeseries is what was read of a timeseries.csv
	// (runfiles.Timeseries).
	Timeseries = runfiles.Timeseries
	// TimeseriesFilter says what ReadTimeseries keeps
	// (runfiles.TimeseriesFilter).
	TimeseriesFilter = runfiles.TimeseriesFilter
	// Event is one line of events.jsonl (runfiles.Event).
	Event = runfiles.Event
)

// parseNum reads a CSV cell; NaN for an empty, non-numeric or
// non-finite one.
var parseNum = runfiles.ParseNum

// ReadTimeseries reads a timeseries.csv through runfiles.ReadTimeseries
// (which names the file and line of every error, and refuses times that
// are not simulated times). It returns an *UnknownError for a metric of
// the filter that the file lacks or a vertex it never names, and a
// *NoDataError for an empty file; a cell that is not a finite number
// reads as NaN.
func ReadTimeseries(r io.Reader, f TimeseriesFilter) (*Timeseries, error) {
	return readTimeseries(r, runfiles.TimeseriesFile, f)
}

func readTimeseries(r io.Reader, name string, f TimeseriesFilter) (*Timeseries, error) {
	ts, err := runfiles.ReadTimeseries(r, name, f)
	if errors.Is(err, runfiles.ErrEmpty) {
		return nil, &NoDataError{Msg: runfiles.TimeseriesFile + " is empty"}
	}
	if err != nil {
		return nil, err
	}
	for _, m := range f.Metrics {
		if !slices.Contains(ts.Metrics, m) {
			return nil, &UnknownError{What: "metric", Name: m, Valid: ts.Metrics}
		}
	}
	for _, v := range f.Vertices {
		if !slices.Contains(ts.Vertices, v) {
			return nil, &UnknownError{What: "vertex", Name: v, Valid: ts.Vertices}
		}
	}
	return ts, nil
}

// ReadEvents reads events.jsonl (runfiles.ReadEvents): one JSON object a
// line with at least time_s and type. Blank lines are skipped; a line
// that is not such an object is an error naming it.
func ReadEvents(r io.Reader) ([]Event, error) {
	return runfiles.ReadEvents(r, runfiles.EventsFile)
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
	return readCheckpoints(r, runfiles.CheckpointsFile)
}

func readCheckpoints(r io.Reader, name string) ([]Checkpoint, error) {
	var cols *checkpointColumns
	var cps []Checkpoint
	header, err := runfiles.ReadTable(r, name, func(h, rec []string, line int) error {
		if cols == nil {
			c, err := findCheckpointColumns(h)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			cols = c
		}
		cp, ok, err := cols.row(rec)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if ok {
			cps = append(cps, cp)
		}
		return nil
	})
	if errors.Is(err, runfiles.ErrEmpty) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if cols == nil { // a header only: check it all the same
		if _, err := findCheckpointColumns(header); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return cps, nil
}

// checkpointColumns are the columns of a checkpoints CSV that
// ReadCheckpoints reads (-1 when absent), and their units.
type checkpointColumns struct {
	h                           []string
	start, end, dur, status, id int
}

// findCheckpointColumns finds the columns of a checkpoints CSV by name
// (see ReadCheckpoints).
func findCheckpointColumns(h []string) (*checkpointColumns, error) {
	find := func(pred func(string) bool) int {
		for i, c := range h {
			if pred(strings.ToLower(c)) {
				return i
			}
		}
		return -1
	}
	c := &checkpointColumns{h: h}
	c.start = find(func(c string) bool { return strings.Contains(c, "trigger") && !strings.Contains(c, "duration") })
	if c.start < 0 {
		c.start = find(func(c string) bool { return c == "start_s" || c == "time_s" })
	}
	c.end = find(func(c string) bool {
		return (strings.Contains(c, "end") || strings.Contains(c, "complet") || strings.Contains(c, "ack")) &&
			!strings.Contains(c, "duration") && !strings.Contains(c, "end_to_end") && strings.HasSuffix(c, "_s")
	})
	c.dur = find(func(c string) bool { return strings.Contains(c, "duration") && strings.Contains(c, "end_to_end") })
	if c.dur < 0 {
		c.dur = find(func(c string) bool {
			return strings.Contains(c, "duration") && !strings.Contains(c, "sync") && !strings.Contains(c, "align")
		})
	}
	c.status = find(func(c string) bool { return c == "status" })
	c.id = find(func(c string) bool { return c == "id" || c == "checkpoint_id" || c == "checkpoint" })
	if c.start < 0 || c.end < 0 && c.dur < 0 {
		return nil, fmt.Errorf("found no trigger time and end or duration columns (columns: %s)", strings.Join(h, ", "))
	}
	return c, nil
}

// row reads one checkpoint; not ok for a row without a trigger time or an
// end, an error for a time that is not a simulated time.
func (c *checkpointColumns) row(rec []string) (Checkpoint, bool, error) {
	seconds := func(name string) float64 {
		if strings.HasSuffix(strings.ToLower(name), "_ms") {
			return 1e-3
		}
		return 1
	}
	cp := Checkpoint{Start: parseNum(rec[c.start]) * seconds(c.h[c.start])}
	if c.end >= 0 {
		cp.End = parseNum(rec[c.end]) * seconds(c.h[c.end])
	} else {
		cp.End = cp.Start + parseNum(rec[c.dur])*seconds(c.h[c.dur])
	}
	if c.status >= 0 {
		cp.Status = rec[c.status]
	}
	if c.id >= 0 {
		cp.ID = rec[c.id]
	}
	if math.IsNaN(cp.Start) || math.IsNaN(cp.End) || cp.End < cp.Start {
		return cp, false, nil
	}
	for _, t := range []float64{cp.Start, cp.End} {
		if err := runfiles.CheckTime(t); err != nil {
			return cp, false, fmt.Errorf("checkpoint time %s %w", strconv.FormatFloat(t, 'g', -1, 64), err)
		}
	}
	return cp, true, nil
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

// ReadRun reads a run directory through fsys (a runfiles.RunDir: regular
// files only, every read bounded, only the files its run.json lists when
// it has one): timeseries.csv (required, read with the filter), and
// summary.json, events.jsonl and checkpoints.csv when present. Errors
// name the file (under label) and line.
func ReadRun(fsys fs.FS, label string, f TimeseriesFilter) (*Run, error) {
	d, err := runfiles.OpenRunDir(fsys, label)
	if err != nil {
		return nil, err
	}
	return ReadRunDir(d, label, f)
}

// ReadRunDir reads the run directory d as ReadRun does, labelled label in
// legends (messages name the files as d does).
func ReadRunDir(d *runfiles.RunDir, label string, f TimeseriesFilter) (*Run, error) {
	run := &Run{Label: label}
	tf, err := d.Open(runfiles.TimeseriesFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s: is it the --out directory of dspalab run?", d.Label(), runfiles.TimeseriesFile)
		}
		return nil, err
	}
	run.Timeseries, err = readTimeseries(tf, d.Name(runfiles.TimeseriesFile), f)
	tf.Close()
	if err != nil {
		var ue *UnknownError
		var nd *NoDataError
		switch {
		case errors.As(err, &ue):
			ue.In = d.Label()
			return nil, ue
		case errors.As(err, &nd):
			return nil, fmt.Errorf("%s: %w", d.Label(), err)
		}
		return nil, err
	}
	if run.Summary, _, err = d.ReadSummary(); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if ef, err := d.Open(runfiles.EventsFile); err == nil {
		run.Events, err = runfiles.ReadEvents(ef, d.Name(runfiles.EventsFile))
		ef.Close()
		if err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if cf, err := d.Open(runfiles.CheckpointsFile); err == nil {
		run.Checkpoints, err = readCheckpoints(cf, d.Name(runfiles.CheckpointsFile))
		cf.Close()
		if err != nil {
			return nil, err
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
