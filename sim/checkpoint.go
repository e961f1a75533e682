package sim

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Checkpoint statuses.
const (
	CheckpointCompleted = "completed"
	CheckpointTimedOut  = "timed_out"
)

// Event types of checkpoints.
const (
	EventCheckpointTriggered = "checkpoint_triggered"
	EventCheckpointCompleted = "checkpoint_completed"
	EventCheckpointFailed    = "checkpoint_failed"
)

// CheckpointStats is one checkpoint as Flink's checkpoint monitoring shows
// it (one row of checkpoints.csv). Times are simulated; durations in
// milliseconds.
type CheckpointStats struct {
	ID       int64   `json:"checkpoint_id"`
	TriggerS float64 `json:"trigger_time_s"`
	Status   string  `json:"status"` // completed or timed_out
	// EndToEnd is from the trigger to the last acknowledgement (to the
	// timeout for a checkpoint that timed out).
	EndToEnd float64 `json:"end_to_end_duration_ms"`
	// StartDelay is the longest time from the trigger until a subtask
	// received its first barrier (a back-pressured source emits its
	// barrier only once its record in hand is written).
	StartDelay float64 `json:"start_delay_max_ms"`
	// Alignment is the longest time a subtask spent between its first and
	// its last barrier, its earlier inputs blocked meanwhile.
	Alignment float64 `json:"alignment_max_ms"`
	Acked     int     `json:"acknowledged_subtasks"`
	Subtasks  int     `json:"subtasks"`
}

// CheckpointSummary sums up the checkpoints of a run (summary.json).
type CheckpointSummary struct {
	Mode      string  `json:"mode"`
	IntervalS float64 `json:"interval_s"`
	TimeoutS  float64 `json:"timeout_s"`
	Triggered int     `json:"triggered"`
	Completed int     `json:"completed"`
	Failed    int     `json:"failed"`
	// InProgress were triggered and had neither completed nor failed when
	// the run ended (they have no row in checkpoints.csv).
	InProgress int `json:"in_progress"`
	// LastDuration and MaxDuration are null when none completed.
	LastDuration  *float64 `json:"last_completed_duration_ms"`
	MaxDuration   *float64 `json:"max_completed_duration_ms"`
	MaxAlignment  float64  `json:"max_alignment_ms"`
	MaxStartDelay float64  `json:"max_start_delay_ms"`
}

// coordinator is the checkpoint coordinator of the JobManager: it triggers
// checkpoints at the sources, collects the acknowledgements of every
// subtask and times checkpoints out. Barriers flow with the records, so
// under back-pressure they queue behind buffered data: aligned checkpoints
// then take long and may time out, as Flink's do (asynchronous barrier
// snapshotting, Carbone et al. 2015; "Checkpointing under back-pressure",
// Flink documentation).
type coordinator struct {
	s           *Sim
	cfg         scenario.Checkpointing
	nextID      int64
	pending     map[int64]*checkpoint
	lastTrigger des.Time
	lastEnd     des.Time
	armed       bool
	stats       []CheckpointStats
	sum         CheckpointSummary
}

type checkpoint struct {
	stats   CheckpointStats
	trigger des.Time
	timeout des.EventID
}

func newCoordinator(s *Sim, cfg scenario.Checkpointing) *coordinator {
	c := &coordinator{s: s, cfg: cfg, pending: map[int64]*checkpoint{}, lastTrigger: -cfg.Interval}
	c.sum = CheckpointSummary{Mode: cfg.Mode, IntervalS: cfg.Interval.Seconds(), TimeoutS: cfg.Timeout.Seconds()}
	c.arm(cfg.Interval)
	return c
}

// Event args of the coordinator: 0 checks whether a trigger is due; a
// positive arg times that checkpoint out.
func (c *coordinator) HandleEvent(now des.Time, arg int64) {
	if arg > 0 {
		c.timeOut(now, arg)
		return
	}
	c.armed = false
	c.tryTrigger(now)
}

func (c *coordinator) arm(at des.Time) {
	if !c.armed && at <= c.s.duration {
		c.armed = true
		c.s.eng.Schedule(max(at, c.s.eng.Now()), c, 0)
	}
}

// tryTrigger triggers a checkpoint when one is due: an interval after the
// last trigger, min_pause after the last end, fewer than max_concurrent in
// progress. Otherwise it waits for the earliest of those moments.
func (c *coordinator) tryTrigger(now des.Time) {
	due := max(c.lastTrigger+c.cfg.Interval, c.lastEnd+c.cfg.MinPause)
	switch {
	case len(c.pending) >= max(c.cfg.MaxConcurrent, 1):
		return // the end of one calls tryTrigger again
	case now < due:
		c.arm(due)
		return
	}
	c.trigger(now)
	c.arm(now + c.cfg.Interval)
}

// trigger starts checkpoint n at the sources.
func (c *coordinator) trigger(now des.Time) int64 {
	c.nextID++
	id := c.nextID
	ck := &checkpoint{trigger: now, stats: CheckpointStats{ID: id, TriggerS: round6(now.Seconds()), Subtasks: len(c.s.subtasks)}}
	c.pending[id] = ck
	c.lastTrigger = now
	c.sum.Triggered++
	ck.timeout = c.s.eng.After(c.cfg.Timeout, c, id)
	c.s.emit(Event{Type: EventCheckpointTriggered, Checkpoint: id, Message: fmt.Sprintf("checkpoint %d triggered", id)})
	for _, src := range c.s.sources {
		src.t.pendingBarriers = append(src.t.pendingBarriers, id)
		if src.t.state != stateBP {
			src.t.emitBarriers(now)
		}
	}
	return id
}

// ack records that subtask t has snapshotted its state for checkpoint id.
func (c *coordinator) ack(now des.Time, t *subtask, id int64) {
	ck := c.pending[id]
	if ck == nil {
		return
	}
	ck.stats.Acked++
	if ck.stats.Acked < ck.stats.Subtasks {
		return
	}
	c.s.eng.Cancel(ck.timeout)
	ck.stats.Status = CheckpointCompleted
	ck.stats.EndToEnd = ms6(now - ck.trigger)
	c.finish(now, id, ck)
	c.sum.Completed++
	d := ck.stats.EndToEnd
	c.sum.LastDuration = &d
	if c.sum.MaxDuration == nil || d > *c.sum.MaxDuration {
		m := d
		c.sum.MaxDuration = &m
	}
	c.s.emit(Event{Type: EventCheckpointCompleted, Checkpoint: id, Message: fmt.Sprintf("checkpoint %d completed in %s (alignment up to %s, start delay up to %s)",
		id, FormatTime(now-ck.trigger), FormatTime(des.Time(ck.stats.Alignment*1e6)), FormatTime(des.Time(ck.stats.StartDelay*1e6)))})
	c.tryTrigger(now)
}

// timeOut fails checkpoint id: subtasks still aligning for it give up and
// unblock their inputs; its barriers still in flight are ignored.
func (c *coordinator) timeOut(now des.Time, id int64) {
	ck := c.pending[id]
	if ck == nil {
		return
	}
	ck.stats.Status = CheckpointTimedOut
	ck.stats.EndToEnd = ms6(now - ck.trigger)
	c.finish(now, id, ck)
	c.sum.Failed++
	for _, t := range c.s.subtasks {
		if t.aligning == id {
			t.endAlignment(now)
			if t.state == stateIdle {
				t.pull(now) // its unblocked inputs may hold records
			}
		}
	}
	c.s.emit(Event{Type: EventCheckpointFailed, Checkpoint: id, Message: fmt.Sprintf("checkpoint %d timed out after %s: %d of %d subtasks acknowledged (barriers wait behind buffered records under back-pressure)",
		id, FormatTime(c.cfg.Timeout), ck.stats.Acked, ck.stats.Subtasks)})
	c.tryTrigger(now)
}

func (c *coordinator) finish(now des.Time, id int64, ck *checkpoint) {
	delete(c.pending, id)
	c.lastEnd = now
	c.sum.MaxAlignment = max(c.sum.MaxAlignment, ck.stats.Alignment)
	c.sum.MaxStartDelay = max(c.sum.MaxStartDelay, ck.stats.StartDelay)
	c.stats = append(c.stats, ck.stats)
}

// started notes the first barrier of checkpoint id at a subtask.
func (c *coordinator) started(now des.Time, id int64) {
	if ck := c.pending[id]; ck != nil {
		ck.stats.StartDelay = max(ck.stats.StartDelay, ms6(now-ck.trigger))
	}
}

// aligned notes a subtask's alignment time for checkpoint id.
func (c *coordinator) aligned(id int64, d des.Time) {
	if ck := c.pending[id]; ck != nil {
		ck.stats.Alignment = max(ck.stats.Alignment, ms6(d))
	}
}

func ms6(d des.Time) float64 { return round6(d.Milliseconds()) }

// emitBarriers writes the pending barriers of a source subtask (it is
// not holding a record) and acknowledges them: a source's snapshot is its
// offset.
func (t *subtask) emitBarriers(now des.Time) {
	for _, id := range t.pendingBarriers {
		if t.s.ckpt.pending[id] == nil {
			continue // timed out meanwhile
		}
		t.s.ckpt.started(now, id)
		t.forwardBarrier(now, id)
		t.s.ckpt.ack(now, t, id)
	}
	t.pendingBarriers = t.pendingBarriers[:0]
}

// forwardBarrier writes barrier id into every output channel, after the
// records already written (the current buffer is flushed first).
func (t *subtask) forwardBarrier(now des.Time, id int64) {
	for _, p := range t.outs {
		for _, c := range p.chans {
			if c.cur != nil && len(c.cur.recs) > 0 {
				p.finish(now, c)
			}
			b := t.s.newBuffer()
			b.barrier = id
			c.backlog.push(b)
			c.trySend(now)
		}
	}
}

// onBarrier handles barrier id read from input channel c (aligned mode):
// the channel is blocked until the barrier has come on every input; then
// the subtask snapshots, forwards the barrier and acknowledges.
func (t *subtask) onBarrier(now des.Time, c *channel, id int64) {
	ck := t.s.ckpt
	if ck == nil || ck.pending[id] == nil || id < t.aligning {
		return // an old or timed-out checkpoint's barrier
	}
	if t.aligning != id {
		if t.aligning != 0 {
			t.endAlignment(now) // a newer checkpoint overtook the old one
		}
		t.aligning, t.barriersSeen, t.alignStart = id, 0, now
		ck.started(now, id)
	}
	t.barriersSeen++
	if t.barriersSeen < len(t.gate.chans) {
		c.blocked = true
		return
	}
	ck.aligned(id, now-t.alignStart)
	t.endAlignment(now)
	t.forwardBarrier(now, id)
	ck.ack(now, t, id)
}

// endAlignment unblocks every input channel.
func (t *subtask) endAlignment(now des.Time) {
	t.aligning, t.barriersSeen = 0, 0
	g := t.gate
	for _, c := range g.chans {
		if c.blocked {
			c.blocked = false
			if c.queue.len() > 0 && !c.inAvail {
				c.inAvail = true
				g.avail.push(c)
			}
		}
	}
}

// triggerCheckpoint triggers a checkpoint now (the live view's `c`).
func (s *Sim) triggerCheckpoint() error {
	if s.ckpt == nil {
		return fmt.Errorf("checkpointing is off in this scenario (add checkpoint: {mode: aligned, interval: ...})")
	}
	if len(s.ckpt.pending) >= max(s.ckpt.cfg.MaxConcurrent, 1) {
		return errors.New("a checkpoint is already in progress (max_concurrent)")
	}
	s.ckpt.trigger(s.eng.Now())
	return nil
}

// CheckpointColumns are the columns of checkpoints.csv.
var CheckpointColumns = []string{"checkpoint_id", "trigger_time_s", "status", "end_to_end_duration_ms",
	"start_delay_max_ms", "alignment_max_ms", "acknowledged_subtasks", "subtasks"}

// WriteCheckpointsCSV writes checkpoints.csv: one row per checkpoint that
// completed or failed, in the order they ended.
func WriteCheckpointsCSV(w io.Writer, stats []CheckpointStats) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CheckpointColumns); err != nil {
		return err
	}
	for _, c := range stats {
		if err := cw.Write([]string{strconv.FormatInt(c.ID, 10), num(c.TriggerS), c.Status, num(c.EndToEnd),
			num(c.StartDelay), num(c.Alignment), strconv.Itoa(c.Acked), strconv.Itoa(c.Subtasks)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
