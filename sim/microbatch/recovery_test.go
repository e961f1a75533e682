package microbatch

import (
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

const recoveryJob = `
engine: spark-streaming
duration: 60s
spark: {batch_interval: 1s, job_overhead: 0s, task_overhead: 0s, checkpoint: true, state_operation: map-with-state, checkpoint_bandwidth: 1MB/s}
workers: {count: 2, slots: 2}
sources: [{name: in, parallelism: 2, arrival: {process: constant, rate: 500/s}, keys: {count: 500}}]
operators: [{name: counts, input: in, partitioning: hash, parallelism: 1, service_time: {mean: 300us}, state: {bytes_per_key: 1000B}}]
sinks: [{name: out, input: counts, delivery: DELIVERY}]
`

// An executor lost at 15.5s takes the state partition it cached: the next
// job first recomputes it from lineage, the 5 batches since the state
// checkpoint at 10s (each the stateful task again) after reading the
// checkpointed state back (500 keys × 1000B at 1MB/s).
func TestExecutorLossRecomputesLineage(t *testing.T) {
	y := strings.Replace(recoveryJob, "DELIVERY", "at-least-once", 1) + "failures: [{kind: worker, worker: 0, at: 15500ms}]\n"
	r := run(t, parse(t, y))
	b15, b16 := r.Batches[14], r.Batches[15]
	if b15.TimeS != 15 || b15.Lineage != 5 || b15.ProcessingMs > 500 {
		t.Fatalf("batch 15: %+v", b15)
	}
	want := 5*b15.Stages[1] + float64(b15.StateKeys)*1000/1e6*1000
	if math.Abs(b16.RecomputeMs-want) > 1e-6 || math.Abs(b16.ProcessingMs-(r.Batches[16].ProcessingMs+want)) > 1e-6 {
		t.Errorf("batch 16: recompute %v ms (processing %v), want 5 × %v + %d keys read back = %v ms", b16.RecomputeMs, b16.ProcessingMs, b15.Stages[1], b15.StateKeys, want)
	}
	rec := r.Summary.Recovery
	if rec == nil || rec.Failures != 1 || rec.JobState != "running" || r.Summary.Totals.Lost != 0 || r.Summary.Totals.Duplicated != 0 {
		t.Errorf("recovery %+v, totals %+v", rec, r.Summary.Totals)
	}
}

// A driver failure at 23.5s, while batch 23 runs: the driver comes back
// 30s later from the checkpoint, submits batch 23 again and generates the
// 30 batches of its downtime at once, the first with every offset that
// arrived meanwhile. An at-least-once sink writes what batch 23 had
// written again; an idempotent one does not.
func TestDriverFailureRestartsFromCheckpoint(t *testing.T) {
	slow := strings.Replace(strings.Replace(recoveryJob, "mean: 300us", "mean: 800us", 1), "duration: 60s", "duration: 120s", 1)
	for _, c := range []struct {
		delivery string
		dup      bool
	}{{"at-least-once", true}, {"idempotent", false}} {
		y := strings.Replace(slow, "DELIVERY", c.delivery, 1) + "failures: [{kind: jobmanager, at: 23500ms}]\n"
		r := run(t, parse(t, y))
		at := map[float64]*BatchInfo{}
		for i := range r.Batches {
			at[r.Batches[i].TimeS] = &r.Batches[i]
		}
		b23, b24, b25 := at[23], at[24], at[25]
		if b23 == nil || b24 == nil || b25 == nil {
			t.Fatalf("%s: batches 23-25 missing", c.delivery)
		}
		// batch 23 (1000 records) started again at 53.5s, after the
		// lost state is restored and recomputed
		if b23.SchedulingDelayMs != 30500 || b23.Records != 1000 || b23.RecomputeMs <= 0 {
			t.Errorf("%s: batch 23 scheduling delay %v ms, %d records, recompute %v ms", c.delivery, b23.SchedulingDelayMs, b23.Records, b23.RecomputeMs)
		}
		// the first downtime batch reads 23s..53.5s, the next nothing new
		if b24.Records != 30500 || b25.Records != 0 {
			t.Errorf("%s: downtime batches read %d and %d records, want 30500 and 0", c.delivery, b24.Records, b25.Records)
		}
		// batch 23 ran from 23s (batch 22 was done) for 0.5s of its
		// processing time before the failure: that share of its output
		// was written
		wantDup := uint64(0)
		if c.dup {
			wantDup = uint64(500 / (b23.ProcessingMs - b23.RecomputeMs) * 1000)
		}
		tot := r.Summary.Totals
		if tot.Duplicated != wantDup || tot.Lost != 0 || c.dup && (wantDup < 600 || wantDup > 630) {
			t.Errorf("%s: duplicated %d, lost %d; want %d, 0", c.delivery, tot.Duplicated, tot.Lost, wantDup)
		}
		if rec := r.Summary.Recovery; rec.DowntimeS != 30 || rec.JobState != "running" {
			t.Errorf("%s: recovery %+v", c.delivery, rec)
		}
		// timeseries.csv marks the intervals that end while the driver
		// is down (23.5s..53.5s)
		for _, row := range r.Timeseries {
			if down := row.TimeS > 23.5 && row.TimeS < 53.5; down != (row.Status == "down") {
				t.Errorf("%s: timeseries at %vs has status %q", c.delivery, row.TimeS, row.Status)
			}
		}
		// the 24.4s batch 24 and the backlog behind it: still catching up
		// at 0.2s a batch by the end, nothing lost
		var done int64
		for _, b := range r.Batches {
			done += b.Records
		}
		if tot.Delivered != uint64(done) || tot.Queued < 10 {
			t.Errorf("%s: delivered %d, completed batches read %d, %d queued", c.delivery, tot.Delivered, done, tot.Queued)
		}
	}
}

// A driver that fails 1.5s before the end is still down at the end (its
// restart is due 30s after the failure): the downtime counts up to the
// end, the job is restarting, and the diagnosis says no batch ran since,
// not that the backlog drained.
func TestDriverDownAtTheEnd(t *testing.T) {
	y := strings.Replace(strings.Replace(recoveryJob, "DELIVERY", "idempotent", 1), "checkpoint: true,", "checkpoint: true, driver_restart: 30s,", 1) +
		"failures: [{kind: jobmanager, at: 58500ms}]\n"
	r := run(t, parse(t, y))
	rec := r.Summary.Recovery
	if rec == nil || rec.JobState != "restarting" || rec.DowntimeS != 1.5 || rec.RestartS != 88.5 {
		t.Fatalf("recovery %+v, want restarting, down 1.5s, restart at 88.5s", rec)
	}
	// batches 1..58 completed (the 58s batch read up to 58s); the 59s and
	// 60s batches were never generated: 2s of 1000 records/s behind
	if n := len(r.Batches); n != 58 || r.Summary.Totals.SourceLag != 2000 {
		t.Errorf("%d batches, source lag %d; want 58 and 2000", n, r.Summary.Totals.SourceLag)
	}
	want := "recovery: the driver failed 1.5s before the end and restarts from the checkpoint at 88.5s, after the run: no batch ran since"
	// it leads the diagnosis: the batches completed are from before
	if m := r.Summary.Diagnosis.Message; !strings.HasPrefix(m, want) {
		t.Errorf("diagnosis %q, want %q...", m, want)
	}
}

// A driver failure while the driver is down (60s, then 61s and 79s of
// a 20s restart) has nothing to fail: no second downtime, no second
// restart (it panicked: two restarts started the same job twice).
func TestDriverFailureWhileDown(t *testing.T) {
	y := strings.Replace(recoveryJob, "DELIVERY", "at-least-once", 1) + "failures: [{kind: jobmanager, at: 20s}, {kind: jobmanager, at: 21s}, {kind: jobmanager, at: 49s}]\n"
	r := run(t, parse(t, y))
	restarts := 0
	for _, e := range r.Events {
		if e.Type == sim.EventRestart {
			restarts++
		}
	}
	if rec := r.Summary.Recovery; rec.Failures != 1 || rec.DowntimeS != 30 || restarts != 1 || rec.JobState != "running" {
		t.Errorf("recovery %+v, %d restarts; want 1 failure, 30s down, 1 restart", rec, restarts)
	}
}

// Without checkpoint: true a driver failure loses the job; receivers
// without the write-ahead log lose the records of the pending batches,
// with it nothing.
func TestDriverFailureLosses(t *testing.T) {
	stateless := `
engine: spark-streaming
duration: 30s
spark: {batch_interval: 1s, CKPT}
workers: {count: 2, slots: 2}
sources: [{name: in, arrival: {process: constant, rate: 1000/s}}]
operators: [{name: parse, input: in, service_time: {mean: 800us}}]
sinks: [{name: out, input: parse}]
failures: [{kind: jobmanager, at: 10500ms}]
`
	r := run(t, parse(t, strings.Replace(stateless, "CKPT", "checkpoint: false", 1)))
	// batches 1..10 were read, 9 completed; nothing is read after
	if rec := r.Summary.Recovery; rec.JobState != "lost" || len(r.Batches) != 9 || r.Summary.Totals.SourceLag != 30000-10000 {
		t.Errorf("no checkpoint: %+v, %d batches, lag %d", rec, len(r.Batches), r.Summary.Totals.SourceLag)
	}
	// nothing reruns batch 10, so what it wrote it wrote once; the
	// application is down from the failure to the end, and the loss
	// leads the diagnosis
	if sum := r.Summary; sum.Totals.Duplicated != 0 || sum.Recovery.DowntimeS != 19.5 ||
		!strings.HasPrefix(sum.Diagnosis.Message, "the job is lost at 10.5s: the driver failed without checkpoint: true") {
		t.Errorf("no checkpoint: %d duplicated, driver down %vs, diagnosis %q; want 0, 19.5s, the job is lost...", sum.Totals.Duplicated, sum.Recovery.DowntimeS, sum.Diagnosis.Message)
	}
	for _, row := range r.Timeseries {
		if lost := row.TimeS > 10.5; lost != (row.Status == "lost") {
			t.Errorf("no checkpoint: timeseries at %vs has status %q", row.TimeS, row.Status)
		}
	}
	for _, c := range []struct {
		wal  string
		lost uint64
	}{{"false", 1500}, {"true", 0}} {
		// 5 blocks of 200 records at 2ms on 3 cores (one holds the
		// receiver): batch 10 runs 10s..10.8s
		y := strings.Replace(stateless, "CKPT", "checkpoint: true, input_stream: receiver, write_ahead_log: "+c.wal+", driver_restart: 5s", 1)
		y = strings.Replace(y, "mean: 800us", "mean: 2ms", 1)
		r := run(t, parse(t, y))
		if tot := r.Summary.Totals; tot.Lost != c.lost {
			t.Errorf("write_ahead_log %s: lost %d, want %d (batch 10, running at the failure, and the 500 received since)", c.wal, tot.Lost, c.lost)
		}
		// without the log batch 10's blocks are gone: it does not run
		// again, so what it had written is not written twice; the
		// receivers were down with the driver: the 5 batches of the
		// downtime (11s..15s) get no block, the backlog goes to the next
		// a stateless job checkpoints its metadata only: no state
		// checkpoint to count
		if r.Summary.Checkpoints != nil {
			t.Errorf("write_ahead_log %s: a stateless job reports state checkpoints %+v", c.wal, r.Summary.Checkpoints)
		}
		wantDup := c.wal == "true"
		if tot := r.Summary.Totals; (tot.Duplicated > 0) != wantDup {
			t.Errorf("write_ahead_log %s: %d duplicated", c.wal, tot.Duplicated)
		}
		// batch 10 (rerun with the log) and those of the downtime waited
		// for the restart, not behind a slow batch: the first
		// falling_behind is batch 17's, behind the 16s batch that reads
		// the backlog
		said := false
		for _, e := range r.Events {
			if e.Type == EventFallingBehind && e.Time.Seconds() < 16 {
				t.Errorf("write_ahead_log %s: %s at %v: %s", c.wal, e.Type, e.Time, e.Message)
			}
			said = said || strings.HasPrefix(e.Message, "without the write-ahead log the receivers' blocks are lost with the executors: 1 pending batch (the running one included) and the records received since the last batch, 1500 records in all")
		}
		if said != (c.wal == "false") {
			t.Errorf("write_ahead_log %s: the loss of the blocks said %v", c.wal, said)
		}
		for _, b := range r.Batches {
			if b.TimeS > 10.5 && b.TimeS <= 15.5 && b.Records != 0 {
				t.Errorf("write_ahead_log %s: downtime batch %vs read %d records, want 0", c.wal, b.TimeS, b.Records)
			}
		}
	}
}

// Structured streaming: a driver failure during micro-batch 10 (offsets
// logged, no commit) reruns it with the same offsets after the restart;
// the next trigger (the next multiple of the interval after its start, or at once)
// reads everything that arrived meanwhile. The state is loaded from the
// state store, not recomputed; an idempotent sink writes nothing twice,
// an at-least-once sink the share of its rows written before the failure.
func TestStructuredDriverFailure(t *testing.T) {
	y := `
engine: structured-streaming
duration: 40s
spark: {trigger: processing-time, trigger_interval: 1s, output_mode: update, driver_restart: 5s}
sources: [{name: in, parallelism: 2, arrival: {process: constant, rate: 500/s}, keys: {count: 100}}]
operators: [{name: counts, input: in, partitioning: hash, parallelism: 2, service_time: {mean: 600us}, state: {bytes_per_key: 64B}}]
sinks: [{name: out, input: counts, delivery: DELIVERY}]
failures: [{kind: jobmanager, at: 10100ms}]
`
	for _, c := range []struct {
		delivery string
		dup      bool
	}{{"idempotent", false}, {"at-least-once", true}} {
		r := run(t, parse(t, strings.Replace(y, "DELIVERY", c.delivery, 1)))
		var b10, next *BatchInfo
		for i := range r.Batches {
			if r.Batches[i].TimeS == 10 {
				b10, next = &r.Batches[i], &r.Batches[i+1]
			}
		}
		if b10 == nil || b10.SchedulingDelayMs != 5100 || b10.Records != 1000 || b10.RecomputeMs <= 0 {
			t.Fatalf("%s: micro-batch 10 rerun: %+v", c.delivery, b10)
		}
		end := b10.TimeS + (b10.SchedulingDelayMs+b10.ProcessingMs)/1000
		if want := math.Floor(end) + 1; next.TimeS != want || next.Records != int64(1000*(want-10)) {
			t.Errorf("%s: the next trigger at %v s with %d records, want %v s with %v", c.delivery, next.TimeS, next.Records, want, 1000*(want-10))
		}
		dup := r.Summary.Totals.Duplicated
		if (dup > 0) != c.dup || dup > 100 || r.Summary.Totals.Lost != 0 {
			t.Errorf("%s: duplicated %d, lost %d", c.delivery, dup, r.Summary.Totals.Lost)
		}
	}
}
