package tui

import (
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// graph is the static shape of a job, read once from its scenario: what the
// view draws around the numbers of each snapshot.
type graph struct {
	vertices []vertexInfo // topological order, as the simulator's rows
	slots    int          // slots per worker: subtask i runs on worker i/slots
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
	// capacity holds the network buffers of the input gate of each
	// subtask (exclusive buffers per channel plus floating buffers); nil
	// for a source, and for capacity: unbounded.
	capacity  []int
	unbounded bool
}

// newGraph reads the job graph of sc.
func newGraph(sc *scenario.Scenario) graph {
	par := sc.Parallelisms()
	infos := map[string]vertexInfo{}
	reader := func(name, kind string, p int, inputs []string, part string, net scenario.Network) vertexInfo {
		v := vertexInfo{name: name, kind: kind, parallelism: p, inputs: inputs, partitioning: part,
			unbounded: net.Capacity == scenario.Unbounded}
		if !v.unbounded {
			v.capacity = gateCapacity(inputs, part, p, net, par)
		}
		return v
	}
	for _, s := range sc.Sources {
		infos[s.Name] = vertexInfo{name: s.Name, kind: sim.KindSource, parallelism: s.Parallelism}
	}
	for _, o := range sc.Operators {
		infos[o.Name] = reader(o.Name, sim.KindOperator, o.Parallelism, o.Inputs, o.Partitioning, o.Network)
	}
	for _, s := range sc.Sinks {
		infos[s.Name] = reader(s.Name, sim.KindSink, s.Parallelism, s.Inputs, s.Partitioning, s.Network)
	}
	g := graph{slots: max(sc.Workers.Slots, 1), heartbeat: sc.Workers.HeartbeatTimeout,
		checkpoints: sc.Checkpoint.Mode != "" && sc.Checkpoint.Mode != scenario.CheckpointNone}
	if g.heartbeat <= 0 {
		g.heartbeat = 50 * des.Second // as the simulator
	}
	for _, name := range sc.Topo() {
		g.vertices = append(g.vertices, infos[name])
	}
	return g
}

// gateCapacity returns the buffers of the input gate of each of the p
// subtasks of a vertex reading inputs: buffers_per_channel per input
// channel plus floating_buffers (Flink's credit-based flow control, as the
// simulator connects channels).
func gateCapacity(inputs []string, partitioning string, p int, net scenario.Network, par map[string]int) []int {
	caps := make([]int, p)
	for d := range caps {
		chans := 0
		for _, in := range inputs {
			chans += channelsInto(partitioning, d, par[in], p)
		}
		caps[d] = chans*net.BuffersPerChannel + net.FloatingBuffers
	}
	return caps
}

// worker returns the worker that runs subtask i of a vertex.
func (g graph) worker(i int) int { return i / g.slots }

// occupancy returns the fraction of the input-gate buffers of subtask i in
// use (0 when it has none).
func (v vertexInfo) occupancy(i, queued int) float64 {
	if i < 0 || i >= len(v.capacity) || v.capacity[i] <= 0 {
		return 0
	}
	return min(float64(queued)/float64(v.capacity[i]), 1)
}

// channelsInto counts the senders of an edge with pu senders and pd
// receivers that have a channel into receiver d.
func channelsInto(partitioning string, d, pu, pd int) int {
	if partitioning == "" {
		partitioning = scenario.PartitionRebalance
		if pu == pd {
			partitioning = scenario.PartitionForward
		}
	}
	switch partitioning {
	case scenario.PartitionForward:
		return 1
	case scenario.PartitionRescale:
		if pu >= pd {
			return (d+1)*pu/pd - d*pu/pd
		}
		n := 0
		for u := 0; u < pu; u++ {
			if u*pd/pu <= d && d < (u+1)*pd/pu {
				n++
			}
		}
		return n
	}
	return pu
}
