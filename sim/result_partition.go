package sim

import "github.com/dspalab/dspalab/sim/des"

// partition is the output of one task on one edge: Flink's ResultPartition
// (PipelinedResultPartition) with one subpartition (the sending end of a
// channel) per receiving subtask, and its BufferPool. Records are written
// into the subpartition's current buffer (Flink's BufferBuilder); a full
// buffer is finished and queued for sending, and the output flusher ships
// partly filled ones every buffer_timeout after the first record.
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
	flushArmed bool
	epoch      uint32
	intoDown   bool     // a receiver is down (a lost worker not noticed yet)
	next       *subtask // a chained edge's receiver, called in this thread (operator_chain.go); no chans
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
			if !p.pool.request() {
				return false
			}
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
	c.s.netRecs, c.s.netBufs = c.s.netRecs+int64(len(b.recs)), c.s.netBufs+1
	c.trySend(now)
}
