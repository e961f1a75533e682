package plan

import "github.com/dspalab/dspalab/sim/scenario"

// Stage is a stage of a Spark job: vertices joined by narrow dependencies
// (a forward edge: map, filter, flatMap on the same partitions), run as
// one task per partition; a shuffle (a hash, rebalance, rescale or
// broadcast edge: groupByKey, reduceByKey, updateStateByKey, repartition)
// or a vertex of several inputs starts a new stage, as Spark's
// DAGScheduler cuts stages at ShuffleDependencies.
type Stage struct {
	Index int // position in Plan.Stages()
	// Vertices in topological order, the first reading the stage's input
	// (a source, or a shuffle).
	Vertices []*Vertex
	// Shuffle is true for a stage that reads a shuffle (not a source).
	Shuffle bool
}

// Narrow reports whether e is a narrow dependency of a micro-batch job:
// its receiver has this one input, and the edge is forward, or it goes
// into a sink without hash partitioning (an output operation, foreachRDD,
// runs on the partitions of the RDD it writes).
func Narrow(e *Edge) bool {
	if len(e.To.Inputs) != 1 {
		return false
	}
	return e.Partitioning == scenario.PartitionForward || e.To.Kind == Sink && e.Partitioning != scenario.PartitionHash
}

// Stages returns the stages of the plan's job on a micro-batch engine, in
// topological order of their first vertices: the order the DAGScheduler
// runs them in for one job.
func (p *Plan) Stages() []*Stage {
	of := make(map[*Vertex]*Stage, len(p.Vertices))
	var out []*Stage
	for _, v := range p.Vertices {
		if len(v.Inputs) == 1 && Narrow(v.Inputs[0]) {
			st := of[v.Inputs[0].From]
			st.Vertices = append(st.Vertices, v)
			of[v] = st
			continue
		}
		st := &Stage{Index: len(out), Vertices: []*Vertex{v}, Shuffle: v.Kind != Source}
		out = append(out, st)
		of[v] = st
	}
	return out
}
