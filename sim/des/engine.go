package des

import (
	"errors"
	"math"
	"slices"
)

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

// entry is a queued event in 16 bytes: its time and, in key, its sequence
// number (the order of scheduling) over the slab node that holds its
// handler. Comparing keys compares sequence numbers, which are distinct,
// so (at, key) orders entries by (time, sequence number). Entries hold no
// pointers, so moving them costs no write barrier, and nothing in the slab
// records where an entry is: sifting moves entries only. A queued entry's
// node is its own until the entry leaves the queue; a cancelled one's has
// no handler (lazy cancel): the entry is dropped, and its node freed, when
// it reaches the front.
type entry struct {
	at  Time
	key uint64 // sequence number << 32 | slot
}

// before reports whether a fires before b: by time, then by the order of
// scheduling.
func (a *entry) before(b *entry) bool {
	return a.at < b.at || a.at == b.at && a.key < b.key
}

// slot is the index of en's node.
func (en *entry) slot() uint32 { return uint32(en.key) }

// nowEvent is an event of the FIFO: it fires at the current instant, so it
// needs no key; a nil h marks a cancelled one.
type nowEvent struct {
	h   Handler
	arg int64
}

// EventIDs: a heap event's is its node's generation (31 bits) << 32 | its
// slot + 1; a FIFO event's has the top bit set over its position in the
// FIFO since the engine started + 1.
const (
	nowID   EventID = 1 << 63
	genMask uint32  = 1<<31 - 1
)

// node holds what a scheduled event does. gen counts the events that have
// left the node (fired or cancelled), so that an event's EventID matches
// its node only while the event is pending.
type node struct {
	h    Handler // nil while the node is free, and once its event is cancelled
	arg  int64
	gen  uint32
	next uint32 // while free: the next free node + 1 (0 ends the list)
}

// arity is the number of children of a heap node: a 4-ary heap is half as
// deep as a binary one, and its four children sit in one or two cache
// lines.
const arity = 4

// A small queue is kept sorted (see Engine.unsorted): up to sortedMax
// entries; a heap that shrinks to sortedMin is sorted again. The gap
// between the two keeps a queue whose size goes up and down around one of
// them from switching at every event.
const (
	sortedMax = 32
	sortedMin = 8
)

// Engine is the event loop: a 4-ary min-heap of events ordered by (time,
// sequence number), with a FIFO for events due at the current instant.
// While it holds few events (at most sortedMax), the heap is kept sorted:
// a sorted array is a heap, and an event then takes its place by a scan
// from the front that stops at its rank. An event mostly replaces the one
// that fired (its handler schedules its successor: a service completion,
// the next arrival) at a rank of 0 to 2, which costs a comparison or
// three instead of a sift through every level's four children (the
// built-in jobs keep 4 to 20 events queued).
// Events at the same time fire in the order they were scheduled, which makes
// every run deterministic. Every event scheduled for a time after Now goes
// to the heap; one scheduled (or posted, see Post) for Now goes to the
// FIFO, behind the heap's events at Now (they were all scheduled earlier,
// while time was before Now, so they come first). The FIFO holds its
// events' handlers itself, so an event of the current instant (a
// zero-latency hop of a record or a credit inside a worker) costs an
// append and a call; a posted one has no EventID (it takes its place in
// the FIFO, which FIFO EventIDs count, all the same). Only heap events
// take a sequence number (32 bits in an entry's key); when they run out,
// the queued entries are numbered again from 1 in their order (see
// renumber).
// The heap's event nodes are kept in a slab and reused, so a steady state
// of scheduling and firing allocates nothing. Cancel takes a heap event's
// handler out of its node and leaves its entry, to be dropped (and the node
// freed) when it comes first; it clears a FIFO event's handler in place.
//
// The zero Engine is ready to use at time 0. An Engine is not safe for
// concurrent use; run one engine per goroutine.
type Engine struct {
	now     Time
	seq     uint32 // the sequence number of the last heap event scheduled
	nodes   []node
	free    uint32 // the first free node + 1 (0: none)
	heap    []entry
	nowq    []nowEvent
	nowHead int
	nowBase uint64 // events that have left the FIFO before nowq[0] (their EventIDs)
	dead    int    // cancelled entries still queued (heap or FIFO)
	fired   uint64
	// limit: StepsUntil fires events while fired is below it; Stop sets
	// it to 0, so that the loop checks one bound per event.
	limit   uint64
	stopped bool
	// top: heap[0] is the event that fires now, not removed yet, and its
	// node (whose gen has counted the event as gone) is not free. The
	// first event its handler schedules into the heap takes its place and
	// its node (one sift down instead of a removal and an insertion: the
	// "hold" of a handler that schedules its successor); if none does, it
	// is removed, and its node freed, when the handler returns.
	top bool
	// unsorted: heap is a heap, not sorted (it grew past sortedMax and
	// has not shrunk to sortedMin since). The zero Engine's empty heap is
	// sorted.
	unsorted bool
}

// Now returns the current simulated time.
func (e *Engine) Now() Time { return e.now }

// Fired returns how many events have fired since the engine was created.
func (e *Engine) Fired() uint64 { return e.fired }

// Pending returns how many events are scheduled and not yet fired or
// cancelled.
func (e *Engine) Pending() int {
	n := len(e.heap) + len(e.nowq) - e.nowHead - e.dead
	if e.top {
		n--
	}
	return n
}

// Schedule arranges for h.HandleEvent(at, arg) to be called when simulated
// time reaches at. It returns ErrPast (and schedules nothing) when at is
// before Now. h must not be nil (nor After's and Post's): the engine marks
// a cancelled event of the current instant by a nil handler.
func (e *Engine) Schedule(at Time, h Handler, arg int64) (EventID, error) {
	if at < e.now {
		return 0, ErrPast
	}
	return e.schedule(at-e.now, h, arg), nil
}

// Post arranges for h.HandleEvent(Now, arg) to be called at the current
// instant, as Schedule(Now(), h, arg) does, in the same order (behind the
// events already due now, and behind every event scheduled or posted at
// this instant before it), with the same counts (Pending, Fired); but it
// returns no EventID, so a posted event cannot be cancelled. It is the
// FIFO's append and nothing else (no check of the time, no delay, no id),
// small enough to be inlined: for the events of a zero-latency hop inside
// a worker (a buffer's delivery, a credit announcement), which nobody
// cancels. h must not be nil.
func (e *Engine) Post(h Handler, arg int64) {
	e.nowq = append(e.nowq, nowEvent{h, arg})
}

// After schedules h after delay d (d < 0 counts as 0) and returns its id.
func (e *Engine) After(d Duration, h Handler, arg int64) EventID {
	return e.schedule(d, h, arg)
}

// schedule queues an event d after Now (d < 0 counts as 0; the time is
// Never when Now + d overflows). It takes a delay rather than a time so
// that After and Schedule, inlined into their callers, stay small enough
// for the callers' own wrappers to be inlined too. Its own path is the
// most common one: the FIFO's append, or the replacement of the fired
// root (see top), which reuses the fired event's node; every other heap
// event takes scheduleHeap, out of line (as the FIFO's growth is, in
// append), so that this path keeps its values in registers.
func (e *Engine) schedule(d Duration, h Handler, arg int64) EventID {
	if d <= 0 {
		e.nowq = append(e.nowq, nowEvent{h, arg})
		return nowID | EventID(e.nowBase+uint64(len(e.nowq)))
	}
	at := e.now + d
	if at < 0 { // overflow (Now is never negative)
		at = Never
	}
	if !e.top || e.seq == math.MaxUint32 {
		return e.scheduleHeap(at, h, arg)
	}
	e.top = false
	q := e.heap
	i := q[0].slot()
	nd := &e.nodes[i]
	nd.h, nd.arg = h, arg
	e.seq++
	key := uint64(e.seq)<<32 | uint64(i)
	if e.unsorted {
		e.down(entry{at: at, key: key})
		return EventID(nd.gen&genMask)<<32 | EventID(i+1)
	}
	// down's scan of a sorted queue, for a new entry (see push): the
	// entries at its time or before move up one place
	k := 1
	for k < len(q) && q[k].at <= at {
		q[k-1] = q[k]
		k++
	}
	q[k-1] = entry{at: at, key: key}
	return EventID(nd.gen&genMask)<<32 | EventID(i+1)
}

// scheduleHeap queues an event after Now in a new node, or in the fired
// root's place and node (see top) when the sequence numbers run out.
//
//go:noinline
func (e *Engine) scheduleHeap(at Time, h Handler, arg int64) EventID {
	if e.seq == math.MaxUint32 {
		e.renumber()
	}
	var i uint32
	if e.top {
		i = e.heap[0].slot()
	} else {
		if e.free == 0 {
			e.grow()
		}
		i = e.free - 1
		e.free = e.nodes[i].next
	}
	nd := &e.nodes[i]
	nd.h, nd.arg = h, arg
	e.seq++
	en := entry{at: at, key: uint64(e.seq)<<32 | uint64(i)}
	if e.top {
		e.top = false
		e.down(en)
	} else {
		e.push(en)
	}
	return EventID(nd.gen&genMask)<<32 | EventID(i+1)
}

// renumber gives the queued entries the sequence numbers 1, 2, ... in
// their order, when the 32 bits of an entry's sequence number are used
// up. It sorts the queue, which is then a sorted array: a heap, and a
// sorted queue (a fired root, see top, comes first: it is the least).
func (e *Engine) renumber() {
	slices.SortFunc(e.heap, compare)
	for k := range e.heap {
		en := &e.heap[k]
		en.key = uint64(k+1)<<32 | uint64(en.slot())
	}
	e.seq = uint32(len(e.heap))
}

// compare orders entries as before does, for slices.SortFunc.
func compare(a, b entry) int {
	if a.before(&b) {
		return -1
	}
	return 1 // keys are distinct: never equal
}

// grow adds a node to the slab, as the free list's only node.
//
//go:noinline
func (e *Engine) grow() {
	e.nodes = append(e.nodes, node{})
	e.free = uint32(len(e.nodes))
}

// freeNode puts node i, whose event has left the queue, on the free list.
func (e *Engine) freeNode(i uint32) {
	nd := &e.nodes[i]
	nd.h, nd.next = nil, e.free
	e.free = i + 1
}

// Cancel removes a scheduled event. It reports whether the event was still
// pending; cancelling a fired, cancelled or zero EventID is a no-op.
func (e *Engine) Cancel(id EventID) bool {
	if id == 0 {
		return false
	}
	if id&nowID != 0 {
		pos := uint64(id&^nowID) - 1
		if pos < e.nowBase+uint64(e.nowHead) || pos-e.nowBase >= uint64(len(e.nowq)) {
			return false // fired (or never scheduled)
		}
		ev := &e.nowq[pos-e.nowBase]
		if ev.h == nil {
			return false
		}
		ev.h = nil // skipped when the FIFO reaches it
		e.dead++
		return true
	}
	i := uint32(id) - 1
	if int(i) >= len(e.nodes) {
		return false
	}
	nd := &e.nodes[i]
	if nd.gen&genMask != uint32(id>>32) || nd.h == nil {
		return false
	}
	nd.gen++   // the event has left: its id no longer matches
	nd.h = nil // its entry is dropped, and the node freed, when it comes first
	e.dead++
	return true
}

// Step fires the next event, advancing Now to its time. It reports false
// when no event is left.
func (e *Engine) Step() bool { return e.StepUntil(Never) }

// StepUntil fires the next event if it is due at or before t, advancing
// Now to its time, and reports whether it fired one (NextTime() <= t
// followed by Step, in one call).
func (e *Engine) StepUntil(t Time) bool {
	if e.dead > 0 {
		e.dropDead()
	}
	if e.nowHead < len(e.nowq) && (len(e.heap) == 0 || e.heap[0].at != e.now) {
		if e.now > t {
			return false
		}
		ev := e.nowq[e.nowHead]
		e.advanceNow()
		e.fired++
		ev.h.HandleEvent(e.now, ev.arg)
		return true
	}
	if len(e.heap) == 0 {
		return false
	}
	en := &e.heap[0]
	at := en.at
	if at > t {
		return false
	}
	nd := &e.nodes[en.slot()]
	nd.gen++ // the event leaves: its id no longer matches
	e.now = at
	e.fired++
	e.top = true
	nd.h.HandleEvent(at, nd.arg)
	if e.top {
		e.dropTop()
	}
	return true
}

// StepsUntil fires up to n events due at or before t, each as StepUntil
// fires it, and returns how many it fired: fewer than n when no event is
// left by t, or when a handler called Stop (it returns after that
// handler's event, as RunUntil does; a Stop before the call does not
// count). It is a loop of StepUntil without a call per event, for a
// caller that fires events in batches between its own checks. Its body
// repeats StepUntil's on purpose: StepUntil as StepsUntil(t, 1) costs
// BenchmarkEngineHold (one Step per event) 7% of its events/s, so each
// keeps its own loop, and TestStepsUntilAgainstStepUntil holds them to the same order.
// Once the FIFO's first event is due (no heap event at Now), it fires the
// FIFO's events in an inner loop that checks only the FIFO's end and the
// bound n: none of the heap's can come before them.
func (e *Engine) StepsUntil(t Time, n uint64) uint64 {
	start := e.fired
	e.stopped = false
	e.limit = start + n
	if e.limit < start {
		e.limit = math.MaxUint64
	}
	for e.fired < e.limit {
		if e.dead > 0 {
			e.dropDead()
		}
		if e.nowHead < len(e.nowq) && (len(e.heap) == 0 || e.heap[0].at != e.now) {
			if e.now > t {
				break
			}
			// the FIFO's events up to the bound, without the checks
			// above: no heap event comes before them (the heap's first
			// is after Now, and so is every event their handlers put
			// into it), and a cancelled one, skipped, is a nil handler
			// (handlers are never nil)
			for {
				ev := e.nowq[e.nowHead]
				e.advanceNow()
				if ev.h == nil {
					e.dead--
				} else {
					e.fired++
					ev.h.HandleEvent(e.now, ev.arg)
				}
				if e.nowHead == len(e.nowq) || e.fired >= e.limit {
					break
				}
			}
			continue
		}
		if len(e.heap) == 0 {
			break
		}
		en := &e.heap[0]
		at := en.at
		if at > t {
			break
		}
		nd := &e.nodes[en.slot()]
		nd.gen++
		e.now = at
		e.fired++
		e.top = true
		nd.h.HandleEvent(at, nd.arg)
		if e.top {
			e.dropTop()
		}
	}
	return e.fired - start
}

// dropTop removes the fired event still at the heap's root (see top) and
// frees its node.
func (e *Engine) dropTop() {
	e.top = false
	e.pop()
}

// advanceNow takes the FIFO's first event out; the FIFO starts again from
// the front of its slice when it empties.
func (e *Engine) advanceNow() {
	e.nowHead++
	if e.nowHead == len(e.nowq) {
		e.nowBase += uint64(len(e.nowq))
		e.nowq, e.nowHead = e.nowq[:0], 0
	}
}

// dropDead drops the cancelled events at the front of the queues, so that
// the next one is a live event.
func (e *Engine) dropDead() {
	if e.top {
		e.dropTop()
	}
	for e.dead > 0 {
		switch {
		case len(e.heap) > 0 && (e.heap[0].at == e.now || e.nowHead == len(e.nowq)):
			if e.nodes[e.heap[0].slot()].h != nil {
				return
			}
			e.pop() // cancelled
		case e.nowHead < len(e.nowq):
			if e.nowq[e.nowHead].h != nil {
				return
			}
			e.advanceNow()
		default:
			return
		}
		e.dead--
	}
}

// NextTime returns the time of the next pending event, or Never.
func (e *Engine) NextTime() Time { return e.peek() }

// peek returns the time of the next pending event, or Never.
func (e *Engine) peek() Time {
	if e.top {
		e.dropTop()
	}
	if e.dead > 0 {
		e.dropDead()
	}
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
	for !e.stopped && e.StepUntil(t) {
	}
	if e.stopped {
		return false
	}
	if t > e.now {
		e.now = t
	}
	return true
}

// Stop makes a running RunUntil or StepsUntil return after the current
// event.
func (e *Engine) Stop() { e.stopped, e.limit = true, 0 }

// push adds a new entry en to the heap. Sorted, it moves up from the end
// past the entries that fire after it; a sorted heap that would grow past
// sortedMax is a heap from then on (being sorted, it is one already).
// A new entry's sequence number is above every queued entry's, so it
// fires before an entry only when its time is earlier.
func (e *Engine) push(en entry) {
	if !e.unsorted && len(e.heap) >= sortedMax {
		e.unsorted = true
	}
	e.heap = append(e.heap, en)
	h := e.heap
	k := len(h) - 1
	if !e.unsorted {
		for k > 0 && en.at < h[k-1].at {
			h[k] = h[k-1]
			k--
		}
		h[k] = en
		return
	}
	// a hole moves up; each parent it passes moves down one level
	for k > 0 {
		p := (k - 1) / arity
		if en.at >= h[p].at {
			break
		}
		h[k] = h[p]
		k = p
	}
	h[k] = en
}

// pop removes the heap's first entry, whose event has left (fired or
// cancelled), and frees its node. Sorted, the others move forward one
// place; a heap's last entry moves down from the root, and a
// heap that shrinks to sortedMin is sorted again.
func (e *Engine) pop() {
	h := e.heap
	e.freeNode(h[0].slot())
	n := len(h) - 1
	if !e.unsorted {
		for k := 0; k < n; k++ { // a few entries: cheaper than copy's call
			h[k] = h[k+1]
		}
		e.heap = h[:n]
		return
	}
	last := h[n]
	e.heap = h[:n]
	if n > 0 {
		e.down(last)
	}
	if n <= sortedMin {
		slices.SortFunc(e.heap, compare)
		e.unsorted = false
	}
}

// down puts en at the heap's root in place of the entry there and moves
// it to its place: sorted, forward past the entries that fire before it
// (as many as its rank), each of which moves up one place; in a heap, into
// the hole, the smallest child moves up.
func (e *Engine) down(en entry) {
	h := e.heap
	n := len(h)
	k := 0
	if !e.unsorted {
		for k+1 < n && h[k+1].before(&en) {
			h[k] = h[k+1]
			k++
		}
		h[k] = en
		return
	}
	for {
		c := arity*k + 1
		if c+arity > n {
			// fewer than four children: the last level (theirs are past n)
			if c < n {
				m := c
				for j := c + 1; j < n; j++ {
					if h[j].before(&h[m]) {
						m = j
					}
				}
				if h[m].before(&en) {
					h[k] = h[m]
					k = m
				}
			}
			break
		}
		// four children: the smaller of each pair, then of the two
		ch := h[c : c+arity : c+arity]
		m, m2 := 0, 2
		if ch[1].before(&ch[0]) {
			m = 1
		}
		if ch[3].before(&ch[2]) {
			m2 = 3
		}
		if ch[m2].before(&ch[m&3]) {
			m = m2
		}
		if !ch[m&3].before(&en) {
			break
		}
		h[k] = ch[m&3]
		k = c + m
	}
	h[k] = en
}
