package scenario

import (
	"fmt"
	"strings"

	"github.com/dspalab/dspalab/internal/strictyaml"
)

// Rules of topics (Scenario.Topics) between fields: names, producers,
// readers and retention. The single fields are checked by their
// description in fields.go.

// TopicByName returns the topic named name, or nil.
func (s *Scenario) TopicByName(name string) *Topic {
	for i := range s.Topics {
		if s.Topics[i].Name == name {
			return &s.Topics[i]
		}
	}
	return nil
}

// IsProducer reports whether the source writes a topic (Source.Writes):
// a Kafka producer outside the job graph.
func (s *Source) IsProducer() bool { return s.Writes != nil }

// ReadsTopic reports whether the source reads a topic (arrival process
// topic): Flink's KafkaSource.
func (s *Source) ReadsTopic() bool { return s.Arrival.Process == ArrivalTopic }

// unknownTopic reports name, at path, as a topic the scenario does not
// declare: with the nearest declared name, or the declared ones. When a
// topic's name was refused (reported already), it says nothing: name may
// be that topic's.
func (c *checker) unknownTopic(path, name string) {
	var names []string
	seen := map[string]bool{}
	for i, t := range c.s.Topics {
		switch {
		case t.Name == "" && c.isBad(strictyaml.Index(kTopics, i)+"."+kName):
			return
		case t.Name != "" && !seen[t.Name]:
			seen[t.Name] = true
			names = append(names, t.Name)
		}
	}
	msg := fmt.Sprintf("unknown topic %s", quote(name))
	if sug := c.suggestName(name, names); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	} else if len(names) == 0 {
		msg += "; the scenario declares no topics (add one under topics:)"
	} else if len(names) <= 10 {
		msg += "; topics are " + strings.Join(names, ", ")
	}
	c.errorf(path, "%s", msg)
}

// topics checks the topics and the sources that write and read them.
func (c *checker) topics() {
	s := c.s
	var names []string
	first := map[string]int{}
	for i, t := range s.Topics {
		p := strictyaml.Index(kTopics, i)
		if t.Name == "" {
			continue
		}
		if j, dup := first[t.Name]; dup {
			line, _ := s.Pos(strictyaml.Index(kTopics, j) + "." + kName)
			c.errorf(p+"."+kName, "duplicate topic name %s; first declared at line %d", quote(t.Name), line)
			continue
		}
		first[t.Name] = i
		names = append(names, t.Name)
		if t.Retention.Time > 0 && t.Retention.Time <= t.AppendLatency {
			c.errorf(p+"."+kRetention+"."+kTime, "must be longer than append_latency (%s): records would be deleted before they can be read, got %s",
				FormatDuration(t.AppendLatency), FormatDuration(t.Retention.Time))
		}
	}
	produced := map[string]bool{}
	producers := map[string]bool{}
	for i, src := range s.Sources {
		p := strictyaml.Index(kSources, i)
		if src.ReadsTopic() && src.Arrival.Topic != "" {
			if _, ok := first[src.Arrival.Topic]; !ok {
				c.unknownTopic(p+"."+kArrival+"."+kTopic, src.Arrival.Topic)
			}
			if !src.Replayable && c.s.given(p+"."+kReplayable) {
				c.errorf(p+"."+kReplayable, "a source of process topic reads a log by offset: it is replayable, got false")
			}
		}
		if src.Writes == nil {
			continue
		}
		producers[src.Name] = true
		if src.Writes.Topic != "" {
			if _, ok := first[src.Writes.Topic]; !ok {
				c.unknownTopic(p+"."+kWrites+"."+kTopic, src.Writes.Topic)
			}
			produced[src.Writes.Topic] = true
		}
		switch src.Arrival.Process {
		case ArrivalTopic:
			c.errorf(p+"."+kArrival+"."+kProcess, "a producer (writes) generates its records; it cannot read a topic too (use an operator chain in a job that reads one topic and a sink that writes the other)")
		case ArrivalTrace:
			c.errorf(p+"."+kArrival+"."+kProcess, "a producer (writes) replays no trace yet: use constant, poisson, bursty or schedule")
		}
	}
	bySink := map[string]string{} // topic: the first sink that writes it
	for i, sk := range s.Sinks {
		if sk.Writes == nil || sk.Writes.Topic == "" {
			continue
		}
		p := strictyaml.Index(kSinks, i) + "." + kWrites + "." + kTopic
		if sk.Delivery == DeliveryIdempotent {
			c.errorf(strictyaml.Index(kSinks, i)+"."+kDelivery, "a sink that writes a topic appends, it cannot upsert by id: use at-least-once, at-most-once (Flink's DeliveryGuarantee.NONE) or transactional (EXACTLY_ONCE)")
		}
		if _, ok := first[sk.Writes.Topic]; !ok {
			c.unknownTopic(p, sk.Writes.Topic)
			continue
		}
		if produced[sk.Writes.Topic] {
			c.errorf(p, "topic %s is written by producer sources already; a topic is written either by producers (writes of a source) or by sinks of jobs, not both", quote(sk.Writes.Topic))
			continue
		}
		if _, ok := bySink[sk.Writes.Topic]; !ok {
			bySink[sk.Writes.Topic] = sk.Name
		}
	}
	for i, t := range s.Topics {
		if _, bysink := bySink[t.Name]; t.Name != "" && !produced[t.Name] && !bysink && first[t.Name] == i {
			c.errorf(strictyaml.Index(kTopics, i)+"."+kName, "topic %s has no producer: give a source writes: {topic: %s} (or a sink of another job)", quote(t.Name), t.Name)
		}
	}
	for _, v := range s.vertices() {
		for j, name := range v.inputs {
			if producers[name] {
				if w := s.sourceByName(name).Writes; w.Queue != "" {
					c.errorf(c.inputPath(v, j), "%s is a producer: it publishes to queue %s, not into the job; consume the queue with a source of arrival process queue",
						quote(name), w.Queue)
				} else {
					c.errorf(c.inputPath(v, j), "%s is a producer: it writes topic %s, not into the job; read the topic with a source of arrival process topic",
						quote(name), w.Topic)
				}
			}
		}
	}
}

// sourceByName returns the source named name, or nil.
func (s *Scenario) sourceByName(name string) *Source {
	for i := range s.Sources {
		if s.Sources[i].Name == name {
			return &s.Sources[i]
		}
	}
	return nil
}
