package scenarios_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The tests below check that the built-in scenarios of Spark's engines
// teach what their opening comments say.

func runMB(t *testing.T, sc *scenario.Scenario) *microbatch.Result {
	t.Helper()
	s, err := microbatch.New(sc, microbatch.Options{})
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	if err := s.RunUntil(context.Background(), sc.Duration); err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	return s.Result()
}

// The same workload: Flink's sink latency is tens of milliseconds (two
// network hops at the buffer timeout), Spark's mean record latency is
// interval/2 + processing time (scheduling delay 0) within 3%.
func TestSameWorkloadLatencyFloor(t *testing.T) {
	f := run(t, load(t, "same-workload-flink"), nil).Summary
	out := vertex(t, &f, "out")
	if (*out.LatencyP50) > 200 {
		t.Errorf("Flink: sink p50 %v ms", (*out.LatencyP50))
	}
	s := runMB(t, load(t, "same-workload-spark")).Summary
	st := s.Streaming
	want := 1000 + st.ProcessingTime.MeanMs + st.SchedulingDelay.MeanMs
	if !*st.Stable || st.SchedulingDelay.MaxMs != 0 || math.Abs(*s.Latency.MeanMs-want)/want > 0.03 {
		t.Errorf("Spark: stable %v, scheduling max %v ms, mean latency %v ms, want interval/2 + P + S = %v", *st.Stable, st.SchedulingDelay.MaxMs, *s.Latency.MeanMs, want)
	}
	if *s.Latency.P50Ms < 10*(*out.LatencyP50) {
		t.Errorf("Spark's p50 %v ms is not an order above Flink's %v ms", *s.Latency.P50Ms, (*out.LatencyP50))
	}
}

// spark-unstable: processing time 0.402 s + 0.9 × interval; the
// scheduling delay grows by P − I per batch; stable from 4.02 s on (on
// the edge there: P = I, the delay stays 0).
func TestSparkUnstable(t *testing.T) {
	s := runMB(t, load(t, "spark-unstable")).Summary
	if st := s.Streaming; *st.Stable || st.ProcessingTime.MeanMs != 1302 || st.SchedulingDelayGrowthMs != 302 {
		t.Errorf("1s: stable %v, processing %v ms, growth %v ms", *st.Stable, st.ProcessingTime.MeanMs, st.SchedulingDelayGrowthMs)
	}
	if !strings.HasPrefix(s.Diagnosis.Message, "falls behind: processing time 1.302s > batch interval 1s: the job falls behind, scheduling delay grows 302ms per batch") {
		t.Errorf("diagnosis %q", s.Diagnosis.Message)
	}
	for _, c := range []struct {
		iv     string
		stable bool
	}{{"4s", false}, {"4010ms", false}, {"4020ms", true}, {"4030ms", true}, {"5s", true}} {
		s := runMB(t, edit(t, "spark-unstable", "batch_interval: 1s", "batch_interval: "+c.iv)).Summary
		if *s.Streaming.Stable != c.stable || (s.Streaming.SchedulingDelay.MaxMs == 0) != c.stable {
			t.Errorf("%s: stable %v (scheduling max %v ms), want %v", c.iv, *s.Streaming.Stable, s.Streaming.SchedulingDelay.MaxMs, c.stable)
		}
		if edge := "stable, on the edge: processing time 4.02s = batch interval 4.02s"; (c.iv == "4020ms") != strings.HasPrefix(s.Diagnosis.Message, edge) {
			t.Errorf("%s: diagnosis %q", c.iv, s.Diagnosis.Message)
		}
	}
	// a warmup of 55s: the batches that complete after it (42s..45s, cut
	// long before) are the window's, as a sink's records after Flink's
	// warmup are
	w := runMB(t, edit(t, "spark-unstable", "duration: 60s", "duration: 60s\nwarmup: 55s")).Summary
	if st := w.Streaming; st.Batches != 4 || st.Stable == nil || *st.Stable || w.Latency.Count != 4*1000 {
		t.Errorf("warmup 55s: %d batches in the window, stable %v, %d latencies; want 4, false, 4000", st.Batches, st.Stable, w.Latency.Count)
	}
	// at 5s a task failure in batch 2 (9.404 s: 4.502 s of recomputing)
	// delays the batches after it; they take 4.902 s < 5 s, so the delay
	// shrinks 98 ms a batch: stable, though the window's mean (5.3522 s)
	// is over the interval
	y := strings.Replace(string(source(t, "spark-unstable")), "batch_interval: 1s", "batch_interval: 5s", 1) +
		"failures: [{kind: task, vertex: parse, subtask: 0, at: 12s}]\n"
	s = runMB(t, parse(t, "spark-unstable", []byte(y))).Summary
	// the same failure in the last batch completed (50 s): it took 9.404 s
	// but delayed none yet, the 4 before it took 4.902 s: stable
	y2 := strings.Replace(y, "at: 12s", "at: 50500ms", 1)
	if s2 := runMB(t, parse(t, "spark-unstable", []byte(y2))).Summary; !*s2.Streaming.Stable || s2.Streaming.ProcessingTime.LastMs != 9404 {
		t.Errorf("5s with a task failure in the last batch: stable %v, last processing %v ms, diagnosis %q", *s2.Streaming.Stable, s2.Streaming.ProcessingTime.LastMs, s2.Diagnosis.Message)
	}
	if st := s.Streaming; !*st.Stable || st.ProcessingTime.MeanMs != 5352.2 || st.SchedulingDelayGrowthMs != -98 ||
		!strings.HasPrefix(s.Diagnosis.Message, "stable: the batches take 4.902s (the median of the last 5) < batch interval 5s; slower ones (one took 9.404s) delay the batches behind them, which catch up (scheduling delay 3.718s at the end, shrinking 98ms per batch)") {
		t.Errorf("5s with a task failure: stable %v, processing %v ms, growth %v ms, diagnosis %q", *st.Stable, st.ProcessingTime.MeanMs, st.SchedulingDelayGrowthMs, s.Diagnosis.Message)
	}
}

// spark-backpressure: with the PID estimator every batch's processing
// time stays within the interval (the rate settles at the processing
// rate); without, the burst's batches overrun and the delay climbs.
func TestSparkBackpressure(t *testing.T) {
	r := runMB(t, load(t, "spark-backpressure"))
	for _, b := range r.Batches {
		if b.ProcessingMs > 1001 || b.SchedulingDelayMs > 2 {
			t.Fatalf("batch %v: processing %v ms, scheduling %v ms", b.TimeS, b.ProcessingMs, b.SchedulingDelayMs)
		}
		if b.TimeS > 1 && b.TimeS > 21 && b.TimeS < 31 && (b.RateLimit < 3200 || b.RateLimit > 3400) {
			t.Fatalf("batch %v: rate %v, want near the processing rate of ~3300/s", b.TimeS, b.RateLimit)
		}
	}
	off := runMB(t, edit(t, "spark-backpressure", "backpressure: true", "backpressure: false")).Summary
	if off.Streaming.SchedulingDelay.MaxMs < 5000 {
		t.Errorf("without back-pressure: scheduling delay at most %v ms", off.Streaming.SchedulingDelay.MaxMs)
	}
	// a proportional gain of 1e100 overshoots past the int64 range: the
	// rate saturates at Long.MaxValue (no limit), as Spark's toLong does,
	// and its swing shows; it was -2^63, read as "no rate yet"
	huge := runMB(t, edit(t, "spark-backpressure", "backpressure: true", "backpressure: true\n  pid_proportional: 1e100")).Summary
	if bp := huge.Backpressure; bp == nil || bp.MaxRate != math.MaxInt64 || bp.RateSwing < 1e18 || bp.MinRate < 100 {
		t.Errorf("pid_proportional 1e100: %+v", bp)
	}
	// stopped at 26 s, in the burst: its last batch takes 1.812 s against
	// 1 s and waited 812 ms more than the one before, though the
	// window's mean is 0.448 s
	sc := edit(t, "spark-backpressure", "backpressure: true", "backpressure: false")
	sc.Duration = 26 * des.Second
	burst := runMB(t, sc).Summary
	if st := burst.Streaming; *st.Stable || st.SchedulingDelayGrowthMs != 812 ||
		!strings.HasPrefix(burst.Diagnosis.Message, "falls behind at the end: the last batch took 1.812s > batch interval 1s (448.364ms on average over the window), and the scheduling delay grows, 812ms per batch") {
		t.Errorf("without back-pressure, stopped in the burst: stable %v, growth %v ms, diagnosis %q", *st.Stable, st.SchedulingDelayGrowthMs, burst.Diagnosis.Message)
	}
}

// spark-state: updateStateByKey's processing time grows with the keys
// and falls behind; mapWithState's is flat off checkpoint batches.
func TestSparkState(t *testing.T) {
	r := runMB(t, load(t, "spark-state"))
	// the last batch takes 2.125 s against 2 s and the scheduling delay
	// rises over the last 4 (0 to 463.826 ms: 154.609 ms a batch; the
	// window's mean, 1.328 s, is under the interval): falling behind at
	// the end
	if st := r.Summary.Streaming; *st.Stable || st.SchedulingDelay.LastMs == 0 ||
		!strings.HasPrefix(r.Summary.Diagnosis.Message, "falls behind at the end: the last batch took 2.125s > batch interval 2s (1.328s on average over the window), and the scheduling delay grows, 154.609ms per batch") {
		t.Errorf("updateStateByKey does not fall behind: %+v, diagnosis %q", st, r.Summary.Diagnosis.Message)
	}
	if first, last := r.Batches[0], r.Batches[len(r.Batches)-1]; last.ProcessingMs < 4*first.ProcessingMs {
		t.Errorf("processing %v → %v ms", first.ProcessingMs, last.ProcessingMs)
	}
	// the state at the end is the last completed batch's (its job
	// computes it), not that of the two batches still queued
	last := r.Batches[len(r.Batches)-1]
	if st := r.Summary.State; st == nil || st.Keys != last.StateKeys || st.Keys != 170512 || st.Bytes != 170512*200 {
		t.Errorf("state %+v, want batch %v's %d keys", st, last.TimeS, last.StateKeys)
	}
	// a state checkpoint is written by the end of its batch's job: one
	// event per checkpoint batch completed (10s..80s; the 90s batch is
	// cut at the end and never completes), at that batch's end
	ends := map[float64]bool{}
	for _, b := range r.Batches {
		if b.CheckpointBytes > 0 {
			ends[math.Round((b.TimeS+b.TotalDelayMs/1000)*1e6)/1e6] = true
		}
	}
	var written int
	for _, e := range r.Events {
		if e.Type == microbatch.EventCheckpoint {
			written++
			if !ends[math.Round(e.Time.Seconds()*1e6)/1e6] {
				t.Errorf("checkpoint event at %v, not at the end of a checkpoint batch: %s", e.Time, e.Message)
			}
		}
	}
	if written != 8 || len(ends) != 8 || r.Summary.Checkpoints.Written != 8 {
		t.Errorf("%d checkpoint events, %d checkpoint batches, summary %d; want 8", written, len(ends), r.Summary.Checkpoints.Written)
	}
	// the driver fails at 50 s and restarts at 80 s: the first job
	// recomputes the whole lineage and none completes by the end, so the
	// recovery, not the batches before it, leads the diagnosis
	y := string(source(t, "spark-state")) + "failures: [{kind: jobmanager, at: 50s}]\n"
	if jm := runMB(t, parse(t, "spark-state", []byte(y))).Summary; !strings.HasPrefix(jm.Diagnosis.Message,
		"recovery: the driver was down 30s and restarted at 80s, but no batch has completed since: 21 batches wait for their jobs at the end") {
		t.Errorf("driver failure at 50s: diagnosis %q", jm.Diagnosis.Message)
	}
	m := runMB(t, edit(t, "spark-state", "state_operation: update-state-by-key", "state_operation: map-with-state"))
	if st := m.Summary.Streaming; st.ProcessingTime.MeanMs > r.Summary.Streaming.ProcessingTime.MeanMs/2 || st.SchedulingDelay.LastMs != 0 {
		t.Errorf("mapWithState: processing %v ms (updateStateByKey %v), last scheduling delay %v ms", st.ProcessingTime.MeanMs, r.Summary.Streaming.ProcessingTime.MeanMs, st.SchedulingDelay.LastMs)
	}
	for _, b := range m.Batches {
		if b.CheckpointBytes == 0 && math.Abs(b.ProcessingMs-m.Batches[0].ProcessingMs) > 0.05*m.Batches[0].ProcessingMs {
			t.Fatalf("mapWithState batch %v: %v ms, first %v ms", b.TimeS, b.ProcessingMs, m.Batches[0].ProcessingMs)
		}
	}
}

// structured-output-modes: update writes about 100 rows a trigger, complete
// the whole table, append 100 rows every 10th trigger.
func TestStructuredOutputModes(t *testing.T) {
	r := runMB(t, load(t, "structured-output-modes"))
	for _, b := range r.Batches {
		if b.RowsWritten < 95 || b.RowsWritten > 100 {
			t.Errorf("update, trigger %v: %d rows", b.TimeS, b.RowsWritten)
		}
	}
	r = runMB(t, edit(t, "structured-output-modes", "output_mode: update", "output_mode: complete"))
	for _, b := range r.Batches {
		if b.RowsWritten != b.StateKeys {
			t.Errorf("complete, trigger %v: %d rows, table %d", b.TimeS, b.RowsWritten, b.StateKeys)
		}
	}
	update := *r.Summary.Latency.MeanMs
	r = runMB(t, edit(t, "structured-output-modes", "output_mode: update", "output_mode: append"))
	var proc float64
	var written int
	for _, b := range r.Batches {
		final := int(b.TimeS)%10 == 7 && b.TimeS > 10
		if final != (b.RowsWritten == 100) || !final && b.RowsWritten != 0 {
			t.Errorf("append, trigger %v: %d rows", b.TimeS, b.RowsWritten)
		}
		if final {
			proc += b.ProcessingMs
			written++
		}
	}
	// a record's count reaches the sink with its window: the window's
	// end is on average 5 s after the record (half the 10 s window), the
	// watermark passes it at the trigger 5 s + 2 intervals later (the
	// trigger after the one that sees event time end + 5 s), and that
	// micro-batch's processing time: 12.025 s, against update's 0.525 s;
	// only the 5 windows written by the end count
	sum := r.Summary
	want := 5000 + 5000 + 2*1000 + proc/float64(written)
	if math.Abs(*sum.Latency.MeanMs-want) > 0.01*want || sum.Latency.MaxMs == nil || *sum.Latency.MaxMs > 17100 || update > 1100 {
		t.Errorf("append: mean latency %v ms (max %v), want window/2 + watermark + 2 triggers + processing = %v; update's %v", *sum.Latency.MeanMs, *sum.Latency.MaxMs, want, update)
	}
	if n := sum.Latency.Count; n < 5*9900 || n > 5*10100 {
		t.Errorf("append: %d latencies, want the records of the 5 windows written (about 5 × 10000)", n)
	}
}

// spark-recovery: the executor loss costs one batch its lineage
// recomputation; the driver failure reruns batch 62 (duplicating what it
// had written to the at-least-once sink), generates the 20 batches of the
// downtime capped by max_rate_per_partition, and loses nothing; without
// checkpointing the job is lost; an idempotent sink duplicates nothing.
func TestSparkRecovery(t *testing.T) {
	r := runMB(t, load(t, "spark-recovery"))
	at := map[float64]microbatch.BatchInfo{}
	for _, b := range r.Batches {
		at[b.TimeS] = b
	}
	if b := at[25]; b.RecomputeMs == 0 || b.ProcessingMs < 1400 || at[26].SchedulingDelayMs == 0 || at[27].SchedulingDelayMs != 0 {
		t.Errorf("batches 25-27 after the executor loss: %+v %+v %+v", b, at[26], at[27])
	}
	if b := at[62]; b.SchedulingDelayMs != 20100 || b.RecomputeMs == 0 {
		t.Errorf("batch 62 reran: %+v", b)
	}
	for ts := 63.0; ts <= 67; ts++ {
		if at[ts].Records != 2000 {
			t.Errorf("downtime batch %v: %d records, want the cap of 2 × 1000", ts, at[ts].Records)
		}
	}
	tot := r.Summary.Totals
	if tot.Duplicated == 0 || tot.Duplicated >= 500 || tot.Lost != 0 || r.Summary.Recovery.JobState != "running" {
		t.Errorf("totals %+v, recovery %+v", tot, r.Summary.Recovery)
	}
	idem := runMB(t, edit(t, "spark-recovery", "    input: totals\n", "    input: totals\n    delivery: idempotent\n")).Summary.Totals
	if idem.Duplicated != 0 || idem.Lost != 0 {
		t.Errorf("idempotent sink: %+v", idem)
	}
}
