package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

func TestDiagnosisKinds(t *testing.T) {
	cases := []struct {
		name, yaml, kind, vertex, says string
	}{
		{"network", `
name: slow-link
duration: 60s
warmup: 5s
workers: {count: 2, slots: 1}
network: {bandwidth: 100kbit/s, latency: 20ms}
sources: [{name: src, parallelism: 2, arrival: {process: constant, rate: 1000/s}}]
operators: [{name: op, input: src, partitioning: rebalance, parallelism: 2, service_time: {mean: 100us}}]
sinks: [{name: out, input: op, parallelism: 2}]
`, sim.DiagnosisNetwork, "op", "bandwidth 100kbit/s between workers"},
		{"fan-out: follow the edge that blocks", `
name: edge
duration: 30s
warmup: 1s
workers: {count: 3, slots: 2}
network: {buffer_size: 50B, buffer_timeout: 0, buffers_per_channel: 1, floating_buffers: 0}
sources:
  - {name: a, parallelism: 3, arrival: {process: bursty, rate: 500/s, on_time: 1s, off_time: 2s}, record_size: 1KiB, keys: {count: 1}}
  - {name: b, parallelism: 2, arrival: {process: schedule, schedule: [{at: 0s, rate: 10/s}, {at: 5s, rate: 1000/s}]}, replayable: false, on_backpressure: buffer, buffer_limit: 5}
operators:
  - {name: j, inputs: [a, b], partitioning: hash, parallelism: 5, service_time: {distribution: lognormal, mean: 1ms, stddev: 3ms}, selectivity: 0.3}
  - {name: r, input: j, partitioning: rescale, parallelism: 2, service_time: {distribution: uniform, min: 0s, max: 2ms}, selectivity: 0}
  - {name: bc, input: j, partitioning: broadcast, parallelism: 3, service_time: {distribution: exponential, mean: 1ms}, selectivity: 3}
sinks:
  - {name: o1, input: r}
  - {name: o2, inputs: [bc, r], parallelism: 2, service_time: {mean: 100us}}
`, sim.DiagnosisNetwork, "o2", "the network from bc to o2 is the limit"},
		{"intermittent", `
name: drain
chaining: false
duration: 120s
sources: [{name: src, arrival: {process: schedule, schedule: [{at: 0s, rate: 200/s}, {at: 30s, rate: 10/s}]}, record_size: 1KiB}]
operators: [{name: op, input: src, service_time: {mean: 10ms}}]
sinks: [{name: out, input: op}]
`, sim.DiagnosisIntermittent, "op", "came and went"},
		{"intermittent, two held back", `
name: drain2
chaining: false
duration: 120s
sources: [{name: src, arrival: {process: schedule, schedule: [{at: 0s, rate: 200/s}, {at: 30s, rate: 10/s}]}, record_size: 1KiB}]
operators:
  - {name: parse, input: src, service_time: {mean: 1ms}}
  - {name: op, input: parse, service_time: {mean: 10ms}}
sinks: [{name: out, input: op}]
`, sim.DiagnosisIntermittent, "op", "src and parse were held back part of the time by op, whose subtasks are busy 57% on average over the window"},
		{"key-group skew: more parallelism does not help", `
name: key-groups
duration: 20s
warmup: 5s
workers: {count: 17, slots: 10}
sources: [{name: src, arrival: {process: constant, rate: 10000/s}, keys: {count: 100000}, record_size: 4KiB}]
operators:
  - {name: op, input: src, partitioning: hash, parallelism: 170, service_time: {mean: 20ms}}
sinks: [{name: out, input: op}]
`, sim.DiagnosisSkew, "op", "skew: op is the bottleneck by its key groups: 86 of its 170 subtasks own 2 of the 256 key groups, the other 84 own 1"},
		{"overloaded", `
name: unbounded
chaining: false
duration: 60s
network: {capacity: unbounded}
sources: [{name: src, arrival: {process: constant, rate: 150/s}}]
operators: [{name: op, input: src, service_time: {mean: 10ms}}]
sinks: [{name: out, input: op}]
`, sim.DiagnosisOverloaded, "op", "serves 99.9 of the 150 records/s"},
		{"saturated", `
name: busy
duration: 200s
warmup: 10s
sources: [{name: src, arrival: {process: constant, rate: 95/s}}]
operators: [{name: op, input: src, service_time: {mean: 10ms}}]
sinks: [{name: out, input: op}]
`, sim.DiagnosisSaturated, "op", "busy 95% is the work of src, op and out together"},
		{"chained source falls behind", `
name: chain-behind
duration: 10s
sources: [{name: s, arrival: {process: constant, rate: 100/s}}]
operators:
  - {name: op, input: s, service_time: {distribution: constant, mean: 5ms}}
  - {name: op2, input: op, service_time: {distribution: constant, mean: 7ms}}
sinks: [{name: out, input: op2}]
`, sim.DiagnosisOverloaded, "op", "the task s -> op -> op2 -> out, one thread, is busy 100%, so its source s reads slower than its records arrive and ends 168 records behind"},
		{"none", `
name: calm
duration: 60s
sources: [{name: src, arrival: {process: poisson, rate: 10/s}}]
operators: [{name: op, input: src, service_time: {mean: 10ms}}]
sinks: [{name: out, input: op}]
`, sim.DiagnosisNone, "", "the busiest, op, is busy 10%"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := run(t, parse(t, c.name+".yaml", []byte(c.yaml))).Diagnosis
			text := d.Message + "\n" + strings.Join(d.Evidence, "\n")
			if d.Kind != c.kind || d.Vertex != c.vertex || !strings.Contains(text, c.says) {
				t.Errorf("diagnosis %+v; want kind %s at %q saying %q", d, c.kind, c.vertex, c.says)
			}
		})
	}
}

// Without flow control an overloaded queue grows without bound; MaxQueued
// stops the run, which still returns its result so far.
func TestQueueLimitStopsRun(t *testing.T) {
	sc := parse(t, "oom.yaml", []byte(`
name: oom
chaining: false
duration: 4h
network: {capacity: unbounded}
sources: [{name: s, arrival: {process: constant, rate: 100000/s}}]
operators: [{name: a, input: s, service_time: {mean: 1s}}]
sinks: [{name: o, input: a}]
`))
	res, err := sim.Run(context.Background(), sc, sim.Options{MaxQueued: 1e5})
	var ql *sim.QueueLimitError
	if !errors.As(err, &ql) {
		t.Fatalf("err = %v, want a *QueueLimitError", err)
	}
	if ql.Vertex != "a" || ql.Queued <= 1e5 || ql.Queued > 1e5+70000 {
		t.Errorf("limit error %+v: want vertex a just over 100000 queued", ql)
	}
	if !res.Summary.Partial || res.Summary.SimulatedS > 2 {
		t.Errorf("summary partial=%v at %vs, want a partial run stopped within 2s", res.Summary.Partial, res.Summary.SimulatedS)
	}
}
