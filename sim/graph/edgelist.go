package graph

import "io"

// EdgeList is an edge-list file as read by ReadEdgeList.
type EdgeList struct {
	Edges []Edge
	// SelfLoops counts the lines (u, u) that were skipped: a self-loop
	// changes no distance and no component.
	SelfLoops int
	// Vertices is one more than the largest vertex id (0 for no edges).
	Vertices int
}

// ReadEdgeList reads a whole edge list (see EdgeReader), at most limit
// edges (limit ≤ 0: all).
func ReadEdgeList(r io.Reader, file string, maxVertices, limit int) (*EdgeList, error) {
	er := NewEdgeReader(r, file, maxVertices)
	edges, err := Collect(er, limit)
	if err != nil {
		return nil, err
	}
	return &EdgeList{Edges: edges, SelfLoops: er.SelfLoops, Vertices: er.Vertices}, nil
}
