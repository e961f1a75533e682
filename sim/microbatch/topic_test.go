package microbatch

import (
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

// A Kafka sink is refused on the micro-batch engines, by its field.
func TestKafkaSinkRefused(t *testing.T) {
	y := strings.Replace(strings.Replace(topicJob, " MAXRATE", "", 1), "sinks: [{name: out, input: count}]", "sinks: [{name: out, input: count, writes: {topic: clicks}}]", 1)
	_, err := scenario.Parse("t.yaml", []byte(y))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:11:43: sinks[0].writes: this field belongs to engine: flink (Flink's KafkaSink; a micro-batch job's source may read a topic of producers), not spark-streaming") {
		t.Errorf("got %v", err)
	}
}
