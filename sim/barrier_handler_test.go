package sim

import (
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// joinSim builds a job of two sources into one union operator, with the
// checkpoint block given, and stops it before anything happened.
func joinSim(t *testing.T, checkpoint string) (*Sim, *subtask) {
	t.Helper()
	sc, err := scenario.Parse("join.yaml", []byte(`
name: join
duration: 60s
chaining: false
sources:
  - {name: a, arrival: {process: constant, rate: 10/s}, record_size: 100B, replayable: true}
  - {name: b, arrival: {process: constant, rate: 10/s}, record_size: 100B, replayable: true}
operators:
  - {name: j, inputs: [a, b], service_time: {distribution: constant, mean: 1ms}}
sinks:
  - {name: out, input: j}
checkpoint: `+checkpoint+`
`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range s.vertices {
		if v.name == "j" {
			return s, v.subtasks[0]
		}
	}
	t.Fatal("no vertex j")
	return nil, nil
}

// The barrier handler of a two-input task walks Flink's states: waiting
// for the first barrier, collecting (the input whose barrier came is
// blocked, the other is not), and back to waiting once the second barrier
// came, with the alignment time between the two noted for the checkpoint.
func TestBarrierHandlerAligned(t *testing.T) {
	s, j := joinSim(t, "{mode: aligned, interval: 1h, timeout: 10min}")
	h := j.barriers
	if got := h.String(); got != "WaitingForFirstBarrier" {
		t.Fatalf("before a checkpoint: %s, want WaitingForFirstBarrier", got)
	}
	id := s.ckpt.trigger(0)
	in := j.gate.chans
	if len(in) != 2 || len(j.gate.gates) != 2 || j.gate.gates[0].chans[0] != in[0] || j.gate.gates[1].chans[0] != in[1] {
		t.Fatalf("the union gate has %d channels in %d single gates, want one per input edge", len(in), len(j.gate.gates))
	}
	h.barrierReceived(des.Millisecond, in[0], id)
	if h.state != collectingBarriers || h.String() != "CollectingBarriers" || h.checkpoint != id || !in[0].blocked || in[1].blocked {
		t.Fatalf("after the first barrier: %s of %d, blocked %v/%v; want CollectingBarriers of %d with the first input blocked",
			h, h.checkpoint, in[0].blocked, in[1].blocked, id)
	}
	h.barrierReceived(5*des.Millisecond, in[1], id)
	if h.state != waitingForFirstBarrier || h.checkpoint != 0 || in[0].blocked || in[1].blocked {
		t.Fatalf("after the last barrier: %s of %d, blocked %v/%v; want WaitingForFirstBarrier, nothing blocked", h, h.checkpoint, in[0].blocked, in[1].blocked)
	}
	if a := s.ckpt.pending[id].sub[j.gid].Alignment; a != 4 {
		t.Errorf("alignment %gms, want 4ms (from the first barrier at 1ms to the last at 5ms)", a)
	}
}

// Unaligned: the task snapshots at the first barrier and persists what
// arrives on the input whose barrier has not come (its channel spills);
// with aligned_timeout the states are Flink's Alternating ones.
func TestBarrierHandlerUnaligned(t *testing.T) {
	s, j := joinSim(t, "{mode: unaligned, interval: 1h, timeout: 10min}")
	h := j.barriers
	if got := h.String(); got != "WaitingForFirstBarrierUnaligned" {
		t.Fatalf("before a checkpoint: %s, want WaitingForFirstBarrierUnaligned", got)
	}
	id := s.ckpt.trigger(0)
	in := j.gate.chans
	h.priorityBarrierReceived(des.Millisecond, in[1], id)
	if h.state != collectingBarriersUnaligned || h.String() != "CollectingBarriersUnaligned" || in[0].spill != id || in[1].spill != 0 {
		t.Fatalf("after the first barrier: %s, spill %d/%d; want CollectingBarriersUnaligned persisting the first input for %d", h, in[0].spill, in[1].spill, id)
	}
	h.priorityBarrierReceived(2*des.Millisecond, in[0], id)
	if h.state != waitingForFirstBarrier || in[0].spill != 0 {
		t.Fatalf("after the last barrier: %s, spill %d; want WaitingForFirstBarrierUnaligned and no spill", h, in[0].spill)
	}

	s, j = joinSim(t, "{mode: unaligned, aligned_timeout: 1s, interval: 1h, timeout: 10min}")
	h = j.barriers
	id = s.ckpt.trigger(0)
	in = j.gate.chans
	h.barrierReceived(des.Millisecond, in[0], id)
	if got := h.String(); got != "AlternatingCollectingBarriers" {
		t.Fatalf("alternating, after the first aligned barrier: %s, want AlternatingCollectingBarriers", got)
	}
	h.alignmentTimeout(des.Second, s.ckpt.pending[id])
	if h.state != collectingBarriersUnaligned || h.String() != "AlternatingCollectingBarriersUnaligned" || in[0].blocked || in[1].spill != id {
		t.Fatalf("after the alignment timeout: %s, blocked %v, spill %d; want AlternatingCollectingBarriersUnaligned, unblocked, persisting the second input", h, in[0].blocked, in[1].spill)
	}
}
