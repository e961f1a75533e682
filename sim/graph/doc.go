// Package graph holds the pure algorithms of dspalab's streaming-graph
// operators: edge streams (generators and SNAP edge-list files), degree
// counting, connected components by union-find, and the greedy streaming
// (2k−1)-spanner, with the state sizes of the adjacency list by Flink state
// primitive and state backend. It knows nothing of simulated time: the
// simulator's graph operator (sim/graph_operator.go) turns the counts it
// returns (state accesses, entries read, vertices visited) into service
// time with the state backend's cost model.
//
// The spanner is the greedy algorithm of Althöfer et al. ("On sparse
// spanners of weighted graphs", 1993) run over a stream, as in the
// streaming-graph literature (Feigenbaum et al., "Graph distances in the
// data-stream model", 2008): an edge (u, v) is kept iff the distance
// between u and v in the spanner kept so far exceeds 2k−1, found by a
// breadth-first search bounded to depth 2k−1. The result has stretch at
// most 2k−1 and O(n^(1+1/k)) edges.
package graph

// Edge is one edge of a stream: an undirected pair of vertex ids. A
// weight given in an edge-list file is read and ignored (the spanner is
// unweighted: it counts hops).
type Edge struct {
	U, V uint32
}

// MaxVertices is the largest number of vertices of a stream: vertex ids
// are in [0, MaxVertices). The operators keep arrays indexed by vertex id,
// so the bound keeps their memory within what the memory estimate counts.
const MaxVertices = 1 << 26
