package sim

import "github.com/dspalab/dspalab/sim/des"

// recordWriter writes a task's output records to its result partitions,
// as Flink's RecordWriter with its ChannelSelector (Flink has one writer
// per output edge; here one writer goes over all of them): each record
// goes to every output edge, to the channel the edge's partitioning
// chooses (to every channel for broadcast). Its cursors keep the place
// where a write found no buffer, and the write resumes there when one is
// free.
type recordWriter struct {
	outs []*partition // one per output edge
	// pending: the records of one input, each written to every output
	// partition; the cursors (record, edge, broadcast channel, chosen
	// channel) survive a block
	pend      []Record
	pi, pe    int
	pc        int
	pch       *channel
	sent      bool       // the record at pi went to an output already (the others get copies)
	blockedOn *partition // the partition with no buffer, while blocked
	salt      uint64     // the vertex's hash salt (copy classes)
	copyBuf   Record     // copyOf's result
}

// emit writes the pending records to every output partition. It reports
// false when a partition has no buffer: the cursors keep the place, and
// unblock resumes there.
func (t *subtask) emit(now des.Time) bool { return t.writePending(now) }

// emitOne writes r, the one output of the record in hand, as emit writes
// it pending: when the writer holds nothing and r goes to one edge (a
// network edge's channel, or a chained operator), straight from r (not
// through the pending records); only when no buffer takes it, or the
// chained operator holds it, does it become pending, with the cursors
// where writePending would leave them. It reports false then.
func (t *subtask) emitOne(now des.Time, r *Record) bool {
	w := &t.recordWriter
	if len(w.pend) == 0 && len(w.outs) == 1 && !r.late {
		// an empty writer's cursors are at the start, blockedOn is nil
		p := w.outs[0]
		if p.path != pathGeneral {
			c := p.channelFor(r)
			if c == nil {
				c = p.choose(r)
			}
			if c.hops() {
				c.hop1(now, r)
				t.ioMetrics.recordOut(now, t.s.warmup)
				return true
			}
			if p.writeBuffered(now, c, r) {
				t.ioMetrics.recordOut(now, t.s.warmup)
				return true
			}
			*t.pending() = *r
			w.pch, w.blockedOn = c, p
			return false
		}
		if p.next != nil && !p.edge.late { // a chained operator, served in this thread
			if p.next.accept(now, r) {
				t.ioMetrics.recordOut(now, t.s.warmup)
				return true
			}
			*t.pending() = *r
			w.pe, w.sent, w.blockedOn = 1, true, p // as writePending leaves them while p.next serves r
			return false
		}
	}
	*t.pending() = *r
	return t.emit(now)
}

// writePending writes the pending records of t's writer, counting each
// one written to every output in t's ioMetrics. It reports false when a
// partition has no buffer. (A method of the task, not of its writer: two
// arguments to keep across its calls, not four.)
func (t *subtask) writePending(now des.Time) bool {
	w := &t.recordWriter
	if len(w.pend) == 1 && len(w.outs) == 1 && w.pe == 0 {
		// one record to one output, a network one (resuming a block on
		// its chosen channel, pch) or a chained one: what the loop below
		// does, without its cursors
		r, p := &w.pend[0], w.outs[0]
		if !r.late && p.path != pathGeneral {
			c := w.pch
			if c != nil {
				w.pch = nil
			} else if c = p.channelFor(r); c == nil {
				c = p.choose(r)
			}
			if c.hops() {
				c.hop1(now, r)
			} else if !p.writeBuffered(now, c, r) {
				w.pch, w.blockedOn = c, p
				return false
			}
			t.ioMetrics.recordOut(now, t.s.warmup)
			w.pend = w.pend[:0]
			w.blockedOn = nil
			return true
		}
		if p.next != nil && !r.late && !p.edge.late {
			w.pe, w.sent = 1, true // as the loop leaves them while p.next serves r
			if !p.next.accept(now, r) {
				w.blockedOn = p
				return false
			}
			w.pe, w.sent = 0, false
			t.ioMetrics.recordOut(now, t.s.warmup)
			w.pend = w.pend[:0]
			w.blockedOn = nil
			return true
		}
	}
	for w.pi < len(w.pend) {
		r := &w.pend[w.pi]
		for w.pe < len(w.outs) {
			p := w.outs[w.pe]
			if p.edge.late != r.late { // a late record goes to the late side output only, the others to the main output
				w.pe++
				continue
			}
			if p.next != nil { // a chained operator, served in this thread
				x := r
				if w.sent {
					x = w.copyOf(r)
				}
				w.pe++
				w.sent = true
				if !p.next.accept(now, x) {
					w.blockedOn = p
					return false
				}
				continue
			}
			if p.edge.part == partBroadcast {
				for w.pc < len(p.chans) {
					x := w.written(r, w.sent || w.pc != 0)
					if !p.write(now, p.chans[w.pc], x) {
						w.blockedOn = p
						return false
					}
					w.pc++
				}
				w.pc = 0
			} else {
				if w.pch == nil {
					w.pch = p.choose(r)
				}
				x := w.written(r, w.sent)
				if !p.write(now, w.pch, x) {
					w.blockedOn = p
					return false
				}
				w.pch = nil
			}
			w.pe++
			w.sent = true
		}
		w.pe = 0
		w.sent = false
		w.pi++
		t.ioMetrics.recordOut(now, t.s.warmup)
	}
	w.pend = w.pend[:0]
	w.pi = 0
	w.blockedOn = nil
	return true
}

// written returns r as written to the current channel: a copy of its
// own if copy (see copyOf), and without the late mark (a late record
// leaves on its side output as a record like any other).
func (w *recordWriter) written(r *Record, cp bool) *Record {
	if cp {
		return w.copyOf(r)
	}
	if r.late {
		w.copyBuf = *r
		w.copyBuf.late = false
		return &w.copyBuf
	}
	return r
}

// copyOf returns r as written to the current output edge and channel of
// the cursors (not the first of both): a fan-out's or broadcast's copies
// get a copy class of their own.
func (w *recordWriter) copyOf(r *Record) *Record {
	w.copyBuf = *r
	salt := 1<<62 | uint64(w.pe)<<32 | uint64(w.pc)
	w.copyBuf.Copy = copyClass(r.Copy, salt^w.salt)
	w.copyBuf.late = false
	return &w.copyBuf
}

// reset drops what the writer held (a failover).
func (w *recordWriter) reset() {
	w.pend = w.pend[:0]
	w.pi, w.pe, w.pc, w.pch, w.blockedOn, w.sent = 0, 0, 0, nil, nil, false
}

// forwardBarrier writes barrier id into every output channel. An aligned
// barrier goes after the records already written (the partly filled buffer is
// finished first, addEvent) and needs credit like a buffer. An unaligned one
// overtakes the buffers waiting for credit, which are persisted with the
// snapshot (their bytes are returned); it follows only the bytes already
// on the wire.
func (t *subtask) forwardBarrier(now des.Time, id int64, ck *checkpoint) int64 {
	unaligned := ck.unaligned
	var persisted int64
	if unaligned && t.state == stateBP && t.gate != nil { // not a source's record in hand
		// outputs of a record already processed, not written yet
		for _, r := range t.pend[t.pi:] {
			persisted += t.s.sizeOf(&r)
		}
		ck.outState[t.gid] = nil // a fresh copy of the records in hand
		ck.persist(ck.outState, t.gid, t.pend[t.pi:]...)
	}
	for _, p := range t.outs {
		if p.next != nil {
			p.next.chainedBarrier(now, id, ck)
			continue
		}
		for _, c := range p.chans {
			if ck.cuts != nil {
				ck.cut(c).Sent = c.sent
			}
			if !unaligned {
				b := t.s.newBuffer()
				b.setBarrier(id)
				p.addEvent(now, c, b)
				continue
			}
			persisted += c.persistUnsent(ck)
			b := t.s.newBuffer()
			b.setBarrier(id)
			c.sendPriority(now, b)
		}
	}
	return persisted
}
