package sim

import "github.com/dspalab/dspalab/sim/des"

// NoWatermark is the watermark of a subtask or channel that has seen none
// yet (Flink's Watermark.UNINITIALIZED, Long.MIN_VALUE), as RowEventTime
// and VertexWatermarks hold it.
const NoWatermark = minWatermark

// VertexWatermarks is the event-time progress of one vertex now, as
// Flink's web UI shows a vertex's Watermarks tab (each subtask's
// currentInputWatermark), with what its watermark valves see of their
// input channels: for a user who asks which input holds event time back.
type VertexWatermarks struct {
	Vertex string
	Kind   string // KindSource, KindOperator or KindSink
	// Subtasks are by subtask index.
	Subtasks []SubtaskWatermarks
	// Windowed says the vertex is a window or join operator: LateDropped
	// is its numLateRecordsDropped so far.
	Windowed    bool
	LateDropped uint64
}

// SubtaskWatermarks is one subtask's watermarks now.
type SubtaskWatermarks struct {
	// Input and Output are currentInputWatermark and
	// currentOutputWatermark in event-time nanoseconds, NoWatermark before
	// the first. A source's input watermark is the watermark it generates
	// (its output), as in RowEventTime.
	Input, Output des.Time
	// Idle says the subtask's output is marked idle (WatermarkStatus.IDLE):
	// a source subtask that WatermarksWithIdleness found idle, or a task
	// whose inputs are all idle; downstream it holds no watermark back.
	Idle bool
	// LastRecord is, for a source subtask with watermarks, when it last
	// wrote a record (-1 before the first).
	LastRecord des.Time
	// Inputs are the input channels of the subtask's watermark valve
	// (Flink's StatusWatermarkValve), one per upstream subtask, in the
	// order the gate connected them; a chained operator has one, the
	// operator before it in its task. Nil for a source.
	Inputs []InputWatermark
}

// InputWatermark is one input channel of a subtask's watermark valve.
type InputWatermark struct {
	// From and Subtask name the upstream subtask the channel comes from.
	From    string
	Subtask int
	// Chained says the input is the operator before this one in its
	// operator chain (no channel: the watermark is handed over in the
	// task's thread).
	Chained bool
	// Watermark is the last watermark that came on the channel
	// (NoWatermark: none yet).
	Watermark des.Time
	// Idle says the channel's status is IDLE: the valve leaves it out of
	// the minimum.
	Idle bool
	// Holding says the channel is at the minimum that is the subtask's
	// input watermark: it holds the watermark back.
	Holding bool
}

// Watermarks returns every vertex's watermarks now, in topological
// order, for a job with event time (a source with watermarks, a window or
// a join); nil for a job without. It walks the subtasks and their input
// channels: call it once per view, not per event.
func (s *Sim) Watermarks() []VertexWatermarks {
	if !s.eventTimeOn() {
		return nil
	}
	out := make([]VertexWatermarks, len(s.vertices))
	for i, v := range s.vertices {
		vw := VertexWatermarks{Vertex: v.name, Kind: v.kind, Subtasks: make([]SubtaskWatermarks, len(v.subtasks))}
		if v.win != nil {
			vw.Windowed, vw.LateDropped = true, v.win.lateDropped
		}
		for j, t := range v.subtasks {
			vw.Subtasks[j] = s.subtaskWatermarks(t)
		}
		out[i] = vw
	}
	return out
}

// subtaskWatermarks reads t's watermarks and its valve's channels.
func (s *Sim) subtaskWatermarks(t *subtask) SubtaskWatermarks {
	sw := SubtaskWatermarks{Input: minWatermark, Output: minWatermark, LastRecord: -1}
	if w := t.wm; w != nil && w.epoch == s.epoch {
		sw.Input, sw.Output, sw.Idle = w.in, w.out, w.idleOut
		if t.v.kind == KindSource {
			sw.Input = w.out
		}
		if g := w.gen; g != nil && g.epoch == s.epoch && g.seen() {
			sw.LastRecord = g.lastEvent
		}
	}
	if t.v.kind == KindSink {
		sw.Output = minWatermark
	}
	switch {
	case t.chain.in != nil:
		p := t.chain.in.owner
		in := InputWatermark{From: p.v.name, Subtask: p.index, Chained: true, Watermark: sw.Input}
		in.Holding = sw.Input != minWatermark
		sw.Inputs = []InputWatermark{in}
	case t.gate != nil:
		g := t.gate
		sw.Inputs = make([]InputWatermark, len(g.chans))
		for k, c := range g.chans {
			in := InputWatermark{From: c.from.v.name, Subtask: c.from.index, Watermark: minWatermark}
			if vl := g.valve; vl != nil && k < len(vl.wm) {
				in.Watermark, in.Idle = vl.wm[k], !vl.active[k]
				in.Holding = !vl.idle && vl.aligned[k] && vl.last != minWatermark && vl.wm[k] == vl.last
			}
			sw.Inputs[k] = in
		}
	}
	return sw
}
