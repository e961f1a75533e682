package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Event types of failures and recovery.
const (
	EventFailure           = "failure"            // something failed
	EventFailureDetected   = "failure_detected"   // the JobManager noticed: global failover
	EventRestart           = "restart"            // the job restarts: tasks deployed, state being restored
	EventRecoveryCompleted = "recovery_completed" // state restored, sources rewound: processing again
	EventJobFailed         = "job_failed"         // the restart strategy gave up
	EventJobLost           = "job_lost"           // the JobManager failed without high availability
	EventSlowdown          = "slowdown"           // a straggler begins or ends
	// EventLostToRetention: a topic reader first comes to records of a
	// partition that retention deleted before it read them (topic.go)
	EventLostToRetention  = "lost_to_retention"
	EventNetworkPartition = "network_partition" // a worker is cut off or back
	EventStorageOutage    = "storage_outage"    // checkpoint storage unavailable
)

// Job states at the end of a run (summary.json recovery.job_state).
const (
	JobRunning    = "running"
	JobRestarting = "restarting"
	JobFailed     = "failed" // the restart strategy gave up
	JobLost       = "lost"   // the JobManager failed without high availability
)

// causes of a failover
const (
	causeTask = iota
	causeWorker
	causeJobManager
	causeOOM
	causeCheckpoint
	causePartition
)

// causeKinds name the causes in summary.json (recovery.failovers[].kind),
// and causeWords in the text summary's recovery line.
var (
	causeKinds = [...]string{causeTask: "task", causeWorker: "worker", causeJobManager: "jobmanager",
		causeOOM: "out-of-memory", causeCheckpoint: "checkpoint", causePartition: "network-partition"}
	causeWords = [...]string{causeTask: "task", causeWorker: "worker", causeJobManager: "JobManager",
		causeOOM: "out of memory", causeCheckpoint: "failed checkpoints", causePartition: "network partition"}
)

// unscripted reports whether a failure of this kind (a causeKinds name)
// comes from the job itself, not from the scenario's failures: a worker
// out of memory, too many failed checkpoints in a row.
func unscripted(kind string) bool {
	return kind == causeKinds[causeOOM] || kind == causeKinds[causeCheckpoint]
}

type failureCause struct {
	kind   int
	worker int
	t      *subtask
	text   string
	since  des.Time // when it began, if before it was noticed (a partition)
}

// FailoverStats is one failure of the job and its recovery (summary.json
// recovery.failovers). Times are simulated seconds; -1 when the step did
// not happen (the job failed for good, or the run ended first). A lost
// worker the JobManager had not noticed by the end of the run is listed
// too, with DetectedS and every later step -1 (Flink's job is still
// RUNNING then: nothing has failed over yet).
type FailoverStats struct {
	Cause string `json:"cause"`
	// Kind is what failed: task, worker, jobmanager, network-partition
	// (the scenario's failures), out-of-memory (a worker's heap state
	// past workers.memory) or checkpoint (more failed checkpoints in a
	// row than tolerable_failures).
	Kind        string  `json:"kind"`
	FailedS     float64 `json:"failed_s"`
	DetectedS   float64 `json:"detected_s"`
	RestartS    float64 `json:"restart_s"`
	RecoveredS  float64 `json:"recovered_s"`
	RestartWait float64 `json:"restart_delay_ms"`
	// RecoveryTime is from the failure to the recovery, in simulated
	// seconds (-1 when the job did not recover).
	RecoveryTime float64 `json:"recovery_time_s"`
	// Superseded is true when the job failed again before it had
	// recovered from this failure (the next failover carries on).
	Superseded bool `json:"superseded,omitempty"`
	// CatchUpInterrupted is true when the job failed again after it had
	// recovered from this failure but before it had caught up: the next
	// failover's catch-up carries on with this backlog too.
	CatchUpInterrupted bool `json:"catch_up_interrupted,omitempty"`
	// CaughtUpS is the first metrics sample after the recovery at which
	// the backlog, the replayable sources' lag and the records inside the
	// job, was back to what it was when the job failed (within the larger
	// of 100 records and 10% of it, but no more than half of what the
	// failure added, catchUpMargin): the backlog the failure left is
	// processed, not only read into the job's queues (see caughtUp).
	// CatchUpTime is from the failure to then, in simulated seconds.
	// Both -1 until then, and when it never happened: a job whose lag
	// keeps growing (a bottleneck behind the source) never catches up.
	// Both stay -1 in a job without a replayable source: a socket keeps
	// no backlog (what it sent while the job was down is lost, not
	// caught up with), see RecoverySummary.SourcesReplayable.
	CaughtUpS    float64 `json:"caught_up_s"`
	CatchUpTime  float64 `json:"catch_up_time_s"`
	LagAtFailure uint64  `json:"lag_at_failure_records"`
	// LagAtRecovery is the sources' lag when the job ran again, in
	// records (-1 until then, and when it never ran again).
	LagAtRecovery int64 `json:"lag_at_recovery_records"`
	// downFrom is when the outage this failover ends began: its failure,
	// or an earlier one not noticed yet (a lost worker), in seconds.
	downFrom float64
	// backlogAtFailure is LagAtFailure plus the records inside the job
	// then (Sim.backlog): what catching up comes back to.
	backlogAtFailure uint64
	// backlogAtRecovery is the backlog when the job ran again: what the
	// failure added to it (the replay, the arrivals while it was down)
	// bounds the margin of catchUpMargin.
	backlogAtRecovery uint64
	// Checkpoint is the id of the checkpoint restored (0: none completed,
	// replayable sources start over); RestoreBytes its state downloaded.
	Checkpoint   int64  `json:"restored_checkpoint"`
	RestoreBytes int64  `json:"restored_bytes"`
	Lost         uint64 `json:"lost"`
	// Dropped counts records non-replayable sources had read and not yet
	// written into the job (their buffers, their records in hand): never
	// emitted, they count as the sources' dropped records.
	Dropped uint64 `json:"dropped,omitempty"`
	// ToReplay counts records the sinks had made visible that the
	// rewound sources will emit again: the duplicates an at-least-once
	// sink writes once the replay is through.
	ToReplay uint64 `json:"delivered_to_replay"`
}

// RecoverySummary sums up failures and recoveries (summary.json).
type RecoverySummary struct {
	JobState string `json:"job_state"`
	Failures int    `json:"failures"`
	Restarts int    `json:"restarts"`
	// DowntimeS is the time the job was not running, from each failure
	// (not its detection) until it ran again, in simulated seconds: the
	// union of the outages, up to the end while it is still down. It
	// splits as Flink's job-status timestamps do, with the part before
	// the JobManager noticed in front: DetectionS from the failure to
	// its detection (RUNNING to FAILING: a lost worker's heartbeat
	// timeout; 0 for a failed task), RestartDelayS from the detection to
	// the restart (FAILING/RESTARTING until the restart strategy's delay
	// ends), RestoreS from the restart to running again (the tasks
	// deployed, the checkpoint's state downloaded). Flink's downtime
	// metric counts from FAILING, so it leaves DetectionS out. While the
	// job failed for good or was lost, the time after the detection
	// belongs to no phase but TerminalS, from that detection to the end
	// (Flink's globally terminal states FAILED; a lost job), so that
	// DetectionS + RestartDelayS + RestoreS + TerminalS = DowntimeS.
	DowntimeS     float64 `json:"downtime_s"`
	DetectionS    float64 `json:"downtime_detection_s"`
	RestartDelayS float64 `json:"downtime_restart_delay_s"`
	RestoreS      float64 `json:"downtime_restore_s"`
	TerminalS     float64 `json:"downtime_terminal_s"`
	// MaxRecoveryTime is the longest failure-to-recovery time, in
	// simulated seconds (0 without failures; -1 when one never
	// recovered, a lost worker not noticed by the end included);
	// MaxCatchUpTime the longest failure-to-caught-up time (-1 when one
	// never caught up, or when no source is replayable; a failover whose
	// catch-up a later failure interrupted is left out, the later one's
	// tells).
	MaxRecoveryTime float64 `json:"max_recovery_time_s"`
	MaxCatchUpTime  float64 `json:"max_catch_up_time_s"`
	// Failovers are the job's failovers in order; past maxListedFailovers
	// only the first and the last half of that many (the summary of a
	// job that fails over every second for a day stays small enough to
	// read), and FailoversCount counts them all (absent while Failovers
	// lists every one). The downtime and the maxima above are over all.
	Failovers      []FailoverStats `json:"failovers"`
	FailoversCount int             `json:"failovers_count,omitempty"`
	// SourcesReplayable is true when a source of the job is replayable
	// (a log it rewinds): only then does a failure leave a backlog to
	// catch up with. A socket source's records sent while the job is
	// down are lost or dropped instead.
	SourcesReplayable bool `json:"sources_replayable"`
	// WithoutEffect lists the scripted or random failures that hit
	// nothing: a worker that runs no subtask, a task not running (the
	// first maxWithoutEffect of them; WithoutEffectCount counts them
	// all). They count in no failure above.
	WithoutEffect      []IneffectiveFailure `json:"failures_without_effect"`
	WithoutEffectCount int                  `json:"failures_without_effect_count"`
	Message            string               `json:"message,omitempty"`
}

// IneffectiveFailure is a failure that hit nothing the job runs
// (summary.json recovery.failures_without_effect): at AtS simulated
// seconds, with what happened in words.
type IneffectiveFailure struct {
	AtS  float64 `json:"at_s"`
	What string  `json:"what"`
}

// failover is the JobManager's failure handling: detection, the restart
// strategy, global failover and recovery from the latest completed
// checkpoint (DESIGN.md §3 "Failures and recovery"; Flink's "Task Failure
// Recovery").
type failover struct {
	s         *Sim
	restart   scenario.RestartStrategy
	ha        scenario.HighAvailability
	heartbeat des.Time
	jitter    *rand.Rand

	state      string
	downSince  des.Time // the outage began (the failure, not its detection)
	outageFrom des.Time // the first failure not handled yet, or -1
	restarts   int
	failures   int
	backoff    des.Time
	// nextRestart is when the last exponential-delay restart was due
	// (Flink's nextRestartTimestamp; -1 before the first): the reset
	// threshold runs from it
	nextRestart des.Time
	recent      []des.Time // failure-rate: failures within the interval
	pending     des.EventID
	hasPending  bool
	cur         int    // index in log of the failover being handled, or -1
	catching    int    // index in log of the failover whose catch-up is awaited, or -1
	preLag      uint64 // the sources' lag when the job last failed
	preBacklog  uint64 // that lag and the records inside the job then (Sim.backlog)
	log         []FailoverStats
	message     string
	partitions  map[int]des.Time     // worker -> partitioned until
	detecting   map[int]int          // workers whose loss is being detected -> gen then
	gen         int                  // failovers so far
	lost        []int                // workers that died (before the JobManager noticed), in order
	unnoticed   []string             // causes of the lost workers being detected now
	noEffect    []IneffectiveFailure // the first maxWithoutEffect
	noEffects   int                  // all of them
	attempts    int                  // restarts counted by the strategy (exponential-delay resets it)
}

func newFailover(s *Sim) *failover {
	sc := s.sc
	f := &failover{s: s, restart: sc.Restart, ha: sc.HighAvailability, heartbeat: sc.Workers.HeartbeatTimeout,
		jitter: des.Stream(sc.Seed, "restart/jitter"), state: JobRunning, nextRestart: -1, cur: -1, catching: -1, outageFrom: -1,
		partitions: map[int]des.Time{}, detecting: map[int]int{}}
	for i := range sc.Failures {
		fl := &sc.Failures[i]
		if fl.MTBF > 0 {
			if fl.Kind == scenario.FailureJobManager {
				f.startRandom(i, fl, -1)
				continue
			}
			for w := range s.workers {
				f.startRandom(i, fl, w)
			}
			continue
		}
		f.later(fl.At, func(now des.Time) { f.scripted(now, fl) })
	}
	return f
}

// fnEvent runs a function at its time: failures are rare, so a closure per
// event costs nothing that matters.
type fnEvent func(now des.Time)

func (e fnEvent) HandleEvent(now des.Time, _ int64) { e(now) }

// later runs fn at time at (not before now), after the current event.
func (f *failover) later(at des.Time, fn func(now des.Time)) des.EventID {
	id, _ := f.s.eng.Schedule(max(at, f.s.eng.Now()), fnEvent(fn), 0)
	return id
}

// startRandom starts the random failures of failure spec i on worker w
// (-1: the JobManager): exponential times between failures of mean MTBF,
// from a stream of their own.
func (f *failover) startRandom(i int, fl *scenario.Failure, w int) {
	rng := des.Stream(f.s.sc.Seed, "failures/"+strconv.Itoa(i)+"/worker/"+strconv.Itoa(w))
	var next func(now des.Time)
	schedule := func(now des.Time) {
		at := addNs(now, rng.ExpFloat64()*float64(fl.MTBF))
		if at < f.s.duration {
			f.later(at, next)
		}
	}
	next = func(now des.Time) {
		if f.state == JobRunning {
			target := *fl
			target.Worker = max(w, 0)
			if fl.Kind == scenario.FailureTask {
				// a random task of the worker: a chain is one task,
				// drawn once, not once per operator
				var on []*subtask
				for _, t := range f.s.subtasks {
					if t.worker == w && t.heads() {
						on = append(on, t)
					}
				}
				if len(on) > 0 {
					t := on[rng.IntN(len(on))]
					target.Vertex, target.Subtask = t.v.name, t.index
				}
			}
			f.scripted(now, &target)
		}
		schedule(now)
	}
	schedule(0)
}

// scripted applies one failure now.
func (f *failover) scripted(now des.Time, fl *scenario.Failure) {
	s := f.s
	switch fl.Kind {
	case scenario.FailureTask:
		t, err := s.subtaskOf(fl.Vertex, fl.Subtask)
		if err != nil || t == nil {
			return
		}
		f.fail(now, taskFailure(t))
	case scenario.FailureWorker:
		f.fail(now, failureCause{kind: causeWorker, worker: fl.Worker, text: fmt.Sprintf("worker %d failed", fl.Worker)})
	case scenario.FailureJobManager:
		f.fail(now, failureCause{kind: causeJobManager, text: "the JobManager failed"})
	case scenario.FailureSlowdown:
		f.slowdown(now, fl)
	case scenario.FailureNetworkPartition:
		f.partition(now, fl)
	case scenario.FailureConsumer:
		s.failConsumer(now, fl)
	case scenario.FailureStorageOutage:
		if s.ckpt == nil {
			s.emit(Event{Type: EventStorageOutage, Message: fmt.Sprintf("checkpoint storage unavailable for %s (no checkpoints here, so no effect)", FormatTime(fl.Duration))})
			return
		}
		s.ckpt.store.outages = append(s.ckpt.store.outages, [2]des.Time{now, now + fl.Duration})
		s.emit(Event{Type: EventStorageOutage, Message: fmt.Sprintf("checkpoint storage unavailable for %s: uploads and restores wait until %s",
			FormatTime(fl.Duration), FormatTime(now+fl.Duration))})
	}
}

// slowdown makes a task (or every task of a worker) a straggler: a
// subtask slows down with every operator chained with it, since they run
// in one thread.
func (f *failover) slowdown(now des.Time, fl *scenario.Failure) {
	var ts []*subtask
	what := ""
	if fl.Vertex != "" {
		t, err := f.s.subtaskOf(fl.Vertex, fl.Subtask)
		if err != nil {
			return
		}
		ts, what = t.taskSubtasks(), t.taskText()
	} else {
		for _, t := range f.s.subtasks {
			if t.worker == fl.Worker {
				ts = append(ts, t)
			}
		}
		what = fmt.Sprintf("worker %d", fl.Worker)
	}
	for _, t := range ts {
		t.slow = fl.Factor
	}
	f.s.emit(Event{Type: EventSlowdown, Message: fmt.Sprintf("%s slows down: service times ×%g for %s", what, fl.Factor, FormatTime(fl.Duration))})
	f.later(now+fl.Duration, func(now des.Time) {
		for _, t := range ts {
			t.slow = 0
		}
		f.s.emit(Event{Type: EventSlowdown, Message: what + " is back to normal speed"})
	})
}

// partition cuts worker fl.Worker off: nothing crosses between it and the
// other workers until it ends. A partition longer than the heartbeat
// timeout makes the JobManager declare the worker lost.
func (f *failover) partition(now des.Time, fl *scenario.Failure) {
	w := fl.Worker
	end := now + fl.Duration
	if f.state == JobRunning && len(f.detecting) == 0 {
		f.preLag, f.preBacklog = f.s.replayableLag(now), f.s.backlog(now)
	}
	f.partitions[w] = max(f.partitions[w], end)
	msg := fmt.Sprintf("worker %d is cut off from the others for %s", w, FormatTime(fl.Duration))
	if fl.Duration >= f.heartbeat {
		msg += fmt.Sprintf(", longer than heartbeat_timeout (%s): it will be declared lost", FormatTime(f.heartbeat))
		start := now
		f.later(now+f.heartbeat, func(now des.Time) {
			f.fail(now, failureCause{kind: causePartition, worker: w, since: start,
				text: fmt.Sprintf("worker %d lost: no heartbeat for %s (network partition since %s)", w, FormatTime(f.heartbeat), FormatTime(start))})
		})
	}
	f.s.emit(Event{Type: EventNetworkPartition, Message: msg})
	f.later(end, func(now des.Time) {
		f.s.emit(Event{Type: EventNetworkPartition, Message: fmt.Sprintf("worker %d can reach the others again", w)})
	})
}

// partitionedUntil returns when a partition between c's workers ends (0
// when there is none).
func (s *Sim) partitionedUntil(c *channel, now des.Time) des.Time {
	if s.fo == nil || len(s.fo.partitions) == 0 {
		return 0
	}
	var until des.Time
	for _, w := range [2]int{c.from.worker, c.to.worker} {
		if e, ok := s.fo.partitions[w]; ok && e > now {
			until = max(until, e)
		}
	}
	return until
}

// fail handles a failure at now. A failed task is reported to the
// JobManager at once; a lost worker is noticed after heartbeat_timeout
// (its subtasks stop meanwhile, and the rest of the job runs on). Each
// failure that hits the running job counts once in recovery.failures and
// writes one failure event.
func (f *failover) fail(now des.Time, c failureCause) {
	s := f.s
	if f.state == JobFailed || f.state == JobLost {
		return
	}
	switch c.kind {
	case causeWorker, causePartition:
		if !f.runsSubtasks(c.worker) {
			f.withoutEffect(now, c.text+"; it ran no subtask, so the job carries on")
			s.emit(Event{Type: EventFailure, Worker: c.worker, Message: c.text + "; it ran no subtask, so the job carries on"})
			return
		}
		if f.state != JobRunning {
			s.emit(Event{Type: EventFailure, Worker: c.worker, Message: c.text + " while the job was down; it is replaced before the restart"})
			return
		}
		if _, ok := f.detecting[c.worker]; ok {
			return // it has failed already; the JobManager has not noticed yet
		}
	case causeTask:
		if c.t != nil && c.t.down {
			f.withoutEffect(now, c.text+" while it was not running: nothing happens")
			s.emit(Event{Type: EventFailure, Worker: c.worker, Message: c.text + " while it was not running: nothing happens"})
			return
		}
	}
	since := now
	if c.since > 0 {
		since = c.since
	}
	if f.state == JobRunning && len(f.detecting) == 0 {
		f.preLag, f.preBacklog = s.replayableLag(now), s.backlog(now) // before the failure makes them grow
		f.outageFrom = since
	}
	if s.ckpt != nil {
		s.ckpt.jobFailed(since)
	}
	f.failures++
	worker := c.worker
	if c.kind == causeJobManager || c.kind == causeCheckpoint {
		worker = -1
	}
	s.emit(Event{Type: EventFailure, Worker: worker, Message: c.text})
	switch c.kind {
	case causeJobManager:
		if f.ha.Type != scenario.HAZooKeeper {
			f.lose(now, c)
			return
		}
	case causeWorker:
		for _, t := range s.subtasks {
			if t.worker == c.worker {
				// it stops where it is: the record in service stays
				// inside the job until the failover destroys it
				t.heldCur = t.serving()
				t.setDown(now, true)
				t.setState(now, stateIdle)
			}
		}
		// senders into its subtasks wait for a failure, not for a
		// bottleneck: the diagnosis leaves that time out
		for _, t := range s.subtasks {
			for _, p := range t.outs {
				for _, ch := range p.chans {
					if ch.to.down && !p.intoDown {
						t.account(now)
						t.settleBP()
						p.intoDown = true
					}
				}
			}
		}
		gen := f.gen
		f.detecting[c.worker] = gen
		f.unnoticed = append(f.unnoticed, c.text)
		if !slices.Contains(f.lost, c.worker) {
			f.lost = append(f.lost, c.worker)
		}
		f.later(now+f.heartbeat, func(at des.Time) {
			if f.gen != gen || f.state != JobRunning {
				return // a failover meanwhile replaced the worker
			}
			delete(f.detecting, c.worker)
			f.failover(at, failureCause{kind: causeWorker, worker: c.worker,
				text: fmt.Sprintf("worker %d lost: no heartbeat for %s", c.worker, FormatTime(f.heartbeat))}, now)
		})
		return
	}
	f.failover(now, c, since)
}

// maxWithoutEffect bounds the failures without effect that summary.json
// lists: random failures of idle workers may come by the thousand.
const maxWithoutEffect = 100

// withoutEffect records a failure that hit nothing.
func (f *failover) withoutEffect(now des.Time, what string) {
	f.noEffects++
	if len(f.noEffect) < maxWithoutEffect {
		f.noEffect = append(f.noEffect, IneffectiveFailure{AtS: secs(now), What: what})
	}
}

// runsSubtasks reports whether worker w runs a subtask of the job.
func (f *failover) runsSubtasks(w int) bool {
	for _, t := range f.s.subtasks {
		if t.worker == w {
			return true
		}
	}
	return false
}

// lose ends the job: the JobManager failed without high availability.
func (f *failover) lose(now des.Time, c failureCause) {
	f.stopAll(now, "the JobManager failed")
	if err := f.s.rewindSources(); err != nil {
		f.s.stop(err)
	}
	f.state = JobLost
	f.message = fmt.Sprintf("job lost at %s: the JobManager failed without high availability (high_availability: {type: zookeeper} would elect a new one and recover from the latest checkpoint)", FormatTime(now))
	f.s.emit(Event{Type: EventJobLost, Message: f.message})
	f.log = append(f.log, FailoverStats{Cause: c.text, Kind: causeKinds[c.kind], FailedS: secs(now), DetectedS: secs(now), RestartS: -1, RecoveredS: -1, RestartWait: -1, RecoveryTime: -1, CaughtUpS: -1, CatchUpTime: -1, LagAtRecovery: -1, downFrom: secs(f.downSince)})
}

// stopAll cancels every task: in-flight data is destroyed (counted lost
// when nothing can bring it back), checkpoints in progress abort, and a new
// epoch starts with fresh channels.
func (f *failover) stopAll(now des.Time, reason string) (lost, dropped uint64) {
	s := f.s
	var restore *checkpoint
	if s.ckpt != nil {
		s.ckpt.abortAll(now, reason)
		s.ckpt.suspended = true
		restore = s.ckpt.latest
	}
	if f.state == JobRunning {
		f.downSince = now
		if f.outageFrom >= 0 && f.outageFrom < now {
			f.downSince = f.outageFrom
		}
	}
	lost, dropped = s.destroyAll(now, restore)
	if s.ckpt != nil {
		s.ckpt.release(now)
	}
	return lost, dropped
}

// failover runs a global failover at now for a failure that happened at
// failedAt: every task is cancelled, then the restart strategy decides.
func (f *failover) failover(now des.Time, c failureCause, failedAt des.Time) {
	s := f.s
	if f.hasPending {
		s.eng.Cancel(f.pending)
		f.hasPending = false
	}
	f.gen++ // workers awaiting detection are replaced by the restart
	clear(f.detecting)
	f.unnoticed = f.unnoticed[:0]
	if c := f.current(); c != nil {
		c.Superseded = true
	}
	if f.catching >= 0 {
		f.log[f.catching].CatchUpInterrupted = true
	}
	f.cur, f.catching = -1, -1
	// what the restored checkpoint will replay, counted before the
	// sources are touched
	toReplay := s.deliveredToReplay()
	lost, dropped := f.stopAll(now, "the job failed over")
	st := FailoverStats{Cause: c.text, Kind: causeKinds[c.kind], FailedS: secs(failedAt), DetectedS: secs(now), RestartS: -1, RecoveredS: -1,
		RestartWait: -1, RecoveryTime: -1, CaughtUpS: -1, CatchUpTime: -1, LagAtRecovery: -1, Lost: lost, Dropped: dropped, ToReplay: toReplay,
		LagAtFailure: f.preLag, backlogAtFailure: f.preBacklog, downFrom: secs(min(f.downSince, failedAt))}
	if s.ckpt != nil && s.ckpt.latest != nil {
		st.Checkpoint = s.ckpt.latest.id
		st.RestoreBytes = s.ckpt.latest.stateSize
	}
	if err := s.rewindSources(); err != nil {
		s.stop(err)
		return
	}
	delay, ok, why := f.nextDelay(now, c)
	if !ok {
		st.Checkpoint, st.RestoreBytes, st.ToReplay = 0, 0, 0 // no restart, nothing restored or replayed
		f.state = JobFailed
		f.message = fmt.Sprintf("job failed for good at %s: %s", FormatTime(now), why)
		if unscripted(causeKinds[c.kind]) {
			f.message += "; the last failure: " + c.text // the job's own doing: say what it was
		}
		s.emit(Event{Type: EventJobFailed, Message: f.message})
		f.log = append(f.log, st)
		return
	}
	f.state = JobRestarting
	st.RestartWait = ms6(delay)
	f.log = append(f.log, st)
	f.cur = len(f.log) - 1
	detail := fmt.Sprintf("restart in %s (%s)", FormatTime(delay), why)
	if lost > 0 {
		detail += fmt.Sprintf("; %d records lost", lost)
	}
	if dropped > 0 {
		detail += fmt.Sprintf("; %s dropped (read by non-replayable sources, not yet emitted)", plural.Count(int(dropped), "record"))
	}
	s.emit(Event{Type: EventFailureDetected, Message: fmt.Sprintf("%s: global failover, %s", c.text, detail)})
	f.pending = f.later(now+delay, f.restartJob)
	f.hasPending = true
}

// nextDelay applies the restart strategy (Flink's restart-strategy.*):
// the delay before the restart, or false with the reason when the job
// fails for good. A JobManager failover with HA waits for the leader
// election instead.
func (f *failover) nextDelay(now des.Time, c failureCause) (des.Time, bool, string) {
	r := f.restart
	if c.kind == causeJobManager {
		return f.ha.LeaderElection, true, "a new JobManager is elected through ZooKeeper"
	}
	typ := r.Type
	if typ == "" {
		typ = scenario.RestartFixedDelay
	}
	switch typ {
	case scenario.RestartNone:
		return 0, false, "restart strategy none"
	case scenario.RestartFixedDelay:
		if r.Attempts >= 0 && f.attempts >= r.Attempts {
			return 0, false, fmt.Sprintf("fixed-delay: all %d restart attempts used", r.Attempts)
		}
		f.attempts++
		return r.Delay, true, fmt.Sprintf("fixed-delay, attempt %d", f.attempts)
	case scenario.RestartExponentialDelay:
		// ExponentialDelayRestartBackoffTimeStrategy.notifyFailure: the
		// backoff starts again when the job has run reset_threshold since
		// its last restart (not since the last failure: FLINK-32895)
		if f.nextRestart >= 0 && now-f.nextRestart >= r.ResetThreshold {
			f.backoff, f.attempts = 0, 0 // ran long enough without failing
		}
		if r.Attempts >= 0 && f.attempts >= r.Attempts {
			return 0, false, fmt.Sprintf("exponential-delay: all %d restart attempts used", r.Attempts)
		}
		if f.backoff == 0 {
			f.backoff = r.InitialBackoff
		} else {
			f.backoff = min(des.Time(float64(f.backoff)*r.Multiplier+0.5), r.MaxBackoff)
		}
		f.attempts++
		d := f.backoff
		if r.Jitter > 0 {
			// calculateActualBackoffTime: the jitter inside the bounds,
			// max(initial, min(backoff + jitter, max))
			d = max(r.InitialBackoff, min(addNs(0, float64(d)*(1+r.Jitter*(2*f.jitter.Float64()-1))), r.MaxBackoff))
		}
		f.nextRestart = now + d
		return d, true, fmt.Sprintf("exponential-delay, backoff %s", FormatTime(f.backoff))
	case scenario.RestartFailureRate:
		f.recent = append(f.recent, now)
		k := 0
		for _, t := range f.recent {
			if now-t < r.FailureRateInterval {
				f.recent[k] = t
				k++
			}
		}
		f.recent = f.recent[:k]
		if k > r.MaxFailuresPerInterval {
			return 0, false, fmt.Sprintf("failure-rate: %d failures within %s, more than %d", k, FormatTime(r.FailureRateInterval), r.MaxFailuresPerInterval)
		}
		return r.Delay, true, fmt.Sprintf("failure-rate, %d of %d failures within %s", k, r.MaxFailuresPerInterval, FormatTime(r.FailureRateInterval))
	}
	return 0, false, "unknown restart strategy " + typ
}

// restartJob deploys the tasks again and restores the latest completed
// checkpoint: its state is downloaded from the checkpoint storage.
func (f *failover) restartJob(now des.Time) {
	s := f.s
	f.hasPending = false
	f.restarts++
	if c := f.current(); c != nil {
		c.RestartS = secs(now)
	}
	done := now
	msg := "restarting without a checkpoint: replayable sources start over"
	if s.ckpt != nil && s.ckpt.latest != nil {
		ck := s.ckpt.latest
		persisted := int64(0)
		for _, rs := range ck.chanState {
			for _, r := range rs {
				persisted += s.sizeOf(&r)
			}
		}
		if ck.stateSize+persisted > 0 {
			done = s.ckpt.store.transfer(now, ck.stateSize+persisted)
		}
		msg = fmt.Sprintf("restarting from checkpoint %d: restoring %s of state", ck.id, scenario.FormatByteSize(ck.stateSize))
		if persisted > 0 {
			msg += fmt.Sprintf(" and %s of in-flight data", scenario.FormatByteSize(persisted))
		}
		msg += " takes " + FormatTime(done-now)
	}
	s.emit(Event{Type: EventRestart, Message: msg})
	f.pending = f.later(done, f.recovered)
	f.hasPending = true
}

// recovered brings the job back: state restored, sources rewound,
// persisted channel state queued first, checkpoints triggered again.
func (f *failover) recovered(now des.Time) {
	s := f.s
	f.hasPending = false
	was := f.state
	f.state = JobRunning
	f.outageFrom = -1
	s.restore(now)
	if s.stopped != nil {
		// the restore itself stopped the run (the restored heap state is
		// past the worker's memory, a graph snapshot cannot be taken
		// back): the job did not recover, and the run_stopped event says
		// why
		f.state = was
		return
	}
	msg := fmt.Sprintf("recovered: processing again %s after the failure", FormatTime(now-f.downSince))
	if c := f.current(); c != nil {
		c.RecoveredS = secs(now)
		c.RecoveryTime = round6(c.RecoveredS - c.FailedS)
		c.LagAtRecovery = int64(s.replayableLag(now))
		c.backlogAtRecovery = s.backlog(now)
		if s.hasReplayable() {
			f.catching = f.cur // a socket leaves no backlog to catch up with
			f.caughtUp(now)
		}
		msg += " (" + downtimeSplit(des.FromSeconds(c.DetectedS-c.downFrom), des.FromSeconds(c.RestartS-c.DetectedS), des.FromSeconds(c.RecoveredS-c.RestartS)) + ")"
	}
	s.emit(Event{Type: EventRecoveryCompleted, Message: msg})
	f.cur = -1
}

// current returns the failover being handled, or nil.
func (f *failover) current() *FailoverStats {
	if f.cur < 0 {
		return nil
	}
	return &f.log[f.cur]
}

// catchUpSlack and catchUpShare are how far above its level at the
// failure the backlog may be for the job to count as caught up: the
// larger of catchUpSlack records and catchUpShare of that level (a lag
// jitters by a few records, a large one by a few percent), but no more
// than half of what the failure added to it. Without that bound a large
// backlog that keeps growing (a job over capacity) would count as caught
// up the moment the job ran again, the failure's replay lost inside 10%
// of it: the job has to work off at least half of what the failure
// added.
const (
	catchUpSlack = 100
	catchUpShare = 0.10
)

// catchUpMargin is the margin over a backlog at the failure (atFailure),
// in records, for a backlog of atRecovery when the job ran again.
func catchUpMargin(atFailure, atRecovery uint64) uint64 {
	m := max(catchUpSlack, uint64(catchUpShare*float64(atFailure)))
	if atRecovery > atFailure {
		m = min(m, (atRecovery-atFailure)/2)
	}
	return m
}

// caughtUp looks, after a recovery and at every metrics sample, whether
// the backlog (the replayable sources' lag and the records inside the
// job, Sim.backlog) is back to what it was when the job failed (within
// catchUpMargin): then the job has caught up with what the failure left.
// The records inside count too: a source that reads as fast as credit
// allows moves its lag into the job's queues at once (with capacity:
// unbounded, or deep buffers), and the job has not caught up until it
// has worked them off. A backlog that keeps growing never comes back.
func (f *failover) caughtUp(now des.Time) {
	if f.catching < 0 || f.state != JobRunning {
		return
	}
	c := &f.log[f.catching]
	if f.s.backlog(now) > c.backlogAtFailure+catchUpMargin(c.backlogAtFailure, c.backlogAtRecovery) {
		return
	}
	c.CaughtUpS = secs(now)
	c.CatchUpTime = round6(c.CaughtUpS - c.FailedS)
	f.catching = -1
}

// hasReplayable reports whether a source of the job is replayable.
func (s *Sim) hasReplayable() bool {
	for _, src := range s.sources {
		if src.mode == srcLog {
			return true
		}
	}
	return false
}

// backlog is the replayable sources' lag and the records inside the job
// (in buffers, in service, held by blocked writers: inFlight), in records.
func (s *Sim) backlog(now des.Time) uint64 { return s.replayableLag(now) + s.inFlight() }

// replayableLag is the consumer lag of all replayable sources, in records.
func (s *Sim) replayableLag(now des.Time) uint64 {
	var n uint64
	for _, src := range s.sources {
		n += src.lag(now)
	}
	return n
}

// causesText counts the failovers by what failed, " (out of memory ×4)",
// when one of them came from the job itself (unscripted): the scenario's
// failures the student wrote need no naming, a worker out of memory does.
// Kinds are in the order of their first failover.
func (r *RecoverySummary) causesText() string {
	var kinds []string
	n := map[string]int{}
	own := false
	for _, fo := range r.Failovers {
		if n[fo.Kind] == 0 {
			kinds = append(kinds, fo.Kind)
		}
		n[fo.Kind]++
		own = own || unscripted(fo.Kind)
	}
	if !own {
		return ""
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		word := k // a kind of a summary.json from elsewhere, as it is
		if c := slices.Index(causeKinds[:], k); c >= 0 {
			word = causeWords[c]
		}
		parts[i] = fmt.Sprintf("%s ×%d", word, n[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func (f *failover) summary(now des.Time) *RecoverySummary {
	r := &RecoverySummary{JobState: f.state, Failures: f.failures, Restarts: f.restarts, Failovers: append([]FailoverStats{}, f.log...),
		SourcesReplayable: f.s.hasReplayable(), WithoutEffect: append([]IneffectiveFailure{}, f.noEffect...), WithoutEffectCount: f.noEffects, Message: f.message}
	if f.state == JobRunning && len(f.detecting) > 0 && f.outageFrom >= 0 {
		// lost workers the JobManager has not noticed by the end: their
		// subtasks are down since the first of them failed
		r.Failovers = append(r.Failovers, FailoverStats{
			Cause:   strings.Join(f.unnoticed, "; ") + fmt.Sprintf("; not noticed by the end, heartbeat_timeout %s", FormatTime(f.heartbeat)),
			Kind:    causeKinds[causeWorker],
			FailedS: secs(f.outageFrom), DetectedS: -1, RestartS: -1, RecoveredS: -1, RestartWait: -1, RecoveryTime: -1,
			CaughtUpS: -1, CatchUpTime: -1, LagAtFailure: f.preLag, LagAtRecovery: -1, downFrom: secs(f.outageFrom)})
	}
	f.downtime(r, now)
	for _, fo := range r.Failovers {
		if fo.Superseded {
			continue
		}
		if fo.RecoveryTime < 0 || r.MaxRecoveryTime < 0 {
			r.MaxRecoveryTime = -1
		} else {
			r.MaxRecoveryTime = max(r.MaxRecoveryTime, fo.RecoveryTime)
		}
		if fo.CatchUpInterrupted {
			continue // the next failover's catch-up tells
		}
		if fo.CatchUpTime < 0 || r.MaxCatchUpTime < 0 {
			r.MaxCatchUpTime = -1
		} else {
			r.MaxCatchUpTime = max(r.MaxCatchUpTime, fo.CatchUpTime)
		}
	}
	if n := len(r.Failovers); n > maxListedFailovers {
		r.FailoversCount = n
		r.Failovers = append(r.Failovers[:maxListedFailovers/2:maxListedFailovers/2], r.Failovers[n-maxListedFailovers/2:]...)
	}
	return r
}

// ListedText says which failovers a summary cut to maxListedFailovers
// lists: "summary.json lists 1000 of the 1842 failovers: the first 500
// (to 564.361s) and the last 500 (from 23m59.9s), 842 left out".
func (r *RecoverySummary) ListedText() string {
	half := maxListedFailovers / 2
	if r.FailoversCount <= len(r.Failovers) || len(r.Failovers) < 2*half {
		return ""
	}
	return fmt.Sprintf("summary.json lists %d of the %d failovers: the first %d (to %s) and the last %d (from %s), %d left out",
		len(r.Failovers), r.FailoversCount, half, FormatTime(des.FromSeconds(r.Failovers[half-1].FailedS)), half, FormatTime(des.FromSeconds(r.Failovers[half].FailedS)), r.FailoversCount-len(r.Failovers))
}

// maxListedFailovers bounds the failovers a RecoverySummary lists (about
// 550 bytes each in summary.json).
const maxListedFailovers = 1000

// downtime fills r's downtime and its phases from the failovers: each
// outage runs from its failure (or an earlier one not noticed yet) to
// running again; a failover superseded by another ends at that one's
// detection, and one not over ends now (a lost worker not noticed yet is
// all detection). A cursor keeps overlapping outages from counting twice,
// so the phases (the terminal one after a job failed for good or was
// lost included) sum to the downtime.
func (f *failover) downtime(r *RecoverySummary, now des.Time) {
	end := secs(now)
	cursor := 0.0
	var total, detect, delay, restore, terminal float64
	span := func(from, to float64) float64 {
		from = max(from, cursor)
		if to <= from {
			return 0
		}
		cursor = to
		return to - from
	}
	for i, fo := range r.Failovers {
		over := end // when this outage ends
		switch {
		case fo.RecoveredS >= 0:
			over = fo.RecoveredS
		case fo.Superseded && i+1 < len(r.Failovers):
			over = r.Failovers[i+1].DetectedS
		}
		start := max(fo.downFrom, cursor)
		if fo.DetectedS < 0 { // a lost worker not noticed by the end
			detect += span(fo.downFrom, over)
			total += max(over-start, 0)
			continue
		}
		detect += span(fo.downFrom, min(fo.DetectedS, over))
		gave := f.state == JobFailed || f.state == JobLost
		last := i == len(r.Failovers)-1
		switch {
		case fo.RestartS >= 0:
			delay += span(fo.DetectedS, min(fo.RestartS, over))
			restore += span(fo.RestartS, over)
		case !(gave && last):
			delay += span(fo.DetectedS, over)
		default:
			terminal += span(fo.DetectedS, over) // the job failed for good or was lost
		}
		total += max(over-start, 0)
	}
	r.DowntimeS, r.DetectionS, r.RestartDelayS, r.RestoreS, r.TerminalS = round6(total), round6(detect), round6(delay), round6(restore), round6(terminal)
}

// downtimeSplit says how an outage splits: "10s detection, 2s restart
// delay, 19.766ms restore", leaving out phases that took no time.
func downtimeSplit(detect, delay, restore des.Time) string {
	var parts []string
	for _, p := range []struct {
		d    des.Time
		what string
	}{{detect, "detection"}, {delay, "restart delay"}, {restore, "restore"}} {
		if p.d > 0 {
			parts = append(parts, FormatTime(p.d)+" "+p.what)
		}
	}
	if len(parts) == 0 {
		return "at once"
	}
	return strings.Join(parts, ", ")
}

// unnoticed returns the failover of lost workers the JobManager had not
// noticed by the end, or nil.
func (r *RecoverySummary) unnoticed() *FailoverStats {
	if n := len(r.Failovers); n > 0 && r.Failovers[n-1].DetectedS < 0 {
		return &r.Failovers[n-1]
	}
	return nil
}

// notCaughtUp returns the last failover that recovered and did not catch
// up, or nil.
func (r *RecoverySummary) notCaughtUp() *FailoverStats {
	for i := len(r.Failovers) - 1; i >= 0; i-- {
		if fo := &r.Failovers[i]; !fo.Superseded && !fo.CatchUpInterrupted && fo.RecoveredS >= 0 && fo.CatchUpTime < 0 {
			return fo
		}
	}
	return nil
}

// interrupted returns the index of the first failover whose catch-up a
// later failure interrupted, or -1.
func (r *RecoverySummary) interrupted() int {
	for i := range r.Failovers {
		if r.Failovers[i].CatchUpInterrupted && i+1 < len(r.Failovers) && !(r.FailoversCount > 0 && i+1 == maxListedFailovers/2) {
			return i
		}
	}
	return -1
}

// lostWorkersText names the workers lost so far for the diagnosis:
// "worker 1 was lost and not yet noticed", "workers 0 and 1 were lost and
// not yet noticed".
func (f *failover) lostWorkersText() string {
	if f == nil || len(f.lost) == 0 {
		return "a worker was lost and not yet noticed"
	}
	names := make([]string, len(f.lost))
	for i, w := range f.lost {
		names[i] = strconv.Itoa(w)
	}
	if len(names) == 1 {
		return "worker " + names[0] + " was lost and not yet noticed"
	}
	return "workers " + andList(names) + " were lost and not yet noticed"
}

func secs(t des.Time) float64 { return round6(t.Seconds()) }

// deliveredToReplay counts the records the sinks have made visible that a
// recovery from the latest checkpoint will emit again.
func (s *Sim) deliveredToReplay() uint64 {
	var n uint64
	var restore *checkpoint
	if s.ckpt != nil {
		restore = s.ckpt.latest
	}
	if restore != nil {
		// persisted channel state is processed again after the restore
		for _, rss := range [2]map[int][]Record{restore.chanState, restore.outState} {
			for _, rs := range rss {
				for _, r := range rs {
					for _, v := range s.vertices {
						if v.sink != nil && v.sink.visible.Contains(r.Copy, r.ID) {
							n++
						}
					}
				}
			}
		}
	}
	for _, src := range s.sources {
		if src.mode != srcLog || src.qr != nil {
			continue
		}
		from := uint64(0)
		if restore != nil {
			from = restore.sources[src.seq].next
		}
		if from >= src.next {
			continue
		}
		lo, hi := sourceID(src.seq, from), sourceID(src.seq, src.next)
		for _, v := range s.vertices {
			if v.sink != nil {
				n += v.sink.visible.countRange(lo, hi)
			}
		}
	}
	return n
}

// AddBeyondEnd lists a scripted failure that a run shortened below its
// time (dspalab run --duration) never reached, among the failures
// without effect (with the same bound as those the run met), with the
// reason: at the end of the run, the run stops before it acts; after
// it, it never happens. Recovery counts neither.
func (r *RecoverySummary) AddBeyondEnd(fl *scenario.Failure, end des.Time) {
	what := fl.Kind + " failure"
	switch fl.Kind {
	case scenario.FailureTask:
		what = fmt.Sprintf("task %s[%d] fails", fl.Vertex, fl.Subtask)
	case scenario.FailureWorker:
		what = fmt.Sprintf("worker %d fails", fl.Worker)
	case scenario.FailureJobManager:
		what = "the JobManager fails"
	}
	r.WithoutEffect, r.WithoutEffectCount = AppendBeyondEnd(r.WithoutEffect, r.WithoutEffectCount, what, fl.At, end)
}

// AppendBeyondEnd appends to list (within the bound of summary.json's
// failures_without_effect) the scripted failure what at time at that a
// run ending at end never reached, with the reason, and returns the list
// and count + 1: AddBeyondEnd's, and a micro-batch run's (whose failures
// are the driver's and the executors').
func AppendBeyondEnd(list []IneffectiveFailure, count int, what string, at, end des.Time) ([]IneffectiveFailure, int) {
	if at == end {
		what += " at the end of the run, which stops before the failure acts"
	} else {
		what += fmt.Sprintf(" after the end of the run (%s), so it never happens", FormatTime(end))
	}
	if len(list) < maxWithoutEffect {
		list = append(list, IneffectiveFailure{AtS: secs(at), What: what})
	}
	return list, count + 1
}

// WithoutEffectText is the summary text's notes on the failures without
// effect: the first three, then how many more.
func WithoutEffectText(list []IneffectiveFailure, count int) string {
	var b strings.Builder
	for i, x := range list {
		if i == 3 {
			fmt.Fprintf(&b, "\nnote: and %s more without effect (summary.json recovery.failures_without_effect)", plural.Count(count-3, "failure"))
			break
		}
		fmt.Fprintf(&b, "\nnote: at %s %s: the failure had no effect", seconds(x.AtS), x.What)
	}
	return b.String()
}
