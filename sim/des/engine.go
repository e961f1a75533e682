package des

import "errors"

// Handler receives the events it scheduled. arg is the value given to
// Schedule, so one handler can tell several kinds of event apart without
// allocating a closure per event.
type Handler interface {
	HandleEvent(now Time, arg int64)
}

// HandlerFunc adapts a function to Handler. Converting a func to an
// interface allocates once, so keep the HandlerFunc value and reuse it.
type HandlerFunc func(now Time, arg int64)

// HandleEvent calls f(now, arg).
func (f HandlerFunc) HandleEvent(now Time, arg int64) { f(now, arg) }

// EventID names a scheduled event so that it can be cancelled. The zero
// EventID names no event.
type EventID uint64

// ErrPast is returned by Schedule for a time before Now.
var ErrPast = errors.New("des: event scheduled in the past")

const (
	posFree = -2 // the node is on the free list
	posNow  = -1 // the node waits in the now-queue
)

// hent is a heap entry: the ordering key is kept inline so that sifting
// compares without touching the slab.
type hent struct {
	at  Time
	seq uint64
	i   int32
}

type node struct {
	at  Time
	seq uint64
	h   Handler
	arg int64
	pos int32 // index in heap, posNow or posFree
	gen uint32
}

// Engine is the event loop: a binary min-heap of events ordered by (time,
// sequence number), with a FIFO for events due at the current instant.
// Events at the same time fire in the order they were scheduled, which makes
// every run deterministic. Event nodes are kept in a slab and reused, so a
// steady state of scheduling and firing allocates nothing.
//
// The zero Engine is ready to use at time 0. An Engine is not safe for
// concurrent use; run one engine per goroutine.
type Engine struct {
	now     Time
	seq     uint64
	nodes   []node
	free    []int32
	heap    []hent
	nowq    []int32
	nowHead int
	fired   uint64
	stopped bool
}

// Now returns the current simulated time.
func (e *Engine) Now() Time { return e.now }

// Fired returns how many events have fired since the engine was created.
func (e *Engine) Fired() uint64 { return e.fired }

// Pending returns how many events are scheduled and not yet fired or
// cancelled (cancelled events waiting in the current instant's FIFO may
// still be counted until the engine passes them).
func (e *Engine) Pending() int { return len(e.heap) + len(e.nowq) - e.nowHead }

// Schedule arranges for h.HandleEvent(at, arg) to be called when simulated
// time reaches at. It returns ErrPast (and schedules nothing) when at is
// before Now.
func (e *Engine) Schedule(at Time, h Handler, arg int64) (EventID, error) {
	if at < e.now {
		return 0, ErrPast
	}
	return e.schedule(at, h, arg), nil
}

// After schedules h after delay d (d < 0 counts as 0) and returns its id.
func (e *Engine) After(d Duration, h Handler, arg int64) EventID {
	if d < 0 {
		d = 0
	}
	at := e.now + d
	if at < e.now { // overflow
		at = Never
	}
	return e.schedule(at, h, arg)
}

func (e *Engine) schedule(at Time, h Handler, arg int64) EventID {
	var i int32
	if n := len(e.free); n > 0 {
		i = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		e.nodes = append(e.nodes, node{})
		i = int32(len(e.nodes) - 1)
	}
	nd := &e.nodes[i]
	nd.at, nd.seq, nd.h, nd.arg = at, e.seq, h, arg
	nd.gen++
	e.seq++
	if at == e.now {
		nd.pos = posNow
		e.nowq = append(e.nowq, i)
	} else {
		nd.pos = int32(len(e.heap))
		e.heap = append(e.heap, hent{at, nd.seq, i})
		e.up(len(e.heap) - 1)
	}
	return EventID(uint64(nd.gen)<<32 | uint64(uint32(i)+1))
}

// Cancel removes a scheduled event. It reports whether the event was still
// pending; cancelling a fired, cancelled or zero EventID is a no-op.
func (e *Engine) Cancel(id EventID) bool {
	if id == 0 {
		return false
	}
	i := int32(uint32(id) - 1)
	gen := uint32(id >> 32)
	if int(i) >= len(e.nodes) {
		return false
	}
	nd := &e.nodes[i]
	if nd.gen != gen || nd.pos == posFree || nd.h == nil {
		return false
	}
	if nd.pos == posNow {
		nd.h = nil // skipped and freed when the FIFO reaches it
		return true
	}
	e.removeAt(int(nd.pos))
	e.release(i)
	return true
}

func (e *Engine) release(i int32) {
	nd := &e.nodes[i]
	nd.h = nil
	nd.pos = posFree
	e.free = append(e.free, i)
}

// Step fires the next event, advancing Now to its time. It reports false
// when no event is left.
func (e *Engine) Step() bool {
	for {
		var i int32
		switch {
		case len(e.heap) > 0 && e.heap[0].at == e.now:
			i = e.popHeap()
		case e.nowHead < len(e.nowq):
			i = e.nowq[e.nowHead]
			e.nowHead++
			if e.nowHead == len(e.nowq) {
				e.nowq, e.nowHead = e.nowq[:0], 0
			}
		case len(e.heap) > 0:
			i = e.popHeap()
		default:
			return false
		}
		nd := &e.nodes[i]
		h, arg, at := nd.h, nd.arg, nd.at
		e.release(i)
		if h == nil { // cancelled while in the now-queue
			continue
		}
		e.now = at
		e.fired++
		h.HandleEvent(at, arg)
		return true
	}
}

// NextTime returns the time of the next pending event, or Never.
func (e *Engine) NextTime() Time { return e.peek() }

// peek returns the time of the next event, or Never.
func (e *Engine) peek() Time {
	if e.nowHead < len(e.nowq) {
		return e.now
	}
	if len(e.heap) > 0 {
		return e.heap[0].at
	}
	return Never
}

// RunUntil fires every event due at or before t, then sets Now to t (if t
// is later). It returns early, with Now at the last fired event, when Stop
// is called from a handler; it reports whether it reached t.
func (e *Engine) RunUntil(t Time) bool {
	e.stopped = false
	for !e.stopped && e.peek() <= t {
		e.Step()
	}
	if e.stopped {
		return false
	}
	if t > e.now {
		e.now = t
	}
	return true
}

// Stop makes a running RunUntil return after the current event.
func (e *Engine) Stop() { e.stopped = true }

func (e *Engine) less(a, b int) bool {
	ha, hb := &e.heap[a], &e.heap[b]
	if ha.at != hb.at {
		return ha.at < hb.at
	}
	return ha.seq < hb.seq
}

func (e *Engine) popHeap() int32 {
	top := e.heap[0].i
	e.removeAt(0)
	return top
}

func (e *Engine) removeAt(k int) {
	last := len(e.heap) - 1
	if k != last {
		e.swap(k, last)
	}
	e.heap = e.heap[:last]
	if k != last {
		if !e.down(k) {
			e.up(k)
		}
	}
}

func (e *Engine) swap(a, b int) {
	e.heap[a], e.heap[b] = e.heap[b], e.heap[a]
	e.nodes[e.heap[a].i].pos = int32(a)
	e.nodes[e.heap[b].i].pos = int32(b)
}

func (e *Engine) up(k int) {
	for k > 0 {
		p := (k - 1) / 2
		if !e.less(k, p) {
			break
		}
		e.swap(k, p)
		k = p
	}
}

func (e *Engine) down(k int) bool {
	start := k
	n := len(e.heap)
	for {
		l := 2*k + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && e.less(r, l) {
			m = r
		}
		if !e.less(m, k) {
			break
		}
		e.swap(k, m)
		k = m
	}
	return k > start
}
