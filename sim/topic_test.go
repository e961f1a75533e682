package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
)

// topicJob is a producer at lambda/s into a topic of 4 partitions, read by
// a source of parallelism par whose subtasks read at most mu/s each.
func topicJob(lambda, mu float64, par int, duration, retention string, extra string) string {
	return fmt.Sprintf(`duration: %s
topics:
  - name: clicks
    partitions: 4
    retention: {time: %s}
%s
sources:
  - name: app
    arrival: {process: constant, rate: %g/s}
    writes: {topic: clicks}
  - name: etl
    parallelism: %d
    max_rate: %g/s
    arrival: {process: topic, topic: clicks}
sinks:
  - name: out
    input: etl
`, duration, retention, extra, lambda, par, mu)
}

func topicSummary(t *testing.T, s *sim.Summary, name string) sim.TopicSummary {
	t.Helper()
	for _, ts := range s.Topics {
		if ts.Name == name {
			return ts
		}
	}
	t.Fatalf("no topic %s in the summary", name)
	return sim.TopicSummary{}
}

// TestTopicLagGrows: with lambda > mu the lag grows at lambda - mu
// (DESIGN.md §4: lag of a log).
func TestTopicLagGrows(t *testing.T) {
	for _, d := range []int{40, 80} {
		sc := parse(t, "t.yaml", []byte(topicJob(1000, 600, 1, fmt.Sprintf("%ds", d), "1h", "")))
		s := run(t, sc)
		ts := topicSummary(t, s, "clicks")
		within(t, fmt.Sprintf("pending records at %ds", d), float64(ts.PendingRecords), 400*float64(d), 0.01)
		if ts.LostToRetention != 0 {
			t.Errorf("lost to retention %d, want 0", ts.LostToRetention)
		}
		var lagS float64
		for _, p := range ts.PartitionList {
			lagS = max(lagS, p.LagS)
		}
		// the reader at 600/s stands at records appended at 0.6 t: age 0.4 t
		within(t, "lag age", lagS, 0.4*float64(d), 0.01)
	}
}

// TestTopicRetentionLoss: with retention R, loss starts when the lag's
// age reaches R (0.4 t = 20s at t = 50s) and runs at lambda - mu.
func TestTopicRetentionLoss(t *testing.T) {
	for _, c := range []struct {
		d    int
		want float64
	}{{45, 0}, {55, 400 * 5}, {100, 400 * 50}, {150, 400 * 100}} {
		s := run(t, parse(t, "t.yaml", []byte(topicJob(1000, 600, 1, fmt.Sprintf("%ds", c.d), "20s", ""))))
		got := float64(topicSummary(t, s, "clicks").LostToRetention)
		if c.want == 0 {
			if got != 0 {
				t.Errorf("at %ds: %g lost before the lag's age reached retention", c.d, got)
			}
			continue
		}
		within(t, fmt.Sprintf("lost to retention by %ds", c.d), got, c.want, 0.03)
		if s.Delivery.LostToRetention != uint64(got) {
			t.Errorf("delivery's lost_to_retention %d, topic's %g", s.Delivery.LostToRetention, got)
		}
	}
}

// topicEOS is exactly-once.yaml with its source turned into a producer
// of 2 instances (poisson 500/s each, murmur2) and a KafkaSource of
// parallelism 2 over a topic of 6 partitions.
func topicEOS(delivery string) string {
	return `duration: 120s
warmup: 10s
workers: {count: 2, slots: 1, heartbeat_timeout: 10s}
topics:
  - name: sensors
    partitions: 6
sources:
  - name: devices
    parallelism: 2
    arrival: {process: poisson, rate: 500/s}
    keys: {count: 1000, distribution: uniform}
    writes: {topic: sensors}
  - name: in
    parallelism: 2
    max_rate: 800/s
    arrival: {process: topic, topic: sensors}
operators:
  - name: aggregate
    input: in
    partitioning: hash
    parallelism: 2
    service_time: {distribution: exponential, mean: 1ms}
    state: {bytes_per_key: 1KiB}
sinks:
  - name: out
    input: aggregate
    parallelism: 2
    delivery: ` + delivery + `
checkpoint: {mode: aligned, interval: 10s}
restart: {type: fixed-delay, delay: 2s}
failures:
  - {kind: worker, at: 45s, worker: 1}
`
}

// TestTopicCommitAndRewind: the committed offsets are the positions of
// the latest completed checkpoint; after the failure the reader rewinds to
// them, so a transactional sink gets every record once and an
// at-least-once sink duplicates the replayed ones.
func TestTopicCommitAndRewind(t *testing.T) {
	s := run(t, parse(t, "t.yaml", []byte(topicEOS("transactional"))))
	d := s.Delivery
	if d.Lost != 0 || d.Duplicated != 0 || d.LostToRetention != 0 {
		t.Errorf("exactly-once through a topic: lost %d, duplicated %d, lost to retention %d; want 0, 0, 0", d.Lost, d.Duplicated, d.LostToRetention)
	}
	if d.Replayed == 0 {
		t.Error("the reader replayed nothing after the failure")
	}
	if d.Emitted != d.Delivered+d.InFlight+d.Uncommitted+d.Lost+d.ToReplay {
		t.Errorf("emitted %d != delivered %d + in flight %d + uncommitted %d + lost %d + to replay %d",
			d.Emitted, d.Delivered, d.InFlight, d.Uncommitted, d.Lost, d.ToReplay)
	}
	ts := topicSummary(t, s, "sensors")
	var leo, committed uint64
	for _, p := range ts.PartitionList {
		if p.Committed < 0 || uint64(p.Committed) > p.Position || p.Position > p.LogEndOffset {
			t.Errorf("partition %d: committed %d, position %d, log end %d: want committed <= position <= log end", p.Partition, p.Committed, p.Position, p.LogEndOffset)
		}
		leo += p.LogEndOffset
		committed += uint64(p.Committed)
	}
	// 2 x 500/s for 120s; checkpoints restart 10s after the restore at
	// 57.02s (45s + 10s detection + 2s delay + 20ms restore), so the last
	// one completed was triggered at 117.02s and committed what was read
	// by then: the backlog had drained by 85s, so 117.02s of appends
	within(t, "records appended", float64(leo), 120000, 0.01)
	within(t, "committed offsets", float64(committed), 117020, 0.01)
	a := run(t, parse(t, "t.yaml", []byte(topicEOS("at-least-once"))))
	if a.Delivery.Duplicated == 0 || a.Delivery.Lost != 0 {
		t.Errorf("at-least-once through a topic: duplicated %d, lost %d; want > 0 and 0", a.Delivery.Duplicated, a.Delivery.Lost)
	}
}

// TestTopicAssignment: each partition is read by the subtask
// KafkaSourceEnumerator.getSplitOwner names ("clicks" over 2 readers
// starts at 860524917 mod 2 = 1), and a round-robin producer gives each
// partition a quarter of the records, so each reader's lag grows at
// 2 x 250 - 300 = 200/s.
func TestTopicAssignment(t *testing.T) {
	y := strings.Replace(topicJob(1000, 300, 2, "50s", "1h", ""), "writes: {topic: clicks}", "writes: {topic: clicks, partitioner: round-robin}", 1)
	s := run(t, parse(t, "t.yaml", []byte(y)))
	ts := topicSummary(t, s, "clicks")
	want := map[int]int{0: 1, 1: 0, 2: 1, 3: 0}
	if len(ts.PartitionList) != 4 {
		t.Fatalf("%d partitions listed, want 4", len(ts.PartitionList))
	}
	for _, p := range ts.PartitionList {
		if p.Subtask != want[p.Partition] || p.Reader != "etl" {
			t.Errorf("partition %d read by %s[%d], want etl[%d]", p.Partition, p.Reader, p.Subtask, want[p.Partition])
		}
		near(t, fmt.Sprintf("partition %d log end", p.Partition), float64(p.LogEndOffset), 12500, 1)
	}
	within(t, "pending records", float64(ts.PendingRecords), 400*50, 0.01)
	within(t, "records-lag-max", float64(ts.RecordsLagMax), 100*50, 0.01)
}

// TestTopicRetentionBySize: retention.size keeps size/record_size records
// per partition; a reader that lags more loses the rest.
func TestTopicRetentionBySize(t *testing.T) {
	y := strings.Replace(topicJob(1000, 600, 1, "100s", "1h", ""), "retention: {time: 1h}", "retention: {time: 1h, size: 100KB}", 1)
	y = strings.Replace(y, "writes: {topic: clicks}", "writes: {topic: clicks, partitioner: round-robin}", 1)
	s := run(t, parse(t, "t.yaml", []byte(y)))
	ts := topicSummary(t, s, "clicks")
	// each partition keeps 1000 records (100 KB of 100 B): the lag stops
	// at 4000; the lag reaches it at 10s, and then 400/s are lost
	within(t, "lost to retention", float64(ts.LostToRetention), 400*90, 0.03)
	for _, p := range ts.PartitionList {
		if p.RetainedBytes != 100000 || p.LogEndOffset-p.LogStartOffset != 1000 {
			t.Errorf("partition %d retains %d B, %d records; want 100000 B, 1000", p.Partition, p.RetainedBytes, p.LogEndOffset-p.LogStartOffset)
		}
	}
}

// TestTopicCursor: the exported cursor reads what a reader reads: its
// partitions only, in send order, each offset once.
func TestTopicCursor(t *testing.T) {
	p, err := plan.Compile(parse(t, "t.yaml", []byte(topicJob(1000, 600, 2, "10s", "1h", ""))))
	if err != nil {
		t.Fatal(err)
	}
	tp := p.Topic("clicks")
	c := sim.NewTopicCursor(tp, 0, 2, 1, 10*des.Second)
	var last des.Time
	n := 0
	per := map[int]uint64{}
	for at := c.Next(); at != des.Never; at = c.Next() {
		sent, _, part, size := c.Record()
		if tp.Owner(part, 2) != 0 || size != 100 || sent < last || at != sent+2*des.Millisecond {
			t.Fatalf("record %d: partition %d, size %d, sent %v after %v, readable %v", n, part, size, sent, last, at)
		}
		if c.Offset(part) != per[part] {
			t.Fatalf("partition %d: offset %d, want %d", part, c.Offset(part), per[part])
		}
		per[part]++
		last = sent
		n++
	}
	// partitions 1 and 3 of 4 (murmur2 of 1000 uniform keys): about half of 10000
	within(t, "records of reader 0", float64(n), 5000, 0.05)
}

// TestTopicBrokerLimit: a partition leader that appends 50 KB/s takes
// 500 records/s of 100 B, whatever the producer sends: the reader reads
// at that rate, and the appends queue at the broker.
func TestTopicBrokerLimit(t *testing.T) {
	y := strings.Replace(topicJob(1000, 5000, 1, "40s", "1h", ""), "partitions: 4", "partitions: 1\n    bandwidth: 50KB/s", 1)
	s := run(t, parse(t, "t.yaml", []byte(y)))
	ts := topicSummary(t, s, "clicks")
	p := ts.PartitionList[0]
	within(t, "log end offset", float64(p.LogEndOffset), 500*40, 0.001)
	if p.Lag > 1 {
		t.Errorf("lag %d: the reader keeps up with the broker", p.Lag)
	}
	within(t, "records delivered", float64(s.Delivery.Delivered), 500*40, 0.01)
}

// twoJobs is a job that writes topic events with a sink of delivery d,
// and a second job that reads it (read_committed) into a sink; both
// checkpoint every 10s; a worker failure at 45s when fail is set.
func twoJobs(d, out string, fail bool) string {
	y := `duration: 120s
warmup: 20s
workers: {count: 2, slots: 1, heartbeat_timeout: 10s}
topics:
  - name: events
    partitions: 4
sources:
  - name: sensors
    parallelism: 2
    arrival: {process: poisson, rate: 500/s}
    max_rate: 2000/s
  - name: in
    parallelism: 2
    max_rate: 50000/s
    arrival: {process: topic, topic: events}
operators:
  - name: parse
    input: sensors
    partitioning: rebalance
    parallelism: 2
    service_time: {distribution: exponential, mean: 0.2ms}
sinks:
  - name: to-kafka
    input: parse
    parallelism: 2
    delivery: ` + d + `
    writes: {topic: events}
  - name: out
    input: in
    partitioning: rebalance
    parallelism: 2
    delivery: ` + out + `
checkpoint: {mode: aligned, interval: 10s}
restart: {type: fixed-delay, delay: 2s}
`
	if fail {
		y += "failures:\n  - {kind: worker, at: 45s, worker: 1}\n"
	}
	return y
}

// TestTopicBetweenJobs: a transactional Kafka sink makes records visible
// to read_committed readers at checkpoint completion, so the second job's
// end-to-end latency grows by about the checkpoint interval (its own sink
// commits a checkpoint later); with a failure, exactly-once holds end to
// end, and an at-least-once Kafka sink leaves duplicates that reach the
// second job's sink.
func TestTopicBetweenJobs(t *testing.T) {
	s := run(t, parse(t, "t.yaml", []byte(twoJobs("at-least-once", "at-least-once", false))))
	fast := *vertex(t, s, "out").LatencyP50
	s = run(t, parse(t, "t.yaml", []byte(twoJobs("transactional", "at-least-once", false))))
	slow := *vertex(t, s, "out").LatencyP50
	// at-least-once all the way: the two jobs' own latency (buffer
	// timeouts, a few hundred ms); through a transactional Kafka sink a
	// record waits for the first job's commit too: half the 10s interval
	// (and the second job reads a commit's 10,000 records as a burst, at
	// 2 x 50,000/s: 0.1s)
	if fast > 500 {
		t.Errorf("p50 end-to-end latency at-least-once through the topic %.0fms, want a few hundred", fast)
	}
	within(t, "p50 latency added by a transactional Kafka sink (ms)", slow-fast, 5000, 0.1)
	s = run(t, parse(t, "t.yaml", []byte(twoJobs("transactional", "transactional", false))))
	// and a transactional sink in the second job waits for its own
	// commit: both jobs checkpoint together every 10s, so a record made
	// visible at a commit waits a whole interval for the next one
	within(t, "p50 end-to-end latency through two transactional sinks (ms)", *vertex(t, s, "out").LatencyP50, 15000, 0.1)
	for _, c := range []struct {
		d    string
		dups bool
	}{{"transactional", false}, {"at-least-once", true}} {
		s := run(t, parse(t, "t.yaml", []byte(twoJobs(c.d, "transactional", true))))
		var out, kafka sim.SinkSummary
		for _, k := range s.Delivery.Sinks {
			switch k.Name {
			case "out":
				out = k
			case "to-kafka":
				kafka = k
			}
		}
		if s.Recovery.Restarts != 1 || s.Delivery.Lost != 0 {
			t.Fatalf("%s: %d restarts, %d lost; want 1 and 0", c.d, s.Recovery.Restarts, s.Delivery.Lost)
		}
		if c.dups != (out.Duplicated > 0) || out.Duplicated != kafka.Duplicated {
			t.Errorf("%s Kafka sink: %d duplicates reach out, %d were written to the topic; want them equal and nonzero: %v", c.d, out.Duplicated, kafka.Duplicated, c.dups)
		}
		if out.Delivered < 100000 {
			t.Errorf("%s: out delivered %d distinct records, want about 115000", c.d, out.Delivered)
		}
	}
}

// TestTopicPubSub: one topic, two consumer groups (two jobs' sources),
// each reading every record at its own pace: the fast one keeps up, the
// slow one lags at lambda - mu, and neither takes records from the other
// (a log, unlike a queue's competing consumers).
func TestTopicPubSub(t *testing.T) {
	y := topicJob(1000, 600, 1, "50s", "1h", "") + `  - name: dashboard
    input: fast
operators:
  - name: fast
    input: fastsrc
    service_time: {distribution: constant, mean: 0.1ms}
`
	y = strings.Replace(y, "sinks:\n", `  - name: fastsrc
    arrival: {process: topic, topic: clicks}
sinks:
`, 1)
	s := run(t, parse(t, "t.yaml", []byte(y)))
	ts := topicSummary(t, s, "clicks")
	lag := map[string]uint64{}
	read := map[string]uint64{}
	for _, p := range ts.PartitionList {
		lag[p.Reader] += p.Lag
		read[p.Reader] += p.Position
	}
	within(t, "slow group's lag", float64(lag["etl"]), 400*50, 0.01)
	if lag["fastsrc"] > 5 {
		t.Errorf("fast group's lag %d, want about 0", lag["fastsrc"])
	}
	within(t, "records read by the fast group", float64(read["fastsrc"]), 1000*50, 0.001)
	within(t, "records read by the slow group", float64(read["etl"]), 600*50, 0.001)
}

// BenchmarkTopic32 is the speed target: a job reading a
// 32-partition topic (4 producer instances at 50,000/s each, murmur2),
// with a KafkaSource of parallelism 4 (8 partitions each) chained to a
// sink; records the sink received per wall second.
func BenchmarkTopic32(b *testing.B) {
	benchRecords(b, parse(b, "t.yaml", []byte(`duration: 10s
workers: {count: 1, slots: 4}
topics:
  - name: clicks
    partitions: 32
sources:
  - name: app
    parallelism: 4
    arrival: {process: poisson, rate: 50000/s}
    writes: {topic: clicks}
  - name: in
    parallelism: 4
    arrival: {process: topic, topic: clicks}
sinks:
  - name: out
    input: in
`)))
}
