package sim_test

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// BenchmarkKeyedTumblingWindow: 2 million records (100,000/s from 2
// source subtasks for 10s, bounded out-of-orderness of 100ms with delays
// up to 200ms, periodic watermarks every 200ms) through a keyed tumbling
// window of 1s over 10,000 keys (hash, 2 subtasks) into a sink. It reports
// the records the window operator took per wall second (issue 14's
// target: at least 1 M/s), and the window results.
func BenchmarkKeyedTumblingWindow(b *testing.B) {
	sc := windowBench(b)
	b.ReportAllocs()
	var in, results uint64
	for i := 0; i < b.N; i++ {
		res, err := sim.Run(context.Background(), sc, sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range res.Summary.Vertices {
			if v.Name == "win" {
				in += v.RecordsIn
			}
		}
		results += res.Summary.Totals.Delivered
	}
	b.ReportMetric(float64(in)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(results)/float64(b.N), "results/run")
}

// windowBench is the job of BenchmarkKeyedTumblingWindow.
func windowBench(b testing.TB) *scenario.Scenario {
	return parse(b, "window-bench.yaml", []byte(`
duration: 10s
workers: {count: 2, slots: 2}
sources:
  - name: src
    parallelism: 2
    arrival: {process: constant, rate: 100000/s}
    keys: {count: 10000}
    event_delay: {distribution: uniform, max: 200ms}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 100ms}
operators:
  - name: win
    input: src
    partitioning: hash
    parallelism: 2
    service_time: {mean: 0s}
    window: {kind: tumbling, size: 1s}
sinks:
  - name: out
    input: win
    parallelism: 2
`))
}

// BenchmarkWindowMemoryFlat: the peak live heap of the keyed tumbling
// window job over 10s and over 40s (4x the records): it is bounded by the
// open windows' state (10,000 keys, a window or two open each), not by
// the length of the run, so the ratio stays near 1.
func BenchmarkWindowMemoryFlat(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sc := windowBench(b)
		short := peakHeap(b, sc)
		sc.Duration = 40 * des.Second
		long := peakHeap(b, sc)
		b.ReportMetric(float64(short), "peak-heap-1x-bytes")
		b.ReportMetric(float64(long), "peak-heap-4x-bytes")
		b.ReportMetric(float64(long)/float64(short), "ratio")
	}
}
