package sim_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Caps of FuzzSimulate: an input whose up-front estimate exceeds them is
// refused, as the runner's limits refuse it (so the estimate must count
// whatever takes memory or time); the running budget bounds the rest.
const (
	fuzzMemory   = 64 << 20 // bytes: the estimate's cap, and the running budget
	fuzzEvents   = 3e6      // estimated events of the cut-down run
	fuzzSubtasks = 512
	fuzzQueued   = 1e5 // records (about 100 bytes each)
)

// boundSeeds are scenarios of issue 13 cut down to the caps: many
// workers, checkpoints that pile up, large key spaces, random failures.
var boundSeeds = []string{
	`duration: 3s
workers: {count: 20000, slots: 1000000000}
sources: [{name: s, parallelism: 2, arrival: {process: poisson, rate: 500/s}, keys: {count: 1000}, replayable: true}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 2, service_time: {distribution: exponential, mean: 1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 2, delivery: transactional}]
checkpoint: {mode: unaligned, interval: 10ms, max_concurrent: 1000000, timeout: 100h, storage: {bandwidth: 1B/s}}
`,
	`duration: 3s
workers: {count: 4, slots: 4, memory: 1MiB}
sources: [{name: s, parallelism: 4, arrival: {process: constant, rate: 2000/s}, keys: {count: 100000, distribution: zipf}, replayable: true}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 8, service_time: {mean: 0.1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 2, delivery: idempotent}]
state_backend: {type: rocksdb}
checkpoint: {mode: aligned, interval: 50ms, incremental: true, max_concurrent: 3}
failures: [{kind: worker, mtbf: 1s}, {kind: task, at: 1s, vertex: a, subtask: 1}]
restart: {type: failure-rate, max_failures_per_interval: 100, failure_rate_interval: 10s, delay: 100ms}
`,
	`duration: 3s
workers: {count: 8, slots: 16}
sources: [{name: s, parallelism: 16, arrival: {process: bursty, rate: 1000/s, off_rate: 0/s, on_time: 100ms, off_time: 100ms}, replayable: false, on_backpressure: buffer, buffer_limit: 10}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 16, service_time: {mean: 1ms}, state: {bytes_per_key: 8B}}]
sinks: [{name: out, input: a, parallelism: 16}]
checkpoint: {mode: stop-the-world, interval: 100ms, timeout: 200ms, tolerable_failures: 0}
state_backend: {type: heap, gc_interval: 10ms, gc_pause_per_gib: 1s}
failures: [{kind: jobmanager, mtbf: 1s}, {kind: network-partition, at: 1s, duration: 500ms, worker: 1}]
high_availability: {type: zookeeper}
`,
	`duration: 3s
workers: {count: 2, slots: 64}
sources: [{name: s, parallelism: 64, arrival: {process: constant, rate: 1/s}}]
sinks: [{name: out, input: s, partitioning: rebalance, parallelism: 64}]
checkpoint: {mode: aligned, interval: 10ms, timeout: 10ms, max_concurrent: 100}
`,
	// windows in processing time, which fire at end − 1ns (a firing
	// delay of −1ns once stopped the run), and event times before 0
	`duration: 3s
sources:
  - {name: s, arrival: {process: poisson, rate: 500/s}, keys: {count: 7}, event_delay: {distribution: exponential, mean: 300ms}, watermarks: {strategy: monotonous}, replayable: true}
operators:
  - {name: tw, input: s, partitioning: hash, service_time: {mean: 1ms}, window: {kind: tumbling, size: 250ms, time: processing}}
  - {name: sw, input: s, partitioning: hash, service_time: {mean: 1ms}, window: {kind: sliding, size: 500ms, slide: 100ms, time: processing}}
  - {name: ew, input: s, partitioning: hash, service_time: {mean: 1ms}, window: {kind: tumbling, size: 200ms, allowed_lateness: 100ms}}
sinks: [{name: a, input: tw}, {name: b, input: sw}, {name: c, input: ew}]
checkpoint: {mode: aligned, interval: 500ms}
failures: [{kind: task, mtbf: 1s}]
`,
}

// FuzzSimulate runs every scenario the parser accepts, cut down to a
// short duration and refused when its up-front estimate (sim/plan)
// exceeds the caps above, and checks the simulator's invariants: it never
// panics; the heap it holds stays within the estimate, the running budget
// and the queued records; every subtask's time sums to the window;
// records are conserved when no operator changes their number and nothing
// fails; and no more distinct records are delivered or lost than were
// emitted. The seed corpus (testdata/fuzz, the built-in scenarios and
// boundSeeds) runs as an ordinary test.
func FuzzSimulate(f *testing.F) {
	for _, name := range scenarios.Names() {
		b, _ := scenarios.Get(name)
		f.Add(b)
	}
	for _, s := range boundSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse("fuzz.yaml", data)
		if err != nil || sc.IsMicroBatch() { // sim/microbatch's job
			return
		}
		for _, s := range sc.Sources {
			if s.Arrival.Process == scenario.ArrivalTrace {
				return // needs the runner's trace opener
			}
		}
		sc.Duration = min(sc.Duration, 3*des.Second)
		var keep []scenario.Failure
		for _, f := range sc.Failures {
			if f.MTBF > 0 || f.At < sc.Duration {
				keep = append(keep, f)
			}
		}
		sc.Failures = keep
		sc.Warmup = min(sc.Warmup, sc.Duration/2)
		sc.Metrics.Interval = max(sc.Metrics.Interval, 100*des.Millisecond)
		p, err := plan.Compile(sc)
		if err != nil {
			t.Fatalf("a valid scenario does not compile: %v", err)
		}
		e := p.Estimate(nil)
		if e.Memory > fuzzMemory || e.Events > fuzzEvents || e.Subtasks > fuzzSubtasks {
			return // the limits refuse it
		}
		before := liveHeap()
		run, err := sim.New(sc, sim.Options{MaxQueued: fuzzQueued, MaxMemory: fuzzMemory})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		err = run.RunUntil(context.Background(), sc.Duration)
		// what the run holds: the job's structures (estimated), what it
		// accumulated (budgeted), queued records (limited), and slack for
		// the records in buffers and the Go runtime
		if grown, bound := int64(liveHeap())-int64(before), e.Memory+fuzzMemory+fuzzQueued*100+32<<20; grown > bound {
			t.Errorf("the run holds %d bytes of heap, over the estimate %d + the budget %d + queued records", grown, e.Memory, int64(fuzzMemory))
		}
		res := run.Result()
		s := res.Summary
		if s.Partial {
			return // stopped by the queue limit or the budget: the window is cut short
		}
		if err != nil {
			t.Fatalf("a run that is not partial failed: %v", err)
		}
		for _, v := range s.Vertices {
			for _, st := range v.Subtasks {
				if sum := st.Busy + st.Idle + st.Backpressured + st.Down; s.Window.ToS > s.Window.FromS && (sum < 0.99999 || sum > 1.00001) {
					t.Errorf("%s[%d]: busy+idle+back-pressured+down = %v", v.Name, st.Index, sum)
				}
			}
		}
		plain := len(s.Vertices) > 0 // a Flink job (a consumer-only run has no delivery summary)
		for _, o := range sc.Operators {
			plain = plain && o.Selectivity == 1
		}
		for _, k := range sc.Sinks {
			plain = plain && k.Partitioning != scenario.PartitionBroadcast
		}
		for _, o := range sc.Operators {
			plain = plain && o.Partitioning != scenario.PartitionBroadcast
			plain = plain && o.Graph == nil // a graph operator emits what it keeps
		}
		// records are conserved on a graph of single paths (each source
		// feeds one chain): emitted = delivered + in flight
		outs := map[string]int{}
		for _, o := range sc.Operators {
			for _, in := range o.Inputs {
				outs[in]++
			}
		}
		for _, k := range sc.Sinks {
			for _, in := range k.Inputs {
				outs[in]++
			}
		}
		for _, n := range outs {
			plain = plain && n == 1
		}
		for _, o := range sc.Operators {
			plain = plain && outs[o.Name] == 1 && o.Window == nil && o.Join == nil // a window or join consumes records and emits results
		}
		if plain && s.Recovery.Failures == 0 && s.Totals.Emitted != s.Totals.Delivered+s.Totals.InFlight {
			t.Errorf("emitted %d != delivered %d + in flight %d", s.Totals.Emitted, s.Totals.Delivered, s.Totals.InFlight)
		}
		// distinct records: nothing delivered or lost that was not emitted
		if d := s.Delivery; plain && len(sc.Sinks) == 1 && (d.Delivered > d.Emitted || d.Lost > d.Emitted) {
			t.Errorf("delivery %+v: more delivered or lost than emitted", d)
		}
	})
}
