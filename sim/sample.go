package sim

import (
	"math"

	"github.com/dspalab/dspalab/sim/des"
)

// Back-pressure statuses, by the back-pressured ratio of Flink's web UI:
// OK <= 0.10 < LOW <= 0.50 < HIGH. StatusDown replaces them in
// timeseries.csv for a subtask that is not running at the end of the
// interval (its worker lost, or the job restarting: Flink's execution is
// not RUNNING and its web UI shows no back-pressure for it), and for a
// vertex with such a subtask, as the live view shows them.
const (
	StatusOK   = "OK"
	StatusLow  = "LOW"
	StatusHigh = "HIGH"
	StatusDown = "DOWN"
)

// setDown takes subtask t down (failed, or the job restarting) or brings
// it back at now, accounting the time it is down.
func (t *subtask) setDown(now des.Time, down bool) {
	switch {
	case down && !t.down:
		t.downAt = now
	case !down && t.down:
		t.addDown(now)
	}
	t.down = down
}

// addDown moves the time down since downAt into the interval and window
// accumulators.
func (t *subtask) addDown(now des.Time) {
	if now <= t.downAt {
		return
	}
	t.ivDown += now - t.downAt
	if w := t.s.warmup; now > w {
		t.winDown += now - max(t.downAt, w)
	}
	t.downAt = now
}

// Status returns the back-pressure status of a back-pressured ratio in
// [0, 1].
func Status(backpressuredRatio float64) string {
	switch {
	case backpressuredRatio > 0.50:
		return StatusHigh
	case backpressuredRatio > 0.10:
		return StatusLow
	default:
		return StatusOK
	}
}

// Sample holds the metrics of one interval that ended at Time.
type Sample struct {
	Time     des.Time     // end of the interval
	Interval des.Duration // its length (the last one may be shorter)
	Rows     []Row        // per subtask, then the vertex as a whole (Subtask -1), in topological order
	// EventTime is true for a job with event time (watermarks or
	// windows): its rows have EventTime filled in, and timeseries.csv
	// has the EventTimeColumns.
	EventTime bool
	// Graph is true for a job with streaming-graph operators: their rows
	// have Graph filled in, and timeseries.csv has the GraphColumns.
	Graph bool
	// Shedding is true for a job with load shedding: the rows of the
	// vertices that shed have Shed filled in, and timeseries.csv has the
	// ShedColumns.
	Shedding bool
	// Counters names the counter columns of the run (counters.go), which
	// follow the GraphColumns in timeseries.csv; none without.
	Counters []string
	// Partitions are the topics' partitions per reader at Time (a job
	// reading topics; partitions.go), the rows of partitions.csv.
	Partitions []PartitionSample
	// Groups is true for a run with consumer groups: their members' rows
	// (Kind KindConsumer) follow the vertices', with Group filled in,
	// and timeseries.csv has the GroupColumns.
	Groups bool
}

// Row is one line of timeseries.csv: one subtask, or a whole vertex when
// Subtask is -1. For a vertex, busy, back-pressured and down time are the
// maximum over its subtasks and idle time the minimum (as Flink's web UI
// shows a vertex), so they need not sum to 1000; rates and queues are sums.
type Row struct {
	Vertex  string
	Kind    string
	Subtask int
	// InRate and OutRate are records per simulated second taken from the
	// input and written to the output during the interval.
	InRate, OutRate float64
	// QueuedRecords and QueuedBuffers are waiting in the input gate (and,
	// for a source that buffers, in its buffer) at the end of the interval.
	QueuedRecords int
	QueuedBuffers int
	// Busy, Idle and Backpressured are milliseconds per simulated second
	// (busyTimeMsPerSecond and its siblings); Down the milliseconds per
	// second the subtask was not running (its worker lost, or the job
	// restarting), which are none of the three. They sum to 1000 per
	// subtask. Status is the back-pressure status, or StatusDown.
	Busy, Idle, Backpressured, Down float64
	Status                          string
	// Latency percentiles in milliseconds, from the record's entry into the
	// job to the end of its processing at this vertex, over the interval;
	// NaN when no record left the vertex. Filled for vertex rows only.
	LatencyP50, LatencyP90, LatencyP99, LatencyMax float64
	// SourceLag is the consumer lag of a replayable source in records;
	// Dropped the records a non-replayable source dropped so far. Sources only.
	SourceLag int64
	Dropped   uint64
	// StateBytes is the keyed state held at the end of the interval, in
	// bytes (operators; 0 when stateless).
	StateBytes int64
	// EventTime holds the event-time metrics of a job with event time
	// (watermark_summary.go).
	EventTime RowEventTime
	// Graph holds the counts of a graph operator (graph_operator.go).
	Graph RowGraph
	// Shed holds the load shedding of a source or an operator that sheds
	// (shed.go): records shed so far and the shed rate.
	Shed RowShed
	// Counters are the row's counts so far of Sample.Counters, NoCount
	// where its vertex has none of a column's mechanism; nil when the run
	// has no counter columns.
	Counters []int64
	// Group holds a consumer group member's partitions and duplicates
	// (consumer_group.go); its lag is SourceLag.
	Group RowGroup
}

// takeSample closes the current metrics interval.
func (s *Sim) takeSample(now des.Time) {
	dt := now - s.lastSample
	if dt <= 0 {
		return
	}
	sec := dt.Seconds()
	smp := &s.sample
	smp.Time, smp.Interval = now, dt
	smp.Rows = smp.Rows[:0]
	nan := math.NaN()
	// a chained operator shows its task's times (operator_chain.go),
	// taken before any subtask's interval is reset, and once every
	// subtask is accounted up to now: a chain's head comes before its
	// chained operators, whose time since their last change of state is
	// its task's too
	for _, t := range s.subtasks {
		t.account(now)
		if t.down {
			t.addDown(now)
		}
	}
	s.taskIv = s.taskIv[:0]
	for _, t := range s.subtasks {
		b, i, bp := s.taskTimes(t, false)
		s.taskIv = append(s.taskIv, [3]des.Time{b, i, bp})
	}
	for _, v := range s.vertices {
		vr := Row{Vertex: v.name, Kind: v.kind, Subtask: -1, Idle: math.Inf(1),
			LatencyP50: nan, LatencyP90: nan, LatencyP99: nan, LatencyMax: nan}
		vdown, ndown := false, 0
		for _, t := range v.subtasks {
			t.touchN(now)
			r := Row{Vertex: v.name, Kind: v.kind, Subtask: t.index,
				InRate: float64(t.ivIn()) / sec, OutRate: float64(t.ivOut()) / sec,
				Busy:          msPerS(s.taskIv[t.gid][0], dt),
				Idle:          msPerS(s.taskIv[t.gid][1], dt),
				Backpressured: msPerS(s.taskIv[t.gid][2], dt),
				Down:          msPerS(t.ivDown, dt),
				LatencyP50:    nan, LatencyP90: nan, LatencyP99: nan, LatencyMax: nan}
			r.Status = Status(r.Backpressured / 1000)
			if t.down {
				r.Status = StatusDown
				vdown, ndown = true, ndown+1
			}
			if t.gate != nil {
				r.QueuedRecords, r.QueuedBuffers = t.gate.queuedRecs, t.gate.queuedBufs
			}
			if t.keyed != nil {
				r.StateBytes = t.keyed.bytes()
			}
			if v.shed != nil {
				v.shed.sample(t.index, &r.Shed, sec)
				vr.Shed.On = true
				vr.Shed.Records += r.Shed.Records
				vr.Shed.Rate += r.Shed.Rate
			}
			if src := t.asSource(); src != nil {
				r.QueuedRecords = src.queued()
				r.SourceLag = int64(src.lag(now))
				r.Dropped = src.dropped
			}
			t.iv = [4]des.Time{}
			t.ivDown = 0
			t.resetIv()
			smp.Rows = append(smp.Rows, r)
			vr.InRate += r.InRate
			vr.OutRate += r.OutRate
			vr.QueuedRecords += r.QueuedRecords
			vr.QueuedBuffers += r.QueuedBuffers
			vr.Busy = max(vr.Busy, r.Busy)
			vr.Idle = min(vr.Idle, r.Idle)
			vr.Backpressured = max(vr.Backpressured, r.Backpressured)
			vr.Down = max(vr.Down, r.Down)
			vr.SourceLag += r.SourceLag
			vr.Dropped += r.Dropped
			vr.StateBytes += r.StateBytes
		}
		vr.Status = Status(vr.Backpressured / 1000)
		bpStatus := vr.Status // events follow back-pressure, not failures
		if vdown {
			vr.Status = StatusDown
		}
		if h := v.ivLat; h.Count() > 0 {
			vr.LatencyP50 = h.Quantile(0.50).Milliseconds()
			vr.LatencyP90 = h.Quantile(0.90).Milliseconds()
			vr.LatencyP99 = h.Quantile(0.99).Milliseconds()
			vr.LatencyMax = h.Max().Milliseconds()
		}
		if now > s.warmup {
			v.winLat.Merge(v.ivLat)
			s.observeHalves(v, now)
		}
		v.ivLat.Reset()
		smp.Rows = append(smp.Rows, vr)
		// the status is the task's (every vertex of a chain has its
		// times): its head says so once, in the chain's name
		if bpStatus != v.status && v.pv.Task.Head() == v.pv {
			ev := vr
			ev.Status = bpStatus
			s.emit(Event{Type: EventStatusChanged, Vertex: v.name, From: v.status, To: bpStatus,
				Message: statusMessage(v.pv.Task.Name, ev, ndown, len(v.subtasks))})
		}
		v.status = bpStatus
	}
	if smp.Groups {
		s.sampleGroups(smp, now)
	}
	s.lastSample = now
	if s.fo != nil {
		s.fo.caughtUp(now)
	}
	if !s.warmedUp && s.warmup > 0 && now >= s.warmup {
		s.warmedUp = true
		s.emit(Event{Type: EventWarmupEnded, Message: "statistics start at " + FormatTime(s.warmup)})
	}
	if smp.EventTime {
		s.sampleEventTime(smp, now)
	}
	if smp.Graph {
		s.sampleGraphs(smp)
	}
	if len(s.counters) > 0 {
		s.sampleCounters(smp)
	}
	if len(s.plan.Topics) > 0 {
		s.samplePartitions(smp, now)
	}
	if s.opts.Observer != nil {
		s.opts.Observer.Sample(smp)
	}
}

func msPerS(d, interval des.Time) float64 {
	return 1000 * float64(d) / float64(interval)
}
