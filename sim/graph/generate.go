package graph

import (
	"math"
	"math/rand/v2"
)

// ErdosRenyi returns the edges of a G(n, p) random graph (Erdős–Rényi),
// each of the n(n−1)/2 pairs present independently with probability p, in
// the order (1,0), (2,0), (2,1), (3,0), ...: the geometric skipping of
// Batagelj and Brandes ("Efficient generation of large random networks",
// 2005), O(n + m) draws for m edges. At most limit edges are returned
// (limit ≤ 0: no limit). The expected number of edges is p·n(n−1)/2.
func ErdosRenyi(n int, p float64, rng *rand.Rand, limit int) []Edge {
	var out []Edge
	if n < 2 || p <= 0 {
		return out
	}
	lp := math.Log(1 - p)
	v, w := 1, -1
	for v < n {
		if p >= 1 {
			w++
		} else {
			r := 1 - rng.Float64() // in (0, 1]
			w += 1 + int(math.Floor(math.Log(r)/lp))
		}
		for w >= v && v < n {
			w -= v
			v++
		}
		if v < n {
			out = append(out, Edge{U: uint32(v), V: uint32(w)})
			if limit > 0 && len(out) >= limit {
				return out
			}
		}
	}
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
	var out []Edge
	if m < 1 || n < 2 {
		return out
	}
	m0 := min(m+1, n)
	ends := make([]uint32, 0, 2*m*n)
	add := func(u, v int) bool {
		out = append(out, Edge{U: uint32(u), V: uint32(v)})
		ends = append(ends, uint32(u), uint32(v))
		return limit > 0 && len(out) >= limit
	}
	for v := 1; v < m0; v++ {
		for u := 0; u < v; u++ {
			if add(v, u) {
				return out
			}
		}
	}
	picked := make([]uint32, 0, m)
	for v := m0; v < n; v++ {
		picked = picked[:0]
		for len(picked) < m {
			t := ends[rng.IntN(len(ends))]
			dup := false
			for _, p := range picked {
				if p == t {
					dup = true
					break
				}
			}
			if !dup {
				picked = append(picked, t)
			}
		}
		for _, t := range picked {
			if add(v, int(t)) {
				return out
			}
		}
	}
	return out
}

// Grid returns the edges of a rows × cols 2-D grid, vertex (r, c) having
// id r·cols + c: row by row, each vertex's edge to its right neighbour,
// then to the one below. A grid has rows(cols−1) + cols(rows−1) edges and
// is connected.
func Grid(rows, cols int, limit int) []Edge {
	var out []Edge
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			id := r*cols + c
			if c+1 < cols {
				out = append(out, Edge{U: uint32(id), V: uint32(id + 1)})
			}
			if r+1 < rows {
				out = append(out, Edge{U: uint32(id), V: uint32(id + cols)})
			}
			if limit > 0 && len(out) >= limit {
				return out[:limit]
			}
		}
	}
	return out
}
