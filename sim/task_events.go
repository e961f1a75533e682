package sim

import "github.com/dspalab/dspalab/sim/des"

// Events of a task's parts. Each kind is a type of its own whose
// HandleEvent knows what it does: the part converts a pointer to itself
// into the event type ((*serviceDone)(t) and the like), so scheduling
// allocates nothing and no kind is packed into the event's argument. The
// argument of a task event is the job's epoch when it was scheduled: a
// failover starts a new epoch, and the part ignores the events of an
// older one.
//
// Flink runs a task's work as mails in its mailbox (MailboxProcessor);
// here each mail is an event of the engine.

// serviceDone ends the service of the record in hand (an operator's or a
// sink's).
type serviceDone subtask

// snapshotSynced ends the synchronous part of a snapshot, which blocked
// the task.
type snapshotSynced subtask

// pauseEnded ends a pause of the worker (garbage collection).
type pauseEnded subtask

// recordDue makes a source's next record available to read.
type recordDue source

// recordFetched ends a source's read of its next record (max_rate).
type recordFetched source

// socketArrival brings a record to a source that buffers or drops.
type socketArrival source

// at schedules event h of t at time when, in the current epoch.
func (t *subtask) at(when des.Time, h des.Handler) {
	t.s.eng.Schedule(when, h, int64(t.s.epoch))
}

// after schedules event h of t after d, in the current epoch.
func (t *subtask) after(d des.Time, h des.Handler) {
	t.s.eng.After(d, h, int64(t.s.epoch))
}

// runs reports whether t handles event h, scheduled in epoch, now: not
// when the epoch is old or t is down; when the worker is paused (garbage
// collection), h is scheduled again for the end of the pause. It stays
// small enough to be inlined: the pause is looked at out of line.
func (t *subtask) runs(now des.Time, epoch int64, h des.Handler) bool {
	return uint32(epoch) == t.s.epoch && !t.down && !(t.s.pauses && t.deferred(now, h))
}

// deferred schedules h again for the end of a pause of t's worker, if
// one is going on, and reports whether it did.
//
//go:noinline
func (t *subtask) deferred(now des.Time, h des.Handler) bool {
	if p := t.s.workers[t.worker].pausedUntil; p > now {
		t.at(p, h)
		return true
	}
	return false
}

// HandleEvent ends the service of the record in hand and takes the next.
// It pulls without pull's look at a pause: runs ruled one out, and only
// the worker's own event starts one. A failover during complete (a
// checkpoint that fails) can take t down, so that is looked at again.
func (e *serviceDone) HandleEvent(now des.Time, epoch int64) {
	t := (*subtask)(e)
	if t.runs(now, epoch, e) {
		t.proc.complete(now)
		if !t.down {
			t.take(now)
		}
	}
}

// HandleEvent ends the synchronous part of a snapshot: the task goes on.
func (e *snapshotSynced) HandleEvent(now des.Time, epoch int64) {
	t := (*subtask)(e)
	if t.runs(now, epoch, e) {
		t.syncBusy = false
		t.setState(now, stateIdle)
		t.pull(now)
	}
}

// HandleEvent resumes the task after a pause of its worker.
func (e *pauseEnded) HandleEvent(now des.Time, epoch int64) {
	t := (*subtask)(e)
	if uint32(epoch) != t.s.epoch || t.down {
		return
	}
	t.resumeArmed = false
	if t.gcBusy {
		t.gcBusy = false
		t.setState(now, stateIdle) // the pause is over
	}
	t.proc.run(now)
}

// HandleEvent makes the source's next record available.
func (e *recordDue) HandleEvent(now des.Time, epoch int64) {
	src := (*source)(e)
	if src.t.runs(now, epoch, e) {
		src.ready(now)
	}
}

// HandleEvent writes the record the source has read.
func (e *recordFetched) HandleEvent(now des.Time, epoch int64) {
	src := (*source)(e)
	if src.t.runs(now, epoch, e) {
		src.fetched(now)
	}
}

// HandleEvent takes an arrival into the source's socket buffer (or drops
// it); a failed source keeps dropping what arrives.
func (e *socketArrival) HandleEvent(now des.Time, epoch int64) {
	src := (*source)(e)
	if uint32(epoch) == src.t.s.epoch {
		src.arrive(now)
	}
}
