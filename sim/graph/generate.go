package graph

import "math/rand/v2"

// ErdosRenyi returns the edges of a G(n, p) random graph (Erdős–Rényi),
// each of the n(n−1)/2 pairs present independently with probability p, in
// the order (1,0), (2,0), (2,1), (3,0), ...: the geometric skipping of
// Batagelj and Brandes ("Efficient generation of large random networks",
// 2005), O(n + m) draws for m edges. At most limit edges are returned
// (limit ≤ 0: no limit). The expected number of edges is p·n(n−1)/2.
func ErdosRenyi(n int, p float64, rng *rand.Rand, limit int) []Edge {
	out, _ := Collect(NewER(n, p, rng), limit)
	return out
}

// BarabasiAlbert returns the edges of a preferential-attachment graph
// (Barabási and Albert, "Emergence of scaling in random networks", 1999)
// on n vertices: the first m+1 vertices form a clique, then each new
// vertex v attaches to m distinct earlier vertices, each chosen with
// probability proportional to its degree (the list of edge endpoints of
// Batagelj and Brandes, 2005). Every vertex has degree at least m and the
// degrees follow a power law P(deg ≥ d) ~ (m/d)². Edges come in the order
// they are made, (v, t) with v the newer vertex. At most limit edges are
// returned (limit ≤ 0: no limit).
func BarabasiAlbert(n, m int, rng *rand.Rand, limit int) []Edge {
	out, _ := Collect(NewBA(n, m, rng), limit)
	return out
}

// Grid returns the edges of a rows × cols 2-D grid, vertex (r, c) having
// id r·cols + c: row by row, each vertex's edge to its right neighbour,
// then to the one below. A grid has rows(cols−1) + cols(rows−1) edges and
// is connected.
func Grid(rows, cols int, limit int) []Edge {
	out, _ := Collect(NewGrid(rows, cols), limit)
	return out
}
