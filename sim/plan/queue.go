package plan

import "github.com/dspalab/dspalab/sim/scenario"

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
