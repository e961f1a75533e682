package sim

import (
	"fmt"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/scenario"
)

// build creates vertices in topological order, their subtasks and the
// channels of every edge.
func (s *Sim) build() error {
	sc := s.sc
	byName := map[string]*vertex{}
	type spec struct {
		inputs       []string
		partitioning string
		maxP         int
	}
	specs := map[string]spec{}
	add := func(name, kind string, p int) *vertex {
		v := &vertex{name: name, kind: kind, parallelism: p, selectivity: 1, net: sc.Network, s: s,
			ivLat: metrics.NewHistogram(), winLat: metrics.NewHistogram(), status: StatusOK}
		byName[name] = v
		return v
	}
	for i := range sc.Sources {
		src := &sc.Sources[i]
		v := add(src.Name, KindSource, src.Parallelism)
		kd := newKeyDist(src.Keys)
		v.keys = &kd
	}
	stateOf := map[string]*scenario.KeyedState{}
	for i := range sc.Operators {
		op := &sc.Operators[i]
		v := add(op.Name, KindOperator, op.Parallelism)
		v.svc, v.selectivity, v.net = newServiceDist(op.ServiceTime), op.Selectivity, op.Network
		specs[op.Name] = spec{op.Inputs, op.Partitioning, op.MaxParallelism}
		if op.State != nil && op.State.BytesPerKey > 0 {
			stateOf[op.Name] = op.State
		}
	}
	sourceSubtasks, maxKeys := 0, 1
	for i := range sc.Sources {
		sourceSubtasks += sc.Sources[i].Parallelism
		maxKeys = max(maxKeys, sc.Sources[i].Keys.Count)
	}
	for i := range sc.Sinks {
		sk := &sc.Sinks[i]
		v := add(sk.Name, KindSink, sk.Parallelism)
		v.svc, v.net = newServiceDist(sk.ServiceTime), sk.Network
		v.sink = newSinkState(sk.Delivery, sourceSubtasks)
		specs[sk.Name] = spec{sk.Inputs, sk.Partitioning, sk.MaxParallelism}
	}
	for _, name := range sc.Topo() {
		v := byName[name]
		if v == nil {
			return fmt.Errorf("sim: building the job: unknown vertex %q in topological order", name)
		}
		s.vertices = append(s.vertices, v)
	}
	if len(s.vertices) != len(byName) {
		return fmt.Errorf("sim: building the job: the job graph has a cycle or an unreachable vertex")
	}
	slots := max(sc.Workers.Slots, 1)
	memory := sc.Workers.Memory
	if memory <= 0 {
		memory = 1 << 30
	}
	ensureWorker := func(w int) {
		for len(s.workers) <= w {
			wk := &worker{index: len(s.workers), memory: memory, s: s}
			if sc.StateBackend.Type != scenario.BackendRocksDB && len(stateOf) > 0 {
				wk.gcInterval, wk.gcPerGiB = sc.StateBackend.GCInterval, sc.StateBackend.GCPausePerGiB
			}
			s.workers = append(s.workers, wk)
		}
	}
	ensureWorker(max(sc.Workers.Count, 1) - 1)
	for vi, v := range s.vertices {
		if v.parallelism < 1 {
			return fmt.Errorf("sim: building the job: vertex %q has parallelism %d", v.name, v.parallelism)
		}
		v.salt = mix64(uint64(vi+1) * 0x9e3779b97f4a7c15)
		for i := 0; i < v.parallelism; i++ {
			t := &subtask{s: s, v: v, index: i, worker: i / slots, gid: len(s.subtasks),
				rng: des.Stream(sc.Seed, v.kind+"/"+v.name+"/"+fmt.Sprint(i)+"/service")}
			ensureWorker(t.worker)
			if v.kind != KindSource {
				t.gate = newGate(t)
				t.barriers = newBarrierHandler(t, sc.Checkpoint)
			}
			if ks := stateOf[v.name]; ks != nil {
				t.keyed = newKeyedState(ks, sc.StateBackend, sc.Checkpoint.Incremental, maxKeys)
			}
			v.subtasks = append(v.subtasks, t)
			s.subtasks = append(s.subtasks, t)
		}
		sp, ok := specs[v.name]
		if !ok {
			continue
		}
		for _, in := range sp.inputs {
			u := byName[in]
			if u == nil {
				return fmt.Errorf("sim: building the job: %q reads unknown vertex %q", v.name, in)
			}
			e := &edge{from: u, to: v, partitioning: sp.partitioning, maxParallelism: sp.maxP}
			if e.partitioning == "" {
				e.partitioning = scenario.PartitionRebalance
				if u.parallelism == v.parallelism {
					e.partitioning = scenario.PartitionForward
				}
			}
			if e.partitioning == scenario.PartitionForward && u.parallelism != v.parallelism {
				return fmt.Errorf("sim: building the job: forward edge %s -> %s needs equal parallelism (%d != %d)", u.name, v.name, u.parallelism, v.parallelism)
			}
			e.part = partitionerOf(e.partitioning)
			if e.maxParallelism < v.parallelism {
				e.maxParallelism = scenario.DefaultMaxParallelism(v.parallelism)
			}
			u.outputs = append(u.outputs, e)
			v.inputs = append(v.inputs, e)
			s.connect(e, false)
		}
	}
	for i := range sc.Sources {
		v := byName[sc.Sources[i].Name]
		for _, t := range v.subtasks {
			src, err := newSource(t, &sc.Sources[i], v.keys, sc.Seed, s.opts.OpenTrace)
			if err != nil {
				return err
			}
			src.seq = len(s.sources)
			s.recSize = append(s.recSize, int64(src.size))
			t.src = src
			s.sources = append(s.sources, src)
		}
	}
	return nil
}

func newGate(t *subtask) *gate {
	return &gate{owner: t, floatFree: t.v.net.FloatingBuffers, unbounded: t.v.net.Capacity == scenario.Unbounded}
}

// connect creates the channels of e: subtask pairs by partitioning, each
// with the exclusive credit of its receiver. again is true when a failover
// replaces the channels (the per-edge accounting stays).
func (s *Sim) connect(e *edge, again bool) {
	u, v := e.from, e.to
	net := v.net
	unb := net.Capacity == scenario.Unbounded
	for ui, ut := range u.subtasks {
		p := &partition{s: s, owner: ut, edge: e, unbounded: unb, bufSize: net.BufferSize, bufTimeout: net.BufferTimeout, epoch: s.epoch}
		for _, di := range targets(e.partitioning, ui, u.parallelism, v.parallelism) {
			dt := v.subtasks[di]
			c := &channel{s: s, from: ut, to: dt, part: p, gate: dt.gate, epoch: s.epoch,
				remote: ut.worker != dt.worker, latency: net.Latency, bw: net.Bandwidth,
				credit: net.BuffersPerChannel, empty: net.BuffersPerChannel}
			p.chans = append(p.chans, c)
			dt.gate.chans = append(dt.gate.chans, c)
		}
		p.poolFree = len(p.chans)*net.BuffersPerChannel + net.FloatingBuffers
		p.rr = ui % len(p.chans)
		ut.outs = append(ut.outs, p)
		if !again {
			ut.bpOut = append(ut.bpOut, 0)
		}
	}
}

// rewire replaces every channel, partition and input gate with empty ones
// (a failover: the old ones' events are ignored by their epoch).
func (s *Sim) rewire() {
	for _, t := range s.subtasks {
		t.outs = t.outs[:0:0]
		if t.gate != nil {
			t.gate = newGate(t)
		}
	}
	for _, v := range s.vertices {
		for _, e := range v.outputs {
			s.connect(e, true)
		}
	}
}

// targets returns the receiving subtasks of sending subtask ui: all of them
// for all-to-all partitionings, one for forward, and Flink's pointwise
// subset for rescale.
func targets(partitioning string, ui, pu, pd int) []int {
	switch partitioning {
	case scenario.PartitionForward:
		return []int{ui}
	case scenario.PartitionRescale:
		var out []int
		if pu >= pd {
			// each receiver reads a contiguous range of senders
			for d := 0; d < pd; d++ {
				if d*pu/pd <= ui && ui < (d+1)*pu/pd {
					out = append(out, d)
				}
			}
			return out
		}
		for d := ui * pd / pu; d < (ui+1)*pd/pu; d++ {
			out = append(out, d)
		}
		return out
	default:
		out := make([]int, pd)
		for i := range out {
			out[i] = i
		}
		return out
	}
}
