package sim

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/dspalab/dspalab/sim/des"
)

// destroyAll cancels every task at now (global failover): the records
// inside the job are destroyed. A destroyed record comes back when its
// source is replayable (the rewound source emits it again) or when the
// checkpoint to restore persisted it as channel state; the others are
// lost, and so are the records a non-replayable source held. Then a new
// epoch starts: every subtask is down, with fresh channels, until the
// recovery.
func (s *Sim) destroyAll(now des.Time, restore *checkpoint, _ bool) (lost uint64) {
	persisted := map[uint64]bool{}
	if restore != nil {
		for _, rs := range restore.chanState {
			for _, r := range rs {
				persisted[r.ID] = true
			}
		}
		for _, rs := range restore.outState {
			for _, r := range rs {
				persisted[r.ID] = true
			}
		}
	}
	gone := func(id, origin uint64) {
		if persisted[id] {
			return
		}
		if seq := originSeq(origin); seq < len(s.sources) && s.sources[seq].mode == srcLog {
			return
		}
		lost++
	}
	goneAll := func(rs []Record) {
		for i := range rs {
			gone(rs[i].ID, rs[i].Origin)
		}
	}
	goneBuf := func(b *buffer, from int) {
		if b != nil && b.barrier == 0 {
			goneAll(b.recs[from:])
		}
	}
	for _, t := range s.subtasks {
		goneAll(t.restored[t.restoredNext:])
		if t.state == stateBusy && !t.gcBusy && t.src == nil {
			gone(t.cur.ID, t.cur.Origin)
		}
		goneAll(t.pend[t.pi:])
		if g := t.gate; g != nil {
			if g.cur != nil {
				goneBuf(g.cur, g.cur.next)
			}
			for _, c := range g.chans {
				for i := 0; i < c.queue.len(); i++ {
					if b := c.queue.at(i); b != g.cur {
						goneBuf(b, 0)
					}
				}
			}
		}
		for _, p := range t.outs {
			for _, c := range p.chans {
				goneBuf(c.cur, 0)
				for i := 0; i < c.backlog.len(); i++ {
					goneBuf(c.backlog.at(i), 0)
				}
				for i := 0; i < c.inflight.len(); i++ {
					goneBuf(c.inflight.at(i), 0)
				}
			}
		}
		for _, x := range t.txns {
			for _, r := range x.recs {
				gone(r.id, r.origin)
			}
		}
		if src := t.src; src != nil && src.mode == srcQueued {
			lost += uint64(src.fifo.len())
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
			src.t.at(max(src.nextArr, now), evArrive) // the socket keeps receiving
		}
	}
	return lost
}

// reset takes a failed subtask down, dropping everything it held.
func (t *subtask) reset(now des.Time) {
	t.setState(now, stateIdle)
	t.touchN(now)
	t.inSys = 0
	t.down = true
	t.pend = t.pend[:0]
	t.pi, t.pe, t.pc, t.pch, t.blockedOn = 0, 0, 0, nil, nil
	t.restored, t.restoredNext = nil, 0
	t.resumeArmed, t.gcBusy = false, false
	t.txns = nil
	t.pendingBarriers = t.pendingBarriers[:0]
	t.aligning, t.barriersSeen, t.persisted = 0, 0, 0
	if src := t.src; src != nil {
		src.armed, src.fetchng = false, false
		src.fifo, src.fifoEvent, src.fifoKey = ring[des.Time]{}, ring[des.Time]{}, ring[uint32]{}
	}
	if t.keyed != nil {
		t.keyed.keys = roaring.New()
		if t.keyed.dirty != nil {
			t.keyed.dirty.Clear()
		}
	}
}

// restore brings every subtask back at now from the latest completed
// checkpoint (or from the start when there is none): keyed state, source
// offsets, persisted channel state.
func (s *Sim) restore(now des.Time) error {
	var ck *checkpoint
	if s.ckpt != nil {
		ck = s.ckpt.latest
	}
	for _, t := range s.subtasks {
		t.down = false
		if t.keyed != nil && ck != nil {
			if keys := ck.keys[t.gid]; keys != nil {
				t.keyed.keys = keys.Clone()
				if t.keyed.backend == "heap" {
					s.workers[t.worker].heap += t.keyed.bytes()
				}
			}
		}
		if ck != nil {
			t.restored = append([]Record(nil), ck.chanState[t.gid]...)
			t.pend = append(t.pend[:0], ck.outState[t.gid]...)
		}
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
	for _, t := range s.subtasks {
		if len(t.pend) > 0 && !t.emit(now) {
			t.setState(now, stateBP)
			continue
		}
		if t.src != nil {
			t.src.advance(now)
		} else {
			t.pull(now)
		}
	}
	if c := s.ckpt; c != nil {
		c.suspended = false
		c.lastTrigger = now
		c.arm(now + c.cfg.Interval)
	}
	return nil
}
