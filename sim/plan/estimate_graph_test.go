package plan

import (
	"testing"

	"github.com/dspalab/dspalab/sim/graph"
)

// TestEstimateGraphs: the edges an edge stream emits are the least of its
// size and what its rate brings over the duration; the simulator's memory
// and the modelled state follow from them, by primitive and backend.
func TestEstimateGraphs(t *testing.T) {
	sc := parse(t, `duration: 10s
sources:
  - name: edges
    arrival: {process: constant, rate: 100/s}
    edges: {type: barabasi-albert, vertices: 1000, attach: 3}
  - name: grid
    arrival: {process: constant, rate: 1000000/s}
    edges: {type: grid, rows: 10, cols: 20}
operators:
  - name: sp
    input: edges
    service_time: {mean: 1us}
    graph: {algorithm: spanner, primitive: value}
  - name: cc
    input: grid
    service_time: {mean: 1us}
    graph: {algorithm: components}
sinks: [{name: out, inputs: [sp, cc]}]
state_backend: {type: rocksdb}
`)
	e := compile(t, sc).Estimate(nil)
	// BA: 100/s × 10s + 1 = 1001 of its 3·4/2 + 996·3 = 2994 edges, ids up
	// to 1001/3 + 3 + 2; the grid: all its 10·19 + 20·9 = 370 edges, 200 ids
	const ba, baIDs, grid, gridIDs = 1001, 338, 370, 200
	if e.GraphEdges != ba+grid || e.GraphVertices != baIDs+gridIDs {
		t.Fatalf("graph edges %d, vertices %d; want %d and %d", e.GraphEdges, e.GraphVertices, ba+grid, baIDs+gridIDs)
	}
	wantBytes := int64(ba*bytesPerGeneratorEdge + (ba+grid)*bytesPerLogEdge +
		2*ba*bytesPerAdjEntry + ba*bytesPerAdjEdge + baIDs*bytesPerAdjVertex + gridIDs*bytesPerUFVertex)
	if e.GraphBytes != wantBytes {
		t.Errorf("graph memory %d bytes, want %d", e.GraphBytes, wantBytes)
	}
	// with checkpoints, the union-find is copied for the latest completed
	// checkpoint and each one in progress (2 at once here)
	sc.Checkpoint.Mode, sc.Checkpoint.Interval, sc.Checkpoint.MaxConcurrent = "aligned", 1e9, 2
	if e2 := compile(t, sc).Estimate(nil); e2.GraphBytes != wantBytes+3*gridIDs*bytesPerUFVertex {
		t.Errorf("with checkpoints: graph memory %d bytes, want %d + 3 copies of the union-find's %d", e2.GraphBytes, wantBytes, gridIDs*bytesPerUFVertex)
	}
	sc.Checkpoint.Mode, sc.Checkpoint.Interval, sc.Checkpoint.MaxConcurrent = "none", 0, 0
	wantState := graph.StateBytes(graph.ValueState, true, baIDs, 2*ba) + graph.CounterBytes(true, gridIDs, 2)
	if e.GraphStateBytes != wantState {
		t.Errorf("graph state %d bytes, want %d", e.GraphStateBytes, wantState)
	}
	before := e.Memory
	sc.Sources[0].Arrival.Rate = 1e6 // the whole stream: 2994 edges
	if e2 := compile(t, sc).Estimate(nil); e2.GraphEdges != 2994+grid || e2.Memory <= before {
		t.Errorf("at 1e6/s: %d edges, memory %d (was %d)", e2.GraphEdges, e2.Memory, before)
	}
	// a huge G(n, p): refused by the memory check that reads Memory
	sc.Sources[0].Edges.Type, sc.Sources[0].Edges.Probability, sc.Sources[0].Edges.Vertices = "erdos-renyi", 0.5, 1<<25
	sc.Sources[0].Arrival.Rate, sc.Duration = 1e8, 3600e9
	if e3 := compile(t, sc).Estimate(nil); e3.Memory < 1<<40 {
		t.Errorf("G(2^25, 0.5) for an hour at 1e8/s: memory %d, want far beyond any limit", e3.Memory)
	}
}
