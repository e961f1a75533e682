package sim

import (
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
)

// partition is the output of one task on one edge: Flink's ResultPartition
// (PipelinedResultPartition) with one subpartition (the sending end of a
// channel) per receiving subtask, and its BufferPool. Records are written
// into the subpartition's current buffer (Flink's BufferBuilder); a full
// buffer is finished and queued for sending. The partition's output
// flusher, a free-running timer (see flushTick), flushes every
// buffer_timeout: a flush makes what was written available to the network
// without closing the buffer (see flush).
type partition struct {
	s          *Sim
	owner      *subtask
	edge       *edge
	chans      []*channel
	unbounded  bool
	pool       bufferPool // channels × buffers_per_channel + floating_buffers buffers
	bufSize    int64
	bufTimeout des.Time
	rr         int
	flushArmed bool     // the flusher's next tick is scheduled
	flushPhase des.Time // the flusher ticks at flushPhase + k·bufTimeout
	epoch      uint32
	intoDown   bool       // a receiver is down (a lost worker not noticed yet)
	next       *subtask   // a chained edge's receiver, called in this thread (operator_chain.go); no chans
	path       writePath  // how the record writer writes to it, decided when it is built (writePathOf)
	one        *channel   // the one channel of a partition of path pathOne (channelFor)
	keyChans   []*channel // a hash edge's: the channel of each key of its table (channelFor)
}

// startFlusher starts p's output flusher now, as Flink's RecordWriter
// starts its OutputFlusher thread when the task creates it
// (RecordWriter.OutputFlusher, flink-runtime io/network/api/writer: a
// loop of Thread.sleep(timeout) and flushAll(), one per RecordWriter, that
// is per output edge). The thread runs free of the records: its ticks
// fall every buffer_timeout whatever was written, so a record written at
// a random instant waits buffer_timeout/2 for the next tick on average.
// Tasks are deployed and started at unrelated instants, so each
// partition's first tick is drawn uniformly within one buffer_timeout
// from a stream of its own (named after its task and edge); a failover's
// new partition starts a new flusher.
func (p *partition) startFlusher(now des.Time, seed uint64) {
	if p.bufTimeout <= 0 {
		return // flushed after every record (buffer_timeout: 0)
	}
	t := p.owner
	rng := des.StreamPCG(seed, "flusher/"+t.v.name+"/"+strconv.Itoa(t.index)+"/"+p.edge.to.name)
	u := float64(rng.Uint64()>>11) / (1 << 53) // uniform in [0, 1)
	p.flushPhase = now + des.Time(u*float64(p.bufTimeout))
}

// flushTick returns the flusher's first tick after now. The simulator
// schedules only the ticks that find something to flush (a tick with
// nothing written does nothing in Flink either), so an idle partition
// costs no events: writing into an idle partition schedules its next tick.
func (p *partition) flushTick(now des.Time) des.Time {
	if now < p.flushPhase {
		return p.flushPhase
	}
	return p.flushPhase + ((now-p.flushPhase)/p.bufTimeout+1)*p.bufTimeout
}

// HandleEvent is a tick of the output flusher: it flushes the partition.
func (p *partition) HandleEvent(now des.Time, _ int64) {
	if p.epoch != p.s.epoch {
		return // replaced by a failover
	}
	p.flushArmed = false
	p.flushAll(now)
}

// flushAll flushes every channel of the partition (Flink's
// ResultPartition.flushAll).
func (p *partition) flushAll(now des.Time) {
	for _, c := range p.chans {
		if c.cur != nil && len(c.cur.recs) > 0 {
			p.flush(now, c)
		}
	}
}

// flush makes the records written to c's current buffer available to the
// network, as Flink's PipelinedSubpartition.flush: it requests a flush
// (flushRequested), and the network takes the written part of the buffer
// as a slice when it has credit for it (pollBuffer builds a read-only
// slice of the BufferBuilder's memory segment, BufferConsumer.build). The
// buffer stays open: the writer goes on filling the same segment, so with
// no credit the records keep filling it until it is full, and a
// back-pressured channel holds full buffers.
func (p *partition) flush(now des.Time, c *channel) {
	if p.unbounded {
		if !c.remote && c.drained() {
			// nothing can flow back on an unbounded local channel: hand
			// the records over at once instead of through the event queue
			c.deliver(now, c.takeSlice())
			return
		}
	} else if c.credit <= 0 {
		// no credit: trySend would ship nothing; the next credit
		// announcement ships the slice
		c.flushRequested = true
		return
	}
	c.flushRequested = true
	c.trySend(now)
}

// write appends r to c's current buffer, taking a buffer from the pool if
// needed. It reports false, writing nothing, when the pool is empty: the
// writer is back-pressured.
func (p *partition) write(now des.Time, c *channel, r *Record) bool {
	if c.hops() {
		c.hop1(now, r)
		return true
	}
	return p.writeBuffered(now, c, r)
}

// hops reports whether a record written to c now hops (hop1): nothing
// written before it is in c's open buffer, or waits (see drained), or is being
// spilled.
func (c *channel) hops() bool {
	return c.hop && c.cur == nil && c.drained() && c.spill == 0
}

// drained reports whether nothing sent on c waits for its receiver: no
// finished buffer in the backlog, nothing on the wire. What is written to
// c can then be handed to the receiver at once (hop1, and flush and
// finish on an unbounded local channel) without overtaking anything. On
// a local channel, the wire holds what was shipped at this instant and
// not delivered yet: above all a barrier just forwarded (addEvent ships
// it through the event queue), which records written after it must not
// pass.
func (c *channel) drained() bool {
	return c.backlog.len() == 0 && c.inflight.len() == 0
}

// hop1 is a one-record hop on an unbounded local channel: the buffer
// would be flushed and delivered at once (flush), so the record goes
// straight to the receiver (receive): without a buffer when the receiver
// is idle and takes it at once, else queued in a buffer of its own.
func (c *channel) hop1(now des.Time, r *Record) {
	c.sent++
	c.gate.union.receive(now, c, r)
}

// writeBuffered is write when r does not hop: into c's current buffer.
// The record writer's one-record path calls hops, hop1 and writeBuffered
// itself, a call less.
func (p *partition) writeBuffered(now des.Time, c *channel, r *Record) bool {
	// the common case first, on a path with no call (so nothing is
	// spilled for the calls of the general one below): r fits into the
	// open buffer, which has room for a record more after it, and the
	// flusher is armed, so nothing but the append happens (as Flink's
	// BufferWritingResultPartition.emitRecord appends to the
	// subpartition's current BufferBuilder); the general path does the
	// same for this case, after its checks. The flusher is armed only
	// with a buffer_timeout (not 0), and tested first: with
	// buffer_timeout: 0 it never is.
	if b := c.cur; p.flushArmed && b != nil && !p.s.halted {
		size := p.s.sizeOf(r)
		fill := c.curFill + size
		if n := len(b.recs); fill+size <= p.bufSize && n < cap(b.recs) {
			b.recs = b.recs[:n+1]
			b.recs[n] = *r
			b.bytes += size
			c.curFill = fill
			c.sent++
			return true
		}
	}
	b := c.cur
	size := p.s.sizeOf(r)
	if b != nil && c.curFill > 0 && c.curFill+size > p.bufSize {
		p.finish(now, c)
		b = nil
	}
	if b == nil {
		if !p.unbounded {
			if !p.pool.request() {
				return false
			}
		}
		b = p.s.newBuffer()
		c.cur, c.curFill = b, 0
	}
	if n := len(b.recs); n < cap(b.recs) {
		b.recs = b.recs[:n+1]
		b.recs[n] = *r // straight into the buffer, not through a copy as append makes
	} else {
		b.recs = append(b.recs, *r)
	}
	b.bytes += size
	c.curFill += size
	c.sent++
	switch {
	case c.curFill+size > p.bufSize:
		p.finish(now, c) // full: the next record would not fit
	case p.bufTimeout == 0 || p.s.halted: // a stop-the-world checkpoint drains the job at once
		if !p.unbounded && c.credit > 0 && c.backlog.len() == 0 && !c.from.down {
			// credit for the slice and no finished buffer before it:
			// what flush and trySend do, without their calls and loop
			b = c.takeSlice() // b, the open buffer, is the slice
			c.curSlices, c.lastSlice = c.curSlices+1, b
			c.ship(now, b, false)
		} else {
			p.flush(now, c)
		}
	case !p.flushArmed:
		p.flushArmed = true
		p.s.eng.Schedule(p.flushTick(now), p, 0)
	}
	return true
}

// finish closes c's current buffer (Flink's BufferBuilder.finish) and
// queues what was written to it since its last slice for sending. When
// every record went out in slices, nothing is queued: the segment returns
// to the pool with the last slice (at once when that one has arrived).
func (p *partition) finish(now des.Time, c *channel) {
	b := c.cur
	c.cur, c.curFill = nil, 0
	if len(b.recs) == 0 {
		p.s.freeBuffer(b)
		if !p.unbounded && c.segmentSliced() {
			p.pool.recycle()
			c.from.unblock(now, p)
		}
		return
	}
	c.oldSlices, c.curSlices, c.lastSlice = c.oldSlices+c.curSlices, 0, nil
	if p.unbounded && !c.remote && c.drained() {
		// nothing can flow back on an unbounded local channel: hand the
		// buffer over at once instead of through the backlog and the event
		// queue
		c.deliver(now, b)
		return
	}
	c.backlog.push(b)
	c.s.netRecs, c.s.netBufs = c.s.netRecs+int64(len(b.recs)), c.s.netBufs+1
	c.trySend(now)
}

// addEvent queues event buffer b on c behind the records written so far,
// as Flink's BufferWritingResultPartition.broadcastEvent: the current
// BufferBuilder is finished first (finishUnicastBufferBuilder), then the
// event is added to the subpartition. It needs credit like a buffer but
// takes none of the pool. Checkpoint barriers (aligned) and watermarks go
// this way.
func (p *partition) addEvent(now des.Time, c *channel, b *buffer) {
	if c.cur != nil {
		p.finish(now, c)
	}
	c.backlog.push(b)
	c.s.netBufs++ // trySend counts it out of the backlog
	c.trySend(now)
}
