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
