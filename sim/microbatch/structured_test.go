package microbatch

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func query(mode, extra string) string {
	return `
engine: structured-streaming
duration: 60s
spark: {trigger: processing-time, trigger_interval: 1s, output_mode: ` + mode + extra + `}
sources: [{name: in, arrival: {process: constant, rate: 1000/s}, keys: {count: 1000}}]
operators: [{name: counts, input: in, partitioning: hash, parallelism: 2, service_time: {mean: 10us}, state: {bytes_per_key: 64B}}]
sinks: [{name: out, input: counts}]
`
}

// complete writes the whole result table every trigger: the distinct
// keys seen so far.
func TestOutputComplete(t *testing.T) {
	r := run(t, parse(t, query("complete", "")))
	for _, b := range r.Batches {
		if b.RowsWritten != b.StateKeys || b.BytesWritten != 64*b.RowsWritten {
			t.Fatalf("trigger %v: %d rows (%d bytes), the table has %d keys", b.TimeS, b.RowsWritten, b.BytesWritten, b.StateKeys)
		}
	}
	if last := r.Batches[len(r.Batches)-1]; last.StateKeys != 1000 {
		t.Errorf("the table holds %d keys after 59000 records over 1000 keys", last.StateKeys)
	}
}

// update writes the keys changed since the last trigger: with n uniform
// records over N keys per trigger, N(1 − (1 − 1/N)^n) on average.
func TestOutputUpdate(t *testing.T) {
	r := run(t, parse(t, query("update", "")))
	var rows float64
	for _, b := range r.Batches {
		if b.Records != 1000 {
			t.Fatalf("trigger %v read %d records, want 1000", b.TimeS, b.Records)
		}
		rows += float64(b.RowsWritten)
	}
	mean := rows / float64(len(r.Batches))
	want := 1000 * (1 - math.Pow(1-1.0/1000, 1000))
	if math.Abs(mean-want)/want > 0.03 {
		t.Errorf("update writes %.1f rows per trigger, want N(1 − (1 − 1/N)^n) = %.1f within 3%%", mean, want)
	}
}

// append writes each final window once: a 10s window of the 10 keys is
// final when the watermark (the largest event time − 5s) reaches its end,
// at the trigger after the one that saw event time end + 5s.
func TestOutputAppend(t *testing.T) {
	sc := parse(t, replace(t, query("append", ", watermark: 5s, window: 10s"), "keys: {count: 1000}", "keys: {count: 10}"))
	r := run(t, sc)
	var total int64
	for _, b := range r.Batches {
		total += b.RowsWritten
		want := int64(0)
		if int(b.TimeS)%10 == 6 && b.TimeS > 10 {
			want = 10 // window [t−16, t−6) is final
		}
		if b.RowsWritten != want {
			t.Errorf("trigger %v: %d rows (watermark %v s), want %d", b.TimeS, b.RowsWritten, b.WatermarkS, want)
		}
	}
	if total != 50 {
		t.Errorf("%d rows in all, want 5 final windows × 10 keys", total)
	}
	// delivered are the records of the windows written, [0s, 50s) at
	// 1000/s: those of [50s, 60s) wait in the state store at the end
	if d := r.Summary.Totals.Delivered; d < 49999 || d > 50000 {
		t.Errorf("%d records delivered, want the 50000 of the windows written", d)
	}
}

// A processing-time trigger whose micro-batch overruns the interval
// starts the next one as soon as it ends (ProcessingTimeExecutor waits
// till the next multiple of the interval after the trigger's start, which
// has passed: SPARK-20209): no queue, no idle gap, bigger batches.
func TestProcessingTimeTriggerOverrun(t *testing.T) {
	sc := parse(t, replace(t, query("update", ", job_overhead: 0s, task_overhead: 0s"), "mean: 10us", "mean: 2ms"))
	r := run(t, sc)
	// the first trigger at 1s reads 1000 records, 500 per partition: 1s
	// of work plus state access, so it ends just after 2s, and the next
	// starts then with the records of that second, ends after 3s, ...
	if r.Batches[0].TimeS != 1 {
		t.Fatalf("first trigger at %v s, want 1", r.Batches[0].TimeS)
	}
	for i, b := range r.Batches {
		if b.SchedulingDelayMs != 0 {
			t.Fatalf("trigger %v: scheduling delay %v", b.TimeS, b.SchedulingDelayMs)
		}
		if i > 0 {
			prev := r.Batches[i-1]
			end := prev.TimeS + prev.ProcessingMs/1000
			if prev.ProcessingMs <= 1000 || math.Abs(b.TimeS-end) > 1e-6 {
				t.Fatalf("trigger %d at %v s after one of %vms that ended at %v s: want it to overrun and the next to start then", i, b.TimeS, prev.ProcessingMs, end)
			}
			if want := 1000 * (b.TimeS - prev.TimeS); math.Abs(float64(b.Records)-want) > 1 {
				t.Fatalf("trigger %v read %d records, want the %.1f of the %v s since the last", b.TimeS, b.Records, want, b.TimeS-prev.TimeS)
			}
		}
	}
	if r.Summary.Diagnosis.Kind != DiagnosisFallingBehind {
		t.Errorf("diagnosis %q: %s", r.Summary.Diagnosis.Kind, r.Summary.Diagnosis.Message)
	}
}

// Records out of event-time order (event_delay uniform in [0, 4s]) are
// dropped when their window has passed the watermark the trigger runs
// with (the latest event time seen by the trigger before, less the
// delay): none with a 3s delay or more, hundreds with 2s. The records of
// the first 4s whose event time falls before 0 have a window of their
// own, [-10s, 0s) (Spark's TimeWindowing floors a negative event time),
// final and written as the others are: 6 windows.
func TestRowsDroppedByWatermark(t *testing.T) {
	y := replace(t, query("append", ", watermark: WM, window: 10s"), "keys: {count: 1000}", "keys: {count: 100}, event_delay: {distribution: uniform, min: 0s, max: 4s}")
	for _, c := range []struct {
		wm   string
		late bool
	}{{"2s", true}, {"3s", false}, {"5s", false}} {
		r := run(t, parse(t, strings.Replace(y, "WM", c.wm, 1)))
		got := r.Summary.Streaming.RowsDroppedByWatermark
		if (got > 0) != c.late || c.late && got < 100 {
			t.Errorf("watermark %s: %d rows dropped", c.wm, got)
		}
		var table strings.Builder
		if err := WriteTable(&table, &r.Summary); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(table.String(), "records dropped as late (after the watermark)") &&
			strings.Contains(table.String(), fmt.Sprintf("- late data: %.1f%% of the records read (%d of 60000, rows_dropped_by_watermark)", float64(got)/600, got))
		if said != c.late {
			t.Errorf("watermark %s: %d rows dropped; the table says so: %v\n%s", c.wm, got, said, table.String())
		}
		if r.Summary.Totals.Rows != 600 {
			t.Errorf("watermark %s: %d rows written, want 6 final windows of 100 keys, [-10s, 0s) to [40s, 50s)", c.wm, r.Summary.Totals.Rows)
		}
	}
}

// The default trigger starts the next micro-batch as soon as the last one
// ends (when data waits; else after the polling delay); available-now
// reads what arrived by its start (the end of the warmup) and stops; a
// continuous trigger's records take only their own processing.
func TestTriggers(t *testing.T) {
	base := `
engine: structured-streaming
duration: 20s
warmup: 5s
spark: {TRIGGER, job_overhead: 10ms, task_overhead: 2ms}
sources: [{name: in, arrival: {process: constant, rate: 1000/s}}]
operators: [{name: parse, input: in, service_time: {mean: 100us}}]
sinks: [{name: out, input: parse}]
`
	r := run(t, parse(t, strings.Replace(base, "TRIGGER", "trigger: default", 1)))
	for i := 1; i < len(r.Batches); i++ {
		prev, b := r.Batches[i-1], r.Batches[i]
		end := prev.TimeS + prev.ProcessingMs/1000
		if math.Abs(b.TimeS-end) > 1e-9 || b.SchedulingDelayMs != 0 {
			t.Fatalf("default trigger: batch %d at %v s, the one before ended at %v s", b.Batch, b.TimeS, end)
		}
	}
	// a steady state: a batch of n records takes 12ms + n × 0.1ms, and n
	// is what arrived meanwhile (1000/s): n = 12 / (1 − 0.1) ≈ 13
	if last := r.Batches[len(r.Batches)-1]; last.Records < 12 || last.Records > 15 {
		t.Errorf("default trigger: %d records a batch", last.Records)
	}

	r = run(t, parse(t, strings.Replace(base, "TRIGGER", "trigger: available-now", 1)))
	if len(r.Batches) != 1 || r.Batches[0].TimeS != 5 || r.Batches[0].Records != 5000 {
		t.Errorf("available-now: %+v", r.Batches)
	}
	// it terminates when that micro-batch ends (5s + 12ms + 5000 ×
	// 0.1ms = 5.512s): an event, the status from then on, the diagnosis
	var term []float64
	for _, e := range r.Events {
		if e.Type == EventQueryTerminated {
			term = append(term, e.Time.Seconds())
		}
	}
	if len(term) != 1 || math.Abs(term[0]-5.512) > 1e-9 || !strings.HasPrefix(r.Summary.Diagnosis.Message, "available-now: the query read the 5000 records available at its start in 1 micro-batch and terminated") {
		t.Errorf("available-now: terminated at %v, diagnosis %q", term, r.Summary.Diagnosis.Message)
	}
	for _, row := range r.Timeseries {
		if (row.TimeS > 5.512) != (row.Status == "terminated") {
			t.Errorf("available-now: status %q at %vs", row.Status, row.TimeS)
		}
	}

	r = run(t, parse(t, strings.Replace(base, "TRIGGER", "trigger: continuous, trigger_interval: 1s", 1)))
	// every record: one task overhead and its service: 2ms + 0.1ms
	if l := r.Summary.Latency; l.MeanMs == nil || *l.MeanMs != 2.1 || *l.MaxMs != 2.1 {
		t.Errorf("continuous: latency %+v", l)
	}
	// its epochs end every trigger_interval (Spark's ContinuousExecution
	// increments the epoch each trigger interval; every reader puts an
	// epoch marker in its stream, and the epoch is committed once all
	// have): a row of batches.csv each, at 1s, 2s, ..., 19s (the 20th
	// would end at the run's end), each with the 1000 records of its
	// second
	if len(r.Batches) != 19 {
		t.Fatalf("continuous: %d epochs, want 19 (1s .. 19s)", len(r.Batches))
	}
	for i, b := range r.Batches {
		if b.Batch != int64(i+1) || b.TimeS != float64(i+1) || b.Records != 1000 {
			t.Errorf("continuous: epoch %d at %vs with %d records, want epoch %d at %ds with 1000", b.Batch, b.TimeS, b.Records, i+1, i+1)
		}
	}
}

// A trigger interval shorter than a micro-batch (1ms, against batches of
// over 10ms, the driver's job overhead) is as fast as possible: each trigger starts at the next
// millisecond after the last ended and reads what arrived meanwhile, the
// same few records every time: it keeps up, the diagnosis says so, and
// does not claim the batches grow.
func TestTriggerShorterThanBatchKeepsUp(t *testing.T) {
	sc := parse(t, replace(t, query("update", ""), "trigger_interval: 1s", "trigger_interval: 1ms"))
	r := run(t, sc)
	d := r.Summary.Diagnosis
	if d.Kind != DiagnosisStable || !strings.HasPrefix(d.Message, "runs as fast as possible: processing time ") ||
		!strings.Contains(d.Message, " > trigger interval 1ms, ") || strings.Contains(d.Message, "grows") {
		t.Errorf("diagnosis %q: %s", d.Kind, d.Message)
	}
	if lag := r.Summary.Totals.SourceLag; lag > 100 {
		t.Errorf("source lag %d records at the end, want a few: it keeps up", lag)
	}
}
