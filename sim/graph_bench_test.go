package sim_test

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

// BenchmarkSpannerOperator streams the 499,985 edges of a 10^5-vertex
// Barabási–Albert graph (attach 5) through the 3-spanner operator on the
// heap, fast enough to keep up (100,000 edges/s for 5s of simulated
// time, then the stream ends); it reports the edges the operator
// processed per wall second, the simulator included.
func BenchmarkSpannerOperator(b *testing.B) {
	sc := parse(b, "bench.yaml", []byte(`duration: 6s
sources:
  - name: edges
    arrival: {process: constant, rate: 100000/s}
    edges: {type: barabasi-albert, vertices: 100000, attach: 5}
operators:
  - name: spanner
    input: edges
    service_time: {mean: 0s}
    graph: {algorithm: spanner, k: 2, primitive: map, visit_time: 0s}
sinks: [{name: out, input: spanner}]
`))
	b.ReportAllocs()
	var edges uint64
	for i := 0; i < b.N; i++ {
		res, err := sim.Run(context.Background(), sc, sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		edges += res.Summary.Graphs[0].Edges
	}
	b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
}
