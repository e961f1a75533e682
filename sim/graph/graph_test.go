package graph

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// bfsDist is a plain, unbounded breadth-first search over an edge list:
// the hop distance between u and v, -1 when not connected.
func bfsDist(edges []Edge, u, v uint32) int {
	adj := map[uint32][]uint32{}
	for _, e := range edges {
		adj[e.U] = append(adj[e.U], e.V)
		adj[e.V] = append(adj[e.V], e.U)
	}
	dist := map[uint32]int{u: 0}
	q := []uint32{u}
	for len(q) > 0 {
		x := q[0]
		q = q[1:]
		if x == v {
			return dist[x]
		}
		for _, y := range adj[x] {
			if _, ok := dist[y]; !ok {
				dist[y] = dist[x] + 1
				q = append(q, y)
			}
		}
	}
	return -1
}

// checkSpanner streams edges through a (2k−1)-spanner and checks every
// decision against a brute-force distance over the edges kept so far; it
// returns the spanner and the kept edges.
func checkSpanner(t *testing.T, edges []Edge, k int) (*Spanner, []Edge) {
	t.Helper()
	s := NewSpanner(k)
	var kept, dropped []Edge
	for _, e := range edges {
		d := bfsDist(kept, e.U, e.V)
		st := s.Add(e.U, e.V)
		wantKept := d < 0 || d > 2*k-1
		if st.Kept != wantKept {
			t.Fatalf("edge %v: kept %v, but the brute-force distance in the spanner was %d (bound %d)", e, st.Kept, d, 2*k-1)
		}
		if !st.Kept && st.Found != d {
			t.Fatalf("edge %v: search found distance %d, brute force %d", e, st.Found, d)
		}
		if st.Kept {
			kept = append(kept, e)
		} else {
			dropped = append(dropped, e)
		}
	}
	for _, e := range dropped {
		if d := bfsDist(kept, e.U, e.V); d < 1 || d > 2*k-1 {
			t.Fatalf("dropped edge %v has spanner distance %d, want 1..%d (stretch)", e, d, 2*k-1)
		}
	}
	if int(s.Kept) != len(kept) || int(s.Seen) != len(edges) || s.Shortcuts+s.Searches != s.Seen {
		t.Fatalf("counters: seen %d kept %d shortcuts %d searches %d; want seen %d kept %d", s.Seen, s.Kept, s.Shortcuts, s.Searches, len(edges), len(kept))
	}
	return s, kept
}

func TestSpannerBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		for _, k := range []int{1, 2, 3} {
			rng := rand.New(rand.NewPCG(seed, 7))
			edges := ErdosRenyi(25, 0.25, rng, 0)
			s, kept := checkSpanner(t, edges, k)
			if k == 1 && len(kept) != len(edges) {
				t.Fatalf("k=1 keeps every distinct edge: kept %d of %d", len(kept), len(edges))
			}
			_ = s
		}
	}
	rng := rand.New(rand.NewPCG(3, 3))
	checkSpanner(t, BarabasiAlbert(60, 3, rng, 0), 2)
}

// A complete graph K_n streamed as (0,1), (0,2), ..., (0,n−1), (1,2), ...
// gives the star around 0 as its 3-spanner: each (0, j) has the new
// endpoint j (a shortcut, kept), and every later (i, j) has the path
// i–0–j of 2 hops.
func TestSpannerCompleteGraphStar(t *testing.T) {
	const n = 12
	var edges []Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			edges = append(edges, Edge{U: uint32(i), V: uint32(j)})
		}
	}
	s, kept := checkSpanner(t, edges, 2)
	if len(kept) != n-1 {
		t.Fatalf("3-spanner of K_%d: %d edges, want the star's %d", n, len(kept), n-1)
	}
	for _, e := range kept {
		if e.U != 0 {
			t.Fatalf("kept %v, not an edge of the star around 0", e)
		}
	}
	if s.Shortcuts != n-1 || s.Searches != uint64(n*(n-1)/2-(n-1)) {
		t.Fatalf("shortcuts %d searches %d, want %d and %d", s.Shortcuts, s.Searches, n-1, n*(n-1)/2-(n-1))
	}
	// each search expands i (depth 0): its only spanner neighbour is 0,
	// then 0 (depth 1), whose list holds j: 2 vertices visited
	if s.Visits != 2*s.Searches {
		t.Fatalf("visits %d, want 2 per search (%d)", s.Visits, 2*s.Searches)
	}
}

// A tree has no cycle, so no edge closes a path: in any order, every edge
// is kept.
func TestSpannerTreeKeepsEveryEdge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 200
	var edges []Edge
	for v := 1; v < n; v++ {
		edges = append(edges, Edge{U: uint32(v), V: uint32(rng.IntN(v))})
	}
	for trial := 0; trial < 3; trial++ {
		rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
		for _, k := range []int{1, 2, 4} {
			s := NewSpanner(k)
			for _, e := range edges {
				s.Add(e.U, e.V)
			}
			if s.Kept != n-1 {
				t.Fatalf("tree of %d vertices, k=%d: kept %d, want %d", n, k, s.Kept, n-1)
			}
		}
	}
}

// The Petersen graph has girth 5: a dropped edge would close a cycle of at
// most 2k hops, so at k = 2 (cycles ≤ 4) every edge is kept; at k = 3 the
// brute force decides.
func TestSpannerPetersenFile(t *testing.T) {
	f, err := os.Open("testdata/petersen.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	el, err := ReadEdgeList(f, "petersen.txt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(el.Edges) != 15 || el.Vertices != 10 || el.SelfLoops != 1 {
		t.Fatalf("read %d edges, %d vertices, %d self-loops; want 15, 10, 1", len(el.Edges), el.Vertices, el.SelfLoops)
	}
	if _, kept := checkSpanner(t, el.Edges, 2); len(kept) != 15 {
		t.Fatalf("3-spanner of Petersen: %d edges, want all 15 (girth 5)", len(kept))
	}
	_, kept := checkSpanner(t, el.Edges, 3)
	// the outer path 0-1-2-3-4 closes with 4-0 at 4 hops (dropped); with
	// the spokes it is a spanning tree of 9 edges, in which every
	// pentagram edge has a path of 4 or 5 hops: 9 kept
	if len(kept) != 9 {
		t.Fatalf("5-spanner of Petersen: %d edges, want 9", len(kept))
	}
}

func TestSpannerGrid(t *testing.T) {
	edges := Grid(6, 7, 0)
	if len(edges) != 6*6+7*5 {
		t.Fatalf("grid 6x7: %d edges, want %d", len(edges), 6*6+7*5)
	}
	// row-major order: each vertex's right edge, then its down edge. Row
	// 0's right edges and every down edge reach a new vertex (kept). A
	// right edge of row 1 has the 3-hop path up, along row 0 and down:
	// dropped. One of row 2 has none shorter than 5 hops (row 1 has no
	// right edges): kept; row 3 dropped again, and so on. Kept: the 7×5
	// down edges and the right edges of rows 0, 2 and 4 (3×6).
	_, kept := checkSpanner(t, edges, 2)
	if want := 7*5 + 3*6; len(kept) != want {
		t.Fatalf("3-spanner of the 6x7 grid: %d edges, want %d", len(kept), want)
	}
}

// componentsBFS labels the components of an edge list by breadth-first
// search: the number of components among the vertices that occur.
func componentsBFS(edges []Edge) (sets, largest int) {
	adj := map[uint32][]uint32{}
	for _, e := range edges {
		adj[e.U] = append(adj[e.U], e.V)
		adj[e.V] = append(adj[e.V], e.U)
	}
	seen := map[uint32]bool{}
	for x := range adj {
		if seen[x] {
			continue
		}
		sets++
		size := 0
		q := []uint32{x}
		seen[x] = true
		for len(q) > 0 {
			y := q[0]
			q = q[1:]
			size++
			for _, z := range adj[y] {
				if !seen[z] {
					seen[z] = true
					q = append(q, z)
				}
			}
		}
		largest = max(largest, size)
	}
	return sets, largest
}

func TestComponents(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		edges := ErdosRenyi(300, 1.0/300, rng, 0)
		var c Components
		for _, e := range edges {
			c.Add(e.U, e.V)
		}
		sets, largest := componentsBFS(edges)
		if c.Sets != sets || c.Largest() != largest {
			t.Fatalf("seed %d: %d components (largest %d), BFS labelling gives %d (%d)", seed, c.Sets, c.Largest(), sets, largest)
		}
		if int(c.Merges) != c.Vertices-c.Sets {
			t.Fatalf("merges %d, want vertices − components = %d", c.Merges, c.Vertices-c.Sets)
		}
	}
	var c Components
	for _, e := range Grid(20, 30, 0) {
		c.Add(e.U, e.V)
	}
	if c.Sets != 1 || c.Vertices != 600 || c.Merges != 599 {
		t.Fatalf("grid 20x30: %d components of %d vertices, %d merges; want 1, 600, 599", c.Sets, c.Vertices, c.Merges)
	}
}

func TestDegrees(t *testing.T) {
	var d Degrees
	for _, e := range Grid(4, 5, 0) {
		d.Add(e.U, e.V)
	}
	// corners 2, border 3, inner 4
	if d.Of(0) != 2 || d.Of(1) != 3 || d.Of(6) != 4 || d.Vertices != 20 || d.Max != 4 {
		t.Fatalf("grid degrees: %d %d %d, %d vertices, max %d", d.Of(0), d.Of(1), d.Of(6), d.Vertices, d.Max)
	}
}

func TestErdosRenyiCount(t *testing.T) {
	const n, p = 2000, 0.01
	mean := p * n * (n - 1) / 2
	sd := math.Sqrt(mean * (1 - p))
	for seed := uint64(1); seed <= 5; seed++ {
		a := ErdosRenyi(n, p, rand.New(rand.NewPCG(seed, 0)), 0)
		b := ErdosRenyi(n, p, rand.New(rand.NewPCG(seed, 0)), 0)
		if len(a) != len(b) || (len(a) > 0 && a[len(a)/2] != b[len(b)/2]) {
			t.Fatalf("seed %d: not deterministic", seed)
		}
		if d := math.Abs(float64(len(a)) - mean); d > 4*sd {
			t.Fatalf("seed %d: %d edges, expectation %.0f ± %.0f", seed, len(a), mean, sd)
		}
		seen := map[Edge]bool{}
		for _, e := range a {
			if e.U <= e.V || int(e.U) >= n || seen[e] {
				t.Fatalf("edge %v: want v > w, in range, each pair once", e)
			}
			seen[e] = true
		}
	}
	if got := len(ErdosRenyi(10, 1, rand.New(rand.NewPCG(1, 1)), 0)); got != 45 {
		t.Fatalf("G(10, 1): %d edges, want 45", got)
	}
}

func TestBarabasiAlbertTail(t *testing.T) {
	const n, m = 20000, 3
	edges := BarabasiAlbert(n, m, rand.New(rand.NewPCG(9, 9)), 0)
	if want := m*(m+1)/2 + (n-m-1)*m; len(edges) != want {
		t.Fatalf("%d edges, want %d", len(edges), want)
	}
	var d Degrees
	for _, e := range edges {
		d.Add(e.U, e.V)
	}
	atLeast := func(k uint32) float64 {
		c := 0
		for x := 0; x < n; x++ {
			if d.Of(uint32(x)) >= k {
				c++
			}
		}
		return float64(c) / n
	}
	if atLeast(m) != 1 {
		t.Fatalf("every vertex has degree ≥ m")
	}
	// P(deg ≥ d) ≈ (m/d)² for d ≫ m: doubling d quarters the tail
	r := atLeast(4*m) / atLeast(8*m)
	if r < 3 || r > 5.3 {
		t.Fatalf("P(deg≥%d)/P(deg≥%d) = %.2f, want about 4 (power law of exponent 3)", 4*m, 8*m, r)
	}
	if d.Max < 100 {
		t.Fatalf("largest degree %d: a power law has hubs far above the mean %d", d.Max, 2*m)
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 2\n3\n", "g.txt:2: want \"u v\" or \"u v w\", got 1 fields"},
		{"# c\n1 x\n", "g.txt:2: vertex id \"x\" is not a non-negative integer"},
		{"1 -2\n", "g.txt:1: vertex id \"-2\""},
		{"1 2 w\n", "g.txt:1: weight \"w\" is not a number"},
		{"1 2\n5 100\n", "g.txt:2: vertex id 100 is out of range: ids must be below 100"},
	} {
		_, err := ReadEdgeList(strings.NewReader(c.in), "g.txt", 100, 0)
		var le *LineError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("# gz\n0 1\n1 2\n2 2\n"))
	zw.Close()
	el, err := ReadEdgeList(&buf, "g.txt.gz", 0, 0)
	if err != nil || len(el.Edges) != 2 || el.SelfLoops != 1 || el.Vertices != 3 {
		t.Fatalf("gzip: %+v, %v", el, err)
	}
}

func TestStateBytes(t *testing.T) {
	// one vertex of 10 neighbours (10 entries)
	for _, c := range []struct {
		p     Primitive
		rocks bool
		want  int64
	}{
		{ValueState, false, 48 + 40 + 240},
		{ListState, false, 48 + 40 + 240},
		{MapState, false, 48 + 48 + 480},
		{ValueState, true, 11 + 24 + 4 + 80},
		{ListState, true, 11 + 24 + 90},
		{MapState, true, 10 * (11 + 8 + 1 + 24)},
	} {
		if got := StateBytes(c.p, c.rocks, 1, 10); got != c.want {
			t.Errorf("%s rocks=%v: %d bytes, want %d", c.p, c.rocks, got, c.want)
		}
	}
}

// BenchmarkSpanner streams a 1e5-vertex power-law (Barabási–Albert, m = 5)
// graph through the 3-spanner; it reports edges per second.
func BenchmarkSpanner(b *testing.B) {
	edges := BarabasiAlbert(100_000, 5, rand.New(rand.NewPCG(1, 1)), 0)
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		s := NewSpanner(2)
		for _, e := range edges {
			s.Add(e.U, e.V)
		}
		n += len(edges)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "edges/s")
}

// TestSpannerRestore: a spanner restored to a snapshot and fed the edges
// after it again ends as one that took each edge once (same adjacency,
// same counts), however often it is set back; edges fed again without
// the restore (a replay over a graph that has them) are dropped, those it
// had kept at distance 1, and the spanner's edges stay the same.
func TestSpannerRestore(t *testing.T) {
	edges := BarabasiAlbert(500, 3, rand.New(rand.NewPCG(7, 1)), 0)
	once := NewSpanner(2)
	for _, e := range edges {
		once.Add(e.U, e.V)
	}
	s := NewSpanner(2)
	var sn SpannerSnap
	at, failed := 0, map[int]bool{}
	for i := 0; i < len(edges); {
		if i%300 == 0 {
			sn, at = s.Snapshot(), i
		}
		s.Add(edges[i].U, edges[i].V)
		i++
		if i%300 == 250 && !failed[i] { // a failure: back to the snapshot, replay from it
			failed[i] = true
			if !s.Restore(sn) {
				t.Fatal("restore refused a snapshot of this spanner")
			}
			i = at
		}
	}
	if len(failed) < 4 {
		t.Fatalf("%d failures, want one per 300 edges of %d", len(failed), len(edges))
	}
	if s.Seen != once.Seen || s.Kept != once.Kept || s.Visits != once.Visits || s.Adj.Entries() != once.Adj.Entries() || s.Adj.Vertices() != once.Adj.Vertices() {
		t.Fatalf("restored: %d seen, %d kept, %d visits, %d entries, %d vertices; want %d, %d, %d, %d, %d",
			s.Seen, s.Kept, s.Visits, s.Adj.Entries(), s.Adj.Vertices(), once.Seen, once.Kept, once.Visits, once.Adj.Entries(), once.Adj.Vertices())
	}
	for x := range uint32(500) {
		if !slices.Equal(s.Adj.Neighbours(x), once.Adj.Neighbours(x)) {
			t.Fatalf("vertex %d: neighbours %v, want %v", x, s.Adj.Neighbours(x), once.Adj.Neighbours(x))
		}
	}
	if s.Restore(SpannerSnap{edges: s.Adj.Edges() + 1}) {
		t.Error("restore took a snapshot with more edges than the spanner has")
	}
	// every edge again, without a restore
	kept, repeats := once.Kept, 0
	for _, e := range edges {
		if st := once.Add(e.U, e.V); st.Kept {
			t.Fatalf("edge %v kept twice", e)
		} else if st.Found == 1 {
			repeats++
		}
	}
	if once.Kept != kept || uint64(repeats) != kept {
		t.Fatalf("replayed over the spanner: %d kept (want %d), %d at distance 1 (want the %d kept)", once.Kept, kept, repeats, kept)
	}
}

// TestClones: a clone of a union-find or degree count is a snapshot: the
// original goes on without changing it.
func TestClones(t *testing.T) {
	var c Components
	var d Degrees
	grid := Grid(10, 10, 0)
	for _, e := range grid[:90] {
		c.Add(e.U, e.V)
		d.Add(e.U, e.V)
	}
	cc, dc := c.Clone(), d.Clone()
	for _, e := range grid[90:] {
		c.Add(e.U, e.V)
		d.Add(e.U, e.V)
	}
	var c2 Components
	var d2 Degrees
	for _, e := range grid[:90] {
		c2.Add(e.U, e.V)
		d2.Add(e.U, e.V)
	}
	if cc.Sets != c2.Sets || cc.Vertices != c2.Vertices || cc.Largest() != c2.Largest() || dc.Vertices != d2.Vertices || dc.Of(45) != d2.Of(45) || dc.Max != d2.Max {
		t.Fatalf("clones changed: %d sets, %d vertices, largest %d, degree(45) %d; want %d, %d, %d, %d", cc.Sets, cc.Vertices, cc.Largest(), dc.Of(45), c2.Sets, c2.Vertices, c2.Largest(), d2.Of(45))
	}
	if c.Sets != 1 || c.Vertices != 100 {
		t.Fatalf("original: %d sets of %d vertices, want 1 of 100", c.Sets, c.Vertices)
	}
}
