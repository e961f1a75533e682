package sim_test

import (
	"testing"

	"github.com/dspalab/dspalab/sim"
)

func queueSummary(t *testing.T, s *sim.Summary, name string) sim.QueueSummary {
	t.Helper()
	for _, q := range s.Queues {
		if q.Name == name {
			return q
		}
	}
	t.Fatalf("no queue %s in the summary", name)
	return sim.QueueSummary{}
}

// TestQueueRedeliveriesEqualUnacked: a producer publishes 100/s to a
// queue consumed by 2 subtasks that acknowledge when a checkpoint (every
// 10s) completes. The sink fails at 25s: the channels close with the
// messages polled since the 20s checkpoint unacknowledged, 100/s x 5s =
// 500; the restarted subtasks are new channels, and exactly those 500
// are redelivered after the visibility timeout (30s from their
// delivery: at 50s..55s), each once, counted replayed and, at the
// at-least-once sink, duplicated unless destroyed in flight.
func TestQueueRedeliveriesEqualUnacked(t *testing.T) {
	const y = `duration: 90s
queues:
  - name: orders
    visibility_timeout: 30s
sources:
  - name: app
    arrival: {process: constant, rate: 100/s}
    writes: {queue: orders}
  - name: etl
    parallelism: 2
    arrival: {process: queue, queue: orders}
sinks:
  - name: out
    input: etl
    delivery: at-least-once
checkpoint: {mode: aligned, interval: 10s}
failures:
  - {kind: task, at: 25s, vertex: out, subtask: 0}
`
	s := run(t, parse(t, "t.yaml", []byte(y)))
	q := queueSummary(t, s, "orders")
	if q.Redelivered != 500 || q.Published != 9000 || q.Delivered != 9000+500 {
		t.Errorf("queue %+v: want 500 redelivered (the unacknowledged at the failure), 9000 published, 9500 delivered", q)
	}
	d := s.Delivery
	if d.Replayed != q.Redelivered || d.ToReplay != 0 || d.Lost != 0 {
		t.Errorf("delivery %+v: want replayed = redelivered = %d, nothing to replay or lost", d, q.Redelivered)
	}
	if d.Delivered+d.InFlight != d.Emitted || d.Duplicated > q.Redelivered {
		t.Errorf("delivery %+v: want emitted = delivered + in flight, duplicates at most the redeliveries", d)
	}
	// without the failure: nothing redelivered, nothing twice
	s = run(t, parse(t, "t.yaml", []byte(y[:len(y)-len("failures:\n  - {kind: task, at: 25s, vertex: out, subtask: 0}\n")])))
	if q := queueSummary(t, s, "orders"); q.Redelivered != 0 || s.Delivery.Duplicated != 0 {
		t.Errorf("without a failure: %d redelivered, %d duplicated; want 0", q.Redelivered, s.Delivery.Duplicated)
	}
}

// TestQueueThroughputDegradesWhenPaging: 2000/s published, 4 consumers
// reading at most 400/s each, a broker of 100us a delivery and 900us
// more per page-in, memory_bound 5000. A consumer polls, waits the
// delivery (100us) and reads (2.5ms): 4/2.6ms = 1538.46/s in all. The
// backlog grows at 2000 - 1538.46 = 461.54/s and passes the bound at
// 5000/461.54 = 10.833s; from then every delivery pages, and the broker
// delivers 1/(100us + 900us) = 1000/s, the library's paged rate
// (queue.Config.Rates), below what the consumers could read.
func TestQueueThroughputDegradesWhenPaging(t *testing.T) {
	const y = `duration: 40s
queues:
  - name: orders
    memory_bound: 5000
    delivery_cost: 100us
    page_in_cost: 900us
sources:
  - name: app
    arrival: {process: constant, rate: 2000/s}
    writes: {queue: orders}
  - name: etl
    parallelism: 4
    max_rate: 400/s
    arrival: {process: queue, queue: orders}
sinks:
  - name: out
    input: etl
`
	s := run(t, parse(t, "t.yaml", []byte(y)))
	q := queueSummary(t, s, "orders")
	before := 4 / 2.6e-3
	within(t, "paging from", q.PagingFromS, 5000/(2000-before), 0.001)
	within(t, "delivery rate before", q.RateBefore, before, 0.001)
	within(t, "delivery rate while paging", q.RateAfter, 1000, 0.005)
	want := "the working set of queue orders passed memory at 10.835s: throughput fell from 1538.4/s to 1000/s"
	if got := s.Diagnosis.Message; len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("diagnosis %q, want it to open with %q", got, want)
	}
}
