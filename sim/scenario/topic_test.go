package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/dspalab/dspalab/sim/des"
)

const topicBase = `duration: 10s
topics:
  - name: clicks
    partitions: 4
    retention: {time: 30s}
sources:
  - name: app
    arrival: {process: poisson, rate: 100/s}
    writes: {topic: clicks}
  - name: etl
    parallelism: 2
    arrival: {process: topic, topic: clicks}
sinks:
  - name: out
    input: etl
`

// TestTopicDecode: a producer and a reader of a topic, with defaults.
func TestTopicDecode(t *testing.T) {
	s, err := Parse("t.yaml", []byte(topicBase))
	if err != nil {
		t.Fatal(err)
	}
	tp := s.TopicByName("clicks")
	if tp == nil || tp.Partitions != 4 || tp.Retention.Time != 30*des.Second || tp.Retention.Size != 0 ||
		tp.AppendLatency != des.Time(2*time.Millisecond) || tp.Bandwidth != 0 {
		t.Fatalf("topic: %+v", tp)
	}
	w := s.Sources[0].Writes
	if w == nil || w.Topic != "clicks" || w.Partitioner != PartitionerMurmur2 || w.BatchSize != 16384 {
		t.Fatalf("writes: %+v", w)
	}
	if !s.Sources[0].IsProducer() || s.Sources[1].IsProducer() || !s.Sources[1].ReadsTopic() || s.Sources[1].Arrival.Topic != "clicks" {
		t.Fatal("producer and reader not told apart")
	}
	if d := s.WithDefaults().Topics[0].Retention.Time; d != 30*des.Second {
		t.Fatalf("retention after defaults: %v", d)
	}
	s2, err := Parse("t.yaml", []byte(strings.Replace(topicBase, "    retention: {time: 30s}\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if r := s2.Topics[0].Retention.Time; r != 168*3600*des.Second {
		t.Fatalf("default retention %v, want 7 days", r)
	}
}

// TestTopicErrors: the mistakes of the issue, with file:line:col, field
// path and the nearest valid name.
func TestTopicErrors(t *testing.T) {
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"a consumer of an unknown topic", "process: topic, topic: clicks}", "process: topic, topic: clikcs}",
			`t.yaml:12:38: sources[1].arrival.topic: unknown topic "clikcs"; did you mean "clicks"?`},
		{"partitions <= 0", "partitions: 4", "partitions: 0",
			`t.yaml:4:17: topics[0].partitions: must be at least 1, got 0`},
		{"retention shorter than the append latency", "retention: {time: 30s}", "retention: {time: 1ms}",
			`t.yaml:5:23: topics[0].retention.time: must be longer than append_latency (2ms): records would be deleted before they can be read, got 1ms`},
		{"a topic with no producer", "writes: {topic: clicks}", "keys: {count: 10}",
			`t.yaml:3:11: topics[0].name: topic "clicks" has no producer: give a source writes: {topic: clicks} (or a sink of another job)`},
		{"a producer of an unknown topic", "writes: {topic: clicks}", "writes: {topic: click}",
			`t.yaml:9:21: sources[0].writes.topic: unknown topic "click"; did you mean "clicks"?`},
		{"a vertex reading a producer", "    input: etl\n", "    input: app\n",
			`t.yaml:15:12: sinks[0].input: "app" is a producer: it writes topic clicks, not into the job; read the topic with a source of arrival process topic`},
		{"an unknown partitioner", "writes: {topic: clicks}", "writes: {topic: clicks, partitioner: murmur}",
			`t.yaml:9:42: sources[0].writes.partitioner: unknown partitioner "murmur"; did you mean "murmur2"?`},
		{"batch_size without sticky", "writes: {topic: clicks}", "writes: {topic: clicks, batch_size: 1KiB}",
			`t.yaml:9:29: sources[0].writes.batch_size: "batch_size" applies only to partitioner sticky, not murmur2 (the default)`},
		{"keys of a reader", "    arrival: {process: topic, topic: clicks}\n", "    arrival: {process: topic, topic: clicks}\n    keys: {count: 3}\n",
			`t.yaml:13:5: sources[1].keys: "keys" does not apply to process trace, topic or queue: a trace source takes its keys from the trace's key_column, a topic's or a queue's reader from its producers`},
		{"a non-replayable reader", "    arrival: {process: topic, topic: clicks}\n", "    arrival: {process: topic, topic: clicks}\n    replayable: false\n",
			`t.yaml:13:17: sources[1].replayable: a source of process topic reads a log by offset: it is replayable, got false`},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := strings.Replace(topicBase, c.old, c.new, 1)
			if y == topicBase {
				t.Fatal("the case changes nothing")
			}
			_, err := Parse("t.yaml", []byte(y))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got:\n%v\nwant:\n%s", err, c.want)
			}
		})
	}
}

// TestDedupErrors: a Bloom filter with 0 bits, and dedup on a sink that
// does not deliver at least once.
func TestDedupErrors(t *testing.T) {
	base := `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
    dedup: {bloom_bits: 1024}
`
	s, err := Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Sinks[0].Dedup; d == nil || d.BloomBits != 1024 || d.Hashes != 7 || d.IDRetention != 600*des.Second || d.LookupTime != des.Millisecond || d.ProductionWriteTime != des.Millisecond {
		t.Fatalf("dedup %+v", d)
	}
	for _, c := range []struct{ old, new, want string }{
		{"bloom_bits: 1024", "bloom_bits: 0", `t.yaml:8:25: sinks[0].dedup.bloom_bits: must be at least 1 (a Bloom filter needs bits), got 0`},
		{"    dedup:", "    delivery: transactional\n    dedup:", `t.yaml:9:5: sinks[0].dedup: "dedup" applies only to delivery: at-least-once, not transactional (MillWheel's scheme dedups what at-least-once delivery repeats)`},
		{"bloom_bits: 1024", "bloom_bits: 1024, hashs: 3", `t.yaml:8:31: sinks[0].dedup.hashs: unknown field "hashs"; did you mean "hashes"?`},
	} {
		_, err := Parse("t.yaml", []byte(strings.Replace(base, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got:\n%v\nwant:\n%s", err, c.want)
		}
	}
}

// TestSheddingErrors: shedding needs a replayable source, and a threshold.
func TestSheddingErrors(t *testing.T) {
	base := `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
    shedding: {lag_over: 100, mode: semantic, keep_keys: 10}
sinks:
  - name: out
    input: src
`
	s, err := Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if sh := s.Sources[0].Shedding; sh == nil || sh.QueueOver != 100 || sh.Mode != SheddingSemantic || sh.KeepKeys != 10 || sh.Probability != 1 {
		t.Fatalf("shedding %+v", sh)
	}
	for _, c := range []struct{ old, new, want string }{
		{"lag_over: 100, ", "", `t.yaml:5:15: sources[0].shedding: missing required field "lag_over"`},
		{"    shedding:", "    replayable: false\n    shedding:", `t.yaml:6:15: sources[0].shedding: shedding skips records of a log: the source must be replayable (a socket source drops with on_backpressure: drop)`},
		{"mode: semantic, keep_keys: 10", "probability: 0.5, keep_keys: 10", `t.yaml:5:49: sources[0].shedding.keep_keys: "keep_keys" applies only to mode semantic, not random (the default)`},
		{"keep_keys: 10", "keep_keys: 1000", `t.yaml:5:58: sources[0].shedding.keep_keys: 1000 keeps every key: the source draws 1000 (keys.count), so nothing would be shed; keep_keys must be below 1000`},
		{"    shedding:", "    keys: {count: 5}\n    shedding:", `sources[0].shedding.keep_keys: 10 keeps every key: the source draws 5 (keys.count)`},
	} {
		_, err := Parse("t.yaml", []byte(strings.Replace(base, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got:\n%v\nwant:\n%s", err, c.want)
		}
	}
}

// TestOperatorSheddingErrors: an operator's shedding needs queue_over or
// latency_over; a trigger of 0 is refused; a source's latency_over alone
// is a trigger.
func TestOperatorSheddingErrors(t *testing.T) {
	base := `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: op
    input: src
    service_time: {distribution: constant, mean: 1ms}
    shedding: {queue_over: 100, latency_over: 200ms}
sinks:
  - name: out
    input: op
`
	s, err := Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if sh := s.Operators[0].Shedding; sh == nil || sh.QueueOver != 100 || sh.LatencyOver != 200*des.Millisecond || sh.Mode != SheddingRandom || sh.Probability != 1 {
		t.Fatalf("shedding %+v", sh)
	}
	if _, err := Parse("t.yaml", []byte(strings.Replace(base, "    arrival:", "    shedding: {latency_over: 1s}\n    arrival:", 1))); err != nil {
		t.Errorf("a source shedding by latency alone: %v", err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"queue_over: 100, latency_over: 200ms", "mode: random", `t.yaml:9:15: operators[0].shedding: missing required field "queue_over" (or "latency_over", or both): the trigger that starts the shedding`},
		{"latency_over: 200ms", "latency_over: 0s", `t.yaml:9:47: operators[0].shedding.latency_over: must be greater than 0, got 0s`},
		{"queue_over: 100", "queue_over: 0", `t.yaml:9:28: operators[0].shedding.queue_over: must be at least 1, got 0`},
		{"queue_over: 100", "lag_over: 100", `t.yaml:9:16: operators[0].shedding.lag_over: unknown field "lag_over" here; it belongs in sources[].shedding.lag_over`},
	} {
		_, err := Parse("t.yaml", []byte(strings.Replace(base, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got:\n%v\nwant:\n%s", err, c.want)
		}
	}
}
