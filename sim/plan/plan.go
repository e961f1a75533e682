// Package plan compiles a scenario into its job graph, once, as Flink's
// client turns a program into a JobGraph: vertices in topological order
// with their kind, parallelism and resolved settings, and edges with their
// resolved partitioning, max parallelism (key groups), channels and the
// input-gate buffers they give a receiver.
//
// Every rule the simulator derives from a scenario lives here, so that the
// simulator's build, the run's up-front estimates (Estimate), the live
// view, exercise metrics and sweeps read one answer: which partitioning an
// edge has when the scenario names none, which receivers a sender has a
// channel to (pointwise or all-to-all), how many key groups an edge
// hashes into, which worker runs a subtask, and whether the job takes
// checkpoints. Plain default values (a heartbeat timeout of 50s, 1 GiB of
// worker memory, ...) live in package scenario (Parse and
// Scenario.WithDefaults); Compile applies WithDefaults, so a Plan's
// Scenario holds them all.
//
// A Plan is immutable once compiled: read it, never change it.
package plan

import (
	"container/heap"
	"errors"
	"fmt"
	"strings"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Kind is what a vertex does with records: a source emits them, an
// operator transforms them, a sink takes them out of the job.
type Kind uint8

// Vertex kinds.
const (
	Source Kind = iota + 1
	Operator
	Sink
)

// String returns the kind as outputs name it: "source", "operator" or
// "sink".
func (k Kind) String() string {
	switch k {
	case Source:
		return "source"
	case Operator:
		return "operator"
	case Sink:
		return "sink"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Plan is the compiled job graph of a scenario.
type Plan struct {
	// Scenario is the compiled scenario with its defaults applied
	// (Scenario.WithDefaults): read its settings here, not from the
	// scenario that was compiled.
	Scenario *scenario.Scenario
	// Vertices in topological order: every vertex after its inputs,
	// sources first, ties broken by declaration order (sources, then
	// operators, then sinks, each as listed), so the order is
	// deterministic. Vertex.Index is the position here.
	Vertices []*Vertex
	// Edges in the order of their receivers in Vertices, then of the
	// receiver's inputs as listed.
	Edges []*Edge
	// Tasks are the job's tasks (Flink's JobVertex): each a chain of
	// vertices that run in one thread per subtask, in the order of their
	// heads in Vertices. Without chaining, one task per vertex.
	Tasks []*Task
	// Topics are the scenario's topics (Kafka-like logs), in declaration
	// order: components outside the job graph (see Topic).
	Topics []*Topic
	// Queues are the scenario's message queues, in declaration order:
	// components outside the job graph (see Queue).
	Queues []*Queue
	// ConsumerGroups are the scenario's consumer groups, in declaration
	// order: Kafka consumers outside the job graph (see ConsumerGroup).
	ConsumerGroups []*ConsumerGroup
	byName         map[string]*Vertex
}

// Task is an operator chain: vertices joined by chained edges (see
// Chainable), run by one thread per subtask with no network buffers
// between them, as Flink's StreamingJobGraphGenerator.createChain fuses
// them into one JobVertex.
type Task struct {
	// Name is the chain's name as Flink's web UI shows it
	// (StreamingJobGraphGenerator.createChainedName): the vertex name
	// for a task of one vertex, "enrich -> out" for a chain, and
	// "src -> (a, b)" where the head has several chained outputs.
	Name  string
	Index int // position in Plan.Tasks
	// Vertices of the chain, the head first, in topological order.
	Vertices []*Vertex
}

// Head returns the first vertex of the chain: the one whose input edges
// (or whose source) feed the task.
func (t *Task) Head() *Vertex { return t.Vertices[0] }

// Chained reports whether t runs more than one vertex.
func (t *Task) Chained() bool { return len(t.Vertices) > 1 }

// Kind is the kind of the task as a job graph shows it, one node per task
// (Flink's web UI): its head's for a source, Sink when no edge leaves the
// task (its records all end in chained sinks), Operator otherwise.
func (t *Task) Kind() Kind {
	if t.Head().Kind == Source {
		return Source
	}
	for _, v := range t.Vertices {
		if v.Exits() {
			return Operator
		}
	}
	return Sink
}

// Exits reports whether v writes to an edge out of its task: an output
// edge that is not chained (a network edge to another task).
func (v *Vertex) Exits() bool {
	for _, e := range v.Outputs {
		if !e.Chained {
			return true
		}
	}
	return false
}

// Vertex is a source, operator or sink of the job graph.
type Vertex struct {
	Name        string
	Kind        Kind
	Index       int // position in Plan.Vertices
	Parallelism int // subtasks
	// Decl is the position of the vertex in its list of the scenario
	// (sources, operators or sinks).
	Decl int
	// Source is the scenario's source (Kind Source), else nil.
	Source *scenario.Source
	// Network is the resolved network setting of the vertex's input edges
	// (its input gates); for a source, the scenario's network setting.
	Network scenario.Network
	// ServiceTime is the time a subtask spends on one record (operators
	// and sinks; zero for a source).
	ServiceTime scenario.ServiceTime
	// Selectivity is output records per input record: the operator's, 1
	// for sources and sinks (a sink emits nothing: see Emits).
	Selectivity float64
	// State is the keyed state of an operator that holds some (BytesPerKey
	// > 0), else nil.
	State *scenario.KeyedState
	// Graph is a streaming-graph operator's algorithm and state choice,
	// else nil.
	Graph *scenario.GraphOperator
	// Delivery is a sink's delivery guarantee, "" for other kinds.
	Delivery string
	// Writes is the topic a sink writes (Flink's KafkaSink), else nil.
	Writes *scenario.Producer
	// Window is the window of a window operator, else nil; Join the join
	// of a join operator, else nil.
	Window *scenario.Window
	Join   *scenario.Join
	// Timer is the timer of a keyed process function, else nil.
	Timer *scenario.Timer
	// Shedding is an operator's load shedding, else nil (a source's is
	// Source.Shedding).
	Shedding *scenario.Shedding
	// Inputs are the edges into the vertex, in the order its inputs are
	// listed; Outputs the edges out of it, in the order of their receivers
	// in Plan.Vertices.
	Inputs, Outputs []*Edge
	// Task is the task (operator chain) the vertex runs in.
	Task *Task
	// chain is false for a vertex with chain: false (never chained).
	chain bool
}

// LoadShedding returns the load shedding of a source or an operator, nil
// for a vertex that sheds nothing.
func (v *Vertex) LoadShedding() *scenario.Shedding {
	if v.Source != nil {
		return v.Source.Shedding
	}
	return v.Shedding
}

// Emits reports whether the vertex sends records downstream: sources and
// operators do, sinks do not.
func (v *Vertex) Emits() bool { return v.Kind != Sink }

// Unbounded reports whether the vertex's input edges have no flow control
// (capacity: unbounded): its input queues grow without bound.
func (v *Vertex) Unbounded() bool { return v.Network.Capacity == scenario.Unbounded }

// GateCapacity returns the network buffers of the input gates of subtask d
// of v: for each input edge (one SingleInputGate), buffers_per_channel for
// every input channel of the edge into d plus the gate's own
// floating_buffers (Flink's credit-based flow control: exclusive buffers
// per channel and floating buffers per gate,
// https://nightlies.apache.org/flink/flink-docs-stable/docs/deployment/memory/network_mem_tuning/;
// SingleInputGateFactory.create gives every gate its own buffer pool).
// A chained edge has no gate and counts nothing. It returns 0 for a
// source, which has no input gate.
func (v *Vertex) GateCapacity(d int) int {
	if v.Kind == Source {
		return 0
	}
	n := 0
	for _, e := range v.Inputs {
		if !e.Chained {
			n += e.ChannelsInto(d)*v.Network.BuffersPerChannel + v.Network.FloatingBuffers
		}
	}
	return n
}

// Edge is a job-graph edge from one vertex to the next. Its network
// setting is that of its receiver (To.Network).
type Edge struct {
	From, To *Vertex
	// Partitioning is the resolved partitioning (scenario.Partition*): as
	// the scenario names it, or DefaultPartitioning when it names none.
	Partitioning string
	// MaxParallelism is the number of key groups a hash edge routes by:
	// the receiver's max_parallelism, or
	// scenario.DefaultMaxParallelism(To.Parallelism) when the scenario
	// gives none (or one below the receiver's parallelism).
	MaxParallelism int
	// Chained is true for an edge inside a task (see Chainable): its
	// records go from one operator to the next in the same thread, with
	// no channel, buffer or network between them.
	Chained bool
	// LateOutput is the name of the window operator's late side output
	// (scenario.Window.LateOutput) when the edge carries it, "" for an
	// edge of the sender's main output. A side-output edge carries only
	// the late records, the main edges none of them (Flink's
	// sideOutputLateData and getSideOutput); it is never chained.
	LateOutput string
}

// Chainable reports whether e is fused into its sender's task, by the
// rule of Flink's StreamingJobGraphGenerator.isChainable: the receiver
// has this one input edge, the edge is forward (ForwardPartitioner) and
// the parallelisms are equal, chaining is on for the job
// (pipeline.operator-chaining.enabled; the scenario's chaining) and both
// ends may chain (a vertex with chain: false is Flink's disableChaining,
// ChainingStrategy.NEVER). An edge into a window operator is not chained
// (a simplification: its firings write outside the thread of a record
// handed in, see sim/doc.go), nor is a late side output's edge (a
// simplification: Flink may chain it), nor an edge into an operator that
// sheds load (its drop box watches the operator's input queue, the gate a
// chained operator has not). A source chains to its successor (its
// ChainingStrategy is HEAD); a sink has no successor. Every vertex here is
// in Flink's default slot sharing group, so that condition always holds.
func (p *Plan) Chainable(e *Edge) bool {
	return p.Scenario.Chaining && len(e.To.Inputs) == 1 && e.Partitioning == scenario.PartitionForward &&
		e.From.Parallelism == e.To.Parallelism && e.From.chain && e.To.chain && e.To.Kind != Source && e.To.Window == nil && e.To.Join == nil && e.To.Timer == nil &&
		e.To.Shedding == nil && e.LateOutput == ""
}

// Pointwise reports whether each sender of e has channels to a subset of
// the receivers only, as Flink's DistributionPattern.POINTWISE: forward
// (sender i to receiver i) and rescale. Every other partitioning is
// all-to-all (DistributionPattern.ALL_TO_ALL): every sender has a channel
// to every receiver.
func (e *Edge) Pointwise() bool {
	return e.Partitioning == scenario.PartitionForward || e.Partitioning == scenario.PartitionRescale
}

// Targets returns the receivers that sender u of e has a channel to, in
// increasing order: u itself for forward; for rescale, Flink's pointwise
// subset (with more senders than receivers, receiver d reads the
// contiguous senders [d*pu/pd, (d+1)*pu/pd); with fewer, sender u writes
// to receivers [u*pd/pu, (u+1)*pd/pu)), as
// EdgeManagerBuildUtil.connectPointwise; all of them otherwise.
func (e *Edge) Targets(u int) []int {
	pu, pd := e.From.Parallelism, e.To.Parallelism
	switch e.Partitioning {
	case scenario.PartitionForward:
		return []int{u}
	case scenario.PartitionRescale:
		var out []int
		if pu >= pd {
			for d := 0; d < pd; d++ {
				if d*pu/pd <= u && u < (d+1)*pu/pd {
					out = append(out, d)
				}
			}
			return out
		}
		for d := u * pd / pu; d < (u+1)*pd/pu; d++ {
			out = append(out, d)
		}
		return out
	}
	out := make([]int, pd)
	for i := range out {
		out[i] = i
	}
	return out
}

// ChannelsInto returns how many senders of e have a channel into receiver
// d (see Targets).
func (e *Edge) ChannelsInto(d int) int {
	pu, pd := e.From.Parallelism, e.To.Parallelism
	switch e.Partitioning {
	case scenario.PartitionForward:
		return 1
	case scenario.PartitionRescale:
		if pu >= pd {
			return (d+1)*pu/pd - d*pu/pd
		}
		return 1
	}
	return pu
}

// Channels returns the number of subtask-to-subtask channels of e: the
// receivers' count for forward, the larger parallelism for rescale (each
// sender, or each receiver, has exactly one channel), pu × pd for
// all-to-all.
func (e *Edge) Channels() int64 {
	pu, pd := e.From.Parallelism, e.To.Parallelism
	switch e.Partitioning {
	case scenario.PartitionForward:
		return int64(pd)
	case scenario.PartitionRescale:
		return int64(max(pu, pd))
	}
	return int64(pu) * int64(pd)
}

// KeyGroupOwner returns the receiver that owns key group kg of a hash edge:
// kg × parallelism / max parallelism, as Flink's
// KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup.
func (e *Edge) KeyGroupOwner(kg int) int {
	return kg * e.To.Parallelism / e.MaxParallelism
}

// KeyGroups returns the key groups receiver d of a hash edge owns, the
// half-open range [start, end), as Flink's
// KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex: with p = 3
// over 128 key groups, subtasks own 43, 43 and 42.
func (e *Edge) KeyGroups(d int) (start, end int) {
	p, m := e.To.Parallelism, e.MaxParallelism
	return (d*m + p - 1) / p, ((d+1)*m-1)/p + 1
}

// Checkpointing reports whether the job takes checkpoints: any mode but
// none.
func (p *Plan) Checkpointing() bool {
	return p.Scenario.Checkpoint.Mode != scenario.CheckpointNone
}

// MetricsInterval is the simulated time between two metrics samples.
func (p *Plan) MetricsInterval() des.Time { return p.Scenario.Metrics.Interval }

// Slots returns the slots of one worker (at least 1).
func (p *Plan) Slots() int { return max(p.Scenario.Workers.Slots, 1) }

// Worker returns the worker that runs subtask i of any vertex: subtask i
// runs in slot i (Flink's default slot sharing), and slots fill worker 0
// first, then worker 1, and so on.
func (p *Plan) Worker(i int) int { return i / p.Slots() }

// Workers returns the number of workers of the job: the scenario's count,
// or more when a vertex has more subtasks than its workers have slots (a
// scenario that fails validation).
func (p *Plan) Workers() int {
	n := max(p.Scenario.Workers.Count, 1)
	for _, v := range p.Vertices {
		n = max(n, p.Worker(v.Parallelism-1)+1)
	}
	return n
}

// Subtasks returns the subtasks over all vertices.
func (p *Plan) Subtasks() int {
	n := 0
	for _, v := range p.Vertices {
		n += v.Parallelism
	}
	return n
}

// Vertex returns the vertex named name, or nil.
func (p *Plan) Vertex(name string) *Vertex { return p.byName[name] }

// Names returns the names of the vertices in topological order.
func (p *Plan) Names() []string {
	names := make([]string, len(p.Vertices))
	for i, v := range p.Vertices {
		names[i] = v.Name
	}
	return names
}

// Stateful reports whether some operator holds keyed state (graph
// operators hold their graph as keyed state).
func (p *Plan) Stateful() bool {
	for _, v := range p.Vertices {
		if v.State != nil || v.Graph != nil {
			return true
		}
	}
	return false
}

// ErrCycle is returned by Compile for a job graph with a cycle.
var ErrCycle = errors.New("the job graph has a cycle")

// Compile compiles sc, with its defaults applied (sc.WithDefaults; sc
// itself is not changed), into its job graph. sc should be valid
// (sc.Validate() == nil), as scenario.Parse returns it; Compile checks only
// what it needs to build the graph, and returns an error for an input that
// names no vertex, for two vertices of one name, for a cycle (ErrCycle)
// and for a forward edge between unequal parallelisms. It compiles values that Validate refuses (a rate or
// parallelism out of range) as they are, so that the up-front estimates
// can measure any scenario.
func Compile(sc *scenario.Scenario) (*Plan, error) {
	sc = sc.WithDefaults()
	p := &Plan{Scenario: sc, byName: map[string]*Vertex{}}
	type decl struct {
		v            *Vertex
		inputs       []string
		partitioning string
		maxP         int
	}
	var decls []decl
	add := func(d decl) error {
		if p.byName[d.v.Name] != nil {
			return fmt.Errorf("plan: compiling %q: two vertices are named %q", sc.Name, d.v.Name)
		}
		p.byName[d.v.Name] = d.v
		decls = append(decls, d)
		return nil
	}
	for i := range sc.Sources {
		s := &sc.Sources[i]
		if s.IsProducer() {
			continue // a Kafka producer: it writes a topic (Plan.Topics), not into the job
		}
		v := &Vertex{Name: s.Name, Kind: Source, Decl: i, Parallelism: s.Parallelism, Source: s,
			Network: sc.Network, Selectivity: 1, chain: true}
		if err := add(decl{v: v}); err != nil {
			return nil, err
		}
	}
	for i := range sc.Operators {
		o := &sc.Operators[i]
		v := &Vertex{Name: o.Name, Kind: Operator, Decl: i, Parallelism: o.Parallelism, Network: o.Network,
			ServiceTime: o.ServiceTime, Selectivity: o.Selectivity, chain: o.Chain, Window: o.Window, Join: o.Join, Timer: o.Timer,
			Shedding: o.Shedding}
		if o.State != nil && o.State.BytesPerKey > 0 {
			v.State = o.State
		}
		v.Graph = o.Graph
		if err := add(decl{v, o.Inputs, o.Partitioning, o.MaxParallelism}); err != nil {
			return nil, err
		}
	}
	for i := range sc.Sinks {
		s := &sc.Sinks[i]
		v := &Vertex{Name: s.Name, Kind: Sink, Decl: i, Parallelism: s.Parallelism, Network: s.Network,
			ServiceTime: s.ServiceTime, Selectivity: 1, Delivery: s.Delivery, Writes: s.Writes, chain: s.Chain}
		if err := add(decl{v, s.Inputs, s.Partitioning, s.MaxParallelism}); err != nil {
			return nil, err
		}
	}
	// inputs by declaration index
	in := make([][]int, len(decls))
	index := make(map[string]int, len(decls))
	for i, d := range decls {
		index[d.v.Name] = i
	}
	for i, d := range decls {
		if w := d.v.Window; w != nil && w.LateOutput != "" {
			if _, dup := index[w.LateOutput]; dup {
				return nil, fmt.Errorf("plan: compiling %q: late output %q of %q is also the name of a vertex", sc.Name, w.LateOutput, d.v.Name)
			}
			index[w.LateOutput] = i
		}
	}
	side := make([][]string, len(decls)) // the late output each input reads, "" for a main output
	for i, d := range decls {
		for _, name := range d.inputs {
			u, ok := index[name]
			if !ok {
				return nil, fmt.Errorf("plan: compiling %q: %q reads unknown vertex %q", sc.Name, d.v.Name, name)
			}
			in[i] = append(in[i], u)
			late := ""
			if name != decls[u].v.Name {
				late = name
			}
			side[i] = append(side[i], late)
		}
	}
	order, err := topo(in)
	if err != nil {
		return nil, fmt.Errorf("plan: compiling %q: %w", sc.Name, err)
	}
	for _, i := range order {
		d := decls[i]
		v := d.v
		v.Index = len(p.Vertices)
		p.Vertices = append(p.Vertices, v)
		for j, ui := range in[i] {
			u := decls[ui].v
			e := &Edge{From: u, To: v, Partitioning: d.partitioning, MaxParallelism: d.maxP, LateOutput: side[i][j]}
			if e.Partitioning == "" {
				e.Partitioning = scenario.DefaultPartitioning(u.Parallelism, v.Parallelism)
			}
			if e.Partitioning == scenario.PartitionForward && u.Parallelism != v.Parallelism {
				return nil, fmt.Errorf("plan: compiling %q: forward edge %s -> %s needs equal parallelism (%d != %d)",
					sc.Name, u.Name, v.Name, u.Parallelism, v.Parallelism)
			}
			if e.MaxParallelism < v.Parallelism {
				e.MaxParallelism = scenario.DefaultMaxParallelism(v.Parallelism)
			}
			v.Inputs = append(v.Inputs, e)
			u.Outputs = append(u.Outputs, e)
			p.Edges = append(p.Edges, e)
		}
	}
	p.chain()
	p.compileTopics()
	p.compileQueues()
	p.compileGroups()
	return p, nil
}

// chain marks the chained edges and groups the vertices into tasks: a
// vertex whose one input edge is chained joins its sender's task, every
// other vertex heads a task of its own (Flink's createChain from each
// chain head).
func (p *Plan) chain() {
	for _, e := range p.Edges {
		e.Chained = p.Chainable(e)
	}
	for _, v := range p.Vertices { // topological: a sender's task exists first
		if len(v.Inputs) == 1 && v.Inputs[0].Chained {
			t := v.Inputs[0].From.Task
			v.Task = t
			t.Vertices = append(t.Vertices, v)
			continue
		}
		v.Task = &Task{Index: len(p.Tasks), Vertices: []*Vertex{v}}
		p.Tasks = append(p.Tasks, v.Task)
	}
	for _, t := range p.Tasks {
		t.Name = chainedName(t.Head())
	}
}

// chainedName names the chain from v on as Flink's
// StreamingJobGraphGenerator.createChainedName does: v's name, then " -> "
// and the name of its one chained output, or " -> (a, b)" for several.
func chainedName(v *Vertex) string {
	var next []string
	for _, e := range v.Outputs {
		if e.Chained {
			next = append(next, chainedName(e.To))
		}
	}
	switch len(next) {
	case 0:
		return v.Name
	case 1:
		return v.Name + " -> " + next[0]
	}
	return v.Name + " -> (" + strings.Join(next, ", ") + ")"
}

// topo returns the vertices (by declaration index) in topological order,
// ties broken by the smallest declaration index (Kahn's algorithm with a
// min-heap); in[v] lists the inputs of v. It returns ErrCycle when some
// vertices are on or behind a cycle.
func topo(in [][]int) ([]int, error) {
	indeg := make([]int, len(in))
	out := make([][]int, len(in))
	for v, us := range in {
		indeg[v] = len(us)
		for _, u := range us {
			out[u] = append(out[u], v)
		}
	}
	ready := &intHeap{}
	for v := range in {
		if indeg[v] == 0 {
			heap.Push(ready, v)
		}
	}
	order := make([]int, 0, len(in))
	for ready.Len() > 0 {
		u := heap.Pop(ready).(int)
		order = append(order, u)
		for _, v := range out[u] {
			if indeg[v]--; indeg[v] == 0 {
				heap.Push(ready, v)
			}
		}
	}
	if len(order) != len(in) {
		return nil, ErrCycle
	}
	return order, nil
}

// intHeap is a min-heap of vertex indices (container/heap.Interface).
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
