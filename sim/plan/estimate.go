package plan

import (
	"math"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/graph"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Rough memory costs of the job's structures, measured on the simulator
// (heap in use after sim.New, and after runs that pile up checkpoints): a
// 2048 x 2048 all-to-all edge takes about 1.2 GB; 100,000 workers about
// 7.4 MB; a checkpoint in progress about 1 KiB plus some 200 bytes per
// subtask (its statistics, snapshot, acknowledgement), without the
// in-flight data it persists (see the simulator's Options.MaxMemory).
const (
	BytesPerChannel           = 300  // a channel, its partition's share and buffer credit
	BytesPerZipfKey           = 8    // an entry of a zipf key table
	BytesPerSubtask           = 2048 // a subtask with its gate, histograms and streams
	BytesPerWorker            = 80   // a worker (TaskManager)
	bytesPerCheckpoint        = 1024
	bytesPerSubtaskCheckpoint = 224
	bytesPerKeySet            = 64  // a key set's own structure, beside its bits
	bytesPerFailover          = 512 // a failover's statistics, events and restart
	// BytesPerWindowState is an open window of one key in a window
	// operator: its state, map entry and timers.
	BytesPerWindowState = 160
	// BytesPerJoinRecord is a record an interval join buffers
	// (sim/join_operator.go): its 16-byte entry (event time and
	// generation) in its key's slice and its 24-byte cleanup timer in
	// the timer heap, both slices grown by append (up to twice the
	// entries).
	BytesPerJoinRecord = 2 * (16 + 24)
	// denseKeys is the largest key space the simulator holds in a plain
	// bitset (1 MiB per key set); larger ones use a compressed bitmap,
	// up to 2 bytes a key or 1 bit of the key space, whichever is less.
	denseKeys = 1 << 23
)

// Events of checkpoints and failures, per occurrence, counted from the
// simulator's mechanisms: a checkpoint sends one barrier on every channel
// (its delivery, and for aligned barriers the credit it takes back), and
// each subtask snapshots, uploads and acknowledges; a failover restarts
// every subtask and rewires every channel. Stop-the-world checks every
// millisecond whether the job has drained.
const (
	eventsPerCheckpointChannel = 2
	eventsPerCheckpointSubtask = 3
	eventsPerFailoverChannel   = 1
	eventsPerFailoverSubtask   = 4
	drainChecksPerSecond       = 1000
)

// Estimate is what a run of a plan will cost, measured before it starts
// (see Plan.Estimate). Rates are means in records (or rows) per simulated
// second.
type Estimate struct {
	Subtasks int      // subtasks over all vertices
	Vertices int      // sources, operators and sinks
	Duration des.Time // simulated duration
	// Offered is the records per second all sources emit.
	Offered float64
	// Records is Offered plus the records per second every operator and
	// sink receives: each record counted once at its source and once at
	// every vertex it reaches, after selectivity and broadcast.
	Records float64
	// Busiest is the operator or sink that receives the most records per
	// second (the first in topological order on a tie; "" without any),
	// and BusiestRate that rate.
	Busiest     string
	BusiestRate float64
	// BySelectivity and ByBroadcast report that records are multiplied on
	// the way: an operator with selectivity over 1, or a broadcast edge
	// into more than one subtask, receives records.
	BySelectivity, ByBroadcast bool
	// MetricsRows is the rows per second of the metrics samples:
	// (Subtasks + Vertices) / MetricsInterval, the resolved
	// metrics.interval (Plan.MetricsInterval).
	MetricsRows     float64
	MetricsInterval des.Time
	// CheckpointEvents is the events per simulated second of checkpoints
	// (barriers on every channel, snapshots and acknowledgements of every
	// subtask, a checkpoint every interval; stop-the-world's drain checks);
	// FailoverEvents those of failovers (restarting every subtask and
	// rewiring every channel, at the rate of the random failures, and of
	// the scripted ones over the run); GCEvents the garbage-collection
	// pauses of the workers.
	CheckpointEvents, FailoverEvents, GCEvents float64
	// CheckpointEvery is the time between two checkpoints' triggers at
	// most: the interval, or min_pause when that is longer (0 without
	// checkpointing).
	CheckpointEvery des.Time
	// EventRate is Records + MetricsRows + CheckpointEvents +
	// FailoverEvents + GCEvents + TopicReads + WindowWork, events per
	// simulated second.
	EventRate float64
	// Events is EventRate times the duration in simulated seconds.
	Events float64
	// Channels are the subtask-to-subtask channels of all network edges
	// (Edge.Channels): a chained edge (Edge.Chained) has none, nor the
	// buffers, credit, barriers and rewiring a channel costs, since its
	// records pass from one operator to the next in one thread, as in
	// Flink's OperatorChain. ZipfKeys are the keys of all zipf key tables.
	Channels, ZipfKeys int64
	// Workers are the workers (TaskManagers) the simulator creates: the
	// scenario's count, or more when a vertex needs more slots.
	Workers int
	// KeyedSubtasks are the subtasks of operators with keyed state, and
	// KeySets the key sets they hold at most: each its keys, its changed
	// keys (incremental checkpoints), and one copy in every checkpoint in
	// flight and in the latest completed one (what a recovery restores);
	// KeySetBytes the memory of all of them.
	KeyedSubtasks int
	KeySets       int64
	KeySetBytes   int64
	// CheckpointsInFlight is the most checkpoints in progress at once:
	// checkpoint.max_concurrent, but no more than can be triggered within
	// a timeout or within the run (0 without checkpointing);
	// CheckpointBytes the memory of their statistics and snapshots, plus
	// those of the latest completed one, without the in-flight data an
	// unaligned checkpoint persists (it depends on the run: the
	// simulator's running budget counts it).
	CheckpointsInFlight int64
	CheckpointBytes     int64
	// Failovers is the expected number of failures that restart the job:
	// the scripted ones and, for each random failure process, the
	// workers (1 for the JobManager) times the duration over its mtbf;
	// FailoverBytes their memory (statistics and events).
	Failovers     float64
	FailoverBytes int64
	// WindowStates is the most windows of one key open at once over the
	// window operators (see estimateWindows), WindowBytes their memory in
	// the simulator (BytesPerWindowState each).
	// A tumbling window join's windows count here too: the simulator
	// keeps a count of each input's records per key and window, not the
	// records (their modelled record_size is keyed state), as it does for
	// a process window function's records.
	WindowStates float64
	WindowBytes  int64
	// JoinRecords are the records the interval joins buffer at most: a
	// left record until the watermark passes its time + after, a right
	// one until it passes its time + before, so each input's rate times
	// that bound plus the watermark's lag, no more than the run brings
	// (see joinRecords); JoinBytes their memory in the simulator
	// (BytesPerJoinRecord each).
	JoinRecords float64
	JoinBytes   int64
	// WindowWork is the work per simulated second of the window and join
	// operators that one event does for many records, counted as events
	// (the simulator checks a run every 65,536 of either: sim.didWork):
	// each record into a window operator or a window join added to each
	// of its windows (size / slide of them for a sliding window, one
	// otherwise), and
	// each record into an interval join compared with the other input's
	// records of its key (each input's rate times the time it is held,
	// over the keys). JoinPairs are the pairs the interval joins emit per
	// simulated second: each input's records times the other's held in
	// the join's bounds (after + before), over the keys, and the window
	// joins' (each window's left records times its right ones); they are
	// the joins' output records (Records downstream).
	WindowWork, JoinPairs float64
	// GraphEdges are the edges the edge-stream sources emit at most (a
	// stream's size, its max_edges, or what the arrival rate brings over
	// the duration, whichever is least; an edge file's size is unknown,
	// so its rate decides), and GraphVertices the vertex ids they reach.
	// GraphBytes is the simulator's memory of them: the edge logs, the
	// generators, and the graph operators' adjacency lists, union-find
	// and degree arrays (see estimateGraphs). GraphStateBytes is the
	// modelled graph state of the operators at the end, at most (every
	// edge kept), by primitive and backend (graph.StateBytes): on the heap
	// it counts against workers.memory.
	GraphEdges, GraphVertices   int64
	GraphBytes, GraphStateBytes int64
	// BloomBits are the bits of the Bloom filters of the sinks with dedup
	// (MillWheel's, sinks[].dedup.bloom_bits rounded up to 64-bit words,
	// two generations each: see estimateDedup), BloomBytes their memory.
	BloomBits, BloomBytes int64
	// Memory is the estimated bytes of the job's structures before any
	// record: channels (about 300 bytes each), zipf key tables (8 bytes a
	// key), subtasks (about 2 KiB each), workers (80 bytes each), key sets
	// (KeySetBytes), checkpoints in flight (CheckpointBytes), failovers
	// (FailoverBytes), open windows (WindowBytes), the records interval
	// joins buffer (JoinBytes), streaming graphs
	// (GraphBytes), topics (TopicBytes) and Bloom filters (BloomBytes);
	// for a micro-batch run, see MicroBatch.
	Memory int64
	// Rows is the number of rows of timeseries.csv: one per subtask and
	// per vertex, and per consumer group member and group, at every
	// metrics sample.
	Rows float64
	// CheckpointRows is the most rows of checkpoint_subtasks.csv: one per
	// subtask and checkpoint, a checkpoint every checkpoint.interval (0
	// without checkpointing).
	CheckpointRows float64
	// PartitionRows is the number of rows of partitions.csv: one per
	// partition of a topic and reader (source vertex) at every metrics
	// sample (0 for a micro-batch run, which writes none).
	PartitionRows float64
	// TopicReads are the records per second the readers of topics
	// regenerate: each reader subtask's position cursor re-reads every
	// record its topic's producers send (keeping those of its
	// partitions), and the topic's log-end cursor, shared by its readers,
	// once more (topic.go); they count in EventRate.
	// TopicBytes is the memory of those cursors (offsets and counts per
	// partition and producer instance, never records) and of the
	// partitions' rows of the summary, in Memory; TopicPartitions the
	// partitions of all topics;
	// TopicRetained the bytes the topics retain at most, on the modelled
	// brokers' disks, not in memory: per topic the producers' bytes over
	// retention.time, or partitions x retention.size if less.
	TopicReads      float64
	TopicBytes      int64
	TopicPartitions int64
	TopicRetained   int64
	// ReadyMessages are the most messages the queues hold ready (every
	// message their producers publish over the run, at most);
	// UnackedMessages the most delivered and not acknowledged (a
	// delivery stays so for visibility_timeout at most, at the broker's
	// 1/delivery_cost, and no more than are published); MessageBytes
	// their memory (sim/queue: BytesPerReadyMessage and
	// BytesPerUnackedMessage each), in Memory.
	ReadyMessages, UnackedMessages float64
	MessageBytes                   int64
	// MicroBatch says the estimate is of a micro-batch run (engine
	// spark-streaming or structured-streaming: see estimateMicroBatch),
	// whose memory is StateBytes, QueueBytes, BatchBytes and
	// TaskSlotBytes beside the zipf key tables, subtasks, workers, topic
	// cursors and failovers; the Flink structures count nothing.
	MicroBatch bool
	// StateRows are the rows (keys, or windows and keys) the state stores
	// of the operators with state hold at most, StateBytes their memory
	// in the simulator (BytesPerStateRow each).
	StateRows  float64
	StateBytes int64
	// QueuedRecords are the records the batches waiting for their job
	// (and the one running) hold at most: every one that reaches a sink
	// or an aggregation over the run, bounded by --max-queued where the
	// runner caps it (QueueCap, 0 if not: see CapQueued); BatchRecords
	// those of one batch (0 when unknown: a trigger as fast as possible);
	// QueueBytes their memory (BytesPerQueuedRecord each).
	QueuedRecords, BatchRecords float64
	QueueCap                    int64
	QueueBytes                  int64
	// Batches are the batches (or triggers) of the run, each a row kept
	// for batches.csv; BatchBytes the memory of those rows, of the
	// metrics samples (Rows) and of the events.
	Batches    float64
	BatchBytes int64
	// TaskSlots are the partitions of all stages of a micro-batch job (a
	// receiver's stage one per block), TaskSlotBytes their memory.
	TaskSlots, TaskSlotBytes int64
}

// Estimate measures the size of a run of p by following the records
// through the job graph, in topological order:
//   - a source emits its mean rate per subtask times its parallelism: Rate
//     for constant and poisson, the on/off mix for bursty, and the
//     time-weighted mean of the steps over the duration for schedule;
//   - an operator or sink receives the sum of what its inputs emit, times
//     its parallelism on a broadcast edge (every subtask gets every
//     record);
//   - an operator emits what it receives times its selectivity; a sink
//     emits nothing.
//
// It ignores back-pressure (a bottleneck slows what passes it), so the
// estimate is an upper bound of a run's records. A trace source's rate is
// known only from its data: traceRates holds the mean rates of the trace
// sources, in records per simulated second over all their subtasks, by
// source name, where they are known (0 or absent: unknown, counted as
// emitting nothing). Rates stay finite: an absurd rate is capped at the
// largest float64, so that a later selectivity of 0 gives 0, not NaN.
func (p *Plan) Estimate(traceRates map[string]float64) Estimate {
	sc := p.Scenario
	e := Estimate{Duration: sc.Duration, Vertices: len(p.Vertices), Subtasks: p.Subtasks()}
	out := make([]float64, len(p.Vertices)) // records per second a vertex emits
	ins := make([]float64, len(p.Vertices)) // records per second a vertex receives
	micro := sc.IsMicroBatch()              // no channels: a shuffle between stages (estimateMicroBatch)
	for _, v := range p.Vertices {
		if v.Kind != Source {
			continue
		}
		if v.Source.Keys.Distribution == scenario.KeysZipf {
			e.ZipfKeys += int64(v.Source.Keys.Count)
		}
		r := finite(meanRate(v.Source.Arrival, sc.Duration) * float64(v.Parallelism))
		if v.Source.Arrival.Process == scenario.ArrivalTrace {
			r = finite(traceRates[v.Name])
		}
		if tp := p.TopicOf(v); tp != nil {
			r = tp.rate(sc.Duration) // its producers' records, spread over the readers
		}
		if q := p.QueueOf(v); q != nil {
			r = q.rate(sc.Duration) / float64(len(q.Readers)) // its producers' messages, shared by the consumers
		}
		out[v.Index] = r
		e.Offered = finite(e.Offered + r)
	}
	e.Records = e.Offered
	for _, v := range p.Vertices {
		if v.Kind == Source {
			continue
		}
		var in float64
		broadcast := false
		for _, ed := range v.Inputs {
			in = finite(in + out[ed.From.Index])
			if !ed.Chained && !micro { // fused into its sender's task: no channel, buffer or barrier
				e.Channels += ed.Channels()
			}
			broadcast = ed.Partitioning == scenario.PartitionBroadcast
		}
		if broadcast {
			e.ByBroadcast = e.ByBroadcast || (in > 0 && v.Parallelism > 1)
			in *= float64(v.Parallelism)
		}
		in = finite(in)
		ins[v.Index] = in
		if v.Emits() {
			e.BySelectivity = e.BySelectivity || (in > 0 && v.Selectivity > 1)
			out[v.Index] = finite(in * v.Selectivity)
		}
		e.Records = finite(e.Records + in)
		if v.Window != nil {
			e.WindowStates = finite(e.WindowStates + p.windowStates(v.Window, in))
			e.WindowWork = finite(e.WindowWork + in*windowsPerRecord(v.Window))
		}
		if j := v.Join; j != nil && j.Kind == scenario.JoinWindow {
			// a window operator of tumbling windows over both inputs (sim.newWindowJoin)
			e.WindowStates = finite(e.WindowStates + p.windowStates(&scenario.Window{Kind: scenario.WindowTumbling, Size: j.Size}, in))
			e.WindowWork = finite(e.WindowWork + in) // each record added to its one window
			// every left record of a key's window with every right one
			pairs := p.joinPairs(v, out, j.Size)
			e.JoinPairs = finite(e.JoinPairs + pairs)
			out[v.Index] = finite(pairs * v.Selectivity)
		}
		if j := v.Join; j != nil && j.Kind == scenario.JoinInterval {
			e.JoinRecords = finite(e.JoinRecords + p.joinRecords(v, out))
			compared, pairs := p.joinWork(v, out)
			e.WindowWork = finite(e.WindowWork + compared)
			e.JoinPairs = finite(e.JoinPairs + pairs)
			out[v.Index] = finite(pairs * v.Selectivity)
		}
		if e.Busiest == "" || in > e.BusiestRate {
			e.Busiest, e.BusiestRate = v.Name, in
		}
	}
	interval := p.MetricsInterval()
	e.MetricsInterval = interval
	rows := float64(e.Subtasks + e.Vertices)
	for _, g := range p.ConsumerGroups {
		rows += float64(g.Members + 1) // a row per member and the group's
		if g.Topic != nil && !g.Topic.Stored() {
			e.Records = finite(e.Records + g.Topic.rate(sc.Duration)) // each record polled and processed once
		}
	}
	e.MetricsRows = rows / interval.Seconds()
	e.Rows = rows * math.Ceil(float64(sc.Duration)/float64(interval))
	for _, t := range p.Topics {
		if micro {
			break // a micro-batch run writes no partitions.csv
		}
		e.PartitionRows = finite(e.PartitionRows + float64(t.Partitions)*float64(len(t.Readers))*math.Ceil(float64(sc.Duration)/float64(interval)))
	}
	if ck := sc.Checkpoint; p.Checkpointing() && ck.Interval > 0 {
		e.CheckpointRows = float64(e.Subtasks) * math.Floor(float64(sc.Duration)/float64(ck.Interval))
	}
	e.Workers = p.Workers()
	p.estimateCheckpoints(&e)
	p.estimateFailovers(&e)
	e.WindowBytes = satMul(int64(min(e.WindowStates, float64(math.MaxInt64/BytesPerWindowState))), BytesPerWindowState)
	e.JoinBytes = satMul(int64(min(e.JoinRecords, float64(math.MaxInt64/BytesPerJoinRecord))), BytesPerJoinRecord)
	p.estimateGraphs(&e)
	p.estimateTopics(&e, out)
	p.estimateQueues(&e)
	p.estimateDedup(&e)
	if micro {
		p.estimateMicroBatch(&e, ins)
		return e
	}
	e.Memory = satAdd(e.BloomBytes, e.Channels*BytesPerChannel, e.ZipfKeys*BytesPerZipfKey, int64(e.Subtasks)*BytesPerSubtask,
		int64(e.Workers)*BytesPerWorker, e.KeySetBytes, e.CheckpointBytes, e.FailoverBytes, e.WindowBytes, e.JoinBytes, e.GraphBytes, e.TopicBytes, e.MessageBytes)
	e.EventRate = finite(e.Records + e.MetricsRows + e.CheckpointEvents + e.FailoverEvents + e.GCEvents + e.TopicReads + e.WindowWork)
	e.Events = finite(e.EventRate * sc.Duration.Seconds())
	return e
}

// CheckpointsInFlight returns the most checkpoints in progress at once:
// checkpoint.max_concurrent, but no more than are triggered within a
// checkpoint's timeout (one every interval) or within the run; 0 without
// checkpointing or without an interval (checkpoints then come only from
// the live view).
func (p *Plan) CheckpointsInFlight() int64 {
	ck := p.Scenario.Checkpoint
	if !p.Checkpointing() || ck.Interval <= 0 {
		return 0
	}
	n := int64(max(ck.MaxConcurrent, 1))
	n = min(n, int64(ck.Timeout/ck.Interval)+1, int64(p.Scenario.Duration/ck.Interval)+1)
	return max(n, 1)
}

// estimateCheckpoints fills the key sets, checkpoints in flight and the
// checkpoint events of e.
func (p *Plan) estimateCheckpoints(e *Estimate) {
	sc := p.Scenario
	e.CheckpointsInFlight = p.CheckpointsInFlight()
	held := e.CheckpointsInFlight // copies of the key sets in checkpoints
	if e.CheckpointsInFlight > 0 {
		held++ // the latest completed one, kept for a recovery
	}
	maxKeys := 1
	for _, v := range p.Vertices {
		if v.Kind == Source {
			maxKeys = max(maxKeys, v.Source.Keys.Count)
		}
	}
	for _, v := range p.Vertices {
		if v.State == nil {
			continue
		}
		e.KeyedSubtasks += v.Parallelism
		sets := 1 + held
		if sc.Checkpoint.Incremental {
			sets++
		}
		hashed := len(v.Inputs) > 0
		for _, ed := range v.Inputs {
			hashed = hashed && ed.Partitioning == scenario.PartitionHash
		}
		n := satMul(int64(v.Parallelism), sets)
		e.KeySets = satAdd(e.KeySets, n)
		e.KeySetBytes = satAdd(e.KeySetBytes, satMul(n, keySetBytes(maxKeys, v.Parallelism, hashed)))
	}
	if e.CheckpointsInFlight > 0 {
		per := bytesPerCheckpoint + int64(e.Subtasks)*bytesPerSubtaskCheckpoint
		e.CheckpointBytes = satMul(e.CheckpointsInFlight+1, per)
		e.CheckpointEvery = max(sc.Checkpoint.Interval, sc.Checkpoint.MinPause)
		e.CheckpointEvents = finite((float64(e.Channels)*eventsPerCheckpointChannel + float64(e.Subtasks)*eventsPerCheckpointSubtask) / e.CheckpointEvery.Seconds())
		if sc.Checkpoint.Mode == scenario.CheckpointStopTheWorld {
			e.CheckpointEvents = finite(e.CheckpointEvents + drainChecksPerSecond)
		}
	}
}

// keySetBytes is the memory of one key set of a subtask of a keyed
// operator of the given parallelism, in a key space of maxKeys keys: a
// bitset of the key space up to denseKeys keys; beyond, a compressed
// bitmap of the keys the subtask owns (a share of them behind hash
// partitioning, all of them otherwise).
func keySetBytes(maxKeys, parallelism int, hashed bool) int64 {
	if maxKeys <= denseKeys {
		return bytesPerKeySet + int64((maxKeys+63)/64)*8
	}
	owned := int64(maxKeys)
	if hashed {
		owned = (owned + int64(parallelism) - 1) / int64(max(parallelism, 1))
	}
	return bytesPerKeySet + min(2*owned, int64(maxKeys)/8)
}

// estimateFailovers fills the failovers, their memory and events, and
// the garbage-collection events of e.
func (p *Plan) estimateFailovers(e *Estimate) {
	sc := p.Scenario
	var rate float64 // random failures per simulated second
	for _, f := range sc.Failures {
		switch {
		case f.MTBF <= 0:
			e.Failovers++
		case f.Kind == scenario.FailureJobManager:
			rate += 1 / f.MTBF.Seconds()
		default:
			rate += float64(e.Workers) / f.MTBF.Seconds()
		}
	}
	rate = finite(rate)
	e.Failovers = finite(e.Failovers + rate*sc.Duration.Seconds())
	e.FailoverBytes = int64(min(e.Failovers*bytesPerFailover, math.MaxInt64/2))
	per := float64(e.Channels)*eventsPerFailoverChannel + float64(e.Subtasks)*eventsPerFailoverSubtask
	e.FailoverEvents = finite(rate * per)
	if d := sc.Duration.Seconds(); d > 0 && e.Failovers > rate*d {
		e.FailoverEvents = finite(e.FailoverEvents + (e.Failovers-rate*d)/d*per) // the scripted ones, spread over the run
	}
	if sc.StateBackend.Type != scenario.BackendRocksDB && p.Stateful() && sc.StateBackend.GCInterval > 0 {
		e.GCEvents = finite(float64(e.Workers) / sc.StateBackend.GCInterval.Seconds())
	}
}

// satAdd adds byte counts, saturating at math.MaxInt64 / 2 (so that sums
// of saturated parts stay ordered).
func satAdd(xs ...int64) int64 {
	const top = math.MaxInt64 / 2
	var s int64
	for _, x := range xs {
		s = min(s+min(max(x, 0), top), top)
	}
	return s
}

// satMul multiplies non-negative counts, saturating as satAdd does.
func satMul(a, b int64) int64 {
	const top = math.MaxInt64 / 2
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > top/b {
		return top
	}
	return a * b
}

// finite caps x at the largest float64, so that absurd rates (a long chain
// of selective operators) stay comparable and a later selectivity of 0
// gives 0, not NaN.
func finite(x float64) float64 { return min(x, math.MaxFloat64) }

// meanRate is the mean arrival rate of one source subtask over [0, d], in
// records per simulated second.
func meanRate(a scenario.Arrival, d des.Time) float64 {
	switch a.Process {
	case scenario.ArrivalBursty:
		if a.On+a.Off <= 0 {
			return a.Rate
		}
		on := float64(a.On) / float64(a.On+a.Off)
		return a.Rate*on + a.OffRate*(1-on)
	case scenario.ArrivalSchedule:
		if d <= 0 || len(a.Schedule) == 0 {
			return 0
		}
		var sum float64 // records
		for i, st := range a.Schedule {
			end := d
			if i+1 < len(a.Schedule) {
				end = min(a.Schedule[i+1].At, d)
			}
			if end > st.At {
				sum += st.Rate * (end - st.At).Seconds()
			}
		}
		return sum / d.Seconds()
	default:
		return a.Rate
	}
}

// windowStates estimates the windows of one key that a window operator of
// window w (or a window join's tumbling windows), receiving in records
// per second, holds open at once. A window lives
// from its start until the watermark passes its end plus the allowed
// lateness: about span = size + lag + allowed lateness, where lag is how
// far the watermark trails the clock (the largest bounded out-of-orderness
// and event delay of the sources, plus a watermark interval). Tumbling and
// sliding windows hold span/slide windows per key, each with the keys of
// size of input (at most the key count); a session holds one window per
// key seen within gap + lag + lateness; a global window one per key.
// The records that can arrive within the span bound them too (each opens
// at most ceil(size/slide) windows, and no more records arrive than the
// run's duration brings): a tumbling window of 1ns at 2000/s holds about
// 600 windows, not one a nanosecond of the span, and a bound of hours
// (a trace's max_delay) holds no more windows than the run has records.
func (p *Plan) windowStates(w *scenario.Window, in float64) float64 {
	keys, lag := p.keysAndLag()
	// records(d) is how many records can arrive within d (of the run)
	records := func(d des.Time) float64 { return finite(in * min(d, p.Scenario.Duration).Seconds()) }
	distinct := func(d des.Time) float64 { return min(float64(keys), records(d)+1) }
	switch w.Kind {
	case scenario.WindowGlobal:
		return float64(keys)
	case scenario.WindowSession:
		return distinct(w.Gap + lag + w.AllowedLateness)
	}
	slide := w.Slide
	if w.Kind == scenario.WindowTumbling || slide <= 0 {
		slide = w.Size
	}
	if slide <= 0 {
		return 0
	}
	span := w.Size + lag + w.AllowedLateness
	slots := finite(math.Ceil(float64(span)/float64(slide)) * distinct(w.Size))
	return min(slots, finite(math.Ceil(records(span))*math.Ceil(float64(w.Size)/float64(slide))))
}

// keysAndLag returns the largest key count of the sources (a trace's key
// column counts as 2^31 - 1: unknown) and how far the watermark trails
// the clock at most: the largest bounded out-of-orderness and event delay
// of the sources plus a watermark interval, or a trace's max_delay.
func (p *Plan) keysAndLag() (int, des.Time) {
	keys, lag := 1, des.Time(0)
	for _, s := range p.Vertices {
		if s.Kind != Source {
			continue
		}
		keys = max(keys, s.Source.Keys.Count)
		if s.Source.Arrival.Process == scenario.ArrivalTrace {
			keys = max(keys, int(math.MaxInt32)) // a trace's key column: unknown
			if t := s.Source.Arrival.Trace; t != nil {
				lag = max(lag, t.MaxDelay)
			}
		}
		if wm := s.Source.Watermarks; wm != nil {
			l := wm.BoundedOutOfOrderness + wm.AutoWatermarkInterval
			if d := s.Source.EventDelay; d != nil {
				l += max(d.Max, 5*d.Mean) // exponential: past 5 means is under 1%
			}
			lag = max(lag, l)
		}
	}
	return keys, lag
}

// joinRecords estimates the records interval join v buffers at once, as
// sim's intervalJoin (Flink's IntervalJoinOperator) keeps them: a left
// record from its arrival until the watermark passes its time + after,
// about after + lag; a right one before + lag; each input at the rate
// its upstream emits (out, by vertex), and no more records than the run
// brings.
func (p *Plan) joinRecords(v *Vertex, out []float64) float64 {
	_, lag := p.keysAndLag()
	var n float64
	for i, ed := range v.Inputs {
		hold := v.Join.After // the left input
		if i > 0 {
			hold = v.Join.Before
		}
		d := min(hold+lag, p.Scenario.Duration)
		n = finite(n + math.Ceil(finite(out[ed.From.Index]*d.Seconds())))
	}
	return n
}

// windowsPerRecord returns how many windows of w a record is added to:
// size / slide (rounded up) for a sliding window, one otherwise.
func windowsPerRecord(w *scenario.Window) float64 {
	if w.Kind == scenario.WindowSliding && w.Slide > 0 && w.Size > w.Slide {
		return math.Ceil(float64(w.Size) / float64(w.Slide))
	}
	return 1
}

// joinWork returns, per simulated second, the records interval join v
// compares (each record with the other input's records of its key, held
// for the other's bound plus the watermark's lag) and the pairs it emits
// (each record with the other input's records of its key within its
// bounds: after + before in all), with the keys spread evenly.
func (p *Plan) joinWork(v *Vertex, out []float64) (compared, pairs float64) {
	_, lag := p.keysAndLag()
	compared = finite(p.joinPairs(v, out, v.Join.Before+lag) + p.joinPairs(v, out, v.Join.After+lag))
	return compared, p.joinPairs(v, out, v.Join.Before+v.Join.After)
}

// joinPairs returns the pairs per simulated second of join v's two
// inputs when each record meets the other input's records of its key
// that came within span (of the run): left rate × right rate × span over
// the keys, spread evenly; 0 unless v has two inputs.
func (p *Plan) joinPairs(v *Vertex, out []float64, span des.Time) float64 {
	if len(v.Inputs) != 2 {
		return 0
	}
	keys, _ := p.keysAndLag()
	l, r := out[v.Inputs[0].From.Index], out[v.Inputs[1].From.Index]
	return finite(l * r * min(span, p.Scenario.Duration).Seconds() / float64(keys))
}

// Memory of streaming graphs in the simulator, in bytes, with the
// doubling of growing slices: an edge of an edge log (two 4-byte ids), and
// of a Barabási–Albert generator's list of endpoints; a neighbour entry
// of an adjacency list (4 bytes, two per edge) and its edge in the order
// added (8 bytes: a restore undoes the edges after its snapshot); a
// vertex of an adjacency list (its slice header, BFS mark and depth,
// key-set bit), of a union-find (parent, size, seen) and of a degree
// array, each once more per checkpoint copy (the latest completed and
// those in progress).
const (
	bytesPerLogEdge       = 2 * 8
	bytesPerGeneratorEdge = 2 * 8
	bytesPerAdjEntry      = 2 * 4
	bytesPerAdjEdge       = 2 * 8
	bytesPerAdjVertex     = 2 * (24 + 4 + 1 + 1)
	bytesPerUFVertex      = 2 * 9
	bytesPerDegreeVertex  = 2 * 4
)

// estimateGraphs fills the edge streams and graph operators of e: the
// edges each edge-stream source emits at most and the vertex ids they
// reach, the simulator's memory for them, and the modelled graph state.
func (p *Plan) estimateGraphs(e *Estimate) {
	sc := p.Scenario
	edges := map[string][2]int64{} // by source: edges, vertex ids
	for _, v := range p.Vertices {
		if v.Kind != Source || v.Source.Edges == nil {
			continue
		}
		es := v.Source.Edges
		byRate := finite(meanRate(v.Source.Arrival, sc.Duration)*sc.Duration.Seconds()+1) * float64(v.Parallelism)
		n := byRate
		var ids float64
		switch es.Type {
		case scenario.EdgesErdosRenyi:
			mean := es.Probability * float64(es.Vertices) * float64(es.Vertices-1) / 2
			n = min(n, mean+4*math.Sqrt(mean)+1)
			ids = min(float64(es.Vertices), math.Sqrt(2*n/es.Probability)+2) // edges come by increasing vertex
		case scenario.EdgesBarabasiAlbert:
			m := float64(es.Attach)
			n = min(n, m*(m+1)/2+float64(max(es.Vertices-es.Attach-1, 0))*m)
			ids = min(float64(es.Vertices), n/m+m+2)
			e.GraphBytes = satAdd(e.GraphBytes, int64(n)*bytesPerGeneratorEdge)
		case scenario.EdgesGrid:
			n = min(n, float64(es.Rows*(es.Cols-1)+es.Cols*(es.Rows-1)))
			ids = min(float64(es.Rows)*float64(es.Cols), n/2+float64(es.Cols)+1)
		default:
			ids = min(float64(graph.MaxVertices), 2*n)
		}
		if es.MaxEdges > 0 {
			n = min(n, float64(es.MaxEdges))
		}
		ne, ni := int64(min(n, 1<<52)), int64(ids)
		edges[v.Name] = [2]int64{ne, ni}
		e.GraphEdges = satAdd(e.GraphEdges, ne)
		e.GraphVertices = satAdd(e.GraphVertices, ni)
		e.GraphBytes = satAdd(e.GraphBytes, satMul(ne, bytesPerLogEdge))
	}
	rocks := sc.StateBackend.Type == scenario.BackendRocksDB
	copies := int64(1)
	if sc.Checkpoint.Mode != scenario.CheckpointNone && sc.Checkpoint.Mode != "" {
		copies += 1 + int64(max(sc.Checkpoint.MaxConcurrent, 1))
	}
	for _, v := range p.Vertices {
		if v.Graph == nil {
			continue
		}
		var ne, ni int64
		for _, in := range v.Inputs {
			c := edges[in.From.Name]
			ne, ni = satAdd(ne, c[0]), max(ni, c[1])
		}
		switch v.Graph.Algorithm {
		case scenario.GraphSpanner:
			e.GraphBytes = satAdd(e.GraphBytes, satMul(ne, 2*bytesPerAdjEntry+bytesPerAdjEdge), satMul(ni, bytesPerAdjVertex))
			e.GraphStateBytes = satAdd(e.GraphStateBytes, graph.StateBytes(graph.Primitive(v.Graph.Primitive), rocks, min(ni, 2*ne), satMul(ne, 2)))
		case scenario.GraphComponents:
			e.GraphBytes = satAdd(e.GraphBytes, satMul(satMul(ni, bytesPerUFVertex), copies))
			e.GraphStateBytes = satAdd(e.GraphStateBytes, graph.CounterBytes(rocks, min(ni, 2*ne), 2))
		default:
			e.GraphBytes = satAdd(e.GraphBytes, satMul(satMul(satMul(ni, bytesPerDegreeVertex), int64(v.Parallelism)), copies))
			e.GraphStateBytes = satAdd(e.GraphStateBytes, graph.CounterBytes(rocks, min(ni, 2*ne), 1))
		}
	}
}
