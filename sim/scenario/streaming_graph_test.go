package scenario

import "testing"

// graphErrorCases are the mistakes of streaming-graph scenarios, run by
// TestParseErrors with the other error cases.
var graphErrorCases = []struct {
	name string
	yaml string
	want []string
}{
	{"a valid spanner over a power-law stream", `duration: 10s
sources:
  - name: edges
    arrival: {process: constant, rate: 1000/s}
    edges: {type: barabasi-albert, vertices: 1000, attach: 3}
operators:
  - name: spanner
    input: edges
    service_time: {mean: 1us}
    graph: {algorithm: spanner, k: 2, primitive: value}
sinks: [{name: out, input: spanner}]
state_backend: {type: rocksdb, serialization_bandwidth: 100MiB/s}
`, nil},
	{"serialization_bandwidth accepted on heap (ignored there), so that only state_backend.type differs from rocksdb", `duration: 10s
sources:
  - name: edges
    arrival: {process: constant, rate: 1000/s}
    edges: {type: barabasi-albert, vertices: 1000, attach: 3}
operators:
  - name: spanner
    input: edges
    service_time: {mean: 1us}
    graph: {algorithm: spanner, k: 2, primitive: value}
sinks: [{name: out, input: spanner}]
state_backend: {type: heap, access_time: 1us, serialization_bandwidth: 50MiB/s}
`, nil},
	{"k below 1, a misspelt primitive, a spanner at parallelism 2", `duration: 10s
sources:
  - name: edges
    arrival: {process: constant, rate: 1000/s}
    edges: {type: grid, rows: 10, cols: 10}
operators:
  - name: spanner
    input: edges
    parallelism: 2
    service_time: {mean: 1us}
    graph: {algorithm: spanner, k: 0, primitive: maps}
sinks: [{name: out, input: spanner}]
`, []string{
		`t.yaml:9:18: operators[0].parallelism: spanner needs a global view of the graph: parallelism 1, got 2 (a partitioned variant would lose paths and components that cross partitions)`,
		`t.yaml:11:36: operators[0].graph.k: must be at least 1 (the stretch 2k−1 is at least 1), got 0`,
		`t.yaml:11:50: operators[0].graph.primitive: unknown primitive "maps"; did you mean "map"?`,
	}},
	{"edge stream fields of another type, a misspelt type, attach not below vertices", `duration: 10s
sources:
  - name: a
    arrival: {process: constant, rate: 1000/s}
    edges: {type: grid, rows: 10, cols: 10, probability: 0.5}
  - name: b
    arrival: {process: constant, rate: 1000/s}
    edges: {type: barabasi-albrt, vertices: 10}
  - name: c
    arrival: {process: constant, rate: 1000/s}
    edges: {type: barabasi-albert, vertices: 10, attach: 10}
  - name: d
    arrival: {process: constant, rate: 1000/s}
    edges: {type: file}
sinks: [{name: out, inputs: [a, b, c, d]}]
`, []string{
		`t.yaml:5:45: sources[0].edges.probability: "probability" applies only to type erdos-renyi, not grid`,
		`t.yaml:8:19: sources[1].edges.type: unknown type "barabasi-albrt"; did you mean "barabasi-albert"?`,
		`t.yaml:11:58: sources[2].edges.attach: must be less than vertices (10): each new vertex attaches to that many earlier ones, got 10`,
		`t.yaml:14:12: sources[3].edges: missing required field "file" for type file`,
	}},
	{"a graph operator on plain records, with keyed state", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 1000/s}
operators:
  - name: deg
    input: src
    partitioning: hash
    service_time: {mean: 1us}
    state: {bytes_per_key: 100B}
    graph: {algorithm: degrees, visit_time: 1us}
sinks: [{name: out, input: deg}]
`, []string{
		`t.yaml:7:12: operators[0].input: a graph operator reads edges: its input "src" must be a source with edges (an edge stream)`,
		`t.yaml:10:12: operators[0].state: a graph operator keeps its graph as its keyed state; give graph or state, not both`,
		`t.yaml:11:33: operators[0].graph.visit_time: "visit_time" applies only to algorithm spanner, not degrees`,
	}},
}

func init() {
	for _, c := range graphErrorCases {
		errorCases = append(errorCases, struct {
			name string
			yaml string
			want []string
		}{c.name, c.yaml, c.want})
	}
}

// TestSerializationRate: rocksdb (de)serialises at serialization_bandwidth
// or its default 200MiB/s; the heap serialises nothing on access, even
// where serialization_bandwidth is given.
func TestSerializationRate(t *testing.T) {
	for _, c := range []struct {
		b    StateBackend
		want float64
	}{
		{StateBackend{Type: BackendRocksDB, SerializationBandwidth: 50 << 20}, 50 << 20},
		{StateBackend{Type: BackendRocksDB}, DefaultSerializationBandwidth},
		{StateBackend{Type: BackendHeap, SerializationBandwidth: 50 << 20}, 0},
		{StateBackend{Type: BackendHeap}, 0},
	} {
		if got := c.b.SerializationRate(); got != c.want {
			t.Errorf("%+v: SerializationRate() = %v, want %v", c.b, got, c.want)
		}
	}
}
