package sim

import (
	"errors"
	"fmt"
	"io"

	"github.com/dspalab/dspalab/sim/des"
)

// TraceRecord is one event of a replayed trace, as a source subtask reads
// it.
type TraceRecord struct {
	// Arrival is when the record reaches the source, in simulated time
	// since the start of the run (the trace's timestamp, shifted so that
	// the trace starts at 0, divided by the speed-up, plus any random
	// serving delay).
	Arrival des.Time
	// EventTime is when the event happened, on the same clock (without the
	// serving delay), so EventTime <= Arrival.
	EventTime des.Time
	// Key is the record key (e.g. the machine id), in [0, 2^32).
	Key uint32
}

// Trace yields the records of a trace in non-decreasing Arrival order. It
// returns io.EOF after the last record; any other error stops the run (a
// malformed line in strict mode, a truncated file, a read error).
type Trace interface {
	Next() (TraceRecord, error)
}

// TraceOpener opens the trace of subtask `subtask` (of `parallelism`) of the
// source named source. The simulator opens no file itself: the caller
// resolves files and data sets. A replayable source opens its trace twice,
// once to read and once to follow the log's growth for the consumer lag.
// Each subtask should get its own share of the trace (e.g. every
// parallelism-th record from the subtask-th).
type TraceOpener func(source string, subtask, parallelism int) (Trace, error)

// TraceError stops a run whose trace could not be read.
type TraceError struct {
	Source  string
	Subtask int
	At      des.Time
	Err     error
}

func (e *TraceError) Error() string {
	return fmt.Sprintf("reading the trace of source %s (subtask %d) at %s: %v", e.Source, e.Subtask, FormatTime(e.At), e.Err)
}

func (e *TraceError) Unwrap() error { return e.Err }

// traceGen adapts a Trace to the source's arrival process: it returns
// arrival times and keeps the event time and key of the record last read.
type traceGen struct {
	tr        Trace
	eventTime des.Time
	key       uint32
	err       error
	last      des.Time
	n         uint64 // records returned
}

// next returns the arrival time of the next record, or des.Never at the end
// of the trace or on an error (kept in g.err).
func (g *traceGen) next() des.Time {
	if g.err != nil {
		return des.Never
	}
	r, err := g.tr.Next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			g.err = err
		}
		return des.Never
	}
	if r.Arrival < g.last {
		g.err = fmt.Errorf("records out of arrival order (%s after %s)", FormatTime(r.Arrival), FormatTime(g.last))
		return des.Never
	}
	g.last = r.Arrival
	g.n++
	g.eventTime, g.key = r.EventTime, r.Key
	return r.Arrival
}
