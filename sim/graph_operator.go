package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/graph"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// graphRun holds what the streaming-graph operators of a run share: the
// edge logs of the edge-stream sources, and the operators, in the order of
// their subtasks. Nil for a run without edge streams.
type graphRun struct {
	logs map[*vertex]*edgeLog
	ops  []*graphOperator
}

// graphOperator is the record processor of a streaming-graph operator
// (scenario.GraphOperator): each input record is an edge (the edge its id
// names in its source's edge log), which updates the graph state (degrees,
// union-find or spanner, in package graph) and is emitted when the
// algorithm says so: a spanner emits the edges it keeps, components the
// edges that join two components (a spanning forest), degrees every edge.
//
// Its service time per edge is the operator's service_time, then the
// graph work: the state accesses of the algorithm, each at the state
// backend's cost (stateCost: access_time, plus on rocksdb the bytes it
// (de)serialises and the entries it scans), plus visit_time per vertex a
// spanner's search visits. For a spanner of primitive P, with du and dv
// the spanner degrees of the endpoints before the edge:
//
//   - are the endpoints new? value and list read both neighbour lists
//     whole (ValueState.value(), ListState.get() deserialise the list on
//     rocksdb); map asks isEmpty(), one seek each;
//   - a search (no endpoint new) reads the list of every vertex it visits,
//     the start's again on map only (value and list have it from the
//     first step); on map, a vertex of the last level (depth 2k−2) asks
//     contains(other endpoint), one access, instead of a scan;
//   - a kept edge writes both endpoints: value serialises each list whole
//     with the new neighbour (update()), list appends one element (add(),
//     a RocksDB merge that reads nothing), map puts one entry.
//
// A list of deg neighbours is graph.ValueBytes(P, deg) bytes read at once
// for value and list; a map scan is one seek and deg entries of
// graph.MapEntryBytes, rocksDBNext each. Degrees and components keep one
// or two 8-byte values per vertex (counter; parent and size): degrees
// reads and writes both counters (4 accesses), a union-find reads a
// parent per step of its two finds (and the two roots), writes the
// parents that path halving shortens, and a merge writes a parent and a
// size. Sources: Flink's state documentation
// (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/fault-tolerance/state/)
// and its RocksDB tuning notes ("MapState and ListState perform better
// than ValueState on RocksDB": RocksDBListState.add merges without
// deserialising, RocksDBMapState keeps an entry per map key,
// RocksDBValueState serialises the whole value on every update()).
type graphOperator struct {
	t         *subtask
	algorithm string
	prim      graph.Primitive
	rocks     bool
	cost      stateCost
	visitTime des.Time
	spanner   *graph.Spanner
	comp      *graph.Components
	deg       *graph.Degrees
	inGraph   bool  // the record in hand is in its graph work (a second service)
	keep      bool  // the record in hand is emitted
	bytes     int64 // the modelled state size, by primitive and backend
	// what the graph state holds, as of now (a restore sets them back
	// with the graph): edges applied, kept, with a new endpoint, searched,
	// the vertices the searches visited, and repeats, the dropped edges
	// already in the spanner (distance 1: a duplicate)
	edges, kept, shortcuts, searches, visits, repeats uint64
	visitHist                                         *metrics.Histogram
	visitLog2                                         []uint64 // visits per search by power of two: [0], [1], [2,3], [4,7], ...
	// what the task did, over the whole run (not restored): the edges it
	// processed, replays included, and the graph work's service time
	processed uint64
	work      des.Time
	snaps     map[int64]*graphSnap // by checkpoint id: the pending ones and the latest completed
}

// graphSnap is a graph operator's state as a checkpoint's barrier found
// it: the graph (a spanner's edge count, since its adjacency only grows;
// a copy of the union-find or the degree counts) and the counts that
// describe it. Its snapshot cost is the keyed state's (keyedState's
// snapshotCost: the graph's modelled bytes copied on heap, uploaded on
// rocksdb, the changed vertices' when incremental).
type graphSnap struct {
	spanner                                           graph.SpannerSnap
	comp                                              *graph.Components
	deg                                               *graph.Degrees
	edges, kept, shortcuts, searches, visits, repeats uint64
	visitHist                                         metrics.Histogram
	visitLog2                                         []uint64
	bytes                                             int64
}

func newGraphOperator(t *subtask, g *scenario.GraphOperator, sb scenario.StateBackend) *graphOperator {
	op := &graphOperator{t: t, algorithm: g.Algorithm, prim: graph.Primitive(g.Primitive), rocks: sb.Type == scenario.BackendRocksDB,
		cost: newStateCost(sb), visitTime: g.VisitTime, visitHist: metrics.NewHistogram()}
	switch g.Algorithm {
	case scenario.GraphSpanner:
		op.spanner = graph.NewSpanner(g.K)
	case scenario.GraphComponents:
		op.comp = &graph.Components{}
	default:
		op.deg = &graph.Degrees{}
	}
	return op
}

// run takes input records while the task is idle.
func (g *graphOperator) run(now des.Time) { g.t.pull(now) }

// capture keeps the graph state for checkpoint id, with the keyed state
// at the barrier (Flink snapshots the keyed state backend that holds the
// adjacency lists or the union-find), and drops the copies of checkpoints
// older than the latest completed one.
func (g *graphOperator) capture(id int64) {
	if g.snaps == nil {
		g.snaps = map[int64]*graphSnap{}
	}
	var latest int64
	if c := g.t.s.ckpt; c != nil && c.latest != nil {
		latest = c.latest.id
	}
	for old := range g.snaps {
		if old < latest {
			delete(g.snaps, old)
		}
	}
	sn := &graphSnap{edges: g.edges, kept: g.kept, shortcuts: g.shortcuts, searches: g.searches, visits: g.visits, repeats: g.repeats,
		visitHist: *g.visitHist, visitLog2: slices.Clone(g.visitLog2), bytes: g.bytes}
	switch {
	case g.spanner != nil:
		sn.spanner = g.spanner.Snapshot()
	case g.comp != nil:
		sn.comp = g.comp.Clone()
	default:
		sn.deg = g.deg.Clone()
	}
	g.snaps[id] = sn
}

// restore brings the graph state back from checkpoint ck after a
// failover (empty without one): the rewound sources then replay the
// edges after the checkpoint's offsets, and the graph the job ends with
// is the one a run without the failure builds from the same edges in the
// same order.
func (g *graphOperator) restore(now des.Time, ck *checkpoint) {
	g.inGraph, g.keep = false, false
	var sn *graphSnap
	if ck != nil {
		sn = g.snaps[ck.id]
	}
	for id := range g.snaps {
		if ck == nil || id != ck.id {
			delete(g.snaps, id) // pending ones were aborted by the failover
		}
	}
	if sn == nil {
		sn = &graphSnap{spanner: graph.NewSpanner(1).Snapshot(), comp: &graph.Components{}, deg: &graph.Degrees{}}
	}
	g.edges, g.kept, g.shortcuts, g.searches, g.visits, g.repeats = sn.edges, sn.kept, sn.shortcuts, sn.searches, sn.visits, sn.repeats
	*g.visitHist = sn.visitHist
	g.visitLog2 = slices.Clone(sn.visitLog2)
	switch {
	case g.spanner != nil:
		if !g.spanner.Restore(sn.spanner) && g.t.s.stopped == nil {
			g.t.s.stop(fmt.Errorf("sim: operator %s: the checkpoint's spanner has edges the spanner never had", g.t.v.name))
		}
	case g.comp != nil:
		g.comp = sn.comp.Clone()
	default:
		g.deg = sn.deg.Clone()
	}
	g.bytes = 0 // the failover emptied the heap and the keyed state
	g.resize(now, sn.bytes)
}

// complete ends the service of the record in hand: first the graph work
// begins (the task stays busy for it), then its outputs are written.
func (g *graphOperator) complete(now des.Time) {
	t := g.t
	if !g.inGraph {
		d := g.process(now)
		if t.slow > 1 {
			d = des.Time(float64(d)*t.slow + 0.5)
		}
		if d > 0 {
			g.inGraph = true
			t.setState(now, stateBusy)
			t.after(d, (*serviceDone)(t))
			return
		}
	}
	g.inGraph = false
	t.served(now)
	r := &t.cur
	t.v.observeLatency(now - r.Ingest)
	if g.keep {
		t.pend = append(t.pend, *r)
	}
	st := stateIdle
	if !t.emit(now) {
		st = t.blockedState()
	}
	t.setState(now, st)
}

// written goes on with the next input record.
func (g *graphOperator) written(now des.Time) { g.t.resume(now) }

// process applies the edge of the record in hand to the graph state and
// returns the service time of the work.
func (g *graphOperator) process(now des.Time) des.Time {
	e, ok := g.t.s.edgeOf(&g.t.cur)
	g.keep = false
	if !ok {
		return 0 // not an edge (validation lets only edge streams in)
	}
	g.edges++
	g.processed++
	c := g.cost
	var d des.Time
	switch {
	case g.spanner != nil:
		du, dv := g.spanner.Adj.Degree(e.U), g.spanner.Adj.Degree(e.V)
		st := g.spanner.Add(e.U, e.V)
		d = g.spannerCost(st, du, dv)
		g.keep = st.Kept
		if st.Shortcut {
			g.shortcuts++
		} else {
			g.searches++
			g.visits += uint64(st.Visited)
			g.visitHist.Add(des.Time(st.Visited))
			b := 0
			for v := st.Visited; v > 0; v >>= 1 {
				b++
			}
			for len(g.visitLog2) <= b {
				g.visitLog2 = append(g.visitLog2, 0)
			}
			g.visitLog2[b]++
		}
		if st.Found == 1 {
			g.repeats++ // the edge is in the spanner already
		}
		if st.Kept {
			g.kept++
			g.touch(e.U)
			g.touch(e.V)
		}
		g.resize(now, graph.StateBytes(g.prim, g.rocks, int64(g.spanner.Adj.Vertices()), int64(g.spanner.Adj.Entries())))
	case g.comp != nil:
		merged, steps := g.comp.Add(e.U, e.V)
		writes := steps // path halving shortens a parent per step
		if merged {
			writes += 2 // the parent and size of the new root
			g.kept++
		}
		d = des.Time(steps+2+writes) * c.point(8)
		g.keep = merged
		g.touch(e.U)
		g.touch(e.V)
		g.resize(now, graph.CounterBytes(g.rocks, int64(g.comp.Vertices), 2))
	default:
		g.deg.Add(e.U, e.V)
		d = 4 * c.point(8)
		g.keep = true
		g.touch(e.U)
		g.touch(e.V)
		g.resize(now, graph.CounterBytes(g.rocks, int64(g.deg.Vertices), 1))
	}
	g.work += d
	return d
}

// spannerCost is the service time of a spanner's work on one edge (see
// graphOperator).
func (g *graphOperator) spannerCost(st graph.SpannerStep, du, dv int) des.Time {
	c := g.cost
	var d des.Time
	if g.prim == graph.MapState {
		d += 2 * c.access // isEmpty()
	} else {
		d += c.point(graph.ValueBytes(g.prim, du)) + c.point(graph.ValueBytes(g.prim, dv))
	}
	if !st.Shortcut {
		if g.prim == graph.MapState {
			inner, entries := st.Visited-st.Last, st.Entries-st.LastEntries
			d += des.Time(inner)*c.access + c.scan(entries, graph.MapEntryBytes) - c.access // a seek per list, entries scanned
			d += des.Time(st.Last) * c.access                                               // contains()
		} else {
			// every list but the start's, read whole
			n, entries := st.Visited-1, st.Entries-st.FromDegree
			bytes := graph.ValueBytes(g.prim, entries) + int64(n-1)*graph.ValueBytes(g.prim, 0)
			if n > 0 {
				d += des.Time(n-1)*c.access + c.point(bytes)
			}
		}
		d += des.Time(st.Visited) * g.visitTime
	}
	if st.Kept {
		switch g.prim {
		case graph.ValueState:
			d += c.point(graph.ValueBytes(g.prim, du+1)) + c.point(graph.ValueBytes(g.prim, dv+1))
		case graph.ListState:
			d += 2 * c.point(graph.ValueBytes(g.prim, 1))
		default:
			d += 2 * c.point(graph.MapEntryBytes)
		}
	}
	return d
}

// touch marks vertex x's state as changed (an incremental checkpoint
// uploads it) and known (the keyed state's keys).
func (g *graphOperator) touch(x uint32) {
	k := g.t.keyed
	k.keys.add(x)
	if k.dirty != nil {
		k.dirty.add(x)
	}
}

// resize sets the modelled state size; heap state counts against the
// worker's memory, and past it the run stops (Flink's job would fail with
// an OutOfMemoryError and fail again after every restart).
func (g *graphOperator) resize(now des.Time, bytes int64) {
	delta := bytes - g.bytes
	g.bytes = bytes
	g.t.keyed.extra = bytes
	if g.rocks || delta == 0 {
		return
	}
	w := g.t.s.workers[g.t.worker]
	w.heap += delta
	if w.heap > w.memory && g.t.s.stopped == nil {
		g.t.s.stop(fmt.Errorf("worker %d ran out of memory at %s: %d bytes (%s) of heap state (the graph of %s, %s) exceed its memory of %d bytes (%s) (java.lang.OutOfMemoryError: Java heap space); the rocksdb state backend keeps state on disk",
			w.index, FormatTime(now), w.heap, scenario.FormatByteSize(w.heap), g.t.v.name, g.prim, w.memory, scenario.FormatByteSize(w.memory)))
	}
}

// GraphSummary is what a streaming-graph operator computed over the whole
// run (its graph state is cumulative: the warm-up is not left out), in
// summary.json's "graphs".
type GraphSummary struct {
	Name      string `json:"name"` // the operator (vertex) name
	Algorithm string `json:"algorithm"`
	// Primitive is the state primitive of a spanner's adjacency list ("" for
	// degrees and components, which keep single values); Backend the
	// state backend.
	Primitive string `json:"primitive,omitempty"`
	Backend   string `json:"backend"`
	// K is the spanner's k (stretch 2k−1), 0 for other algorithms.
	K int `json:"k,omitempty"`
	// Edges is the edges the operator processed; Kept those it emitted
	// (the spanner's edges, the spanning forest's for components, every
	// edge for degrees) and Dropped the rest. KeptRatio is Kept / Edges:
	// the spanner's size against its input.
	Edges     uint64  `json:"edges"`
	Kept      uint64  `json:"kept"`
	Dropped   uint64  `json:"dropped"`
	KeptRatio float64 `json:"kept_ratio"`
	// Spanner: Shortcuts are the edges with a new endpoint (no search:
	// the distance is infinite), Searches the others; SearchRatio is
	// Searches / Edges, the fraction of edges that needed a search.
	// Visits are the vertices the searches visited: mean and p99 per
	// search (p99 within 1%), max, and VisitHistogram the searches by
	// visits in powers of two (1, 2-3, 4-7, ...), the empty ones left out.
	Shortcuts      uint64        `json:"shortcuts,omitempty"`
	Searches       uint64        `json:"searches,omitempty"`
	SearchRatio    float64       `json:"search_ratio,omitempty"`
	Visits         uint64        `json:"visits,omitempty"`
	VisitsMean     float64       `json:"visits_mean,omitempty"`
	VisitsP99      float64       `json:"visits_p99,omitempty"`
	VisitsMax      float64       `json:"visits_max,omitempty"`
	VisitHistogram []VisitBucket `json:"visit_histogram,omitempty"`
	// Vertices is the distinct vertices in the graph state; Components the
	// connected components among them and LargestComponent the largest's
	// vertices (components); MaxDegree the largest degree (degrees: over
	// the subtasks' counts summed).
	Vertices         int    `json:"vertices"`
	Components       int    `json:"components,omitempty"`
	LargestComponent int    `json:"largest_component,omitempty"`
	MaxDegree        uint32 `json:"max_degree,omitempty"`
	// StateBytes is the modelled graph state at the end, by primitive and
	// backend (graph.StateBytes), over the subtasks; WorkMeanUs the mean
	// service time of the graph work per edge, in microseconds.
	StateBytes int64   `json:"state_bytes"`
	WorkMeanUs float64 `json:"work_mean_us"`
	// Replayed is the edges processed again after failovers: the
	// operator's graph state and the counts above were restored from a
	// checkpoint, and the rewound sources replayed the edges after its
	// offsets (WorkMeanUs counts their work too, over every edge
	// processed). Repeats is the edges a spanner dropped because they were
	// in it already (distance 1): duplicates in the stream; a replay that
	// follows a restore never meets its own edges, since the restored
	// spanner is that of the checkpoint's offsets.
	Replayed uint64 `json:"replayed,omitempty"`
	Repeats  uint64 `json:"repeats,omitempty"`
}

// graphSummaries returns the summaries of the graph operators, one per
// vertex, in the order of the plan (nil without graph operators).
func (s *Sim) graphSummaries() []GraphSummary {
	if s.graphs == nil || len(s.graphs.ops) == 0 {
		return nil
	}
	var out []GraphSummary
	for _, v := range s.vertices {
		var ops []*graphOperator
		for _, op := range s.graphs.ops {
			if op.t.v == v {
				ops = append(ops, op)
			}
		}
		if len(ops) == 0 {
			continue
		}
		g := GraphSummary{Name: v.name, Algorithm: ops[0].algorithm, Backend: s.sc.StateBackend.Type}
		hist := metrics.NewHistogram()
		var buckets []uint64
		var work des.Time
		var processed uint64
		for _, op := range ops {
			processed += op.processed
			g.Repeats += op.repeats
			g.Edges += op.edges
			g.Kept += op.kept
			g.Shortcuts += op.shortcuts
			g.Searches += op.searches
			g.Visits += op.visits
			g.StateBytes += op.bytes
			work += op.work
			hist.Merge(op.visitHist)
			for b, n := range op.visitLog2 {
				if n == 0 {
					continue
				}
				for len(buckets) <= b {
					buckets = append(buckets, 0)
				}
				buckets[b] += n
			}
		}
		for b, n := range buckets {
			if n > 0 {
				lo := uint64(1) << max(b-1, 0)
				if b == 0 {
					lo = 0
				}
				g.VisitHistogram = append(g.VisitHistogram, VisitBucket{From: lo, To: max(uint64(1)<<b-1, lo), Searches: n})
			}
		}
		op := ops[0]
		switch {
		case op.spanner != nil:
			g.Primitive, g.K = string(op.prim), op.spanner.K
			g.Vertices = op.spanner.Adj.Vertices()
		case op.comp != nil:
			g.Vertices, g.Components, g.LargestComponent = op.comp.Vertices, op.comp.Sets, op.comp.Largest()
		default:
			g.Vertices, g.MaxDegree = mergedDegrees(ops)
			g.Kept = g.Edges
		}
		g.Dropped = g.Edges - g.Kept
		g.Replayed = processed - g.Edges
		if g.Edges > 0 {
			g.KeptRatio = round6(float64(g.Kept) / float64(g.Edges))
			g.SearchRatio = round6(float64(g.Searches) / float64(g.Edges))
		}
		if processed > 0 {
			g.WorkMeanUs = round6(float64(work) / float64(processed) / float64(des.Microsecond))
		}
		if g.Searches > 0 {
			g.VisitsMean = round6(float64(g.Visits) / float64(g.Searches))
			g.VisitsP99 = math.Round(float64(hist.Quantile(0.99)))
			g.VisitsMax = float64(hist.Max())
		}
		out = append(out, g)
	}
	return out
}

// mergedDegrees sums the degree counts of the subtasks of a degree
// operator: the distinct vertices and the largest degree.
func mergedDegrees(ops []*graphOperator) (vertices int, maxDeg uint32) {
	if len(ops) == 1 {
		return ops[0].deg.Vertices, ops[0].deg.Max
	}
	sum := map[uint32]uint32{}
	for _, op := range ops {
		op.deg.Each(func(x, d uint32) { sum[x] += d })
	}
	for _, d := range sum {
		maxDeg = max(maxDeg, d)
	}
	return len(sum), maxDeg
}

// VisitBucket is a bar of GraphSummary.VisitHistogram: the searches that
// visited From to To vertices.
type VisitBucket struct {
	From     uint64 `json:"from"`
	To       uint64 `json:"to"`
	Searches uint64 `json:"searches"`
}

// graphOperator makes subtask t of graph operator pv: its processor and
// its graph state as keyed state (checkpoints snapshot it).
func (s *Sim) graphOperator(t *subtask, pv *plan.Vertex) {
	sc := s.plan.Scenario
	if s.graphs == nil {
		s.graphs = &graphRun{logs: map[*vertex]*edgeLog{}}
	}
	g := newGraphOperator(t, pv.Graph, sc.StateBackend)
	t.proc = g
	t.keyed = newKeyedState(&scenario.KeyedState{}, sc.StateBackend, sc.Checkpoint.Incremental, 1<<16)
	t.keyed.graph = g
	s.graphs.ops = append(s.graphs.ops, g)
	s.sample.Graph = true
}

// GraphColumns follow TimeseriesColumns (and EventTimeColumns) in the
// timeseries.csv of a job with graph operators: a graph operator's edges
// processed, kept (emitted), skipped by the new-endpoint shortcut and
// searched, and the vertices its searches visited, so far (a vertex row
// sums its subtasks); empty for other vertices. Its graph state is in
// state_bytes.
var GraphColumns = []string{"graph_edges", "graph_kept", "graph_shortcuts", "graph_searches", "graph_visits"}

// RowGraph is the GraphColumns of a row: counts so far.
type RowGraph struct {
	On                                       bool // the row is a graph operator's
	Edges, Kept, Shortcuts, Searches, Visits uint64
}

// appendCSV appends the GraphColumns of g to rec.
func (g *RowGraph) appendCSV(rec []string) []string {
	if !g.On {
		return append(rec, "", "", "", "", "")
	}
	for _, n := range [...]uint64{g.Edges, g.Kept, g.Shortcuts, g.Searches, g.Visits} {
		rec = append(rec, strconv.FormatUint(n, 10))
	}
	return rec
}

// sampleGraphs fills the graph counts of the rows of smp (per subtask,
// then the vertex, in the order of takeSample).
func (s *Sim) sampleGraphs(smp *Sample) {
	i := 0
	for _, v := range s.vertices {
		var vr RowGraph
		for _, t := range v.subtasks {
			var r RowGraph
			if g, ok := t.proc.(*graphOperator); ok {
				r = RowGraph{On: true, Edges: g.edges, Kept: g.kept, Shortcuts: g.shortcuts, Searches: g.searches, Visits: g.visits}
				if g.deg != nil {
					r.Kept = g.edges // degrees emits every edge
				}
				vr.On = true
				vr.Edges += r.Edges
				vr.Kept += r.Kept
				vr.Shortcuts += r.Shortcuts
				vr.Searches += r.Searches
				vr.Visits += r.Visits
			}
			smp.Rows[i].Graph = r
			i++
		}
		smp.Rows[i].Graph = vr
		i++
	}
}

// graphText is a graph operator's line of the human summary.
func graphText(g GraphSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph %s (%s", g.Name, g.Algorithm)
	if g.Algorithm == scenario.GraphSpanner {
		b.Reset()
		fmt.Fprintf(&b, "graph %s (%d-spanner, %s state", g.Name, 2*g.K-1, g.Primitive)
	}
	fmt.Fprintf(&b, " on %s): %s in", g.Backend, plural.Count(int64(g.Edges), "edge"))
	switch g.Algorithm {
	case scenario.GraphSpanner:
		fmt.Fprintf(&b, ", %d kept (%s), %d dropped; %d with a new endpoint needed no search (%s), the %d searches visited %s vertices on average (p99 %s, max %s)",
			g.Kept, pctPrec(g.KeptRatio), g.Dropped, g.Shortcuts, pctPrec(1-g.SearchRatio), g.Searches,
			strconv.FormatFloat(g.VisitsMean, 'f', 1, 64), strconv.FormatFloat(g.VisitsP99, 'f', -1, 64), strconv.FormatFloat(g.VisitsMax, 'f', -1, 64))
	case scenario.GraphComponents:
		fmt.Fprintf(&b, ", %s over %s (the largest %d), %d edges joined two", plural.Count(int64(g.Components), "component"), plural.Count(int64(g.Vertices), "vertex"), g.LargestComponent, g.Kept)
	default:
		fmt.Fprintf(&b, ", %s, largest degree %d", plural.Count(int64(g.Vertices), "vertex"), g.MaxDegree)
	}
	fmt.Fprintf(&b, "; graph state %s, work %s per edge", scenario.FormatByteSize(g.StateBytes), FormatTime(des.Time(g.WorkMeanUs*1e3+0.5)))
	return b.String()
}

// remedy is what a diagnosis advises for bottleneck v (vs its summary):
// more parallelism or a faster operator, but not for a spanner or
// components, which need parallelism 1 (a global view of the graph): for
// them, what makes an edge cheaper, from the choices the operator has
// not made yet (MapState, the heap, a smaller k), or a source below the
// rate the operator can take at its busy ratio.
func (s *Sim) remedy(v *vertex, vs VertexSummary) string {
	const more = "give it more parallelism or make it faster"
	if v.pv.Graph == nil || v.pv.Graph.Algorithm == scenario.GraphDegrees {
		return more
	}
	var g *GraphSummary
	for _, x := range s.graphSummaries() {
		if x.Name == v.name {
			g = &x
			break
		}
	}
	if g == nil {
		return more
	}
	var ways []string
	if g.Algorithm == scenario.GraphSpanner && g.Primitive != string(graph.MapState) {
		ways = append(ways, fmt.Sprintf("MapState instead of %s (contains() at a search's last level, one entry put per kept edge)", primitiveName(g.Primitive)))
	}
	if g.Backend == scenario.BackendRocksDB {
		ways = append(ways, "the heap state backend if the graph fits in memory (no (de)serialisation)")
	}
	if g.Algorithm == scenario.GraphSpanner && g.K > 1 {
		ways = append(ways, fmt.Sprintf("a smaller k (a %d-spanner's searches visit %s vertices on average, to depth %d)", 2*g.K-1, strconv.FormatFloat(g.VisitsMean, 'f', 1, 64), 2*g.K-1))
	}
	limit := ""
	if vs.Busy > 0 && vs.InRate > 0 {
		limit = fmt.Sprintf(" below the %s edges/s it can take", rateText(vs.InRate/vs.Busy))
	}
	ways = append(ways, "a source"+limit)
	return fmt.Sprintf("a %s needs parallelism 1 (a global view of the graph), so more parallelism is no remedy; make each edge cheaper (%s of graph work per edge): %s",
		g.Algorithm, FormatTime(des.Time(g.WorkMeanUs*1e3+0.5)), joinList(ways, "or"))
}

// primitiveName is a state primitive's Flink name.
func primitiveName(p string) string {
	switch graph.Primitive(p) {
	case graph.ValueState:
		return "ValueState"
	case graph.ListState:
		return "ListState"
	}
	return "MapState"
}
