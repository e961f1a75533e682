package microbatch

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// taskJob is one stage of 2 tasks on 4 cores: each task reads 500
// records of its partition at 200us (100ms) plus the 2ms task overhead:
// 102ms; with the 10ms job overhead a batch takes 112ms.
const taskJob = `
engine: spark-streaming
duration: 10s
spark: {batch_interval: 1s TMF}
sources: [{name: in, parallelism: 2, arrival: {process: constant, rate: 500/s}}]
operators: [{name: work, input: in, parallelism: 2, service_time: {mean: 200us}}]
sinks: [{name: out, input: work, parallelism: 2}]
`

func batchAt(t *testing.T, r *Result, sec float64) *BatchInfo {
	t.Helper()
	for i := range r.Batches {
		if r.Batches[i].TimeS == sec {
			return &r.Batches[i]
		}
	}
	t.Fatalf("no batch at %vs", sec)
	return nil
}

// A failed task attempt runs again: the batch's processing time grows by
// exactly that task's duration (102ms), and the failure counts in
// batches.csv and the summary. A failure while no job runs fails the
// task's attempt in the next job.
func TestTaskFailureRetries(t *testing.T) {
	y := strings.Replace(taskJob, " TMF", "", 1) + "failures: [{kind: task, vertex: work, subtask: 1, at: 5050ms}, {kind: task, vertex: in, at: 6500ms}]\n"
	r := run(t, parse(t, y))
	for _, sec := range []float64{1, 2, 3, 4, 6, 8, 9} {
		if b := batchAt(t, r, sec); b.ProcessingMs != 112 || b.FailedTasks != 0 || b.Records != 1000 || b.Delivered != 1000 {
			t.Errorf("batch %vs: %+v, want 112ms, 1000 records, no failed task", sec, *b)
		}
	}
	if b5 := batchAt(t, r, 5); b5.ProcessingMs != 112+102 || b5.FailedTasks != 1 || b5.RecomputeMs != 102 || b5.Delivered != 1000 || b5.TotalDelayMs != 214 {
		t.Errorf("batch 5s, task 1 failed at 5.05s: %+v, want processing 214ms (112 + one task of 102), 1 failed task", *b5)
	}
	if b7 := batchAt(t, r, 7); b7.ProcessingMs != 214 || b7.FailedTasks != 1 {
		t.Errorf("batch 7s, task 0 failed at 6.5s with no job running, so in the next job: %+v", *b7)
	}
	rec := r.Summary.Recovery
	if rec == nil || rec.Failures != 2 || rec.FailedTasks != 2 || rec.JobState != "running" || rec.RecomputeS != 0.204 {
		t.Errorf("recovery: %+v", rec)
	}
	if r.Summary.Totals.Delivered != 10000-1000 || r.Summary.Totals.Batches != 9 {
		t.Errorf("totals: %+v", r.Summary.Totals)
	}
}

// The spark.task.maxFailures-th failure of one task aborts the job: the
// batch completes failed at that moment, writing nothing, and the
// application stops: no batch after it, the sources' lag grows.
func TestTaskMaxFailuresAbortsJob(t *testing.T) {
	y := strings.Replace(taskJob, " TMF", ", task_max_failures: 2", 1) +
		"failures: [{kind: task, vertex: work, at: 5030ms}, {kind: task, vertex: work, subtask: 1, at: 5060ms}, {kind: task, vertex: work, at: 5090ms}]\n"
	r := run(t, parse(t, y))
	if len(r.Batches) != 5 {
		t.Fatalf("%d batches, want 5 (the 5th aborted)", len(r.Batches))
	}
	b5 := batchAt(t, r, 5)
	if b5.ProcessingMs != 90 || b5.FailedTasks != 3 || b5.Delivered != 0 {
		t.Errorf("aborted batch: %+v, want processing 90ms (aborted at 5.09s), 3 failed attempts, nothing delivered", *b5)
	}
	sum := r.Summary
	if sum.Recovery == nil || sum.Recovery.JobState != "failed" || sum.Recovery.FailedTasks != 3 {
		t.Errorf("recovery: %+v", sum.Recovery)
	}
	// the aborted batch is a row of batches.csv, not a completed batch
	if sum.Totals.Batches != 4 || sum.Streaming.Batches != 4 {
		t.Errorf("%d batches completed, %d in the statistics; want 4 (the 5th aborted)", sum.Totals.Batches, sum.Streaming.Batches)
	}
	if sum.Totals.Delivered != 4000 || sum.Totals.SourceLag != 10000-5000 {
		t.Errorf("totals: %+v", sum.Totals)
	}
	var msg string
	for _, e := range r.Events {
		if e.Type == sim.EventJobFailed {
			msg = e.Message
		}
	}
	if want := "task 0 in stage 0 (in -> work -> out) failed 2 times (spark.task.maxFailures): the job of batch 5s is aborted"; !strings.HasPrefix(msg, want) {
		t.Errorf("job_failed event %q, want %q...", msg, want)
	}
	// the end of the job leads the diagnosis, as a Flink job's failure
	// does; the application stopped, its driver did not fail; the
	// recomputation is what ran of the reruns before the abort
	if want := "the job failed at 5.09s: a task failed 2 times (spark.task.maxFailures)"; !strings.HasPrefix(sum.Diagnosis.Message, want) {
		t.Errorf("diagnosis %q, want %q...", sum.Diagnosis.Message, want)
	}
	if sum.Recovery.DowntimeS != 0 || b5.RecomputeMs > b5.ProcessingMs {
		t.Errorf("driver_downtime_s %v, want 0; recompute %v ms of the aborted batch's %v", sum.Recovery.DowntimeS, b5.RecomputeMs, b5.ProcessingMs)
	}
	for _, row := range r.Timeseries {
		want := "ok"
		if row.TimeS > 5.09 {
			want = "failed"
		}
		if row.Status != want || (want == "failed" && row.RateLimit > 0) {
			t.Errorf("timeseries at %vs: status %q, want %q", row.TimeS, row.Status, want)
		}
	}
}

// A failure injected by hand (Inject) is the scripted failure, and
// replaying the recorded actions gives the same run.
func TestInjectTaskFailure(t *testing.T) {
	sc := parse(t, strings.Replace(taskJob, " TMF", "", 1))
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.RunUntil(ctx, 5050*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Inject(sim.Action{Kind: sim.ActionFailure, Vertex: "work", Subtask: 2}); err == nil || err.Error() != "work runs in stage 0 (in -> work -> out), whose jobs have tasks 0..1 (one per partition), not 2" {
		t.Errorf("subtask 2: %v", err)
	}
	if err := s.Inject(sim.Action{Kind: sim.ActionCheckpoint}); err == nil {
		t.Error("a checkpoint by hand was accepted")
	}
	if err := s.Inject(sim.Action{Kind: sim.ActionFailure, Vertex: "work", Subtask: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(ctx, sc.Duration); err != nil {
		t.Fatal(err)
	}
	live := s.Result()
	if b := batchAt(t, live, 5); b.ProcessingMs != 214 || b.FailedTasks != 1 {
		t.Errorf("batch 5s: %+v", *b)
	}
	acts := s.Actions()
	if len(acts) != 1 || acts[0].AtS != 5.05 {
		t.Fatalf("actions %+v", acts)
	}
	acts[0].At = 0 // as read back from actions.jsonl
	s2, err := New(sc, Options{Actions: acts})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.RunUntil(ctx, sc.Duration); err != nil {
		t.Fatal(err)
	}
	if re := s2.Result(); !reflect.DeepEqual(re.Batches, live.Batches) || !reflect.DeepEqual(re.Summary, live.Summary) {
		t.Error("the replayed run differs from the live one")
	}
}

// Random task failures (mtbf) strike tasks of the executor drawn, each
// failed attempt counted once; the same seed gives the same run.
func TestRandomTaskFailures(t *testing.T) {
	y := strings.Replace(taskJob, " TMF", "", 1) + "workers: {count: 2, slots: 2}\nfailures: [{kind: task, mtbf: 2s}]\n"
	y = strings.Replace(y, "duration: 10s", "duration: 60s", 1)
	r := run(t, parse(t, y))
	n := 0
	for _, b := range r.Batches {
		n += b.FailedTasks
		if b.ProcessingMs != 112+float64(b.FailedTasks)*102 {
			t.Errorf("batch %vs: %d failed tasks, processing %vms", b.TimeS, b.FailedTasks, b.ProcessingMs)
		}
	}
	if n == 0 || r.Summary.Recovery.FailedTasks != n || r.Summary.Recovery.Failures != n {
		t.Errorf("%d failed tasks in batches.csv, recovery %+v", n, r.Summary.Recovery)
	}
	if r2 := run(t, parse(t, y)); !reflect.DeepEqual(r2.Batches, r.Batches) {
		t.Error("not deterministic")
	}
}

// An executor lost while a job runs reruns its tasks: the batch's
// processing time grows by the longest task (102ms, no state to
// recompute) and the total delay is still scheduling delay + processing
// time (the processing time was left at the 112ms computed at the cut).
func TestExecutorLossDuringJobProcessingTime(t *testing.T) {
	y := strings.Replace(taskJob, " TMF", "", 1) + "workers: {count: 2, slots: 2}\nfailures: [{kind: worker, worker: 1, at: 5050ms}]\n"
	r := run(t, parse(t, y))
	b := batchAt(t, r, 5)
	if b.ProcessingMs != 214 || b.TotalDelayMs != b.SchedulingDelayMs+b.ProcessingMs || b.RecomputeMs != 102 {
		t.Errorf("batch 5s: %+v, want processing 214ms = total delay, recompute 102ms", *b)
	}
}
