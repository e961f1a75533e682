package scenario

import (
	"fmt"
	"strings"

	"github.com/dspalab/dspalab/internal/strictyaml"
)

// Rules of queues (Scenario.Queues) between fields: names, producers and
// consumers. The single fields are checked by their description in
// fields.go.

// QueueByName returns the queue named name, or nil.
func (s *Scenario) QueueByName(name string) *Queue {
	for i := range s.Queues {
		if s.Queues[i].Name == name {
			return &s.Queues[i]
		}
	}
	return nil
}

// ReadsQueue reports whether the source consumes a queue (arrival
// process queue): Flink's RabbitMQ source.
func (s *Source) ReadsQueue() bool { return s.Arrival.Process == ArrivalQueue }

// queues checks the queues, the sources that publish to them and those
// that consume them.
func (c *checker) queues() {
	s := c.s
	var names []string
	first := map[string]int{}
	for i, q := range s.Queues {
		p := strictyaml.Index(kQueues, i)
		if q.Name == "" {
			continue
		}
		if j, dup := first[q.Name]; dup {
			line, _ := s.Pos(strictyaml.Index(kQueues, j) + "." + kName)
			c.errorf(p+"."+kName, "duplicate queue name %s; first declared at line %d", quote(q.Name), line)
			continue
		}
		first[q.Name] = i
		names = append(names, q.Name)
	}
	unknown := func(path, name string) {
		msg := fmt.Sprintf("unknown queue %s", quote(name))
		if sug := c.suggestName(name, names); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		} else if len(names) == 0 {
			msg += "; the scenario declares no queues (add one under queues:)"
		} else if len(names) <= 10 {
			msg += "; queues are " + strings.Join(names, ", ")
		}
		c.errorf(path, "%s", msg)
	}
	published := map[string]bool{}
	for i, src := range s.Sources {
		p := strictyaml.Index(kSources, i)
		if src.ReadsQueue() && src.Arrival.Queue != "" {
			if _, ok := first[src.Arrival.Queue]; !ok {
				unknown(p+"."+kArrival+"."+kQueue, src.Arrival.Queue)
			}
			if !src.Replayable && c.s.given(p+"."+kReplayable) {
				c.errorf(p+"."+kReplayable, "a source of process queue leaves unread messages in the queue: back-pressure grows its backlog, got false")
			}
			if src.Shedding != nil {
				c.errorf(p+"."+kShedding, "load shedding at a queue's consumer is not simulated: shed at a source that reads a log or a topic")
			}
			if s.Engine != "" && s.Engine != EngineFlink {
				c.errorf(p+"."+kArrival+"."+kProcess, "a queue is consumed by Flink's RabbitMQ source only; engine %s reads topics (direct Kafka) or receivers", s.Engine)
			}
		}
		w := src.Writes
		if w == nil {
			continue
		}
		wp := p + "." + kWrites
		switch {
		case w.Topic != "" && w.Queue != "":
			c.errorf(wp+"."+kQueue, "a producer writes one topic or one queue, not both (topic %s is given)", w.Topic)
			published[w.Queue] = true // one error, not a second one for the queue
		case w.Topic == "" && w.Queue == "":
			c.errorf(wp, "writes needs a topic (a Kafka producer) or a queue (a RabbitMQ or SQS producer)")
		case w.Queue != "":
			if _, ok := first[w.Queue]; !ok {
				unknown(wp+"."+kQueue, w.Queue)
			}
			published[w.Queue] = true
			if c.s.given(wp + "." + kPartitioner) {
				c.errorf(wp+"."+kPartitioner, "a queue has no partitions: partitioner applies to a topic")
			}
		}
		if src.ReadsQueue() {
			c.errorf(p+"."+kArrival+"."+kProcess, "a producer (writes) generates its records; it cannot consume a queue too")
		}
	}
	for i, sk := range s.Sinks {
		if sk.Writes == nil {
			continue
		}
		wp := strictyaml.Index(kSinks, i) + "." + kWrites
		switch {
		case sk.Writes.Queue != "":
			c.errorf(wp+"."+kQueue, "a sink publishing to a queue is not simulated yet: publish with a producer source (writes: {queue: %s})", sk.Writes.Queue)
		case sk.Writes.Topic == "":
			c.errorf(wp, "writes needs a topic (Flink's KafkaSink)")
		}
	}
	for i, q := range s.Queues {
		if q.Name != "" && !published[q.Name] && first[q.Name] == i {
			c.errorf(strictyaml.Index(kQueues, i)+"."+kName, "queue %s has no producer: give a source writes: {queue: %s}", quote(q.Name), q.Name)
		}
	}
}
