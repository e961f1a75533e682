package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// compare runs one workload on both engines: Spark's latency is its
// batch interval's floor (interval/2 + processing time), an order above
// Flink's; the throughput is the same.
func TestCompare(t *testing.T) {
	d := 30 * des.Second
	var out bytes.Buffer
	if err := Compare(context.Background(), CompareOptions{Scenarios: []string{"same-workload-flink", "same-workload-spark"}, Duration: &d, JSON: true, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	var fs []Figures
	if err := json.Unmarshal(out.Bytes(), &fs); err != nil || len(fs) != 2 {
		t.Fatalf("%v: %s", err, out.String())
	}
	f, s := fs[0], fs[1]
	if f.Engine != "flink" || s.Engine != "spark-streaming" || f.Model != "pipelined" || s.Model != "batch interval 2s" {
		t.Errorf("engines %+v %+v", f, s)
	}
	if f.LatencyP50 <= 0 || s.LatencyP50 < 10*f.LatencyP50 || s.LatencyMean < 1000 {
		t.Errorf("latency p50 flink %v ms, spark %v ms (mean %v)", f.LatencyP50, s.LatencyP50, s.LatencyMean)
	}
	for _, x := range fs {
		if x.InputRate < 950 || x.InputRate > 1050 || x.OutputRate < 950 || x.OutputRate > 1050 {
			t.Errorf("%s: %v in, %v out", x.Scenario, x.InputRate, x.OutputRate)
		}
	}
	out.Reset()
	if err := Compare(context.Background(), CompareOptions{Scenarios: []string{"same-workload-flink", "spark-unstable"}, Duration: &d, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nspark-unstable: falls behind: processing time 1.302s > batch interval 1s") ||
		!strings.Contains(out.String(), "model               pipelined              batch interval 1s") ||
		// falling behind shows as queued batches: the scheduling delay
		// grows 302ms a batch, so that after the 30 batches of 30s about
		// 30 × 0.302s / 1.302s = 7 batches' work waits, and the one running
		!strings.Contains(out.String(), "queued at the end   96 records in flight   8 batches") {
		t.Errorf("table:\n%s", out.String())
	}
	var oe *OptionError
	if err := Compare(context.Background(), CompareOptions{Scenarios: []string{"mm1"}}); !errors.As(err, &oe) {
		t.Errorf("one scenario: %v", err)
	}
}

// A run without a Flink job compares by its consumer groups: not a Flink
// job with 0 records/s and no failure. In consumer-group-rebalance the
// group billing reads 600 records/s for 180s; billing-1 fails at 33s and
// 599 records are processed twice after the rebalance, so that the group
// processes 108596 records, 107997 of them distinct.
func TestCompareConsumerGroups(t *testing.T) {
	var out bytes.Buffer
	if err := Compare(context.Background(), CompareOptions{Scenarios: []string{"consumer-group-rebalance", "tandem"}, JSON: true, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	var fs []Figures
	if err := json.Unmarshal(out.Bytes(), &fs); err != nil || len(fs) != 2 {
		t.Fatalf("%v: %s", err, out.String())
	}
	g := fs[0]
	if g.Engine != "consumer groups" || g.Model != "billing (3 members, topic orders)" || g.InputRate != 603.3 || g.OutputRate != 603.3 ||
		g.Delivered != 107997 || g.Duplicated != 599 || g.Lost != 0 || g.Failures != 1 || g.SourceLag != 0 ||
		g.JobState != "" || g.DowntimeS != -1 || g.LatencyP50 != -1 || !strings.Contains(g.Diagnosis, "billing-1 of group billing failed at 33s") {
		t.Errorf("consumer groups' figures %+v", g)
	}
	// a member that failed and was not removed by the end (its session
	// not expired) counts as a failure too: no rebalance records it
	late := filepath.Join(t.TempDir(), "latefail.yaml")
	if err := os.WriteFile(late, []byte(`name: latefail
duration: 120s
topics: [{name: orders, partitions: 4}]
sources: [{name: shop, arrival: {process: constant, rate: 400/s}, writes: {topic: orders, partitioner: round-robin}}]
consumer_groups: [{name: billing, topic: orders, members: 2, service_time: {distribution: constant, mean: 1ms}}]
failures: [{kind: consumer, at: 100s, group: billing, member: 0}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Compare(context.Background(), CompareOptions{Scenarios: []string{late, "tandem"}, JSON: true, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &fs); err != nil || fs[0].Failures != 1 {
		t.Errorf("a member failed at 100s of 120s: %d failures, want 1 (%v)", fs[0].Failures, err)
	}
	out.Reset()
	if err := Compare(context.Background(), CompareOptions{Scenarios: []string{"consumer-group-rebalance", "tandem"}, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"engine              consumer groups                     flink", "job                 -                                   running",
		"queued at the end   -                                   "} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("table has no line %q:\n%s", line, out.String())
		}
	}
}

// A Spark job that falls behind delivers each batch a total delay after
// its batch time; its output rate counts what reached the sinks inside the
// window. 1000 records a batch of 1s take 1000 x 2.5ms over 2 cores plus
// the tasks' overheads, 1.262s: batch k (at k seconds) ends at about
// 1 + 1.262k s, so that batches 8 to 46 end inside (10s, 60s]: 39000
// records, 780 records/s. Counting the batches whose batch time is in the
// window gave 740 (batches 10 to 46).
func TestCompareSparkBehindOutputRate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "spark-slow.yaml")
	if err := os.WriteFile(file, []byte(`name: spark-slow
seed: 1
duration: 60s
warmup: 10s
engine: spark-streaming
spark: {batch_interval: 1s}
workers: {count: 1, slots: 2}
sources:
  - {name: sensors, parallelism: 2, arrival: {process: constant, rate: 500/s}}
operators:
  - {name: parse, input: sensors, parallelism: 2, service_time: {distribution: constant, mean: 2500us}}
sinks:
  - {name: out, input: parse}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Compare(context.Background(), CompareOptions{Scenarios: []string{file, "tandem"}, JSON: true, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	var fs []Figures
	if err := json.Unmarshal(out.Bytes(), &fs); err != nil || len(fs) != 2 {
		t.Fatalf("%v: %s", err, out.String())
	}
	if s := fs[0]; s.InputRate != 1000 || s.OutputRate != 780 {
		t.Errorf("spark-slow: %v records/s in, %v out; want 1000 and 780", s.InputRate, s.OutputRate)
	}
}
