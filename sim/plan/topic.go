package plan

import (
	"math"
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/kafka"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Topic is a compiled topic: a broker component outside the job graph
// (DESIGN.md §3 "Brokers"), with the producer sources that append to it
// (not vertices: Kafka clients outside the job) and the source vertices
// that read it (Flink's KafkaSource).
type Topic struct {
	// Topic is the scenario's topic, defaults applied.
	*scenario.Topic
	Index int // position in Plan.Topics
	// Producers are the sources that write the topic, in declaration
	// order; each of their subtasks is one producer instance with its own
	// partitioner.
	Producers []*scenario.Source
	// Readers are the source vertices that read the topic.
	Readers []*Vertex
	// Writers are the sink vertices that write the topic (Flink's
	// KafkaSink), in topological order; a topic has producers or
	// writers, not both.
	Writers []*Vertex
}

// Stored reports whether the topic's records come from sinks of the
// job, so the simulator must hold them (they cannot be regenerated from
// the producers' seeded streams).
func (t *Topic) Stored() bool { return len(t.Writers) > 0 }

// Owner is the subtask of a reader of parallelism readers that owns
// partition p: Flink's KafkaSourceEnumerator.getSplitOwner.
func (t *Topic) Owner(p, readers int) int { return kafka.SplitOwner(t.Name, p, readers) }

// Owned lists the partitions subtask i of a reader of parallelism readers
// owns, ascending; none when there are more readers than partitions
// (an idle reader, as in Flink).
func (t *Topic) Owned(i, readers int) []int {
	var ps []int
	for p := range t.Partitions {
		if t.Owner(p, readers) == i {
			ps = append(ps, p)
		}
	}
	return ps
}

// Topic returns the topic named name, or nil.
func (p *Plan) Topic(name string) *Topic {
	for _, t := range p.Topics {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TopicOf returns the topic a source vertex reads, or nil.
func (p *Plan) TopicOf(v *Vertex) *Topic {
	if v.Source == nil || !v.Source.ReadsTopic() {
		return nil
	}
	return p.Topic(v.Source.Arrival.Topic)
}

// Memory of a topic reader's cursors (sim's topic.go), measured roughly:
// per cursor a fixed part, per partition its counters (topicReader's
// owned flag, free time, count and lost: 1 + 3 x 8 bytes), per producer
// instance its streams; and per partition of every reader, its row of
// summary.json's topics[].partitions_detail (a 104-byte
// PartitionSummary, its slice's growth and some 300 bytes of its JSON
// text). With 100,000 partitions and a reader of 2 subtasks, a run's peak
// resident memory grows by about 69 MB over that of 10 partitions.
const (
	bytesPerTopicCursor      = 256
	bytesPerCursorPart       = 25
	bytesPerPartitionSummary = 512
	bytesPerCursorStream     = 512
	cursorsPerReader         = 2 // position and log start, per reader subtask
	checkpointedPerReader    = 1 // a checkpoint copies the position cursor
	// a consumer group's partition: its position cursor and the copy its
	// commit keeps; a member (sim's groupMember and its summary row)
	cursorsPerGroupPart = 2
	bytesPerGroupMember = 1024
)

// rate returns the records per second the producers of t send, over a
// run of duration d.
func (t *Topic) rate(d des.Time) float64 { return producersRate(t.Producers, d) }

// producersRate returns the records per second that sources send in all,
// over a run of duration d: each one's mean rate times its parallelism.
func producersRate(sources []*scenario.Source, d des.Time) float64 {
	r := 0.0
	for _, s := range sources {
		r = finite(r + meanRate(s.Arrival, d)*float64(s.Parallelism))
	}
	return r
}

// estimateTopics fills the topic figures of e; out is what each vertex
// emits, records per second.
func (p *Plan) estimateTopics(e *Estimate, out []float64) {
	for _, t := range p.Topics {
		e.TopicPartitions = satAdd(e.TopicPartitions, int64(t.Partitions))
		e.TopicBytes = satAdd(e.TopicBytes, satMul(satMul(int64(t.Partitions), int64(len(t.Readers))), bytesPerPartitionSummary))
		if t.Stored() {
			p.estimateStored(e, t, out)
			continue
		}
		r := t.rate(p.Scenario.Duration)
		instances := int64(0)
		var bytesPerS float64
		for _, s := range t.Producers {
			if s.Keys.Distribution == scenario.KeysZipf {
				e.ZipfKeys += int64(s.Keys.Count) // its key table, made once for all readers
			}
			instances += int64(s.Parallelism)
			bytesPerS = finite(bytesPerS + meanRate(s.Arrival, p.Scenario.Duration)*float64(s.Parallelism)*float64(s.RecordSize))
		}
		cursor := satAdd(bytesPerTopicCursor, satMul(int64(t.Partitions), bytesPerCursorPart), satMul(instances, bytesPerCursorStream))
		copies := int64(cursorsPerReader + checkpointedPerReader*(p.CheckpointsInFlight()+1))
		groups, members := int64(0), int64(0)
		for _, g := range p.ConsumerGroups {
			if g.Topic == t {
				groups++
				members += int64(g.Members)
			}
		}
		// a consumer group: a position cursor per partition, each reading
		// every record, and its committed copy; and its members
		e.TopicReads = finite(e.TopicReads + r*float64(groups*int64(t.Partitions)))
		e.TopicBytes = satAdd(e.TopicBytes, satMul(satMul(groups, int64(t.Partitions)), satMul(cursorsPerGroupPart, cursor)),
			satMul(members, bytesPerGroupMember))
		if len(t.Readers) > 0 || groups > 0 {
			// the log-end cursor, shared by the readers, reads every record once
			e.TopicReads = finite(e.TopicReads + r)
			e.TopicBytes = satAdd(e.TopicBytes, cursor)
		}
		for _, v := range t.Readers {
			e.TopicReads = finite(e.TopicReads + r*float64(v.Parallelism)) // each subtask's position cursor
			e.TopicBytes = satAdd(e.TopicBytes, satMul(satMul(int64(v.Parallelism), copies), cursor))
		}
		kept := finite(bytesPerS * min(t.Retention.Time, p.Scenario.Duration).Seconds())
		if t.Retention.Size > 0 {
			kept = min(kept, float64(satMul(int64(t.Partitions), t.Retention.Size)))
		}
		e.TopicRetained = satAdd(e.TopicRetained, int64(min(kept, math.MaxInt64/2)))
	}
}

// bytesPerStoredRecord is a record a stored topic holds (sim's
// logEntry: the 32-byte record and its visible time, in a slice).
const bytesPerStoredRecord = 48

// estimateStored counts a topic that sinks write: the simulator holds
// its records (at most those of min(duration, retention.time), fewer
// with checkpoints: from the lowest restorable offset on), and its
// readers emit what the writers receive, through every vertex downstream
// of them (selectivity ignored: an upper bound for the usual 1).
func (p *Plan) estimateStored(e *Estimate, t *Topic, out []float64) {
	var r float64
	for _, w := range t.Writers {
		for _, ed := range w.Inputs {
			r = finite(r + out[ed.From.Index])
		}
	}
	held := finite(r * min(t.Retention.Time, p.Scenario.Duration).Seconds())
	if t.Retention.Size > 0 {
		held = min(held, float64(satMul(int64(t.Partitions), t.Retention.Size)))
	}
	e.TopicBytes = satAdd(e.TopicBytes, satMul(int64(min(held, math.MaxInt64/bytesPerStoredRecord)), bytesPerStoredRecord))
	e.TopicRetained = satAdd(e.TopicRetained, int64(min(held*float64(max(p.Scenario.Sources[0].RecordSize, 1)), math.MaxInt64/2)))
	for _, v := range t.Readers {
		e.Offered = finite(e.Offered + r)
		e.Records = finite(e.Records + r*float64(1+downstream(v)))
	}
}

// downstream counts the vertices reachable from v.
func downstream(v *Vertex) int {
	seen := map[*Vertex]bool{}
	stack := []*Vertex{v}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, ed := range u.Outputs {
			if !seen[ed.To] {
				seen[ed.To] = true
				stack = append(stack, ed.To)
			}
		}
	}
	return len(seen)
}

// compileTopics links the topics with their producers and readers.
func (p *Plan) compileTopics() {
	sc := p.Scenario
	for i := range sc.Topics {
		p.Topics = append(p.Topics, &Topic{Topic: &sc.Topics[i], Index: i})
	}
	for i := range sc.Sources {
		s := &sc.Sources[i]
		if s.Writes != nil {
			if t := p.Topic(s.Writes.Topic); t != nil {
				t.Producers = append(t.Producers, s)
			}
		}
	}
	for _, v := range p.Vertices {
		if t := p.TopicOf(v); t != nil {
			t.Readers = append(t.Readers, v)
		}
		if v.Kind == Sink && v.Writes != nil {
			if t := p.Topic(v.Writes.Topic); t != nil {
				t.Writers = append(t.Writers, v)
			}
		}
	}
}

// ConsumerGroup is a compiled consumer group: plain Kafka consumers
// outside the job graph that read Topic (sim's consumer_group.go).
type ConsumerGroup struct {
	// ConsumerGroup is the scenario's group, defaults applied.
	*scenario.ConsumerGroup
	Topic *Topic
}

// MemberID is the member id of member i, by which RangeAssignor orders
// the members: the group's name and i ("billing-0"), as a client.id or
// a group.instance.id would be.
func (g *ConsumerGroup) MemberID(i int) string { return g.Name + "-" + strconv.Itoa(i) }

// compileGroups links the consumer groups to their topics.
func (p *Plan) compileGroups() {
	sc := p.Scenario
	for i := range sc.ConsumerGroups {
		g := &sc.ConsumerGroups[i]
		p.ConsumerGroups = append(p.ConsumerGroups, &ConsumerGroup{ConsumerGroup: g, Topic: p.Topic(g.Topic)})
	}
}
