package microbatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Options tune a run without changing its results.
type Options struct {
	// Progress, if non-nil, is called after every batch with the
	// simulated time reached and the records read by the sources so far.
	Progress func(now des.Time, emitted uint64)
	// OpenTrace opens the traces of sources of arrival process trace
	// (sim.Options.OpenTrace): each partition (source subtask) opens its
	// trace twice, to append and to read.
	OpenTrace sim.TraceOpener
	// MaxQueued, if positive, stops the run with a *QueueLimitError when
	// the records of the batches waiting for their job exceed it (an
	// unstable job's queue grows without bound; each queued record holds
	// 8 bytes for its latency).
	MaxQueued int64
	// Actions are replayed at their times (At; AtS when At is 0), as
	// recorded by Sim.Actions: the same scenario, seed and actions give
	// the same run.
	Actions []sim.Action
}

// QueueLimitError stops a run whose queued batches hold more records
// than Options.MaxQueued. The result up to that point is still returned.
type QueueLimitError struct {
	At      des.Time
	Batches int   // batches waiting
	Records int64 // records in them
	Limit   int64
}

func (e *QueueLimitError) Error() string {
	return fmt.Sprintf("at %s, %d batches with %d records wait for their job (limit %d records): the processing time is longer than the batch interval, so batches queue without bound",
		sim.FormatTime(e.At), e.Batches, e.Records, e.Limit)
}

// Sim is one micro-batch simulation. Create it with New, advance it with
// RunUntil, read it with Result.
type Sim struct {
	sc     *scenario.Scenario
	plan   *plan.Plan
	opts   Options
	eng    des.Engine
	sp     scenario.Spark
	stages []*stage
	verts  []*vert // by plan vertex index
	parts  []*partition
	cores  int

	interval des.Time // batch interval, or trigger interval (0: as fast as possible)
	pid      *PIDRateEstimator
	rate     float64 // the rate controller's latest rate (-1: none yet), records/s
	lagBuf   []int64
	limBuf   []int64

	queue   []*batch
	running *batch
	queuedN int64
	batches []BatchInfo
	next    int64 // batch number
	emitted uint64
	read    uint64
	deliver uint64
	stopped error
	lat     *metrics.Histogram // record latency over the window
	// doneKeys and doneBytes are the state after the last batch
	// completed: a batch's state is computed by its job, so the state of
	// the batches cut and not completed (which the state maps already
	// hold, see touch) is not there yet
	doneKeys, doneBytes int64
	latIv               *metrics.Histogram // record latency this metrics interval
	tsRows              []TimeseriesRow
	events              []sim.Event
	lastRow             des.Time
	ivRead              int64
	ivDone              int64
	ivBatch             []int // indexes of batches completed this interval
	ckpt                ckptState
	ss                  *structured // structured streaming, nil for DStreams
	behindAt            des.Time    // first batch whose scheduling delay grew, -1 if none
	cutTime             des.Time    // time of the batch being cut
	endEv               des.EventID // the running job's end
	rec                 recovery
	gen, done, sample   des.HandlerFunc
	fail                des.HandlerFunc
	stored              map[*plan.Topic]*storedTopic // topics the sinks write (kafka_sink.go)
	writes              []*storedTopic               // by vertex index: the topic a sink writes, nil for none
	actions             []sim.Action                 // injected (Inject)
	nextAction          int                          // next of opts.Actions to replay
}

// stage is a plan.Stage with its partitions.
type stage struct {
	*plan.Stage
	parts int
	task  []des.Time // task durations of the batch being computed
	read  []int64    // shuffle bytes read per partition
}

// vert is a vertex's per-batch work.
type vert struct {
	v       *plan.Vertex
	st      *stage
	service *sim.ServiceTimes
	rng     *des.Rand
	acc     float64
	in      []int64    // records in per partition this batch
	work    []des.Time // busy time per partition this batch
	rr      []int      // round-robin position per partition, per output edge
	state   []map[uint64]des.Time
	total   int64                 // records in over the run
	out     int64                 // records out over the run
	updated []map[uint64]struct{} // structured streaming: rows changed this trigger
}

// partition is one Kafka partition: a source subtask's log. Two copies of
// its arrival process, from the same stream, count what was appended (log)
// and give the arrival times of what is read (read), as sim's sources do,
// so memory does not grow with the lag.
type partition struct {
	src        *plan.Vertex
	index      int
	log, rd    arrivals // two copies of the arrivals: appended, read
	recs       recorded // rd of a trace or topic source (its records' keys), nil otherwise
	nextAppend des.Time
	appended   int64
	// received counts the appended records inside the statistics window
	// from..to (sim.InWindow: the warmup to the duration)
	received int64
	from, to des.Time
	nextRead des.Time
	offset   int64
	keys     *sim.KeyDistribution
	keyRng   *des.Rand
	size     int64
	readCost des.Time
	delays   *sim.EventDelays // out-of-orderness (event_delay), nil: event time = arrival
	id       uint64           // the partition's index over all partitions, high bits of record ids
}

// batch is one batch (or trigger) with its job, computed when the batch
// is cut (its processing time does not depend on when it starts: jobs run
// one at a time, in batch order).
type batch struct {
	info     BatchInfo
	arrivals []des.Time // arrival times of the records that reach sinks (or the aggregation)
	proc     des.Time
	// continuous: an epoch of a continuous trigger, whose records each
	// take recLatency (their own processing), not the epoch's end
	continuous bool
	recLatency des.Time
	// appendMode: a micro-batch of structured streaming's append mode,
	// whose rows are the windows the watermark passed; written is the
	// arrival times of their records, which take their latencies at its
	// end (its own records wait with their windows, structured.held)
	appendMode bool
	written    []des.Time
	stateBytes int64           // the state after the batch (with BatchInfo.StateKeys)
	maxTask    des.Time        // the longest task of the job (rerun after an executor loss)
	tasks      [][]des.Time    // the job's task durations, by stage and partition
	failed     map[taskRef]int // failed attempts by task (TaskSetManager's numFailures), nil for none
	out        []outRec        // records of sinks that write topics, appended at the job's end
}

// New builds the simulation of sc, a scenario of engine spark-streaming or
// structured-streaming (see scenario.Scenario.IsMicroBatch). It returns an
// error for a scenario that is invalid or that this engine cannot run
// (edge streams, Kafka producers), a task failure of a subtask the job
// runs no task for, or a trace that cannot be opened.
func New(sc *scenario.Scenario, opts Options) (*Sim, error) {
	if !sc.IsMicroBatch() {
		return nil, fmt.Errorf("microbatch: scenario %q runs on engine %s, not a micro-batch engine", sc.Name, sc.Engine)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	p, err := plan.Compile(sc)
	if err != nil {
		return nil, fmt.Errorf("microbatch: %w", err)
	}
	sc = p.Scenario
	s := &Sim{sc: sc, plan: p, opts: opts, sp: sc.Spark, rate: -1, behindAt: -1,
		lat: metrics.NewHistogram(), latIv: metrics.NewHistogram()}
	s.gen, s.done, s.sample, s.fail = s.onBatchTime, s.onJobEnd, s.onSample, s.onFailure
	s.cores = sc.Workers.Count * sc.Workers.Slots
	s.interval = s.sp.BatchInterval
	receivers := 0
	for _, v := range p.Vertices {
		if v.Kind != plan.Source {
			continue
		}
		if v.Source.Edges != nil || v.Source.Writes != nil {
			return nil, fmt.Errorf("microbatch: source %s is an edge stream or a Kafka producer, which the micro-batch engines do not run yet", v.Name)
		}
		tp := p.TopicOf(v)
		for i := 0; i < p.SourcePartitions(v); i++ {
			base := "source/" + v.Name + "/" + strconv.Itoa(i)
			pt := &partition{src: v, index: i, size: v.Source.RecordSize, from: sc.Warmup,
				keys:   sim.NewKeyDistribution(v.Source.Keys),
				keyRng: des.StreamRand(sc.Seed, base+"/keys")}
			if v.Source.Arrival.Process == scenario.ArrivalTrace {
				if opts.OpenTrace == nil {
					return nil, fmt.Errorf("microbatch: source %s replays a trace, but no trace opener was given (Options.OpenTrace)", v.Name)
				}
				var tr [2]sim.Trace
				for k := range tr {
					if tr[k], err = opts.OpenTrace(v.Name, i, v.Parallelism); err != nil {
						return nil, fmt.Errorf("microbatch: opening the trace of source %s (subtask %d): %w", v.Name, i, err)
					}
				}
				rd := &traceArrivals{tr: tr[1]}
				pt.log, pt.rd, pt.recs = &traceArrivals{tr: tr[0]}, rd, rd
			} else if tp != nil && tp.Stored() {
				s.readStored(pt, tp) // a topic the job's sinks write
			} else if tp != nil {
				// DirectKafkaInputDStream: an RDD partition per Kafka
				// partition, cursor i owning one of them
				rd := &topicArrivals{c: sim.NewTopicCursor(tp, i, tp.Partitions, sc.Seed, sc.Duration)}
				pt.log, pt.rd, pt.recs = &topicArrivals{c: sim.NewTopicCursor(tp, i, tp.Partitions, sc.Seed, sc.Duration)}, rd, rd
				if len(tp.Producers) > 0 {
					pt.size = tp.Producers[0].RecordSize
				}
			} else {
				pt.log = sim.NewArrivalProcess(v.Source.Arrival, des.StreamRand(sc.Seed, base+"/arrivals"))
				pt.rd = sim.NewArrivalProcess(v.Source.Arrival, des.StreamRand(sc.Seed, base+"/arrivals"))
			}
			if v.Source.MaxRate > 0 {
				pt.readCost = des.FromSeconds(1 / v.Source.MaxRate)
			}
			if d := v.Source.EventDelay; d != nil && pt.recs == nil {
				pt.delays = sim.NewEventDelays(d, uint64(v.Index+1)*0x9e3779b97f4a7c15)
			}
			pt.id = uint64(len(s.parts)) << 40
			pt.nextAppend, pt.nextRead = pt.log.Next(), pt.rd.Next()
			s.parts = append(s.parts, pt)
		}
		receivers += p.SourcePartitions(v)
	}
	if sc.Engine == scenario.EngineSparkStreaming && s.sp.Input == scenario.InputReceiver {
		if s.cores <= receivers {
			return nil, sc.Errorf("workers", "the job has %d receivers (one per source subtask) and %d executor cores (workers.count × workers.slots): every receiver holds a core for good, so no core is left to process the batches (Spark: \"the number of cores must be more than the number of receivers\")", receivers, s.cores)
		}
		s.cores -= receivers
	}
	for _, ps := range p.Stages() {
		st := &stage{Stage: ps, parts: ps.Vertices[0].Parallelism}
		if v := ps.Vertices[0]; v.Kind == plan.Source {
			st.parts = p.SourcePartitions(v)
		}
		// the partitions of a stage are its first vertex's (a narrow
		// sink runs on them, whatever its parallelism)
		if !ps.Shuffle && s.receiverMode() {
			st.parts *= s.blocksPerBatch()
		}
		st.task, st.read = make([]des.Time, st.parts), make([]int64, st.parts)
		s.stages = append(s.stages, st)
	}
	s.verts = make([]*vert, len(p.Vertices))
	for _, st := range s.stages {
		for _, v := range st.Vertices {
			vt := &vert{v: v, st: st, service: sim.NewServiceTimes(v.ServiceTime),
				rng: des.StreamRand(sc.Seed, "vertex/"+v.Name+"/service"),
				in:  make([]int64, st.parts), work: make([]des.Time, st.parts),
				rr: make([]int, st.parts*max(len(v.Outputs), 1))}
			if v.State != nil {
				vt.state = make([]map[uint64]des.Time, st.parts)
				vt.updated = make([]map[uint64]struct{}, st.parts)
				for i := range vt.state {
					vt.state[i] = map[uint64]des.Time{}
					vt.updated[i] = map[uint64]struct{}{}
				}
			}
			s.verts[v.Index] = vt
		}
	}
	for _, v := range p.Vertices {
		if v.Kind != plan.Sink || v.Writes == nil {
			continue
		}
		if s.writes == nil {
			s.writes = make([]*storedTopic, len(p.Vertices))
		}
		if sc.Engine == scenario.EngineStructuredStreaming && p.Stateful() {
			return nil, fmt.Errorf("microbatch: sink %s writes topic %s after a streaming aggregation, which the structured-streaming engine does not run yet (a map-like query may write a topic)", v.Name, v.Writes.Topic)
		}
		s.writes[v.Index] = s.storedTopicOf(p.Topic(v.Writes.Topic))
	}
	if s.sp.Backpressure && sc.Engine == scenario.EngineSparkStreaming {
		s.pid = NewPIDRateEstimator(int64(s.interval/des.Millisecond), s.sp.PIDProportional, s.sp.PIDIntegral, s.sp.PIDDerived, s.sp.PIDMinRate)
	}
	s.lagBuf, s.limBuf = make([]int64, len(s.parts)), make([]int64, len(s.parts))
	// the state RDDs are checkpointed (DStream.checkpoint of the stateful
	// DStreams); a job without state checkpoints only its metadata
	if s.sp.Checkpoint && sc.Engine == scenario.EngineSparkStreaming && s.plan.Stateful() {
		s.ckpt.interval = s.sp.CheckpointInterval
		if s.ckpt.interval == 0 {
			s.ckpt.interval = scenario.DefaultSparkCheckpointInterval(s.interval, s.sp.StateOperation)
		}
	}
	s.events = append(s.events, sim.Event{Type: sim.EventRunStarted, Worker: -1,
		Message: fmt.Sprintf("%s job %s started: %s", sc.Engine, sc.Name, s.describe())})
	if sc.Engine == scenario.EngineStructuredStreaming {
		s.ss = newStructured(s)
		s.ss.start()
	} else {
		s.mustSchedule(s.interval, s.gen, 0)
	}
	s.mustSchedule(s.MetricsInterval(), s.sample, 0)
	s.rec.fullCores = s.cores
	for i, f := range sc.Failures {
		if f.Kind == scenario.FailureTask && f.MTBF <= 0 {
			if _, err := s.taskOf(f.Vertex, f.Subtask); err != nil {
				return nil, sc.Errorf(strictyaml.Index("failures", i)+".subtask", "%v", err)
			}
		}
	}
	for i, f := range sc.Failures {
		if f.MTBF <= 0 {
			s.mustSchedule(f.At, s.fail, int64(i))
		}
	}
	s.startRandomFailures()
	if s.opts.Actions, err = replayTimes(opts.Actions); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sim) mustSchedule(at des.Time, h des.Handler, arg int64) {
	if _, err := s.eng.Schedule(at, h, arg); err != nil && s.stopped == nil {
		s.stopped = fmt.Errorf("microbatch: %w", err)
	}
}

func (s *Sim) receiverMode() bool {
	return s.sc.Engine == scenario.EngineSparkStreaming && s.sp.Input == scenario.InputReceiver
}

// blocksPerBatch is the blocks a receiver cuts per batch: batch interval
// / spark.streaming.blockInterval, at least 1.
func (s *Sim) blocksPerBatch() int {
	return max(int((s.interval+s.sp.BlockInterval-1)/s.sp.BlockInterval), 1)
}

// describe says in one line how the job runs.
func (s *Sim) describe() string {
	msg := fmt.Sprintf("%s on %s", plural.Count(len(s.stages), "stage"), plural.Count(s.cores, "executor core"))
	if s.sc.Engine == scenario.EngineSparkStreaming {
		msg = fmt.Sprintf("batch interval %s, ", sim.FormatTime(s.interval)) + msg
	}
	return msg
}

// Now returns the simulated time reached.
func (s *Sim) Now() des.Time { return s.eng.Now() }

// RunUntil advances the simulation to t (at most the scenario's
// duration). It returns ctx's error when cancelled, a *QueueLimitError
// past Options.MaxQueued, and then keeps returning it.
func (s *Sim) RunUntil(ctx context.Context, t des.Time) error {
	t = min(t, s.sc.Duration)
	n := 0
	for s.stopped == nil {
		next := s.eng.NextTime()
		if s.replayDue(next, t) {
			continue
		}
		if next > t {
			break
		}
		s.eng.Step()
		if n++; n&0xff == 0 {
			if err := ctx.Err(); err != nil {
				s.stopped = err
			}
		}
	}
	if s.stopped != nil {
		return s.stopped
	}
	s.eng.RunUntil(t)
	// a cancellation the loop did not see stops the run only if it has
	// not reached its end: a run that simulated its whole duration is
	// complete (as sim.Sim.RunUntil)
	if err := ctx.Err(); err != nil && t < s.sc.Duration {
		s.stopped = err
		return err
	}
	return nil
}

// onBatchTime is the JobGenerator's timer: cut the batch of time now and
// submit its job.
func (s *Sim) onBatchTime(now des.Time, _ int64) {
	if s.ss != nil {
		s.ss.triggerAt(now)
		return
	}
	s.mustSchedule(now+s.interval, s.gen, 0)
	if s.rec.driverDown {
		s.rec.missed = append(s.rec.missed, now) // no driver: no JobGenerator
		return
	}
	b := s.cut(now, now, s.limits(now))
	s.submit(b)
}

// limits computes the records each partition may add to the batch of time
// now (the rate controller's latest rate, maxRatePerPartition), into
// s.limBuf; it returns nil for no limit.
func (s *Sim) limits(now des.Time) []int64 {
	for i, pt := range s.parts {
		pt.appendUntil(now)
		s.lagBuf[i] = pt.appended - pt.offset
	}
	ms := int64(s.interval / des.Millisecond)
	if s.receiverMode() {
		// a receiver's RateLimiter: the published rate (or the initial
		// one), capped by spark.streaming.receiver.maxRate and by what the
		// write-ahead log can write
		rate := 0.0
		if s.pid != nil {
			rate = s.rate
			if !(rate > 0) {
				rate = s.sp.InitialRate
			}
		}
		limited := false
		for i, pt := range s.parts {
			r := rate / float64(len(s.parts))
			if s.sp.ReceiverMaxRate > 0 && (r <= 0 || s.sp.ReceiverMaxRate < r) {
				r = s.sp.ReceiverMaxRate
			}
			if s.sp.WriteAheadLog {
				if w := s.sp.WALBandwidth / float64(pt.size); r <= 0 || w < r {
					r = w
				}
			}
			if r > 0 {
				limited = true
				s.limBuf[i] = int64(r * float64(ms) / 1000)
			} else {
				s.limBuf[i] = -1
			}
		}
		if !limited {
			return nil
		}
		return s.limBuf
	}
	if !maxMessagesPerPartition(s.lagBuf, s.pid != nil, s.rate, s.sp.InitialRate, s.sp.MaxRatePerPartition, s.sp.MinRatePerPartition, ms, s.limBuf) {
		return nil
	}
	return s.limBuf
}

// skip reads n records of the partition that no batch processes (lost
// with a receiver), so that the next reads draw the records after them.
func (pt *partition) skip(n int64) {
	for range n {
		pt.nextRead = pt.rd.Next()
		if pt.recs == nil {
			pt.keys.Sample(pt.keyRng)
		}
	}
	pt.offset += n
}

// appendUntil counts the records appended to the partition's log up to
// and including now.
func (pt *partition) appendUntil(now des.Time) {
	for pt.nextAppend <= now {
		pt.appended++
		if sim.InWindow(pt.nextAppend, pt.from) {
			pt.received++
		}
		pt.nextAppend = pt.log.Next()
	}
}

// cut forms the batch of time now: each partition's offset range up to
// the latest offset at readAt (the batch time, or a restarted driver's
// recovery for the batches of its downtime), clamped by limits (nil:
// none; -1: none for that partition), and computes its job.
func (s *Sim) cut(now, readAt des.Time, limits []int64) *batch {
	s.next++
	s.cutTime = now
	b := &batch{info: BatchInfo{Batch: s.next, TimeS: now.Seconds(), time: now, RateLimit: -1}}
	if s.pid != nil && s.rate > 0 {
		b.info.RateLimit = s.rate
	}
	for _, st := range s.stages {
		clear(st.task)
		clear(st.read)
	}
	for _, vt := range s.verts {
		clear(vt.in)
		clear(vt.work)
	}
	for i, pt := range s.parts {
		pt.appendUntil(readAt)
		until := pt.appended
		if limits != nil && limits[i] >= 0 {
			until = min(until, pt.offset+limits[i])
		}
		n := until - pt.offset
		b.info.Records += n
		s.readPartition(b, pt, n, now)
		pt.offset = until
	}
	if err := s.traceError(now); err != nil && s.stopped == nil {
		s.stopped = err
	}
	s.read += uint64(b.info.Records)
	s.ivRead += b.info.Records
	if s.ss != nil {
		s.ss.emit(b)
	} else if s.sp.StateOperation == scenario.StateUpdateStateByKey {
		s.emitState(b)
	}
	b.proc = s.jobTime(b)
	b.maxTask = s.maxTask()
	b.tasks = make([][]des.Time, len(s.stages))
	for k, st := range s.stages {
		b.tasks[k] = slices.Clone(st.task)
	}
	b.info.StateKeys, b.stateBytes = s.stateKeys()
	b.info.ProcessingMs = b.proc.Seconds() * 1000
	return b
}

// readPartition reads n records of pt into the batch: each is drawn its
// key and pushed through the job's vertices.
func (s *Sim) readPartition(b *batch, pt *partition, n int64, now des.Time) {
	src := s.verts[pt.src.Index]
	blocks := int64(1)
	if s.receiverMode() {
		blocks = int64(s.blocksPerBatch())
	}
	for j := int64(0); j < n; j++ {
		at := pt.nextRead
		et := at // the event time: the arrival, less the source's event delay
		var key uint32
		if pt.recs != nil { // the trace's or topic's record: its key, origin and event time
			key, at, et = pt.recs.current()
		}
		size := pt.size
		if sa, ok := pt.recs.(*storedArrivals); ok {
			size = sa.rec().size
		}
		pt.nextRead = pt.rd.Next()
		if pt.delays != nil {
			et -= pt.delays.Draw(pt.id | uint64(pt.offset+j))
		}
		if pt.recs == nil {
			key = pt.keys.Sample(pt.keyRng)
		}
		part := pt.index
		if blocks > 1 {
			part = pt.index*int(blocks) + int(j*blocks/n)
		}
		src.work[part] += pt.readCost
		s.push(b, src, part, key, at, et, size, now)
	}
	s.emitted += uint64(n)
}

// push hands one record (arrived at at, of event time et) to vertex vt's
// partition part: its cost, its state, and its outputs along every edge.
func (s *Sim) push(b *batch, vt *vert, part int, key uint32, at, et des.Time, size int64, now des.Time) {
	vt.in[part]++
	vt.total++
	if vt.v.Kind != plan.Source {
		if vt.service.Constant() {
			vt.work[part] += vt.service.Mean()
		} else {
			vt.work[part] += vt.service.Sample(vt.rng)
		}
	}
	if vt.state != nil {
		s.touch(vt, part, key, at, et, now)
	}
	if vt.v.Kind == plan.Sink {
		b.arrivals = append(b.arrivals, at)
		if s.writes != nil && s.writes[vt.v.Index] != nil {
			b.out = append(b.out, outRec{sink: vt.v.Index, part: part, key: key, origin: at, et: et, size: size})
		}
		return
	}
	if vt.state != nil && (s.ss != nil || s.sp.StateOperation == scenario.StateUpdateStateByKey) {
		b.arrivals = append(b.arrivals, at)
		// structured streaming's aggregation: its result table goes to
		// the sink by the output mode (structured.go); updateStateByKey:
		// its output is the whole state, a row per key (emitState)
		return
	}
	vt.acc += vt.v.Selectivity
	k := int(vt.acc)
	vt.acc -= float64(k)
	for ; k > 0; k-- {
		vt.out++
		for ei, e := range vt.v.Outputs {
			to := s.verts[e.To.Index]
			switch {
			case to.st == vt.st: // a narrow dependency: the same partition
				s.push(b, to, part, key, at, et, size, now)
			case e.Partitioning == scenario.PartitionHash:
				// Spark's HashPartitioner: nonNegativeMod(key.hashCode, partitions)
				q := int(key) % to.st.parts
				to.st.read[q] += size
				s.push(b, to, q, key, at, et, size, now)
			case e.Partitioning == scenario.PartitionBroadcast:
				for q := 0; q < to.st.parts; q++ {
					to.st.read[q] += size
					s.push(b, to, q, key, at, et, size, now)
				}
			default: // rebalance, rescale: repartition round-robin
				r := &vt.rr[part*len(vt.v.Outputs)+ei]
				q := *r % to.st.parts
				*r++
				to.st.read[q] += size
				s.push(b, to, q, key, at, et, size, now)
			}
		}
	}
}

// jobTime is the processing time of the batch's job: the driver's job
// overhead, then each stage in turn, its tasks on the executor cores (a
// task to the core that frees first, in partition order), plus the state
// checkpoint of a checkpoint batch.
func (s *Sim) jobTime(b *batch) des.Time {
	total := s.sp.JobOverhead
	for _, st := range s.stages {
		for i := range st.task {
			d := s.sp.TaskOverhead
			if st.Shuffle {
				d += des.FromSeconds(float64(st.read[i]) / s.sp.ShuffleBandwidth)
			}
			for _, v := range st.Vertices {
				vt := s.verts[v.Index]
				d += vt.work[i]
				if vt.state != nil {
					d += s.stateCost(vt, i)
				}
			}
			st.task[i] = d
		}
		// with every executor lost, the job waits for the replacements
		// (startNext) and runs on their cores
		cores := s.cores
		if cores <= 0 {
			cores = s.rec.fullCores
		}
		m := makespan(st.task, cores)
		b.info.Stages = append(b.info.Stages, m.Seconds()*1000)
		b.info.Tasks += len(st.task)
		total += m
	}
	total += s.checkpoint(b)
	return total
}

// makespan is the time c cores take for the tasks, each given to the core
// that frees first, in order (Spark's FIFO task scheduling in a stage).
func makespan(tasks []des.Time, c int) des.Time {
	if len(tasks) <= c {
		var m des.Time
		for _, t := range tasks {
			m = max(m, t)
		}
		return m
	}
	free := make([]des.Time, c)
	var m des.Time
	for _, t := range tasks {
		k := 0
		for j := 1; j < c; j++ {
			if free[j] < free[k] {
				k = j
			}
		}
		free[k] += t
		m = max(m, free[k])
	}
	return m
}

// submit queues the batch's job; it starts at once when no job runs.
func (s *Sim) submit(b *batch) {
	s.queue = append(s.queue, b)
	s.queuedN += int64(len(b.arrivals))
	if s.running == nil {
		s.startNext(s.eng.Now())
	}
	if s.opts.MaxQueued > 0 && s.queuedN > s.opts.MaxQueued && s.stopped == nil {
		s.stopped = &QueueLimitError{At: s.eng.Now(), Batches: len(s.queue), Records: s.queuedN, Limit: s.opts.MaxQueued}
	}
}

func (s *Sim) startNext(now des.Time) {
	if len(s.queue) == 0 || s.rec.driverDown || s.cores <= 0 {
		return
	}
	b := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	s.queuedN -= int64(len(b.arrivals))
	s.running = b
	b.info.start = now
	b.info.SchedulingDelayMs = (now - b.info.time).Seconds() * 1000
	if x := s.rec.extra; x > 0 { // recomputing lost state from lineage first
		b.proc += x
		b.info.ProcessingMs = b.proc.Seconds() * 1000
		b.info.RecomputeMs = x.Seconds() * 1000
		s.rec.extra = 0
	}
	id, err := s.eng.Schedule(now+b.proc, s.done, 0)
	if err != nil && s.stopped == nil {
		s.stopped = fmt.Errorf("microbatch: %w", err)
	}
	s.endEv = id
	for _, t := range s.rec.pendingTasks { // task failures that waited for a job
		s.retryTask(now, b, t)
		if s.running == nil {
			break // aborted
		}
	}
	s.rec.pendingTasks = s.rec.pendingTasks[:0]
}

// onJobEnd completes the running job: StreamingListener's
// onBatchCompleted, the rate controller's update, and the next job.
func (s *Sim) onJobEnd(now des.Time, _ int64) {
	b := s.running
	s.running = nil
	b.info.TotalDelayMs = (now - b.info.time).Seconds() * 1000
	b.info.end = now
	lat := b.arrivals
	if b.appendMode {
		lat = b.written
	}
	for _, at := range lat {
		d := now - at
		if b.continuous {
			d = b.recLatency
		}
		if now >= s.sc.Warmup { // completed in the window, as Flink's sinks count after the warmup
			s.lat.Add(d)
		}
		s.latIv.Add(d)
	}
	// the records that reached the sinks: in append mode those of the
	// windows this micro-batch wrote (a record of a window not final yet
	// waits in the state store), else the batch's own
	b.info.Delivered = int64(len(lat))
	b.written = nil
	if b.out != nil {
		s.write(b, now)
	}
	s.deliver += uint64(b.info.Delivered)
	if s.pid != nil {
		// RateController.onBatchCompleted: processingEndTime,
		// numRecords, processingDelay, schedulingDelay, all in ms
		ms := func(t des.Time) int64 { return int64(t / des.Millisecond) }
		if r, ok := s.pid.Compute(ms(now), b.info.Records, ms(now)-ms(b.info.start), ms(b.info.start)-ms(b.info.time)); ok {
			s.rate = float64(toLong(r)) // rateLimit.set(newRate.toLong)
		}
	}
	// (a wait behind a batch that took no longer than the interval has
	// another cause: the driver's downtime, lost executors)
	if s.behindAt < 0 && b.info.SchedulingDelayMs > 0 && len(s.batches) > 0 && b.info.SchedulingDelayMs > s.batches[len(s.batches)-1].SchedulingDelayMs &&
		exceeds(s.batches[len(s.batches)-1].ProcessingMs, s.interval) {
		s.behindAt = b.info.time
		prev := &s.batches[len(s.batches)-1]
		s.events = append(s.events, sim.Event{Time: now, Type: EventFallingBehind, Worker: -1,
			Message: fmt.Sprintf("batch %s waited %s for its job: the batch before it took %s, longer than the batch interval %s, so batches queue",
				sim.FormatTime(b.info.time), sim.FormatTime(des.FromSeconds(b.info.SchedulingDelayMs/1000)), sim.FormatTime(des.FromSeconds(prev.ProcessingMs/1000)), sim.FormatTime(s.interval))})
	}
	s.checkpointWritten(now, b)
	s.doneKeys, s.doneBytes = b.info.StateKeys, b.stateBytes
	b.arrivals = nil
	s.batches = append(s.batches, b.info)
	s.ivBatch = append(s.ivBatch, len(s.batches)-1)
	s.ivDone += b.info.Records
	if s.opts.Progress != nil {
		s.opts.Progress(now, s.emitted)
	}
	if s.ss != nil {
		s.ss.ended(now, b.info.start)
		return
	}
	s.startNext(now)
}

// toLong is Scala's Double.toLong (the JVM's d2l): toward zero, NaN to 0,
// and saturated at the int64 range, where Go's conversion of an
// out-of-range float is undefined (it gives math.MinInt64 on amd64: a
// huge PID gain turned the rate negative, read as no estimate).
func toLong(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// Event types of the micro-batch engines in events.jsonl, beside sim's.
const (
	EventFallingBehind = "falling_behind"     // a batch's scheduling delay grew: batches queue
	EventCheckpoint    = "checkpoint_written" // a state checkpoint was written
	// EventQueryTerminated: an available-now query has read what was
	// available at its start and stopped (StreamingQueryListener's
	// onQueryTerminated)
	EventQueryTerminated = "query_terminated"
)

var errNoBatches = errors.New("no batch completed")
