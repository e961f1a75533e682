// Package scenario defines the YAML scenario format of dspalab: the types a
// scenario decodes into, strict decoding with file:line:col errors, defaults,
// validation of the job graph, and a JSON Schema of the format.
//
// A decoded Scenario is complete: every default is filled in and every value
// is in the simulator's units (des.Time for simulated time, records per
// simulated second for rates, bytes for sizes, bytes per simulated second for
// bandwidth), so the simulator never looks at strings.
package scenario

import (
	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
)

// Scenario is one simulated job and its cluster, as read from YAML.
type Scenario struct {
	// File is the name the scenario was parsed under (for messages).
	File string
	// Name is a short identifier, by default the base name of File
	// without its extension; Description is one line for listings (at
	// most MaxDescriptionLength characters). Both are printable text: no
	// control characters, line breaks or bidirectional controls.
	Name        string
	Description string
	// Seed seeds every random stream of the run (default 1).
	Seed uint64
	// Duration is the simulated time to run (required, > 0).
	Duration des.Time
	// Warmup is left out of summary statistics (default 0, < Duration).
	Warmup des.Time
	// Engine is the execution model that runs the job: EngineFlink
	// (default; "" in a Scenario built in Go), EngineSparkStreaming or
	// EngineStructuredStreaming.
	Engine string
	// Spark configures the micro-batch engines (engine spark-streaming
	// or structured-streaming); see Spark.
	Spark Spark
	// Chaining fuses forward edges of equal parallelism into one task
	// (Flink's operator chaining, pipeline.operator-chaining.enabled;
	// default true, false for a Scenario built in Go that leaves it
	// zero); plan.Compile decides which edges are chained.
	Chaining bool
	Workers  Workers
	// Network holds the defaults for every edge; Operator.Network and
	// Sink.Network hold the resolved settings of their input edges.
	Network   Network
	Sources   []Source
	Operators []Operator
	Sinks     []Sink
	// Topics are the Kafka-like logs of the scenario (see Topic); sources
	// with Writes produce into them and sources of arrival process topic
	// read them.
	Topics []Topic
	// Queues are the message queues of the scenario (see Queue); sources
	// with Writes.Queue publish to them and sources of arrival process
	// queue consume them.
	Queues []Queue
	// ConsumerGroups are Kafka consumer groups outside the job that read
	// topics (see ConsumerGroup).
	ConsumerGroups []ConsumerGroup
	Metrics        Metrics
	// Checkpoint configures periodic checkpoints; its zero value, like
	// the default, is mode none (no checkpoints).
	Checkpoint Checkpointing
	// StateBackend holds keyed state of operators that have State.
	StateBackend StateBackend
	// Restart is the restart strategy after a failure (default
	// fixed-delay, unlimited attempts, 1s delay... see DefaultRestart).
	Restart RestartStrategy
	// HighAvailability of the JobManager (default none: a JobManager
	// failure loses the job).
	HighAvailability HighAvailability
	// Failures are scripted (At) or random (MTBF) failures, in the order
	// given.
	Failures []Failure
	// A Scenario built in Go may leave the fields of fault tolerance above
	// zero: see WithDefaults for what a zero means.

	// positions maps the field paths of the YAML text ("sources[0].arrival.rate")
	// to where their values were given; see Pos. Nil for a Scenario built
	// in Go.
	positions map[string]strictyaml.Position
}

// Workers are the TaskManagers of the simulated cluster. Subtask i of every
// vertex runs in slot i (Flink's default slot sharing), and slots fill worker
// 0 first, then worker 1, and so on; so the job needs max parallelism <=
// Count*Slots.
type Workers struct {
	Count int // default 1
	Slots int // per worker, default 4
	// Memory is the heap of one worker for keyed state of the heap state
	// backend, in bytes (default 1 GiB): heap state beyond it fails the
	// worker with an out-of-memory failure.
	Memory int64
	// HeartbeatTimeout is how long the JobManager takes to notice a lost
	// worker (Flink's heartbeat.timeout, default 50s). A failed task is
	// reported at once.
	HeartbeatTimeout des.Time
}

// Capacity says whether an edge has credit-based flow control.
type Capacity string

// Capacities.
const (
	Bounded   Capacity = "bounded"   // credit-based flow control (default)
	Unbounded Capacity = "unbounded" // no flow control: queues grow without bound
)

// Network is the setting of Flink's network stack for an edge (the input
// gate of a vertex): https://nightlies.apache.org/flink/flink-docs-stable/docs/deployment/memory/network_mem_tuning/
type Network struct {
	BufferSize        int64    // bytes per network buffer, default 32 KiB
	BuffersPerChannel int      // exclusive buffers per input channel, default 2
	FloatingBuffers   int      // floating buffers per input gate, default 8
	BufferTimeout     des.Time // flush interval; 0 flushes after every record; default 100ms
	Latency           des.Time // one-way latency between workers, default 1ms
	Bandwidth         float64  // bytes per simulated second between workers, default 1 Gbit/s
	Capacity          Capacity // default Bounded
}

// Arrival processes of a source subtask.
const (
	ArrivalConstant = "constant" // evenly spaced records at Rate
	ArrivalPoisson  = "poisson"  // exponential inter-arrival times with mean 1/Rate
	ArrivalBursty   = "bursty"   // on/off (two-state MMPP): Poisson at Rate while on, OffRate while off
	ArrivalSchedule = "schedule" // piecewise constant rates, evenly spaced within each step
	ArrivalTrace    = "trace"    // replays a CSV trace or a data set at its own timestamps
	ArrivalTopic    = "topic"    // reads a topic of Scenario.Topics (Flink's KafkaSource)
	ArrivalQueue    = "queue"    // consumes a queue of Scenario.Queues (Flink's RMQSource)
)

// Arrival is the arrival process of each subtask of a source. Rates are per
// subtask, in records per simulated second.
type Arrival struct {
	Process string
	// Rate is the rate of constant and poisson, and the on-rate of bursty.
	Rate float64
	// OffRate is bursty's rate while off (default 0).
	OffRate float64
	// On and Off are bursty's mean on and off durations (exponentially
	// distributed), written on_time and off_time in YAML.
	On, Off des.Time
	// Schedule holds the steps of a schedule, by increasing At; the first
	// step starts at 0. A rate of 0 pauses the source.
	Schedule []RateStep
	// Trace says what a trace source replays (process trace). A Scenario
	// built in Go may leave it nil: the simulator only calls its
	// Options.OpenTrace, which then decides alone what is replayed.
	Trace *Trace
	// Topic is the topic a source of process topic reads (Flink's
	// KafkaSource): its subtasks own the topic's partitions as
	// KafkaSourceEnumerator.getSplitOwner assigns them, and read the
	// records the topic's producers appended.
	Topic string
	// Queue is the queue a source of process queue consumes (Flink's
	// RabbitMQ source, RMQSource): its subtasks are competing consumers,
	// each message delivered to one of them.
	Queue string
}

// RateStep is one step of a piecewise-constant schedule.
type RateStep struct {
	At   des.Time
	Rate float64 // records per simulated second
}

// Key distributions.
const (
	KeysUniform = "uniform"
	KeysZipf    = "zipf"
)

// Keys describes the record keys a source draws.
type Keys struct {
	Count        int     // number of distinct keys, default 1000
	Distribution string  // uniform (default) or zipf
	Exponent     float64 // zipf exponent s > 0, default 1 (key of rank r has weight 1/r^s)
}

// What a non-replayable source does when back-pressured.
const (
	OnBackpressureBlock  = "block"  // the producer waits (TCP back-pressure): nothing is lost
	OnBackpressureBuffer = "buffer" // arrivals continue into a bounded buffer; past it they are dropped
	OnBackpressureDrop   = "drop"   // arrivals while blocked are dropped
)

// Source is a source vertex.
type Source struct {
	Name        string
	Parallelism int // default 1
	Arrival     Arrival
	Keys        Keys
	RecordSize  int64 // bytes per record, default 100, at most MaxRecordSize
	// Replayable sources read a log (Kafka) by offset: under back-pressure
	// the log grows (consumer lag) and nothing is lost. Default true.
	Replayable bool
	// OnBackpressure applies to non-replayable sources (default block).
	OnBackpressure string
	// BufferLimit bounds the buffer of OnBackpressure "buffer", in records
	// (default 10000).
	BufferLimit int
	// MaxRate is the most records per simulated second one subtask can
	// read (fetch from its log or socket): reading a record takes 1/MaxRate
	// of busy time. 0 (the default) means reading costs nothing, so a
	// lagging replayable source catches up as fast as credit allows. A
	// source with MaxRate equal to its arrival rate is the saturated source
	// of the back-pressure lesson: behind a bottleneck of rate μ it is
	// back-pressured 1 − μ/MaxRate of the time.
	MaxRate float64
	// EventDelay is the out-of-orderness of a generated source: each
	// record's event time is its arrival time less a delay drawn from
	// this distribution; nil (the default) is no delay, event time =
	// arrival. A trace source takes its delay from trace.max_delay.
	EventDelay *EventDelay
	// Watermarks is the source's WatermarkStrategy; nil (the default)
	// generates no watermarks (and no windows may fire in event time).
	Watermarks *Watermarks
	// Edges makes the source an edge stream: each record is the next edge
	// of a generated graph or an edge-list file (streaming_graph.go); nil
	// for a source of plain records.
	Edges *EdgeStream
	// Shedding, if set, drops records at the source while its lag or
	// their time in its log passes a threshold (load shedding; see
	// Shedding).
	Shedding *Shedding
	// Writes, if set, makes the source a Kafka producer outside the job:
	// its records are appended to a topic instead of entering the job
	// graph, and no vertex may read it (a source of process topic reads
	// the topic).
	Writes *Producer
}

// Event-delay distributions (out-of-orderness).
const (
	DelayConstant    = "constant"
	DelayUniform     = "uniform"
	DelayExponential = "exponential"
	DelayNormal      = "normal" // truncated at 0 and at Max
)

// EventDelay is the distribution of the delay between a record's event
// time and its arrival at the source, as the course's sources drew it
// (maxEventDelaySecs): constant Mean, uniform in [Min, Max], exponential
// with Mean, or normal with Mean and Stddev truncated to [0, Max].
type EventDelay struct {
	Distribution string
	Mean         des.Time
	Min, Max     des.Time
	Stddev       des.Time
}

// Watermark strategies (Flink's WatermarkStrategy:
// https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/event-time/generating_watermarks/).
const (
	// WatermarksBounded is forBoundedOutOfOrderness(B): the watermark is
	// the largest event time seen − B − 1ns, emitted periodically.
	WatermarksBounded = "bounded_out_of_orderness"
	// WatermarksMonotonous is forMonotonousTimestamps(): B = 0.
	WatermarksMonotonous = "monotonous"
	// WatermarksPunctuated emits the bounded watermark with every record
	// (a punctuated WatermarkGenerator whose onEvent emits).
	WatermarksPunctuated = "punctuated"
)

// Watermarks is the watermark generation of each subtask of a source.
type Watermarks struct {
	Strategy string
	// BoundedOutOfOrderness is B of bounded_out_of_orderness and
	// punctuated (default 0).
	BoundedOutOfOrderness des.Time
	// AutoWatermarkInterval is the period of watermark emission
	// (pipeline.auto-watermark-interval, default 200ms).
	AutoWatermarkInterval des.Time
	// Idleness marks a subtask without records for that long idle
	// (withIdleness); a topic reader times each partition it owns (its
	// split) and leaves an idle one out of its watermark; 0, the
	// default, never.
	Idleness des.Time
}

// Window kinds (Flink's window assigners:
// https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/windows/).
const (
	WindowTumbling = "tumbling"
	WindowSliding  = "sliding"
	WindowSession  = "session"
	WindowGlobal   = "global" // GlobalWindows with a CountTrigger
)

// Window time characteristics.
const (
	TimeEvent      = "event"
	TimeProcessing = "processing"
)

// Window functions.
const (
	FunctionAggregate = "aggregate" // incremental: reduce/aggregate, one accumulator per key and window
	FunctionProcess   = "process"   // full: ProcessWindowFunction, buffers every record of the window
)

// Window makes an operator a keyed window operator (keyBy().window()), or,
// without hash partitioning at parallelism 1, windowAll.
type Window struct {
	Kind string
	Time string // event (default) or processing
	// Size of tumbling and sliding windows, Slide of sliding ones, Gap of
	// session windows, Count of a global window's CountTrigger.
	Size, Slide, Gap des.Time
	Count            int
	Function         string // aggregate (default) or process
	// AllowedLateness keeps event-time windows for late firings that long
	// past their end (default 0).
	AllowedLateness des.Time
	// LateOutput names the side output of the records later than the
	// allowed lateness (sideOutputLateData with an OutputTag,
	// https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/windows/#getting-late-data-as-a-side-output):
	// a vertex reads it by this name in its inputs, and the late records
	// go there instead of being dropped. Event time only; default none
	// (late records are dropped and counted, numLateRecordsDropped).
	LateOutput string
	// AccumulatorSize is the state of one key and window of aggregate
	// (default 64 B). A result record has the record size of the job's
	// first source.
	AccumulatorSize int64
}

// Dedup is MillWheel's exactly-once at a sink (Akidau et al., VLDB 2013,
// §5.1): every record's production is checkpointed with its id before it
// is delivered (a strong production, ProductionWriteTime of latency), and
// the receiver drops the ids it has seen: a Bloom filter of BloomBits bits
// and Hashes probes over the ids of the last IDRetention (to 2 x
// IDRetention) answers "not seen" for certain, and a "maybe seen" costs a
// stable-storage lookup of LookupTime.
type Dedup struct {
	BloomBits           int      // default 8388608 (1 MiB), > 0
	Hashes              int      // default 7
	IDRetention         des.Time // default 10m
	LookupTime          des.Time // default 1ms
	ProductionWriteTime des.Time // default 1ms
}

// Load-shedding modes (Shedding.Mode).
const (
	SheddingRandom   = "random"   // each record with Probability
	SheddingSemantic = "semantic" // the records of keys KeepKeys and above (key ids are ranks: 0 is the hottest)
)

// Shedding is load shedding (Tatbul et al., "Load Shedding in a Data
// Stream Manager", VLDB 2003: Aurora's drop boxes) at a replayable source
// (Source.Shedding) or in front of an operator (Operator.Shedding): while
// a trigger holds, the records read (a source) or taken from the input
// queue (an operator) are shed, at random with Probability or
// semantically by a predicate on the key (key >= KeepKeys); shed records
// are counted apart from lost ones (delivery.shed, shed_by_operators).
// The triggers are QueueOver and LatencyOver: at least one is given, and
// either one holding sheds.
type Shedding struct {
	// QueueOver is the records queued ahead of the reader: a source's
	// lag in its log (lag_over), an operator's input queue (queue_over);
	// 0 for no such trigger
	QueueOver   int
	LatencyOver des.Time // a source: time in its log; an operator: now − the record's ingestion; 0 for no latency trigger
	Mode        string   // default SheddingRandom
	Probability float64  // random: default 1
	KeepKeys    int      // semantic: keys below it are kept, default 1
}

// Kafka partitioners of a producer (Producer.Partitioner).
const (
	PartitionerMurmur2    = "murmur2"     // Kafka's default for keyed records: toPositive(murmur2(key)) mod partitions
	PartitionerRoundRobin = "round-robin" // RoundRobinPartitioner: one partition after the other
	PartitionerSticky     = "sticky"      // the built-in partitioner of records without a key: batch.size bytes per partition, then a random one
)

// Producer is where a producer source writes: a topic and Kafka's
// partitioner (https://kafka.apache.org/documentation/#producerconfigs_partitioner.class).
type Producer struct {
	// Topic is the topic the records are appended to; Queue, instead,
	// the queue they are published to (one of the two).
	Topic       string
	Queue       string
	Partitioner string // default PartitionerMurmur2
	// BatchSize is the producer's batch.size in bytes (default 16 KiB):
	// the sticky partitioner switches partition after that many bytes.
	BatchSize int64
}

// Topic is a Kafka-like log: partitions, retention and its broker's
// limits (https://kafka.apache.org/documentation/#topicconfigs). A
// retained log is offsets and counts, never stored records.
type Topic struct {
	Name       string
	Partitions int // default 1, > 0
	// Retention deletes records older than Time (retention.ms, default 7
	// days) or beyond Size bytes per partition (retention.bytes, default
	// 0: no size limit), read or not.
	Retention Retention
	// AppendLatency is the time from a producer's send until the record
	// can be read (the leader's append and the producer's request, default
	// 2ms); Bandwidth, if positive, is the most bytes per simulated second
	// a partition's leader appends (default 0: no limit): appends queue
	// behind it.
	AppendLatency des.Time
	Bandwidth     float64
}

// Queue is a message queue on a broker, RabbitMQ or Amazon SQS style
// (https://www.rabbitmq.com/docs/queues): point to point, each message
// delivered to one of the competing consumers and deleted once
// acknowledged (sim/queue).
type Queue struct {
	Name string
	// MemoryBound is how many ready messages the broker holds in memory
	// (default 100000); past it the rest are paged to disk and each
	// delivery pages one in.
	MemoryBound int
	// DeliveryCost is the broker's time to deliver a message held in
	// memory (default 100µs, > 0); PageInCost the extra time to page one
	// in from disk (default 900µs).
	DeliveryCost, PageInCost des.Time
	// VisibilityTimeout is how long a delivered, unacknowledged message
	// stays invisible before it is redelivered (SQS's
	// VisibilityTimeout, default 30s).
	VisibilityTimeout des.Time
}

// ConsumerGroup is a Kafka consumer group outside the job (plain
// KafkaConsumers, not a Flink source): Members consumers share the
// partitions of Topic by Kafka's group protocol (RangeAssignor), each
// processing one record at a time for ServiceTime, committing its
// offsets every AutoCommitInterval (enable.auto.commit); a member that
// fails (Failure kind consumer) is removed SessionTimeout after its last
// heartbeat, and the group rebalances
// (https://kafka.apache.org/documentation/#consumerconfigs).
type ConsumerGroup struct {
	Name        string // group.id, unique among groups
	Topic       string
	Members     int         // default 1
	ServiceTime ServiceTime // processing of one record
	// MaxPollRecords is max.poll.records (default 500): a poll returns
	// at most this many records, all processed before the next poll,
	// where the member commits and joins a rebalance.
	MaxPollRecords int
	// SessionTimeout is session.timeout.ms (default 45s),
	// HeartbeatInterval heartbeat.interval.ms (default 3s, below
	// SessionTimeout), AutoCommitInterval auto.commit.interval.ms
	// (default 5s).
	SessionTimeout     des.Time
	HeartbeatInterval  des.Time
	AutoCommitInterval des.Time
}

// Retention is a topic's retention by time and by size.
type Retention struct {
	Time des.Time // retention.ms, default 7d
	Size int64    // retention.bytes per partition, default 0 (unbounded)
}

// Service-time distributions.
const (
	DistConstant    = "constant"
	DistExponential = "exponential"
	DistUniform     = "uniform"
	DistLognormal   = "lognormal"
)

// ServiceTime is the distribution of the time a subtask spends on one
// record.
type ServiceTime struct {
	Distribution string   // constant (default), exponential, uniform, lognormal
	Mean         des.Time // constant, exponential, lognormal; derived for uniform
	Min, Max     des.Time // uniform
	Stddev       des.Time // lognormal
}

// Partitionings of an edge (Flink's partitioners).
const (
	PartitionForward   = "forward"   // subtask i to subtask i; needs equal parallelism
	PartitionRebalance = "rebalance" // round-robin over all downstream subtasks
	PartitionHash      = "hash"      // by key group of the record key (keyBy)
	PartitionBroadcast = "broadcast" // every record to every downstream subtask
	PartitionRescale   = "rescale"   // round-robin over a local subset of downstream subtasks
)

// Operator is a processing vertex.
type Operator struct {
	Name string
	// Inputs names upstream vertices (`input:` gives one, `inputs:` several).
	Inputs []string
	// Partitioning of every input edge; "" (not given) means each edge's
	// default, forward when its parallelisms are equal and rebalance
	// otherwise (Flink's default; see DefaultPartitioning).
	Partitioning string
	Parallelism  int // default 1
	// MaxParallelism is the number of key groups for hash partitioning;
	// default roundUpToPowerOfTwo(1.5*Parallelism), at least 128.
	MaxParallelism int
	ServiceTime    ServiceTime
	// Selectivity is output records per input record (default 1, at most
	// MaxSelectivity).
	Selectivity float64
	// Network is the resolved network setting of the input edges.
	Network Network
	// State is the keyed state the operator holds; nil for a stateless
	// operator. Keyed state needs hash partitioning (keyBy).
	State *KeyedState
	// Chain is false for an operator that runs as a task of its own,
	// never chained (Flink's disableChaining(); default true).
	Chain bool
	// Window makes the operator a window operator; nil for a plain one.
	Window *Window
	// Graph makes the operator a streaming-graph operator over the edges
	// of its input (streaming_graph.go); nil for a plain operator.
	Graph *GraphOperator
	// Join makes the operator a join of its two inputs; nil for a plain
	// one.
	Join *Join
	// Timer makes the operator a keyed process function with a timer per
	// key; nil for a plain one.
	Timer *Timer
	// Shedding, if set, drops records in front of the operator while its
	// input queue or their latency passes a threshold (see Shedding).
	Shedding *Shedding
}

// Timer is a KeyedProcessFunction with one timer per key
// (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/process_function/):
// each record sets its key's timer Delay after its event time (or, in
// processing time, after its service on the clock), replacing the key's
// earlier one; when a timer fires (no newer record of the key came within
// Delay) the operator emits one record for the key.
type Timer struct {
	Time  string   // event (default) or processing
	Delay des.Time // > 0
}

// Join kinds (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/joining/).
const (
	JoinWindow   = "window"   // a tumbling window join: every pair of a key's records of the two inputs in one window
	JoinInterval = "interval" // an interval join: pairs whose right record is within [left − before, left + after]
)

// Join is a keyed join of an operator's two inputs (the first listed is
// the left one), in event time.
type Join struct {
	Kind string
	// Size of the tumbling windows of a window join.
	Size des.Time
	// Before and After bound an interval join: a left record at t joins
	// the right records at t − Before to t + After (Flink's
	// between(−Before, After)).
	Before, After des.Time
}

// KeyedState is the keyed state of an operator: BytesPerKey for every
// distinct key a subtask has seen.
type KeyedState struct {
	BytesPerKey int64 // bytes, > 0
}

// Sink is a sink vertex: it takes records out of the job. Its service time
// defaults to 0 (records leave on arrival).
type Sink struct {
	Name           string
	Inputs         []string
	Partitioning   string
	Parallelism    int
	MaxParallelism int
	ServiceTime    ServiceTime
	Network        Network
	// Delivery is how the sink writes to the outside world (default
	// at-least-once).
	Delivery string
	// Chain is false for a sink that runs as a task of its own, never
	// chained to its input (Flink's disableChaining(); default true).
	Chain bool
	// Dedup, if set, makes an at-least-once sink deduplicate by record id
	// as MillWheel does (see Dedup).
	Dedup *Dedup
	// Writes, if set, makes the sink Flink's KafkaSink: what it makes
	// visible is appended to a topic (a transactional sink's records at
	// the commit, as read_committed readers see them), which a source of
	// process topic of another job in the scenario may read.
	Writes *Producer
}

// Sink delivery guarantees.
const (
	DeliveryAtLeastOnce   = "at-least-once" // written on arrival; replayed records are written again
	DeliveryAtMostOnce    = "at-most-once"  // written on arrival; after a restart, replays up to the position written are skipped
	DeliveryIdempotent    = "idempotent"    // upsert by record id: replays overwrite
	DeliveryTransactional = "transactional" // two-phase commit: visible when the covering checkpoint completes
)

// Metrics configures sampling.
type Metrics struct {
	Interval des.Time // default 1s, at least MinMetricsInterval
}

// Checkpoint modes.
const (
	CheckpointNone         = "none"           // no checkpoints (default)
	CheckpointStopTheWorld = "stop-the-world" // stop the sources, drain, copy all state, resume
	CheckpointAligned      = "aligned"        // asynchronous barrier snapshotting with alignment (Carbone et al. 2015)
	CheckpointUnaligned    = "unaligned"      // barriers overtake buffered data, which is persisted with the state
)

// Checkpointing configures periodic checkpoints, as Flink's
// execution.checkpointing.* options:
// https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/fault-tolerance/checkpointing/
type Checkpointing struct {
	Mode          string   // none (default), stop-the-world, aligned or unaligned
	Interval      des.Time // time between triggers (required unless mode none)
	Timeout       des.Time // a checkpoint not complete by then fails (default 10m)
	MinPause      des.Time // least time between the end of one checkpoint and the next trigger (default 0)
	MaxConcurrent int      // checkpoints in progress at once (default 1; stop-the-world takes one at a time)
	// TolerableFailures is how many checkpoints in a row may fail before
	// the job fails (and restarts by its strategy); -1, the default, is
	// no limit. Flink's execution.checkpointing.tolerable-failed-checkpoints.
	TolerableFailures int
	// Incremental uploads only the state changed since the last completed
	// checkpoint (rocksdb only).
	Incremental bool
	// AlignedTimeout (unaligned only) starts each checkpoint aligned and
	// switches a subtask to unaligned once it has aligned that long; 0,
	// the default, is unaligned from the start.
	AlignedTimeout des.Time
	// Storage is the checkpoint storage (a distributed file system).
	Storage CheckpointStorage
}

// CheckpointStorage is where snapshots are uploaded and restored from.
// Uploads and downloads queue for its bandwidth, one after another.
type CheckpointStorage struct {
	Bandwidth float64  // bytes per simulated second (default 100 MiB/s)
	Latency   des.Time // per upload or download (default 10ms)
}

// State backends.
const (
	BackendHeap    = "heap"    // objects on the JVM heap: fast, bounded by worker memory
	BackendRocksDB = "rocksdb" // serialized on local disk: slower access, incremental checkpoints
)

// StateBackend is Flink's state backend of the job.
type StateBackend struct {
	Type string // heap (default) or rocksdb
	// AccessTime is added to the service time of every record of a
	// stateful operator (default 100ns for heap, 5µs for rocksdb).
	AccessTime des.Time
	// GCInterval and GCPausePerGiB (heap only) add garbage-collection
	// pauses: every GCInterval each worker stops for GCPausePerGiB per GiB
	// of heap state it holds (at least 1ms). Off (0) by default.
	GCInterval    des.Time
	GCPausePerGiB des.Time
	// SerializationBandwidth is the bytes per simulated second a rocksdb
	// state access (de)serialises beside its access_time: a graph
	// operator's ValueState or ListState read of a neighbour list takes
	// bytes / SerializationBandwidth more; 0 stands for
	// DefaultSerializationBandwidth (see SerializationRate). The heap
	// accepts and ignores it (it keeps objects), so that a scenario stays
	// valid when only state_backend.type changes (the exercise
	// graph-spanner's starter sets it for either backend).
	SerializationBandwidth float64
}

// DefaultSerializationBandwidth is the default
// state_backend.serialization_bandwidth, in bytes per simulated second:
// Flink's serializers of boxed values and lists run at some hundreds of
// MB/s on one core.
const DefaultSerializationBandwidth = 200 << 20

// SerializationRate returns the bytes per simulated second a state access
// (de)serialises: SerializationBandwidth on rocksdb, or its default; 0 on
// the heap, which keeps objects and serialises nothing on access.
func (sb StateBackend) SerializationRate() float64 {
	switch {
	case sb.Type != BackendRocksDB:
		return 0
	case sb.SerializationBandwidth > 0:
		return sb.SerializationBandwidth
	}
	return DefaultSerializationBandwidth
}

// Restart strategies (Flink's restart-strategy.type).
const (
	RestartNone             = "none"
	RestartFixedDelay       = "fixed-delay"
	RestartExponentialDelay = "exponential-delay"
	RestartFailureRate      = "failure-rate"
)

// RestartStrategy says when the job restarts after a failure, as Flink's
// restart-strategy.* options; which fields apply depends on Type.
type RestartStrategy struct {
	Type string // default fixed-delay
	// Attempts (fixed-delay, exponential-delay): restarts before the job
	// fails for good; -1 (the default) is no limit.
	Attempts int
	// Delay (fixed-delay, failure-rate) before each restart (default 1s).
	Delay des.Time
	// exponential-delay: the first backoff (default 1s), multiplied by
	// Multiplier (default 2) after each failure up to MaxBackoff (default
	// 1m); Jitter (default 0.1) spreads each backoff uniformly by ±that
	// fraction, within [InitialBackoff, MaxBackoff]; a failure
	// ResetThreshold (default 1h) or more after the last restart starts
	// the backoff again from InitialBackoff.
	InitialBackoff des.Time
	MaxBackoff     des.Time
	Multiplier     float64
	Jitter         float64
	ResetThreshold des.Time
	// failure-rate: the job fails for good when more than
	// MaxFailuresPerInterval (default 1) failures come within
	// FailureRateInterval (default 1m).
	MaxFailuresPerInterval int
	FailureRateInterval    des.Time
}

// High-availability types of the JobManager.
const (
	HANone      = "none"
	HAZooKeeper = "zookeeper"
)

// HighAvailability is the JobManager's high availability: with zookeeper a
// standby JobManager is elected (LeaderElection, default 10s) and recovers
// the job from its latest checkpoint; with none a JobManager failure loses
// the job.
type HighAvailability struct {
	Type           string
	LeaderElection des.Time
}

// Failure kinds.
const (
	FailureTask             = "task"              // one subtask fails (an exception): reported at once
	FailureWorker           = "worker"            // a TaskManager dies with its subtasks: noticed after heartbeat_timeout
	FailureJobManager       = "jobmanager"        // the JobManager dies
	FailureSlowdown         = "slowdown"          // a straggler: service times × Factor for Duration
	FailureNetworkPartition = "network-partition" // a worker is cut off for Duration
	FailureStorageOutage    = "storage-outage"    // checkpoint storage is unavailable for Duration
	FailureConsumer         = "consumer"          // a member of a consumer group dies: removed after its session timeout
)

// Failure is one scripted failure (At) or a random failure process (MTBF:
// each worker fails independently with exponential times between failures
// of that mean, drawn from the seed; kind task fails a random task of the
// worker, an operator chain counting once, kind jobmanager the JobManager). Only kinds task, worker and
// jobmanager may be random, and a random failure has no Vertex, Subtask or
// Worker.
type Failure struct {
	Kind string
	At   des.Time // scripted time, in [0, Duration); ignored when MTBF > 0
	MTBF des.Time // random: mean time between failures per worker, at least MinMTBF
	// Vertex and Subtask pick the subtask of task and slowdown (Subtask
	// default 0); Worker picks the worker of worker, slowdown (when Vertex
	// is empty) and network-partition (default 0).
	Vertex  string
	Subtask int
	Worker  int
	// Duration of slowdown, network-partition and storage-outage.
	Duration des.Time
	// Factor multiplies service times during a slowdown (default 10).
	Factor float64
	// Group and Member pick the consumer group member of consumer
	// (Member default 0).
	Group  string
	Member int
}

// Engines: the execution model of a job.
const (
	EngineFlink               = "flink"                // pipelined, a record at a time (Flink's runtime)
	EngineSparkStreaming      = "spark-streaming"      // micro-batches of DStreams (Spark Streaming)
	EngineStructuredStreaming = "structured-streaming" // micro-batches of a streaming query (Spark Structured Streaming)
)

// Input streams of Spark Streaming.
const (
	InputDirect   = "direct"   // KafkaUtils.createDirectStream: each batch reads an offset range per Kafka partition
	InputReceiver = "receiver" // a long-running receiver per source subtask stores blocks; each block is a task
)

// Stateful DStream operations.
const (
	StateUpdateStateByKey = "update-state-by-key" // updateStateByKey: every key held is touched every batch
	StateMapWithState     = "map-with-state"      // mapWithState: only the keys of the batch's records, with timeouts
)

// Triggers of Structured Streaming (DataStreamWriter.trigger).
const (
	TriggerDefault        = "default"         // the next micro-batch starts as soon as the previous one ends
	TriggerProcessingTime = "processing-time" // Trigger.ProcessingTime(interval)
	TriggerAvailableNow   = "available-now"   // Trigger.AvailableNow(): what is available at the start, then stop
	TriggerContinuous     = "continuous"      // Trigger.Continuous(interval): long-running tasks, epochs every interval
)

// Output modes of Structured Streaming (DataStreamWriter.outputMode).
const (
	OutputAppend   = "append"   // only rows that will never change again (final windows)
	OutputUpdate   = "update"   // the rows changed since the last trigger
	OutputComplete = "complete" // the whole result table every trigger
)

// Spark configures the micro-batch engines, as Spark's configuration
// (https://spark.apache.org/docs/latest/configuration.html#spark-streaming)
// and the Streaming programming guides name it. Executors are the workers:
// workers.count executors with workers.slots cores each. Operators' service
// times are per record of a task; a hash (keyBy) edge is a shuffle, a new
// stage. A Scenario built in Go may leave it zero: see the defaults in
// fields.go.
type Spark struct {
	// BatchInterval is the batch duration of the StreamingContext
	// (spark-streaming; required, > 0).
	BatchInterval des.Time
	// JobOverhead is the driver's cost per batch (job generation and
	// scheduling), default 10ms; TaskOverhead the cost of launching one
	// task, default 2ms.
	JobOverhead, TaskOverhead des.Time
	// ShuffleBandwidth is how fast a task reads its shuffle input, in
	// bytes per simulated second (default 1 Gbit/s).
	ShuffleBandwidth float64
	// Input is how sources are read: InputDirect (default) or
	// InputReceiver.
	Input string
	// MaxRatePerPartition is spark.streaming.kafka.maxRatePerPartition
	// (direct; records/s per partition, 0 = unlimited);
	// MinRatePerPartition spark.streaming.kafka.minRatePerPartition
	// (default 1).
	MaxRatePerPartition, MinRatePerPartition float64
	// ReceiverMaxRate is spark.streaming.receiver.maxRate (records/s per
	// receiver, 0 = unlimited); BlockInterval spark.streaming.blockInterval
	// (default 200ms); WriteAheadLog
	// spark.streaming.receiver.writeAheadLog.enable, with WALBandwidth the
	// rate at which it writes (bytes/s, default 100 MiB/s).
	ReceiverMaxRate float64
	BlockInterval   des.Time
	WriteAheadLog   bool
	WALBandwidth    float64
	// Backpressure is spark.streaming.backpressure.enabled; the PID
	// estimator's gains and minimum rate are
	// spark.streaming.backpressure.pid.{proportional,integral,derived,minRate}
	// (defaults 1, 0.2, 0, 100) and InitialRate
	// spark.streaming.backpressure.initialRate (0 = none).
	Backpressure                             bool
	PIDProportional, PIDIntegral, PIDDerived float64
	PIDMinRate, InitialRate                  float64
	// StateOperation is the stateful operation of operators with state:
	// StateUpdateStateByKey (default) or StateMapWithState, whose
	// StateTimeout (0 = none) removes keys idle that long.
	StateOperation string
	StateTimeout   des.Time
	// Checkpoint turns on ssc.checkpoint: metadata every batch, state
	// every CheckpointInterval (default for mapWithState batch interval ×
	// 10, for updateStateByKey batch interval × ceil(10s / batch
	// interval), as DStream.initialize), written at CheckpointBandwidth
	// (bytes/s, default 100 MiB/s).
	Checkpoint          bool
	CheckpointInterval  des.Time
	CheckpointBandwidth float64
	// ExecutorRestart is how long a lost executor's cores are missing
	// until the cluster manager has started a replacement (default 10s);
	// DriverRestart how long a failed driver takes to come back and
	// recover from the checkpoint (default 30s).
	ExecutorRestart, DriverRestart des.Time
	// TaskMaxFailures is spark.task.maxFailures (default 4): the failed
	// attempts of one task in a job (failure kind task) after which the
	// TaskSetManager aborts the job.
	TaskMaxFailures int
	// Trigger, TriggerInterval, OutputMode, Watermark and Window are
	// Structured Streaming's: the trigger (default TriggerDefault), its
	// interval (processing-time, continuous), the output mode (default
	// OutputUpdate), withWatermark's delay threshold (0 = none) and the
	// tumbling window of the aggregation by key (0 = no window).
	Trigger         string
	TriggerInterval des.Time
	OutputMode      string
	Watermark       des.Time
	Window          des.Time
}
