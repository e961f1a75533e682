package sim

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unsafe"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Checkpoint statuses.
const (
	CheckpointCompleted = "completed"
	CheckpointTimedOut  = "timed_out"
	// CheckpointFailed is a checkpoint aborted by a failure of the job.
	CheckpointFailed = "failed"
)

// Event types of checkpoints.
const (
	EventCheckpointTriggered = "checkpoint_triggered"
	EventCheckpointCompleted = "checkpoint_completed"
	EventCheckpointFailed    = "checkpoint_failed"
)

// CheckpointStats is one checkpoint as Flink's checkpoint monitoring shows
// it (one row of checkpoints.csv). Times are simulated; durations in
// milliseconds; sizes in bytes.
type CheckpointStats struct {
	ID       int64   `json:"checkpoint_id"`
	TriggerS float64 `json:"trigger_time_s"`
	Status   string  `json:"status"` // completed, timed_out or failed
	// EndToEnd is from the trigger to the last acknowledgement (to the
	// timeout or the failure for a checkpoint that did not complete).
	EndToEnd float64 `json:"end_to_end_duration_ms"`
	// StartDelay is the longest time from the trigger until a subtask
	// received its first barrier (a back-pressured source emits its
	// barrier only once its record in hand is written); for
	// stop-the-world, the time the job took to drain.
	StartDelay float64 `json:"start_delay_max_ms"`
	// Alignment is the longest time a subtask spent between its first and
	// its last barrier (aligned: its earlier inputs blocked meanwhile;
	// unaligned: persisting what arrives on the others).
	Alignment float64 `json:"alignment_max_ms"`
	// Sync and Async are the longest synchronous and asynchronous
	// (upload) parts of a subtask's snapshot.
	Sync  float64 `json:"sync_max_ms"`
	Async float64 `json:"async_max_ms"`
	// StateSize is the state uploaded (the changes only when
	// incremental); FullSize the whole state; Persisted the in-flight
	// data persisted with it (unaligned).
	StateSize int64  `json:"checkpointed_size_bytes"`
	FullSize  int64  `json:"full_state_size_bytes"`
	Persisted int64  `json:"persisted_in_flight_bytes"`
	Acked     int    `json:"acknowledged_subtasks"`
	Subtasks  int    `json:"subtasks"`
	Reason    string `json:"failure_reason,omitempty"`
	// Unaligned is true when the barriers overtook buffered data (mode
	// unaligned, from the start or after aligned_timeout).
	Unaligned bool `json:"unaligned"`
	// SubtaskStats holds one entry per subtask that acknowledged, in
	// subtask order (checkpoint_subtasks.csv).
	SubtaskStats []SubtaskCheckpointStats `json:"-"`
}

// SubtaskCheckpointStats is one subtask's part of a checkpoint, as Flink's
// checkpoint details show it. Durations in milliseconds, sizes in bytes.
type SubtaskCheckpointStats struct {
	Vertex     string  `json:"vertex"`
	Subtask    int     `json:"subtask"`
	AckS       float64 `json:"acknowledged_s"`
	StartDelay float64 `json:"start_delay_ms"`
	Alignment  float64 `json:"alignment_ms"`
	Sync       float64 `json:"sync_ms"`
	Async      float64 `json:"async_ms"`
	StateSize  int64   `json:"checkpointed_size_bytes"`
	Persisted  int64   `json:"persisted_in_flight_bytes"`
	acked      bool
}

// CheckpointSummary sums up the checkpoints of a run (summary.json).
type CheckpointSummary struct {
	Mode      string  `json:"mode"`
	IntervalS float64 `json:"interval_s"`
	TimeoutS  float64 `json:"timeout_s"`
	Triggered int     `json:"triggered"`
	Completed int     `json:"completed"`
	// Failed counts checkpoints that timed out or were aborted by a
	// failure of the job.
	Failed int `json:"failed"`
	// InProgress were triggered and had neither completed nor failed when
	// the run ended (they have no row in checkpoints.csv).
	InProgress int `json:"in_progress"`
	// LastDuration and MaxDuration are null when none completed.
	LastDuration  *float64 `json:"last_completed_duration_ms"`
	MaxDuration   *float64 `json:"max_completed_duration_ms"`
	MaxAlignment  float64  `json:"max_alignment_ms"`
	MaxStartDelay float64  `json:"max_start_delay_ms"`
	// LastSize is the last completed checkpoint's checkpointed size and
	// MaxPersisted the most in-flight data one checkpoint persisted, in
	// bytes.
	LastSize     int64 `json:"last_checkpointed_size_bytes"`
	MaxPersisted int64 `json:"max_persisted_in_flight_bytes"`
	// Overhead is the share of the run (after the warmup) with a
	// checkpoint in progress; SourcesHeld the share during which a
	// stop-the-world checkpoint held the sources (0 in other modes, whose
	// checkpoints never stop ingestion).
	Overhead    float64 `json:"in_progress_ratio"`
	SourcesHeld float64 `json:"sources_held_ratio"`
	// MaxAgeS is the oldest the latest completed checkpoint became while
	// nothing had failed, in simulated seconds: from the trigger of a
	// completed checkpoint (the source offsets it stores) to the
	// completion of the next, from the start of the run to the first
	// completion, and from the last trigger to the first failure or the
	// end. A failure at the worst moment replays that many seconds of
	// input, wherever the scripted failures fall: about the interval plus
	// a checkpoint's duration (minimal-pause and timeouts add to it).
	// After the first failure it is not measured: the restart's downtime
	// would count as age.
	MaxAgeS float64 `json:"max_checkpoint_age_s"`
}

// CheckpointObserver, implemented by an Observer, receives each checkpoint
// with its per-subtask details when it ends (the Result keeps only the
// summary rows, so that memory does not grow with checkpoints × subtasks).
type CheckpointObserver interface {
	Checkpoint(c *CheckpointStats)
}

// coordinator is the checkpoint coordinator of the JobManager: it triggers
// checkpoints at the sources, collects the acknowledgements of every
// subtask and times checkpoints out. Barriers flow with the records, so
// under back-pressure they queue behind buffered data: aligned checkpoints
// then take long and may time out, as Flink's do (asynchronous barrier
// snapshotting, Carbone et al. 2015; "Checkpointing under back-pressure",
// Flink documentation). Unaligned barriers overtake the buffered data,
// which is persisted with the state instead (FLIP-76). Stop-the-world stops
// the sources, waits until nothing is in flight, and copies all state.
type coordinator struct {
	s           *Sim
	cfg         scenario.Checkpointing
	store       *storage
	nextID      int64
	pending     map[int64]*checkpoint
	lastTrigger des.Time
	lastEnd     des.Time
	armed       bool
	suspended   bool        // the job is not running (failed, restarting)
	latest      *checkpoint // the last completed checkpoint: what a recovery restores
	failedInRow int
	busySince   des.Time // a checkpoint is in progress since then
	busyWin     des.Time // time with a checkpoint in progress, after the warmup
	heldSince   des.Time // stop-the-world: the sources are held since then
	heldWin     des.Time // time the sources were held, after the warmup
	stats       []CheckpointStats
	sum         CheckpointSummary
	// ageFrom is the trigger of the latest completed checkpoint (0 before
	// the first), until the first failure (aged) (MaxAgeS)
	ageFrom des.Time
	aged    bool
	// held is the memory of the checkpoints in flight and the latest
	// completed one (Options.MaxMemory); persistedRecs the in-flight
	// records those in flight persisted.
	held, persistedRecs int64
	recordCuts          bool    // keep per-channel counts at each snapshot (tests)
	cutLog              [][]Cut // recordCuts: the cuts of completed checkpoints
}

// checkpoint is one checkpoint in progress, or the latest completed one
// with what a recovery restores from it.
type checkpoint struct {
	id      int64
	stats   CheckpointStats
	trigger des.Time
	timeout des.EventID
	sub     []SubtaskCheckpointStats // by subtask gid
	// restore data
	sources   map[int]sourceSnap // by source seq
	keys      map[int]*keySet    // keyed state by subtask gid
	stateSize int64              // full state bytes
	chanState map[int][]Record   // persisted input by receiving subtask gid
	outState  map[int][]Record   // persisted pending output by subtask gid
	// unaligned: barriers overtake buffered data (from the start, or
	// since aligned_timeout passed)
	unaligned bool
	extra     map[int]int64 // bytes persisted for a subtask by the switch to unaligned
	cuts      map[*channel]*Cut
	// held is the memory of the checkpoint counted in its coordinator's
	// held, recs the records it persisted
	held, recs int64
	co         *coordinator
}

// Memory of a checkpoint in flight, as plan's estimate counts it: about
// 1 KiB of its own and 224 bytes per subtask, plus what it copies (key
// sets) and persists (records).
const (
	checkpointBytes        = 1024
	subtaskCheckpointBytes = 224
	recordBytes            = int64(unsafe.Sizeof(Record{}))
)

// age counts the age the latest completed checkpoint has at now in
// MaxAgeS, unless the job has failed already.
func (c *coordinator) age(now des.Time) {
	if !c.aged {
		c.sum.MaxAgeS = max(c.sum.MaxAgeS, round6((now - c.ageFrom).Seconds()))
	}
}

// jobFailed ends the measure of MaxAgeS at the job's first failure, at
// failedAt.
func (c *coordinator) jobFailed(failedAt des.Time) {
	c.age(failedAt)
	c.aged = true
}

// hold counts n more bytes held by checkpoint ck.
func (c *coordinator) hold(ck *checkpoint, n int64) {
	ck.held += n
	c.held += n
}

// drop releases what checkpoint ck held: it failed, or a newer one
// completed after it.
func (c *coordinator) drop(ck *checkpoint) {
	c.held -= ck.held
	ck.held = 0
}

// persist adds records rs to the persisted in-flight data of subtask gid
// in state (ck.chanState or ck.outState), counting their memory.
func (ck *checkpoint) persist(state map[int][]Record, gid int, rs ...Record) {
	state[gid] = append(state[gid], rs...)
	n := int64(len(rs))
	ck.recs += n
	ck.co.persistedRecs += n
	ck.co.hold(ck, n*recordBytes)
}

// Cut is what the two ends of a channel counted at their snapshots of one
// checkpoint: records the sender had written before its barrier, records
// the receiver had taken before its snapshot. An aligned checkpoint is a
// consistent cut: the two are equal on every channel.
type Cut struct {
	From, To string // "vertex[subtask]"
	Sent     int64
	Received int64
}

func newCoordinator(s *Sim, cfg scenario.Checkpointing) *coordinator {
	c := &coordinator{s: s, cfg: cfg, pending: map[int64]*checkpoint{}, lastTrigger: -cfg.Interval, busySince: -1}
	c.store = &storage{bw: cfg.Storage.Bandwidth, latency: cfg.Storage.Latency}
	c.sum = CheckpointSummary{Mode: cfg.Mode, IntervalS: cfg.Interval.Seconds(), TimeoutS: cfg.Timeout.Seconds()}
	if cfg.Interval > 0 { // New creates a coordinator only when plan.Plan.Checkpointing
		c.arm(cfg.Interval)
	}
	return c
}

// Events of the coordinator, each a type of its own (see task_events.go).
type (
	// triggerDue looks whether a checkpoint is due.
	triggerDue coordinator
	// checkpointTimeout times out the checkpoint its argument names.
	checkpointTimeout coordinator
	// drainCheck looks whether the job has drained for the stop-the-world
	// checkpoint its argument names.
	drainCheck coordinator
	// snapshotStored acknowledges the subtask's snapshot for the
	// checkpoint its argument names: its upload is stored.
	snapshotStored subtask
)

// HandleEvent triggers a checkpoint if one is due.
func (e *triggerDue) HandleEvent(now des.Time, _ int64) {
	c := (*coordinator)(e)
	c.armed = false
	c.tryTrigger(now)
}

// HandleEvent times checkpoint id out.
func (e *checkpointTimeout) HandleEvent(now des.Time, id int64) { (*coordinator)(e).timeOut(now, id) }

// HandleEvent looks whether the job has drained for checkpoint id.
func (e *drainCheck) HandleEvent(now des.Time, id int64) { (*coordinator)(e).checkDrained(now, id) }

// HandleEvent acknowledges the subtask's snapshot for checkpoint id. A
// failover aborts every pending checkpoint, so an acknowledgement of an
// older epoch finds none.
func (e *snapshotStored) HandleEvent(now des.Time, id int64) {
	t := (*subtask)(e)
	t.s.ckpt.ack(now, t, id)
}

func (c *coordinator) arm(at des.Time) {
	if !c.armed && at < c.s.duration { // one triggered at the very end could not progress
		c.armed = true
		c.s.eng.Schedule(max(at, c.s.eng.Now()), (*triggerDue)(c), 0)
	}
}

// tryTrigger triggers a checkpoint when one is due: an interval after the
// last trigger, min_pause after the last end, fewer than max_concurrent in
// progress, the job running. Otherwise it waits for the earliest of those
// moments.
func (c *coordinator) tryTrigger(now des.Time) {
	due := max(c.lastTrigger+c.cfg.Interval, c.lastEnd+c.cfg.MinPause)
	switch {
	case c.suspended:
		return // resume() arms it again
	case len(c.pending) >= max(c.cfg.MaxConcurrent, 1):
		return // the end of one calls tryTrigger again
	case now < due:
		c.arm(due)
		return
	}
	c.trigger(now)
	c.arm(now + c.cfg.Interval)
}

// trigger starts a checkpoint: barriers at the sources, or for
// stop-the-world a halt of the sources.
func (c *coordinator) trigger(now des.Time) int64 {
	c.nextID++
	id := c.nextID
	n := len(c.s.subtasks)
	ck := &checkpoint{id: id, trigger: now, stats: CheckpointStats{ID: id, TriggerS: round6(now.Seconds()), Subtasks: n},
		sub: make([]SubtaskCheckpointStats, n), sources: map[int]sourceSnap{}, keys: map[int]*keySet{},
		chanState: map[int][]Record{}, outState: map[int][]Record{}}
	if c.recordCuts {
		ck.cuts = map[*channel]*Cut{}
	}
	if c.cfg.Mode == scenario.CheckpointUnaligned {
		ck.unaligned = c.cfg.AlignedTimeout <= 0
		if !ck.unaligned {
			ck.extra = map[int]int64{}
			c.s.fo.later(now+c.cfg.AlignedTimeout, func(now des.Time) { c.switchToUnaligned(now, id) })
		}
	}
	c.pending[id] = ck
	ck.co = c
	c.hold(ck, checkpointBytes+int64(n)*subtaskCheckpointBytes)
	c.s.checkMemory() // a run that piles up checkpoints stops here, after this event
	c.lastTrigger = now
	c.sum.Triggered++
	if c.busySince < 0 {
		c.busySince = now
	}
	ck.timeout = c.s.eng.After(c.cfg.Timeout, (*checkpointTimeout)(c), id)
	c.s.emit(Event{Type: EventCheckpointTriggered, Checkpoint: id, Message: fmt.Sprintf("checkpoint %d triggered", id)})
	if c.cfg.Mode == scenario.CheckpointStopTheWorld {
		c.s.halted = true
		c.heldSince = now
		for _, t := range c.s.subtasks {
			for _, p := range t.outs {
				p.flushAll(now)
			}
		}
		c.checkDrained(now, id)
		return id
	}
	for _, src := range c.s.sources {
		src.pendingBarriers = append(src.pendingBarriers, id)
		if !src.t.held() || ck.unaligned {
			src.emitBarriers(now)
		}
	}
	return id
}

// checkDrained snapshots every subtask of stop-the-world checkpoint id
// once nothing is in flight; until then it looks again every millisecond.
func (c *coordinator) checkDrained(now des.Time, id int64) {
	ck := c.pending[id]
	if ck == nil {
		return
	}
	if !c.s.drained() {
		c.s.eng.After(des.Millisecond, (*drainCheck)(c), id)
		return
	}
	ck.stats.StartDelay = ms6(now - ck.trigger)
	for _, t := range c.s.subtasks {
		ck.sub[t.gid].StartDelay = ck.stats.StartDelay
		if src := t.asSource(); src != nil {
			ck.sources[src.seq] = src.snapshot()
		}
		t.snapshot(now, ck, 0)
	}
}

// drained reports whether no record is in flight: every subtask idle with
// nothing queued or pending, every channel empty.
func (s *Sim) drained() bool {
	for _, t := range s.subtasks {
		if t.state != stateIdle || len(t.pend) > 0 {
			return false
		}
		if src := t.asSource(); src != nil && src.fetchng {
			return false
		}
		if g := t.gate; g != nil && (g.queuedRecs > 0 || g.cur != nil || len(g.restored) > 0) {
			return false
		}
		for _, p := range t.outs {
			for _, ch := range p.chans {
				if (ch.cur != nil && len(ch.cur.recs) > 0) || ch.backlog.len() > 0 || ch.inflight.len() > 0 {
					return false
				}
			}
		}
	}
	return true
}

// snapshot takes t's snapshot for checkpoint ck at its cut (capture) and
// uploads it (upload). Aligned and stop-the-world snapshots do both at
// once; an unaligned one captures at its first barrier and uploads when
// the last has come, with the in-flight data persisted meanwhile.
func (t *subtask) snapshot(now des.Time, ck *checkpoint, persisted int64) {
	t.capture(ck)
	t.upload(now, ck, persisted)
}

// capture takes the synchronous part of t's snapshot: its keyed state (the
// changes, when incremental) as of now. Transactional sinks pre-commit
// here: what they write later belongs to the next checkpoint.
func (t *subtask) capture(ck *checkpoint) {
	st := &ck.sub[t.gid]
	st.Vertex, st.Subtask = t.v.name, t.index
	if w := t.asSink(); w != nil {
		w.closeTxn(ck.id)
	}
	if t.keyed == nil {
		return
	}
	if w, ok := t.proc.(windowed); ok {
		w.capture(ck.id) // its windows, with the keyed state (and their changes)
	}
	upload, full, sync := t.keyed.snapshotCost()
	if sync > 0 && t.state == stateIdle && !ck.unaligned {
		// the synchronous part blocks the task (an unaligned snapshot is
		// taken between records, whatever the task is doing: its
		// synchronous part is counted, not waited for)
		t.syncBusy = true
		t.setState(t.s.eng.Now(), stateBusy)
		t.after(sync, (*snapshotSynced)(t))
	}
	ck.keys[t.gid] = t.keyed.keys.clone()
	t.s.ckpt.hold(ck, ck.keys[t.gid].sizeBytes())
	if g := t.keyed.graph; g != nil {
		g.capture(ck.id) // its graph (graph_operator.go)
	}
	ck.stateSize += full
	st.StateSize, st.Sync = upload, ms6(sync)
	ck.stats.StateSize += upload
	ck.stats.FullSize += full
}

// upload sends t's captured state and persisted bytes to the checkpoint
// storage, after the synchronous part; t acknowledges when it is stored.
func (t *subtask) upload(now des.Time, ck *checkpoint, persisted int64) {
	c := t.s.ckpt
	st := &ck.sub[t.gid]
	persisted += ck.extra[t.gid]
	st.Persisted = persisted
	ck.stats.Persisted += persisted
	sync := des.Time(st.Sync * 1e6)
	if st.StateSize+persisted == 0 && sync == 0 {
		c.ack(now, t, ck.id)
		return
	}
	done := c.store.transfer(now+sync, st.StateSize+persisted)
	st.Async = ms6(done - now - sync)
	t.s.eng.Schedule(done, (*snapshotStored)(t), ck.id)
}

// ack records that subtask t has snapshotted its state for checkpoint id.
func (c *coordinator) ack(now des.Time, t *subtask, id int64) {
	ck := c.pending[id]
	if ck == nil || ck.sub[t.gid].acked {
		return
	}
	st := &ck.sub[t.gid]
	st.acked = true
	st.AckS = round6(now.Seconds())
	ck.stats.Sync = max(ck.stats.Sync, st.Sync)
	ck.stats.Async = max(ck.stats.Async, st.Async)
	ck.stats.Acked++
	if ck.stats.Acked < ck.stats.Subtasks {
		return
	}
	c.s.eng.Cancel(ck.timeout)
	ck.stats.Status = CheckpointCompleted
	ck.stats.EndToEnd = ms6(now - ck.trigger)
	c.finish(now, ck)
	c.sum.Completed++
	c.failedInRow = 0
	d := ck.stats.EndToEnd
	c.sum.LastDuration = &d
	c.sum.LastSize = ck.stats.StateSize
	if c.sum.MaxDuration == nil || d > *c.sum.MaxDuration {
		m := d
		c.sum.MaxDuration = &m
	}
	if c.latest != nil {
		c.drop(c.latest)
	}
	c.latest = ck
	c.age(now)
	if !c.aged {
		c.ageFrom = ck.trigger
	}
	c.s.ackQueues(ck)
	if ck.cuts != nil {
		var cuts []Cut
		for _, x := range ck.cuts {
			cuts = append(cuts, *x)
		}
		c.cutLog = append(c.cutLog, cuts)
	}
	ck.sub, ck.cuts = nil, nil // keep the restore data only
	for _, v := range c.s.vertices {
		if v.sink != nil && v.sink.kind == deliveryTransactional {
			for _, st := range v.subtasks {
				st.asSink().commit(now, id)
			}
		}
	}
	msg := fmt.Sprintf("checkpoint %d completed in %s (alignment up to %s, start delay up to %s", id, FormatTime(now-ck.trigger),
		FormatTime(des.Time(ck.stats.Alignment*1e6)), FormatTime(des.Time(ck.stats.StartDelay*1e6)))
	if ck.stats.StateSize > 0 || ck.stats.Persisted > 0 {
		msg += fmt.Sprintf(", %s of state", scenario.FormatByteSize(ck.stats.StateSize))
		if ck.stats.Persisted > 0 {
			msg += fmt.Sprintf(" and %s of in-flight data", scenario.FormatByteSize(ck.stats.Persisted))
		}
	}
	c.s.emit(Event{Type: EventCheckpointCompleted, Checkpoint: id, Message: msg + ")"})
	c.tryTrigger(now)
}

// timeOut fails checkpoint id: subtasks still aligning for it give up and
// unblock their inputs; its barriers still in flight are ignored. More
// failures in a row than tolerable_failures fail the job.
func (c *coordinator) timeOut(now des.Time, id int64) {
	ck := c.pending[id]
	if ck == nil {
		return
	}
	ck.stats.Status = CheckpointTimedOut
	ck.stats.EndToEnd = ms6(now - ck.trigger)
	// why does not depend on what finish and the aborts below change
	why := c.timeoutReason(now, ck)
	ck.stats.Reason = fmt.Sprintf("timed out after %s: %d of %d subtasks acknowledged (%s)",
		FormatTime(c.cfg.Timeout), ck.stats.Acked, ck.stats.Subtasks, why)
	for _, t := range c.s.subtasks {
		if h := t.barriers; h != nil && h.checkpoint == id {
			c.alignedSoFar(ck, t, now-h.start) // still aligning: as long as that
		}
	}
	c.finish(now, ck)
	c.sum.Failed++
	c.failedInRow++
	for _, t := range c.s.subtasks {
		if h := t.barriers; h != nil && h.checkpoint == id {
			h.abort(now)
			if t.state == stateIdle {
				t.pull(now) // its unblocked inputs may hold records
			}
		}
	}
	c.s.emit(Event{Type: EventCheckpointFailed, Checkpoint: id, Message: fmt.Sprintf("checkpoint %d %s", id, ck.stats.Reason)})
	if tol := c.cfg.TolerableFailures; tol >= 0 && c.failedInRow > tol && c.s.fo != nil {
		n := c.failedInRow
		c.s.fo.later(now, func(now des.Time) {
			c.s.fo.fail(now, failureCause{kind: causeCheckpoint,
				text: fmt.Sprintf("%d checkpoints failed in a row, more than tolerable_failures (%d)", n, tol)})
		})
	}
	c.tryTrigger(now)
}

// release ends a stop-the-world hold of the sources, accounting its time.
func (c *coordinator) release(now des.Time) {
	if !c.s.halted {
		return
	}
	c.s.halted = false
	if w := c.s.warmup; now > w {
		c.heldWin += now - max(c.heldSince, w)
	}
}

// isUnaligned reports whether checkpoint id's barriers overtake data.
func (c *coordinator) isUnaligned(id int64) bool {
	if c == nil {
		return false // no checkpoints: an event buffer is a watermark
	}
	ck := c.pending[id]
	return ck != nil && ck.unaligned
}

// timeoutReason says why checkpoint ck did not complete by now.
func (c *coordinator) timeoutReason(now des.Time, ck *checkpoint) string {
	for _, o := range c.store.outages {
		if o[0] < now && o[1] > ck.trigger {
			return "the checkpoint storage was unavailable (storage outage)"
		}
	}
	for _, t := range c.s.subtasks {
		if t.down {
			return "a failed worker's subtasks do not acknowledge"
		}
	}
	if c.s.fo != nil {
		for _, until := range c.s.fo.partitions {
			if until > ck.trigger {
				return "a network partition held barriers or acknowledgements"
			}
		}
	}
	if c.cfg.Mode == scenario.CheckpointStopTheWorld {
		return "the job did not drain and copy its state in time"
	}
	// every subtask that has not acknowledged has taken its snapshot (it
	// had all its barriers) and is uploading it: the storage is the limit
	uploading := true
	for i := range ck.sub {
		if st := &ck.sub[i]; !st.acked && st.Vertex == "" {
			uploading = false
			break
		}
	}
	if uploading {
		return "uploads to the checkpoint storage did not finish in time"
	}
	return "barriers wait behind buffered records under back-pressure"
}

// abortAll fails every checkpoint in progress: the job failed.
func (c *coordinator) abortAll(now des.Time, reason string) {
	ids := make([]int64, 0, len(c.pending))
	for id := range c.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	c.release(now) // the sources stay stopped: the job is going down
	for _, id := range ids {
		ck := c.pending[id]
		c.s.eng.Cancel(ck.timeout)
		ck.stats.Status = CheckpointFailed
		ck.stats.Reason = reason
		ck.stats.EndToEnd = ms6(now - ck.trigger)
		c.finish(now, ck)
		c.sum.Failed++
		c.s.emit(Event{Type: EventCheckpointFailed, Checkpoint: id, Message: fmt.Sprintf("checkpoint %d aborted: %s", id, reason)})
	}
}

func (c *coordinator) finish(now des.Time, ck *checkpoint) {
	c.persistedRecs -= ck.recs // no longer in flight
	if ck.stats.Status != CheckpointCompleted {
		c.drop(ck)
	}
	delete(c.pending, ck.id)
	ck.stats.Unaligned = ck.unaligned
	c.lastEnd = now
	if len(c.pending) == 0 && c.busySince >= 0 {
		if w := c.s.warmup; now > w {
			c.busyWin += now - max(c.busySince, w)
		}
		c.busySince = -1
	}
	if c.cfg.Mode == scenario.CheckpointStopTheWorld && c.s.halted {
		c.release(now)
		for _, src := range c.s.sources {
			if src.t.state == stateIdle {
				src.advance(now)
			}
		}
	}
	c.sum.MaxAlignment = max(c.sum.MaxAlignment, ck.stats.Alignment)
	c.sum.MaxStartDelay = max(c.sum.MaxStartDelay, ck.stats.StartDelay)
	c.sum.MaxPersisted = max(c.sum.MaxPersisted, ck.stats.Persisted)
	for _, st := range ck.sub {
		if st.acked {
			ck.stats.SubtaskStats = append(ck.stats.SubtaskStats, st)
		}
	}
	if o, ok := c.s.opts.Observer.(CheckpointObserver); ok {
		o.Checkpoint(&ck.stats)
	}
	if _, streamed := c.s.opts.Observer.(CheckpointObserver); !streamed {
		row := ck.stats
		row.SubtaskStats = nil
		c.stats = append(c.stats, row) // for the Result; an observer got it instead
	}
}

// started notes the first barrier of checkpoint id at subtask t.
func (c *coordinator) started(now des.Time, t *subtask, id int64) {
	if ck := c.pending[id]; ck != nil {
		d := ms6(now - ck.trigger)
		ck.sub[t.gid].StartDelay = d
		ck.stats.StartDelay = max(ck.stats.StartDelay, d)
	}
}

// aligned notes a subtask's alignment time for checkpoint id.
func (c *coordinator) aligned(t *subtask, id int64, d des.Time) {
	if ck := c.pending[id]; ck != nil {
		ck.sub[t.gid].Alignment = ms6(d)
		ck.stats.Alignment = max(ck.stats.Alignment, ms6(d))
	}
}

// alignedSoFar notes the alignment time of a subtask still aligning when
// checkpoint ck ends unfinished.
func (c *coordinator) alignedSoFar(ck *checkpoint, t *subtask, d des.Time) {
	ck.sub[t.gid].Alignment = ms6(d)
	ck.stats.Alignment = max(ck.stats.Alignment, ms6(d))
}

func ms6(d des.Time) float64 { return round6(d.Milliseconds()) }

// emitBarriers writes the pending barriers of a source subtask and
// snapshots it: a source's state is its offset. Aligned barriers wait
// until the source is not holding a record; unaligned ones go at once
// (Flink's SourceStreamTask triggers the checkpoint between two records).
func (src *source) emitBarriers(now des.Time) {
	t := src.t
	c := t.s.ckpt
	for _, id := range src.pendingBarriers {
		ck := c.pending[id]
		if ck == nil {
			continue // timed out meanwhile
		}
		c.started(now, t, id)
		ck.sources[src.seq] = src.snapshot()
		persisted := t.forwardBarrier(now, id, ck)
		t.snapshot(now, ck, persisted)
	}
	src.pendingBarriers = src.pendingBarriers[:0]
}

// cut returns the cut entry of channel c.
func (ck *checkpoint) cut(c *channel) *Cut {
	x := ck.cuts[c]
	if x == nil {
		x = &Cut{From: fmt.Sprintf("%s[%d]", c.from.v.name, c.from.index), To: fmt.Sprintf("%s[%d]", c.to.v.name, c.to.index)}
		ck.cuts[c] = x
	}
	return x
}

// switchToUnaligned turns checkpoint id, started aligned, unaligned once
// aligned_timeout has passed (Flink's
// execution.checkpointing.aligned-checkpoint-timeout): its barriers still
// waiting in output queues overtake the data ahead of them, which is
// persisted; barriers already delivered but queued behind data are taken
// out; subtasks still aligning snapshot at once, persisting the data
// queued on the inputs whose barrier has not come.
func (c *coordinator) switchToUnaligned(now des.Time, id int64) {
	ck := c.pending[id]
	if ck == nil || ck.unaligned {
		return
	}
	ck.unaligned = true
	s := c.s
	for _, src := range s.sources {
		if slices.Contains(src.pendingBarriers, id) {
			src.emitBarriers(now)
		}
	}
	for _, t := range s.subtasks {
		if t.barriers != nil && !t.down {
			t.barriers.alignmentTimeout(now, ck)
		}
	}
	// barriers waiting for credit behind data: they overtake it
	for _, t := range s.subtasks {
		for _, p := range t.outs {
			for _, ch := range p.chans {
				for i := 0; i < ch.backlog.len(); i++ {
					b := ch.backlog.at(i)
					if b.barrierID() != id {
						continue
					}
					for j := 0; j < i; j++ {
						if d := ch.backlog.at(j); d.isBuffer() {
							ck.persist(ck.chanState, ch.to.gid, d.recs...)
							ck.extra[ch.to.gid] += d.bytes
						}
					}
					ch.removeBacklogged(i)
					ch.sendPriority(now, b)
					break
				}
			}
		}
	}
}

// CheckpointColumns are the columns of checkpoints.csv.
var CheckpointColumns = []string{"checkpoint_id", "trigger_time_s", "status", "end_to_end_duration_ms",
	"start_delay_max_ms", "alignment_max_ms", "sync_max_ms", "async_max_ms", "checkpointed_size_bytes",
	"full_state_size_bytes", "persisted_in_flight_bytes", "unaligned", "acknowledged_subtasks", "subtasks", "failure_reason"}

// WriteCheckpointsCSV writes checkpoints.csv: one row per checkpoint that
// completed or failed, in the order they ended.
func WriteCheckpointsCSV(w io.Writer, stats []CheckpointStats) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CheckpointColumns); err != nil {
		return err
	}
	for _, c := range stats {
		if err := cw.Write([]string{strconv.FormatInt(c.ID, 10), num(c.TriggerS), c.Status, num(c.EndToEnd),
			num(c.StartDelay), num(c.Alignment), num(c.Sync), num(c.Async), strconv.FormatInt(c.StateSize, 10),
			strconv.FormatInt(c.FullSize, 10), strconv.FormatInt(c.Persisted, 10), strconv.FormatBool(c.Unaligned),
			strconv.Itoa(c.Acked), strconv.Itoa(c.Subtasks), c.Reason}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CheckpointSubtaskColumns are the columns of checkpoint_subtasks.csv.
var CheckpointSubtaskColumns = []string{"checkpoint_id", "status", "vertex", "subtask", "acknowledged_s",
	"start_delay_ms", "alignment_ms", "sync_ms", "async_ms", "checkpointed_size_bytes", "persisted_in_flight_bytes"}

// WriteCheckpointSubtaskRows writes the rows of checkpoint_subtasks.csv for
// checkpoint c: one per subtask that acknowledged it. Write the header
// (CheckpointSubtaskColumns) first.
func WriteCheckpointSubtaskRows(cw *csv.Writer, c *CheckpointStats) error {
	for _, st := range c.SubtaskStats {
		if err := cw.Write([]string{strconv.FormatInt(c.ID, 10), c.Status, st.Vertex, strconv.Itoa(st.Subtask), num(st.AckS),
			num(st.StartDelay), num(st.Alignment), num(st.Sync), num(st.Async),
			strconv.FormatInt(st.StateSize, 10), strconv.FormatInt(st.Persisted, 10)}); err != nil {
			return err
		}
	}
	return nil
}
