package plan

import (
	"math"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Queue is a compiled message queue: a broker component outside the job
// graph, as a topic is (RabbitMQ or SQS style, sim/queue), with the
// producer sources that publish to it and the source vertices that
// consume it (Flink's RabbitMQ source, competing consumers).
type Queue struct {
	// Queue is the scenario's queue, defaults applied.
	*scenario.Queue
	Index int // position in Plan.Queues
	// Producers are the sources that publish to the queue, in
	// declaration order; each of their subtasks is one producer.
	Producers []*scenario.Source
	// Readers are the source vertices that consume the queue.
	Readers []*Vertex
}

// Queue returns the queue named name, or nil.
func (p *Plan) Queue(name string) *Queue {
	for _, q := range p.Queues {
		if q.Name == name {
			return q
		}
	}
	return nil
}

// QueueOf returns the queue a source vertex consumes, or nil.
func (p *Plan) QueueOf(v *Vertex) *Queue {
	if v.Source == nil || !v.Source.ReadsQueue() {
		return nil
	}
	return p.Queue(v.Source.Arrival.Queue)
}

// compileQueues links the queues with their producers and consumers.
func (p *Plan) compileQueues() {
	sc := p.Scenario
	for i := range sc.Queues {
		p.Queues = append(p.Queues, &Queue{Queue: &sc.Queues[i], Index: i})
	}
	for i := range sc.Sources {
		if s := &sc.Sources[i]; s.Writes != nil && s.Writes.Queue != "" {
			if q := p.Queue(s.Writes.Queue); q != nil {
				q.Producers = append(q.Producers, s)
			}
		}
	}
	for _, v := range p.Vertices {
		if q := p.QueueOf(v); q != nil {
			q.Readers = append(q.Readers, v)
		}
	}
}

// Memory of a queue's messages (sim/queue with sim's msgBody, a 16-byte
// publish time and key): a ready message is a 24-byte entry of a slice
// grown by append (up to twice that); an unacknowledged one a 56-byte
// inFlight entry in a slice grown by append, and an index entry (id to
// position) in a Go map, some 40 bytes.
const (
	BytesPerReadyMessage   = 48
	BytesPerUnackedMessage = 152
)

// rate returns the messages per second the producers of q publish over a
// run of duration d.
func (q *Queue) rate(d des.Time) float64 { return producersRate(q.Producers, d) }

// estimateQueues counts the messages the queues with consumers hold (a
// queue no source consumes is not simulated).
func (p *Plan) estimateQueues(e *Estimate) {
	d := p.Scenario.Duration
	for _, q := range p.Queues {
		if len(q.Readers) == 0 {
			continue
		}
		published := finite(q.rate(d)*d.Seconds() + 1)
		unacked := published
		if q.DeliveryCost > 0 {
			unacked = min(unacked, finite(q.VisibilityTimeout.Seconds()/q.DeliveryCost.Seconds()+1))
		}
		e.ReadyMessages = finite(e.ReadyMessages + published)
		e.UnackedMessages = finite(e.UnackedMessages + unacked)
	}
	e.MessageBytes = satAdd(satMul(int64(min(e.ReadyMessages, math.MaxInt64/BytesPerReadyMessage)), BytesPerReadyMessage),
		satMul(int64(min(e.UnackedMessages, math.MaxInt64/BytesPerUnackedMessage)), BytesPerUnackedMessage))
}
