package runfiles

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
	"path"
	"slices"
	"strconv"

	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Bounds of what the readers read.
const (
	// MaxSummaryBytes bounds summary.json: 64 MiB (a 4000-subtask run's
	// is a few MiB).
	MaxSummaryBytes = 64 << 20
	// MaxEventsBytes bounds events.jsonl, which a reader holds whole:
	// 512 MiB.
	MaxEventsBytes = 512 << 20
	// MaxLine bounds a line of a CSV or JSON Lines file (regfile.MaxLine).
	MaxLine = regfile.MaxLine
)

// MaxTimeS is the largest simulated time, in seconds: des.Time counts
// int64 nanoseconds, about 292 years. A time_s beyond it, negative, or not
// finite is not a dspalab time and is refused before anything is drawn.
const MaxTimeS = float64(math.MaxInt64) / 1e9

// ErrEmpty is the error of a reader given an empty file.
var ErrEmpty = errors.New("is empty")

// RunDir is a run directory to read: its files are read only if they are
// regular files, every read is bounded, and, when the directory has a
// manifest (run.json), only the files it lists are read: a file an
// earlier run left, or one the user put there, is not taken for this
// run's.
type RunDir struct {
	fsys  fs.FS
	label string    // the directory as named in messages
	man   *Manifest // nil without run.json
}

// OpenRunDir opens the run directory fsys, named label in messages. It
// reads the manifest if there is one, and returns an error for a run.json
// that is not a dspalab manifest.
func OpenRunDir(fsys fs.FS, label string) (*RunDir, error) {
	d := &RunDir{fsys: fsys, label: label}
	data, err := regfile.ReadFileFS(fsys, ManifestFile, maxManifestBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Format != ManifestFormat {
		return nil, fmt.Errorf("%s: %s is not the manifest of a dspalab run (format %q expected)", label, ManifestFile, ManifestFormat)
	}
	d.man = &m
	return d, nil
}

// Label returns the directory as named in messages.
func (d *RunDir) Label() string { return d.label }

// Name returns a file of the directory as named in messages: "DIR/name".
func (d *RunDir) Name(name string) string { return path.Join(d.label, name) }

// Has reports whether the run has the file name: its manifest lists it
// and it exists, or, without a manifest, it exists.
func (d *RunDir) Has(name string) bool {
	if d.man != nil && !slices.Contains(d.man.Files, name) {
		return false
	}
	_, err := fs.Stat(d.fsys, name)
	return err == nil
}

// Open opens the file name of the run for reading, with lines bounded to
// MaxLine: an error matching fs.ErrNotExist when the run does not have it
// (see Has), a *regfile.NotRegularError when it is not a regular file.
func (d *RunDir) Open(name string) (io.ReadCloser, error) {
	if d.man != nil && !slices.Contains(d.man.Files, name) {
		return nil, &fs.PathError{Op: "open", Path: d.Name(name), Err: fs.ErrNotExist}
	}
	f, err := regfile.OpenFS(d.fsys, name)
	if err != nil {
		var ne *regfile.NotRegularError
		if errors.As(err, &ne) {
			ne.Path = d.Name(name)
		}
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{regfile.LimitLines(f, d.Name(name), MaxLine), f}, nil
}

// ReadSummary reads summary.json (at most MaxSummaryBytes) and checks its
// times. It returns the summary and the file's bytes (for the fields the
// sim.Summary type does not hold); an error matching fs.ErrNotExist when
// the run has none.
func (d *RunDir) ReadSummary() (*sim.Summary, []byte, error) {
	if d.man != nil && !slices.Contains(d.man.Files, SummaryFile) {
		return nil, nil, &fs.PathError{Op: "open", Path: d.Name(SummaryFile), Err: fs.ErrNotExist}
	}
	data, err := regfile.ReadFileFS(d.fsys, SummaryFile, MaxSummaryBytes)
	if err != nil {
		var ne *regfile.NotRegularError
		var te *regfile.TooLargeError
		switch {
		case errors.As(err, &ne):
			ne.Path = d.Name(SummaryFile)
		case errors.As(err, &te):
			te.Path = d.Name(SummaryFile)
		}
		return nil, nil, err
	}
	var s sim.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, nil, fmt.Errorf("%s: reading %s: %w", d.label, SummaryFile, err)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"duration_s", s.DurationS}, {"warmup_s", s.WarmupS}, {"simulated_s", s.SimulatedS}} {
		if err := CheckTime(f.v); err != nil {
			return nil, nil, fmt.Errorf("%s: %s %s %w", d.Name(SummaryFile), f.name, fmtNum(f.v), err)
		}
	}
	return &s, data, nil
}

// CheckTime checks a time in simulated seconds: finite, not negative, at
// most MaxTimeS. The error reads after the value: "is not a simulated
// time ...".
func CheckTime(t float64) error {
	if math.IsNaN(t) || t < 0 || t > MaxTimeS {
		return fmt.Errorf("is not a simulated time (0 to %.3g seconds)", MaxTimeS)
	}
	return nil
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Series is one vertex (Subtask -1) or one subtask over time.
type Series struct {
	Vertex  string
	Kind    string // source, operator or sink
	Subtask int    // -1 for the vertex as a whole
	// Time holds the ends of the metrics intervals, simulated seconds,
	// in order.
	Time []float64
	// Values holds the kept metrics by column name, one value per Time;
	// NaN where the file's cell is empty (a latency with no record), not
	// a number, or not finite.
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
	// Metrics are the file's metric columns (all but
	// TimeseriesKeyColumns), in file order.
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
	// Metrics are the columns to keep; nil keeps every metric. Those the
	// file lacks are left out (the caller checks Timeseries.Metrics).
	Metrics []string
	// Vertices are the vertices to keep; nil keeps all.
	Vertices []string
	// Subtasks keeps the subtask rows (subtask >= 0) instead of the rows
	// of whole vertices (subtask -1).
	Subtasks bool
	// Optional are columns kept too when the file has them.
	Optional []string
}

// ReadTimeseries reads a timeseries.csv, named name in messages
// (sim.TimeseriesColumns, or any CSV with the columns time_s, vertex and
// subtask and numeric metric columns). Errors name the file and line: a
// file that is not such a CSV, a subtask that is not a whole number, a
// time_s that is not a simulated time (CheckTime) or that goes back in
// time within a series. ErrEmpty (wrapped) for an empty file. A metric
// cell that is not a finite number reads as NaN.
func ReadTimeseries(r io.Reader, name string, f TimeseriesFilter) (*Timeseries, error) {
	cr, header, err := readHeader(bufio.NewReaderSize(r, 64<<10), name)
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range header {
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	for _, need := range []string{"time_s", "vertex", "subtask"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s has no %s column: is it a dspalab timeseries.csv? (columns: %s)", name, need, joinShort(header))
		}
	}
	ts := &Timeseries{}
	for _, h := range header {
		if !slices.Contains(TimeseriesKeyColumns, h) {
			ts.Metrics = append(ts.Metrics, h)
		}
	}
	var keep []string
	want := f.Metrics
	if want == nil {
		want = ts.Metrics
	} else {
		want = append(slices.Clone(want), f.Optional...)
	}
	for _, m := range want {
		if slices.Contains(ts.Metrics, m) && !slices.Contains(keep, m) {
			keep = append(keep, m)
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
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, readErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		// every row's time is checked, kept or not
		t, err := strconv.ParseFloat(rec[tcol], 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: time_s %q is not a number", name, line, short(rec[tcol]))
		}
		if err := CheckTime(t); err != nil {
			return nil, fmt.Errorf("%s line %d: time_s %s %w", name, line, short(rec[tcol]), err)
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
			return nil, fmt.Errorf("%s line %d: subtask %q is not a whole number", name, line, short(rec[scol]))
		}
		if (sub >= 0) != f.Subtasks {
			continue
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
		if n := len(s.Time); n > 0 && t < s.Time[n-1] {
			return nil, fmt.Errorf("%s line %d: time_s %s of %s comes before the %s of its row before: rows of a series are in time order", name, line, short(rec[tcol]), s.Name(), fmtNum(s.Time[n-1]))
		}
		s.Time = append(s.Time, t)
		for _, m := range keep {
			s.Values[m] = append(s.Values[m], ParseNum(rec[col[m]]))
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

// readHeader starts a CSV reader of r (named name in messages; records
// reused) and reads its header: ErrEmpty (wrapped) for an empty file.
func readHeader(r io.Reader, name string) (*csv.Reader, []string, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s %w", name, ErrEmpty)
	}
	if err != nil {
		return nil, nil, readErr(name, err)
	}
	return cr, slices.Clone(header), nil
}

// readErr names the file of a CSV reader's error (a line too long names
// it already).
func readErr(name string, err error) error {
	if errors.Is(err, regfile.ErrLineTooLong) {
		return err
	}
	return fmt.Errorf("reading %s: %w", name, err)
}

// ParseNum reads a CSV cell: NaN for an empty, non-numeric or
// non-finite one.
func ParseNum(s string) float64 {
	if s == "" {
		return math.NaN()
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) {
		return math.NaN()
	}
	return x
}

// short cuts a cell for a message.
func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// joinShort lists columns for a message, at most 30 of them.
func joinShort(cols []string) string {
	var b bytes.Buffer
	for i, c := range cols {
		if i == 30 {
			fmt.Fprintf(&b, ", ... (%d in all)", len(cols))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(short(c))
	}
	return b.String()
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

// ReadEvents reads events.jsonl, named name in messages: one JSON object a
// line with at least time_s (a simulated time, CheckTime) and type, at
// most MaxEventsBytes in all. Blank lines are skipped; a line that is not
// such an object is an error naming it.
func ReadEvents(r io.Reader, name string) ([]Event, error) {
	lr := &io.LimitedReader{R: r, N: MaxEventsBytes + 1}
	sc := regfile.Scanner(lr, MaxLine)
	var evs []Event
	line := int64(0)
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, fmt.Errorf("%s line %d: %v", name, line, err)
		}
		e := Event{Fields: fields}
		if err := json.Unmarshal(fields["time_s"], &e.Time); err != nil {
			return nil, fmt.Errorf("%s line %d: time_s is not a number", name, line)
		}
		if err := CheckTime(e.Time); err != nil {
			return nil, fmt.Errorf("%s line %d: time_s %s %w", name, line, fmtNum(e.Time), err)
		}
		if err := json.Unmarshal(fields["type"], &e.Type); err != nil {
			return nil, fmt.Errorf("%s line %d: type is not a string", name, line)
		}
		json.Unmarshal(fields["vertex"], &e.Vertex)
		json.Unmarshal(fields["message"], &e.Message)
		evs = append(evs, e)
	}
	if err := regfile.ScanErr(sc, name, line+1, MaxLine); err != nil {
		if errors.Is(err, regfile.ErrLineTooLong) {
			return nil, err
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s is larger than %s, the most dspalab reads of it", name, scenario.FormatByteSize(MaxEventsBytes))
	}
	return evs, nil
}

// ReadTable reads a CSV file named name whose first row is its header,
// calling row for each further row (rec is reused between calls: clone
// what is kept) with its line. Lines are bounded (MaxLine), errors name
// the file and line; ErrEmpty (wrapped) for an empty file.
func ReadTable(r io.Reader, name string, row func(header, rec []string, line int) error) ([]string, error) {
	cr, header, err := readHeader(r, name)
	if err != nil {
		return nil, err
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return header, nil
		}
		if err != nil {
			return nil, readErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		if err := row(header, rec, line); err != nil {
			return nil, err
		}
	}
}
