package sim

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// Two operators on a forward edge of equal parallelism run as one task
// (Flink's operator chaining): no channel between them, and one thread
// busy for the sum of their service times, 100/s × (2ms + 3ms) = 50%, as
// both operators show it. chaining: false on the job and chain: false on
// the second operator make two tasks again, busy 20% and 30%.
func TestChainRunsAsOneTask(t *testing.T) {
	const job = `
name: chain
duration: 60s
warmup: 10s
CHAINING
sources:
  - {name: src, arrival: {process: constant, rate: 100/s}}
operators:
  - {name: a, input: src, partitioning: rebalance, service_time: {distribution: constant, mean: 2ms}}
  - {name: b, input: a, service_time: {distribution: constant, mean: 3ms}CHAIN}
sinks:
  - {name: out, input: b, partitioning: rebalance}
`
	run := func(chaining, chain string) (*Sim, Summary) {
		sc := mustParse(t, strings.NewReplacer("CHAINING", chaining, "CHAIN", chain).Replace(job))
		s, err := New(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.RunUntil(t.Context(), 60*des.Second)
		return s, s.Result().Summary
	}
	busy := func(sum Summary, name string) float64 {
		for _, v := range sum.Vertices {
			if v.Name == name {
				return v.Busy
			}
		}
		t.Fatalf("no vertex %s", name)
		return 0
	}
	s, sum := run("", "")
	a := s.vertices[1].subtasks[0]
	if len(a.outs) != 1 || a.outs[0].next != s.vertices[2].subtasks[0] || len(a.outs[0].chans) != 0 {
		t.Fatalf("a's output: %d partitions, want one chained into b with no channel", len(a.outs))
	}
	if len(s.vertices[2].subtasks[0].gate.chans) != 0 {
		t.Error("b has input channels; chained, it should have none")
	}
	for _, name := range []string{"a", "b"} {
		if got := busy(sum, name); math.Abs(got-0.5) > 0.001 {
			t.Errorf("chained: %s busy %.4f, want the task's 0.5 (2ms + 3ms at 100/s)", name, got)
		}
	}
	if got := sum.Vertices[3].InRate; math.Abs(got-100) > 0.5 {
		t.Errorf("chained: out takes %.1f records/s, want 100", got)
	}
	// three tasks, the chain one node "a -> b" of kind operator (an edge
	// leaves it), its one subtask busy 50%, taking and writing 100/s
	if len(sum.Tasks) != 3 {
		t.Fatalf("chained: %d tasks, want src, a -> b, out", len(sum.Tasks))
	}
	ab := sum.Tasks[1]
	if ab.Name != "a -> b" || ab.Kind != KindOperator || !reflect.DeepEqual(ab.Vertices, []string{"a", "b"}) || len(ab.Subtasks) != 1 {
		t.Fatalf("chained: task %+v, want a -> b, operator, vertices a and b, one subtask", ab)
	}
	if st := ab.Subtasks[0]; math.Abs(st.Busy-0.5) > 0.001 || math.Abs(st.Idle-0.5) > 0.001 || st.Backpressured != 0 ||
		math.Abs(st.InRate-100) > 0.5 || math.Abs(st.OutRate-100) > 0.5 || ab.OutRate != st.OutRate || ab.Busy != st.Busy {
		t.Errorf("chained: a -> b[0] %+v (task out %v, busy %v), want busy 0.5, idle 0.5, in and out 100/s", st, ab.OutRate, ab.Busy)
	}
	if k := sum.Tasks[2].Kind; k != KindSink || sum.Tasks[0].Kind != KindSource {
		t.Errorf("kinds of src and out: %s, %s", sum.Tasks[0].Kind, k)
	}
	// stopped while a waits for b: the record b serves is in flight once
	s, _ = run("", "")
	s.duration = 70 * des.Second
	a = s.vertices[1].subtasks[0]
	for at := 60 * des.Second; a.state != stateChained && at < 61*des.Second; at += des.Millisecond / 2 {
		_ = s.RunUntil(t.Context(), at)
	}
	if a.state != stateChained {
		t.Fatal("a never waited for b")
	}
	if tt := s.Result().Summary.Totals; tt.Emitted != tt.Delivered+tt.InFlight {
		t.Errorf("a waiting for b: %d emitted != %d delivered + %d in flight", tt.Emitted, tt.Delivered, tt.InFlight)
	}
	for _, c := range [][2]string{{"chaining: false", ""}, {"", ", chain: false"}} {
		s, sum := run(c[0], c[1])
		if len(s.vertices[1].subtasks[0].outs[0].chans) != 1 {
			t.Errorf("%q %q: a -> b has no channel", c[0], c[1])
		}
		if ga, gb := busy(sum, "a"), busy(sum, "b"); math.Abs(ga-0.2) > 0.001 || math.Abs(gb-0.3) > 0.001 {
			t.Errorf("%q %q: a busy %.4f, b busy %.4f; want 0.2 and 0.3, two tasks", c[0], c[1], ga, gb)
		}
	}
}

// A chain is one task, one thread (Flink's StreamTask running its
// OperatorChain): a failure of any of its operators fails the task, and a
// straggler slows every operator of it.
func TestChainFailsAsOneTask(t *testing.T) {
	const job = `
name: chain
duration: 60s
warmup: 10s
workers: {count: 1, slots: 1}
sources:
  - {name: src, arrival: {process: constant, rate: 50/s}}
operators:
  - {name: a, input: src, partitioning: rebalance, service_time: {distribution: constant, mean: 2ms}}
  - {name: b, input: a, service_time: {distribution: constant, mean: 3ms}}
sinks:
  - {name: out, input: b, partitioning: rebalance}
`
	type run struct {
		s      *Sim
		sum    Summary
		events []Event
	}
	exec := func(failures string) run {
		t.Helper()
		var r run
		s, err := New(mustParse(t, job+failures), Options{Observer: &countingObserver{onSample: func(*Sample) {}, onEvent: func(e Event) { r.events = append(r.events, e) }}})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.RunUntil(t.Context(), 60*des.Second)
		r.s, r.sum = s, s.Result().Summary
		return r
	}
	of := func(r run, typ string) []string {
		var out []string
		for _, e := range r.events {
			if e.Type == typ {
				out = append(out, e.Message)
			}
		}
		return out
	}
	// a straggler b[0], service times x2 over the whole window: the
	// task's thread serves a and b twice as slowly, 50/s x (2ms + 3ms) x 2
	// = 50% busy (slowing b alone would give 50/s x (2ms + 6ms) = 40%)
	r := exec("failures: [{kind: slowdown, at: 10s, duration: 50s, vertex: b, factor: 2}]\n")
	for _, v := range r.sum.Vertices[1:3] {
		if v.Busy != 0.5 {
			t.Errorf("slowdown of b[0]: %s busy %v, want the task's 0.5", v.Name, v.Busy)
		}
	}
	if got := of(r, EventSlowdown); len(got) != 2 || got[0] != "a -> b[0] slows down: service times ×2 for 50s" || got[1] != "a -> b[0] is back to normal speed" {
		t.Errorf("slowdown events %q, want two naming the task a -> b[0]", got)
	}
	// a failure of b[0] is one failure of the task a -> b[0], the same as
	// one of a[0]: one failure event, one failover, one restart, and the
	// same figures but for the operator named
	ra := exec("failures: [{kind: task, at: 30s, vertex: a}]\n")
	rb := exec("failures: [{kind: task, at: 30s, vertex: b}]\n")
	for _, c := range []struct {
		r  run
		in string
	}{{ra, "a"}, {rb, "b"}} {
		want := "task a -> b[0] failed in " + c.in
		if got := of(c.r, EventFailure); len(got) != 1 || got[0] != want {
			t.Errorf("failure of %s[0]: failure events %q, want one %q", c.in, got, want)
		}
		rec := c.r.sum.Recovery
		if rec.Failures != 1 || rec.Restarts != 1 || len(rec.Failovers) != 1 || rec.Failovers[0].Cause != want {
			t.Errorf("failure of %s[0]: %d failures, %d restarts, failovers %+v; want 1, 1 and one caused by %q", c.in, rec.Failures, rec.Restarts, rec.Failovers, want)
		}
	}
	fa, fb := *ra.sum.Recovery, *rb.sum.Recovery
	fa.Failovers = append([]FailoverStats(nil), fa.Failovers...)
	fa.Failovers[0].Cause = fb.Failovers[0].Cause
	if !reflect.DeepEqual(fa, fb) || ra.sum.Totals != rb.sum.Totals || !reflect.DeepEqual(ra.sum.Delivery, rb.sum.Delivery) {
		t.Errorf("a failure of a[0] and of b[0] differ:\n%+v %+v\n%+v %+v", fa, ra.sum.Totals, fb, rb.sum.Totals)
	}
	for _, v := range rb.sum.Vertices[1:3] {
		if d := v.Subtasks[0].Down; d != ra.sum.Vertices[1].Subtasks[0].Down || d <= 0 {
			t.Errorf("failure of b[0]: %s[0] down %v, want the task's %v", v.Name, d, ra.sum.Vertices[1].Subtasks[0].Down)
		}
	}
	// random task failures draw a task of the worker, a chain once: the
	// failures name the tasks src[0], a -> b[0] (drawn at its head, a) and
	// out[0], never b on its own
	r = exec("failures: [{kind: task, mtbf: 2s}]\nrestart: {type: fixed-delay, attempts: -1, delay: 100ms}\n")
	got := of(r, EventFailure)
	if len(got) != r.sum.Recovery.Failures || len(got) < 10 {
		t.Fatalf("random task failures: %d failure events, %d failures", len(got), r.sum.Recovery.Failures)
	}
	n := map[string]int{}
	for _, m := range got {
		n[m]++
	}
	for m := range n {
		if m != "task src[0] failed" && m != "task a -> b[0] failed in a" && m != "task out[0] failed" {
			t.Errorf("random task failure %q: want one of the three tasks, drawn at their heads", m)
		}
	}
	t.Logf("random task failures: %v", n)
}

// A chain's back-pressure status is its task's: its head announces each
// change once, in the chain's name, not every operator of it.
func TestChainStatusChangesOnce(t *testing.T) {
	sc := mustParse(t, `
name: chain
duration: 20s
sources:
  - {name: src, arrival: {process: constant, rate: 100/s}, record_size: 4KiB}
operators:
  - {name: a, input: src, partitioning: rebalance, service_time: {distribution: constant, mean: 1ms}}
  - {name: b, input: a, service_time: {distribution: constant, mean: 1ms}}
sinks:
  - {name: out, input: b, partitioning: rebalance, service_time: {distribution: constant, mean: 20ms}}
`)
	var got []string
	s, err := New(sc, Options{Observer: &countingObserver{onSample: func(*Sample) {}, onEvent: func(e Event) {
		if e.Type == EventStatusChanged {
			got = append(got, e.Vertex+": "+e.Message)
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.RunUntil(t.Context(), 20*des.Second)
	// out serves 50/s of the 100/s: a -> b waits for its buffers half of
	// the time from the first second on (HIGH above 50%, LOW at 50%)
	chain := 0
	for _, g := range got {
		switch {
		case strings.HasPrefix(g, "b: "):
			t.Errorf("b announces a status of its own: %q", g)
		case strings.HasPrefix(g, "a: a -> b is "):
			chain++
		case strings.HasPrefix(g, "a: "):
			t.Errorf("a's status change does not name its task: %q", g)
		}
	}
	if chain != 3 { // HIGH, OK, HIGH at seed 1
		t.Errorf("%d status changes of a -> b, want 3: %q", chain, got)
	}
}

// A job chained from its source to its sink has no edge, so its task's
// row has no rate (Flink's numRecordsIn of a source task, numRecordsOut
// of a task that ends in a sink): a line under the table says its
// vertices' rates.
func TestFullyChainedRates(t *testing.T) {
	res, table := runTable(t, mustParse(t, `name: chain
duration: 60s
sources:
  - {name: s, arrival: {process: poisson, rate: 100/s}}
operators:
  - {name: op, input: s, service_time: {mean: 5ms}}
sinks:
  - {name: o, input: op}
`))
	if len(res.Summary.Tasks) != 1 {
		t.Fatalf("%d tasks, want 1 (s -> op -> o)", len(res.Summary.Tasks))
	}
	want := "s -> op -> o is one task, chained from its source to its sink, so no record enters or leaves it on an edge: s emits 98.1/s, op takes 98.1/s, o takes 98.1/s\n"
	if !strings.Contains(table, want) {
		t.Errorf("the table lacks %q:\n%s", want, table)
	}
}
