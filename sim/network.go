package sim

import "github.com/dspalab/dspalab/sim/des"

// channel connects one sending subtask to one receiving subtask. It holds
// both ends of Flink's credit-based protocol: the sender's current buffer,
// backlog and credit, and the receiver's queue, empty (credited) buffers and
// floating buffers.
type channel struct {
	s        *Sim
	from, to *subtask
	part     *partition
	gate     *gate
	remote   bool
	latency  des.Time
	bw       float64 // bytes per simulated second
	epoch    uint32

	// records written into the channel and taken out of it by the
	// receiver (consistent-cut checks)
	sent, recv int64
	// unaligned checkpoints: the checkpoint whose data arriving here the
	// receiver persists (its barrier has not come on this channel yet);
	// the time of the last delivery scheduled (a barrier follows what is
	// on the wire)
	spill       int64
	lastArrival des.Time

	// sender side
	cur      *buffer
	backlog  ring[*buffer]
	credit   int
	linkFree des.Time
	inflight ring[*buffer]

	// receiver side
	queue        ring[*buffer]
	empty        int // empty buffers reserved for this channel (announced as credit)
	floating     int // floating buffers held (empty or with data)
	backlogSeen  int // sender backlog announced with the last buffer
	inAvail      bool
	waitingFloat bool
	blocked      bool // aligned checkpoint: the barrier came here first
}

// partition is the output of one subtask on one edge: Flink's result
// partition with one subpartition (channel) per receiving subtask.
type partition struct {
	s          *Sim
	owner      *subtask
	edge       *edge
	chans      []*channel
	unbounded  bool
	poolFree   int
	bufSize    int64
	bufTimeout des.Time
	rr         int
	flushArmed bool
	epoch      uint32
	intoDown   bool // a receiver is down (a lost worker not noticed yet)
}

// gate is the input gate of a subtask: all its input channels, the order in
// which channels with data are read, and the floating buffer pool.
type gate struct {
	owner      *subtask
	chans      []*channel
	avail      ring[*channel]
	cur        *buffer
	curCh      *channel
	floatFree  int
	waiting    ring[*channel]
	unbounded  bool
	queuedRecs int
	queuedBufs int
}

// Events of a channel, each a type of its own (see task_events.go). A
// failover replaces every channel and partition; the events of the old
// ones are ignored (their epoch is not the job's).
type (
	// bufferDelivery hands the oldest buffer in flight to the receiver.
	bufferDelivery channel
	// creditAnnouncement brings the sender credit for as many buffers as
	// its argument says (Flink's AddCredit message).
	creditAnnouncement channel
)

// HandleEvent hands the oldest buffer in flight to the receiver.
func (e *bufferDelivery) HandleEvent(now des.Time, _ int64) {
	c := (*channel)(e)
	if c.epoch == c.s.epoch {
		c.deliver(now, c.inflight.pop())
	}
}

// HandleEvent adds credits buffers of credit and ships what it allows.
func (e *creditAnnouncement) HandleEvent(now des.Time, credits int64) {
	c := (*channel)(e)
	if c.epoch == c.s.epoch {
		c.credit += int(credits)
		c.trySend(now)
	}
}

// HandleEvent flushes the partition when its buffer timeout expires.
func (p *partition) HandleEvent(now des.Time, _ int64) {
	if p.epoch != p.s.epoch {
		return // replaced by a failover
	}
	p.flushArmed = false
	p.flushAll(now)
}

// flushAll ships every channel's partly filled buffer.
func (p *partition) flushAll(now des.Time) {
	for _, c := range p.chans {
		if c.cur != nil && len(c.cur.recs) > 0 {
			p.finish(now, c)
		}
	}
}

// write appends r to c's current buffer, taking a buffer from the pool if
// needed. It reports false, writing nothing, when the pool is empty: the
// writer is back-pressured.
func (p *partition) write(now des.Time, c *channel, r *Record) bool {
	b := c.cur
	size := p.s.sizeOf(r)
	if b != nil && len(b.recs) > 0 && b.bytes+size > p.bufSize {
		p.finish(now, c)
		b = nil
	}
	if b == nil {
		if !p.unbounded {
			if p.poolFree == 0 {
				return false
			}
			p.poolFree--
		}
		b = p.s.newBuffer()
		c.cur = b
	}
	b.recs = append(b.recs, *r)
	b.bytes += size
	c.sent++
	switch {
	case p.bufTimeout == 0 || b.bytes+size > p.bufSize || p.s.halted:
		p.finish(now, c) // a stop-the-world checkpoint drains the job at once
	case !p.flushArmed:
		p.flushArmed = true
		p.s.eng.After(p.bufTimeout, p, 0)
	}
	return true
}

// finish closes c's current buffer and queues it for sending.
func (p *partition) finish(now des.Time, c *channel) {
	b := c.cur
	c.cur = nil
	if p.unbounded && !c.remote && c.backlog.len() == 0 {
		// nothing can flow back on an unbounded local channel: hand the
		// buffer over at once instead of through the backlog and the event
		// queue
		c.deliver(now, b)
		return
	}
	c.backlog.push(b)
	c.trySend(now)
}

// trySend ships backlogged buffers while the receiver has credit.
func (c *channel) trySend(now des.Time) {
	unb := c.part.unbounded
	if c.from.down {
		return // a failed sender sends nothing
	}
	for c.backlog.len() > 0 && (unb || c.credit > 0) {
		b := c.backlog.pop()
		b.backlog = c.backlog.len()
		if !unb {
			c.credit--
		}
		at := now
		if c.remote {
			start := max(now, c.linkFree, c.s.partitionedUntil(c, now))
			c.linkFree = addNs(start, float64(b.bytes)/c.bw*float64(des.Second))
			at = addNs(c.linkFree, float64(c.latency))
		}
		at = max(at, c.lastArrival)
		c.lastArrival = at
		c.inflight.push(b)
		c.s.eng.Schedule(at, (*bufferDelivery)(c), 0)
	}
}

// deliver hands b to the receiver and returns the sender's buffer to its
// pool.
func (c *channel) deliver(now des.Time, b *buffer) {
	g := c.gate
	if b.dataType == priorityEventBuffer || (b.barrierID() != 0 && c.s.ckpt.isUnaligned(b.barrierID())) {
		// an unaligned barrier takes no buffer and is not queued; one
		// sent aligned before its checkpoint switched to unaligned
		// (aligned_timeout) gives its credit back
		id, credited := b.barrierID(), b.dataType != priorityEventBuffer
		c.s.freeBuffer(b)
		if credited && !c.part.unbounded {
			c.announce(now, 1)
		}
		if !c.to.down {
			c.to.barriers.priorityBarrierReceived(now, c, id)
		}
		return
	}
	if c.spill != 0 && b.isBuffer() {
		if ck := c.s.ckpt.pending[c.spill]; ck != nil {
			for _, r := range b.recs {
				c.to.barriers.persistIn(ck, r)
			}
		}
	}
	b.arrived = now
	b.next = 0
	if !g.unbounded {
		c.empty--
		c.backlogSeen = b.backlog
		g.requestFloating(now, c)
	}
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
	if !c.part.unbounded && b.isBuffer() { // a barrier takes no buffer of the sender's pool
		c.part.poolFree++
		c.from.unblock(now, c.part)
	}
}

// requestFloating assigns floating buffers to c while its announced backlog
// exceeds its empty buffers, and announces them as credit.
func (g *gate) requestFloating(now des.Time, c *channel) {
	grant := 0
	for c.empty < c.backlogSeen && g.floatFree > 0 {
		g.floatFree--
		c.floating++
		c.empty++
		grant++
	}
	if c.empty < c.backlogSeen && !c.waitingFloat {
		c.waitingFloat = true
		g.waiting.push(c)
	}
	c.announce(now, grant)
}

// announce sends n credits to the sender.
func (c *channel) announce(now des.Time, n int) {
	if n <= 0 {
		return
	}
	now = c.s.eng.Now()
	at := now
	if c.remote {
		at = addNs(max(now, c.s.partitionedUntil(c, now)), float64(c.latency))
	}
	c.s.eng.Schedule(at, (*creditAnnouncement)(c), int64(n))
}

// next moves the next record into *r and its arrival time into *arrived. It
// reads whole buffers, taking channels with data in the order their data
// arrived, as Flink's input gate does; a buffer is recycled (and its credit
// returned) when its last record is taken.
func (g *gate) next(now des.Time, r *Record, arrived *des.Time) bool {
	for g.cur == nil {
		if g.avail.len() == 0 {
			return false
		}
		c := g.avail.pop()
		c.inAvail = false
		if c.blocked || c.queue.len() == 0 { // aligning: read no further from it
			continue
		}
		b := c.queue.pop()
		barrier := b.barrierID()
		if barrier != 0 {
			g.queuedBufs--
			g.owner.s.freeBuffer(b)
			g.recycle(now, c)
			g.owner.barriers.barrierReceived(now, c, barrier)
		} else {
			g.cur, g.curCh = b, c
		}
		if c.queue.len() > 0 && !c.blocked && !c.inAvail {
			c.inAvail = true
			g.avail.push(c)
		}
		if barrier != 0 && g.owner.state != stateIdle {
			return false // the snapshot's synchronous part blocks the task
		}
	}
	b := g.cur
	*r = b.recs[b.next]
	*arrived = b.arrived
	b.next++
	g.curCh.recv++
	g.queuedRecs--
	if b.next == len(b.recs) {
		c := g.curCh
		g.cur, g.curCh = nil, nil
		g.queuedBufs--
		g.owner.s.freeBuffer(b)
		g.recycle(now, c)
	}
	return true
}

// recycle returns the buffer just emptied on c: a floating buffer the
// channel no longer needs goes back to the gate's pool (and on to a channel
// waiting for one); otherwise it becomes credit for c's sender.
func (g *gate) recycle(now des.Time, c *channel) {
	if g.unbounded {
		return
	}
	if c.floating > 0 && c.empty >= c.backlogSeen {
		c.floating--
		g.floatFree++
		for g.floatFree > 0 && g.waiting.len() > 0 {
			w := g.waiting.peek()
			if w.empty >= w.backlogSeen {
				g.waiting.pop()
				w.waitingFloat = false
				continue
			}
			g.floatFree--
			w.floating++
			w.empty++
			w.announce(now, 1)
		}
		return
	}
	c.empty++
	c.announce(now, 1)
}
