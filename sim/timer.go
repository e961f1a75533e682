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
// timer whose window has gone (merged, or cleaned up) is skipped when it
// fires, instead of being deleted.
type timerQueue struct{ h []timer }

func (q *timerQueue) len() int { return len(q.h) }

// peek returns the earliest timer; the queue must not be empty.
func (q *timerQueue) peek() timer { return q.h[0] }

// push registers x.
func (q *timerQueue) push(x timer) {
	q.h = append(q.h, x)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.h[i].before(q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

// pop removes and returns the earliest timer.
func (q *timerQueue) pop() timer {
	top := q.h[0]
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h = q.h[:n]
	i := 0
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
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}

// reset drops every timer (a failover).
func (q *timerQueue) reset() { q.h = q.h[:0] }
