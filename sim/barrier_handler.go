package sim

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// barrierHandlerState is the state of a task's barrier handler, as
// Flink's BarrierHandlerState (SingleCheckpointBarrierHandler in
// flink-streaming-java runtime/io/checkpointing): waiting for the first
// barrier of a checkpoint, collecting the barriers of the others with
// their inputs blocked (aligned), or collecting them after the snapshot,
// persisting what arrives before them (unaligned). Flink's Alternating*
// states are the same states with aligned_timeout set: a checkpoint
// starts aligned and may switch (alignmentTimeout).
type barrierHandlerState uint8

const (
	// waitingForFirstBarrier: no checkpoint in progress at this task.
	waitingForFirstBarrier barrierHandlerState = iota
	// collectingBarriers: aligned; the inputs whose barrier came are
	// blocked until the last one comes.
	collectingBarriers
	// collectingBarriersUnaligned: the task snapshotted at the first
	// barrier and persists what arrives on the inputs whose barrier has
	// not come yet.
	collectingBarriersUnaligned
)

// barrierHandler is the barrier handler of a task with inputs: Flink's
// CheckpointBarrierHandler behind the CheckpointedInputGate. It reacts to
// the barriers read from (aligned) or arriving at (unaligned) the input
// channels, blocks and unblocks channels, and snapshots the task.
type barrierHandler struct {
	t     *subtask
	state barrierHandlerState
	// alternating: mode unaligned with aligned_timeout (Flink's
	// Alternating* states); unaligned: mode unaligned without it
	alternating, unaligned bool
	checkpoint             int64    // the checkpoint in progress, or 0 (waiting)
	seen                   int      // its barriers received, on how many input channels
	start                  des.Time // when its first barrier came
	persisted              int64    // unaligned: bytes of in-flight data persisted for it
}

func newBarrierHandler(t *subtask, cfg scenario.Checkpointing) *barrierHandler {
	h := &barrierHandler{t: t}
	if cfg.Mode == scenario.CheckpointUnaligned {
		h.alternating = cfg.AlignedTimeout > 0
		h.unaligned = !h.alternating
	}
	return h
}

// String returns the state's name in Flink.
func (h *barrierHandler) String() string {
	switch {
	case h.state == collectingBarriers && h.alternating:
		return "AlternatingCollectingBarriers"
	case h.state == collectingBarriers:
		return "CollectingBarriers"
	case h.state == collectingBarriersUnaligned && h.alternating:
		return "AlternatingCollectingBarriersUnaligned"
	case h.state == collectingBarriersUnaligned:
		return "CollectingBarriersUnaligned"
	case h.alternating:
		return "AlternatingWaitingForFirstBarrier"
	case h.unaligned:
		return "WaitingForFirstBarrierUnaligned"
	}
	return "WaitingForFirstBarrier"
}

// begin enters the collecting state of checkpoint id at its first
// barrier (or at its alignment timeout).
func (h *barrierHandler) begin(now des.Time, id int64, st barrierHandlerState) {
	h.state, h.checkpoint, h.seen, h.start = st, id, 0, now
	h.t.s.ckpt.started(now, h.t, id)
}

// barrierReceived handles aligned barrier id read from input channel c:
// the channel is blocked until the barrier has come on every input; then
// the task snapshots, forwards the barrier and acknowledges.
func (h *barrierHandler) barrierReceived(now des.Time, c *channel, id int64) {
	t := h.t
	co := t.s.ckpt
	if co == nil || co.pending[id] == nil || id < h.checkpoint {
		return // an old or timed-out checkpoint's barrier
	}
	if h.checkpoint != id {
		if h.state != waitingForFirstBarrier {
			h.abort(now) // a newer checkpoint overtook the old one
		}
		h.begin(now, id, collectingBarriers)
	}
	h.seen++
	if h.seen < len(t.gate.chans) {
		c.blocked = true
		return
	}
	ck := co.pending[id]
	if ck.cuts != nil {
		for _, in := range t.gate.chans {
			ck.cut(in).Received = in.recv
		}
	}
	co.aligned(t, id, now-h.start)
	h.abort(now)
	t.forwardBarrier(now, id, ck)
	t.snapshot(now, ck, 0)
}

// priorityBarrierReceived handles unaligned barrier id arriving on input
// channel c, ahead of the data buffered there. At the first barrier of a
// checkpoint the task snapshots at once (cutUnaligned); when the last
// barrier is in, it uploads the state and the persisted data and
// acknowledges.
func (h *barrierHandler) priorityBarrierReceived(now des.Time, c *channel, id int64) {
	ck := h.t.s.ckpt.pending[id]
	if ck == nil || id < h.checkpoint {
		return
	}
	if h.checkpoint != id {
		h.abort(now)
		h.begin(now, id, collectingBarriersUnaligned)
		h.cutUnaligned(now, ck, nil)
	}
	c.spill = 0
	h.seen++
	h.finishUnaligned(now, ck)
}

// alignmentTimeout switches checkpoint ck, started aligned, to unaligned
// at this task (Flink's alignmentTimeout transition): its barriers
// already delivered but queued behind data are taken out, and if the
// task has seen one, it snapshots at once, persisting the data queued on
// the inputs whose barrier has not come, and unblocks its inputs.
func (h *barrierHandler) alignmentTimeout(now des.Time, ck *checkpoint) {
	t := h.t
	id := ck.id
	pre := map[*channel]int{}
	for _, in := range t.gate.chans {
		for i := 0; i < in.queue.len(); i++ {
			if b := in.queue.at(i); b.barrierID() == id {
				pre[in] = i
				in.removeQueued(now, i)
				break
			}
		}
	}
	if len(pre) == 0 && h.checkpoint != id {
		return // no barrier of id here yet (or done with it)
	}
	if h.checkpoint != id {
		h.abort(now)
		h.begin(now, id, collectingBarriersUnaligned)
	}
	h.state = collectingBarriersUnaligned
	h.cutUnaligned(now, ck, pre)
	h.seen += len(pre)
	for _, in := range t.gate.chans {
		if in.blocked {
			in.blocked = false
			if in.hasQueued() && !in.inAvail {
				in.inAvail = true
				t.gate.avail.push(in)
			}
		}
	}
	h.finishUnaligned(now, ck)
	if t.state == stateIdle {
		t.pull(now)
	}
}

// cutUnaligned takes the task's unaligned snapshot now: it persists every
// record waiting in its input ahead of barrier ck.id (and the one in
// service), forwards the barrier overtaking its output buffers, captures
// its state, and from then on persists what arrives on the inputs whose
// barrier has not come yet (Flink's ChannelStateWriter). pre, when not
// nil, gives for some channels how many of their queued buffers are ahead
// of the barrier (the rest came after it); a blocked channel (its aligned
// barrier already read) has none ahead.
func (h *barrierHandler) cutUnaligned(now des.Time, ck *checkpoint, pre map[*channel]int) {
	t := h.t
	h.persisted = 0
	if t.serving() {
		h.persistIn(ck, t.cur) // taken, not processed: input of the cut
	}
	g := t.gate
	for _, r := range g.restored[g.restoredNext:] {
		h.persistIn(ck, r)
	}
	if g.cur != nil {
		for _, r := range g.cur.recs[g.cur.next:] {
			h.persistIn(ck, r)
		}
	}
	for _, in := range g.chans {
		n, known := pre[in]
		switch {
		case in.blocked:
			n = 0
		case !known:
			n = in.queue.len()
			in.spill = ck.id // its barrier is still to come
		}
		if !in.blocked { // the records a hop channel queued, ahead of every buffer
			for i := 0; i < in.hq.len(); i++ {
				h.persistIn(ck, in.hq.at(i).r)
			}
		}
		for i := 0; i < n; i++ {
			if b := in.queue.at(i); b.isBuffer() && b != g.cur {
				for _, r := range b.recs {
					h.persistIn(ck, r)
				}
			}
		}
	}
	h.persisted += t.forwardBarrier(now, ck.id, ck)
	t.capture(ck)
}

// finishUnaligned uploads the task's unaligned snapshot once every
// input's barrier has come, and waits for the next checkpoint.
func (h *barrierHandler) finishUnaligned(now des.Time, ck *checkpoint) {
	t := h.t
	if h.seen < len(t.gate.chans) {
		return
	}
	t.s.ckpt.aligned(t, ck.id, now-h.start)
	h.state, h.checkpoint, h.seen = waitingForFirstBarrier, 0, 0
	t.upload(now, ck, h.persisted)
}

// persistIn adds r to the task's persisted input for checkpoint ck.
func (h *barrierHandler) persistIn(ck *checkpoint, r Record) {
	t := h.t
	ck.persist(ck.chanState, t.gid, r)
	h.persisted += t.s.sizeOf(&r)
}

// abort ends the checkpoint in progress at this task (done, overtaken by a
// newer one or timed out): every input channel is unblocked, nothing more
// is persisted, and the handler waits for the next first barrier.
func (h *barrierHandler) abort(now des.Time) {
	h.state, h.checkpoint, h.seen = waitingForFirstBarrier, 0, 0
	g := h.t.gate
	for _, c := range g.chans {
		c.spill = 0
		if c.blocked {
			c.blocked = false
			if c.hasQueued() && !c.inAvail {
				c.inAvail = true
				g.avail.push(c)
			}
		}
	}
}

// reset forgets the checkpoint in progress (the task is cancelled by a
// failover; its channels are replaced).
func (h *barrierHandler) reset() {
	h.state, h.checkpoint, h.seen, h.persisted = waitingForFirstBarrier, 0, 0, 0
}
