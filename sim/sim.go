package sim

import (
	"context"
	"fmt"
	"strings"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Vertex kinds, as they appear in outputs.
const (
	KindSource   = "source"
	KindOperator = "operator"
	KindSink     = "sink"
)

// Observer receives what a run measures while it goes on. Both calls come
// from the goroutine that runs the simulation; a slow observer slows the
// run and changes nothing in it.
type Observer interface {
	// Sample receives the rows of one metrics interval. The Sample and its
	// rows are reused after the call returns: copy what you keep.
	Sample(s *Sample)
	// Event receives run events (status changes, warmup end, run end).
	Event(e Event)
}

// Options tune a run without changing its results.
type Options struct {
	// Observer, if non-nil, receives every sample and event.
	Observer Observer
	// Progress, if non-nil, is called about every 65,536 events with the
	// simulated time reached and the records emitted by sources so far.
	Progress func(now des.Time, emitted uint64)
	// MaxQueued, if positive, stops the run with a *QueueLimitError when
	// the records waiting in the input queues of all subtasks and in the
	// network buffers between them (waiting for credit or on the wire)
	// exceed it
	// (checked about every 65,536 events and at every metrics sample).
	// Without flow control (capacity: unbounded) an overloaded operator's
	// queue grows without bound; this keeps it from exhausting memory
	// (about 100 bytes per queued record, buffers included).
	MaxQueued int64
	// MaxMemory, if positive, stops the run with a *MemoryLimitError when
	// the memory held by what the run accumulates exceeds it, in bytes
	// (checked about every 65,536 events, at every metrics sample and at
	// every checkpoint's trigger): the network buffers between subtasks
	// (waiting for credit or on the wire: huge buffers_per_channel or
	// floating_buffers into a slow network let them pile up), the
	// checkpoints in flight and the
	// latest completed one (their statistics, key-set copies and the
	// in-flight records unaligned ones persist), the rows of ended
	// checkpoints kept for the Result, and the failover log. Unaligned
	// checkpoints that cannot complete (storage too slow for what they
	// persist) pile up so, max_concurrent at a time.
	MaxMemory int64
	// OpenTrace opens the traces of sources whose arrival process is
	// "trace"; required when the scenario has one.
	OpenTrace TraceOpener
	// OpenEdges opens the edge-list files of edge-stream sources
	// (edges.type file); required when the scenario has one.
	OpenEdges EdgeOpener
	// Actions are replayed at their times (At; AtS when At is 0), as
	// recorded by Sim.Actions: the same scenario, seed and actions give the
	// same run.
	Actions []Action
}

// QueueLimitError stops a run whose queued records exceeded
// Options.MaxQueued. The run's result up to that point is still returned.
type QueueLimitError struct {
	At      des.Time // simulated time of the check
	Queued  int64    // records queued over all input gates
	Limit   int64    // Options.MaxQueued
	Vertex  string   // the vertex holding the most queued records
	Largest int64    // records queued at Vertex
	// Network is the records in buffers between subtasks (waiting for
	// credit, or on the wire), counted in Queued; when they are the most,
	// Vertex is "".
	Network int64
}

func (e *QueueLimitError) Error() string {
	if e.Vertex == "" {
		return fmt.Sprintf("at %s, %d records are queued (limit %d), %d of them in network buffers between subtasks: the network is slower than what is sent over it, and buffers_per_channel and floating_buffers give credit for that much",
			FormatTime(e.At), e.Queued, e.Limit, e.Network)
	}
	return fmt.Sprintf("at %s, %d records are queued (limit %d), %d of them at %s: its input grows without bound because records arrive faster than it serves them (with capacity: unbounded there is no back-pressure to slow the sources)",
		FormatTime(e.At), e.Queued, e.Limit, e.Largest, e.Vertex)
}

// MemoryLimitError stops a run whose accumulated memory exceeded
// Options.MaxMemory (see there). The run's result up to that point is
// still returned.
type MemoryLimitError struct {
	At        des.Time // simulated time of the check
	Held      int64    // bytes held
	Limit     int64    // Options.MaxMemory
	InFlight  int      // checkpoints in progress
	Persisted int64    // in-flight records persisted by them
	// NetworkBuffers and NetworkRecords are the buffers between subtasks
	// (waiting for credit or on the wire) and the records in them.
	NetworkBuffers, NetworkRecords int64
	// TopicRecords are the records held by topics that sinks write
	// (topic_log.go).
	TopicRecords int64
	// Failovers are the failovers kept with their statistics and events,
	// CheckpointRows the checkpoints' statistics kept for the outputs.
	Failovers, CheckpointRows int
}

func (e *MemoryLimitError) Error() string {
	msg := fmt.Sprintf("at %s, the run holds about %s (limit %s)", FormatTime(e.At), scenario.FormatByteSize(e.Held), scenario.FormatByteSize(e.Limit))
	var why []string
	if e.InFlight > 0 {
		why = append(why, fmt.Sprintf("%d checkpoints in progress, which persisted %d in-flight records; checkpoints that do not complete pile up (the checkpoint storage is too slow for what they upload, or max_concurrent and the timeout let too many run at once)", e.InFlight, e.Persisted))
	}
	if e.NetworkBuffers*netBufferBytes > e.Held/2 {
		why = append(why, fmt.Sprintf("%d network buffers between subtasks, with %d records: the network is slower than what is sent over it, and buffers_per_channel and floating_buffers give credit for that much", e.NetworkBuffers, e.NetworkRecords))
	}
	if e.TopicRecords*storedRecordBytes > e.Held/2 {
		why = append(why, fmt.Sprintf("%d records held by topics that sinks write, from the offsets their readers may still rewind to: the readers lag, or checkpoints are rare or off (a reader rewinds to its start without one)", e.TopicRecords))
	}
	if int64(e.Failovers)*failoverBytes > e.Held/2 {
		why = append(why, fmt.Sprintf("%d failovers, each kept with its statistics and events: the job fails over again and again (a worker out of memory at each restore, a restart strategy without a limit)", e.Failovers))
	}
	if int64(e.CheckpointRows)*statsRowBytes > e.Held/2 {
		why = append(why, fmt.Sprintf("the statistics of %d checkpoints, kept for checkpoints.csv: the checkpoint interval is very short for the run's duration", e.CheckpointRows))
	}
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return msg
}

// heldBytes is the memory of what the run accumulates (see
// Options.MaxMemory).
func (s *Sim) heldBytes() int64 {
	n := s.netBufs*netBufferBytes + s.netRecs*recordBytes
	if c := s.ckpt; c != nil {
		n += c.held + int64(len(c.stats))*statsRowBytes
	}
	if s.fo != nil {
		n += int64(len(s.fo.log)) * failoverBytes
	}
	return n + s.topicRecords()*storedRecordBytes
}

// Memory costs of what a run accumulates, measured as plan's estimates are.
const (
	statsRowBytes  = 256 // a row of CheckpointStats kept for the Result
	failoverBytes  = 512 // a failover's statistics and events
	netBufferBytes = 320 // a network buffer between subtasks, its records' slice and its delivery event
)

// checkMemory enforces Options.MaxMemory; the error also stops the run.
func (s *Sim) checkMemory() error {
	if s.opts.MaxMemory <= 0 || s.stopped != nil {
		return s.stopped
	}
	held := s.heldBytes()
	if held <= s.opts.MaxMemory {
		return nil
	}
	err := &MemoryLimitError{At: s.eng.Now(), Held: held, Limit: s.opts.MaxMemory, NetworkBuffers: s.netBufs, NetworkRecords: s.netRecs,
		TopicRecords: s.topicRecords()}
	if c := s.ckpt; c != nil {
		err.InFlight, err.Persisted, err.CheckpointRows = len(c.pending), c.persistedRecs, len(c.stats)
	}
	if s.fo != nil {
		err.Failovers = len(s.fo.log)
	}
	s.stop(err)
	return err
}

// Sim is one simulation of a scenario. Create it with New, advance it with
// RunUntil (as often as you like: a live view steps it interval by
// interval), and read the result with Result.
type Sim struct {
	sc   *scenario.Scenario // plan.Scenario: with its defaults
	plan *plan.Plan
	opts Options
	// producerKeys are the key distributions of each topic's producers
	// (topic.go), shared by the readers' cursors.
	producerKeys map[*plan.Topic][]*keyDist
	// topicLogs are the stored topics, written by sinks (topic_log.go);
	// topicEnds the append cursors of the topics of producers (topic.go).
	topicLogs map[*plan.Topic]*topicLog
	topicEnds map[*plan.Topic]*topicEnd
	// brokers are the queues with consumers (queue_source.go), by queue
	// and in the order they were made
	brokers    map[*plan.Queue]*broker
	brokerList []*broker
	partBuf    []PartitionSummary // one reader's partitions at a sample (partitions.go)
	counters   []*counterGroup    // the counter columns the run has (counters.go)
	eng        des.Engine
	warmup     des.Time
	duration   des.Time
	interval   des.Time

	vertices []*vertex // topological order
	subtasks []*subtask
	sources  []*source

	delivered uint64 // records that reached a sink (visible or not)
	lost      uint64 // records destroyed for good (see DeliverySummary.Lost)
	freeBufs  []*buffer
	netRecs   int64 // records in sender backlogs and on the wire (Options.MaxQueued)
	netBufs   int64 // and their buffers (Options.MaxMemory)
	workers   []*worker
	conns     map[connKey]*connection // worker-to-worker links, made at their first channel
	taskIv    [][3]des.Time           // busy, idle, back-pressured of each subtask's task this interval (takeSample)
	epoch     uint32                  // incremented by every failover
	halted    bool                    // a stop-the-world checkpoint holds the sources
	pauses    bool                    // some worker has garbage-collection pauses
	recSize   []int64                 // record size in bytes by source seq (sizeOf)
	oneSize   int64                   // the size of every record when recSize holds one size, else 0 (sizeOf)
	fo        *failover               // failures, restarts and recovery

	lastSample des.Time
	sample     Sample
	events     uint64
	stopped    error // set through stop only
	// operators' work (didWork), the count at which the next check is
	// due, and a check due (the engine's batch was stopped for it)
	work, workDue uint64
	checkDue      bool
	warmedUp      bool
	actions       []Action
	nextAction    int              // next of opts.Actions to replay
	ckpt          *coordinator     // nil without checkpoints
	graphs        *graphRun        // edge streams and graph operators; nil without
	groups        []*consumerGroup // the consumer groups outside the job (consumer_group.go)
}

// vertex is a source, operator or sink with its subtasks.
type vertex struct {
	name        string
	kind        string
	parallelism int
	subtasks    []*subtask
	inputs      []*edge
	outputs     []*edge
	svc         serviceDist
	selectivity float64
	net         scenario.Network
	pv          *plan.Vertex // the vertex in the plan (its task: Task)
	keys        *keyDist
	sink        *sinkState            // sinks: the external system written to
	win         *windowStats          // window operators: their metrics
	etLag       *metrics.Histogram    // sinks of a job with event time: processing time − event time
	ivEtLag     *metrics.Histogram    // the same in the current metrics interval
	wmBehind    float64               // windows: the sum over samples of how far the input watermark trailed the sources' (ns)
	wmBehindN   int                   // and the samples
	bpUpstream  bool                  // windows: a vertex upstream was back-pressured in some sample
	salt        uint64                // per-vertex hash salt (selectivity, copies)
	ivLat       *metrics.Histogram    // end-to-end latency at this vertex, this interval
	winLat      *metrics.Histogram    // the same inside the statistics window
	halfLat     [2]*metrics.Histogram // sinks: the same in each half of the window (trend.go)
	shed        *shedding             // load shedding of a source or an operator (shed.go); nil without
	status      string
	s           *Sim
}

// edge is a job-graph edge; its network setting is that of edge.to.
type edge struct {
	from, to       *vertex
	plan           *plan.Edge // its channel targets
	partitioning   string
	part           partitioner
	maxParallelism int
	keyOwner       []uint16 // hash: the receiver of each key of the job's key space (keyOwners)
	late           bool     // a window operator's late side output: it carries the late records only (Record.late)
}

// partitioner is an edge's partitioning as a number, for the hot path.
type partitioner uint8

const (
	partRoundRobin partitioner = iota // rebalance and rescale
	partForward
	partHash
	partBroadcast
)

func partitionerOf(name string) partitioner {
	switch name {
	case scenario.PartitionForward:
		return partForward
	case scenario.PartitionHash:
		return partHash
	case scenario.PartitionBroadcast:
		return partBroadcast
	}
	return partRoundRobin
}

// observeLatency records the latency of a record leaving a subtask of v.
// The interval's histogram joins the window's when the interval ends after
// the warmup (the warmup's end is always a sampling instant).
func (v *vertex) observeLatency(lat des.Time) { v.ivLat.Add(lat) }

// New builds the job of sc: it places subtasks in slots, connects the
// channels of every edge, and schedules the first arrivals. sc must be
// complete (as scenario.Parse returns it); New returns sc.Validate's error
// for a scenario built or changed in Go that is not valid, and an error
// for a scenario of a micro-batch engine (sim/microbatch runs those).
func New(sc *scenario.Scenario, opts Options) (*Sim, error) {
	if sc.IsMicroBatch() {
		return nil, fmt.Errorf("sim: scenario %q runs on engine %s, which only dspalab run simulates (sim/microbatch); this command takes engine flink", sc.Name, sc.Engine)
	}
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("sim: invalid scenario %q: %w", sc.Name, err)
	}
	p, err := plan.Compile(sc) // with the defaults that zero values of a Scenario built in Go mean
	if err != nil {
		return nil, fmt.Errorf("sim: building the job: %w", err)
	}
	sc = p.Scenario
	s := &Sim{sc: sc, plan: p, opts: opts, warmup: sc.Warmup, duration: sc.Duration, interval: p.MetricsInterval()}
	if err := s.build(); err != nil {
		return nil, err
	}
	for _, src := range s.sources {
		src.start()
		src.initial = src.snapshot()
	}
	s.counters, s.sample.Counters = s.activeCounters()
	s.eng.Schedule(s.nextSample(0), s, 0)
	if p.Checkpointing() {
		s.ckpt = newCoordinator(s, sc.Checkpoint)
	}
	for _, pg := range p.ConsumerGroups {
		s.groups = append(s.groups, s.newConsumerGroup(pg))
	}
	s.sample.Groups = len(s.groups) > 0
	s.fo = newFailover(s)
	for _, w := range s.workers {
		if w.gcInterval > 0 && w.gcInterval <= s.duration {
			s.pauses = true
			s.eng.Schedule(w.gcInterval, w, 0)
		}
	}
	s.opts.Actions = append([]Action(nil), opts.Actions...) // times are filled in below
	for i := range s.opts.Actions {
		a := &s.opts.Actions[i]
		if a.At == 0 {
			a.At = des.FromSeconds(a.AtS)
		}
		if i > 0 && a.At < s.opts.Actions[i-1].At {
			return nil, fmt.Errorf("sim: action %d at %s comes before the one it follows (%s): actions must be in time order",
				i+1, FormatTime(a.At), FormatTime(s.opts.Actions[i-1].At))
		}
	}
	s.emit(Event{Type: EventRunStarted, Message: fmt.Sprintf("%s: %d vertices, %d subtasks, seed %d", sc.Name, len(s.vertices), len(s.subtasks), sc.Seed)})
	return s, nil
}

// Run simulates sc for its duration and returns the result. When ctx is
// cancelled it stops at the current event and returns the result so far,
// marked partial, with ctx's error.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*Result, error) {
	s, err := New(sc, opts)
	if err != nil {
		return nil, err
	}
	err = s.RunUntil(ctx, sc.Duration)
	return s.Result(), err
}

// Now returns the simulated time reached.
func (s *Sim) Now() des.Time { return s.eng.Now() }

// Duration returns the scenario's duration.
func (s *Sim) Duration() des.Time { return s.duration }

// Emitted returns how many records the sources have emitted so far,
// replays included.
func (s *Sim) Emitted() uint64 {
	var n uint64
	for _, src := range s.sources {
		n += src.emits
	}
	return n
}

// Stopped is the error that stopped the run before its end (RunUntil
// returned it, and returns it again), nil while the run can go on: a
// cancelled context, a limit of Options, a trace or edge file that failed,
// or the simulated job itself (a worker out of memory). Result then
// summarises the run up to the stop, marked partial with this cause.
func (s *Sim) Stopped() error { return s.stopped }

// stop stops the run with err: it also stops the engine's batch (steps),
// so that no event fires after the one that stopped the run.
func (s *Sim) stop(err error) {
	s.stopped = err
	s.eng.Stop()
}

// RunUntil advances the simulation to t (at most the scenario's duration).
// It returns ctx's error, leaving the simulation at the last event fired,
// when ctx is cancelled; the run can then only be finished with Result.
func (s *Sim) RunUntil(ctx context.Context, t des.Time) error {
	if s.stopped != nil {
		return s.stopped
	}
	t = min(t, s.duration)
	var n uint64
	for s.stopped == nil {
		// a replayed action applies after every event at its instant, as
		// one injected live between two RunUntil calls does
		if k := s.nextAction; k < len(s.opts.Actions) {
			if a := s.opts.Actions[k]; a.At < s.eng.NextTime() && a.At <= t {
				for !s.eng.RunUntil(a.At) && s.stopped == nil {
					// stopped for the checks by an operator's work (didWork)
					if err := s.checks(ctx); err != nil {
						return err
					}
				}
				s.nextAction++
				if err := s.Inject(a); err != nil {
					s.stop(fmt.Errorf("replaying action %d (%s at %s): %w", k+1, a.Kind, FormatTime(a.At), err))
					return s.stopped
				}
				continue
			}
		}
		// with no action left to replay, events go in batches up to the
		// next check
		batch := uint64(1)
		if s.nextAction >= len(s.opts.Actions) {
			batch = 0x10000 - n&0xffff
		}
		fired := s.steps(t, batch)
		n += fired
		if s.checkDue && s.stopped == nil {
			// stopped for the checks by an operator's work (didWork)
			if err := s.checks(ctx); err != nil {
				return err
			}
			continue
		}
		if fired < batch && s.stopped == nil {
			break // no event left by t
		}
		if n&0xffff == 0 {
			if err := s.checks(ctx); err != nil {
				return err
			}
		}
	}
	if s.stopped != nil { // set by a check at a metrics sample
		return s.stopped
	}
	s.eng.RunUntil(t)
	if err := ctx.Err(); err != nil && t < s.duration {
		s.stop(err)
		return err
	}
	return nil
}

// checks are what the run checks between batches of events, every
// 65,536 events and every workCheck of operators' work (didWork): an
// interrupt (ctx), the limits of Options, the traces; then it reports
// progress.
func (s *Sim) checks(ctx context.Context) error {
	s.checkDue = false
	if err := ctx.Err(); err != nil {
		s.stop(err)
		return err
	}
	if err := s.checkQueued(); err != nil {
		return err
	}
	if err := s.checkMemory(); err != nil {
		return err
	}
	if err := s.checkTraces(); err != nil {
		return err
	}
	if s.opts.Progress != nil {
		s.opts.Progress(s.eng.Now(), s.Emitted())
	}
	return nil
}

// workCheck is the operators' work (didWork) between two checks of the
// run: about as much as 65,536 events of record hops.
const workCheck = 1 << 16

// didWork counts n units of an operator's work that one event does for
// many records (a record added to each of its windows, a result emitted,
// a pair joined), so that the run's checks (an interrupt, the limits,
// progress) come as often in a window or join job, where one event can
// do millions of them, as in any other: every workCheck units, it stops
// the engine's batch (RunUntil then runs the checks and goes on).
func (s *Sim) didWork(n int) {
	s.work += uint64(n)
	if s.work >= s.workDue {
		s.workDue = s.work + workCheck
		s.checkDue = true
		s.eng.Stop()
	}
}

// steps fires up to n events up to t, one by one while the run is not
// stopped, and returns how many it fired: fewer than n when the run
// stopped (stop stops the engine's batch after the current event) or no
// event is left by t.
func (s *Sim) steps(t des.Time, n uint64) uint64 {
	if s.stopped != nil {
		return 0
	}
	return s.eng.StepsUntil(t, n)
}

// checkTraces stops the run when a source's trace failed.
func (s *Sim) checkTraces() error {
	for _, src := range s.sources {
		if err := src.traceErr(); err != nil {
			s.stop(err)
			return err
		}
	}
	return nil
}

// checkQueued enforces Options.MaxQueued; the error also stops the run.
func (s *Sim) checkQueued() error {
	if s.opts.MaxQueued <= 0 {
		return nil
	}
	var total, largest int64
	var at string
	for _, v := range s.vertices {
		var q int64
		for _, t := range v.subtasks {
			if t.gate != nil {
				q += int64(t.gate.queuedRecs)
			}
			if src := t.asSource(); src != nil {
				q += int64(src.queued())
			}
		}
		total += q
		if q > largest {
			largest, at = q, v.name
		}
	}
	total += s.netRecs
	if total <= s.opts.MaxQueued {
		return nil
	}
	if s.netRecs > largest {
		at = ""
	}
	err := &QueueLimitError{At: s.eng.Now(), Queued: total, Limit: s.opts.MaxQueued, Vertex: at, Largest: largest, Network: s.netRecs}
	s.stop(err)
	return err
}

// HandleEvent takes a metrics sample at the end of each interval.
func (s *Sim) HandleEvent(now des.Time, _ int64) {
	s.takeSample(now)
	if s.checkQueued() != nil || s.checkMemory() != nil || s.checkTraces() != nil {
		return
	}
	if now < s.duration {
		s.eng.Schedule(s.nextSample(now), s, 0)
	}
}

// nextSample returns the next sampling instant after now: the next multiple
// of the metrics interval, the end of the warmup if that comes first (so
// that no interval straddles it), or the end of the run.
func (s *Sim) nextSample(now des.Time) des.Time {
	next := (now/s.interval + 1) * s.interval
	if now < s.warmup && s.warmup < next {
		next = s.warmup
	}
	return min(next, s.duration)
}

func (s *Sim) newBuffer() *buffer {
	if n := len(s.freeBufs); n > 0 {
		b := s.freeBufs[n-1]
		s.freeBufs = s.freeBufs[:n-1]
		return b
	}
	return &buffer{}
}

// sizeOf returns the size of r in bytes: its source's record_size
// (oneSize when every source has the same, as most jobs: no look-up by
// the record's id then).
func (s *Sim) sizeOf(r *Record) int64 {
	if n := s.oneSize; n > 0 {
		return n
	}
	return s.recSize[originSeq(r.ID)]
}

func (s *Sim) freeBuffer(b *buffer) {
	b.recs = b.recs[:0]
	b.bytes, b.next, b.backlog, b.dataType, b.event, b.slice = 0, 0, 0, dataBuffer, event{}, false
	s.freeBufs = append(s.freeBufs, b)
}

func (s *Sim) emit(e Event) {
	s.events++
	if s.opts.Observer != nil {
		e.Time = s.eng.Now()
		s.opts.Observer.Event(e)
	}
}
