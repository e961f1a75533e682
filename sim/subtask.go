package sim

import (
	"math"
	"math/rand/v2"

	"github.com/dspalab/dspalab/sim/des"
)

// subtask is one parallel instance of a vertex, placed in slot index of the
// cluster.
type subtask struct {
	s      *Sim
	v      *vertex
	index  int
	worker int
	gid    int // index among all subtasks

	timeAccounting // busy, idle and back-pressured time
	ioMetrics      // records in and out, and the Little's law integrals

	gate *gate
	outs []*partition
	rng  *rand.Rand // service times

	cur        Record
	curArrived des.Time

	// failures: down while failed or restarting; slow multiplies service
	// times (a straggler); restored holds persisted channel state to be
	// processed first after a recovery (unaligned checkpoints)
	down         bool
	slow         float64
	restored     []Record
	restoredNext int
	resumeArmed  bool
	gcBusy       bool // busy only because of a pause
	syncBusy     bool // busy only with a snapshot's synchronous part
	heldCur      bool // down with cur in service (a lost worker)

	keyed *keyedState // keyed state; nil for a stateless vertex

	// transactional sinks: open and pre-committed transactions, and the
	// record slices of committed ones for reuse
	txns    []txn
	txnPool [][]txnRec

	copyBuf Record // copyOf's result

	// pending emission: the records of one input, each written to every
	// output partition; the cursors survive a block
	pend      []Record
	pi, pe    int
	pc        int
	pch       *channel
	blockedOn *partition

	src *source

	barriers *barrierHandler // nil for a source (it has no input gate)
}

// setState accounts the time since the last change to the old state.
func (t *subtask) setState(now des.Time, st int) {
	t.account(now)
	t.state = st
}

// account moves the time since the last change into the interval and
// window accumulators of the current state; back-pressured time is
// charged to the output edge that blocks.
func (t *subtask) account(now des.Time) {
	t.timeAccounting.account(now, t.s.warmup, t.blockedOn, t.pe)
}

// arrive counts n records entering the subtask's input queue.
func (t *subtask) arrive(now des.Time, n int) { t.ioMetrics.arrive(now, t.s.warmup, n) }

// touchN integrates the number of records inside the subtask over the
// window up to now.
func (t *subtask) touchN(now des.Time) { t.ioMetrics.touchN(now, t.s.warmup) }

// serving reports whether t has a record in service (t.cur): busy, and
// not only because of a pause or a snapshot.
func (t *subtask) serving() bool {
	return t.state == stateBusy && !t.gcBusy && !t.syncBusy && t.src == nil
}

// paused reports whether t's worker is in a garbage-collection pause; if
// so, t is busy (stuck) until it ends and resumes then.
func (t *subtask) paused(now des.Time) bool {
	p := t.s.workers[t.worker].pausedUntil
	if p <= now {
		return false
	}
	if !t.resumeArmed {
		t.resumeArmed = true
		t.at(p, (*pauseEnded)(t))
	}
	if t.state == stateIdle {
		t.gcBusy = true
		t.setState(now, stateBusy)
	}
	return true
}

// pull takes records while the subtask is idle: first the channel state
// restored by a recovery, then the input gate.
func (t *subtask) pull(now des.Time) {
	if t.down || (t.s.pauses && t.paused(now)) {
		return
	}
	for t.state == stateIdle {
		if t.restoredNext < len(t.restored) {
			t.cur, t.curArrived = t.restored[t.restoredNext], now
			t.restoredNext++
			if t.restoredNext == len(t.restored) {
				t.restored, t.restoredNext = nil, 0
			}
			t.arrive(now, 1)
		} else if !t.gate.next(now, &t.cur, &t.curArrived) {
			return
		}
		t.recordIn(now, t.s.warmup)
		d := t.v.svc.sample(t.rng)
		if t.keyed != nil {
			d += t.keyed.access(now, t.s.workers[t.worker], t.cur.Key)
		}
		if t.slow > 1 {
			d = des.Time(float64(d)*t.slow + 0.5)
		}
		if d > 0 {
			t.setState(now, stateBusy)
			t.after(d, (*serviceDone)(t))
			return
		}
		t.complete(now)
	}
}

// complete ends the service of the current record: it leaves the subtask
// and its outputs are written downstream.
func (t *subtask) complete(now des.Time) {
	t.depart(now, t.s.warmup, t.curArrived)
	if len(t.outs) == 0 {
		t.s.delivered++
		t.write(now, &t.cur)
		t.setState(now, stateIdle)
		return
	}
	t.v.observeLatency(now - t.cur.Ingest)
	n := 1
	if t.v.selectivity != 1 {
		n = outputs(t.cur.ID^uint64(t.cur.Copy)<<40, t.v.salt, t.v.selectivity)
	}
	for i := 0; i < n; i++ {
		r := t.cur
		if i > 0 {
			r.Copy = copyClass(t.cur.Copy, t.v.salt+uint64(i))
		}
		t.pend = append(t.pend, r)
	}
	if !t.emit(now) {
		t.setState(now, stateBP)
		return
	}
	t.setState(now, stateIdle)
}

// emit writes the pending records to every output partition. It reports
// false when a partition has no buffer: the cursors keep the place, and
// unblock resumes there.
func (t *subtask) emit(now des.Time) bool {
	for t.pi < len(t.pend) {
		r := &t.pend[t.pi]
		for t.pe < len(t.outs) {
			p := t.outs[t.pe]
			if p.edge.part == partBroadcast {
				for t.pc < len(p.chans) {
					w := r
					if t.pe|t.pc != 0 {
						w = t.copyOf(r)
					}
					if !p.write(now, p.chans[t.pc], w) {
						t.blockedOn = p
						return false
					}
					t.pc++
				}
				t.pc = 0
			} else {
				if t.pch == nil {
					t.pch = p.choose(r)
				}
				w := r
				if t.pe != 0 {
					w = t.copyOf(r)
				}
				if !p.write(now, t.pch, w) {
					t.blockedOn = p
					return false
				}
				t.pch = nil
			}
			t.pe++
		}
		t.pe = 0
		t.pi++
		t.recordOut(now, t.s.warmup)
	}
	t.pend = t.pend[:0]
	t.pi = 0
	t.blockedOn = nil
	return true
}

// copyOf returns r as written to the current output edge and channel of
// emit's cursors (not the first of both): a fan-out's or broadcast's
// copies get a copy class of their own.
func (t *subtask) copyOf(r *Record) *Record {
	t.copyBuf = *r
	salt := 1<<62 | uint64(t.pe)<<32 | uint64(t.pc)
	t.copyBuf.Copy = copyClass(r.Copy, salt^t.v.salt)
	return &t.copyBuf
}

// unblock resumes a subtask back-pressured on p now that p has a buffer.
func (t *subtask) unblock(now des.Time, p *partition) {
	if t.state != stateBP || t.blockedOn != p {
		return
	}
	t.account(now) // charge the wait to the edge that blocked, before emit moves on
	if !t.emit(now) {
		return
	}
	if t.src != nil {
		t.src.unblocked(now)
		return
	}
	t.setState(now, stateIdle)
	t.pull(now)
}

// choose picks the channel of a non-broadcast record.
func (p *partition) choose(r *Record) *channel {
	switch p.edge.part {
	case partHash:
		kg := keyGroup(r.Key, p.edge.maxParallelism)
		return p.chans[kg*len(p.chans)/p.edge.maxParallelism]
	case partForward:
		return p.chans[0]
	default: // rebalance, rescale: round-robin over this partition's channels
		c := p.chans[p.rr]
		p.rr++
		if p.rr == len(p.chans) {
			p.rr = 0
		}
		return c
	}
}

// keyGroup is Flink's KeyGroupRangeAssignment.assignToKeyGroup for an
// integer key: murmurHash(key.hashCode()) % maxParallelism.
func keyGroup(key uint32, maxParallelism int) int {
	return int(murmurHash(int32(key)) % int32(maxParallelism))
}

// murmurHash is Flink's MathUtils.murmurHash(int).
func murmurHash(code int32) int32 {
	c := uint32(code)
	c *= 0xcc9e2d51
	c = c<<15 | c>>17
	c *= 0x1b873593
	c = c<<13 | c>>19
	c = c*5 + 0xe6546b64
	c ^= 4
	c ^= c >> 16
	c *= 0x85ebca6b
	c ^= c >> 13
	c *= 0xc2b2ae35
	c ^= c >> 16
	v := int32(c)
	switch {
	case v >= 0:
		return v
	case v != math.MinInt32:
		return -v
	default:
		return 0
	}
}
