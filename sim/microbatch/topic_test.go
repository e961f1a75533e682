package microbatch

import (
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/scenario"
)

const topicJob = `
engine: spark-streaming
duration: 10s
spark: {batch_interval: 1s, job_overhead: 0s, task_overhead: 0s MAXRATE}
workers: {count: 1, slots: 4}
topics: [{name: clicks, partitions: 4}]
sources:
  - {name: app, arrival: {process: constant, rate: 1000/s}, keys: {count: 100}, writes: {topic: clicks, partitioner: round-robin}}
  - {name: etl, parallelism: 2, arrival: {process: topic, topic: clicks}}
operators: [{name: count, input: etl, partitioning: hash, parallelism: 2, service_time: {mean: 10us}}]
sinks: [{name: out, input: count}]
`

// Direct Kafka over a topic of 4 partitions, a producer at 1000/s
// round-robin (250/s a partition): a batch has a task per Kafka
// partition (4, whatever the source's parallelism), and with
// maxRatePerPartition 100/s each batch reads exactly 4 × 100 records,
// the lag growing by 600 a second; without it each reads what was
// readable by its batch time, all of it by the end but the last 2ms.
func TestDirectKafkaTopic(t *testing.T) {
	r := run(t, parse(t, strings.Replace(topicJob, " MAXRATE", ", max_rate_per_partition: 100/s", 1)))
	for _, b := range r.Batches {
		if b.Records != 400 || b.Tasks != 4+2 {
			t.Errorf("batch %vs: %d records in %d tasks, want 400 in 4 + 2", b.TimeS, b.Records, b.Tasks)
		}
	}
	tot := r.Summary.Totals
	if n := uint64(len(r.Batches)) + uint64(tot.Queued); tot.Read != 400*n || tot.SourceLag != tot.Appended-tot.Read {
		t.Errorf("read %d (want 400 × %d batches), appended %d, lag %d", tot.Read, n, tot.Appended, tot.SourceLag)
	}
	if tot.Appended < 9990 || tot.Appended > 10000 {
		t.Errorf("appended %d, want the producer's 1000/s over 10s", tot.Appended)
	}

	free := run(t, parse(t, strings.Replace(topicJob, " MAXRATE", "", 1)))
	ft := free.Summary.Totals
	if ft.Appended != tot.Appended || ft.Read != ft.Appended || ft.SourceLag != 0 {
		t.Errorf("without a rate: appended %d (with it %d), read %d, lag %d", ft.Appended, tot.Appended, ft.Read, ft.SourceLag)
	}
	if b := free.Batches[1]; b.Records != 1000 {
		t.Errorf("batch 2s read %d, want the 1000 sent in (1s, 2s] less 2ms of append latency on each side", b.Records)
	}
}

// Two jobs of one Spark application through a topic: feed writes every
// record of its batch to topic mid when the batch's job ends (100ms after
// its batch time: 1000 records x 100us in one task), visible 2ms later
// (append_latency); the direct stream over mid reads them in the next
// batch. So the reader's batch k+1 holds exactly the 1000 records that
// arrived in (k-1, k], and their latency is the batch interval more than
// the writer's: at least 1.1s, at most 2.099s (the record of k-1+1ms).
func TestKafkaSinkFeedsDirectStream(t *testing.T) {
	y := `
engine: spark-streaming
duration: 10s
spark: {batch_interval: 1s, job_overhead: 0s, task_overhead: 0s}
workers: {count: 1, slots: 4}
topics: [{name: mid, partitions: 2}]
sources:
  - {name: in, arrival: {process: constant, rate: 1000/s}, keys: {count: 100}}
  - {name: mid-in, parallelism: 2, arrival: {process: topic, topic: mid}}
operators: [{name: work, input: in, service_time: {mean: 100us}}]
sinks:
  - {name: feed, input: work, writes: {topic: mid, partitioner: round-robin}}
  - {name: out, input: mid-in, parallelism: 2}
`
	r := run(t, parse(t, y))
	if len(r.Batches) != 9 {
		t.Fatalf("%d batches, want 9 (batch 10s ends at 10.1s)", len(r.Batches))
	}
	for _, b := range r.Batches {
		// in (1000, 1 task) and mid (what batch k-1 wrote, 2 tasks)
		want := int64(2000)
		if b.TimeS == 1 {
			want = 1000
		}
		if b.Records != want || b.Delivered != want || b.ProcessingMs != 100 || b.Tasks != 3 {
			t.Errorf("batch %vs: %d records, %d delivered, %vms, %d tasks; want %d, %d, 100ms, 3", b.TimeS, b.Records, b.Delivered, b.ProcessingMs, b.Tasks, want, want)
		}
	}
	tot := r.Summary.Totals
	if tot.Delivered != 9000+8000 || tot.Read != 10000+9000 {
		t.Errorf("totals %+v: want 9000 delivered by feed and 8000 by out, 10000 + 9000 read", tot)
	}
	lat := r.Summary.Latency
	// feed: k+100ms - a, out: one batch interval more
	mean := (9000*599.5 + 8000*1599.5) / 17000
	if lat.Count != 17000 || *lat.MaxMs != 2099 || math.Abs(*lat.MeanMs-mean) > 1e-3 {
		t.Errorf("latency %+v, want 17000 records, max 2099ms, mean %.4fms", lat, mean)
	}
}

// Spark's Kafka sink is at-least-once: a transactional one is refused.
func TestKafkaSinkTransactionalRefused(t *testing.T) {
	y := strings.Replace(strings.Replace(topicJob, " MAXRATE", "", 1), "sinks: [{name: out, input: count}]", "sinks: [{name: out, input: count, delivery: transactional, writes: {topic: other}}]", 1)
	y = strings.Replace(y, "topics: [{name: clicks, partitions: 4}]", "topics: [{name: clicks, partitions: 4}, {name: other}]", 1)
	_, err := scenario.Parse("t.yaml", []byte(y))
	if err == nil || !strings.Contains(err.Error(), "sinks[0].delivery: Spark's Kafka sink is at-least-once") {
		t.Errorf("got %v", err)
	}
}
