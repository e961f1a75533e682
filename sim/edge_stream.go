package sim

import (
	"fmt"
	"io"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/graph"
	"github.com/dspalab/dspalab/sim/scenario"
)

// EdgeOpener opens the edge-list file of an edge-stream source (its
// edges.file as the scenario gives it); the caller resolves the path and
// closes the file after the run. Required when a source has edges of type
// file.
type EdgeOpener func(source, file string) (io.Reader, error)

// EdgeStreamError stops a run whose edge-list file has a malformed line:
// Err is a *graph.LineError naming file:line.
type EdgeStreamError struct {
	Source string
	At     des.Time
	Err    error
}

func (e *EdgeStreamError) Error() string {
	return fmt.Sprintf("reading the edges of source %s at %s: %v", e.Source, FormatTime(e.At), e.Err)
}

func (e *EdgeStreamError) Unwrap() error { return e.Err }

// edgeLog is the edge stream of one edge-stream source vertex, as a topic
// of edges: edge i is read by subtask i mod P as its record of offset
// i div P, so a record's id (source subtask and offset) names its edge.
// Edges are drawn from the stream as the subtasks reach them and kept
// (8 bytes each): the graph operators look them up by record id.
type edgeLog struct {
	name   string
	stream graph.Stream
	edges  []graph.Edge
	limit  int // edges.max_edges; 0: none
	done   bool
	err    error
}

func newEdgeLog(s *Sim, sc *scenario.Source) (*edgeLog, error) {
	e := sc.Edges
	rng := des.Stream(s.sc.Seed, "edges/"+sc.Name)
	l := &edgeLog{name: sc.Name, limit: e.MaxEdges}
	switch e.Type {
	case scenario.EdgesErdosRenyi:
		l.stream = graph.NewER(e.Vertices, e.Probability, rng)
	case scenario.EdgesBarabasiAlbert:
		l.stream = graph.NewBA(e.Vertices, e.Attach, rng)
	case scenario.EdgesGrid:
		l.stream = graph.NewGrid(e.Rows, e.Cols)
	case scenario.EdgesFile:
		if s.opts.OpenEdges == nil {
			return nil, fmt.Errorf("sim: source %s reads an edge file, but no edge opener was given (Options.OpenEdges)", sc.Name)
		}
		r, err := s.opts.OpenEdges(sc.Name, e.File)
		if err != nil {
			return nil, fmt.Errorf("sim: opening the edges of source %s: %w", sc.Name, err)
		}
		l.stream = graph.NewEdgeReader(r, e.File, graph.MaxVertices)
	default:
		return nil, fmt.Errorf("sim: source %s: unknown edge stream %q", sc.Name, e.Type)
	}
	return l, nil
}

// has reports whether the stream has an edge of index i, drawing edges up
// to it.
func (l *edgeLog) has(i int) bool {
	for len(l.edges) <= i && !l.done {
		if l.limit > 0 && len(l.edges) >= l.limit {
			l.done = true
			break
		}
		e, ok := l.stream.Next()
		if !ok {
			l.done, l.err = true, l.stream.Err()
			break
		}
		l.edges = append(l.edges, e)
	}
	return i < len(l.edges)
}

// edgeArrivals is the arrival process of an edge-stream source subtask:
// the source's arrival times, ending when the subtask's edges do (a
// malformed line of an edge file stops the run, with file:line).
type edgeArrivals struct {
	gen      arrivals
	log      *edgeLog
	t        *subtask
	sub, par int
	n        int // records given so far
}

func (a *edgeArrivals) next() des.Time {
	if !a.log.has(a.n*a.par + a.sub) {
		if a.log.err != nil && a.t.s.stopped == nil {
			a.t.s.stop(&EdgeStreamError{Source: a.log.name, At: a.t.s.eng.Now(), Err: a.log.err})
		}
		return des.Never
	}
	a.n++
	return a.gen.next()
}

// rewind sets the arrivals back to a source's checkpointed position sn:
// the times from there on, and the count of records given (the record of
// offset sn.next is drawn already, unless the subtask's edges ended).
func (a *edgeArrivals) rewind(sn *sourceSnap) {
	if g, ok := a.gen.(*arrivalGen); ok {
		*g = sn.gen
		if pcg := a.t.asSource().genPCG; pcg != nil {
			*pcg = sn.genPCG
		}
	}
	a.n = int(sn.next)
	if !sn.ended {
		a.n++
	}
}

// edgeOf returns the edge a record carries: the edge of its source
// subtask and offset (see edgeLog).
func (s *Sim) edgeOf(r *Record) (graph.Edge, bool) {
	seq := originSeq(r.ID)
	if seq >= len(s.sources) {
		return graph.Edge{}, false
	}
	src := s.sources[seq]
	l := s.graphs.logs[src.t.v]
	if l == nil {
		return graph.Edge{}, false
	}
	i := int(originOffset(r.ID))*src.t.v.parallelism + src.t.index
	if i >= len(l.edges) {
		return graph.Edge{}, false
	}
	return l.edges[i], true
}

// edgeSource makes the edge log of edge-stream source v.
func (s *Sim) edgeSource(v *vertex, sc *scenario.Source) error {
	l, err := newEdgeLog(s, sc)
	if err != nil {
		return err
	}
	if s.graphs == nil {
		s.graphs = &graphRun{logs: map[*vertex]*edgeLog{}}
	}
	s.graphs.logs[v] = l
	return nil
}

// edgeArrivals returns the arrival process of source subtask t of an edge
// stream: gen's times, as many as t has edges.
func (s *Sim) edgeArrivals(t *subtask, gen arrivals) arrivals {
	return &edgeArrivals{gen: gen, log: s.graphs.logs[t.v], t: t, sub: t.index, par: t.v.parallelism}
}
