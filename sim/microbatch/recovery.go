package microbatch

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// recovery is the state of failures: executors (failure kind worker) and
// the driver (kind jobmanager) of a Spark Streaming job.
//
// A lost executor takes its cores until its replacement
// (spark.executor_restart) and the state partitions it cached: the next
// job (or the running one, whose tasks on it rerun) first recomputes them
// from lineage, back to the last state checkpoint: the state read from the
// checkpoint and every batch since redone, as an RDD's lost partitions
// are recomputed from their dependencies.
//
// Structured streaming writes each micro-batch's offsets to the offset log
// before it runs and a commit after: a restarted query runs the batch
// without a commit again, with the same offsets, and loads its state
// from the state store's checkpoint of the batch before (no lineage).
//
// A failed driver takes the executors with it. Without checkpoint: true
// the StreamingContext cannot be recovered: the job is lost. With it, the
// restarted driver (spark.driver_restart later) reads the metadata
// checkpoint: the batches that were pending (generated, not completed)
// are submitted again, the batches of the downtime are generated at once
// (the first reads every offset that arrived meanwhile, up to the rate
// limits: DirectKafkaInputDStream computes its ranges when the batch is
// generated), and the state is restored from the last state checkpoint
// and recomputed from there. The output of the batch that was running is
// written again: exactly-once only with an idempotent or transactional
// sink. Receivers without the write-ahead log lose what they had received
// for the pending batches.
type recovery struct {
	fullCores  int
	driverDown bool
	jobLost    bool // the driver failed without checkpointing
	jobFailed  bool // a task failed spark.task.maxFailures times: the job was aborted
	// stoppedAt is when the job was lost or failed: the application
	// stopped, its driver is down from then on
	stoppedAt des.Time
	// pendingTasks are task failures injected while no job ran: the
	// next job's attempts of those tasks fail
	pendingTasks []taskRef
	missed       []des.Time // batch times of the downtime
	extra        des.Time   // lineage recomputation the next job does first
	replace      des.HandlerFunc
	restart      des.HandlerFunc
	failures     int
	duplicated   uint64   // records written twice (the running batch's output before a driver failure)
	lost         uint64   // records received and never processed (receivers without WAL)
	downtime     des.Time // the driver's downtimes (driver_restart each), the last one whole even when its restart is after now
	restartAt    des.Time // when the driver restart last scheduled is due
	// lostExec marks the executors lost and not replaced yet (a random
	// failure does not strike them again); random are the streams of
	// random failures (mtbf), one per failure spec and worker (the
	// driver: -1), by onRandomFailure's argument.
	lostExec map[int]bool
	random   []randomFailure
	onRandom des.HandlerFunc
}

// randomFailure is one worker's (or the driver's, worker -1) process of
// random failures: exponential times between failures of mean MTBF.
type randomFailure struct {
	f      *scenario.Failure
	worker int
	rng    *rand.Rand
}

// startRandomFailures schedules the first failure of each random process
// (failures with mtbf): one per worker for kinds task and worker, one for the
// driver for kind jobmanager, each from a stream of its own named as
// sim's ("failures/i/worker/w"), so the same seed draws the same times.
func (s *Sim) startRandomFailures() {
	s.rec.onRandom = s.onRandomFailure
	for i := range s.sc.Failures {
		f := &s.sc.Failures[i]
		if f.MTBF <= 0 {
			continue
		}
		workers := []int{-1}
		if f.Kind != scenario.FailureJobManager {
			workers = workers[:0]
			for w := range s.sc.Workers.Count {
				workers = append(workers, w)
			}
		}
		for _, w := range workers {
			s.rec.random = append(s.rec.random, randomFailure{f: f, worker: w,
				rng: des.Stream(s.sc.Seed, "failures/"+strconv.Itoa(i)+"/worker/"+strconv.Itoa(w))})
			s.nextRandom(s.eng.Now(), len(s.rec.random)-1)
		}
	}
}

// nextRandom schedules random process k's next failure after now, if
// before the end of the run.
func (s *Sim) nextRandom(now des.Time, k int) {
	r := &s.rec.random[k]
	if at := now + des.Time(r.rng.ExpFloat64()*float64(r.f.MTBF)); at < s.sc.Duration && at >= now {
		s.mustSchedule(at, s.rec.onRandom, int64(k))
	}
}

// onRandomFailure applies random process k's failure, as a scripted one
// (not while the driver is down, not to an executor already lost), and
// schedules its next.
func (s *Sim) onRandomFailure(now des.Time, k int64) {
	r := s.rec.random[k]
	if !s.rec.jobLost && !s.rec.driverDown {
		switch {
		case r.worker < 0:
			s.driverLost(now)
		case s.rec.lostExec[r.worker]:
		case r.f.Kind == scenario.FailureTask:
			s.randomTask(now, r)
		default:
			s.executorLost(now, r.worker)
		}
	}
	s.nextRandom(now, int(k))
}

// randomTask fails a task of the job that runs on r's executor (a
// partition i with i mod executors = worker), drawn uniformly from r's
// stream.
func (s *Sim) randomTask(now des.Time, r randomFailure) {
	var on []taskRef
	for _, st := range s.stages {
		for i := r.worker; i < st.parts; i += s.sc.Workers.Count {
			on = append(on, taskRef{stage: st.Index, index: i})
		}
	}
	if len(on) == 0 {
		s.events = append(s.events, sim.Event{Time: now, Type: sim.EventFailure, Worker: r.worker,
			Message: fmt.Sprintf("a task on executor %d failed; the job runs no task there", r.worker)})
		return
	}
	s.failTask(now, on[r.rng.IntN(len(on))])
}

// onFailure injects scripted failure arg.
func (s *Sim) onFailure(now des.Time, arg int64) {
	f := s.sc.Failures[arg]
	if s.rec.jobLost {
		return
	}
	switch f.Kind {
	case scenario.FailureTask:
		t, _ := s.taskOf(f.Vertex, f.Subtask) // checked by New
		s.failTask(now, t)
	case scenario.FailureWorker:
		s.executorLost(now, f.Worker)
	case scenario.FailureJobManager:
		s.driverLost(now)
	}
}

// executorLost fails executor w.
func (s *Sim) executorLost(now des.Time, w int) {
	ev := sim.Event{Time: now, Type: sim.EventFailure, Worker: w}
	if w >= s.sc.Workers.Count || s.rec.driverDown {
		ev.Message = fmt.Sprintf("worker %d failed; it runs no executor of the job", w)
		if w < s.sc.Workers.Count {
			ev.Message = fmt.Sprintf("worker %d failed while the driver is down; its executor stopped with the driver, and the restarted driver starts a new one", w)
		}
		s.events = append(s.events, ev)
		return
	}
	s.rec.failures++
	slots := s.sc.Workers.Slots
	s.cores -= slots
	if s.rec.lostExec == nil {
		s.rec.lostExec = map[int]bool{}
	}
	s.rec.lostExec[w] = true
	recompute, lineage := s.lineageCost(w)
	ev.Message = fmt.Sprintf("executor %d lost with its %s and the state partitions it cached; they are recomputed from %s of lineage (%s)",
		w, plural.Count(slots, "core"), plural.Count(lineage, "batch"), sim.FormatTime(recompute))
	if !s.plan.Stateful() {
		ev.Message = fmt.Sprintf("executor %d lost with its %s (the job keeps no state to recompute)", w, plural.Count(slots, "core"))
	}
	if b := s.running; b != nil {
		ev.Message += fmt.Sprintf(", and the running job's tasks there run again (up to %s)", sim.FormatTime(b.maxTask))
	}
	s.events = append(s.events, ev)
	if r := s.rec.replace; r == nil {
		s.rec.replace = s.onExecutorReplaced
	}
	s.mustSchedule(now+s.sp.ExecutorRestart, s.rec.replace, int64(w))
	if b := s.running; b != nil {
		// its tasks on the lost executor fail and run again elsewhere,
		// after the lost state is recomputed
		extra := recompute + b.maxTask
		end := b.info.start + b.proc + extra
		if s.cores <= 0 { // no core left: it all waits for the replacement
			end = max(end, now+s.sp.ExecutorRestart+b.proc+recompute)
		}
		b.info.RecomputeMs += extra.Seconds() * 1000
		s.reschedule(b, end)
		b.info.ProcessingMs = b.proc.Seconds() * 1000
		return
	}
	s.rec.extra += recompute
}

// onExecutorReplaced gives back the cores of executor w, replaced.
func (s *Sim) onExecutorReplaced(now des.Time, w int64) {
	delete(s.rec.lostExec, int(w))
	s.cores = min(s.cores+s.sc.Workers.Slots, s.rec.fullCores)
	if s.rec.driverDown {
		return
	}
	s.events = append(s.events, sim.Event{Time: now, Type: sim.EventRecoveryCompleted, Worker: -1,
		Message: fmt.Sprintf("a replacement executor registered: %s", plural.Count(s.cores, "executor core"))})
	if s.running == nil {
		s.startNext(now)
	}
}

// lineageCost is the time to recompute the state partitions of executor
// w (every executor's with w < 0) from the last state checkpoint: each
// partition's checkpointed state read back, then its tasks of every batch
// since, as tasks on the cores left. It returns the time and the batches
// of lineage.
func (s *Sim) lineageCost(w int) (des.Time, int) {
	lineage := s.ckpt.lineage
	stored := s.ckpt.interval > 0
	switch {
	case s.ss != nil:
		// the state store is checkpointed with every micro-batch: a lost
		// partition is loaded back, nothing is recomputed
		lineage, stored = 0, true
	case !stored:
		lineage = int(s.next) // no checkpoint: the lineage goes back to the start
	}
	execs := s.sc.Workers.Count
	var tasks []des.Time
	for _, st := range s.stages {
		var stateful []*vert
		for _, v := range st.Vertices {
			if vt := s.verts[v.Index]; vt.state != nil {
				stateful = append(stateful, vt)
			}
		}
		if len(stateful) == 0 {
			continue
		}
		for i := range st.task {
			if w >= 0 && i%execs != w {
				continue
			}
			d := des.Time(lineage) * st.task[i]
			if stored {
				var bytes int64
				for _, vt := range stateful {
					bytes += int64(len(vt.state[i])) * vt.v.State.BytesPerKey
				}
				d += des.FromSeconds(float64(bytes) / s.sp.CheckpointBandwidth)
			}
			tasks = append(tasks, d)
		}
	}
	if len(tasks) == 0 {
		return 0, lineage
	}
	return makespan(tasks, max(s.cores, 1)), lineage
}

// maxTask is the longest task of the batch just computed.
func (s *Sim) maxTask() des.Time {
	var m des.Time
	for _, st := range s.stages {
		for _, d := range st.task {
			m = max(m, d)
		}
	}
	return m
}

// driverLost fails the driver.
func (s *Sim) driverLost(now des.Time) {
	if s.rec.driverDown {
		// no driver runs (restarting, or the application stopped):
		// nothing to fail, as a random failure does not strike then;
		// its restart is not scheduled twice
		s.events = append(s.events, sim.Event{Time: now, Type: sim.EventFailure, Worker: -1,
			Message: "the driver fails while it is down: no driver runs, so this failure has no effect"})
		return
	}
	s.rec.failures++
	s.rec.driverDown = true
	s.events = append(s.events, sim.Event{Time: now, Type: sim.EventFailure, Worker: -1,
		Message: "the driver failed, and its executors with it"})
	pending := s.queue
	lose := s.ss == nil && !s.sp.Checkpoint
	// receivers without the write-ahead log lose the blocks of the
	// pending batches, the running one's too: nothing reruns them
	unlogged := s.receiverMode() && !s.sp.WriteAheadLog
	if b := s.running; b != nil {
		s.eng.Cancel(s.endEv)
		s.running = nil
		// the output operation had written part of the batch; a rerun
		// writes it all again (a batch that does not run again, of a lost
		// job or of lost blocks, wrote what it wrote once)
		if s.atLeastOnce() && b.proc > 0 && !lose && !unlogged {
			frac := min(float64(now-b.info.start)/float64(b.proc), 1)
			out := int64(len(b.arrivals))
			if s.ss != nil {
				out = b.info.RowsWritten // what the query writes to its sink
			}
			s.rec.duplicated += uint64(frac * float64(out))
		}
		b.info.RecomputeMs = 0
		pending = append([]*batch{b}, pending...)
		s.queuedN += int64(len(b.arrivals)) // queued again
	}
	if lose {
		s.rec.jobLost, s.rec.stoppedAt = true, now
		for _, b := range pending {
			s.queuedN -= int64(len(b.arrivals))
		}
		s.queue = nil
		s.queuedN = max(s.queuedN, 0)
		s.events = append(s.events, sim.Event{Time: now, Type: sim.EventJobLost, Worker: -1,
			Message: "without checkpoint: true the StreamingContext cannot be recovered (StreamingContext.getOrCreate needs a checkpoint): the job is lost, nobody reads the topic, its lag grows"})
		return
	}
	if unlogged {
		// the blocks lived in the executors' memory, unlogged: those of
		// the pending batches and those received since the last batch
		before := s.rec.lost
		for _, b := range pending {
			s.rec.lost += uint64(b.info.Records)
			s.queuedN -= int64(len(b.arrivals))
		}
		for _, pt := range s.parts {
			pt.appendUntil(now)
			n := pt.appended - pt.offset
			pt.skip(n)
			s.rec.lost += uint64(n)
		}
		s.events = append(s.events, sim.Event{Time: now, Type: sim.EventFailure, Worker: -1,
			Message: fmt.Sprintf("without the write-ahead log the receivers' blocks are lost with the executors: %s (the running one included) and the records received since the last batch, %d records in all",
				plural.Count(len(pending), "pending batch"), s.rec.lost-before)})
		pending = nil
	}
	s.queue = pending
	s.rec.extra, _ = s.lineageCost(-1) // every executor's state is gone
	if s.rec.restart == nil {
		s.rec.restart = s.onDriverRestart
	}
	s.rec.downtime += s.sp.DriverRestart
	s.rec.restartAt = now + s.sp.DriverRestart
	s.mustSchedule(s.rec.restartAt, s.rec.restart, 0)
}

// onDriverRestart recovers the job from the checkpoint.
func (s *Sim) onDriverRestart(now des.Time, _ int64) {
	s.rec.driverDown = false
	s.cores = s.rec.fullCores
	missed := s.rec.missed
	s.rec.missed = nil
	if s.ss != nil {
		s.events = append(s.events, sim.Event{Time: now, Type: sim.EventRestart, Worker: -1,
			Message: fmt.Sprintf("the query restarted from its checkpoint: %s in the offset log without a commit runs again; the state is loaded from the state store (%s)",
				plural.Count(len(s.queue), "micro-batch"), sim.FormatTime(s.rec.extra))})
		// the offset log's last batch without a commit runs again, then
		// the trigger goes on; without one, a trigger at once
		if len(s.queue) > 0 {
			s.startNext(now)
		} else {
			s.ss.triggerAt(now)
		}
		return
	}
	s.events = append(s.events, sim.Event{Time: now, Type: sim.EventRestart, Worker: -1,
		Message: fmt.Sprintf("the driver restarted from the checkpoint: %s pending again, %s of the downtime generated; the state is restored and recomputed from lineage (%s)",
			plural.Count(len(s.queue), "batch"), plural.Count(len(missed), "batch"), sim.FormatTime(s.rec.extra))})
	// Kafka's direct stream reads the offsets of the downtime into its
	// batches; receivers were down with the driver, so the batches of the
	// downtime get no block: the receivers, restarted now, receive the
	// backlog into the batches that follow (what the write-ahead log kept
	// of the blocks received since the last batch goes to the next batch,
	// not to the first of the downtime as in Spark)
	var limits []int64
	if s.receiverMode() {
		limits = make([]int64, len(s.parts))
	}
	for _, t := range missed {
		lim := limits
		if lim == nil {
			lim = s.limits(now)
		}
		b := s.cut(t, now, lim)
		s.queue = append(s.queue, b)
		s.queuedN += int64(len(b.arrivals))
	}
	s.startNext(now)
}

// atLeastOnce reports whether a sink writes again what it had written
// (an at-least-once sink; idempotent and transactional ones do not).
func (s *Sim) atLeastOnce() bool {
	for _, sk := range s.sc.Sinks {
		if sk.Delivery == scenario.DeliveryAtLeastOnce {
			return true
		}
	}
	return false
}
