package tui

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// Snapshot is what the view shows of a run at one instant: a copy made on
// the simulation's goroutine and never changed afterwards, so the UI reads
// it without locks.
type Snapshot struct {
	// Gen counts the restarts before this run (r).
	Gen int
	// Now is the simulated time reached; Duration the scenario's.
	Now, Duration des.Time
	// State is running, paused, finished or stopped.
	State RunState
	// Speed is the chosen speed in simulated seconds per wall second; 0 is
	// as fast as possible. WallSpeed is the speed achieved lately (0 when
	// unknown, and always in the test mode, whose clock is the test's).
	Speed, WallSpeed float64
	// SampleTime ends the last metrics interval (0: no sample yet).
	SampleTime des.Time
	// Vertices hold the rows averaged over the samples of the last
	// SmoothWindow of simulated time (Smoothed of it, less at the start),
	// as Flink's web UI averages its back-pressure and busy-time figures:
	// rates and busy, idle and back-pressured time are weighted by each
	// sample's interval, the status follows the averaged back-pressured
	// time; levels (queues, lag, drops, state) and latencies are the last
	// sample's. Instant holds the last sample's rows as they are. Both are
	// in topological order.
	Vertices, Instant []VertexState
	// Smoothed is the simulated time Vertices average over (0 before the
	// first sample): SmoothWindow, or less since SmoothedSince.
	Smoothed des.Time
	// SmoothedSince says where averages shorter than SmoothWindow begin:
	// "the start" of the run, or "the failover" and "the restart" of the
	// job, at which the averages begin again (as the job's figures do).
	SmoothedSince string
	// Throughput (records/s into the sinks) and P99 (the largest p99
	// latency of the sinks, ms) over the last minute of simulated time up
	// to SampleTime, in HistoryBuckets buckets, oldest first; NaN where
	// nothing was measured yet.
	Throughput, P99 []float64
	// Delivery is the simulator's delivery accounting (sim.Sim.Delivery,
	// which walks the records in flight: taken once per snapshot): records
	// emitted, delivered, duplicated, lost, replayed.
	Delivery sim.DeliverySummary
	// Recovery is the job's state (running, restarting, failed, lost), its
	// failures and restarts so far (sim.Sim.Recovery).
	Recovery sim.RecoverySummary
	// DownWorkers are the workers that failed while the job runs on: their
	// subtasks are down until the JobManager notices (after the heartbeat
	// timeout) and fails the job over. Oldest failure first.
	DownWorkers []WorkerDown
	// Events are the latest lines of the event log, oldest first: what
	// happened to the job (failures, restarts, recoveries, failed
	// checkpoints, status changes, actions), not the checkpoints that
	// went well (Checkpoints has them).
	Events []LogLine
	// Checkpoints are the latest checkpoints, oldest first.
	Checkpoints []CheckpointMark
	// Watermarks are every vertex's watermarks now and the input
	// channels of its subtasks' watermark valves (sim.Sim.Watermarks),
	// in topological order, for a job with event time; nil for a job
	// without, which has no watermark pane.
	Watermarks []sim.VertexWatermarks
	// Partitions are the topics' partitions per reader at SampleTime
	// (the last sample's, partitions.csv's rows), for a job reading
	// topics; nil without, or before the first sample.
	Partitions []sim.PartitionSample
	// Counters names the counter columns of the run (sim.Sample.Counters)
	// that the rows' Counters hold, such as a queue's queue_depth; nil
	// without.
	Counters []string
	// Err says why the run stopped (State stopped), or "".
	Err string
}

// RunState says whether the simulation advances.
type RunState int

// Run states.
const (
	Running  RunState = iota // advancing at Speed
	Paused                   // waiting for space or s
	Finished                 // reached its duration
	Stopped                  // stopped early by an error (a limit, a failed trace)
)

// String returns the state in words: "running", "paused", "finished" or
// "stopped".
func (s RunState) String() string {
	switch s {
	case Running:
		return "running"
	case Paused:
		return "paused"
	case Finished:
		return "finished"
	}
	return "stopped"
}

// VertexState is one vertex in the last sample.
type VertexState struct {
	sim.Row             // the vertex as a whole (Subtask -1)
	Subtasks  []sim.Row // by subtask index
	HaveTotal bool      // the row was sampled (false before the first sample)
}

// LogLine is one line of the event log.
type LogLine struct {
	Time    des.Time
	Type    string // a sim event type, or LogError for an action refused
	Vertex  string
	To      string // new status of a status change
	Message string
}

// LogError is the type of a log line that reports an action the simulator
// refused (such as a failure of a job that has failed for good).
const LogError = "error"

// WorkerDown is a worker that failed at Since.
type WorkerDown struct {
	Worker int
	Since  des.Time
}

// JobDown says whether no subtask of the job runs: it is restarting, or
// failed or lost for good.
func (s *Snapshot) JobDown() bool {
	return s.Recovery.JobState != "" && s.Recovery.JobState != sim.JobRunning
}

// Down says whether the subtasks of worker w are down: the job is down, or
// w failed and the job runs on without it.
func (s *Snapshot) Down(w int) bool {
	if s.JobDown() {
		return true
	}
	for _, d := range s.DownWorkers {
		if d.Worker == w {
			return true
		}
	}
	return false
}

// CheckpointInProgress is the status of a checkpoint that has not ended.
const CheckpointInProgress = "in_progress"

// CheckpointMark is one checkpoint on the timeline.
type CheckpointMark struct {
	ID int64
	// Trigger is when it was triggered; End when it completed or failed
	// (0 while in progress).
	Trigger, End des.Time
	// Status is CheckpointInProgress, sim.CheckpointCompleted or
	// sim.CheckpointFailed (timed out or aborted).
	Status string
	// Message is the simulator's line on its end ("checkpoint 4
	// completed in 3.882s (alignment up to ...)").
	Message string
}

// HistoryWindow is how much simulated time the sparklines cover, in
// HistoryBuckets buckets.
const (
	HistoryWindow  = 60 * des.Second
	HistoryBuckets = 60
)

// SmoothWindow is the simulated time over which the live view averages
// a vertex's rates and busy, idle and back-pressured time (Flink's web UI
// averages its back-pressure samples similarly).
const SmoothWindow = 10 * des.Second

// maxLogLines bounds the event log kept (and handed over) per run.
const maxLogLines = 200

// sampleRows is the rows of one metrics sample, kept for the average.
type sampleRows struct {
	t, dt des.Time
	rows  []sim.Row
}

// point is one metrics interval of the sparklines.
type point struct {
	t        des.Time
	dt       des.Time
	thr, p99 float64
}

// collector is the sim.Observer of the live view. It runs on the
// simulation's goroutine, keeps the last sample and a minute of history,
// and builds snapshots on demand; per sample it only copies rows.
type collector struct {
	g        graph
	rows     []sim.Row    // the last sample
	recent   []sampleRows // the samples of the last SmoothWindow, oldest first (rows[len-1] is rows)
	have     bool
	sampleAt des.Time
	hist     []point // oldest first, from hist[head:]
	head     int
	events   []LogLine             // ring of at most maxLogLines
	ckpts    []CheckpointMark      // at most maxLogLines, oldest first
	jobDown  bool                  // failed over (restarting), failed or lost
	since    string                // where the averages begin: Snapshot.SmoothedSince
	down     []WorkerDown          // failed workers not noticed yet
	parts    []sim.PartitionSample // the last sample's partitions
	counters []string              // the run's counter columns (sim.Sample.Counters)
}

func newCollector(g graph) *collector { return &collector{g: g} }

// reset forgets everything: the run starts again.
func (c *collector) reset() {
	c.rows, c.have, c.sampleAt = c.rows[:0], false, 0
	c.recent = c.recent[:0]
	c.hist, c.head = c.hist[:0], 0
	c.events, c.ckpts = nil, nil
	c.jobDown, c.down = false, nil
	c.since = ""
	c.parts = c.parts[:0]
}

// Sample implements sim.Observer.
func (c *collector) Sample(s *sim.Sample) {
	c.rows = append(c.rows[:0], s.Rows...)
	c.parts = append(c.parts[:0], s.Partitions...)
	c.counters = s.Counters
	c.have, c.sampleAt = true, s.Time
	// keep the samples that end after SmoothWindow before this one,
	// reusing the row slices of those that leave
	drop := 0
	for drop < len(c.recent) && c.recent[drop].t <= s.Time-SmoothWindow {
		drop++
	}
	var reuse []sim.Row
	if drop > 0 {
		reuse = c.recent[0].rows[:0]
	}
	n := copy(c.recent, c.recent[drop:])
	c.recent = append(c.recent[:n], sampleRows{t: s.Time, dt: s.Interval, rows: append(reuse, s.Rows...)})
	thr, p99 := 0.0, math.NaN()
	for i := range s.Rows {
		r := &s.Rows[i]
		if r.Kind != sim.KindSink || r.Subtask != -1 {
			continue
		}
		thr += r.InRate
		if !math.IsNaN(r.LatencyP99) && (math.IsNaN(p99) || r.LatencyP99 > p99) {
			p99 = r.LatencyP99
		}
	}
	c.hist = append(c.hist, point{t: s.Time, dt: s.Interval, thr: thr, p99: p99})
	for c.head < len(c.hist) && c.hist[c.head].t <= s.Time-HistoryWindow {
		c.head++
	}
	if c.head > 1024 && c.head > len(c.hist)/2 {
		c.hist = append(c.hist[:0], c.hist[c.head:]...)
		c.head = 0
	}
}

// Event implements sim.Observer: checkpoints go to the timeline, failures
// and recoveries change which subtasks are down, and everything but the
// checkpoints that went well goes to the event log.
func (c *collector) Event(e sim.Event) {
	switch e.Type {
	case sim.EventCheckpointTriggered:
		c.checkpoint(e.Checkpoint, e.Time)
		return
	case sim.EventCheckpointCompleted, sim.EventCheckpointFailed:
		m := c.checkpoint(e.Checkpoint, e.Time)
		m.End, m.Message, m.Status = e.Time, e.Message, sim.CheckpointFailed
		if e.Type == sim.EventCheckpointCompleted {
			m.Status = sim.CheckpointCompleted
			return
		}
	case sim.EventFailure:
		if w, ok := failedWorker(e.Message); ok && !c.jobDown && !slices.ContainsFunc(c.down, func(d WorkerDown) bool { return d.Worker == w }) {
			c.down = append(c.down, WorkerDown{Worker: w, Since: e.Time})
		}
	case sim.EventFailureDetected, sim.EventJobFailed, sim.EventJobLost:
		// a global failover: every subtask is cancelled; the averages
		// start again, as the job's figures do
		c.jobDown, c.down = true, nil
		c.recent, c.since = c.recent[:0], "the failover"
	case sim.EventRecoveryCompleted:
		c.jobDown, c.down = false, nil
		c.recent, c.since = c.recent[:0], "the restart"
	}
	c.log(LogLine{Time: e.Time, Type: e.Type, Vertex: e.Vertex, To: e.To, Message: e.Message})
}

// failedWorker returns the worker of a failure event's message, "worker 1
// failed" or "worker 1 (running parse[0]) failed"; false for a task or
// the JobManager.
func failedWorker(msg string) (int, bool) {
	rest, ok := strings.CutPrefix(msg, "worker ")
	if !ok {
		return 0, false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 {
		return 0, false
	}
	w, err := strconv.Atoi(rest[:end])
	return w, err == nil
}

// checkpoint returns the timeline's checkpoint id, added as triggered at
// time t when it is not there.
func (c *collector) checkpoint(id int64, t des.Time) *CheckpointMark {
	for i := len(c.ckpts) - 1; i >= 0; i-- {
		if c.ckpts[i].ID == id {
			return &c.ckpts[i]
		}
	}
	if len(c.ckpts) >= maxLogLines {
		c.ckpts = append(c.ckpts[:0], c.ckpts[len(c.ckpts)-maxLogLines/2:]...)
	}
	c.ckpts = append(c.ckpts, CheckpointMark{ID: id, Trigger: t, Status: CheckpointInProgress})
	return &c.ckpts[len(c.ckpts)-1]
}

// log adds a line to the event log.
func (c *collector) log(l LogLine) {
	c.events = append(c.events, l)
	if len(c.events) > maxLogLines {
		c.events = append(c.events[:0:0], c.events[len(c.events)-maxLogLines/2:]...)
	}
}

// snapshot copies what the view needs, with the simulator's delivery
// accounting and job state.
func (c *collector) snapshot(d sim.DeliverySummary, r sim.RecoverySummary) *Snapshot {
	s := &Snapshot{SampleTime: c.sampleAt, Delivery: d, Recovery: r}
	s.Instant = c.vertexStates(c.rows)
	avg, span := c.averaged()
	s.Vertices, s.Smoothed = c.vertexStates(avg), span
	if span < SmoothWindow {
		s.SmoothedSince = cmp.Or(c.since, "the start")
	}
	s.Throughput, s.P99 = c.buckets()
	s.Events = append([]LogLine(nil), c.events...)
	s.Checkpoints = append([]CheckpointMark(nil), c.ckpts...)
	if len(c.parts) > 0 {
		s.Partitions = append([]sim.PartitionSample(nil), c.parts...)
	}
	s.Counters = c.counters // the run's, the same every sample: not written to
	if r.JobState == sim.JobRunning {
		s.DownWorkers = append([]WorkerDown(nil), c.down...)
	}
	return s
}

// vertexStates groups rows of a sample (each vertex's subtasks, then its
// total) by vertex, in the graph's order; without a sample, every vertex
// is OK with nothing measured.
func (c *collector) vertexStates(rows []sim.Row) []VertexState {
	vs := make([]VertexState, len(c.g.vertices))
	for i, v := range c.g.vertices {
		vs[i].Vertex, vs[i].Kind, vs[i].Subtask = v.name, v.kind, -1
		vs[i].Status = sim.StatusOK
	}
	if !c.have {
		return vs
	}
	vi, start := 0, 0
	for i := range rows {
		r := rows[i]
		if r.Subtask != -1 {
			continue
		}
		for vi < len(vs) && vs[vi].Vertex != r.Vertex {
			vi++
		}
		if vi == len(vs) {
			break
		}
		vs[vi].Row = r
		vs[vi].HaveTotal = true
		vs[vi].Subtasks = append([]sim.Row(nil), rows[start:i]...)
		start = i + 1
	}
	return vs
}

// averaged returns the last sample's rows with their rates and busy,
// idle, back-pressured and down time averaged over the samples of the last
// SmoothWindow, weighted by their intervals, and the status of each
// following the averaged back-pressured time; and the time averaged over.
// The rows of an operator's total (Subtask -1) take the maximum over its
// subtasks of the averaged times, as the simulator's totals do, so that a
// subtask busy all the time shows as the vertex's busy time.
func (c *collector) averaged() ([]sim.Row, des.Time) {
	if !c.have || len(c.recent) == 0 {
		return c.rows, 0
	}
	n := len(c.rows)
	out := append([]sim.Row(nil), c.rows...)
	for i := range out {
		out[i].InRate, out[i].OutRate, out[i].Busy, out[i].Idle, out[i].Backpressured, out[i].Down = 0, 0, 0, 0, 0, 0
	}
	var span des.Time
	for _, smp := range c.recent {
		if len(smp.rows) != n {
			continue // another layout (cannot happen within a run)
		}
		w := smp.dt.Seconds()
		span += smp.dt
		for i := range out {
			r := &smp.rows[i]
			out[i].InRate += w * r.InRate
			out[i].OutRate += w * r.OutRate
			out[i].Busy += w * r.Busy
			out[i].Idle += w * r.Idle
			out[i].Backpressured += w * r.Backpressured
			out[i].Down += w * r.Down
		}
	}
	if span <= 0 {
		return c.rows, 0
	}
	sec := span.Seconds()
	first := 0 // the first subtask row of the current vertex
	for i := range out {
		r := &out[i]
		r.InRate, r.OutRate = r.InRate/sec, r.OutRate/sec
		r.Busy, r.Idle, r.Backpressured, r.Down = r.Busy/sec, r.Idle/sec, r.Backpressured/sec, r.Down/sec
		// a subtask or vertex down in the last sample stays DOWN: it is
		// not running now, whatever the average
		down := c.rows[i].Status == sim.StatusDown
		if r.Subtask != -1 {
			if !down {
				r.Status = sim.Status(r.Backpressured / 1000)
			}
			continue
		}
		// the vertex: the most of any subtask, as sim's totals are
		if i > first {
			r.Busy, r.Idle, r.Backpressured, r.Down = 0, math.Inf(1), 0, 0
			for _, st := range out[first:i] {
				r.Busy, r.Idle, r.Backpressured = max(r.Busy, st.Busy), min(r.Idle, st.Idle), max(r.Backpressured, st.Backpressured)
				r.Down = max(r.Down, st.Down)
			}
		}
		if !down {
			r.Status = sim.Status(r.Backpressured / 1000)
		}
		first = i + 1
	}
	return out, span
}

// buckets averages the throughput and takes the largest p99 of the last
// minute of samples into HistoryBuckets buckets ending at the last sample;
// an empty bucket repeats the one before it.
func (c *collector) buckets() (thr, p99 []float64) {
	thr = make([]float64, HistoryBuckets)
	p99 = make([]float64, HistoryBuckets)
	sumT := make([]float64, HistoryBuckets)
	sumW := make([]float64, HistoryBuckets)
	for i := range thr {
		thr[i], p99[i] = math.NaN(), math.NaN()
	}
	if !c.have {
		return thr, p99
	}
	width := HistoryWindow / HistoryBuckets
	from := c.sampleAt - HistoryWindow
	for _, p := range c.hist[c.head:] {
		b := int((p.t - from - 1) / width) // a sample ends its interval: (from, from+width] is bucket 0
		if b < 0 || b >= HistoryBuckets {
			continue
		}
		w := p.dt.Seconds()
		sumT[b] += p.thr * w
		sumW[b] += w
		if !math.IsNaN(p.p99) && (math.IsNaN(p99[b]) || p.p99 > p99[b]) {
			p99[b] = p.p99
		}
	}
	seen := false
	for b := range thr {
		if sumW[b] > 0 {
			thr[b] = sumT[b] / sumW[b]
			seen = true
		} else if seen && b > 0 {
			thr[b] = thr[b-1]
			if math.IsNaN(p99[b]) {
				p99[b] = p99[b-1]
			}
		}
	}
	return thr, p99
}
