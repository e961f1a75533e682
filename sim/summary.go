package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Result is the outcome of a run.
type Result struct {
	Summary Summary
	// Checkpoints are the checkpoints that completed or failed, in the
	// order they ended (checkpoints.csv); nil without checkpoints.
	Checkpoints []CheckpointStats
}

// Summary is summary.json: the statistics of a run over its window
// [warmup, end]. Ratios are fractions of the window in [0, 1]; rates are
// records per simulated second; latencies are milliseconds of simulated
// time.
type Summary struct {
	Scenario    string  `json:"scenario"`
	Description string  `json:"description,omitempty"`
	Seed        uint64  `json:"seed"`
	DurationS   float64 `json:"duration_s"`
	WarmupS     float64 `json:"warmup_s"`
	// SimulatedS is the simulated time reached (less than DurationS when
	// the run was stopped).
	SimulatedS float64 `json:"simulated_s"`
	// Partial is true when the run was stopped before its duration; the
	// statistics cover what was simulated.
	Partial       bool            `json:"partial"`
	PartialReason string          `json:"partial_reason,omitempty"`
	Window        Window          `json:"window"`
	Totals        Totals          `json:"totals"`
	Vertices      []VertexSummary `json:"vertices"`
	// Tasks are the job's tasks, operator chains as Flink's web UI shows
	// its job vertices ("enrich -> out"); a vertex that is not chained is
	// a task of its own.
	Tasks []TaskSummary `json:"tasks"`
	// Trends are the sinks whose p99 latency differs between the two
	// halves of the window by more than a margin: the window still shows
	// a trend (a start-up transient, a failure, a growing backlog).
	Trends    []Trend   `json:"trends"`
	Diagnosis Diagnosis `json:"diagnosis"`
	// Checkpoints sums up the checkpoints (absent without checkpoints).
	Checkpoints *CheckpointSummary `json:"checkpoints,omitempty"`
	// Delivery counts records against the ids the sources emitted
	// (absent without a Flink job: producers and consumer groups only,
	// whose duplicates their groups count).
	Delivery *DeliverySummary `json:"delivery,omitempty"`
	// Recovery sums up the job's failures and restarts (absent without a
	// Flink job: a consumer's failure is its group's rebalance).
	Recovery *RecoverySummary `json:"recovery,omitempty"`
	// EventTime is the event-time progress (absent without watermarks
	// and windows; watermark_summary.go).
	EventTime *EventTimeSummary `json:"event_time,omitempty"`
	// Graphs are the results of the streaming-graph operators (absent
	// without them; graph_operator.go).
	Graphs []GraphSummary `json:"graphs,omitempty"`
	// Topics are the scenario's topics per partition and reader (absent
	// without topics; topic.go).
	Topics []TopicSummary `json:"topics,omitempty"`
	// Queues are the message queues at the end (queue_source.go).
	Queues []QueueSummary `json:"queues,omitempty"`
	// ConsumerGroups are the consumer groups outside the job: members,
	// rebalances, duplicates (absent without; consumer_group.go).
	ConsumerGroups []ConsumerGroupSummary `json:"consumer_groups,omitempty"`
}

// TaskSummary is one task: an operator chain (plan.Task), whose vertices
// run in one thread per subtask. Busy and back-pressured time belong to
// the task, as Flink's busyTimeMsPerSecond and backPressuredTimeMsPerSecond
// do: each of its vertices shows the same figures (VertexSummary), and
// the records in and out and the latencies stay the vertices' own, as
// Flink's per-operator numRecordsIn and numRecordsOut.
type TaskSummary struct {
	// Name is the chain's name as Flink's web UI shows it: "enrich -> out",
	// the vertex's name for a task of one vertex.
	Name string `json:"name"`
	// Kind is the task's kind as one node of the job graph: its head's
	// for a source, "sink" when no edge leaves the task (its records all
	// end in chained sinks), "operator" otherwise (plan.Task.Kind).
	Kind string `json:"kind"`
	// Vertices are the names of the chained vertices, the head first.
	Vertices    []string `json:"vertices"`
	Parallelism int      `json:"parallelism"`
	// Figures are the task's: InRate the head's input (0 for a source),
	// OutRate the records its vertices write to edges out of the task (0
	// when they all end in sinks), busy and back-pressured time the
	// task's thread's (Flink's busyTimeMsPerSecond and
	// backPressuredTimeMsPerSecond are task metrics).
	Figures
	// Subtasks are the task's subtasks, by index: what each thread did
	// (the head's input, the outputs that leave the task, busy, idle,
	// back-pressured and down time, status).
	Subtasks []SubtaskFigures `json:"subtasks"`
	leaves   bool             // some edge leaves the task (OutRate is meant)
}

// Figures are the rates, times and status that a vertex (VertexSummary)
// and a task (TaskSummary) both show, as Flink's web UI shows them for a
// job vertex; embedded, their JSON fields are the vertex's and the task's
// own.
type Figures struct {
	// InRate and OutRate are records per simulated second, summed over
	// the subtasks.
	InRate  float64 `json:"in_rate_rps"`
	OutRate float64 `json:"out_rate_rps"`
	// Busy and Backpressured are the maximum over subtasks (as Flink's web
	// UI shows a vertex); BusyMean the mean. Status is the back-pressure
	// status of Backpressured (see Status).
	Busy          float64 `json:"busy_ratio"`
	BusyMean      float64 `json:"busy_ratio_mean"`
	Backpressured float64 `json:"backpressured_ratio"`
	Status        string  `json:"status"`
}

// Window is the span the statistics cover, in simulated seconds.
type Window struct {
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`
}

// Totals count records over the whole run (warmup included).
type Totals struct {
	Emitted   uint64 `json:"records_emitted"`   // written by sources, every emission (replays included)
	Delivered uint64 `json:"records_delivered"` // reached the sinks, every write (replays and duplicates included): the records line's "reached the sinks"
	Dropped   uint64 `json:"records_dropped"`   // dropped by non-replayable sources
	InFlight  uint64 `json:"records_in_flight"` // emitted and neither delivered nor filtered
	SourceLag uint64 `json:"source_lag_records"`
	Events    uint64 `json:"events"` // kernel events fired
}

// VertexSummary holds one vertex's statistics over the window.
type VertexSummary struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Task is the name of the task (operator chain) the vertex runs in
	// (TaskSummary.Name); its busy and back-pressured figures are the
	// task's.
	Task        string `json:"task"`
	Parallelism int    `json:"parallelism"`
	Figures
	// Latency from entry into the job to the end of processing here, in ms;
	// null when no record left the vertex in the window.
	LatencyMean *float64 `json:"latency_mean_ms"`
	LatencyP50  *float64 `json:"latency_p50_ms"`
	LatencyP90  *float64 `json:"latency_p90_ms"`
	LatencyP99  *float64 `json:"latency_p99_ms"`
	LatencyMax  *float64 `json:"latency_max_ms"`
	RecordsIn   uint64   `json:"records_in"`
	RecordsOut  uint64   `json:"records_out"`
	// BackpressuredOn splits the back-pressured time by output edge: the
	// receiving vertex and the share of the window spent waiting for its
	// buffers (maximum over subtasks). BackpressuredLostWorker is the
	// share of the window the most back-pressured subtask spent waiting
	// for subtasks of a lost worker the JobManager had not noticed yet
	// (part of Backpressured; the diagnosis leaves it out of its search
	// for a bottleneck and says so).
	BackpressuredOn         map[string]float64 `json:"backpressured_on,omitempty"`
	BackpressuredLostWorker float64            `json:"backpressured_lost_worker_ratio,omitempty"`
	// Dropped and SourceLag for sources (records).
	Dropped   uint64 `json:"dropped_records,omitempty"`
	SourceLag uint64 `json:"source_lag_records,omitempty"`
	// Shed counts the records the load shedding of a source or an
	// operator dropped over the run (shed.go); ShedFraction is Shed over
	// the records that came to it: read by the source, or taken from the
	// operator's input (processed + shed).
	Shed         uint64           `json:"shed_records,omitempty"`
	ShedFraction float64          `json:"shed_fraction,omitempty"`
	Subtasks     []SubtaskSummary `json:"subtasks"`
}

// SubtaskSummary holds one subtask's statistics over the window.
// QueueMean (L), Throughput (λ) and SojournMean (W) describe the subtask
// as a queue (input queue plus service) and obey Little's law L = λW.
type SubtaskSummary struct {
	// SubtaskFigures are the subtask's rates and its task's times: a
	// chained operator shows the busy, idle, back-pressured and down time
	// of the task it runs in (one thread).
	SubtaskFigures
	RecordsIn   uint64  `json:"records_in"`
	RecordsOut  uint64  `json:"records_out"`
	QueueMean   float64 `json:"queue_records_mean"`
	Throughput  float64 `json:"throughput_rps"`
	SojournMean float64 `json:"sojourn_ms_mean"`
}

// SubtaskFigures are the placement, rates, times and status of one
// subtask of a vertex (SubtaskSummary) or of a task (TaskSummary).
// Rates are records per simulated second; times are shares of the
// window.
type SubtaskFigures struct {
	Index         int     `json:"index"`
	Worker        int     `json:"worker"`
	InRate        float64 `json:"in_rate_rps"`
	OutRate       float64 `json:"out_rate_rps"`
	Busy          float64 `json:"busy_ratio"`
	Idle          float64 `json:"idle_ratio"`
	Backpressured float64 `json:"backpressured_ratio"`
	// Down is the share of the window the subtask was not running (its
	// worker lost, or the job restarting); busy, idle, back-pressured and
	// down sum to 1.
	Down   float64 `json:"down_ratio"`
	Status string  `json:"status"`
}

// Diagnosis names the bottleneck, if any, with the evidence.
type Diagnosis struct {
	// Kind is one of the Diagnosis* constants: "bottleneck", "skew" (one
	// subtask of the bottleneck is busy, its siblings are not), "network",
	// "intermittent", "overloaded" (a queue grows without flow control,
	// or a chained source falls behind), "saturated" (nearly always busy,
	// nothing back-pressured) or "none".
	Kind     string   `json:"kind"`
	Vertex   string   `json:"vertex,omitempty"`
	Subtask  *int     `json:"subtask,omitempty"`
	Message  string   `json:"message"`
	Evidence []string `json:"evidence"`
}

// ConsumersOnly reports whether the run had no Flink job, producers and
// consumer groups only: no vertices, and consumer groups (their lag and
// duplicates are its figures, and it has no delivery or recovery).
func (s *Summary) ConsumersOnly() bool { return len(s.Vertices) == 0 && len(s.ConsumerGroups) > 0 }

// Result finishes the run where it stands and summarises it. It may be
// called once the simulation has reached its duration or has been stopped.
func (s *Sim) Result() *Result {
	now := s.eng.Now()
	partial := now < s.duration
	if now > s.lastSample {
		s.takeSample(now)
	}
	stopped := ""
	if partial {
		stopped = StoppedText(s.stopped, now, s.duration)
		s.emit(Event{Type: EventRunStopped, Message: stopped + "; the outputs are partial"})
	} else {
		s.emit(Event{Type: EventRunFinished, Message: "finished at " + FormatTime(now)})
	}
	from := min(s.warmup, now)
	win := now - from // empty when stopped inside the warmup
	sum := Summary{
		Scenario: s.sc.Name, Description: s.sc.Description, Seed: s.sc.Seed,
		DurationS: s.duration.Seconds(), WarmupS: s.warmup.Seconds(), SimulatedS: now.Seconds(),
		Partial: partial, Window: Window{FromS: from.Seconds(), ToS: now.Seconds()},
	}
	if partial {
		sum.PartialReason = stopped
		if win == 0 {
			sum.PartialReason += "; inside the warmup, so there are no statistics yet"
		}
	}
	winSec := win.Seconds()
	if winSec <= 0 {
		winSec = math.Inf(1) // rates of an empty window are 0
	}
	ratio := func(d des.Time) float64 {
		if win <= 0 {
			return 0
		}
		return round6(float64(d) / float64(win))
	}
	bpNoFailure := map[string]float64{}
	bpDown := map[string]float64{} // of the most back-pressured subtask: waiting for a lost worker
	onNoFailure := map[string]map[string]float64{}
	for _, v := range s.vertices {
		vs := VertexSummary{Name: v.name, Kind: v.kind, Task: v.pv.Task.Name, Parallelism: v.parallelism, Subtasks: []SubtaskSummary{}}
		for _, t := range v.subtasks {
			if t.down {
				t.addDown(now)
			}
			t.settleBP()
			busy, idle, bp := s.taskTimes(t, true) // a chained operator shows its task's
			ss := SubtaskSummary{SubtaskFigures: SubtaskFigures{Index: t.index, Worker: t.worker,
				InRate: round6(float64(t.winIn()) / winSec), OutRate: round6(float64(t.winOut()) / winSec),
				Busy: ratio(busy), Idle: ratio(idle), Backpressured: ratio(bp),
				Down: ratio(t.winDown)}}
			ss.Status = Status(ss.Backpressured)
			ss.RecordsIn, ss.RecordsOut = t.totIn, t.totOut
			if src := t.asSource(); src != nil {
				ss.RecordsOut = src.emits
			}
			if t.gate != nil && winSec > 0 {
				ss.QueueMean = round6(t.area / float64(win))
				ss.Throughput = round6(float64(t.departed) / winSec)
				if t.departed > 0 {
					ss.SojournMean = round6(t.sojourn / float64(t.departed) / float64(des.Millisecond))
				}
			}
			vs.Subtasks = append(vs.Subtasks, ss)
			vs.InRate += ss.InRate
			vs.OutRate += ss.OutRate
			vs.Busy = max(vs.Busy, ss.Busy)
			vs.BusyMean += ss.Busy / float64(v.parallelism)
			if ss.Backpressured >= vs.Backpressured {
				bpDown[v.name] = ratio(t.winBPDown)
			}
			vs.Backpressured = max(vs.Backpressured, ss.Backpressured)
			bpNoFailure[v.name] = max(bpNoFailure[v.name], ratio(bp-t.winBPDown))
			for k, p := range t.outs {
				if d := t.bpOut[k]; d > 0 {
					if vs.BackpressuredOn == nil {
						vs.BackpressuredOn = map[string]float64{}
					}
					vs.BackpressuredOn[p.edge.to.name] = max(vs.BackpressuredOn[p.edge.to.name], ratio(d))
				}
				if d := t.bpOut[k] - t.bpOutDown[k]; d > 0 {
					if onNoFailure[v.name] == nil {
						onNoFailure[v.name] = map[string]float64{}
					}
					onNoFailure[v.name][p.edge.to.name] = max(onNoFailure[v.name][p.edge.to.name], ratio(d))
				}
			}
			vs.RecordsIn += ss.RecordsIn
			vs.RecordsOut += ss.RecordsOut
			if src := t.asSource(); src != nil {
				vs.Dropped += src.dropped
				vs.SourceLag += src.lag(now)
			}
		}
		if v.shed != nil {
			shed, came := v.shedCounts()
			vs.Shed, vs.ShedFraction = shed, shedFraction(shed, came)
		}
		vs.InRate, vs.OutRate, vs.BusyMean = round6(vs.InRate), round6(vs.OutRate), round6(vs.BusyMean)
		vs.Status = Status(vs.Backpressured)
		if h := v.winLat; h.Count() > 0 {
			mean := round6(h.Mean() / float64(des.Millisecond))
			vs.LatencyMean = &mean
			vs.LatencyP50 = ms(h.Quantile(0.50))
			vs.LatencyP90 = ms(h.Quantile(0.90))
			vs.LatencyP99 = ms(h.Quantile(0.99))
			vs.LatencyMax = ms(h.Max())
		}
		sum.Vertices = append(sum.Vertices, vs)
		if v.kind == KindSource {
			sum.Totals.Emitted += vs.RecordsOut
			sum.Totals.Dropped += vs.Dropped
			sum.Totals.SourceLag += vs.SourceLag
		}
	}
	s.chainBackpressure(sum.Vertices, onNoFailure)
	sum.Tasks = s.taskSummaries(sum.Vertices)
	sum.Totals.Delivered = s.delivered
	sum.Trends = s.trends()
	sum.Totals.InFlight = s.inFlight()
	sum.Totals.Events = s.eng.Fired()
	if win > 0 {
		// the diagnosis looks for a bottleneck: the time senders waited
		// for a failed worker's subtasks is not its doing
		// for a bottleneck, but says so: it never denies the table
		diag := append([]VertexSummary(nil), sum.Vertices...)
		fail := make([]float64, len(diag))
		for i := range diag {
			diag[i].Backpressured = bpNoFailure[diag[i].Name]
			diag[i].BackpressuredOn = onNoFailure[diag[i].Name]
			diag[i].Status = Status(diag[i].Backpressured)
			fail[i] = bpDown[diag[i].Name]
			sum.Vertices[i].BackpressuredLostWorker = fail[i]
		}
		sum.Diagnosis = diagnose(s, diag, sum.Vertices, fail)
	} else {
		sum.Diagnosis = Diagnosis{Kind: DiagnosisNone, Evidence: []string{},
			Message: fmt.Sprintf("no statistics yet: the run stopped at %s, inside the warmup (%s)", FormatTime(now), FormatTime(s.warmup))}
	}
	res := &Result{Summary: sum}
	if len(s.vertices) > 0 {
		res.Summary.Delivery = s.deliverySummary()
		res.Summary.Recovery = s.fo.summary(now)
	} else {
		res.Summary.Vertices = []VertexSummary{} // an empty list, not null
	}
	res.Summary.Graphs = s.graphSummaries()
	res.Summary.Topics = s.topicSummaries(now)
	res.Summary.ConsumerGroups = s.groupSummaries(now, win.Seconds())
	diagnoseGroups(&res.Summary)
	s.diagnoseTopics(&res.Summary)
	res.Summary.Queues = s.queueSummaries(now)
	s.diagnoseQueues(&res.Summary)
	if win > 0 {
		s.diagnoseShedding(&res.Summary)
	}
	if r := res.Summary.Recovery; r != nil && r.Failures > 0 && win > 0 {
		d := &res.Summary.Diagnosis
		// the recovery line's words, so that the two never disagree
		note := fmt.Sprintf("the job failed (%s) and was %s: these statistics include the downtime and the catch-up after each restart, when back-pressure comes from replaying the backlog",
			plural.Count(r.Failures, "failure"), downtimeText(r))
		if !r.SourcesReplayable {
			note = fmt.Sprintf("the job failed (%s) and was %s: these statistics include the downtime; no source is replayable, so a restart leaves no backlog to catch up with",
				plural.Count(r.Failures, "failure"), downtimeText(r))
		}
		if fo := r.unnoticed(); fo != nil {
			note = fmt.Sprintf("the job failed (%s) and was %s: %s, so its subtasks are down and the job has not failed over yet; these statistics include that downtime",
				plural.Count(r.Failures, "failure"), downtimeText(r), strings.TrimSuffix(s.fo.lostWorkersText(), " and not yet noticed")+" at "+seconds(fo.FailedS)+" and not noticed by the end")
		}
		d.Evidence = append(d.Evidence, note)
		switch {
		case r.JobState == JobFailed || r.JobState == JobLost:
			d.Message = r.Message + "; before that: " + d.Message
		case d.Kind != DiagnosisNone:
			d.Message += fmt.Sprintf(" (but the job failed: %s; the back-pressure may come from subtasks that were down or from the catch-up, see the evidence)", plural.Count(r.Failures, "failure"))
		}
	}
	if stoppedByJob(s.stopped) && win > 0 {
		// the job or a run limit ended the run (a worker out of memory
		// at a restore, a bad edge file, --max-memory): that comes
		// before any bottleneck
		d := &res.Summary.Diagnosis
		d.Message = fmt.Sprintf("the run stopped early at %s: %s; before that: %s", FormatTime(now), s.stopped.Error(), d.Message)
	}
	if s.ckpt != nil {
		s.ckpt.age(now)
		cs := s.ckpt.sum
		cs.InProgress = len(s.ckpt.pending)
		busy := s.ckpt.busyWin
		if s.ckpt.busySince >= 0 && now > s.warmup {
			busy += now - max(s.ckpt.busySince, s.warmup)
		}
		held := s.ckpt.heldWin
		if s.halted && now > s.warmup {
			held += now - max(s.ckpt.heldSince, s.warmup)
		}
		if win > 0 {
			cs.Overhead = round6(float64(busy) / float64(win))
			cs.SourcesHeld = round6(float64(held) / float64(win))
		}
		res.Summary.Checkpoints = &cs
		res.Checkpoints = append([]CheckpointStats(nil), s.ckpt.stats...)
	}
	res.Summary.EventTime = s.eventTimeSummary(now)
	return res
}

// stoppedByJob tells whether err, the reason a run stopped early, came
// from the simulated job or a run limit (a worker out of memory, a bad
// edge file, Options.MaxMemory) rather than from its caller (an
// interrupt, a time limit, a person quitting: nil).
func stoppedByJob(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// StoppedText says in words how a run stopped early: "interrupted at 13.9s
// of 120s", "stopped at 5s of 120s" (by its caller, e.g. a person quitting
// the live view), "stopped at 1.3s of 60s: <the error>". The micro-batch
// engine says it so too.
func StoppedText(err error, now, duration des.Time) string {
	at := fmt.Sprintf("at %s of %s", FormatTime(now), FormatTime(duration))
	switch {
	case err == nil:
		return "stopped " + at
	case errors.Is(err, context.Canceled):
		return "interrupted " + at
	case errors.Is(err, context.DeadlineExceeded):
		return "stopped " + at + ": time limit reached"
	}
	return "stopped " + at + ": " + err.Error()
}

// inFlight counts records inside the job: in buffers, in service and held
// by blocked writers.
func (s *Sim) inFlight() uint64 {
	var n int64
	for _, t := range s.subtasks {
		if t.asSource() == nil { // a source's record in hand is not emitted yet
			n += int64(len(t.pend) - t.pi)
		}
		if t.state == stateChained {
			n-- // its record in hand is the chained operator's, counted there
		}
		if t.gate != nil {
			n += t.inSys
		}
		for _, p := range t.outs {
			for _, c := range p.chans {
				if c.cur != nil {
					n += int64(len(c.cur.recs))
				}
				for i := 0; i < c.backlog.len(); i++ {
					n += int64(len(c.backlog.buf[(c.backlog.head+i)&(len(c.backlog.buf)-1)].recs))
				}
				for i := 0; i < c.inflight.len(); i++ {
					n += int64(len(c.inflight.buf[(c.inflight.head+i)&(len(c.inflight.buf)-1)].recs))
				}
			}
		}
	}
	if n < 0 {
		n = 0
	}
	return uint64(n)
}

func ms(t des.Time) *float64 {
	v := round6(t.Milliseconds())
	return &v
}

// round6 rounds to 6 decimals so that JSON output is stable and readable.
func round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e6) / 1e6
}

// Thresholds of the diagnosis.
const (
	busyThreshold    = 0.90 // a vertex this busy is saturated
	skewIdleSiblings = 0.50 // siblings of a skewed subtask are busy less than this
	overloadShortage = 0.97 // a vertex taking in less than this share of what its inputs send is over capacity
)

// Diagnosis kinds.
const (
	DiagnosisBottleneck   = "bottleneck"   // a busy vertex holds back back-pressured ones upstream
	DiagnosisSkew         = "skew"         // the bottleneck is one subtask: a hot key
	DiagnosisNetwork      = "network"      // back-pressure ends at a vertex that is not busy, across workers: the channels are the limit
	DiagnosisIntermittent = "intermittent" // back-pressure ends at a vertex that is busy only part of the time
	DiagnosisOverloaded   = "overloaded"   // no back-pressure, but a queue grows: an input queue (capacity: unbounded) or a chained source's lag
	DiagnosisSaturated    = "saturated"    // no back-pressure, but a vertex is nearly always busy
	// a consumer group's member failed: its partitions stalled, or were
	// processed again after the rebalance (a run of consumer groups
	// with nothing else to say)
	DiagnosisConsumerFailure = "consumer-failure"
	DiagnosisNone            = "none"
)

// diagnose reads the summary as Flink's documentation teaches: back-pressure
// ends at the bottleneck, the first vertex downstream of back-pressured ones
// that is busy and not back-pressured itself. Without back-pressure it looks
// for a growing queue, then for a saturated vertex. vs are the vertices
// without the back-pressure that waited for a lost worker's subtasks (not
// noticed yet), shown holds them as the table shows them, and fail[i] is
// the share of the window vertex i waited so: the diagnosis searches vs
// and words what it leaves out, so that it never denies the table.
func diagnose(s *Sim, vs, shown []VertexSummary, fail []float64) Diagnosis {
	idx := map[string]int{}
	for i, v := range vs {
		idx[v.Name] = i
	}
	lost := s.fo.lostWorkersText()
	// bp says how back-pressured vertex i is, as the table shows it, and
	// how much of that waited for a lost worker
	bp := func(i int) string {
		t := "back-pressured " + pct(shown[i].Backpressured)
		if fail[i] >= 0.005 {
			t += fmt.Sprintf(", %s of the window while %s", pct(fail[i]), lost)
		}
		return t
	}
	describe := func(names []string) string {
		parts := make([]string, 0, len(names))
		for _, n := range names {
			i := idx[n]
			parts = append(parts, fmt.Sprintf("%s (%s, %s)", n, shown[i].Status, bp(i)))
		}
		return strings.Join(parts, ", ")
	}
	// the vertices back-pressured in the table only because of a lost
	// worker: the diagnosis says so instead of calling them OK
	var waited []string
	for i := range vs {
		if vs[i].Status == StatusOK && fail[i] >= 0.005 {
			waited = append(waited, fmt.Sprintf("%s is %s, %s", vs[i].Name, shown[i].Status, bp(i)))
		}
	}
	failureNote := ""
	if len(waited) > 0 {
		failureNote = strings.Join(waited, "; ") + ": waiting to send to the dead subtasks, the failure's doing, not a bottleneck's; the diagnosis leaves that time out of its search"
	}

	// follow the back-pressure from the first back-pressured vertex, along
	// the edge it waits on most, to the first vertex that is not
	// back-pressured: there it ends
	if held, end, ok := followBackpressure(vs, idx); ok {
		v := vs[end]
		last := held[len(held)-1]
		d := Diagnosis{Vertex: v.Name, Evidence: []string{
			fmt.Sprintf("%s is busy %s and %s (%s)", v.Name, pct(v.Busy), bp(end), shown[end].Status),
			"held back, each waiting for buffers of the next: " + describe(held)}}
		if failureNote != "" {
			d.Evidence = append(d.Evidence, failureNote)
		}
		switch {
		case v.Busy >= busyThreshold:
			d.Kind = DiagnosisBottleneck
			if !skewed(&d, v) && !keyGroupSkewed(&d, s.vertices[end], v) {
				d.Message = fmt.Sprintf("bottleneck: %s (busy %s, not back-pressured) holds back %s; %s",
					v.Name, pct(v.Busy), andList(held), s.remedy(s.vertices[end], v))
			}
			if note := chainNote(s.vertices[end], v); note != "" {
				d.Evidence = append(d.Evidence, note)
			}
		case skewed(&d, v):
		case hasRemoteInput(s.vertices[end]):
			net := s.vertices[end].net
			d.Kind = DiagnosisNetwork
			d.Message = fmt.Sprintf("the network from %s to %s is the limit: %s waits for buffers, yet %s is busy only %s; look at the edge's bandwidth, latency and buffers",
				last, v.Name, last, v.Name, pct(v.Busy))
			d.Evidence = append(d.Evidence,
				fmt.Sprintf("%s is idle the rest of the time: it waits for records that the channels do not deliver fast enough", v.Name),
				fmt.Sprintf("the edge into %s: latency %s, bandwidth %s between workers, %d exclusive buffers per channel, %d floating per gate, buffer timeout %s",
					v.Name, FormatTime(net.Latency), scenario.FormatBandwidth(net.Bandwidth), net.BuffersPerChannel, net.FloatingBuffers, FormatTime(net.BufferTimeout)))
		default:
			// a local channel delivers at once: pressure that ends at a
			// vertex that is not busy on average came and went
			d.Kind = DiagnosisIntermittent
			d.Message = fmt.Sprintf("back-pressure came and went: %s %s held back part of the time by %s, whose subtasks are busy %s on average over the window; see timeseries.csv for when",
				andList(held), wasWere(len(held)), v.Name, pct(v.BusyMean))
			d.Evidence[0] = fmt.Sprintf("%s's busiest subtask is busy %s and %s (%s): it was the bottleneck while the pressure lasted",
				v.Name, pct(v.Busy), bp(end), shown[end].Status)
		}
		return d
	}
	// no back-pressure: a growing queue (possible without flow control)
	for i, v := range vs {
		offered := 0.0
		for _, e := range s.vertices[i].inputs {
			out := vs[idx[e.from.name]].OutRate
			if e.part == partBroadcast {
				out *= float64(v.Parallelism)
			}
			offered += out
		}
		// a queue grows only behind a saturated server; a shortfall
		// without one is records still in buffers
		if offered > 0 && v.InRate < overloadShortage*offered && v.Busy >= busyThreshold {
			d := Diagnosis{Kind: DiagnosisOverloaded, Vertex: v.Name, Evidence: []string{
				fmt.Sprintf("%s takes in %s records/s while its inputs send %s records/s", v.Name, rateText(v.InRate), rateText(offered)),
				fmt.Sprintf("%s is busy %s; nothing is back-pressured because its input queue is unbounded", v.Name, pct(v.Busy))}}
			rest := ", so its input queue keeps growing"
			if v.Shed > 0 {
				// load shedding drops what it cannot serve from its
				// queue: the queue stays near the threshold, the
				// network's buffers do not fill (shed.go)
				d.Evidence[1] = fmt.Sprintf("%s is busy %s; nothing is back-pressured because it sheds what it cannot serve, so its input queue does not fill", v.Name, pct(v.Busy))
				rest = " and sheds the rest"
			}
			d.Message = fmt.Sprintf("over capacity: %s serves %s of the %s records/s sent to it%s; %s",
				v.Name, rateText(v.InRate), rateText(offered), rest, s.remedy(s.vertices[i], v))
			if failureNote != "" {
				d.Evidence = append(d.Evidence, failureNote)
			}
			skewed(&d, v)
			return d
		}
	}
	for i, v := range vs {
		if v.Kind != KindSource && v.Busy >= busyThreshold {
			d := Diagnosis{Kind: DiagnosisSaturated, Vertex: v.Name,
				Message:  fmt.Sprintf("no back-pressure, but %s is busy %s: it is close to its capacity", v.Name, pct(v.Busy)),
				Evidence: []string{fmt.Sprintf("%s is busy %s and %s", v.Name, pct(v.Busy), bp(i))}}
			if src, ok := chainedSourceBehind(s.vertices[i], vs, idx); ok {
				// the source runs in the same thread: nothing is
				// back-pressured, the source reads less than arrives
				pt := s.vertices[i].pv.Task
				d.Kind = DiagnosisOverloaded
				d.Message = fmt.Sprintf("over capacity: the task %s, one thread, is busy %s, so its source %s reads slower than its records arrive and ends %s behind; %s",
					pt.Name, pct(v.Busy), src.Name, plural.Count(int64(src.SourceLag), "record"), s.remedy(s.vertices[i], v))
				d.Evidence = append(d.Evidence, fmt.Sprintf("%s emits %s records/s and is %s behind at the end (source lag): in a chain a slow operator holds back its source without back-pressure",
					src.Name, rateText(src.OutRate), plural.Count(int64(src.SourceLag), "record")))
			}
			if note := chainNote(s.vertices[i], v); note != "" {
				d.Evidence = append(d.Evidence, note)
			}
			if failureNote != "" {
				d.Evidence = append(d.Evidence, failureNote)
			}
			_ = skewed(&d, v) || keyGroupSkewed(&d, s.vertices[i], v)
			return d
		}
	}
	// a source that reads at its max_rate nearly all the time and ends
	// behind: reading is the limit (what it reads from, a log or a
	// queue, keeps growing), not anything downstream
	for _, v := range vs {
		if v.Kind == KindSource && v.Busy >= busyThreshold && v.SourceLag > 0 {
			d := Diagnosis{Kind: DiagnosisOverloaded, Vertex: v.Name,
				Message: fmt.Sprintf("over capacity: the source %s is busy %s reading at its max_rate and ends %s behind, so what it reads from keeps growing; raise its max_rate or its parallelism",
					v.Name, pct(v.Busy), plural.Count(int64(v.SourceLag), "record")),
				Evidence: []string{fmt.Sprintf("%s emits %s records/s and is busy %s: reading a record takes 1/max_rate of busy time, and nothing downstream is back-pressured or saturated", v.Name, rateText(v.OutRate), pct(v.Busy))}}
			if failureNote != "" {
				d.Evidence = append(d.Evidence, failureNote)
			}
			return d
		}
	}
	busiest := ""
	b := -1.0
	for _, v := range vs {
		if v.Kind != KindSource && v.Busy > b {
			busiest, b = v.Name, v.Busy
		}
	}
	msg := "no bottleneck: nothing is back-pressured beyond OK (<= 10%), no queue grows, no vertex is saturated"
	if failureNote != "" {
		msg = "no bottleneck: " + strings.Join(waited, "; ") + ": the failure's doing; apart from that nothing is back-pressured beyond OK (<= 10%), no queue grows, no vertex is saturated"
	}
	if busiest != "" {
		msg += fmt.Sprintf(" (the busiest, %s, is busy %s)", busiest, pct(b))
	}
	ev := []string{}
	if failureNote != "" {
		ev = append(ev, failureNote)
	}
	return Diagnosis{Kind: DiagnosisNone, Message: msg, Evidence: ev}
}

// chainedSourceBehind returns the source at the head of vx's task when
// vx runs chained with it and the source ended at least a second of its
// records behind its arrivals (source lag over its emitted rate): the
// chain's thread, busy with the operators, reads the source too slowly.
// Flink's chained source (the SourceOperator at the head of a
// SourceOperatorStreamTask's chain) hands each record to the chained
// operators in its own thread, so a slow operator shows as a source that
// falls behind (consumer lag on a log), never as back-pressure.
func chainedSourceBehind(vx *vertex, vs []VertexSummary, idx map[string]int) (VertexSummary, bool) {
	pt := vx.pv.Task
	if !pt.Chained() {
		return VertexSummary{}, false
	}
	i, ok := idx[pt.Vertices[0].Name]
	if !ok || vs[i].Kind != KindSource {
		return VertexSummary{}, false
	}
	src := vs[i]
	return src, src.SourceLag > 0 && float64(src.SourceLag) >= src.OutRate
}

// wasWere is the verb for n subjects: "was" or "were".
func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c".
func andList(names []string) string { return joinList(names, "and") }

// joinList joins items as "a, b CONJ c".
func joinList(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// followBackpressure starts at the first back-pressured vertex (in
// topological order) and follows, from each back-pressured vertex, the
// output edge it spent most time waiting on, until a vertex that is not
// back-pressured. It returns the back-pressured vertices passed and the
// index of that last vertex.
func followBackpressure(vs []VertexSummary, idx map[string]int) (held []string, end int, ok bool) {
	cur := -1
	for i, v := range vs {
		if v.Status != StatusOK {
			cur = i
			break
		}
	}
	for cur >= 0 && len(held) <= len(vs) {
		held = append(held, vs[cur].Name)
		next, most := "", 0.0
		for to, r := range vs[cur].BackpressuredOn {
			if r > most || (r == most && to < next) {
				next, most = to, r
			}
		}
		if next == "" {
			return nil, 0, false
		}
		n := idx[next]
		if vs[n].Status == StatusOK {
			return held, n, true
		}
		cur = n
	}
	return nil, 0, false
}

// hasRemoteInput reports whether a channel into v crosses workers.
func hasRemoteInput(v *vertex) bool {
	for _, t := range v.subtasks {
		if t.gate == nil {
			return false
		}
		for _, c := range t.gate.chans {
			if c.remote {
				return true
			}
		}
	}
	return false
}

// skewed turns d into a skew diagnosis when one subtask of v is busy and
// its siblings mostly idle: a hot key, which more parallelism does not fix.
func skewed(d *Diagnosis, v VertexSummary) bool {
	if v.Parallelism < 2 {
		return false
	}
	// busy while running: a failure's downtime is no subtask's idleness
	up := make([]SubtaskSummary, len(v.Subtasks))
	for i, st := range v.Subtasks {
		up[i] = st
		if run := 1 - st.Down; st.Down > 0 && run > 0.05 {
			up[i].Busy = st.Busy / run
		}
	}
	hot, others := hottest(up)
	if up[hot].Busy < busyThreshold || others >= skewIdleSiblings {
		return false
	}
	d.Kind = DiagnosisSkew
	d.Subtask = &hot
	share := ""
	if v.InRate > 0 {
		share = fmt.Sprintf("it takes %s of %s's records (an even share is %s) and ", pct(v.Subtasks[hot].InRate/v.InRate), v.Name, pct(1/float64(v.Parallelism)))
	}
	running := ""
	if v.Subtasks[hot].Down > 0 {
		running = fmt.Sprintf(" of the time it ran (down %s of the window)", pct(v.Subtasks[hot].Down))
	}
	d.Evidence = append(d.Evidence, fmt.Sprintf("subtask %d is busy %s%s while its %d siblings average %s busy: the keys are skewed",
		hot, pct(up[hot].Busy), running, v.Parallelism-1, pct(others)))
	d.Message = fmt.Sprintf("skew: %s subtask %d is the bottleneck: %sis busy %s%s, its siblings %s: a hot key; more parallelism will not help, since one key stays on one subtask; split the hot key (salt it and aggregate twice) or pre-aggregate before the keyBy",
		v.Name, hot, share, pct(up[hot].Busy), running, pct(others))
	return true
}

// keyGroupSkewed turns d into a skew diagnosis when v's hash input splits
// its key groups (max parallelism) unevenly over the subtasks and the
// load follows: the subtasks owning one key group more are busy, the
// others not (p = 170 over 256 key groups: 86 own 2, 84 own 1). More
// parallelism helps only once every subtask owns as many key groups
// (Flink's KeyGroupRangeAssignment; its docs advise a max parallelism
// with many divisors).
func keyGroupSkewed(d *Diagnosis, vx *vertex, v VertexSummary) bool {
	var e *plan.Edge
	for _, in := range vx.inputs {
		if in.part == partHash && in.plan != nil {
			e = in.plan
			break
		}
	}
	p := v.Parallelism
	if e == nil || p < 2 || len(v.Subtasks) != p || e.MaxParallelism%p == 0 {
		return false
	}
	m := e.MaxParallelism
	few := m / p // key groups of the subtasks that own fewer; the others own few+1
	var nMany, nFew int
	var busyMany, busyFew float64
	for i, st := range v.Subtasks {
		if a, b := e.KeyGroups(i); b-a > few {
			nMany++
			busyMany += st.Busy
		} else {
			nFew++
			busyFew += st.Busy
		}
	}
	if nMany == 0 || nFew == 0 {
		return false
	}
	busyMany /= float64(nMany)
	busyFew /= float64(nFew)
	if busyMany < busyThreshold || busyFew >= busyThreshold {
		return false
	}
	d.Kind = DiagnosisSkew
	d.Subtask = nil
	d.Evidence = append(d.Evidence,
		fmt.Sprintf("%s's %d key groups (max parallelism %d) split unevenly over its %d subtasks: %d own %d each (%s of the keys), %d own %d (%s)",
			v.Name, m, m, p, nMany, few+1, pctPrec(float64(few+1)/float64(m)), nFew, few, pctPrec(float64(few)/float64(m))),
		fmt.Sprintf("the %d with %d key groups are busy %s on average, the %d with %d %s: the load follows the key groups",
			nMany, few+1, pct(busyMany), nFew, few, pct(busyFew)))
	down, up := divisorsAround(m, p)
	msg := fmt.Sprintf("skew: %s is the bottleneck by its key groups: %d of its %d subtasks own %d of the %d key groups, the other %d own %d, so the first are busy %s and the others %s; more parallelism helps only once every subtask owns as many key groups: set max_parallelism to a multiple of the parallelism (%d gives each subtask %d)",
		v.Name, nMany, p, few+1, m, nFew, few, pct(busyMany), pct(busyFew), (few+1)*p, few+1)
	if down > 0 {
		msg += fmt.Sprintf(", or the parallelism to a divisor of %d (%d: %d key groups each, about the same throughput with %d fewer subtasks", m, down, m/down, p-down)
		if up > 0 {
			msg += fmt.Sprintf("; %d: %d each", up, m/up)
		}
		msg += ")"
	}
	d.Message = msg
	return true
}

// divisorsAround returns the largest divisor of m below p and the
// smallest above it (0 when there is none).
func divisorsAround(m, p int) (down, up int) {
	for q := p - 1; q >= 1; q-- {
		if m%q == 0 {
			down = q
			break
		}
	}
	for q := p + 1; q <= m; q++ {
		if m%q == 0 {
			up = q
			break
		}
	}
	return down, up
}

// pctPrec formats a ratio as a percentage with one decimal below 10%.
func pctPrec(r float64) string {
	if r < 0.1 {
		return fmt.Sprintf("%.1f%%", 100*r)
	}
	return pct(r)
}

func rateText(r float64) string {
	if r >= 100 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'f', 1, 64)
}

// hottest returns the busiest subtask and the mean busy ratio of the others.
func hottest(ss []SubtaskSummary) (int, float64) {
	hot := 0
	for i, s := range ss {
		if s.Busy > ss[hot].Busy {
			hot = i
		}
	}
	if len(ss) < 2 {
		return hot, ss[hot].Busy
	}
	sum := 0.0
	for i, s := range ss {
		if i != hot {
			sum += s.Busy
		}
	}
	return hot, sum / float64(len(ss)-1)
}

func pct(r float64) string { return fmt.Sprintf("%.0f%%", 100*r) }
