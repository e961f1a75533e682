package datasets

import (
	"bufio"
	"compress/gzip"
	"container/heap"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// TraceFile is one file of a trace: a name for messages and a way to open
// it (a CSV or gzip-compressed CSV stream; gzip is recognised by its first
// bytes).
type TraceFile struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// TraceSpec is a resolved trace, what NewReader reads: files read one
// after the other as one trace, their columns (no header row), and how to
// turn rows into records. Column indices are 0-based.
type TraceSpec struct {
	Files   []TraceFile
	Columns []string
	// Time is the index of the time column, in units of TimeUnit.
	Time     int
	TimeUnit des.Time
	// Key is the index of the key column, or -1: each record's number in
	// the trace is its key.
	Key int
	// Speedup is seconds of the trace per simulated second (> 0).
	Speedup float64
	// MaxDelay bounds the random serving delay, in trace time (0: none).
	MaxDelay des.Time
	// Filters keep only rows whose columns hold one of the values.
	Filters []Filter
	// Strict makes a malformed line an error instead of a skipped line.
	Strict bool
	// BeforeWindow and AfterWindow, when set, are the timestamps that
	// mark events before and after the trace window: skipped and counted.
	BeforeWindow, AfterWindow *int64
	// Seed and Stream name the random stream of the delays: the scenario
	// seed and, e.g., "source/tasks" (the subtask is added).
	Seed   uint64
	Stream string
}

// Filter keeps rows whose column Column holds one of Values.
type Filter struct {
	Column int
	Values map[string]bool
}

// TraceStats counts what a Reader read. Every subtask's reader reads the
// whole trace, so the counts of lines are the same for all; Emitted is
// this reader's share.
type TraceStats struct {
	Lines        int64 // rows read
	Records      int64 // rows kept: well-formed, in the window, passing the filters, with a key
	Emitted      int64 // records this reader returned
	Malformed    int64 // lines skipped as malformed
	BeforeWindow int64 // rows marking events before the trace window
	AfterWindow  int64 // rows marking events after its end
	Filtered     int64 // rows the filters dropped
	NoKey        int64 // rows with an empty key field
	OutOfOrder   int64 // rows with a timestamp before an earlier row's (they arrive late)
	// FirstMalformed describes the first malformed line ("file:line:
	// message"), or "".
	FirstMalformed string
	// First and Last are the first and last timestamps kept, in the time
	// unit of the trace (valid when Records > 0).
	First, Last int64
	// End is the event time of the latest record kept (of all subtasks),
	// on the simulated clock: when the trace's input ends (plus at most
	// MaxDelay/Speedup of serving delay).
	End des.Time
	// EOF is true once the reader has read the trace to its end (not
	// stopped by an error or Close): the counts are then the whole trace's.
	EOF bool
}

// MalformedError is the error of a malformed line in strict mode: the
// file, the line (1-based) and what is wrong with it.
type MalformedError struct {
	File string
	Line int
	Msg  string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("line %d of %s is malformed: %s (malformed: strict)", e.Line, e.File, e.Msg)
}

// Reader streams the records of one subtask's share of a trace, in
// non-decreasing arrival order; it is a sim.Trace. Memory does not grow
// with the trace: it holds one row, plus the records waiting out their
// serving delay (those of MaxDelay of trace time).
//
// How rows become records:
//   - A row has exactly the trace's columns; otherwise, or when its
//     timestamp is empty or not a number (integers, or decimals with an
//     exponent such as 1.5e9), the line is malformed: skipped and counted
//     (Stats.Malformed), or with Strict an error that stops the run. A
//     read error or a truncated gzip stream is always an error, after the
//     records before it.
//   - Rows whose timestamp is the data set's before-window or
//     after-window marker (0 and 2^63-1 in the Google trace) are events
//     outside the trace's window with no usable time: skipped and counted.
//   - The first remaining row's timestamp t0 is the start of the replay:
//     a row at timestamp t happened at event time (t − t0) / Speedup on
//     the simulated clock. A row before t0 (out of order) gets event time
//     0.
//   - Rows that fail a filter, or whose key field is empty (missing data;
//     Flink's keyBy refuses null keys), are skipped and counted. The kept
//     rows are dealt round-robin: subtask i of p gets kept rows i, i+p,
//     i+2p, ...
//   - A key field that is a decimal integer below 2^32 is the key itself;
//     any other value is hashed (FNV-1a, 32 bits).
//   - With MaxDelay, each record is served late by a delay drawn as the
//     DSPA course's sources drew it: normal with mean and standard
//     deviation MaxDelay/2, redrawn until within [0, MaxDelay], in trace
//     time (so MaxDelay/Speedup at most on the simulated clock). Records
//     come out by arrival (event time + delay), so event times arrive out
//     of order, by at most MaxDelay.
//   - A row whose timestamp is before an earlier row's would arrive in
//     the past: it arrives with the latest record instead (counted in
//     OutOfOrder), keeping its event time.
type Reader struct {
	spec                 *TraceSpec
	subtask, parallelism int
	rng                  *rand.Rand

	file    int // index of the open file
	cur     io.ReadCloser
	csv     *csv.Reader
	started bool
	done    bool // no more rows
	err     error

	t0      int64
	haveT0  bool
	maxTS   int64    // largest timestamp read
	horizon des.Time // event time of the latest in-window row
	kept    int64
	pending pendingHeap
	seq     uint64
	lastOut des.Time
	stats   TraceStats
}

var _ sim.Trace = (*Reader)(nil)

// NewReader returns the reader of subtask `subtask` of `parallelism` over
// spec. It opens the first file on the first call of Next.
func NewReader(spec *TraceSpec, subtask, parallelism int) *Reader {
	return &Reader{
		spec:        spec,
		subtask:     subtask,
		parallelism: max(parallelism, 1),
		rng:         des.Stream(spec.Seed, fmt.Sprintf("%s/%d/trace-delay", spec.Stream, subtask)),
		file:        -1,
	}
}

// Stats returns what the reader has read so far.
func (r *Reader) Stats() TraceStats { return r.stats }

// Close closes the open file, if any. Next returns io.EOF after it.
func (r *Reader) Close() error {
	r.done = true
	r.pending = nil
	if r.cur != nil {
		err := r.cur.Close()
		r.cur = nil
		return err
	}
	return nil
}

// pending is a record waiting out its serving delay.
type pending struct {
	rec sim.TraceRecord
	seq uint64
}

type pendingHeap []pending

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	if h[i].rec.Arrival != h[j].rec.Arrival {
		return h[i].rec.Arrival < h[j].rec.Arrival
	}
	return h[i].seq < h[j].seq
}
func (h pendingHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)   { *h = append(*h, x.(pending)) }
func (h *pendingHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Next returns the next record of this subtask's share, io.EOF after the
// last, or an error (a malformed line in strict mode, a truncated or
// unreadable file).
func (r *Reader) Next() (sim.TraceRecord, error) {
	for {
		if len(r.pending) > 0 && (r.done || r.pending[0].rec.Arrival <= r.horizon) {
			p := heap.Pop(&r.pending).(pending)
			return r.out(p.rec), nil
		}
		if r.err != nil {
			return sim.TraceRecord{}, r.err
		}
		if r.done {
			return sim.TraceRecord{}, io.EOF
		}
		rec, ok, err := r.readOwn()
		switch {
		case err != nil:
			r.err = err
			r.Close()
			return sim.TraceRecord{}, err
		case !ok:
			r.done = true
			r.stats.EOF = true
			if r.cur != nil {
				r.cur.Close()
				r.cur = nil
			}
		case r.spec.MaxDelay == 0:
			return r.out(rec), nil
		default:
			heap.Push(&r.pending, pending{rec, r.seq})
			r.seq++
		}
	}
}

// out returns rec, arriving no earlier than the record before it.
func (r *Reader) out(rec sim.TraceRecord) sim.TraceRecord {
	rec.Arrival = max(rec.Arrival, r.lastOut)
	r.lastOut = rec.Arrival
	r.stats.Emitted++
	return rec
}

// scale converts a span of trace time units to simulated time.
func (r *Reader) scale(units int64) des.Time {
	v := float64(units) * float64(r.spec.TimeUnit) / r.spec.Speedup
	if v >= float64(des.Never) {
		return des.Never - 1
	}
	return des.Time(math.Round(v))
}

// delay draws a serving delay in simulated time.
func (r *Reader) delay() des.Time {
	m := float64(r.spec.MaxDelay)
	half := m / 2
	for {
		d := half + half*r.rng.NormFloat64()
		if d >= 0 && d <= m {
			if v := d / r.spec.Speedup; v < float64(des.Never) {
				return des.Time(math.Round(v))
			}
			return des.Never - 1 // as scale saturates
		}
	}
}

// readOwn reads rows until one kept for this subtask; ok is false at the
// end of the trace.
func (r *Reader) readOwn() (rec sim.TraceRecord, ok bool, err error) {
	spec := r.spec
	for {
		row, file, line, err := r.row()
		if err != nil || row == nil {
			return rec, false, err
		}
		r.stats.Lines++
		if len(row) != len(spec.Columns) {
			if err := r.malformed(file, line, fmt.Sprintf("expected %d columns, got %d", len(spec.Columns), len(row))); err != nil {
				return rec, false, err
			}
			continue
		}
		ts, err := parseTimestamp(row[spec.Time])
		if err != nil {
			if err := r.malformed(file, line, fmt.Sprintf("%s %s", spec.Columns[spec.Time], err)); err != nil {
				return rec, false, err
			}
			continue
		}
		if spec.BeforeWindow != nil && ts == *spec.BeforeWindow {
			r.stats.BeforeWindow++
			continue
		}
		if spec.AfterWindow != nil && ts == *spec.AfterWindow {
			r.stats.AfterWindow++
			continue
		}
		if !r.haveT0 {
			r.t0, r.haveT0, r.maxTS = ts, true, ts
		}
		if ts < r.maxTS {
			r.stats.OutOfOrder++
		} else {
			r.maxTS = ts
		}
		event := r.scale(max(ts-r.t0, 0))
		r.horizon = max(r.horizon, event)
		if !r.pass(row) {
			r.stats.Filtered++
			continue
		}
		var key uint32
		if spec.Key >= 0 {
			f := strings.TrimSpace(row[spec.Key])
			if f == "" {
				r.stats.NoKey++
				continue
			}
			key = parseKey(f)
		} else {
			key = uint32(r.kept)
		}
		if r.stats.Records == 0 {
			r.stats.First = ts
		}
		r.stats.Records++
		r.stats.Last = ts
		r.stats.End = max(r.stats.End, event)
		n := r.kept
		r.kept++
		if n%int64(r.parallelism) != int64(r.subtask) {
			continue
		}
		arrival := event
		if spec.MaxDelay > 0 {
			// saturating: a huge event time plus a huge delay must not wrap
			arrival += min(r.delay(), des.Never-1-arrival)
		}
		return sim.TraceRecord{Arrival: arrival, EventTime: event, Key: key}, true, nil
	}
}

// pass reports whether row passes every filter.
func (r *Reader) pass(row []string) bool {
	for _, f := range r.spec.Filters {
		if !f.Values[strings.TrimSpace(row[f.Column])] {
			return false
		}
	}
	return true
}

// malformed counts a malformed line, or returns a *MalformedError in
// strict mode.
func (r *Reader) malformed(file string, line int, msg string) error {
	if r.spec.Strict {
		return &MalformedError{File: file, Line: line, Msg: msg}
	}
	r.stats.Malformed++
	if r.stats.FirstMalformed == "" {
		r.stats.FirstMalformed = file + ":" + strconv.Itoa(line) + ": " + msg
	}
	return nil
}

// row returns the next row of the trace and where it is (file and line),
// nil at the end, or an error reading a file.
func (r *Reader) row() ([]string, string, int, error) {
	for {
		if r.csv == nil {
			if r.file+1 >= len(r.spec.Files) {
				return nil, "", 0, nil
			}
			if err := r.openNext(); err != nil {
				return nil, "", 0, err
			}
		}
		rec, err := r.csv.Read()
		name := r.spec.Files[r.file].Name
		if err == nil {
			line, _ := r.csv.FieldPos(0)
			return rec, name, line, nil
		}
		var pe *csv.ParseError
		switch {
		case errors.As(err, &pe) && pe.Err != csv.ErrFieldCount && !isReadError(pe.Err):
			r.stats.Lines++
			if err := r.malformed(name, pe.StartLine, pe.Err.Error()); err != nil {
				return nil, "", 0, err
			}
			continue
		case errors.Is(err, io.EOF):
			r.cur.Close()
			r.cur, r.csv = nil, nil
			continue
		case errors.Is(err, io.ErrUnexpectedEOF):
			line, _ := r.csv.FieldPos(0)
			return nil, "", 0, fmt.Errorf("%s: the file is truncated (unexpected end of the gzip stream near line %d); fetch or copy it again", name, line)
		case errors.Is(err, regfile.ErrLineTooLong):
			return nil, "", 0, err // names the file and line
		default:
			return nil, "", 0, fmt.Errorf("%s: reading: %w", name, err)
		}
	}
}

// isReadError reports whether a csv.ParseError wraps an error of the
// underlying stream rather than a syntax error.
func isReadError(err error) bool {
	return err != csv.ErrBareQuote && err != csv.ErrQuote && err != csv.ErrTrailingComma
}

// openNext opens the next file, unzipping it if it starts like gzip.
func (r *Reader) openNext() error {
	r.file++
	f := r.spec.Files[r.file]
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("opening %s: %w", f.Name, err)
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return fmt.Errorf("%s: not a readable gzip file: %w", f.Name, err)
		}
		src = zr
	}
	cr := csv.NewReader(regfile.LimitLines(src, f.Name, regfile.MaxLine))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	r.cur, r.csv = rc, cr
	return nil
}

// parseTimestamp reads a timestamp: a whole number, or a decimal number
// with a fraction or an exponent (rounded), not negative.
func parseTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("is empty")
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v < 0 {
			return 0, fmt.Errorf("is negative: %s", s)
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f >= math.MaxInt64 {
		return 0, fmt.Errorf("is not a number: %q", shortField(s))
	}
	if f < 0 {
		return 0, fmt.Errorf("is negative: %s", s)
	}
	return int64(math.Round(f)), nil
}

func shortField(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// parseKey maps a key field to a record key: a decimal integer below 2^32
// is the key itself, anything else its FNV-1a hash.
func parseKey(s string) uint32 {
	if v, err := strconv.ParseUint(s, 10, 32); err == nil {
		return uint32(v)
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
