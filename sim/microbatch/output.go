package microbatch

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// BatchInfo is one completed batch (or trigger), with StreamingListener's
// figures (BatchInfo in org.apache.spark.streaming.scheduler): one row of
// batches.csv. Times are in milliseconds of simulated time.
type BatchInfo struct {
	Batch   int64   `json:"batch"`        // 1, 2, ... in batch order
	TimeS   float64 `json:"batch_time_s"` // the batch time (the trigger time)
	Records int64   `json:"records"`      // records read by the batch (numRecords)
	// RateLimit is the rate controller's rate the batch was cut under
	// (records/s over all partitions), -1 for none.
	RateLimit         float64   `json:"rate_limit_rps"`
	SchedulingDelayMs float64   `json:"scheduling_delay_ms"` // processing start − batch time
	ProcessingMs      float64   `json:"processing_time_ms"`  // processing end − start
	TotalDelayMs      float64   `json:"total_delay_ms"`      // processing end − batch time
	Tasks             int       `json:"tasks"`
	Stages            []float64 `json:"-"`                 // each stage's makespan, ms
	Delivered         int64     `json:"delivered_records"` // records that reached the sinks (append mode: those of the windows it wrote)
	// RowsWritten and BytesWritten are the rows (and their bytes_per_key)
	// a state writes to the sinks: structured streaming's by the output
	// mode, updateStateByKey's a row per key held every batch (the update
	// function's calls); otherwise 0, records being delivered_records.
	RowsWritten  int64   `json:"rows_written"`
	BytesWritten int64   `json:"bytes_written"`
	WatermarkS   float64 `json:"watermark_s"` // the event-time watermark the trigger ran with (0: none)
	// Lineage is the batches of lineage behind the batch's state: since
	// the last state checkpoint, this one included, which a lost state
	// partition is recomputed from; 0 for a batch that checkpoints its
	// state (and without checkpointing). CheckpointBytes is the state a
	// checkpoint batch wrote.
	Lineage         int   `json:"lineage_batches"`
	CheckpointBytes int64 `json:"checkpoint_bytes"`
	// StateKeys is the keys held by the stateful operators after the
	// batch.
	StateKeys int64 `json:"state_keys"`
	// RecomputeMs is the part of the processing time spent recomputing
	// state lost with an executor or the driver, from lineage, and
	// rerunning the tasks of a lost executor and failed task attempts.
	RecomputeMs float64 `json:"recompute_ms"`
	// FailedTasks counts the task attempts of the job that failed (failure
	// kind task): each ran again, unless it was the
	// spark.task.maxFailures-th of its task, which aborted the job.
	FailedTasks int `json:"failed_tasks"`

	time, start, end des.Time
	// aborted: its job was aborted (spark.task.maxFailures); a row of
	// batches.csv, and no batch of the statistics (it did not complete)
	aborted bool
}

// EndS is when the batch's processing ended (its records reached the
// sinks then), in simulated seconds: batch time + total delay.
func (b *BatchInfo) EndS() float64 { return b.end.Seconds() }

// BatchColumns are the columns of batches.csv, in order.
var BatchColumns = []string{
	"batch", "batch_time_s", "records", "rate_limit_rps", "scheduling_delay_ms", "processing_time_ms", "total_delay_ms",
	"tasks", "delivered_records", "rows_written", "bytes_written", "watermark_s", "lineage_batches", "checkpoint_bytes", "state_keys", "recompute_ms",
	"failed_tasks",
}

// TimeseriesColumns are the columns of a micro-batch run's timeseries.csv:
// one row per metrics interval for the whole job, keyed as sim's rows are
// (vertex JobVertex, kind "job", subtask -1, status TimeseriesRow.Status),
// so that dspalab plot reads it. A delay column is empty
// for an interval in which no batch completed.
var TimeseriesColumns = []string{
	"time_s", "vertex", "kind", "subtask", "status", "input_rate_rps", "processing_rate_rps", "batches_completed", "queued_batches",
	"scheduling_delay_ms", "processing_time_ms", "total_delay_ms", "rate_limit_rps",
	"source_lag_records", "latency_p50_ms", "latency_p99_ms", "state_keys", "state_bytes",
}

// JobVertex is the vertex name of the job's rows in timeseries.csv (plot
// them with --vertex job).
const JobVertex = "job"

// TimeseriesRow is one row of timeseries.csv (see TimeseriesColumns);
// the delays are means over the batches completed in the interval, NaN
// when none did.
type TimeseriesRow struct {
	TimeS                     float64
	InputRate, ProcessingRate float64
	Completed, Queued         int
	// Status is the job's at the end of the interval (the Status*
	// constants)
	Status                              string
	SchedulingMs, ProcessingMs, TotalMs float64
	RateLimit                           float64
	Lag                                 int64
	LatencyP50Ms, LatencyP99Ms          float64
	StateKeys, StateBytes               int64
}

// The job statuses of timeseries.csv (TimeseriesRow.Status).
const (
	StatusOK         = "ok"
	StatusQueued     = "queued"     // batches wait for their jobs
	StatusDown       = "down"       // the driver is down
	StatusLost       = "lost"       // the job is lost: the driver failed without checkpointing
	StatusFailed     = "failed"     // a task failed spark.task.maxFailures times: the application stopped
	StatusTerminated = "terminated" // an available-now query has read what it found
)

// onSample closes a metrics interval.
func (s *Sim) onSample(now des.Time, _ int64) {
	iv := (now - s.lastRow).Seconds()
	r := TimeseriesRow{TimeS: now.Seconds(), InputRate: float64(s.ivRead) / iv, ProcessingRate: float64(s.ivDone) / iv,
		Completed: len(s.ivBatch), Queued: len(s.queue), RateLimit: -1,
		SchedulingMs: math.NaN(), ProcessingMs: math.NaN(), TotalMs: math.NaN(), LatencyP50Ms: math.NaN(), LatencyP99Ms: math.NaN()}
	if s.running != nil {
		r.Queued++
	}
	switch {
	case s.ss != nil && s.ss.finished:
		r.Status = StatusTerminated
	case s.rec.jobLost:
		r.Status = StatusLost
	case s.rec.jobFailed:
		r.Status = StatusFailed
	case s.rec.driverDown:
		r.Status = StatusDown
	case r.Queued > 1:
		r.Status = StatusQueued
	default:
		r.Status = StatusOK
	}
	if s.pid != nil && s.rate > 0 && !s.rec.jobLost && !s.rec.jobFailed {
		r.RateLimit = s.rate // a stopped application cuts no batch under it
	}
	if n := len(s.ivBatch); n > 0 {
		r.SchedulingMs, r.ProcessingMs, r.TotalMs = 0, 0, 0
		for _, i := range s.ivBatch {
			b := &s.batches[i]
			r.SchedulingMs += b.SchedulingDelayMs / float64(n)
			r.ProcessingMs += b.ProcessingMs / float64(n)
			r.TotalMs += b.TotalDelayMs / float64(n)
		}
	}
	if s.latIv.Count() > 0 {
		r.LatencyP50Ms, r.LatencyP99Ms = ms(s.latIv.Quantile(0.5)), ms(s.latIv.Quantile(0.99))
	}
	for _, pt := range s.parts {
		pt.appendUntil(now)
		r.Lag += pt.appended - pt.offset
	}
	r.StateKeys, r.StateBytes = s.doneKeys, s.doneBytes
	s.tsRows = append(s.tsRows, r)
	s.lastRow, s.ivRead, s.ivDone, s.ivBatch = now, 0, 0, s.ivBatch[:0]
	s.latIv.Reset()
	if now == s.sc.Warmup && now > 0 {
		s.events = append(s.events, sim.Event{Time: now, Type: sim.EventWarmupEnded, Worker: -1, Message: "warmup ended: the statistics start here"})
	}
	if next := now + s.MetricsInterval(); next <= s.sc.Duration {
		s.mustSchedule(next, s.sample, 0)
	}
}

// sec formats simulated seconds as sim's tables do.
func sec(x float64) string { return sim.FormatTime(des.FromSeconds(x)) }

func ms(t des.Time) float64 { return round3(t.Seconds() * 1000) }

// msp is ms as a summary's nullable figure.
func msp(t des.Time) *float64 {
	v := ms(t)
	return &v
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Summary is summary.json of a micro-batch run: the run, the job's stages,
// the totals, StreamingListener's delays over the window (batches whose
// batch time is at or after the warmup), record latencies, back-pressure,
// state, checkpoints and the diagnosis.
type Summary struct {
	Scenario      string     `json:"scenario"`
	Description   string     `json:"description,omitempty"`
	Seed          uint64     `json:"seed"`
	Engine        string     `json:"engine"`
	DurationS     float64    `json:"duration_s"`
	WarmupS       float64    `json:"warmup_s"`
	SimulatedS    float64    `json:"simulated_s"`
	Partial       bool       `json:"partial"`
	PartialReason string     `json:"partial_reason,omitempty"`
	Window        sim.Window `json:"window"`
	// BatchIntervalS is the batch interval (spark-streaming) or the
	// trigger interval (structured-streaming; 0 for the default trigger).
	BatchIntervalS float64        `json:"batch_interval_s"`
	Trigger        string         `json:"trigger,omitempty"`
	OutputMode     string         `json:"output_mode,omitempty"`
	ExecutorCores  int            `json:"executor_cores"`
	Stages         []StageSummary `json:"stages"`
	Totals         Totals         `json:"totals"`
	Streaming      Streaming      `json:"streaming"`
	Latency        Latency        `json:"latency"`
	Backpressure   *Backpressure  `json:"backpressure,omitempty"`
	State          *StateSummary  `json:"state,omitempty"`
	Checkpoints    *Checkpoints   `json:"checkpoints,omitempty"`
	// Recovery is absent for a run without failures.
	Recovery  *RecoverySummary `json:"recovery,omitempty"`
	Diagnosis sim.Diagnosis    `json:"diagnosis"`
}

// StageSummary is one stage of the job: its vertices, tasks per batch and
// mean duration per batch over the window.
type StageSummary struct {
	Name     string   `json:"name"` // "parse -> enrich"
	Vertices []string `json:"vertices"`
	Tasks    int      `json:"tasks"`
	Shuffle  bool     `json:"shuffle"` // reads a shuffle
	MeanMs   float64  `json:"mean_ms"`
}

// Totals count over the whole run.
type Totals struct {
	Appended  uint64 `json:"records_emitted"`   // appended to the sources' logs (arrived)
	Read      uint64 `json:"records_read"`      // read into batches
	Delivered uint64 `json:"records_delivered"` // reached the sinks (or the aggregation; in append mode, in a window written) in completed batches
	SourceLag uint64 `json:"source_lag_records"`
	Batches   int    `json:"batches_completed"`
	Queued    int    `json:"batches_queued"` // waiting or running at the end
	Rows      int64  `json:"rows_written"`
	// Duplicated are records a sink wrote twice (the output of a batch
	// rerun after a driver failure, at-least-once sinks); Lost records
	// read and never processed (receivers without the write-ahead log).
	Duplicated uint64 `json:"records_duplicated"`
	Lost       uint64 `json:"records_lost"`
	Events     uint64 `json:"events"`
}

// RecoverySummary sums up the failures of a run.
type RecoverySummary struct {
	Failures int `json:"failures"`
	// JobState is "running", "restarting" while a failed driver is down
	// at the end (its restart from the checkpoint, at RestartS, after the
	// run), "failed" after a task failed spark.task.maxFailures times (the
	// job aborted), or "lost" after a driver failure without
	// checkpointing.
	JobState string `json:"job_state"`
	// DowntimeS is the time the driver was down (driver_restart per
	// failure), up to the end of the run; for a job lost, its downtimes
	// before and the time from the loss to the end (a job failed by a
	// task's spark.task.maxFailures stopped; its driver did not fail).
	DowntimeS float64 `json:"driver_downtime_s"`
	// RestartS is when the driver still down at the end restarts, in
	// simulated seconds after the start; 0 (left out) otherwise.
	RestartS   float64 `json:"driver_restart_at_s,omitempty"`
	RecomputeS float64 `json:"recompute_s"` // processing time spent recomputing lost state and tasks
	// FailedTasks counts the failed task attempts of the completed (and
	// aborted) batches (batches.csv failed_tasks).
	FailedTasks int `json:"failed_tasks"`
	// WithoutEffect lists the scripted failures that a run shortened
	// below their time (dspalab run --duration) never reached, as a
	// Flink run's recovery does; WithoutEffectCount counts them.
	WithoutEffect      []sim.IneffectiveFailure `json:"failures_without_effect,omitempty"`
	WithoutEffectCount int                      `json:"failures_without_effect_count,omitempty"`
}

// AddBeyondEnd lists a scripted failure that a run shortened below its
// time never reached among the recovery's failures without effect (see
// sim.AppendBeyondEnd), with a recovery summary of a running job if the
// run had none (every failure was beyond the end); Failures does not
// count it.
func (sum *Summary) AddBeyondEnd(fl *scenario.Failure, end des.Time) {
	if sum.Recovery == nil {
		sum.Recovery = &RecoverySummary{JobState: "running"}
	}
	r := sum.Recovery
	what := fl.Kind + " failure"
	switch fl.Kind {
	case scenario.FailureTask:
		what = fmt.Sprintf("the task of %s partition %d fails", fl.Vertex, fl.Subtask)
	case scenario.FailureWorker:
		what = fmt.Sprintf("the executor on worker %d fails", fl.Worker)
	case scenario.FailureJobManager:
		what = "the driver fails"
	}
	r.WithoutEffect, r.WithoutEffectCount = sim.AppendBeyondEnd(r.WithoutEffect, r.WithoutEffectCount, what, fl.At, end)
}

// Streaming holds StreamingListener's figures over the window.
type Streaming struct {
	Batches        int     `json:"batches"`
	InputRate      float64 `json:"input_rate_rps"`      // records received over the statistics window per second of it (sim.InWindow)
	ProcessingRate float64 `json:"processing_rate_rps"` // records per second of processing time
	// SchedulingDelay, ProcessingTime and TotalDelay are null when no
	// batch completed in the window (as Flink's latencies of a vertex no
	// record left).
	SchedulingDelay *Stat `json:"scheduling_delay"`
	ProcessingTime  *Stat `json:"processing_time"`
	TotalDelay      *Stat `json:"total_delay"`
	// SchedulingDelayGrowthMs is the scheduling delay's growth per batch
	// at the end of the window: over its rise to the last batch, or, when
	// it does not rise, over the last batches (up to recentWindow),
	// negative while it shrinks (judge).
	SchedulingDelayGrowthMs float64 `json:"scheduling_delay_growth_ms_per_batch"`
	// Stable: the job does not fall behind at the end of the window: not
	// both its last batch over the batch interval and its scheduling
	// delay longer than the batch's before it (judge); null
	// when no batch completed in the window (there is no processing time
	// to judge).
	Stable *bool `json:"stable"`
	// RowsDroppedByWatermark counts the records of a structured streaming
	// aggregation dropped as late: their window had passed the watermark
	// (StateOperatorProgress.numRowsDroppedByWatermark, which counts the
	// partially aggregated rows instead: see doc.go).
	RowsDroppedByWatermark int64 `json:"rows_dropped_by_watermark"`
}

// Stat is a mean, max and last value in milliseconds.
type Stat struct {
	MeanMs float64 `json:"mean_ms"`
	MaxMs  float64 `json:"max_ms"`
	LastMs float64 `json:"last_ms"`
}

// Latency is the records' end-to-end latency over the window: from the
// arrival in the source's log to the end of the job of their batch (in
// structured streaming's append mode, of the micro-batch that writes
// their window; the records of a window not written have none). The
// figures are null when no record was delivered in the window (Count 0),
// as Flink's latencies are.
type Latency struct {
	Count  uint64   `json:"count"`
	MeanMs *float64 `json:"mean_ms"`
	P50Ms  *float64 `json:"p50_ms"`
	P90Ms  *float64 `json:"p90_ms"`
	P99Ms  *float64 `json:"p99_ms"`
	MaxMs  *float64 `json:"max_ms"`
}

// Backpressure sums up the PID rate estimator's rates.
type Backpressure struct {
	FinalRate float64 `json:"final_rate_rps"` // -1 before the first estimate
	MinRate   float64 `json:"min_rate_rps"`
	MaxRate   float64 `json:"max_rate_rps"`
	// RateSwing is the mean change of the rate from one batch to the next
	// over the window (records/s): near 0 once the estimator has
	// converged, large when it oscillates.
	RateSwing float64 `json:"rate_swing_rps"`
}

// StateSummary is the state held at the end: after the last batch
// completed (batches.csv's last state_keys), as a batch's state is
// computed by its job.
type StateSummary struct {
	Operation string `json:"operation,omitempty"`
	Keys      int64  `json:"keys"`
	Bytes     int64  `json:"bytes"`
}

// Checkpoints sums up ssc.checkpoint.
type Checkpoints struct {
	IntervalS  float64 `json:"interval_s"`
	Written    int     `json:"state_checkpoints"`
	Bytes      int64   `json:"bytes_written"`
	MaxLineage int     `json:"max_lineage_batches"`
}

// Result is what a run measured.
type Result struct {
	Summary    Summary
	Batches    []BatchInfo
	Timeseries []TimeseriesRow
	Events     []sim.Event
}

// Result returns what the run measured so far; partial when it has not
// reached its duration.
func (s *Sim) Result() *Result {
	sc := s.sc
	now := s.eng.Now()
	sum := Summary{Scenario: sc.Name, Description: sc.Description, Seed: sc.Seed, Engine: sc.Engine,
		DurationS: sc.Duration.Seconds(), WarmupS: sc.Warmup.Seconds(), SimulatedS: now.Seconds(),
		Window: sim.Window{FromS: sc.Warmup.Seconds(), ToS: now.Seconds()}, BatchIntervalS: s.interval.Seconds(),
		ExecutorCores: s.cores}
	if now < sc.Duration {
		sum.Partial = true
		sum.PartialReason = sim.StoppedText(s.stopped, now, sc.Duration)
	}
	if s.ss != nil {
		sum.Trigger, sum.OutputMode = s.sp.Trigger, s.sp.OutputMode
	}
	var win []*BatchInfo
	for i := range s.batches {
		// the batches completed in the window (a batch cut in the warmup
		// and done after it counts: what a StreamingListener attached at
		// the warmup's end would report)
		if s.batches[i].end >= sc.Warmup && !s.batches[i].aborted {
			win = append(win, &s.batches[i])
		}
	}
	for _, st := range s.stages {
		ss := StageSummary{Name: stageName(st), Tasks: st.parts, Shuffle: st.Shuffle}
		for _, v := range st.Vertices {
			ss.Vertices = append(ss.Vertices, v.Name)
		}
		for _, b := range win {
			ss.MeanMs += b.Stages[st.Index] / float64(len(win))
		}
		ss.MeanMs = round3(ss.MeanMs)
		sum.Stages = append(sum.Stages, ss)
	}
	t := &sum.Totals
	for _, pt := range s.parts {
		pt.appendUntil(now)
		t.Appended += uint64(pt.appended)
		t.SourceLag += uint64(pt.appended - pt.offset)
	}
	t.Read, t.Delivered, t.Queued, t.Events = s.read, s.deliver, len(s.queue), s.eng.Fired()
	for i := range s.batches {
		if !s.batches[i].aborted { // completed; an aborted job did not
			t.Batches++
		}
	}
	if s.running != nil {
		t.Queued++
	}
	for i := range s.batches {
		t.Rows += s.batches[i].RowsWritten
	}
	t.Duplicated, t.Lost = s.rec.duplicated, s.rec.lost
	if len(sc.Failures) > 0 || s.rec.failures > 0 {
		r := &RecoverySummary{Failures: s.rec.failures, JobState: "running", DowntimeS: s.rec.downtime.Seconds()}
		switch {
		case s.rec.jobFailed:
			r.JobState = "failed" // the application stopped: its driver did not fail
		case s.rec.jobLost:
			r.JobState = "lost"
			r.DowntimeS = (s.rec.downtime + now - s.rec.stoppedAt).Seconds()
		case s.rec.driverDown && s.rec.restartAt > now:
			// the driver restarts after now: down until now, not yet up
			r.JobState = "restarting"
			r.DowntimeS = (s.rec.downtime - (s.rec.restartAt - now)).Seconds()
			r.RestartS = s.rec.restartAt.Seconds()
		}
		for i := range s.batches {
			r.RecomputeS += s.batches[i].RecomputeMs / 1000
			r.FailedTasks += s.batches[i].FailedTasks
		}
		r.RecomputeS = round3(r.RecomputeS)
		sum.Recovery = r
	}
	st := &sum.Streaming
	st.Batches = len(win)
	verdict := judge(win, s.interval)
	var recs int64
	var procS float64
	var sched, proc, total Stat
	for _, b := range win {
		recs += b.Records
		procS += b.ProcessingMs / 1000
		acc(&sched, b.SchedulingDelayMs, len(win))
		acc(&proc, b.ProcessingMs, len(win))
		acc(&total, b.TotalDelayMs, len(win))
	}
	if span := now - min(sc.Warmup, now); span > 0 {
		var received int64
		for _, pt := range s.parts {
			received += pt.received
		}
		st.InputRate = round3(float64(received) / span.Seconds())
	}
	if n := len(win); n > 0 {
		if procS > 0 {
			st.ProcessingRate = round3(float64(recs) / procS)
		}
		st.SchedulingDelayGrowthMs = round3(verdict.growthMs)
	}
	if len(win) > 0 {
		for _, x := range []*Stat{&sched, &proc, &total} {
			x.MeanMs, x.MaxMs, x.LastMs = round3(x.MeanMs), round3(x.MaxMs), round3(x.LastMs)
		}
		st.SchedulingDelay, st.ProcessingTime, st.TotalDelay = &sched, &proc, &total
		// a run in which no batch completed has no processing time to
		// compare: Stable stays null (a mean of 0 would pass any interval)
		stable := !verdict.behind
		st.Stable = &stable
	}
	if s.ss != nil {
		st.RowsDroppedByWatermark = s.ss.late
	}
	if h := s.lat; h.Count() > 0 {
		mean := round3(h.Mean() / 1e6)
		sum.Latency = Latency{Count: h.Count(), MeanMs: &mean, P50Ms: msp(h.Quantile(0.5)),
			P90Ms: msp(h.Quantile(0.9)), P99Ms: msp(h.Quantile(0.99)), MaxMs: msp(h.Max())}
	}
	if s.pid != nil {
		bp := &Backpressure{FinalRate: s.rate, MinRate: -1, MaxRate: -1}
		for i := range s.batches {
			if r := s.batches[i].RateLimit; r > 0 {
				if bp.MinRate < 0 || r < bp.MinRate {
					bp.MinRate = r
				}
				bp.MaxRate = max(bp.MaxRate, r)
			}
		}
		var swing float64
		var steps int
		for i := 1; i < len(win); i++ {
			if a, b := win[i-1].RateLimit, win[i].RateLimit; a > 0 && b > 0 {
				swing += math.Abs(b - a)
				steps++
			}
		}
		if steps > 0 {
			bp.RateSwing = round3(swing / float64(steps))
		}
		sum.Backpressure = bp
	}
	if k, b := s.doneKeys, s.doneBytes; s.plan.Stateful() {
		sum.State = &StateSummary{Keys: k, Bytes: b}
		if s.ss == nil {
			sum.State.Operation = s.sp.StateOperation
		}
	}
	if s.ckpt.interval > 0 {
		c := &Checkpoints{IntervalS: s.ckpt.interval.Seconds()}
		for _, b := range win { // the statistics window's, as the other figures
			c.MaxLineage = max(c.MaxLineage, b.Lineage)
			if b.Lineage == 0 {
				c.Written++
				c.Bytes += b.CheckpointBytes
			}
		}
		sum.Checkpoints = c
	}
	sum.Diagnosis = s.diagnose(&sum, win, verdict)
	evs := append([]sim.Event(nil), s.events...)
	typ, msg := sim.EventRunFinished, "run finished"
	if sum.Partial {
		typ, msg = sim.EventRunStopped, "run stopped before its end: the outputs are partial"
	}
	evs = append(evs, sim.Event{Time: now, Type: typ, Worker: -1, Message: msg})
	return &Result{Summary: sum, Batches: s.batches, Timeseries: s.tsRows, Events: evs}
}

// recentWindow is the number of last batches the stability verdict
// reads. Spark's tuning guide judges a job by the trend of its delays
// ("if the delay is continuously increasing, it means that the system is
// unable to keep up"), not by a mean over the whole run: a state that
// grows makes a job that kept up for a minute fall behind at its end, and
// one slow batch (a failed task rerun) raises the mean of a job that
// catches up after it.
const recentWindow = 5

// recentBatches is the last recentWindow batches of win (all of them in
// a shorter window).
func recentBatches(win []*BatchInfo) []*BatchInfo {
	return win[max(0, len(win)-recentWindow):]
}

// doneSince reports whether a batch's job completed at t or later.
func (s *Sim) doneSince(t des.Time) bool {
	for i := len(s.batches) - 1; i >= 0; i-- {
		if b := &s.batches[i]; !b.aborted && b.end >= t {
			return true
		}
	}
	return false
}

// trend is the stability verdict on the recent batches of a window.
type trend struct {
	k        int     // the recent batches judged
	medianMs float64 // their median processing time
	lastMs   float64 // the last one's
	// behind: the job falls behind at the end: the last batch took
	// longer than the interval and waited longer than the one before it
	// (the one batch of a window of one: it took longer).
	// A last batch that took longer without the delay growing is one
	// slow batch (a failed task's rerun, a checkpoint): the batches after
	// it catch up while the others stay under the interval.
	behind bool
	edge   bool // not behind, the median processing time is the interval
	// growthMs is the scheduling delay's growth per batch at the end
	// (Streaming.SchedulingDelayGrowthMs)
	growthMs float64
}

// judge gives the verdict on win's recent batches at batch interval iv
// (0: none, as fast as possible: never behind).
func judge(win []*BatchInfo, iv des.Duration) trend {
	r := recentBatches(win)
	t := trend{k: len(r)}
	if t.k == 0 {
		return t
	}
	ms := make([]float64, t.k)
	for i, b := range r {
		ms[i] = b.ProcessingMs
	}
	t.lastMs = ms[t.k-1]
	slices.Sort(ms)
	t.medianMs = ms[t.k/2]
	if t.k%2 == 0 {
		t.medianMs = (ms[t.k/2-1] + ms[t.k/2]) / 2
	}
	// the delay grows at the end: the last batch waited longer than the
	// one before it; growthMs is per batch over that rise (the batches
	// since the delay last fell, within the recent ones), or over the
	// recent batches when it did not rise (negative while it shrinks)
	j := t.k - 1
	for j > 0 && r[j].SchedulingDelayMs-r[j-1].SchedulingDelayMs >= 0.001 {
		j--
	}
	growing := j < t.k-1
	if growing {
		t.growthMs = (r[t.k-1].SchedulingDelayMs - r[j].SchedulingDelayMs) / float64(t.k-1-j)
	} else if t.k > 1 {
		t.growthMs = (r[t.k-1].SchedulingDelayMs - r[0].SchedulingDelayMs) / float64(t.k-1)
	}
	t.behind = iv > 0 && exceeds(t.lastMs, iv) && (growing || t.k == 1)
	t.edge = !t.behind && iv > 0 && math.Abs(t.medianMs-iv.Seconds()*1000) < 0.001 // equal to the microsecond
	return t
}

// halvesGrow reports whether the micro-batches of the window take longer
// in its second half than in its first, by more than 5% on average: a job
// whose batches run back to back and grow, however slowly (each reads
// what arrived while the last ran, and takes longer than that did).
func halvesGrow(win []*BatchInfo) bool {
	if len(win) < 4 {
		return false
	}
	var a, b float64
	h := len(win) / 2
	for _, x := range win[:h] {
		a += x.ProcessingMs / float64(h)
	}
	for _, x := range win[len(win)-h:] {
		b += x.ProcessingMs / float64(h)
	}
	return b > 1.05*a
}

// exceeds reports whether a processing time of ms milliseconds is longer
// than the batch interval iv, to the microsecond the batches are kept in:
// a processing time equal to the interval keeps the scheduling delay
// where it is (it does not grow), so that job is stable, on the edge.
func exceeds(ms float64, iv des.Duration) bool {
	return ms-iv.Seconds()*1000 >= 0.001
}

func acc(x *Stat, v float64, n int) {
	x.MeanMs += v / float64(n)
	x.MaxMs = max(x.MaxMs, v)
	x.LastMs = v
}

// Diagnosis kinds of a micro-batch run (sim.Diagnosis.Kind).
const (
	DiagnosisStable        = "stable"         // processing time < batch interval
	DiagnosisFallingBehind = "falling-behind" // processing time > batch interval: batches queue
	DiagnosisNone          = "none"           // nothing to judge (no batch completed)
)

// diagnose says what a student should look at first, in Spark's terms;
// win is the batches of the statistics window, v the verdict on them.
func (s *Sim) diagnose(sum *Summary, win []*BatchInfo, v trend) sim.Diagnosis {
	d := sim.Diagnosis{Kind: DiagnosisStable, Evidence: []string{}}
	st := sum.Streaming
	iv := s.interval
	say := func(f string, a ...any) {
		if d.Message == "" {
			d.Message = fmt.Sprintf(f, a...)
		} else {
			d.Evidence = append(d.Evidence, fmt.Sprintf(f, a...))
		}
	}
	if st.Batches == 0 {
		d.Kind = DiagnosisNone
		switch {
		case s.ss == nil && iv >= s.sc.Duration:
			say("no batch completed in the window: the batch interval %s is not shorter than the run (%s), and the first batch is generated one batch interval after the start",
				sim.FormatTime(iv), sim.FormatTime(s.sc.Duration))
		case s.ss != nil && iv > 0 && iv >= s.sc.Duration:
			say("no micro-batch completed in the window: the trigger interval (spark.trigger_interval) %s is not shorter than the run (%s), and the first trigger fires one interval after the start",
				sim.FormatTime(iv), sim.FormatTime(s.sc.Duration))
		default:
			say("no batch completed in the window")
		}
		return d
	}
	proc := des.FromSeconds(st.ProcessingTime.MeanMs / 1000)
	switch {
	case s.ss != nil:
		switch {
		case iv > 0 && proc > iv && (st.ProcessingTime.LastMs > 1.5*st.ProcessingTime.MeanMs || halvesGrow(win)):
			d.Kind = DiagnosisFallingBehind
			say("falls behind its trigger: processing time %s > trigger interval %s, so each micro-batch starts as soon as the last one ended, reads all that arrived meanwhile, and grows (the last took %s)",
				sim.FormatTime(proc), sim.FormatTime(iv), sim.FormatTime(des.FromSeconds(st.ProcessingTime.LastMs/1000)))
		case iv > 0 && proc > iv:
			// ProcessingTimeExecutor starts the next batch as soon as one
			// that overran ends (and logs "Current batch is falling
			// behind"): with an interval shorter than a batch that is as
			// fast as possible, which keeps up while the batches do not
			// grow
			say("runs as fast as possible: processing time %s per micro-batch > trigger interval %s, so each starts as soon as the last one ended (Spark logs \"Current batch is falling behind\"); the batches do not grow, so it keeps up (source lag %d records at the end)",
				sim.FormatTime(proc), sim.FormatTime(iv), sum.Totals.SourceLag)
		case s.ss.finished:
			say("available-now: the query read the %d records available at its start in %s and terminated, as Trigger.AvailableNow does; the %d records that arrived since wait in the source for its next start (source lag)",
				sum.Totals.Read, plural.Count(st.Batches, "micro-batch"), sum.Totals.SourceLag)
		default:
			say("keeps up: processing time %s per micro-batch (trigger %s)", sim.FormatTime(proc), s.sp.Trigger)
		}
	case !*st.Stable:
		d.Kind = DiagnosisFallingBehind
		growth := sim.FormatTime(des.FromSeconds(st.SchedulingDelayGrowthMs / 1000))
		if exceeds(st.ProcessingTime.MeanMs, iv) {
			say("falls behind: processing time %s > batch interval %s: the job falls behind, scheduling delay grows %s per batch",
				sim.FormatTime(proc), sim.FormatTime(iv), growth)
		} else {
			say("falls behind at the end: the last batch took %s > batch interval %s (%s on average over the window), and the scheduling delay grows, %s per batch: the processing time grew past the interval",
				sim.FormatTime(des.FromSeconds(v.lastMs/1000)), sim.FormatTime(iv), sim.FormatTime(proc), growth)
		}
	case exceeds(st.ProcessingTime.MeanMs, iv) || exceeds(st.ProcessingTime.LastMs, iv):
		// stable at the end, after slower batches: they delayed the
		// ones behind them, which catch up
		shrink := ""
		if st.SchedulingDelayGrowthMs < 0 {
			shrink = ", shrinking " + sim.FormatTime(des.FromSeconds(-st.SchedulingDelayGrowthMs/1000)) + " per batch"
		}
		say("stable: the batches take %s (the median of the last %d) < batch interval %s; slower ones (one took %s) delay the batches behind them, which catch up (scheduling delay %s at the end%s)",
			sim.FormatTime(des.FromSeconds(v.medianMs/1000)), v.k, sim.FormatTime(iv), sim.FormatTime(des.FromSeconds(st.ProcessingTime.MaxMs/1000)),
			sim.FormatTime(des.FromSeconds(st.SchedulingDelay.LastMs/1000)), shrink)
	case v.edge:
		say("stable, on the edge: processing time %s = batch interval %s, so the scheduling delay does not grow (%s at the end), but any slower batch delays all that follow it",
			sim.FormatTime(des.FromSeconds(v.medianMs/1000)), sim.FormatTime(iv), sim.FormatTime(des.FromSeconds(st.SchedulingDelay.LastMs/1000)))
	case st.SchedulingDelay.MaxMs == 0:
		say("stable: processing time %s < batch interval %s, so every batch starts at its batch time (scheduling delay 0)",
			sim.FormatTime(proc), sim.FormatTime(iv))
	default:
		say("stable: processing time %s < batch interval %s, so batches that had to wait catch up (scheduling delay %s on average, at most %s)",
			sim.FormatTime(proc), sim.FormatTime(iv), sim.FormatTime(des.FromSeconds(st.SchedulingDelay.MeanMs/1000)), sim.FormatTime(des.FromSeconds(st.SchedulingDelay.MaxMs/1000)))
	}
	if s.ss != nil && s.ss.held != nil && sum.Latency.MeanMs != nil {
		say("append mode: a window's rows are written once, at the first trigger whose watermark (the latest event time seen, less %s) has passed its end, so a record's count reaches the sink %s after it on average (a record on time waits for its window's end, half of the %s window on average, then %s of watermark delay, then for the trigger after the one that saw an event time past both: up to two trigger intervals)",
			sim.FormatTime(s.sp.Watermark), sim.FormatTime(des.FromSeconds(*sum.Latency.MeanMs/1000)), sim.FormatTime(s.sp.Window), sim.FormatTime(s.sp.Watermark))
	}
	if n := st.RowsDroppedByWatermark; n > 0 && sum.Totals.Read > 0 {
		say("late data: %.1f%% of the records read (%d of %d, rows_dropped_by_watermark) came after the watermark (the latest event time seen, less %s) had passed their window's end, and the aggregation dropped them: they are in no window's row; raise spark.watermark past how far behind the latest event time a record's event time may be, and the windows' rows come that much later",
			100*float64(n)/float64(sum.Totals.Read), n, sum.Totals.Read, sim.FormatTime(s.sp.Watermark))
	}
	// the floor of a batch that reads its own interval's records: not of
	// the batches generated after a driver restart, whose first reads all
	// that arrived over the downtime
	if iv > 0 && s.ss == nil && sum.Latency.MeanMs != nil && (sum.Recovery == nil || sum.Recovery.DowntimeS == 0) {
		// the total delay per record: a batch weighs by its records (the
		// batches of a downtime hold more, or none)
		var recs, delay float64
		for _, b := range win {
			recs += float64(b.Records)
			delay += float64(b.Records) * b.TotalDelayMs
		}
		if recs > 0 {
			floor := iv/2 + des.FromSeconds(delay/recs/1000)
			lat := des.FromSeconds(*sum.Latency.MeanMs / 1000)
			msg := fmt.Sprintf("latency floor: half the batch interval (%s), a record's mean wait for its batch, + its batch's total delay (%s on average per record) = %s; the records' mean latency is %s",
				sim.FormatTime(iv/2), sim.FormatTime(floor-iv/2), sim.FormatTime(floor), sim.FormatTime(lat))
			if limited := s.pid != nil || s.sp.MaxRatePerPartition > 0 || s.sp.ReceiverMaxRate > 0; limited && lat-floor > floor/10 {
				// a rate limit leaves records in the source's log past
				// the batch they arrived in: the floor holds for a
				// record a batch reads at once
				msg += fmt.Sprintf(": the other %s is time in the source's log, waiting for a later batch (the rate limit)", sim.FormatTime(lat-floor))
			}
			say("%s", msg)
		}
	}
	if bp := sum.Backpressure; bp != nil && bp.FinalRate > 0 && bp.RateSwing > 0.05*bp.FinalRate {
		say("the PID rate oscillates: it changes by %.0f records/s from one batch to the next on average (from %.0f to %.0f): a proportional gain above 1 overshoots the processing rate, each correction larger than the error",
			bp.RateSwing, bp.MinRate, bp.MaxRate)
	} else if bp != nil && bp.FinalRate > 0 {
		say("back-pressure: the PID rate estimator caps what a batch reads at %.0f records/s at the end (from %.0f to %.0f over the run): input above the cap waits in the source's log for later batches", bp.FinalRate, bp.MinRate, bp.MaxRate)
	}
	if r := sum.Recovery; r != nil {
		switch {
		case r.JobState == "failed":
			// the end of the job comes first, as a Flink job's failure
			// does (sim's diagnose): what the batches did was before it
			d.Message = fmt.Sprintf("the job failed at %s: a task failed %d times (spark.task.maxFailures), so its job was aborted and the application stopped; nothing reads the sources any more (source lag %d records); before that: %s",
				sim.FormatTime(s.rec.stoppedAt), s.sp.TaskMaxFailures, sum.Totals.SourceLag, d.Message)
		case r.JobState == "lost":
			d.Message = fmt.Sprintf("the job is lost at %s: the driver failed without checkpoint: true, so nothing reads the sources any more (source lag %d records); before that: %s",
				sim.FormatTime(s.rec.stoppedAt), sum.Totals.SourceLag, d.Message)
		case r.JobState == "restarting":
			// the batches completed are from before the failure: the
			// downtime at the end comes first
			d.Message = fmt.Sprintf("recovery: the driver failed %s before the end and restarts from the checkpoint at %s, after the run: no batch ran since (%d records duplicated, %d lost; source lag %d records); before the failure: %s",
				sec(r.DowntimeS), sec(r.RestartS), sum.Totals.Duplicated, sum.Totals.Lost, sum.Totals.SourceLag, d.Message)
		case r.DowntimeS > 0 && !s.doneSince(s.rec.restartAt):
			// restarted, and nothing has completed since: the backlog
			// has not begun to drain (the first job recomputes the lost
			// state first)
			// what the completed batches show is from before the failure:
			// the recovery comes first, as a lost job's end does
			d.Message = fmt.Sprintf("recovery: the driver was down %s and restarted at %s, but no batch has completed since: %s wait for their jobs at the end, the first recomputing the lost state (%d records duplicated, %d lost so far); before the failure: %s",
				sec(r.DowntimeS), sim.FormatTime(s.rec.restartAt), plural.Count(sum.Totals.Queued, "batch"), sum.Totals.Duplicated, sum.Totals.Lost, d.Message)
		case r.DowntimeS > 0:
			say("recovery: the driver was down %s; the batches of its downtime waited up to %s for their jobs while the backlog drained (%d records duplicated, %d lost)",
				sec(r.DowntimeS), sim.FormatTime(des.FromSeconds(st.SchedulingDelay.MaxMs/1000)), sum.Totals.Duplicated, sum.Totals.Lost)
		default:
			say("recovery: %s recomputing lost state from lineage and rerunning lost tasks", sec(r.RecomputeS))
		}
	}
	// what arrived since the last batch time is no lag: the next batch
	// reads it; a lag beyond one batch interval's input is
	running := sum.Recovery == nil || sum.Recovery.JobState == "running" // the others name the lag
	if lag := float64(sum.Totals.SourceLag); lag > 0 && s.ss == nil && running && lag > st.InputRate*iv.Seconds() {
		say("source lag %d records at the end, more than a batch interval's input (%.0f): the batches read less than arrives", sum.Totals.SourceLag, st.InputRate*iv.Seconds())
	}
	return d
}

// WriteSummaryJSON writes s as indented JSON (summary.json).
func WriteSummaryJSON(w io.Writer, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("microbatch: encoding summary: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteBatchesCSV writes batches.csv: a header (BatchColumns) and one row
// per completed batch.
func WriteBatchesCSV(w io.Writer, bs []BatchInfo) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(BatchColumns); err != nil {
		return err
	}
	for i := range bs {
		b := &bs[i]
		if err := cw.Write([]string{
			strconv.FormatInt(b.Batch, 10), num(b.TimeS), strconv.FormatInt(b.Records, 10), rateCell(b.RateLimit),
			num(b.SchedulingDelayMs), num(b.ProcessingMs), num(b.TotalDelayMs), strconv.Itoa(b.Tasks),
			strconv.FormatInt(b.Delivered, 10), strconv.FormatInt(b.RowsWritten, 10), strconv.FormatInt(b.BytesWritten, 10),
			num(b.WatermarkS), strconv.Itoa(b.Lineage), strconv.FormatInt(b.CheckpointBytes, 10), strconv.FormatInt(b.StateKeys, 10),
			num(b.RecomputeMs), strconv.Itoa(b.FailedTasks),
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTimeseriesCSV writes timeseries.csv (TimeseriesColumns).
func WriteTimeseriesCSV(w io.Writer, rows []TimeseriesRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(TimeseriesColumns); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write([]string{
			num(r.TimeS), JobVertex, "job", "-1", r.Status, num(r.InputRate), num(r.ProcessingRate), strconv.Itoa(r.Completed), strconv.Itoa(r.Queued),
			num(r.SchedulingMs), num(r.ProcessingMs), num(r.TotalMs), rateCell(r.RateLimit), strconv.FormatInt(r.Lag, 10),
			num(r.LatencyP50Ms), num(r.LatencyP99Ms), strconv.FormatInt(r.StateKeys, 10), strconv.FormatInt(r.StateBytes, 10),
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteEventsJSONL writes events.jsonl as sim's runs do.
func WriteEventsJSONL(w io.Writer, evs []sim.Event) error {
	sw := sim.NewStreamWriter(nil, w)
	for _, e := range evs {
		sw.Event(e)
	}
	return sw.Flush()
}

// num formats a value for CSV: "" for NaN, at most 6 decimals.
func num(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
}

// WriteTable writes the human summary of a run.
func WriteTable(w io.Writer, s *Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", s.Scenario)
	if s.Description != "" {
		fmt.Fprintf(&b, ": %s", s.Description)
	}
	fmt.Fprintf(&b, "\nsimulated %s, seed %d; statistics over %s..%s", sec(s.SimulatedS), s.Seed, sec(s.Window.FromS), sec(s.Window.ToS))
	if s.Partial {
		fmt.Fprintf(&b, "\nPARTIAL: %s", s.PartialReason)
	}
	switch {
	case s.Engine == scenario.EngineSparkStreaming:
		fmt.Fprintf(&b, "\nengine spark-streaming: batch interval %s, %s\n", sec(s.BatchIntervalS), plural.Count(s.ExecutorCores, "executor core"))
	case s.BatchIntervalS > 0:
		fmt.Fprintf(&b, "\nengine structured-streaming: trigger %s every %s, output mode %s, %s\n", s.Trigger, sec(s.BatchIntervalS), s.OutputMode, plural.Count(s.ExecutorCores, "executor core"))
	default:
		fmt.Fprintf(&b, "\nengine structured-streaming: trigger %s, output mode %s, %s\n", s.Trigger, s.OutputMode, plural.Count(s.ExecutorCores, "executor core"))
	}
	b.WriteString("\nSTAGE                          TASKS  SHUFFLE  MEAN/BATCH\n")
	for _, st := range s.Stages {
		sh := "no"
		if st.Shuffle {
			sh = "yes"
		}
		fmt.Fprintf(&b, "%-30s %5d  %-7s  %s\n", st.Name, st.Tasks, sh, sim.FormatTime(des.FromSeconds(st.MeanMs/1000)))
	}
	st := s.Streaming
	fmt.Fprintf(&b, "\n%s in the window; input %.1f records/s, processed at %.1f records/s of processing time\n",
		plural.Count(st.Batches, "batch"), st.InputRate, st.ProcessingRate)
	if st.ProcessingTime != nil {
		b.WriteString("                     MEAN        MAX         LAST\n")
		for _, r := range []struct {
			name string
			x    *Stat
		}{{"scheduling delay", st.SchedulingDelay}, {"processing time", st.ProcessingTime}, {"total delay", st.TotalDelay}} {
			fmt.Fprintf(&b, "%-20s %-11s %-11s %s\n", r.name, sim.FormatTime(des.FromSeconds(r.x.MeanMs/1000)), sim.FormatTime(des.FromSeconds(r.x.MaxMs/1000)), sim.FormatTime(des.FromSeconds(r.x.LastMs/1000)))
		}
	} else {
		b.WriteString("scheduling delay, processing time, total delay: - (no batch completed in the window)\n")
	}
	if l := s.Latency; l.MeanMs != nil {
		fmt.Fprintf(&b, "record latency: mean %s, p50 %s, p99 %s, max %s\n", sim.FormatTime(des.FromSeconds(*l.MeanMs/1000)),
			sim.FormatTime(des.FromSeconds(*l.P50Ms/1000)), sim.FormatTime(des.FromSeconds(*l.P99Ms/1000)), sim.FormatTime(des.FromSeconds(*l.MaxMs/1000)))
	} else {
		b.WriteString("record latency: - (no record delivered in the window)\n")
	}
	t := s.Totals
	fmt.Fprintf(&b, "records: %d arrived, %d read into batches, %d delivered, source lag %d; %s completed, %d queued or running at the end",
		t.Appended, t.Read, t.Delivered, t.SourceLag, plural.Count(t.Batches, "batch"), t.Queued)
	if s.OutputMode != "" {
		fmt.Fprintf(&b, "; %d rows written", t.Rows)
	}
	if n := st.RowsDroppedByWatermark; n > 0 {
		fmt.Fprintf(&b, "; %s dropped as late (after the watermark)", plural.Count(n, "record"))
	}
	b.WriteString("\n")
	if bp := s.Backpressure; bp != nil {
		switch {
		case bp.FinalRate < 0 && t.Batches == 0:
			// the estimator's -1 is "no estimate yet", not a rate
			b.WriteString("back-pressure: no batch completed, so the PID rate estimator has no rate yet (the input is not limited)\n")
		case bp.FinalRate < 0:
			b.WriteString("back-pressure: the PID rate estimator has no rate yet (it needs two completed batches; the input is not limited)\n")
		case bp.MinRate < 0:
			fmt.Fprintf(&b, "back-pressure: PID rate %.0f records/s at the end (no batch limited by it yet)\n", bp.FinalRate)
		default:
			fmt.Fprintf(&b, "back-pressure: PID rate %.0f records/s at the end (min %.0f, max %.0f)\n", bp.FinalRate, bp.MinRate, bp.MaxRate)
		}
	}
	if st := s.State; st != nil {
		fmt.Fprintf(&b, "state: %d keys, %s", st.Keys, scenario.FormatByteSize(st.Bytes))
		if st.Operation != "" {
			fmt.Fprintf(&b, " (%s)", st.Operation)
		}
		b.WriteString("\n")
	}
	if r := s.Recovery; r != nil {
		retried := ""
		if r.FailedTasks > 0 {
			retried = ", " + plural.Count(r.FailedTasks, "failed task attempt")
		}
		fmt.Fprintf(&b, "recovery: %s%s, driver down %s, %s recomputing lost state; %d records duplicated, %d lost; job %s\n",
			plural.Count(r.Failures, "failure"), retried, sec(r.DowntimeS), sec(r.RecomputeS), s.Totals.Duplicated, s.Totals.Lost, r.JobState)
		if n := sim.WithoutEffectText(r.WithoutEffect, r.WithoutEffectCount); n != "" {
			b.WriteString(n[1:] + "\n") // its lines each begin with a newline
		}
	}
	if c := s.Checkpoints; c != nil {
		fmt.Fprintf(&b, "checkpoints: state every %s, %d written (%s), lineage at most %d batches\n",
			sim.FormatTime(des.FromSeconds(c.IntervalS)), c.Written, scenario.FormatByteSize(c.Bytes), c.MaxLineage)
	}
	b.WriteString("\ndiagnosis:\n")
	fmt.Fprintf(&b, "  %s\n", s.Diagnosis.Message)
	for _, f := range s.Diagnosis.Evidence {
		fmt.Fprintf(&b, "  - %s\n", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rateCell is a rate limit's CSV cell: empty when no rate limit applies
// (RateLimit -1), as other CSV cells that do not apply are empty.
func rateCell(r float64) string {
	if r < 0 {
		return ""
	}
	return num(r)
}
