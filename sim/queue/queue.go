// Package queue holds the pure part of a message queue as RabbitMQ and
// Amazon SQS run one (issue 15 step 2), to be contrasted with a Kafka
// log (sim/kafka, sim/topic.go): point to point, competing consumers
// (each message goes to one consumer), a message deleted once it is
// acknowledged, a visibility timeout that makes an unacknowledged
// message visible again (SQS's VisibilityTimeout; RabbitMQ requeues a
// dead channel's unacknowledged deliveries, flagged redelivered), and a
// working set held in memory that pages to disk past a bound (RabbitMQ's
// classic queue pages message bodies out past vm_memory_high_watermark
// paging ratio; rabbit_variable_queue's q1..q4 with the middle on disk).
//
// Simplifications (sim/doc.go): the queue holds message ids, not
// bodies; the bound is a count of ready messages; a message past the
// bound costs one page-in (PageCost) when it is delivered, charged to the
// broker's single delivery thread, so while the ready backlog exceeds
// the bound the broker delivers 1/(DeliverCost + PageCost) messages per
// second (Rates). Nothing here schedules events: the caller owns time.
package queue

import "github.com/dspalab/dspalab/sim/des"

// Config is a queue's broker parameters.
type Config struct {
	// MemoryBound is the ready messages the broker holds in memory; the
	// ones past it are paged to disk. 0: no bound (all in memory).
	MemoryBound int
	// DeliverCost is the broker's time to deliver a message held in
	// memory; PageCost the extra time to page one in from disk.
	DeliverCost, PageCost des.Time
	// VisibilityTimeout is how long a delivered, unacknowledged message
	// stays invisible to other consumers (SQS's VisibilityTimeout; for
	// RabbitMQ the time to detect a dead consumer's channel).
	VisibilityTimeout des.Time
}

// Rates returns the messages per second the broker delivers with the
// working set in memory and while it pages (backlog past the bound).
func (c Config) Rates() (inMemory, paged float64) {
	per := func(t des.Time) float64 {
		if t <= 0 {
			return 0 // unbounded
		}
		return 1 / t.Seconds()
	}
	return per(c.DeliverCost), per(c.DeliverCost + c.PageCost)
}

// Delivery is one message handed to a consumer, with the body it was
// published with.
type Delivery[B any] struct {
	ID          uint64
	Body        B
	Redelivered bool // delivered before (RabbitMQ's redelivered flag; SQS ApproximateReceiveCount > 1)
}

type inFlight[B any] struct {
	id       uint64
	body     B
	c        int      // the consumer (channel) it was delivered to
	at       des.Time // delivered then
	deadline des.Time // visible again from then, unless acknowledged
	acked    bool
}

// message is a message's id and body.
type message[B any] struct {
	id   uint64
	body B
}

// fifo is a queue of messages, popped from head.
type fifo[B any] struct {
	ids  []message[B]
	head int
}

func (f *fifo[B]) len() int          { return len(f.ids) - f.head }
func (f *fifo[B]) push(m message[B]) { f.ids = append(f.ids, m) }
func (f *fifo[B]) pop() message[B] {
	m := f.ids[f.head]
	f.head++
	if f.head > 1024 && f.head*2 > len(f.ids) {
		f.ids = append(f.ids[:0], f.ids[f.head:]...)
		f.head = 0
	}
	return m
}

// Queue is one queue on one broker. Its zero value is not usable: use
// New. Calls give non-decreasing times (the caller's clock), so the
// deliveries in flight are in the order of their deadlines: expiring
// them costs what expires, not what is in flight.
type Queue[B any] struct {
	cfg   Config
	next  uint64
	ready fifo[B] // published, never delivered, in id order
	redo  fifo[B] // visible again after a timeout, delivered before ready's
	// flight holds the deliveries from fhead on in delivery order
	// (acknowledged ones until they reach the head); pos finds one by id,
	// as its index + base; held counts each consumer's unacknowledged.
	flight []inFlight[B]
	fhead  int
	base   int
	pos    map[uint64]int
	held   map[int]int
	stats  Stats
}

// Stats are a queue's counters.
type Stats struct {
	Published, Delivered, Acked, Redelivered, Paged uint64
	// MaxDepth is the largest ready backlog seen.
	MaxDepth int
}

// New returns an empty queue of messages of body B.
func New[B any](cfg Config) *Queue[B] {
	return &Queue[B]{cfg: cfg, pos: map[uint64]int{}, held: map[int]int{}}
}

// Stats returns the counters.
func (q *Queue[B]) Stats() Stats { return q.stats }

// Depth returns the ready messages (visible, not delivered).
func (q *Queue[B]) Depth() int { return q.ready.len() + q.redo.len() }

// InFlight returns consumer c's delivered, unacknowledged messages.
func (q *Queue[B]) InFlight(c int) int { return q.held[c] }

// Paged returns the ready messages held on disk now.
func (q *Queue[B]) Paged() int {
	if q.cfg.MemoryBound <= 0 {
		return 0
	}
	return max(q.Depth()-q.cfg.MemoryBound, 0)
}

// Publish appends a message of body b and returns its id (0, 1, ...).
func (q *Queue[B]) Publish(b B) uint64 {
	id := q.next
	q.next++
	q.ready.push(message[B]{id, b})
	q.stats.Published++
	q.stats.MaxDepth = max(q.stats.MaxDepth, q.Depth())
	return id
}

// expire makes the deliveries whose visibility timeout passed by now
// visible again, ahead of the messages never delivered (RabbitMQ
// requeues them near their original position), in delivery order.
func (q *Queue[B]) expire(now des.Time) {
	for q.fhead < len(q.flight) {
		m := &q.flight[q.fhead]
		if !m.acked {
			if m.deadline > now {
				break
			}
			q.drop(m)
			q.redo.push(message[B]{m.id, m.body})
		}
		q.fhead++
	}
	if q.fhead > 1024 && q.fhead*2 > len(q.flight) {
		n := copy(q.flight, q.flight[q.fhead:])
		q.flight = q.flight[:n]
		q.base += q.fhead
		q.fhead = 0
	}
	q.stats.MaxDepth = max(q.stats.MaxDepth, q.Depth())
}

// drop forgets an unacknowledged delivery (acknowledged or expired).
func (q *Queue[B]) drop(m *inFlight[B]) {
	m.acked = true
	delete(q.pos, m.id)
	q.held[m.c]--
}

// Receive delivers up to n ready messages to consumer c at now, after
// making expired deliveries visible again, and returns them with the
// broker's time spent: DeliverCost each, plus PageCost for each
// delivered while the backlog passes the bound (its message paged in).
// Each delivery stays invisible for the visibility timeout from now: a
// consumer that fails before acknowledging it (it can no longer call
// Ack) has it redelivered by a Receive after the timeout, to whichever
// consumer asks first, flagged and counted in Stats.Redelivered. A
// restarted consumer is a new channel, a new c: the dead channel's
// deliveries are not its own to acknowledge.
func (q *Queue[B]) Receive(now des.Time, c, n int) ([]Delivery[B], des.Time) {
	q.expire(now)
	var out []Delivery[B]
	var cost des.Time
	for len(out) < n && q.Depth() > 0 {
		cost += q.cfg.DeliverCost
		if q.Paged() > 0 {
			cost += q.cfg.PageCost
			q.stats.Paged++
		}
		var m message[B]
		again := q.redo.len() > 0
		if again {
			m = q.redo.pop()
			q.stats.Redelivered++
		} else {
			m = q.ready.pop()
		}
		id := m.id
		q.stats.Delivered++
		out = append(out, Delivery[B]{ID: id, Body: m.body, Redelivered: again})
		q.pos[id] = q.base + len(q.flight)
		q.flight = append(q.flight, inFlight[B]{id: id, body: m.body, c: c, at: now, deadline: now + q.cfg.VisibilityTimeout})
		q.held[c]++
	}
	return out, cost
}

// Ack acknowledges consumer c's delivery of id: the message is deleted.
// It reports false when c holds no such delivery (acknowledged before,
// or its visibility timeout passed and it went back to the queue).
func (q *Queue[B]) Ack(c int, id uint64) bool {
	i, ok := q.pos[id]
	if !ok || q.flight[i-q.base].c != c {
		return false
	}
	q.drop(&q.flight[i-q.base])
	q.stats.Acked++
	return true
}

// AckBefore acknowledges consumer c's deliveries made at or before t and
// returns how many: Flink's RabbitMQ source in at-least-once mode
// (MultipleIdsMessageAcknowledgingSourceBase, RabbitMQSourceReaderBase)
// keeps the delivery tags it polled and acknowledges them when the
// checkpoint taken after them completes, t being that checkpoint's
// snapshot. A failure before the completion leaves them unacknowledged:
// they are redelivered after the visibility timeout.
func (q *Queue[B]) AckBefore(c int, t des.Time) int {
	n := 0
	for i := q.fhead; i < len(q.flight) && q.flight[i].at <= t; i++ {
		if m := &q.flight[i]; !m.acked && m.c == c {
			q.drop(m)
			n++
		}
	}
	q.stats.Acked += uint64(n)
	return n
}

// NextVisible returns when the first unacknowledged delivery's
// visibility timeout passes (it becomes visible again), false when none
// is in flight: a consumer waiting for messages wakes then.
func (q *Queue[B]) NextVisible() (des.Time, bool) {
	for i := q.fhead; i < len(q.flight); i++ {
		if m := &q.flight[i]; !m.acked {
			return m.deadline, true
		}
	}
	return 0, false
}

// Unacked calls fn with the id of each of consumer c's unacknowledged
// deliveries, in delivery order (a dead channel's, at its failure).
func (q *Queue[B]) Unacked(c int, fn func(id uint64)) {
	for i := q.fhead; i < len(q.flight); i++ {
		if m := &q.flight[i]; !m.acked && m.c == c {
			fn(m.id)
		}
	}
}
