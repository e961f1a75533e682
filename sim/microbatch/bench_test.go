package microbatch

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/sim/scenario"
)

// BenchmarkKeyedJob runs a keyed micro-batch job (a shuffle into
// mapWithState over 100k keys) and reports simulated records per second
// of wall time: the target is at least 1M.
func BenchmarkKeyedJob(b *testing.B) {
	sc, err := scenario.Parse("bench.yaml", []byte(`
engine: spark-streaming
duration: 10s
spark: {batch_interval: 1s, checkpoint: true, state_operation: map-with-state}
workers: {count: 4, slots: 4}
sources: [{name: in, parallelism: 4, arrival: {process: poisson, rate: 50000/s}, keys: {count: 100000}}]
operators:
  - {name: parse, input: in, parallelism: 4, service_time: {mean: 1us}}
  - {name: counts, input: parse, partitioning: hash, parallelism: 8, service_time: {mean: 2us}, state: {bytes_per_key: 64B}}
sinks: [{name: out, input: counts}]
`))
	if err != nil {
		b.Fatal(err)
	}
	var records uint64
	b.ResetTimer()
	for range b.N {
		s, err := New(sc, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.RunUntil(context.Background(), sc.Duration); err != nil {
			b.Fatal(err)
		}
		records += s.Result().Summary.Totals.Read
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}
