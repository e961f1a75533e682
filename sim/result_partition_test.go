package sim_test

import (
	"testing"
)

// Flink's output flusher is a free-running timer per output (RecordWriter's
// OutputFlusher), not one armed by the first record: at low load a record
// waits buffer_timeout/2 per hop on average (DESIGN.md §4). Three hops of
// 100ms at 32 subtasks each (rebalance: every pair of flusher phases
// carries records) add 50ms each, within 5%.
func TestOutputFlusherHalfTimeoutPerHop(t *testing.T) {
	sc := parse(t, "flusher.yaml", []byte(`
name: flusher
duration: 1000s
warmup: 10s
workers: {count: 1, slots: 128}
network: {buffer_timeout: 100ms}
sources: [{name: in, parallelism: 32, arrival: {process: poisson, rate: 1/s}, keys: {count: 1000}}]
operators:
  - {name: a, input: in, partitioning: rebalance, parallelism: 32, service_time: {distribution: constant, mean: 0s}}
  - {name: b, input: a, partitioning: rebalance, parallelism: 32, service_time: {distribution: constant, mean: 0s}}
sinks: [{name: out, input: b, partitioning: rebalance, parallelism: 32}]
`))
	s := run(t, sc)
	prev := 0.0
	for hop, name := range []string{"a", "b", "out"} {
		lat := *vertex(t, s, name).LatencyMean
		within(t, "latency added by hop "+name+" (ms)", lat-prev, 50, 0.05)
		t.Logf("hop %d into %s: %.2fms", hop+1, name, lat-prev)
		prev = lat
	}
}
