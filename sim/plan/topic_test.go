package plan

import (
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/scenario"
)

const topicYAML = `duration: 100s
topics:
  - name: clicks
    partitions: 4
    retention: {time: 20s}
sources:
  - name: app
    arrival: {process: constant, rate: 1000/s}
    writes: {topic: clicks}
  - name: etl
    parallelism: 2
    arrival: {process: topic, topic: clicks}
sinks:
  - name: out
    input: etl
`

// TestTopicPlan: a producer is no vertex; the reader's subtasks own the
// partitions getSplitOwner gives them; the estimate counts the readers'
// regenerated records and cursors, and the retained bytes.
func TestTopicPlan(t *testing.T) {
	for _, c := range []struct {
		retention string
		retained  int64
	}{{"{time: 20s}", 1000 * 100 * 20}, {"{time: 20s, size: 100KB}", 4 * 100000}} {
		sc, err := scenario.Parse("t.yaml", []byte(strings.Replace(topicYAML, "{time: 20s}", c.retention, 1)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(sc)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Vertices) != 2 || p.Vertex("app") != nil || p.Vertex("etl") == nil {
			t.Fatalf("vertices %v: the producer app must not be one", p.Names())
		}
		tp := p.Topic("clicks")
		if tp == nil || len(tp.Producers) != 1 || tp.Producers[0].Name != "app" || len(tp.Readers) != 1 || tp.Readers[0].Name != "etl" || p.TopicOf(p.Vertex("etl")) != tp {
			t.Fatalf("topic %+v", tp)
		}
		// "clicks": start index 860524917 mod 2 = 1
		if a, b := tp.Owned(0, 2), tp.Owned(1, 2); len(a) != 2 || a[0] != 1 || a[1] != 3 || len(b) != 2 || b[0] != 0 || b[1] != 2 {
			t.Errorf("owned %v and %v, want [1 3] and [0 2]", a, b)
		}
		e := p.Estimate(nil)
		if e.Offered != 1000 || e.TopicReads != 3000 || e.TopicRetained != c.retained {
			t.Errorf("offered %g, topic reads %g, retained %d; want 1000, 3000 ((2 subtasks + the shared log end) x 1000/s), %d", e.Offered, e.TopicReads, e.TopicRetained, c.retained)
		}
		if e.ZipfKeys != 0 {
			t.Errorf("zipf keys %d, want 0 (uniform producer)", e.ZipfKeys)
		}
		// (2 subtasks x 3 cursors (position, log start, the initial
		// position) + the shared log end) x (256 + 4 x 25 + 1 x 512),
		// and 4 summary rows of 512
		if e.TopicBytes != (2*3+1)*868+4*512 {
			t.Errorf("topic bytes %d, want %d", e.TopicBytes, (2*3+1)*868+4*512)
		}
	}
}

// TestStoredTopicEstimate: a topic that a sink writes is held by the
// simulator: its records over min(duration, retention), 48 bytes each,
// count in Memory; its reader emits what the writer receives.
func TestStoredTopicEstimate(t *testing.T) {
	sc, err := scenario.Parse("t.yaml", []byte(`duration: 120s
topics:
  - name: events
    partitions: 4
sources:
  - name: sensors
    arrival: {process: constant, rate: 1000/s}
  - name: in
    arrival: {process: topic, topic: events}
sinks:
  - name: to-kafka
    input: sensors
    writes: {topic: events}
  - name: out
    input: in
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	tp := p.Topic("events")
	if !tp.Stored() || len(tp.Writers) != 1 || tp.Writers[0].Name != "to-kafka" || len(tp.Producers) != 0 {
		t.Fatalf("topic %+v: want written by to-kafka", tp)
	}
	e := p.Estimate(nil)
	if e.ZipfKeys != 0 {
		t.Errorf("zipf keys %d", e.ZipfKeys)
	}
	// the stored records, and a summary row per partition of its reader
	if e.TopicBytes != 120000*48+4*512 || e.Offered != 2000 || e.Records != 2000+1000+1000 {
		t.Errorf("topic bytes %d, offered %g, records %g; want %d, 2000, 4000", e.TopicBytes, e.Offered, e.Records, 120000*48+4*512)
	}
	if e.Memory < e.TopicBytes {
		t.Errorf("memory %d leaves out the stored topic's %d", e.Memory, e.TopicBytes)
	}
}

// TestTopicZipfProducer: a producer's zipf key table counts in the
// estimate's memory, once.
func TestTopicZipfProducer(t *testing.T) {
	sc, err := scenario.Parse("t.yaml", []byte(strings.Replace(topicYAML, "    writes: {topic: clicks}", "    keys: {count: 5000, distribution: zipf}\n    writes: {topic: clicks}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Estimate(nil); e.ZipfKeys != 5000 {
		t.Errorf("zipf keys %d, want 5000", e.ZipfKeys)
	}
}

// TestTopicPartitionBytes: the estimate counts every partition of a topic
// in every cursor of its reader and in the summary. 100,000 partitions
// read by 2 subtasks without checkpoints: 7 cursors (each subtask's
// position, log start and the copy a checkpoint would take, and the
// shared log end) of 256 + 100,000 x 25 + 512 (one producer instance)
// bytes, and 100,000 summary rows of 512 bytes: 68,705,376 bytes, over
// 50MiB (a run's peak resident memory grows by some 69 MB over 10
// partitions).
func TestTopicPartitionBytes(t *testing.T) {
	sc, err := scenario.Parse("t.yaml", []byte(strings.Replace(topicYAML, "partitions: 4", "partitions: 100000", 1)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Estimate(nil)
	const want = 7*(256+100000*25+512) + 100000*512
	if e.TopicBytes != want || e.TopicPartitions != 100000 {
		t.Errorf("topic bytes %d over %d partitions, want %d over 100000", e.TopicBytes, e.TopicPartitions, want)
	}
	if e.Memory < want || e.Memory <= 50<<20 {
		t.Errorf("memory %d, want at least the topic's %d, over 50MiB", e.Memory, want)
	}
}
