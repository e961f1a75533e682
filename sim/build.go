package sim

import (
	"fmt"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// build creates the vertices of s.plan in its topological order, their
// subtasks in the slots and workers the plan places them in, and the
// channels of every edge.
func (s *Sim) build() error {
	p := s.plan
	sc := p.Scenario
	sourceSubtasks, maxKeys, readKeys := 0, 1, keysRead(p)
	for _, pv := range p.Vertices {
		if pv.Kind == plan.Source {
			sourceSubtasks += pv.Parallelism
			maxKeys = max(maxKeys, pv.Source.Keys.Count)
		}
	}
	for _, tp := range p.Topics {
		for _, ps := range tp.Producers {
			maxKeys = max(maxKeys, ps.Keys.Count) // a topic's readers emit its producers' keys
		}
	}
	for _, pv := range p.Vertices {
		v := &vertex{name: pv.Name, kind: pv.Kind.String(), parallelism: pv.Parallelism, selectivity: pv.Selectivity,
			net: pv.Network, pv: pv, s: s, ivLat: metrics.NewHistogram(), winLat: metrics.NewHistogram(), status: StatusOK}
		switch pv.Kind {
		case plan.Source:
			if readKeys {
				kd := newKeyDist(pv.Source.Keys)
				v.keys = &kd
			}
		case plan.Sink:
			v.sink = newSinkState(pv.Delivery, sourceSubtasks)
			if pv.Writes != nil {
				v.sink.topic = s.topicLog(p.Topic(pv.Writes.Topic))
			}
			if d := sc.Sinks[pv.Decl].Dedup; d != nil {
				v.sink.dedup = newDedupState(*d)
			}
			fallthrough
		default:
			v.svc = newServiceDist(pv.ServiceTime)
		}
		s.vertices = append(s.vertices, v)
	}
	for w := range p.Workers() {
		wk := &worker{index: w, memory: sc.Workers.Memory, s: s}
		if sc.StateBackend.Type != scenario.BackendRocksDB && p.Stateful() {
			wk.gcInterval, wk.gcPerGiB = sc.StateBackend.GCInterval, sc.StateBackend.GCPausePerGiB
		}
		s.workers = append(s.workers, wk)
	}
	for vi, v := range s.vertices {
		pv := p.Vertices[vi]
		if v.parallelism < 1 {
			return fmt.Errorf("sim: building the job: vertex %q has parallelism %d", v.name, v.parallelism)
		}
		v.salt = mix64(uint64(vi+1) * 0x9e3779b97f4a7c15)
		if v.shed = newShedding(pv); v.shed != nil {
			s.sample.Shedding = true
		}
		for i := 0; i < v.parallelism; i++ {
			t := &subtask{s: s, v: v, index: i, worker: p.Worker(i), gid: len(s.subtasks), recordWriter: recordWriter{salt: v.salt},
				inHand: inHand{rng: des.StreamRand(sc.Seed, v.kind+"/"+v.name+"/"+fmt.Sprint(i)+"/service")}}
			t.timeAccounting.warmup = s.warmup
			if v.kind != KindSource {
				t.gate = newUnionInputGate(t)
				t.barriers = newBarrierHandler(t, sc.Checkpoint)
			}
			switch {
			case pv.Window != nil:
				if v.win == nil {
					v.win = newWindowStats()
				}
				t.proc = newWindowOperator(t, pv.Window, p.Vertices[0].Source.RecordSize, 0, v.win)
			case pv.Kind == plan.Operator:
				t.proc = &operatorFunction{t: t}
				if pv.Graph != nil {
					s.graphOperator(t, pv)
				}
			case pv.Kind == plan.Sink:
				t.proc = &sinkWriter{t: t}
			} // a source's reader is made below
			if pv.State != nil {
				t.keyed = newKeyedState(pv.State, sc.StateBackend, sc.Checkpoint.Incremental, maxKeys)
			}
			if pv.Timer != nil {
				if v.win == nil {
					v.win = newWindowStats()
				}
				t.proc = newTimerOperator(t, pv.Timer, v.win)
			}
			if pv.Join != nil {
				if v.win == nil {
					v.win = newWindowStats()
				}
				t.proc = &operatorFunction{t: t} // made below, once the id spaces are known
			}
			if (pv.Window != nil || pv.Join != nil || pv.Timer != nil) && t.keyed == nil {
				// window state is keyed state (its access costs access_time)
				t.keyed = newKeyedState(&scenario.KeyedState{}, sc.StateBackend, sc.Checkpoint.Incremental, maxKeys)
			}
			v.subtasks = append(v.subtasks, t)
			s.subtasks = append(s.subtasks, t)
		}
		for _, pe := range pv.Inputs {
			u := s.vertices[pe.From.Index]
			e := &edge{from: u, to: v, plan: pe, partitioning: pe.Partitioning, late: pe.LateOutput != "", part: partitionerOf(pe.Partitioning),
				maxParallelism: pe.MaxParallelism}
			if e.part == partHash {
				e.keyOwner = keyOwners(maxKeys, v.parallelism, e.maxParallelism)
			}
			u.outputs = append(u.outputs, e)
			v.inputs = append(v.inputs, e)
			s.connect(e, false)
		}
	}
	for vi, pv := range p.Vertices {
		if pv.Kind != plan.Source {
			continue
		}
		v := s.vertices[vi]
		if pv.Source.Edges != nil {
			if err := s.edgeSource(v, pv.Source); err != nil {
				return err
			}
		}
		for _, t := range v.subtasks {
			src, err := newSource(t, pv.Source, v.keys, sc.Seed, s.opts.OpenTrace)
			if err != nil {
				return err
			}
			src.seq = len(s.sources)
			if src.qr != nil && src.qr.b.seq < 0 {
				src.qr.b.seq = src.seq // the queue's message ids are this subtask's
			}
			s.recSize = append(s.recSize, int64(src.size))
			t.proc = src
			s.sources = append(s.sources, src)
		}
	}
	s.newEventTimeLag()
	for _, t := range s.subtasks {
		if w := t.asSink(); w != nil {
			w.setInstant()
		}
	}
	// window results: an id space (record size) of their own per subtask
	for _, t := range s.subtasks {
		if w := t.windowOp(); w != nil {
			w.seq = len(s.recSize)
			s.recSize = append(s.recSize, s.recSize[0])
		}
	}
	for vi, pv := range p.Vertices {
		j := pv.Join
		if j == nil {
			continue
		}
		v := s.vertices[vi]
		sides := s.joinSides(v)
		for _, t := range v.subtasks {
			var w *windowOperator
			if j.Kind == scenario.JoinInterval {
				ij := newIntervalJoin(t, j, s.recSize[0], v.win, sides)
				t.proc, w = ij, ij.windowOperator
			} else {
				w = newWindowJoin(t, j, s.recSize[0], v.win, sides)
				t.proc = w
			}
			w.seq = len(s.recSize)
			s.recSize = append(s.recSize, s.recSize[0])
		}
	}
	s.oneSize = oneSize(s.recSize)
	return nil
}

// oneSize returns the size every entry of sizes has, or 0 when they
// differ (or there are none).
func oneSize(sizes []int64) int64 {
	if len(sizes) == 0 {
		return 0
	}
	for _, n := range sizes[1:] {
		if n != sizes[0] {
			return 0
		}
	}
	return sizes[0]
}

// connect creates the channels of e: subtask pairs by the plan's channel
// targets (plan.Edge.Targets), each with the exclusive credit of its
// receiver. again is true when a failover replaces the channels (the
// per-edge accounting stays).
func (s *Sim) connect(e *edge, again bool) {
	u, v := e.from, e.to
	net := v.net
	if e.plan.Chained {
		for ui, ut := range u.subtasks {
			p := &partition{s: s, owner: ut, edge: e, epoch: s.epoch, next: v.subtasks[ui]}
			p.next.chain = chainLink{in: p}
			ut.outs = append(ut.outs, p)
			if !again {
				ut.bpOut = append(ut.bpOut, 0)
				ut.bpOutDown = append(ut.bpOutDown, 0)
			}
		}
		return
	}
	unb := net.Capacity == scenario.Unbounded
	for ui, ut := range u.subtasks {
		p := &partition{s: s, owner: ut, edge: e, unbounded: unb, bufSize: net.BufferSize, bufTimeout: net.BufferTimeout, epoch: s.epoch}
		for _, di := range e.plan.Targets(ui) {
			dt := v.subtasks[di]
			c := &channel{s: s, from: ut, to: dt, part: p, epoch: s.epoch,
				remote: ut.worker != dt.worker, latency: net.Latency, bw: net.Bandwidth,
				credit: net.BuffersPerChannel, empty: net.BuffersPerChannel}
			if c.remote {
				c.conn = s.connectionTo(ut.worker, dt.worker)
			}
			p.chans = append(p.chans, c)
			dt.gate.gateFor(e).add(c)
		}
		p.pool.available = len(p.chans)*net.BuffersPerChannel + net.FloatingBuffers
		p.rr = ui % len(p.chans)
		p.path = writePathOf(e, len(p.chans))
		switch p.path {
		case pathOne:
			p.one = p.chans[0]
		case pathHash:
			p.keyChans = keyChannels(p.chans, e.keyOwner)
		}
		p.startFlusher(s.eng.Now(), s.plan.Scenario.Seed)
		ut.outs = append(ut.outs, p)
		if !again {
			ut.bpOut = append(ut.bpOut, 0)
			ut.bpOutDown = append(ut.bpOutDown, 0)
		}
	}
}

// rewire replaces every channel, partition and input gate with empty ones
// (a failover: the old ones' events are ignored by their epoch).
func (s *Sim) rewire() {
	clear(s.conns)              // the connections start afresh with the new channels
	s.netRecs, s.netBufs = 0, 0 // the old channels' buffers are dropped
	for _, t := range s.subtasks {
		t.outs = t.outs[:0:0]
		if t.gate != nil {
			t.gate = newUnionInputGate(t)
		}
	}
	for _, v := range s.vertices {
		for _, e := range v.outputs {
			s.connect(e, true)
		}
	}
}
