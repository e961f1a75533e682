package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// eventLog keeps the events of a run (an Observer).
type eventLog []Event

func (l *eventLog) Sample(*Sample) {}
func (l *eventLog) Event(e Event)  { *l = append(*l, e) }

// A restore that stops the run (the spanner's restored heap state past its
// worker's memory: the job would fail again with an OutOfMemoryError) is
// no recovery: no recovery_completed event beside run_stopped, the
// failover not recovered, the job still restarting, the run partial.
func TestRestoreThatStopsIsNoRecovery(t *testing.T) {
	sc := mustParse(t, `duration: 20s
sources:
  - name: edges
    arrival: {process: constant, rate: 1000/s}
    edges: {type: barabasi-albert, vertices: 100000, attach: 3}
operators:
  - name: g
    input: edges
    chain: false
    service_time: {mean: 2us}
    graph: {algorithm: spanner, k: 2, primitive: value}
sinks: [{name: out, input: g}]
state_backend: {type: heap}
checkpoint: {mode: aligned, interval: 2s}
failures:
  - {kind: task, at: 5s, vertex: g, subtask: 0}
`)
	var log eventLog
	s, err := New(sc, Options{Observer: &log})
	if err != nil {
		t.Fatal(err)
	}
	// the failover is detected at 5s and restarts at 6s (fixed-delay, 1s)
	if err := s.RunUntil(context.Background(), 5500*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	if st := s.fo.state; st != JobRestarting {
		t.Fatalf("job %s at 5.5s, want restarting", st)
	}
	s.workers[s.subtasks[1].worker].memory = 1 // the checkpoint's spanner no longer fits
	err = s.RunUntil(context.Background(), sc.Duration)
	if err == nil || !strings.Contains(err.Error(), "ran out of memory at 6.") || err != s.Stopped() {
		t.Fatalf("err = %v (Stopped %v), want the out-of-memory at the restore", err, s.Stopped())
	}
	res := s.Result()
	var types []string
	for _, e := range log {
		types = append(types, e.Type)
	}
	got := strings.Join(types, " ")
	if strings.Contains(got, EventRecoveryCompleted) || !strings.HasSuffix(got, EventRestart+" "+EventRunStopped) {
		t.Errorf("events %s; want the restart followed by run_stopped, no recovery_completed", got)
	}
	r := res.Summary.Recovery
	if r == nil || r.JobState != JobRestarting || len(r.Failovers) != 1 || r.Failovers[0].RecoveredS != -1 || !res.Summary.Partial {
		t.Errorf("recovery %+v, partial %v; want the job restarting, its failover not recovered, the run partial", r, res.Summary.Partial)
	}
}

// A handler that stops the run (the spanner's heap state past its
// worker's memory) inside a batch of events is the batch's last event:
// the run ends at it, with the events and records counted as when steps
// tested the stop before every event (the figures of that loop).
func TestStopInsideBatchIsLastEvent(t *testing.T) {
	sc := mustParse(t, `duration: 20s
sources:
  - name: edges
    arrival: {process: constant, rate: 2000/s}
    edges: {type: barabasi-albert, vertices: 100000, attach: 5}
operators:
  - name: g
    input: edges
    service_time: {mean: 0s}
    graph: {algorithm: spanner, primitive: map}
sinks: [{name: out, input: g}]
workers: {memory: 1MiB}
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.RunUntil(context.Background(), sc.Duration)
	if err == nil || !strings.Contains(err.Error(), "ran out of memory") || err != s.Stopped() {
		t.Fatalf("err = %v, want the out-of-memory", err)
	}
	if f, now, e := s.eng.Fired(), s.Now(), s.Emitted(); f != 23254 || now != 5812500*des.Microsecond || e != 11624 {
		t.Fatalf("stopped after %d events at %d ns, %d records emitted; want 23254 at 5.8125s, 11624", f, now, e)
	}
}
