package tui

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// graph is the static shape of a job, read once from its scenario: what the
// view draws around the numbers of each snapshot.
type graph struct {
	vertices []vertexInfo // topological order, as the simulator's rows
	// tasks are the nodes the job graph draws, one per task (operator
	// chain) in the plan's order, as Flink's web UI draws a chain as one
	// node "enrich -> out"
	tasks []taskInfo
	plan  *plan.Plan // nil for a scenario that does not compile
	// heartbeat is how long the JobManager takes to notice a lost worker
	heartbeat des.Time
	// checkpoints says whether the scenario takes checkpoints
	checkpoints bool
}

// vertexInfo is one vertex of the job graph.
type vertexInfo struct {
	name, kind   string
	parallelism  int
	inputs       []string
	partitioning string // of its input edges
	// capacity holds the network buffers of the input gates of each
	// subtask (plan.Vertex.GateCapacity: exclusive buffers per channel
	// plus each gate's floating buffers); nil for a source, and for
	// capacity: unbounded.
	capacity  []int
	unbounded bool
}

// taskInfo is one node of the job graph: a task, the vertices of an
// operator chain that one thread per subtask runs (plan.Task). Its
// vertexInfo is the row's: the chain's name, the task's kind
// (plan.Task.Kind), the head's parallelism, partitioning and input gates,
// and as inputs the tasks that feed the head.
type taskInfo struct {
	vertexInfo
	members []int  // indices in graph.vertices, the head first
	exits   []bool // per member: it writes to an edge out of the task (plan.Vertex.Exits)
	leaves  bool   // some member does: the row has an output rate
}

// chained reports whether the task runs more than one vertex.
func (t taskInfo) chained() bool { return len(t.members) > 1 }

// newGraph reads the job graph of sc from its plan (plan.Compile): order,
// kinds, partitionings, input-gate capacities, placement, heartbeat and
// whether it takes checkpoints. sc is a scenario the runner has loaded,
// so it compiles; one that does not shows no vertices.
func newGraph(sc *scenario.Scenario) graph {
	p, err := plan.Compile(sc)
	if err != nil {
		return graph{}
	}
	return graphOf(p)
}

// graphOf reads the job graph of a compiled plan (see newGraph).
func graphOf(p *plan.Plan) graph {
	g := graph{plan: p, heartbeat: p.Scenario.Workers.HeartbeatTimeout, checkpoints: p.Checkpointing()}
	for _, pv := range p.Vertices {
		v := vertexInfo{name: pv.Name, kind: pv.Kind.String(), parallelism: pv.Parallelism}
		if pv.Kind != plan.Source {
			v.unbounded = pv.Unbounded()
			for _, e := range pv.Inputs {
				v.inputs = append(v.inputs, e.From.Name)
				v.partitioning = e.Partitioning
			}
			if !v.unbounded {
				v.capacity = make([]int, pv.Parallelism)
				for d := range v.capacity {
					v.capacity[d] = pv.GateCapacity(d)
				}
			}
		}
		g.vertices = append(g.vertices, v)
	}
	for _, pt := range p.Tasks {
		t := taskInfo{vertexInfo: g.vertices[pt.Head().Index]}
		t.name, t.kind, t.inputs = pt.Name, pt.Kind().String(), nil
		for _, e := range pt.Head().Inputs {
			t.inputs = append(t.inputs, e.From.Task.Name)
		}
		for _, pv := range pt.Vertices {
			t.members = append(t.members, pv.Index)
			t.exits = append(t.exits, pv.Exits())
			t.leaves = t.leaves || pv.Exits()
		}
		g.tasks = append(g.tasks, t)
	}
	return g
}

// worker returns the worker that runs subtask i of a vertex.
func (g graph) worker(i int) int { return g.plan.Worker(i) }

// occupancy returns the fraction of the input-gate buffers of subtask i in
// use (0 when it has none).
func (v vertexInfo) occupancy(i, queued int) float64 {
	if i < 0 || i >= len(v.capacity) || v.capacity[i] <= 0 {
		return 0
	}
	return min(float64(queued)/float64(v.capacity[i]), 1)
}
