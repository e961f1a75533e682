package microbatch

import (
	"errors"
	"fmt"
	"io"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// arrivals yields the arrival times of a partition's records in order
// (des.Never after the last): a generated arrival process or a trace.
type arrivals interface {
	Next() des.Time
}

// recorded is arrivals whose records carry their own key and times (a
// trace's, a topic's): current returns those of the record Next last
// returned: its key, its origin (when it entered the system, what its
// latency counts from) and its event time.
type recorded interface {
	arrivals
	current() (key uint32, origin, eventTime des.Time)
}

// traceArrivals replays a trace as a partition's arrivals: its records'
// arrival times, with the key and event time of the record last
// returned (rec), as sim's trace sources read them. A read error or a
// record out of arrival order ends it, kept in err.
type traceArrivals struct {
	tr   sim.Trace
	rec  sim.TraceRecord
	err  error
	last des.Time
}

// Next returns the arrival time of the next record, or des.Never at the
// end of the trace or on an error.
func (t *traceArrivals) Next() des.Time {
	if t.err != nil {
		return des.Never
	}
	r, err := t.tr.Next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			t.err = err
		}
		return des.Never
	}
	if r.Arrival < t.last {
		t.err = fmt.Errorf("records out of arrival order (%s after %s)", sim.FormatTime(r.Arrival), sim.FormatTime(t.last))
		return des.Never
	}
	t.rec, t.last = r, r.Arrival
	return r.Arrival
}

func (t *traceArrivals) current() (uint32, des.Time, des.Time) {
	return t.rec.Key, t.rec.Arrival, t.rec.EventTime
}

// topicArrivals reads a topic's partition as a direct Kafka stream: a
// record arrives when it can be read (append_latency after its send, or
// behind the leader's bandwidth); its latency counts from its send,
// which is also its event time.
type topicArrivals struct{ c *sim.TopicCursor }

func (t *topicArrivals) Next() des.Time { return t.c.Next() }

func (t *topicArrivals) current() (uint32, des.Time, des.Time) {
	sent, key, _, _ := t.c.Record()
	return key, sent, sent
}

// traceError returns the error of the first partition whose trace
// failed, as a *sim.TraceError at now, or nil.
func (s *Sim) traceError(now des.Time) error {
	for _, pt := range s.parts {
		for _, a := range []arrivals{pt.log, pt.rd} {
			if t, ok := a.(*traceArrivals); ok && t.err != nil {
				return &sim.TraceError{Source: pt.src.Name, Subtask: pt.index, At: now, Err: t.err}
			}
		}
	}
	return nil
}
