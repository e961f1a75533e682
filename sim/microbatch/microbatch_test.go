package microbatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

func parse(t *testing.T, y string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func run(t *testing.T, sc *scenario.Scenario) *Result {
	t.Helper()
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), sc.Duration); err != nil {
		t.Fatal(err)
	}
	return s.Result()
}

// job is a job of two partitions of rate 500/s each and a map of service
// time mean per record: a batch of interval I holds 500·I records per
// partition, so its processing time is job overhead + task overhead +
// 500·I·mean (one stage: source, map and sink are narrow), plus a sink
// task overhead of nothing (the sink is in the stage).
func job(interval, mean string) string {
	return `
engine: spark-streaming
duration: 60s
spark: {batch_interval: ` + interval + `, job_overhead: 10ms, task_overhead: 2ms}
workers: {count: 1, slots: 4}
sources: [{name: in, parallelism: 2, arrival: {process: constant, rate: 500/s}}]
operators: [{name: parse, input: in, parallelism: 2, service_time: {mean: ` + mean + `}}]
sinks: [{name: out, input: parse}]
`
}

// Stable exactly when the processing time is under the batch interval:
// then every batch starts at its batch time, and a record's mean latency
// is interval/2 + processing time (uniform arrivals over the interval);
// over it, the scheduling delay of batch k is (k−1)·(P − I).
func TestStabilityClosedForm(t *testing.T) {
	// P = 10ms + 2ms + 500 × 1.5ms = 762ms < 1s
	r := run(t, parse(t, job("1s", "1.5ms")))
	st := r.Summary.Streaming
	if st.ProcessingTime.MeanMs != 762 || st.SchedulingDelay.MaxMs != 0 || !*st.Stable {
		t.Errorf("stable: processing %v ms, scheduling max %v, stable %v; want 762, 0, true", st.ProcessingTime.MeanMs, st.SchedulingDelay.MaxMs, *st.Stable)
	}
	want := 500 + 762.0 + 0
	if got := *r.Summary.Latency.MeanMs; math.Abs(got-want)/want > 0.03 {
		t.Errorf("mean latency %v ms, want interval/2 + P + S = %v within 3%%", got, want)
	}
	if r.Summary.Diagnosis.Kind != DiagnosisStable {
		t.Errorf("diagnosis %q", r.Summary.Diagnosis.Kind)
	}

	// P = 12ms + 500 × 2.6ms = 1.312s > 1s: each batch waits 312ms more
	r = run(t, parse(t, job("1s", "2.6ms")))
	st = r.Summary.Streaming
	if st.ProcessingTime.MeanMs != 1312 || *st.Stable {
		t.Fatalf("unstable: processing %v ms, stable %v", st.ProcessingTime.MeanMs, *st.Stable)
	}
	for k, b := range r.Batches {
		if want := float64(k) * 312; math.Abs(b.SchedulingDelayMs-want) > 1e-6 {
			t.Fatalf("batch %d: scheduling delay %v ms, want (k−1)(P−I) = %v", b.Batch, b.SchedulingDelayMs, want)
		}
		if b.TotalDelayMs != b.SchedulingDelayMs+b.ProcessingMs {
			t.Fatalf("batch %d: total delay %v != scheduling + processing", b.Batch, b.TotalDelayMs)
		}
	}
	if st.SchedulingDelayGrowthMs != 312 {
		t.Errorf("growth %v ms per batch, want 312", st.SchedulingDelayGrowthMs)
	}
	// unstable too, a record's mean latency is interval/2 + P + the mean
	// scheduling delay of the batches completed: 312 × (0 + ... + 43)/44
	// = 312 × 21.5 = 6708ms, so 500 + 1312 + 6708 = 8520ms
	if s := st.SchedulingDelay.MeanMs; math.Abs(s-6708) > 1e-6 {
		t.Errorf("unstable: mean scheduling delay %v ms, want 312 × 21.5 = 6708", s)
	}
	if got, want := *r.Summary.Latency.MeanMs, 500+1312+6708.0; math.Abs(got-want)/want > 0.03 {
		t.Errorf("unstable: mean latency %v ms, want interval/2 + P + S = %v within 3%%", got, want)
	}
	d := r.Summary.Diagnosis
	if d.Kind != DiagnosisFallingBehind || d.Message != "falls behind: processing time 1.312s > batch interval 1s: the job falls behind, scheduling delay grows 312ms per batch" {
		t.Errorf("diagnosis %q: %q", d.Kind, d.Message)
	}
	// the k-th job ends at 1s + k × 1.312s: 44 end by 60s
	if n := len(r.Batches); n != 44 {
		t.Errorf("%d batches completed, want floor((60 − 1) / 1.312) = 44", n)
	}
	if r.Summary.Totals.Read != 60000 || r.Summary.Totals.Appended != 60000 {
		t.Errorf("records read %d, appended %d, want 60000 each", r.Summary.Totals.Read, r.Summary.Totals.Appended)
	}
}

// A hash edge is a shuffle: a second stage, whose tasks read their shuffle
// blocks; more partitions than cores run in waves.
func TestStagesAndWaves(t *testing.T) {
	sc := parse(t, `
engine: spark-streaming
duration: 10s
spark: {batch_interval: 1s, job_overhead: 0s, task_overhead: 1ms, shuffle_bandwidth: 1MB/s}
workers: {count: 1, slots: 2}
sources: [{name: in, parallelism: 4, arrival: {process: constant, rate: 100/s}, record_size: 100B}]
operators: [{name: count, input: in, partitioning: hash, parallelism: 2, service_time: {mean: 1ms}}]
sinks: [{name: out, input: count}]
`)
	r := run(t, sc)
	if len(r.Summary.Stages) != 2 || r.Summary.Stages[0].Tasks != 4 || !r.Summary.Stages[1].Shuffle {
		t.Fatalf("stages %+v", r.Summary.Stages)
	}
	// stage 0: 4 tasks of 1ms on 2 cores: 2ms; stage 1: keys uniform over
	// 1000, so about 200 records per partition: 1ms + 200 × (1ms + 100B
	// at 1MB/s = 0.1ms)
	b := r.Batches[0]
	if b.Stages[0] != 2 {
		t.Errorf("stage 0 makespan %v ms, want 2 (two waves of 1ms)", b.Stages[0])
	}
	if b.Stages[1] < 180 || b.Stages[1] > 260 {
		t.Errorf("stage 1 makespan %v ms, want about 1 + 200 × 1.1", b.Stages[1])
	}
}

// Outputs are byte-identical per seed and differ with another seed.
func TestDeterminism(t *testing.T) {
	y := `
engine: spark-streaming
duration: 30s
spark: {batch_interval: 500ms, backpressure: true}
sources: [{name: in, parallelism: 3, arrival: {process: poisson, rate: 400/s}, keys: {count: 100, distribution: zipf}}]
operators: [{name: f, input: in, partitioning: hash, parallelism: 2, service_time: {distribution: exponential, mean: 1ms}}]
sinks: [{name: out, input: f}]
`
	out := func(seed string) []byte {
		sc := parse(t, "seed: "+seed+"\n"+y)
		r := run(t, sc)
		var b bytes.Buffer
		for _, err := range []error{WriteSummaryJSON(&b, &r.Summary), WriteBatchesCSV(&b, r.Batches), WriteTimeseriesCSV(&b, r.Timeseries), WriteEventsJSONL(&b, r.Events)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		return b.Bytes()
	}
	a, b, c := out("7"), out("7"), out("8")
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave different outputs")
	}
	if bytes.Equal(a, c) {
		t.Error("another seed gave the same outputs")
	}
}

// Spark's default checkpoint interval of a stateful DStream:
// slide × ceil(10s / slide).
// TestDefaultCheckpointInterval: updateStateByKey's slide x ceil(10s /
// slide), mapWithState's slide x 10, as Spark's DStream and
// InternalMapWithStateDStream initialize them.
func TestDefaultCheckpointInterval(t *testing.T) {
	for _, c := range []struct {
		batch          des.Time
		update, mapped des.Time
	}{
		{des.Second, 10 * des.Second, 10 * des.Second}, {3 * des.Second, 12 * des.Second, 30 * des.Second},
		{15 * des.Second, 15 * des.Second, 150 * des.Second},
		{300 * des.Millisecond, 10200 * des.Millisecond, 3 * des.Second}, {10 * des.Second, 10 * des.Second, 100 * des.Second},
	} {
		if got := scenario.DefaultSparkCheckpointInterval(c.batch, scenario.StateUpdateStateByKey); got != c.update {
			t.Errorf("updateStateByKey, batch %s: %s, want %s", c.batch, got, c.update)
		}
		if got := scenario.DefaultSparkCheckpointInterval(c.batch, scenario.StateMapWithState); got != c.mapped {
			t.Errorf("mapWithState, batch %s: %s, want %s", c.batch, got, c.mapped)
		}
	}
}

func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q is not in the text exactly once", old)
	}
	return strings.Replace(s, old, new, 1)
}

// Receivers: each holds an executor core for good and cuts a block every
// block_interval, a task each; receiver_max_rate caps what a receiver
// stores per batch, and the write-ahead log what it can write.
func TestReceivers(t *testing.T) {
	y := `
engine: spark-streaming
duration: 10s
spark: {batch_interval: 1s, input_stream: receiver, block_interval: 250ms RX}
workers: {count: 1, slots: 4}
sources: [{name: in, parallelism: 2, arrival: {process: constant, rate: 1000/s}, record_size: 1000B}]
operators: [{name: parse, input: in, parallelism: 2, service_time: {mean: 100us}}]
sinks: [{name: out, input: parse}]
`
	r := run(t, parse(t, strings.Replace(y, "RX", "", 1)))
	if r.Summary.ExecutorCores != 2 || r.Summary.Stages[0].Tasks != 8 || r.Batches[0].Tasks != 8 || r.Batches[0].Records != 2000 {
		t.Fatalf("receivers: %d cores, %d tasks, %d records", r.Summary.ExecutorCores, r.Batches[0].Tasks, r.Batches[0].Records)
	}
	// 8 blocks of 250 records, 25ms + 2ms each, on the 2 cores left: 4 waves
	if got := r.Batches[0].Stages[0]; got != 4*27 {
		t.Errorf("stage of the blocks: %v ms, want 4 waves of 27ms", got)
	}
	r = run(t, parse(t, strings.Replace(y, "RX", ", receiver_max_rate: 600/s", 1)))
	if b := r.Batches[0]; b.Records != 1200 {
		t.Errorf("receiver_max_rate 600/s: %d records in a batch, want 2 × 600", b.Records)
	}
	// 1000B records at 500KB/s: 500 records/s per receiver
	r = run(t, parse(t, strings.Replace(y, "RX", ", write_ahead_log: true, wal_bandwidth: 500KB/s", 1)))
	if b := r.Batches[0]; b.Records != 1000 || r.Summary.Totals.SourceLag == 0 {
		t.Errorf("write-ahead log at 500KB/s: %d records in a batch, lag %d", b.Records, r.Summary.Totals.SourceLag)
	}
	if _, err := New(parse(t, strings.Replace(strings.Replace(y, "RX", "", 1), "slots: 4", "slots: 2", 1)), Options{}); err == nil || !strings.Contains(err.Error(), "no core is left to process the batches") {
		t.Errorf("2 receivers on 2 cores: %v", err)
	}
}

// A batch interval no shorter than the run: no batch completes, the PID
// rate estimator never estimated, and the table says so instead of
// printing its -1 ("no estimate yet") as a rate; the diagnosis names the
// interval; the scenario warns of it.
func TestBatchIntervalLongerThanRun(t *testing.T) {
	sc := parse(t, `
engine: spark-streaming
duration: 90s
spark: {batch_interval: 1000h, backpressure: true}
sources: [{name: in, parallelism: 2, arrival: {process: constant, rate: 500/s}}]
operators: [{name: f, input: in, parallelism: 2, service_time: {mean: 600us}}]
sinks: [{name: out, input: f}]
`)
	r := run(t, sc)
	var b bytes.Buffer
	if err := WriteTable(&b, &r.Summary); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	if !strings.Contains(table, "\nback-pressure: no batch completed, so the PID rate estimator has no rate yet (the input is not limited)\n") || strings.Contains(table, "-1") {
		t.Errorf("table:\n%s", table)
	}
	if want := "no batch completed in the window: the batch interval 1000h is not shorter than the run (90s)"; !strings.HasPrefix(r.Summary.Diagnosis.Message, want) {
		t.Errorf("diagnosis %q, want it to start %q", r.Summary.Diagnosis.Message, want)
	}
	w := sc.Warnings()
	if len(w) != 1 || w[0].Error() != "t.yaml:4:25: spark.batch_interval: warning: 1000h is not shorter than the run (duration 90s): no batch completes, so there is nothing to measure; make it shorter than the duration" {
		t.Errorf("warnings %v", w)
	}
	sc.Spark.BatchInterval = 89 * des.Second
	if w := sc.Warnings(); len(w) != 0 {
		t.Errorf("batch_interval 89s of a 90s run: warnings %v, want none", w)
	}
}

// With no batch completed in the window, summary.json has null for what
// no batch measured (stable, the three delays, the latency's figures),
// as Flink's summary has for a vertex no record left, not 0s that a
// check or a plot would take for measurements; the table prints "-".
func TestNoBatchIsNull(t *testing.T) {
	r := run(t, parse(t, job("90s", "1.5ms")))
	if r.Summary.Totals.Batches != 0 || r.Summary.Totals.Delivered != 0 {
		t.Fatalf("batch interval 90s of a 60s run: %d batches, %d delivered, want 0, 0", r.Summary.Totals.Batches, r.Summary.Totals.Delivered)
	}
	var b bytes.Buffer
	if err := WriteSummaryJSON(&b, &r.Summary); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Streaming map[string]any `json:"streaming"`
		Latency   map[string]any `json:"latency"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"stable", "scheduling_delay", "processing_time", "total_delay"} {
		if v, ok := doc.Streaming[k]; !ok || v != nil {
			t.Errorf("streaming.%s = %v (present %v), want null", k, v, ok)
		}
	}
	if doc.Streaming["batches"] != 0.0 {
		t.Errorf("streaming.batches = %v, want 0", doc.Streaming["batches"])
	}
	want := map[string]any{"count": 0.0, "mean_ms": nil, "p50_ms": nil, "p90_ms": nil, "p99_ms": nil, "max_ms": nil}
	if !reflect.DeepEqual(doc.Latency, want) {
		t.Errorf("latency = %v, want %v", doc.Latency, want)
	}
	b.Reset()
	if err := WriteTable(&b, &r.Summary); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, line := range []string{
		"\nscheduling delay, processing time, total delay: - (no batch completed in the window)\n",
		"\nrecord latency: - (no record delivered in the window)\n",
	} {
		if !strings.Contains(table, line) {
			t.Errorf("table has no line %q:\n%s", line, table)
		}
	}
	if strings.Contains(table, "mean 0s") {
		t.Errorf("table prints a latency of 0s:\n%s", table)
	}
	// one batch in the window: the figures are back, stable judged
	r = run(t, parse(t, job("30s", "1.5ms")))
	if st := r.Summary.Streaming; st.Batches != 1 || st.Stable == nil || st.ProcessingTime == nil || r.Summary.Latency.MeanMs == nil {
		t.Errorf("batch interval 30s of a 60s run: %d batches, stable %v, processing %v, latency %v", st.Batches, st.Stable, st.ProcessingTime, r.Summary.Latency.MeanMs)
	}
}

// A processing-time (or continuous) trigger_interval no shorter than the
// run warns as spark.batch_interval does: its first trigger fires one
// interval after the start, so no micro-batch completes.
func TestTriggerIntervalLongerThanRun(t *testing.T) {
	y := `
engine: structured-streaming
duration: 60s
spark: {trigger: TRIGGER, trigger_interval: 2m}
sources: [{name: in, parallelism: 2, arrival: {process: constant, rate: 500/s}}]
operators: [{name: f, input: in, parallelism: 2, service_time: {mean: 20us}}]
sinks: [{name: out, input: f}]
`
	for _, trig := range []string{"processing-time", "continuous"} {
		sc := parse(t, strings.Replace(y, "TRIGGER", trig, 1))
		w := sc.Warnings()
		col := 38 + len(trig) // the column of 2m
		if want := fmt.Sprintf("t.yaml:4:%d: spark.trigger_interval: warning: 120s is not shorter than the run (duration 60s): no micro-batch completes, so there is nothing to measure; make it shorter than the duration", col); len(w) != 1 || w[0].Error() != want {
			t.Errorf("%s: warnings %v, want [%s]", trig, w, want)
		}
		r := run(t, sc)
		if r.Summary.Totals.Batches != 0 || r.Summary.Streaming.Stable != nil || r.Summary.Latency.MeanMs != nil {
			t.Errorf("%s: %d batches, stable %v, latency %v; want 0, null, null", trig, r.Summary.Totals.Batches, r.Summary.Streaming.Stable, r.Summary.Latency.MeanMs)
		}
		if want := "no micro-batch completed in the window: the trigger interval (spark.trigger_interval) 120s is not shorter than the run (60s), and the first trigger fires one interval after the start"; r.Summary.Diagnosis.Message != want {
			t.Errorf("%s: diagnosis %q, want %q", trig, r.Summary.Diagnosis.Message, want)
		}
		sc.Spark.TriggerInterval = 59 * des.Second
		if w := sc.Warnings(); len(w) != 0 {
			t.Errorf("%s: trigger_interval 59s of a 60s run: warnings %v, want none", trig, w)
		}
	}
}

// TestCancelledAfterTheEnd: a cancellation the step loop does not see
// before the run reaches its duration (here a context cancelled before a
// run of fewer than 256 steps) leaves a complete run: RunUntil returns nil
// and the summary is not partial. Cancelled before a point short of the
// end, the run stops there, partial, with the context's error.
func TestCancelledAfterTheEnd(t *testing.T) {
	sc := parse(t, job("1s", "1.5ms"))
	sc.Duration = 3 * des.Second
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(ctx, sc.Duration); err != nil {
		t.Fatalf("RunUntil to the end = %v, want nil (the run is complete)", err)
	}
	if sum := s.Result().Summary; sum.Partial || sum.SimulatedS != 3 {
		t.Errorf("partial %v (%q) at %vs, want complete at 3s", sum.Partial, sum.PartialReason, sum.SimulatedS)
	}
	s, _ = New(sc, Options{})
	if err := s.RunUntil(ctx, 2*des.Second); err != context.Canceled {
		t.Fatalf("RunUntil to 2s of 3s = %v, want context.Canceled", err)
	}
	if sum := s.Result().Summary; !sum.Partial || !strings.HasPrefix(sum.PartialReason, "interrupted at 2s of 3s") {
		t.Errorf("partial %v (%q), want interrupted at 2s of 3s", sum.Partial, sum.PartialReason)
	}
}
