package sim

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/kafka"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/queue"
	"github.com/dspalab/dspalab/sim/scenario"
)

// A queue (plan.Queue) is a message queue on a broker (sim/queue): its
// producer sources publish at their arrival times, and the subtasks of
// the sources that consume it are competing consumers, as Flink's
// RabbitMQ source (RMQSource) runs them: each subtask a channel of its
// own, polling one message at a time. The broker has one delivery
// thread: a message is delivered delivery_cost after max(the poll, the
// broker free), page_in_cost more while the ready backlog passes
// memory_bound. With checkpoints a subtask acknowledges the messages it
// emitted before a checkpoint's barrier when that checkpoint completes
// (RMQSource's at-least-once: MessageAcknowledgingSourceBase's
// notifyCheckpointComplete acknowledges the delivery tags of the
// snapshot); without, it acknowledges each on delivery (autoAck, as
// RMQSource does when checkpointing is off), and a failure loses what
// was inside the job. A failure closes the channels: the restarted
// subtasks are new channels, and the old channels' unacknowledged
// messages are redelivered after the visibility timeout, flagged.

// msgBody is what a queue holds of a message: when its producer sent it
// and its key.
type msgBody struct {
	sent des.Time
	key  uint32
}

// broker is a queue of the run and its producers.
type broker struct {
	pq      *plan.Queue
	q       *queue.Queue[msgBody]
	streams []*producerStream
	horizon des.Time
	free    des.Time // the delivery thread is busy until then
	chans   int      // channels opened
	seq     int      // the source seq its records' ids carry (the first consumer's), -1 before
	autoAck bool
	// pagedAt is when a delivery first paged in (-1 never), and
	// deliveredBefore the deliveries before it
	pagedAt         des.Time
	deliveredBefore uint64
	readers         []*source
	// unemitted are messages delivered to a channel that died before
	// its subtask emitted them; awaiting those it had emitted, waiting
	// to be redelivered (delivery.to_replay)
	unemitted, awaiting map[uint64]bool
}

// broker returns the broker of pq, made on first use.
func (s *Sim) broker(pq *plan.Queue) *broker {
	if s.brokers == nil {
		s.brokers = map[*plan.Queue]*broker{}
	}
	b := s.brokers[pq]
	if b != nil {
		return b
	}
	b = &broker{pq: pq, horizon: s.duration, seq: -1, pagedAt: -1, autoAck: !s.plan.Checkpointing(),
		unemitted: map[uint64]bool{}, awaiting: map[uint64]bool{},
		q: queue.New[msgBody](queue.Config{MemoryBound: pq.MemoryBound, DeliverCost: pq.DeliveryCost,
			PageCost: pq.PageInCost, VisibilityTimeout: pq.VisibilityTimeout})}
	for _, ps := range pq.Producers {
		kd := newKeyDist(ps.Keys)
		for k := range ps.Parallelism {
			base := "producer/" + ps.Name + "/" + strconv.Itoa(k)
			st := &producerStream{genPCG: des.StreamRand(s.sc.Seed, base+"/arrivals"), keyPCG: des.StreamRand(s.sc.Seed, base+"/keys"),
				keys: &kd, size: ps.RecordSize, name: ps.Name}
			st.gen = newArrivalGen(ps.Arrival, st.genPCG)
			st.part = kafka.NewPartitioner(kafka.RoundRobin, 1, 0, 0, 0) // a queue has no partitions: all in one
			st.advance()
			b.streams = append(b.streams, st)
		}
	}
	s.brokers[pq] = b
	s.brokerList = append(s.brokerList, b)
	return b
}

// publish publishes the messages the producers send by now; it returns
// when the next is sent (des.Never for none).
func (b *broker) publish(now des.Time) des.Time {
	for {
		var st *producerStream
		for _, x := range b.streams {
			if x.at != des.Never && x.at <= b.horizon && (st == nil || x.at < st.at) {
				st = x
			}
		}
		if st == nil {
			return des.Never
		}
		if st.at > now {
			return st.at
		}
		b.q.Publish(msgBody{sent: st.at, key: st.key})
		st.advance()
	}
}

// queueReader is a consumer subtask's channel: the arrival process
// (arrivals) of a source of process queue.
type queueReader struct {
	b   *broker
	src *source
	c   int // its channel
	// cur is the message in hand: delivered, not yet emitted (has)
	cur queue.Delivery[msgBody]
	at  des.Time // when it was polled
	has bool
	// emittedAt is when the last message emitted was delivered (polled):
	// a completed checkpoint acknowledges the deliveries up to it
	emittedAt des.Time
}

func newQueueReader(b *broker, src *source) *queueReader {
	r := &queueReader{b: b, src: src, c: b.chans, emittedAt: -1}
	b.chans++
	b.readers = append(b.readers, src)
	return r
}

// next polls the broker at now: when the message delivered becomes
// readable, or, when none is ready, when to poll again (a message is
// published or a delivery's visibility timeout passes); des.Never when
// no message will come.
func (r *queueReader) next() des.Time {
	if r.has {
		return r.src.vt
	}
	b := r.b
	now := b.s().eng.Now()
	nextPub := b.publish(now)
	if d, cost := b.q.Receive(now, r.c, 1); len(d) == 1 {
		r.cur, r.at, r.has = d[0], now, true
		if b.pagedAt < 0 && b.q.Stats().Paged > 0 {
			b.pagedAt, b.deliveredBefore = now, b.q.Stats().Delivered-1
		}
		if b.autoAck {
			b.q.Ack(r.c, d[0].ID)
		}
		b.free = max(now, b.free) + cost
		return b.free
	}
	wake := nextPub
	if t, ok := b.q.NextVisible(); ok && t < wake {
		wake = max(t, now+1)
	}
	return wake
}

// s returns the simulation of the broker.
func (b *broker) s() *Sim { return b.readers[0].t.s }

// pollQueue polls the broker when the source's next time is a time to
// poll again (no message in hand) and it has come.
func (src *source) pollQueue(now des.Time) {
	if r := src.qr; r != nil && !r.has && !src.ended && src.vt <= now {
		src.draw()
	}
}

// reopen closes the channel at a failover: its unacknowledged messages
// wait for their visibility timeout (those emitted are to replay), and
// the restarted subtask polls on a new channel.
func (r *queueReader) reopen() {
	b := r.b
	b.q.Unacked(r.c, func(id uint64) {
		if r.has && id == r.cur.ID {
			b.unemitted[id] = true
		} else {
			b.awaiting[id] = true
		}
	})
	r.has, r.emittedAt = false, -1
	r.c = b.chans
	b.chans++
	r.src.vt, r.src.ended = 0, false
}

// lag is the consumer's share of the queue's ready backlog: the ready
// messages split over the consumer subtasks, the first ones taking the
// remainder, so that the subtasks' lags add up to the queue's depth.
func (r *queueReader) lag() uint64 {
	b := r.b
	n := len(b.readers)
	d := b.q.Depth()
	i := 0
	for j, s := range b.readers {
		if s == r.src {
			i = j
		}
	}
	l := d / n
	if i < d%n {
		l++
	}
	return uint64(l)
}

// ackQueues acknowledges, at the completion of checkpoint ck, the
// messages each consumer emitted before its barrier, on the channel it
// had then (a channel closed since cannot acknowledge).
func (s *Sim) ackQueues(ck *checkpoint) {
	for _, b := range s.brokerList {
		for _, src := range b.readers {
			if sn := ck.sources[src.seq]; sn.queueChan == src.qr.c && sn.queueAt >= 0 {
				b.q.AckBefore(src.qr.c, sn.queueAt)
			}
		}
	}
}

// QueueSummary is a queue at the end of the run (summary.json queues[]),
// as RabbitMQ's management API reports a queue's message counts.
type QueueSummary struct {
	Name string `json:"name"`
	// Published, Delivered (redeliveries included), Acked, Redelivered
	// (deliveries flagged redelivered) and Paged (deliveries that paged
	// the message in from disk) count messages over the run.
	Published   uint64 `json:"published"`
	Delivered   uint64 `json:"delivered"`
	Acked       uint64 `json:"acked"`
	Redelivered uint64 `json:"redelivered"`
	Paged       uint64 `json:"paged"`
	// Depth is the ready messages at the end (messages_ready), MaxDepth
	// the most seen; Unacked those delivered and not acknowledged
	// (messages_unacknowledged); PagedOut the ready ones on disk.
	Depth    int `json:"depth"`
	MaxDepth int `json:"max_depth"`
	Unacked  int `json:"unacked"`
	PagedOut int `json:"paged_out"`
	// PagingFromS is when a delivery first paged a message in (the
	// working set passed memory_bound), -1 never; RateBefore and
	// RateAfter the deliveries per second before and after it.
	PagingFromS float64 `json:"paging_from_s"`
	RateBefore  float64 `json:"delivery_rate_before"`
	RateAfter   float64 `json:"delivery_rate_after,omitempty"`
}

// queueSummaries sums up the queues at now.
func (s *Sim) queueSummaries(now des.Time) []QueueSummary {
	var out []QueueSummary
	for _, pq := range s.plan.Queues {
		b := s.brokers[pq]
		if b == nil {
			out = append(out, QueueSummary{Name: pq.Name, PagingFromS: -1})
			continue
		}
		st := b.q.Stats()
		qs := QueueSummary{Name: pq.Name, Published: st.Published, Delivered: st.Delivered, Acked: st.Acked,
			Redelivered: st.Redelivered, Paged: st.Paged, Depth: b.q.Depth(), MaxDepth: st.MaxDepth, PagedOut: b.q.Paged(), PagingFromS: -1}
		for c := range b.chans {
			qs.Unacked += b.q.InFlight(c)
		}
		if b.pagedAt >= 0 {
			qs.PagingFromS = round6(b.pagedAt.Seconds())
			if b.pagedAt > 0 {
				qs.RateBefore = round6(float64(b.deliveredBefore) / b.pagedAt.Seconds())
			}
			if now > b.pagedAt {
				qs.RateAfter = round6(float64(st.Delivered-b.deliveredBefore) / (now - b.pagedAt).Seconds())
			}
		} else if now > 0 {
			qs.RateBefore = round6(float64(st.Delivered) / now.Seconds())
		}
		out = append(out, qs)
	}
	return out
}

// queueText is a queue's line of the summary table.
func queueText(q *QueueSummary) string {
	s := fmt.Sprintf("queue %s: %d published, %d delivered (%d redelivered), %d acknowledged, depth %d (max %d), %d unacknowledged",
		q.Name, q.Published, q.Delivered, q.Redelivered, q.Acked, q.Depth, q.MaxDepth, q.Unacked)
	if q.Paged > 0 {
		s += fmt.Sprintf(", %d paged in from disk", q.Paged)
	}
	return s
}

// queuePaging is the diagnosis line of a queue whose working set passed
// memory: "the working set of queue orders passed memory at 312s: throughput
// fell from 9.8k/s to 2.3k/s".
func queuePaging(q *QueueSummary) string {
	if q.PagingFromS < 0 || q.RateAfter >= q.RateBefore {
		return ""
	}
	return fmt.Sprintf("the working set of queue %s passed memory at %s: throughput fell from %s to %s", q.Name,
		FormatTime(des.FromSeconds(q.PagingFromS)), scenario.FormatRate(math.Round(q.RateBefore*10)/10), scenario.FormatRate(math.Round(q.RateAfter*10)/10))
}

// emittedMsg follows the write of the message in hand; it reports
// whether it was emitted before (a duplicate: replayed).
func (r *queueReader) emittedMsg() bool {
	r.has = false
	r.emittedAt = r.at
	id := r.cur.ID
	if !r.cur.Redelivered {
		return false
	}
	if r.b.unemitted[id] {
		delete(r.b.unemitted, id)
		return false
	}
	delete(r.b.awaiting, id)
	return true
}

// diagnoseQueues puts a queue whose throughput fell when its working set
// passed memory in the diagnosis, as topicLoss does a retention loss.
func (s *Sim) diagnoseQueues(sum *Summary) {
	for i := range sum.Queues {
		line := queuePaging(&sum.Queues[i])
		if line == "" {
			continue
		}
		sum.Diagnosis.lead(line)
	}
}
