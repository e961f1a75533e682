package microbatch

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// sliceTrace replays records in order, then io.EOF (or err).
type sliceTrace struct {
	recs []sim.TraceRecord
	err  error
}

func (t *sliceTrace) Next() (sim.TraceRecord, error) {
	if len(t.recs) == 0 {
		if t.err != nil {
			return sim.TraceRecord{}, t.err
		}
		return sim.TraceRecord{}, io.EOF
	}
	r := t.recs[0]
	t.recs = t.recs[1:]
	return r, nil
}

const traceJob = `
engine: spark-streaming
duration: 10s
spark: {batch_interval: 1s}
workers: {count: 1, slots: 2}
sources: [{name: tasks, parallelism: 2, arrival: {process: trace, trace: {file: t.csv, columns: [ts], time_column: ts, time_unit: s}}}]
sinks: [{name: out, input: tasks}]
`

// traceRecords are subtask sub's records: k records in second k (k =
// 0..9) of the run, at k + (j+0.5)/(k+1) seconds, keyed by sub.
func traceRecords(sub int) []sim.TraceRecord {
	var recs []sim.TraceRecord
	for k := range 10 {
		for j := range k {
			at := des.FromSeconds(float64(k) + (float64(j)+0.5)/float64(k+1))
			recs = append(recs, sim.TraceRecord{Arrival: at, EventTime: at, Key: uint32(sub)})
		}
	}
	return recs
}

// A trace source replayed into batches: each batch of time t holds the
// records that arrived in (t - 1s, t], over both partitions: 2(t-1) at
// batch t (the second before it had t-1 a partition); the batch at 10s,
// the end, is cut too: all 90 records are read.
func TestTraceIntoBatches(t *testing.T) {
	sc := parse(t, traceJob)
	opened := 0
	open := func(source string, sub, par int) (sim.Trace, error) {
		if source != "tasks" || par != 2 {
			t.Errorf("opened %s[%d] of %d", source, sub, par)
		}
		opened++
		return &sliceTrace{recs: traceRecords(sub)}, nil
	}
	s, err := New(sc, Options{OpenTrace: open})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), sc.Duration); err != nil {
		t.Fatal(err)
	}
	r := s.Result()
	if opened != 4 {
		t.Errorf("%d traces opened, want 2 a partition", opened)
	}
	if len(r.Batches) < 9 {
		t.Fatalf("%d batches", len(r.Batches))
	}
	for _, b := range r.Batches {
		if want := int64(2 * (b.TimeS - 1)); b.Records != want {
			t.Errorf("batch %vs: %d records, want %d", b.TimeS, b.Records, want)
		}
	}
	if r.Summary.Totals.Read != 2*45 || r.Summary.Totals.Appended != 2*45 || r.Summary.Totals.SourceLag != 0 {
		t.Errorf("read %d, appended %d, lag %d; want 90, 90, 0", r.Summary.Totals.Read, r.Summary.Totals.Appended, r.Summary.Totals.SourceLag)
	}

	// a trace that fails stops the run with the source and subtask
	bad := func(source string, sub, par int) (sim.Trace, error) {
		return &sliceTrace{recs: traceRecords(sub)[:3], err: errors.New("t.csv:4:1: malformed line")}, nil
	}
	s, err = New(sc, Options{OpenTrace: bad})
	if err != nil {
		t.Fatal(err)
	}
	err = s.RunUntil(context.Background(), sc.Duration)
	var te *sim.TraceError
	if !errors.As(err, &te) || te.Source != "tasks" || !strings.Contains(err.Error(), "t.csv:4:1: malformed line") {
		t.Errorf("bad trace: %v", err)
	}
	if _, err := New(sc, Options{}); err == nil || !strings.Contains(err.Error(), "no trace opener") {
		t.Errorf("no opener: %v", err)
	}
}
