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
	gate     *singleInputGate // the receiver's gate of this channel's edge
	remote   bool
	// hop: a local channel without flow control, flushed after every
	// record (capacity: unbounded, buffer_timeout: 0): a record written
	// into it is the receiver's at once (partition.write, unionInputGate
	// .receive); set when the channel joins its gate (singleInputGate.add)
	hop     bool
	conn    *connection // the link between the workers of a remote channel, nil for a local one
	latency des.Time
	bw      float64 // bytes per simulated second
	epoch   uint32

	// records written into the channel and taken out of it by the
	// receiver (consistent-cut checks)
	sent, recv int64
	// unaligned checkpoints: the checkpoint whose data arriving here the
	// receiver persists (its barrier has not come on this channel yet);
	// the time of the last delivery scheduled (a barrier follows what is
	// on the wire)
	spill       int64
	lastArrival des.Time

	// sender side: cur is the open BufferBuilder's buffer with the
	// records written since its last slice (Flink's BufferConsumer reads
	// on from there), curFill the bytes written into its segment, sliced
	// or not; flushRequested a flush the network has not served yet
	// (PipelinedSubpartition.flushRequested). curSlices are the slices of
	// the open segment in flight (lastSlice the latest), oldSlices those
	// of finished ones: a slice returns no buffer to the pool, the
	// segment's last piece does.
	cur            *buffer
	curFill        int64
	flushRequested bool
	curSlices      int
	oldSlices      int
	lastSlice      *buffer
	backlog        ring[*buffer]
	credit         int
	inflight       ring[*buffer]

	// receiver side. hq holds, as records, the one-record buffers a hop
	// channel queued because the receiver was busy (unionInputGate
	// .receive): they come before every buffer in queue (a record goes
	// to hq only while queue is empty), and each counts as a buffer of
	// the gate's (queuedBufs); the receiver reads them without a buffer
	// taken from and returned to the pool
	queue        ring[*buffer]
	hq           ring[hopRec]
	empty        int // empty buffers reserved for this channel (announced as credit)
	floating     int // floating buffers held (empty or with data)
	backlogSeen  int // sender backlog announced with the last buffer
	inAvail      bool
	waitingFloat bool
	blocked      bool // aligned checkpoint: the barrier came here first
}

// hopRec is a record queued on a hop channel (channel.hq) and when it
// arrived.
type hopRec struct {
	r       Record
	arrived des.Time
}

// hasQueued reports whether the receiver has something queued on c: a
// record (hq) or a buffer.
func (c *channel) hasQueued() bool { return c.queue.len() > 0 || c.hq.len() > 0 }

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
		b := c.inflight.pop()
		c.s.netRecs, c.s.netBufs = c.s.netRecs-int64(len(b.recs)), c.s.netBufs-1
		c.deliver(now, b)
	}
}

// HandleEvent adds credits buffers of credit and ships what it allows.
func (e *creditAnnouncement) HandleEvent(now des.Time, credits int64) {
	c := (*channel)(e)
	if c.epoch == c.s.epoch {
		c.credit += int(credits)
		if c.backlog.len() > 0 || c.flushRequested { // else trySend finds nothing to ship
			c.trySend(now)
		}
	}
}

// trySend ships backlogged buffers while the receiver has credit, then,
// when a flush was requested, the written part of the open buffer as a
// slice (Flink's PipelinedSubpartition.pollBuffer: finished buffers
// first, then the unfinished one only after a flush).
func (c *channel) trySend(now des.Time) {
	if c.from.down {
		return // a failed sender sends nothing
	}
	unb := c.part.unbounded
	for unb || c.credit > 0 {
		if c.backlog.len() > 0 {
			// from the backlog to the wire: still in the network (netRecs)
			b := c.backlog.pop()
			c.s.netRecs, c.s.netBufs = c.s.netRecs-int64(len(b.recs)), c.s.netBufs-1
			c.ship(now, b, unb)
			continue
		}
		if c.flushRequested && c.cur != nil && len(c.cur.recs) > 0 {
			b := c.takeSlice()
			if !unb {
				c.curSlices, c.lastSlice = c.curSlices+1, b
			}
			c.ship(now, b, unb)
			// nothing is left: the backlog is empty, the slice took what
			// was written and the flush
		}
		c.flushRequested = false // drained: nothing written since
		return
	}
}

// ship puts b on the wire to the receiver, announcing the sender's
// backlog with it (Flink's BufferAndBacklog), and schedules its delivery:
// on a local channel now, posted (des.Engine.Post: it is never
// cancelled), and a local channel needs no lastArrival (its deliveries
// are all at their sending instant, which never goes back).
func (c *channel) ship(now des.Time, b *buffer, unb bool) {
	b.backlog = c.backlogLen()
	if !unb {
		c.credit--
	}
	c.inflight.push(b)
	c.s.netRecs, c.s.netBufs = c.s.netRecs+int64(len(b.recs)), c.s.netBufs+1
	if c.remote {
		c.shipRemote(now, b)
		return
	}
	c.s.eng.Post((*bufferDelivery)(c), 0)
}

// shipRemote schedules the delivery of b, sent on remote channel c now:
// its bytes through the connection, then the latency, behind what is on
// the wire already (kept out of ship, so that a local channel's ship
// keeps its values in registers).
//
//go:noinline
func (c *channel) shipRemote(now des.Time, b *buffer) {
	sent := c.conn.transmit(now, c.s.partitionedUntil(c, now), b.bytes, c.bw)
	at := max(addNs(sent, float64(c.latency)), c.lastArrival)
	c.lastArrival = at
	c.s.eng.Schedule(at, (*bufferDelivery)(c), 0)
}

// takeSlice takes the records written to c's open buffer since its last
// slice as a buffer of their own, to be sent; the open buffer goes on in
// the same segment (Flink's BufferConsumer.build).
func (c *channel) takeSlice() *buffer {
	b := c.cur
	b.slice = true
	c.flushRequested = false
	if c.hop {
		// no pool behind an unbounded channel, and every record flushed:
		// where the segment would be full changes nothing (a finish and
		// a flush deliver the same one-record buffer), so no segment
		// stays open and the next record can hop (partition.write)
		c.cur, c.curFill = nil, 0
		return b
	}
	c.cur = c.s.newBuffer()
	return b
}

// backlogLen is the backlog the sender announces with a buffer (Flink's
// PipelinedSubpartition.getBuffersInBacklogUnsafe): the finished buffers
// waiting, and the open one when a flush has made it available.
func (c *channel) backlogLen() int {
	n := c.backlog.len()
	if c.flushRequested && c.cur != nil && len(c.cur.recs) > 0 {
		n++
	}
	return n
}

// segmentSliced is called when the open buffer is finished with every
// record sent in slices: the last slice in flight now returns the
// segment when it arrives. It reports true when none is in flight, so
// the segment returns to the pool now.
func (c *channel) segmentSliced() bool {
	if c.curSlices == 0 {
		return true
	}
	c.lastSlice.slice = false
	c.oldSlices += c.curSlices - 1
	c.curSlices, c.lastSlice = 0, nil
	return false
}

// deliver hands b to the receiver and returns the sender's buffer to its
// pool (a slice returns none: its segment is still being written, or a
// later piece of it returns it).
func (c *channel) deliver(now des.Time, b *buffer) {
	data := b.isBuffer()
	if !data && c.deliverPriority(now, b) {
		return
	}
	// what the sender's pool gets back, read before the receiver may take
	// the buffer's records and free it
	slice := b.slice
	if c.spill != 0 && data {
		c.persistArriving(b)
	}
	b.arrived = now // b.next is 0: nothing has read b yet (newBuffer's are zero, freeBuffer zeroes it)
	g := c.gate
	if !g.unbounded {
		c.empty--
		c.backlogSeen = b.backlog
		if c.empty < c.backlogSeen { // else requestFloating has nothing to do
			g.requestFloating(now, c)
		}
	}
	if u := g.union; data && len(b.recs) == 1 && u.direct(c) {
		// a one-record buffer the idle receiver takes at once: straight
		// to it, not through its queue
		u.handOver(now, c, &b.recs[0], b)
	} else {
		u.enqueue(now, c, b)
	}
	if !data || c.part.unbounded { // a barrier takes no buffer of the sender's pool
		return
	}
	switch {
	case slice && c.oldSlices > 0: // slices arrive in the order they were sent
		c.oldSlices--
	case slice:
		c.curSlices--
		if c.curSlices == 0 {
			c.lastSlice = nil
		}
	default:
		c.part.pool.recycle()
		c.from.unblock(now, c.part)
	}
}

// persistArriving persists data buffer b, arriving on c, in the channel
// state of the unaligned checkpoint c spills to (out of deliver's way).
func (c *channel) persistArriving(b *buffer) {
	if ck := c.s.ckpt.pending[c.spill]; ck != nil {
		for _, r := range b.recs {
			c.to.barriers.persistIn(ck, r)
		}
	}
}

// deliverPriority delivers event buffer b if it is an unaligned barrier,
// and reports whether it was: an unaligned barrier takes no buffer and is
// not queued; one sent aligned before its checkpoint switched to
// unaligned (aligned_timeout) gives its credit back.
func (c *channel) deliverPriority(now des.Time, b *buffer) bool {
	if b.dataType != priorityEventBuffer && !c.s.ckpt.isUnaligned(b.barrierID()) {
		return false
	}
	id, credited := b.barrierID(), b.dataType != priorityEventBuffer
	c.s.freeBuffer(b)
	if credited && !c.part.unbounded {
		c.announce(now, 1)
	}
	if !c.to.down {
		c.to.barriers.priorityBarrierReceived(now, c, id)
	}
	return true
}

// announce sends n credits to the sender (Flink's AddCredit). On a local
// channel they arrive at once: posted (des.Engine.Post: a credit
// announcement is never cancelled). A remote channel's arrive after the
// latency (and a network partition): sendRemoteCredit.
func (c *channel) announce(now des.Time, n int) {
	if n <= 0 {
		return
	}
	if c.remote {
		c.sendRemoteCredit(n)
		return
	}
	c.s.eng.Post((*creditAnnouncement)(c), int64(n))
}

// sendRemoteCredit sends n credits to the sender of remote channel c
// (out of line, so that announce's local path keeps its values in
// registers).
//
//go:noinline
func (c *channel) sendRemoteCredit(n int) {
	now := c.s.eng.Now()
	at := addNs(max(now, c.s.partitionedUntil(c, now)), float64(c.latency))
	c.s.eng.Schedule(at, (*creditAnnouncement)(c), int64(n))
}

// sendPriority sends barrier buffer b ahead of the buffers waiting for
// credit, without credit (an unaligned barrier); it follows only what is
// already on the wire.
func (c *channel) sendPriority(now des.Time, b *buffer) {
	b.dataType = priorityEventBuffer
	at := now
	if c.remote {
		at = addNs(now, float64(c.latency))
	}
	at = max(at, c.lastArrival)
	c.lastArrival = at
	c.inflight.push(b)
	c.s.netBufs++ // on the wire: bufferDelivery counts it out
	c.s.eng.Schedule(at, (*bufferDelivery)(c), 0)
}

// persistUnsent copies the records written to c and not yet sent (its
// current buffer and its backlog) into ck's channel state of the receiver
// and returns their bytes.
func (c *channel) persistUnsent(ck *checkpoint) int64 {
	var n int64
	add := func(b *buffer) {
		if b == nil || !b.isBuffer() {
			return
		}
		ck.persist(ck.chanState, c.to.gid, b.recs...)
		n += b.bytes
	}
	for i := 0; i < c.backlog.len(); i++ {
		add(c.backlog.at(i))
	}
	add(c.cur)
	return n
}

// removeQueued takes the barrier at position i out of the receiver's
// queue and returns the buffer it took as credit.
func (c *channel) removeQueued(now des.Time, i int) {
	b := c.queue.removeAt(i)
	c.gate.union.queuedBufs--
	c.s.freeBuffer(b)
	c.gate.recycle(now, c)
}

// removeBacklogged takes the buffer at position i out of the sender's
// backlog (and out of the network's count).
func (c *channel) removeBacklogged(i int) {
	b := c.backlog.removeAt(i)
	c.s.netRecs, c.s.netBufs = c.s.netRecs-int64(len(b.recs)), c.s.netBufs-1
}

// triggerCheckpoint triggers a checkpoint now (the live view's `c`).
func (s *Sim) triggerCheckpoint() error {
	if err := s.check(Action{Kind: ActionCheckpoint}); err != nil {
		return err
	}
	s.ckpt.trigger(s.eng.Now())
	return nil
}
