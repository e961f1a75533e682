package graph

// Adjacency is an undirected adjacency list indexed by vertex id: the
// graph state a streaming-graph operator keeps (one neighbour list per
// vertex, as one state entry per vertex key).
type Adjacency struct {
	nbrs    [][]uint32
	entries int // neighbour entries over all lists (2 per edge)
	present int // vertices with at least one neighbour
	// added is the edges in the order Add took them: a snapshot is their
	// number, and Truncate undoes the later ones (each list only grows at
	// its end, so the last entries of u's and v's lists are the last
	// edge's).
	added []Edge
}

// Edges returns the edges added so far.
func (a *Adjacency) Edges() int { return len(a.added) }

// Truncate undoes the edges added after the first n (a restore to the
// snapshot of n edges); false if fewer than n were added.
func (a *Adjacency) Truncate(n int) bool {
	if n > len(a.added) || n < 0 {
		return false
	}
	for i := len(a.added) - 1; i >= n; i-- {
		e := a.added[i]
		for _, x := range [2]uint32{e.U, e.V} {
			a.nbrs[x] = a.nbrs[x][:len(a.nbrs[x])-1]
			if len(a.nbrs[x]) == 0 {
				a.present--
			}
		}
		a.entries -= 2
	}
	a.added = a.added[:n]
	return true
}

// Degree returns the number of neighbours of x (0 for a vertex not seen).
func (a *Adjacency) Degree(x uint32) int {
	if int(x) >= len(a.nbrs) {
		return 0
	}
	return len(a.nbrs[x])
}

// Neighbours returns the neighbour list of x; do not change it.
func (a *Adjacency) Neighbours(x uint32) []uint32 {
	if int(x) >= len(a.nbrs) {
		return nil
	}
	return a.nbrs[x]
}

// Vertices returns the vertices with at least one neighbour.
func (a *Adjacency) Vertices() int { return a.present }

// Entries returns the neighbour entries over all lists: twice the edges.
func (a *Adjacency) Entries() int { return a.entries }

// Add appends the undirected edge (u, v) to both neighbour lists.
func (a *Adjacency) Add(u, v uint32) {
	if m := int(max(u, v)) + 1; m > len(a.nbrs) {
		a.nbrs = append(a.nbrs, make([][]uint32, m-len(a.nbrs))...)
	}
	for _, x := range [2]uint32{u, v} {
		if len(a.nbrs[x]) == 0 {
			a.present++
		}
	}
	a.nbrs[u] = append(a.nbrs[u], v)
	a.nbrs[v] = append(a.nbrs[v], u)
	a.entries += 2
	a.added = append(a.added, Edge{U: u, V: v})
}

// SizeBytes is the memory of the adjacency list in this process: its
// neighbour ids, list headers and the edges in order (the simulator's
// own memory, not the modelled state size; see StateBytes for that).
func (a *Adjacency) SizeBytes() int64 {
	n := int64(24*cap(a.nbrs) + 8*cap(a.added))
	for _, l := range a.nbrs {
		n += 4 * int64(cap(l))
	}
	return n
}

// SpannerStep is what the spanner did with one edge.
type SpannerStep struct {
	// Kept is true when the edge joined the spanner: no path of at most
	// 2k−1 hops joined its endpoints.
	Kept bool
	// Shortcut is true when an endpoint was new (no spanner edge yet):
	// the distance is infinite and no search ran.
	Shortcut bool
	// Visited is the vertices the search expanded (read the neighbour
	// list of), the endpoint it starts from first; Entries the sum of
	// their degrees (the neighbour entries of the lists read). Last and
	// LastEntries count those at depth 2k−2, the last level: of them the
	// search only asks whether the other endpoint is a neighbour (a
	// MapState contains(), one access, where a list is read whole).
	Visited, Entries, Last, LastEntries int
	// From is the endpoint the search started from (the one of smaller
	// degree), and FromDegree its degree.
	From       uint32
	FromDegree int
	// Found is the spanner distance between the endpoints when at most
	// 2k−1 (the edge is dropped), else 0.
	Found int
}

// Spanner is the greedy streaming (2k−1)-spanner: Add keeps an edge iff the
// spanner kept so far has no path of at most 2k−1 hops between its
// endpoints. Every dropped edge therefore has such a path in the final
// spanner (it only grows): the stretch is at most 2k−1.
type Spanner struct {
	K   int
	Adj Adjacency
	// Seen, Kept, Shortcuts and Searches count the edges so far; Visits
	// sums SpannerStep.Visited.
	Seen, Kept, Shortcuts, Searches, Visits uint64
	mark                                    []uint32 // BFS stamp per vertex
	depth                                   []uint8
	stamp                                   uint32
	queue                                   []uint32
}

// NewSpanner returns an empty (2k−1)-spanner; k ≥ 1 (k = 1 keeps every
// edge that is not a repeat).
func NewSpanner(k int) *Spanner { return &Spanner{K: max(k, 1)} }

// Add offers the edge (u, v) to the spanner.
func (s *Spanner) Add(u, v uint32) SpannerStep {
	s.Seen++
	var st SpannerStep
	if s.Adj.Degree(u) == 0 || s.Adj.Degree(v) == 0 {
		st.Shortcut, st.Kept = true, true
		s.Shortcuts++
	} else {
		s.Searches++
		if s.Adj.Degree(u) > s.Adj.Degree(v) {
			u, v = v, u // search from the endpoint of smaller degree
		}
		st.From, st.FromDegree = u, s.Adj.Degree(u)
		s.distance(u, v, 2*s.K-1, &st)
		st.Kept = st.Found == 0
		s.Visits += uint64(st.Visited)
	}
	if st.Kept {
		s.Kept++
		s.Adj.Add(u, v)
	}
	return st
}

// distance sets st.Found to the hop distance from u to v in the spanner
// when it is at most bound (else 0; u ≠ v, since streams skip
// self-loops), and counts the vertices expanded and the neighbour
// entries of their lists into st. The BFS expands vertices at depth < bound only:
// their neighbours are at depth ≤ bound.
func (s *Spanner) distance(u, v uint32, bound int, st *SpannerStep) {
	if u == v {
		return
	}
	if n := len(s.Adj.nbrs); len(s.mark) < n {
		s.mark = append(s.mark, make([]uint32, n-len(s.mark))...)
		s.depth = append(s.depth, make([]uint8, n-len(s.depth))...)
	}
	s.stamp++
	if s.stamp == 0 { // wrapped: clear the stamps
		clear(s.mark)
		s.stamp = 1
	}
	q := append(s.queue[:0], u)
	s.mark[u], s.depth[u] = s.stamp, 0
	for h := 0; h < len(q); h++ {
		x := q[h]
		d := int(s.depth[x])
		if d >= bound {
			break // BFS order: every vertex after x is as deep
		}
		nb := s.Adj.nbrs[x]
		st.Visited++
		st.Entries += len(nb)
		if d == bound-1 {
			st.Last++
			st.LastEntries += len(nb)
		}
		for _, y := range nb {
			if y == v {
				s.queue = q
				st.Found = d + 1
				return
			}
			if s.mark[y] != s.stamp {
				s.mark[y], s.depth[y] = s.stamp, uint8(d+1)
				q = append(q, y)
			}
		}
	}
	s.queue = q
}

// SpannerSnap is a spanner as a snapshot took it: its edges so far (an
// Adjacency only grows, so their number is enough) and its counts.
type SpannerSnap struct {
	edges                                   int
	Seen, Kept, Shortcuts, Searches, Visits uint64
}

// Snapshot returns the spanner's state now, for Restore.
func (s *Spanner) Snapshot() SpannerSnap {
	return SpannerSnap{edges: s.Adj.Edges(), Seen: s.Seen, Kept: s.Kept, Shortcuts: s.Shortcuts, Searches: s.Searches, Visits: s.Visits}
}

// Restore sets the spanner back to snapshot sn, taken on this spanner
// with no Restore to an earlier snapshot since; false if sn holds edges
// the spanner does not have.
func (s *Spanner) Restore(sn SpannerSnap) bool {
	if !s.Adj.Truncate(sn.edges) {
		return false
	}
	s.Seen, s.Kept, s.Shortcuts, s.Searches, s.Visits = sn.Seen, sn.Kept, sn.Shortcuts, sn.Searches, sn.Visits
	return true
}

// Distance returns the hop distance between u and v in the spanner when
// it is at most bound, else 0 (for tests and checks).
func (s *Spanner) Distance(u, v uint32, bound int) int {
	var st SpannerStep
	s.distance(u, v, bound, &st)
	return st.Found
}
