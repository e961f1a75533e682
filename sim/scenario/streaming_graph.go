package scenario

import (
	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/graph"
)

// Edge-stream types of a source's edges.
const (
	EdgesErdosRenyi     = "erdos-renyi"     // G(n, p): every pair an edge with probability p
	EdgesBarabasiAlbert = "barabasi-albert" // preferential attachment: power-law degrees
	EdgesGrid           = "grid"            // a rows × cols 2-D grid
	EdgesFile           = "file"            // an edge-list file in SNAP's format (plain or gzip)
)

// EdgeStream is what an edge-stream source emits: one edge per record, in
// the stream's order, subtask i of a source of parallelism P reading
// edges i, i+P, i+2P, ... (as partitions of one topic). A generated
// stream is drawn from the scenario's seed, so the edges, and the graph
// they build, are the same on every run of the same seed. The source ends
// when the stream does.
type EdgeStream struct {
	Type string // erdos-renyi, barabasi-albert, grid or file
	// Vertices of erdos-renyi and barabasi-albert (ids 0 to Vertices−1).
	Vertices int
	// Probability of each pair of erdos-renyi: p·n(n−1)/2 edges expected.
	Probability float64
	// Attach is barabasi-albert's edges per new vertex (m): degrees are
	// at least m, and P(deg ≥ d) ~ (m/d)².
	Attach int
	// Rows and Cols of grid.
	Rows, Cols int
	// File is the edge list of type file, relative to the scenario
	// file's directory: "u v" or "u v w" per line (the weight is
	// ignored), # comments; self-loops are skipped and counted.
	File string
	// MaxEdges ends the stream after that many edges (0: no limit).
	MaxEdges int
}

// Graph algorithms of a graph operator.
const (
	GraphDegrees    = "degrees"    // degree of every vertex
	GraphComponents = "components" // connected components by union-find
	GraphSpanner    = "spanner"    // greedy streaming (2k−1)-spanner
)

// GraphOperator is a streaming-graph operator: it keeps graph state over
// the edges of its input, each record one edge, and emits what it
// computes (a spanner emits the edges it keeps; degrees and components
// emit every edge). Its service time per edge is the operator's
// service_time plus the state accesses of the algorithm, each at the
// state backend's cost for Primitive, plus VisitTime per vertex a
// spanner's search visits (see the simulator's graph_operator.go).
type GraphOperator struct {
	Algorithm string // degrees, components or spanner
	// K is the spanner's parameter: an edge is kept iff the spanner's
	// distance between its endpoints exceeds 2k−1 (stretch 2k−1); default 2.
	K int
	// Primitive is the Flink state primitive holding each vertex's
	// neighbour list: value (ValueState of the whole list), list
	// (ListState) or map (MapState keyed by neighbour); default map.
	Primitive string
	// VisitTime is the CPU time of one vertex a spanner's search visits
	// (its queue and marks), beside the state access that reads its
	// neighbours; default 100ns.
	VisitTime des.Time
}

// MaxGraphVertices is the most vertices of an edge stream: vertex ids are
// below it (graph.MaxVertices).
const MaxGraphVertices = graph.MaxVertices

var (
	erOnly   = &Cond{Field: kType, Values: []string{EdgesErdosRenyi}}
	genOnly  = &Cond{Field: kType, Values: []string{EdgesErdosRenyi, EdgesBarabasiAlbert}}
	baOnly   = &Cond{Field: kType, Values: []string{EdgesBarabasiAlbert}}
	gridOnly = &Cond{Field: kType, Values: []string{EdgesGrid}}
	fileOnly = &Cond{Field: kType, Values: []string{EdgesFile}}
)

var edgesMapping = &Mapping{
	Path: kSources + "[]." + kEdges,
	Doc:  "An edge stream: each record of the source is the next edge of a generated graph or an edge-list file; subtask i of parallelism P reads edges i, i+P, ... Generators are drawn from the seed, so the graph is the same on every run.",
	Fields: []*Field{
		{Name: kType, Go: "Type", Kind: KindEnum, Required: true, Values: []Value{
			val(EdgesErdosRenyi, "G(n, p) (Erdős–Rényi): each of the n(n−1)/2 pairs is an edge with probability p"),
			val(EdgesBarabasiAlbert, "preferential attachment (Barabási–Albert): each new vertex attaches to attach earlier ones chosen by degree; power-law degrees"),
			val(EdgesGrid, "a rows × cols 2-D grid, row by row"),
			val(EdgesFile, "an edge-list file in SNAP's format (https://snap.stanford.edu/data/), plain or gzip"),
		}, Doc: "Where the edges come from."},
		{Name: kVertices, Go: "Vertices", Kind: KindInteger, Only: genOnly, RequiredWhen: genOnly,
			Bounds: Bounds{Min: 2, Max: MaxGraphVertices, MaxWhy: "the operators keep arrays indexed by vertex id"},
			Doc:    "Number of vertices n (ids 0 to n−1)."},
		{Name: kProbability, Go: "Probability", Kind: KindRatio, Only: erOnly, RequiredWhen: erOnly,
			Bounds: Bounds{Positive: true, Max: 1.0},
			Doc:    "Probability p of each pair: p·n(n−1)/2 edges expected."},
		{Name: kAttach, Go: "Attach", Kind: KindInteger, Only: baOnly, RequiredWhen: baOnly, Bounds: Bounds{Min: 1},
			Doc: "Edges m of each new vertex, fewer than vertices: every degree is at least m, and P(deg ≥ d) ~ (m/d)²."},
		{Name: kRows, Go: "Rows", Kind: KindInteger, Only: gridOnly, RequiredWhen: gridOnly, Bounds: Bounds{Min: 1}, Doc: "Rows of the grid."},
		{Name: kCols, Go: "Cols", Kind: KindInteger, Only: gridOnly, RequiredWhen: gridOnly, Bounds: Bounds{Min: 1}, Doc: "Columns of the grid; rows × cols vertices."},
		{Name: kFile, Go: "File", Kind: KindString, Only: fileOnly, RequiredWhen: fileOnly,
			Doc: "Edge-list file relative to the scenario file's directory: \"u v\" or \"u v w\" per line (the weight is ignored), # or % comments, plain or gzip; vertex ids below 2^26; self-loops are skipped and counted; a malformed line stops the run with file:line."},
		{Name: kMaxEdges, Go: "MaxEdges", Kind: KindInteger, Default: 0, Bounds: Bounds{Min: 0}, DefaultDoc: "no limit",
			Doc: "The stream ends after this many edges; 0 reads them all."},
	},
}

var graphMapping = &Mapping{
	Path: kOperators + "[]." + kGraph,
	Doc:  "A streaming-graph operator over the edges of its input (an edge-stream source): the graph state (one neighbour list per vertex) is keyed state in the state backend, each access at its cost for the primitive, snapshotted by checkpoints and restored from the latest completed one after a failover.",
	Fields: []*Field{
		{Name: kAlgorithm, Go: "Algorithm", Kind: KindEnum, Required: true, Values: []Value{
			val(GraphDegrees, "the degree of every vertex (one counter per vertex); any parallelism, the subtasks' counts summed"),
			val(GraphComponents, "connected components by union-find (one parent per vertex); parallelism 1"),
			val(GraphSpanner, "greedy (2k−1)-spanner: an edge is kept iff the spanner's distance between its endpoints exceeds 2k−1, by a BFS bounded to that depth, skipped when an endpoint is new; emits the kept edges; parallelism 1"),
		}, Doc: "What the operator computes."},
		{Name: kK, Go: "K", Kind: KindInteger, Default: 2, Bounds: Bounds{Min: 1, MinWhy: "the stretch 2k−1 is at least 1"},
			Only: &Cond{Field: kAlgorithm, Values: []string{GraphSpanner}},
			Doc:  "The spanner's k: stretch 2k−1 (k = 2 is a 3-spanner)."},
		{Name: kPrimitive, Go: "Primitive", Kind: KindEnum, Default: string(graph.MapState), Values: []Value{
			val(string(graph.ValueState), "ValueState holding the whole neighbour list: on rocksdb every read deserialises it and every update serialises it whole"),
			val(string(graph.ListState), "ListState: an append is one cheap write (RocksDB merge), a read scans the list"),
			val(string(graph.MapState), "MapState keyed by neighbour: one RocksDB entry per neighbour; a put or a contains is one access, a scan iterates the entries"),
		}, Only: &Cond{Field: kAlgorithm, Values: []string{GraphSpanner}},
			Doc: "State primitive of the adjacency list (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/fault-tolerance/state/)."},
		{Name: kVisitTime, Go: "VisitTime", Kind: KindDuration, Default: "100ns", Bounds: Bounds{Min: 0},
			Only: &Cond{Field: kAlgorithm, Values: []string{GraphSpanner}},
			Doc:  "CPU time per vertex a search visits (queue and marks), beside the state access that reads its neighbours."},
	},
}

// streamingGraphs checks what relates graph operators and edge streams to
// the rest of the job.
func (c *checker) streamingGraphs() {
	s := c.s
	edgeSources := map[string]bool{}
	for i, src := range s.Sources {
		e := src.Edges
		if e == nil {
			continue
		}
		edgeSources[src.Name] = true
		p := strictyaml.Index(kSources, i) + "." + kEdges
		switch e.Type {
		case EdgesBarabasiAlbert:
			if e.Attach >= e.Vertices && e.Vertices >= 2 {
				c.errorf(p+"."+kAttach, "must be less than vertices (%d): each new vertex attaches to that many earlier ones, got %d", e.Vertices, e.Attach)
			}
		case EdgesGrid:
			if e.Rows >= 1 && e.Cols >= 1 && int64(e.Rows)*int64(e.Cols) > MaxGraphVertices {
				c.errorf(p+"."+kRows, "rows × cols must be at most %d vertices, got %d × %d", MaxGraphVertices, e.Rows, e.Cols)
			}
		case EdgesFile:
			c.text(p+"."+kFile, e.File, 0)
		}
	}
	for i, op := range s.Operators {
		g := op.Graph
		if g == nil {
			continue
		}
		p := strictyaml.Index(kOperators, i)
		if op.State != nil {
			c.errorf(p+"."+kState, "a graph operator keeps its graph as its keyed state; give graph or state, not both")
		}
		if op.Window != nil {
			c.errorf(p+"."+kGraph, "an operator is a window or a graph operator, not both")
		}
		if (g.Algorithm == GraphSpanner || g.Algorithm == GraphComponents) && op.Parallelism > 1 {
			c.errorf(p+"."+kParallelism, "%s needs a global view of the graph: parallelism 1, got %d (a partitioned variant would lose paths and components that cross partitions)", g.Algorithm, op.Parallelism)
		}
		for _, in := range op.Inputs {
			if !edgeSources[in] {
				c.errorf(p+"."+kInput, "a graph operator reads edges: its input %q must be a source with edges (an edge stream)", in)
				break
			}
		}
	}
}
