package sim

import "github.com/dspalab/dspalab/sim/des"

// timer is a timer of a key and namespace (a window's start), as Flink's
// TimerHeapInternalTimer: it fires when the watermark (event time) or the
// clock (processing time) reaches at.
type timer struct {
	at  des.Time
	key uint32
	ns  des.Time
}

// before orders timers by time, then key and namespace, so that timers of
// the same time fire in a deterministic order.
func (a timer) before(b timer) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.ns < b.ns
}

// timerQueue is the timer queue of one time domain of a task, as Flink's
// InternalTimerServiceImpl keeps one KeyGroupedInternalPriorityQueue for
// event time and one for processing time: a binary min-heap. A timer is
// registered once per window (when the window's state is created); a
// timer whose window has gone (cleaned up) is skipped when it fires. A
// queue made deletable (merging windows) also keeps each timer's place in
// the heap, as Flink's HeapPriorityQueueSet (a timer registered twice is
// held once) with HeapPriorityQueueElement's internal index, so that
// remove deletes a merged window's timers at once
// (InternalTimerServiceImpl.deleteEventTimeTimer): the timers held are
// those of the open windows.
type timerQueue struct {
	h   []timer
	pos map[timer]int // the place in h of each timer (nil: not deletable)
}

// deletable makes the queue keep each timer's place, for remove.
func (q *timerQueue) deletable() { q.pos = map[timer]int{} }

func (q *timerQueue) len() int { return len(q.h) }

// peek returns the earliest timer; the queue must not be empty.
func (q *timerQueue) peek() timer { return q.h[0] }

// swap exchanges the timers at i and j.
func (q *timerQueue) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	if q.pos != nil {
		q.pos[q.h[i]], q.pos[q.h[j]] = i, j
	}
}

// up moves the timer at i up to its place.
func (q *timerQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.h[i].before(q.h[p]) {
			break
		}
		q.swap(i, p)
		i = p
	}
}

// down moves the timer at i down to its place.
func (q *timerQueue) down(i int) {
	n := len(q.h)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && q.h[l].before(q.h[m]) {
			m = l
		}
		if r < n && q.h[r].before(q.h[m]) {
			m = r
		}
		if m == i {
			break
		}
		q.swap(i, m)
		i = m
	}
}

// push registers x (a deletable queue holds a timer once).
func (q *timerQueue) push(x timer) {
	if q.pos != nil {
		if _, ok := q.pos[x]; ok {
			return
		}
		q.pos[x] = len(q.h)
	}
	q.h = append(q.h, x)
	q.up(len(q.h) - 1)
}

// pop removes and returns the earliest timer.
func (q *timerQueue) pop() timer {
	top := q.h[0]
	q.removeAt(0)
	return top
}

// remove deletes timer x if the queue (a deletable one) holds it.
func (q *timerQueue) remove(x timer) {
	if i, ok := q.pos[x]; ok {
		q.removeAt(i)
	}
}

// removeAt deletes the timer at i.
func (q *timerQueue) removeAt(i int) {
	n := len(q.h) - 1
	if q.pos != nil {
		delete(q.pos, q.h[i])
	}
	if i != n {
		q.h[i] = q.h[n]
		if q.pos != nil {
			q.pos[q.h[i]] = i
		}
	}
	q.h = q.h[:n]
	if i < n {
		q.down(i)
		q.up(i)
	}
}

// reset drops every timer (a failover).
func (q *timerQueue) reset() {
	q.h = q.h[:0]
	if q.pos != nil {
		clear(q.pos)
	}
}

// load replaces the timers with h (a heap, as a checkpoint captured it).
func (q *timerQueue) load(h []timer) {
	q.reset()
	q.h = append(q.h, h...)
	if q.pos != nil {
		for i, x := range q.h {
			q.pos[x] = i
		}
	}
}
