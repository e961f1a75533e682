package sim

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// singleInputGate is the input of a task from one input edge, as Flink's
// SingleInputGate: one input channel per sending subtask of the edge, and
// the gate's own pool of floating_buffers, shared by its channels only.
// Flink's SingleInputGateFactory.create gives every gate a buffer pool of
// its own (createBufferPoolFactory, sized by GateBuffersSpec from
// floatingNetworkBuffersPerGate, i.e.
// taskmanager.network.memory.floating-buffers-per-gate), so a task with
// two input edges has floating_buffers for each of them.
type singleInputGate struct {
	union     *unionInputGate
	edge      *edge
	chans     []*channel
	floating  bufferPool
	unbounded bool
}

// unionInputGate is a task's input: the union of its single input gates,
// as Flink's UnionInputGate, read one buffer or event at a time. It
// takes channels with data in the order their data arrived, over all its
// gates (Flink's UnionInputGate takes gates in that order and each gate
// its channels; with one input edge the two are the same). Before its
// channels, it reads the channel state a recovery restored (Flink's
// RecoveredInputChannel).
type unionInputGate struct {
	owner *subtask
	gates []*singleInputGate
	chans []*channel // every input channel, in the order they were connected
	avail ring[*channel]
	cur   *buffer
	curCh *channel
	// floatingPerGate is the floating buffers each single gate's pool
	// starts with (floating_buffers of the task's network setting)
	floatingPerGate int
	unbounded       bool
	queuedRecs      int
	queuedBufs      int
	// channel state restored by a recovery, to be processed first
	// (unaligned checkpoints)
	restored     []Record
	restoredNext int
	// valve is the input watermark over the channels (watermark.go),
	// made at the first watermark that comes
	valve *watermarkValve
}

func newUnionInputGate(t *subtask) *unionInputGate {
	return &unionInputGate{owner: t, floatingPerGate: t.v.net.FloatingBuffers, unbounded: t.v.net.Capacity == scenario.Unbounded}
}

// gateFor returns the single input gate of edge e, adding it, with a
// floating pool of its own, at its first channel.
func (u *unionInputGate) gateFor(e *edge) *singleInputGate {
	for _, g := range u.gates {
		if g.edge == e {
			return g
		}
	}
	g := &singleInputGate{union: u, edge: e, floating: bufferPool{available: u.floatingPerGate}, unbounded: u.unbounded}
	u.gates = append(u.gates, g)
	return g
}

// add connects input channel c to single gate g.
func (g *singleInputGate) add(c *channel) {
	c.gate = g
	c.hop = directHops && c.part.unbounded && c.part.bufTimeout == 0 && !c.remote
	g.chans = append(g.chans, c)
	g.union.chans = append(g.union.chans, c)
}

// requestFloating assigns floating buffers to c while its announced backlog
// exceeds its empty buffers, and announces them as credit.
func (g *singleInputGate) requestFloating(now des.Time, c *channel) {
	grant := 0
	for c.empty < c.backlogSeen && g.floating.available > 0 {
		g.floating.available--
		c.floating++
		c.empty++
		grant++
	}
	if c.empty < c.backlogSeen && !c.waitingFloat {
		c.waitingFloat = true
		g.floating.waiting.push(c)
	}
	if grant > 0 {
		c.announce(now, grant)
	}
}

// next moves the next record into *r and its arrival time into *arrived:
// first the restored channel state, then whole buffers, taking channels
// with data in the order their data arrived, as Flink's input gate does;
// a buffer is recycled (and its credit returned) when its last record is
// taken. An event (a barrier) goes to the task's barrier handler.
func (g *unionInputGate) next(now des.Time, r *Record, arrived *des.Time) bool {
	if g.restoredNext < len(g.restored) {
		*r, *arrived = g.restored[g.restoredNext], now
		g.restoredNext++
		if g.restoredNext == len(g.restored) {
			g.restored, g.restoredNext = nil, 0
		}
		g.owner.arrive(now, 1)
		return true
	}
	if b := g.cur; b != nil { // a buffer being read
		*r = b.recs[b.next]
		*arrived = b.arrived
		b.next++
		if b.next < len(b.recs) {
			g.curCh.recv++
			g.queuedRecs--
			return true
		}
		c := g.curCh
		g.cur, g.curCh = nil, nil
		g.done(now, c, b)
		return true
	}
	for {
		if g.avail.len() == 0 {
			return false
		}
		c := g.avail.peek()
		if c.blocked || !c.hasQueued() { // aligning: read no further from it
			g.avail.pop()
			c.inAvail = false
			continue
		}
		if c.hq.len() > 0 { // a record a hop channel queued: a one-record buffer's path below, without the buffer
			if c.hq.len() > 1 || c.queue.len() > 0 {
				if g.avail.len() > 1 {
					g.avail.rotate()
				}
			} else {
				g.avail.pop()
				c.inAvail = false
			}
			q := c.hq.front()
			*r, *arrived = q.r, q.arrived
			c.hq.drop()
			c.recv++
			g.queuedRecs--
			g.queuedBufs--
			return true // an unbounded channel returns no credit
		}
		b := c.queue.pop()
		if b.event.kind == noEvent { // records
			if c.queue.len() > 0 {
				if g.avail.len() > 1 { // alone, c is behind itself already
					g.avail.rotate() // c goes behind the channels with data
				}
			} else {
				g.avail.pop()
				c.inAvail = false
			}
			if len(b.recs) == 1 { // read whole at once (buffer_timeout: 0): done's work, in line
				*r, *arrived = b.recs[0], b.arrived
				c.recv++
				g.queuedRecs--
				g.queuedBufs--
				g.owner.s.freeBuffer(b)
				c.gate.recycle(now, c)
				return true
			}
			g.cur, g.curCh = b, c
			return g.next(now, r, arrived) // its first record
		}
		g.avail.pop()
		c.inAvail = false
		barrier := b.barrierID()
		ev := b.event
		g.queuedBufs--
		g.owner.s.freeBuffer(b)
		c.gate.recycle(now, c)
		if barrier == 0 {
			g.owner.inputEvent(now, c, ev) // a watermark or watermark status
		} else {
			g.owner.barriers.barrierReceived(now, c, barrier)
		}
		if c.hasQueued() && !c.blocked && !c.inAvail {
			c.inAvail = true
			g.avail.push(c)
		}
		if g.owner.state != stateIdle {
			return false // the snapshot's synchronous part (or a window's firing) blocks the task
		}
	}
}

// done counts the last record of data buffer b taken from c, and
// recycles b (its credit returns to the sender).
func (g *unionInputGate) done(now des.Time, c *channel, b *buffer) {
	c.recv++
	g.queuedRecs--
	g.queuedBufs--
	g.owner.s.freeBuffer(b)
	c.gate.recycle(now, c)
}

// directHops turns the one-record hops of direct and handOver on; a test
// turns them off to compare a run with the queued path.
var directHops = true

// direct reports whether a record arriving on c now would be the next the
// owner takes, at once: the owner is idle and running (no pause can hold
// it), and nothing comes before the record: no restored channel state, no
// buffer or event being read or queued (queuedBufs counts them all, the
// one being read until its last record is taken), no channel on the list
// of those with data (one may stay there with nothing queued, until next
// takes it off), and c is not blocked by an alignment. A one-record hop
// can then skip the queues (handOver).
func (g *unionInputGate) direct(c *channel) bool {
	t := g.owner
	return directHops && t.state == stateIdle && g.queuedBufs == 0 && !t.down && !t.s.pauses && g.avail.len() == 0 &&
		g.restoredNext >= len(g.restored) && !c.blocked
}

// handOver gives record r, arriving on c now, to the owner when direct(c)
// holds: what queueing it and pulling would do, without the channel's
// queue and the gate's list of channels with data. The owner counts the
// arrival, takes r (b, the buffer that brought it, is recycled and its
// credit returned; nil when the record came without one), serves it and
// goes on as pull does. An instant sink's put does all that in line.
func (g *unionInputGate) handOver(now des.Time, c *channel, r *Record, b *buffer) {
	t := g.owner
	if b != nil { // (receive looked at an instant sink already)
		if w := t.instantSink(); w != nil {
			rec := *r // r is b's
			t.s.freeBuffer(b)
			c.gate.recycle(now, c) // its credit: an event, after what put does
			w.put(now, c, &rec)
			return
		}
	}
	t.arrive(now, 1)
	t.cur, t.curArrived = *r, now
	c.recv++
	if b != nil {
		t.s.freeBuffer(b)
		c.gate.recycle(now, c)
	}
	t.serve(now)
	for t.state == stateIdle && g.readable() && g.next(now, &t.cur, &t.curArrived) {
		t.serve(now)
	}
	t.chainDone(now)
}

// readable reports whether next may find something to read: restored
// channel state, a buffer being read, or a channel with data. When it is
// false, next returns false at once (handOver and take skip its call).
func (g *unionInputGate) readable() bool {
	return g.cur != nil || g.avail.len() > 0 || g.restoredNext < len(g.restored)
}

// receive takes record r, written into hop channel c now (see
// partition.write): what delivering the one-record buffer it would be
// flushed in does, without the buffer when the receiver takes the record
// at once (handOver), or queues it: as a record on c's hq while c has no
// buffer queued (an event), else in a buffer behind it. A queued buffer
// carries no byte count: only a sender reads it.
func (g *unionInputGate) receive(now des.Time, c *channel, r *Record) {
	if g.direct(c) {
		if w := g.owner.instantSink(); w != nil {
			w.put(now, c, r) // handOver's own look, a call less
			return
		}
		g.handOver(now, c, r, nil)
		return
	}
	if c.queue.len() == 0 {
		q := c.hq.add()
		q.r, q.arrived = *r, now
		// enqueue's counting for a one-record buffer, in line: a
		// helper both call (it cannot be inlined) costs
		// BenchmarkTandemUnbounded 1.0% more Ir, TandemCredit 0.4%
		g.queuedBufs++
		g.queuedRecs++
		t := g.owner
		t.arrive(now, 1)
		if !c.inAvail && !c.blocked {
			c.inAvail = true
			g.avail.push(c)
		}
		if t.state == stateIdle {
			t.pull(now)
		}
		return
	}
	b := g.owner.s.newBuffer()
	if cap(b.recs) > 0 { // a pooled buffer (empty): r is copied once, not through append's temporary
		b.recs = b.recs[:1]
		b.recs[0] = *r
	} else {
		b.recs = append(b.recs, *r)
	}
	b.arrived = now
	g.enqueue(now, c, b) // rare: behind an event buffer
}

// enqueue queues data or event buffer b, arrived on c now, in c's queue,
// puts c on the list of channels with data, and lets an idle owner take
// it.
func (g *unionInputGate) enqueue(now des.Time, c *channel, b *buffer) {
	c.queue.push(b)
	n := len(b.recs)
	g.queuedBufs++
	g.queuedRecs += n
	g.owner.arrive(now, n)
	if !c.inAvail && !c.blocked {
		c.inAvail = true
		g.avail.push(c)
	}
	if g.owner.state == stateIdle {
		g.owner.pull(now)
	}
}

// recycle returns the buffer just emptied on c: a floating buffer the
// channel no longer needs goes back to the gate's floating pool (and on to
// a channel waiting for one); otherwise it becomes credit for c's sender.
func (g *singleInputGate) recycle(now des.Time, c *channel) {
	if !g.unbounded {
		g.recycleCredit(now, c)
	}
}

// recycleCredit is recycle on a channel with flow control.
func (g *singleInputGate) recycleCredit(now des.Time, c *channel) {
	if c.floating > 0 && c.empty >= c.backlogSeen {
		c.floating--
		fp := &g.floating
		fp.recycle()
		for fp.available > 0 && fp.waiting.len() > 0 {
			w := fp.waiting.peek()
			if w.empty >= w.backlogSeen {
				fp.waiting.pop()
				w.waitingFloat = false
				continue
			}
			fp.available--
			w.floating++
			w.empty++
			w.announce(now, 1)
		}
		return
	}
	c.empty++
	if c.remote { // announce(now, 1), without its call
		c.sendRemoteCredit(1)
		return
	}
	c.s.eng.Post((*creditAnnouncement)(c), 1)
}
