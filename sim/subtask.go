package sim

import (
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

	timeAccounting                 // busy, idle and back-pressured time
	gate           *unionInputGate // nil for a source
	inHand                         // the record in service and its service times
	execution                      // failed, slowed down, paused or blocked by a snapshot
	keyed          *keyedState     // keyed state; nil for a stateless vertex
	proc           processor       // source reader, operator function or sink writer
	recordWriter                   // the outputs
	ioMetrics                      // records in and out, and the Little's law integrals
	barriers       *barrierHandler // nil for a source (it has no input gate)

	chain chainLink       // its place in an operator chain
	wm    *taskWatermarks // event-time progress (watermark.go); nil while no watermark has come
}

// inHand is the record a task serves, one at a time as Flink's StreamTask
// takes one record from its input per step of its mailbox loop, and the
// stream its service times are drawn from.
type inHand struct {
	rng        *des.Rand // service times, a stream per subtask
	cur        Record    // the record in service
	curArrived des.Time  // when it entered the subtask's input queue
}

// setState accounts the time since the last change to the old state. A
// "change" to the state t is in accounts nothing: the stretch in it goes
// on, and the next change accounts it whole (the sums per state and the
// window's split are the same either way); whatever reads the
// accumulators accounts up to its time first (takeSample every subtask,
// unblock and a lost worker's senders before settleBP).
func (t *subtask) setState(now des.Time, st int) {
	if st != t.state {
		t.account(now)
		t.state = st
	}
}

// account moves the time since the last change into the interval and
// window accumulators of the current state; back-pressured time is
// charged to the output edge that blocks.
func (t *subtask) account(now des.Time) { t.timeAccounting.account(now) }

// settleBP charges the back-pressured time so far to the output edge the
// writer is blocked on.
func (t *subtask) settleBP() { t.timeAccounting.settleBP(t.blockedOn, t.pe) }

// arrive counts n records entering the subtask's input queue.
func (t *subtask) arrive(now des.Time, n int) { t.ioMetrics.arrive(now, t.s.warmup, n) }

// touchN integrates the number of records inside the subtask over the
// window up to now.
func (t *subtask) touchN(now des.Time) { t.ioMetrics.touchN(now, t.s.warmup) }

// serving reports whether t has a record in service (t.cur): busy, and
// not only because of a pause or a snapshot.
func (t *subtask) serving() bool {
	return t.state == stateBusy && !t.gcBusy && !t.syncBusy && t.gate != nil // a source has no record in service
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
	t.take(now)
}

// take is pull once no pause holds t: it serves records while t is idle
// and the gate has one to read (readable spares next's call when it has
// none), then goes on down its chain.
func (t *subtask) take(now des.Time) {
	g := t.gate
	for t.state == stateIdle && g.readable() && g.next(now, &t.cur, &t.curArrived) {
		t.serve(now)
	}
	t.chainDone(now)
}

// serve starts the service of the record in hand (t.cur): busy for its
// service time, or done at once.
func (t *subtask) serve(now des.Time) {
	if t.v.shed != nil && t.shedsInput(now) {
		return // shed in front of the operator (shed.go): on to the next record
	}
	t.recordIn(now, t.s.warmup)
	var d des.Time
	switch svc := &t.v.svc; svc.kind { // the common kinds without sample's call
	case distExponential:
		d = svc.exponential(t.rng)
	case distConstant:
		d = svc.mean
	default:
		d = svc.sample(t.rng)
	}
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
	t.proc.complete(now)
}

// served ends the service of the record in hand: it leaves the task (the
// processor's complete writes its outputs next).
func (t *subtask) served(now des.Time) { t.depart(now, t.s.warmup, t.curArrived) }

// resume makes a task that is done with its record idle and lets it take
// the next.
func (t *subtask) resume(now des.Time) {
	t.setState(now, stateIdle)
	t.pull(now)
}

// unblock resumes a subtask back-pressured on p now that p has a buffer.
func (t *subtask) unblock(now des.Time, p *partition) {
	if !t.held() || t.blockedOn != p {
		return
	}
	t.account(now)
	t.settleBP() // charge the wait to the edge that blocked, before emit moves on
	if !t.emit(now) {
		return
	}
	t.flushWatermarks(now) // the watermarks that waited behind what was written
	t.proc.written(now)
}

// asSource returns the task's source reader, or nil when it is not a
// source.
func (t *subtask) asSource() *source {
	src, _ := t.proc.(*source)
	return src
}

// asSink returns the task's sink writer, or nil when it is not a sink.
func (t *subtask) asSink() *sinkWriter {
	w, _ := t.proc.(*sinkWriter)
	return w
}
