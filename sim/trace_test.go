package sim

import (
	"errors"
	"io"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// sliceTrace replays fixed records, then fails with err (io.EOF: ends).
type sliceTrace struct {
	recs []TraceRecord
	err  error
}

func (s *sliceTrace) Next() (TraceRecord, error) {
	if len(s.recs) == 0 {
		return TraceRecord{}, s.err
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return r, nil
}

func traceScenario(t *testing.T) *scenario.Scenario {
	sc := mustParse(t, `
name: replay
duration: 10s
network: {capacity: unbounded, buffer_timeout: 0, latency: 0}
sources: [{name: src, arrival: {process: constant, rate: 1/s}}]
sinks: [{name: out, input: src}]
`)
	sc.Sources[0].Arrival.Process = scenario.ArrivalTrace
	return sc
}

func TestTraceReplay(t *testing.T) {
	recs := []TraceRecord{
		{Arrival: des.Second, EventTime: des.Second, Key: 7},
		{Arrival: 2 * des.Second, EventTime: 1500 * des.Millisecond, Key: 8},
		{Arrival: 2 * des.Second, EventTime: 2 * des.Second, Key: 9},
	}
	opened := 0
	open := func(source string, subtask, parallelism int) (Trace, error) {
		opened++
		if source != "src" || subtask != 0 || parallelism != 1 {
			t.Errorf("opened %s %d/%d", source, subtask, parallelism)
		}
		return &sliceTrace{recs: append([]TraceRecord(nil), recs...), err: io.EOF}, nil
	}
	s, err := New(traceScenario(t), Options{OpenTrace: open})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(t.Context(), 10*des.Second); err != nil {
		t.Fatal(err)
	}
	sum := s.Result().Summary
	if opened != 2 { // the reader and the log (lag)
		t.Errorf("trace opened %d times, want 2", opened)
	}
	if sum.Totals.Delivered != 3 || sum.Totals.SourceLag != 0 {
		t.Errorf("delivered %d lag %d, want 3 and 0", sum.Totals.Delivered, sum.Totals.SourceLag)
	}
	if _, err := New(traceScenario(t), Options{}); err == nil {
		t.Error("a trace source without an opener must be refused")
	}
}

func TestTraceErrorStopsRun(t *testing.T) {
	bad := errors.New("line 3: expected 13 columns, got 2")
	open := func(string, int, int) (Trace, error) {
		return &sliceTrace{recs: []TraceRecord{{Arrival: 1500 * des.Millisecond, EventTime: des.Second, Key: 1}}, err: bad}, nil
	}
	s, err := New(traceScenario(t), Options{OpenTrace: open})
	if err != nil {
		t.Fatal(err)
	}
	err = s.RunUntil(t.Context(), 10*des.Second)
	var te *TraceError
	if !errors.As(err, &te) || !errors.Is(err, bad) || te.Source != "src" {
		t.Fatalf("err = %v, want a TraceError wrapping the reader's error", err)
	}
	// the reader fails when the source draws the record after the first,
	// right after writing it at 1.5s: the run stops there
	if s.Now() != 1500*des.Millisecond || te.At != 1500*des.Millisecond {
		t.Errorf("stopped at %v (error at %v), want 1.5s", s.Now(), te.At)
	}
	if !s.Result().Summary.Partial {
		t.Error("a run stopped by a trace error must be partial")
	}
}
