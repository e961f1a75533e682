package sim

import (
	"fmt"

	"github.com/dspalab/dspalab/sim/des"
)

// destroyAll cancels every task at now (global failover): the records
// inside the job are destroyed. A destroyed record comes back when its
// source is replayable (the rewound source emits it again) or when the
// checkpoint to restore persisted it as channel state; the others are
// lost. The records a non-replayable source had read and not yet written
// into the job (its buffer and its record in hand) were never emitted:
// they count as dropped by that source, so that emitted records are
// delivered, in flight, uncommitted, lost or to replay. Then a new epoch
// starts: every subtask is down, with fresh channels, until the recovery.
func (s *Sim) destroyAll(now des.Time, restore *checkpoint) (lost, dropped uint64) {
	type key struct {
		id   uint64
		copy uint32
	}
	persisted := map[key]bool{}
	if restore != nil {
		for _, rss := range [2]map[int][]Record{restore.chanState, restore.outState} {
			for _, rs := range rss {
				for _, r := range rs {
					persisted[key{r.ID, r.Copy}] = true
				}
			}
		}
	}
	s.walkInFlight(func(id uint64, copy uint32) {
		if persisted[key{id, copy}] {
			return
		}
		if seq := originSeq(id); seq < len(s.sources) {
			switch src := s.sources[seq]; {
			case src.mode == srcLog && (src.qr == nil || !src.qr.b.autoAck):
				return // read again (a queue redelivers what it had not acknowledged)
			case copy == 0 && originOffset(id) >= src.maxOffset:
				// a socket's record in hand: read, never emitted
				src.dropped++
				dropped++
				return
			}
		}
		lost++
	})
	for _, src := range s.sources {
		if src.mode == srcQueued {
			src.dropped += uint64(src.fifo.len())
			dropped += uint64(src.fifo.len())
			src.next = src.accepted // their offsets are gone with them
		}
	}
	s.lost += lost
	for _, v := range s.vertices {
		if k := v.sink; k != nil && k.written != nil {
			copy(k.skipTo, k.written) // at-most-once: the position it had written
		}
	}
	s.epoch++
	for _, w := range s.workers {
		w.heap, w.oomArmed = 0, false
	}
	for _, t := range s.subtasks {
		t.reset(now)
	}
	s.rewire()
	for _, src := range s.sources {
		if src.mode == srcQueued && src.nextArr != des.Never {
			src.t.at(max(src.nextArr, now), (*socketArrival)(src)) // the socket keeps receiving
		}
	}
	return lost, dropped
}

// walkInFlight calls fn with the id and copy class of every record inside the
// job: restored and not yet processed, in service, waiting to be written,
// in network buffers on either side, and in transactions of
// transactional sinks not yet committed.
func (s *Sim) walkInFlight(fn func(id uint64, copy uint32)) {
	all := func(rs []Record) {
		for i := range rs {
			fn(rs[i].ID, rs[i].Copy)
		}
	}
	buf := func(b *buffer, from int) {
		if b != nil && b.isBuffer() {
			all(b.recs[from:])
		}
	}
	for _, t := range s.subtasks {
		if t.serving() || t.heldCur {
			fn(t.cur.ID, t.cur.Copy)
		}
		all(t.pend[t.pi:])
		if g := t.gate; g != nil {
			all(g.restored[g.restoredNext:])
			if g.cur != nil {
				buf(g.cur, g.cur.next)
			}
			for _, c := range g.chans {
				for i := 0; i < c.hq.len(); i++ {
					r := c.hq.at(i).r
					fn(r.ID, r.Copy)
				}
				for i := 0; i < c.queue.len(); i++ {
					if b := c.queue.at(i); b != g.cur {
						buf(b, 0)
					}
				}
			}
		}
		for _, p := range t.outs {
			for _, c := range p.chans {
				buf(c.cur, 0)
				for i := 0; i < c.backlog.len(); i++ {
					buf(c.backlog.at(i), 0)
				}
				for i := 0; i < c.inflight.len(); i++ {
					buf(c.inflight.at(i), 0)
				}
			}
		}
		for _, x := range t.asSink().transactions() {
			for _, r := range x.recs {
				fn(r.id, r.copy)
			}
		}
	}
}

// reset takes a failed subtask down, dropping everything it held.
func (t *subtask) reset(now des.Time) {
	t.setState(now, stateIdle)
	t.touchN(now)
	t.inSys = 0
	t.setDown(now, true)
	t.settleBP()
	t.recordWriter.reset()
	t.resumeArmed, t.gcBusy, t.heldCur, t.syncBusy = false, false, false, false
	if w := t.asSink(); w != nil {
		w.txns = nil
	}
	if t.barriers != nil {
		t.barriers.reset()
	}
	if src := t.asSource(); src != nil {
		src.pendingBarriers = src.pendingBarriers[:0]
		src.armed, src.fetchng = false, false
		src.fifo, src.fifoEvent, src.fifoKey = ring[des.Time]{}, ring[des.Time]{}, ring[uint32]{}
	}
	if t.keyed != nil {
		t.keyed.extra, t.keyed.extraDelta = 0, 0 // a window operator's windows go with it
		t.keyed.keys.clear()
		if t.keyed.dirty != nil {
			t.keyed.dirty.clear()
		}
	}
}

// rewindSources sets replayable sources back to the offsets of the latest
// completed checkpoint (to their start without one): the position the
// restarted job reads on from.
func (s *Sim) rewindSources() error {
	var ck *checkpoint
	if s.ckpt != nil {
		ck = s.ckpt.latest
	}
	for _, src := range s.sources {
		if src.mode != srcLog {
			continue
		}
		sn := src.initial
		if ck != nil {
			sn = ck.sources[src.seq]
		}
		if err := src.rewind(&sn); err != nil {
			return fmt.Errorf("sim: rewinding source %s[%d]: %w", src.t.v.name, src.t.index, err)
		}
	}
	return nil
}

// restore brings every subtask back at now from the latest completed
// checkpoint (or from the start when there is none): keyed state and
// persisted channel state; the sources were rewound at the failover.
func (s *Sim) restore(now des.Time) {
	var ck *checkpoint
	if s.ckpt != nil {
		ck = s.ckpt.latest
	}
	for _, t := range s.subtasks {
		t.setDown(now, false)
		if t.keyed != nil && ck != nil {
			if keys := ck.keys[t.gid]; keys != nil {
				t.keyed.keys = keys.clone()
				if t.keyed.backend == "heap" {
					s.workers[t.worker].heap += t.keyed.bytes()
				}
			}
		}
		if w, ok := t.proc.(windowed); ok {
			w.restore(now, ck)
		}
		if t.keyed != nil && t.keyed.graph != nil {
			t.keyed.graph.restore(now, ck)
		}
		if ck != nil {
			if t.gate != nil {
				t.gate.restored = append([]Record(nil), ck.chanState[t.gid]...)
			}
			t.pend = append(t.pend[:0], ck.outState[t.gid]...)
		}
	}
	for _, t := range s.subtasks {
		if len(t.pend) > 0 && !t.emit(now) {
			t.setState(now, stateBP)
			continue
		}
		t.proc.run(now)
	}
	if c := s.ckpt; c != nil {
		c.suspended = false
		c.lastTrigger = now
		c.arm(now + c.cfg.Interval)
	}
}
