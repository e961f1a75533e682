package scenario

// This file is the one description of the scenario format (see format.go):
// every key of every mapping, once. Adding a field to a mapping is a row
// here plus the Go field it fills in types.go and its use in the model;
// the decoder, the defaults, the checks, the JSON Schema and the reference
// tables of docs/authoring.md follow.

// Variant conditions shared by several fields.
var (
	ckptOn      = &Cond{Field: kMode, Values: []string{CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned}}
	bursty      = &Cond{Field: kProcess, Values: []string{ArrivalBursty}}
	heapOnly    = &Cond{Field: kType, Values: []string{BackendHeap}}
	expDelay    = &Cond{Field: kType, Values: []string{RestartExponentialDelay}}
	failureRate = &Cond{Field: kType, Values: []string{RestartFailureRate}}
	timed       = &Cond{Field: kKind, Values: []string{FailureSlowdown, FailureNetworkPartition, FailureStorageOutage}}
)

var workersMapping = &Mapping{
	Path: kWorkers,
	Doc:  "The simulated cluster: TaskManagers with slots. Subtask i of every vertex runs in slot i, filling worker 0 first, so the job needs its largest parallelism <= count x slots.",
	Fields: []*Field{
		{Name: kCount, Go: "Count", Kind: KindInteger, Default: 1, Bounds: Bounds{Min: 1},
			Doc: "Number of workers (TaskManagers)."},
		{Name: kSlots, Go: "Slots", Kind: KindInteger, Default: 4, Bounds: Bounds{Min: 1},
			Doc: "Task slots per worker (Flink's taskmanager.numberOfTaskSlots)."},
		{Name: kMemory, Go: "Memory", Kind: KindSize, Default: "1GiB", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Doc: "Heap of one worker for the keyed state of the heap state backend; heap state beyond it fails the worker (out of memory)."},
		{Name: kHeartbeatTimeout, Go: "HeartbeatTimeout", Kind: KindDuration, Default: "50s", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Former: []string{"heartbeat"},
			Doc:    "How long the JobManager takes to notice a lost worker (Flink's heartbeat.timeout); a failed task is reported at once."},
	},
}

var capacityValues = []Value{
	val(string(Bounded), "credit-based flow control (back-pressure)"),
	val(string(Unbounded), "no flow control, queues grow without bound (for queueing-theory checks)"),
}

// networkMapping is the scenario's network and, with the scenario's values
// as defaults, a vertex's override for its input edges.
var networkMapping = &Mapping{
	Path: kNetwork,
	Doc:  "Network settings of every edge (Flink's credit-based flow control: https://nightlies.apache.org/flink/flink-docs-stable/docs/deployment/memory/network_mem_tuning/); an operator's or sink's network overrides them for its input edges.",
	Fields: []*Field{
		{Name: kBufferSize, Go: "BufferSize", Kind: KindSize, Default: "32KiB", Bounds: Bounds{Positive: true},
			Doc: "Size of a network buffer (Flink's memory segment, taskmanager.memory.segment-size)."},
		{Name: kBuffersPerChannel, Go: "BuffersPerChannel", Kind: KindInteger, Default: 2, Bounds: Bounds{Min: 1},
			Doc: "Exclusive buffers per input channel: the credit a receiver grants each sender (taskmanager.network.memory.buffers-per-channel)."},
		{Name: kFloatingBuffers, Go: "FloatingBuffers", Kind: KindInteger, Default: 8, Bounds: Bounds{Min: 0},
			Doc: "Floating buffers per input gate, shared by its channels (taskmanager.network.memory.floating-buffers-per-gate)."},
		{Name: kBufferTimeout, Go: "BufferTimeout", Kind: KindDuration, Default: "100ms", Bounds: Bounds{Min: 0},
			Doc: "How often the output flusher ships the partly filled buffers: a free-running timer per output, so a record waits half of it on average (RecordWriter's OutputFlusher); 0 ships after every record (execution.buffer-timeout)."},
		{Name: kLatency, Go: "Latency", Kind: KindDuration, Default: "1ms", Bounds: Bounds{Min: 0},
			Doc: "One-way network latency between workers (none within a worker)."},
		{Name: kBandwidth, Go: "Bandwidth", Kind: KindBandwidth, Default: "1Gbit/s", Bounds: Bounds{Positive: true},
			Doc: "Network bandwidth between workers; a transfer takes latency + bytes / bandwidth."},
		{Name: kCapacity, Go: "Capacity", Kind: KindEnum, Default: string(Bounded), Values: capacityValues,
			Doc: "Flow control of the edges."},
	},
}

var stepMapping = &Mapping{
	Path: kSources + "[]." + kArrival + "." + kSchedule + "[]",
	Doc:  "One step of a schedule.",
	Fields: []*Field{
		{Name: kAt, Go: "At", Kind: KindDuration, Required: true, Doc: "Simulated time the step starts."},
		{Name: kRate, Go: "Rate", Kind: KindRate, Required: true, Bounds: Bounds{Min: 0, Max: MaxRate, Per: " per subtask", MaxWhy: "one record per nanosecond"},
			Doc: "Records per simulated second from at until the next step."},
	},
}

var rateBounds = Bounds{Positive: true, Max: MaxRate, Per: " per subtask", MaxWhy: "one record per nanosecond"}

var arrivalMapping = &Mapping{
	Path: kSources + "[]." + kArrival,
	Doc:  "Arrival process of each subtask; rates are per subtask.",
	Fields: []*Field{
		{Name: kProcess, Go: "Process", Kind: KindEnum, Required: true, Values: []Value{
			val(ArrivalConstant, "evenly spaced records at rate"),
			val(ArrivalPoisson, "exponential inter-arrival times with mean 1/rate"),
			val(ArrivalBursty, "on/off (two-state MMPP): Poisson at rate for on_time and at off_rate for off_time, alternately"),
			val(ArrivalSchedule, "piecewise-constant rates"),
			val(ArrivalTrace, "replays a data set or a CSV file at its own timestamps"),
			val(ArrivalTopic, "reads a topic of topics (Flink's KafkaSource): the records its producers appended"),
			val(ArrivalQueue, "consumes a queue of queues (Flink's RabbitMQ source, RMQSource): competing consumers, acknowledged when a checkpoint completes"),
		}, Doc: "The arrival process."},
		{Name: kRate, Go: "Rate", Kind: KindRate, Bounds: rateBounds,
			Only:         &Cond{Field: kProcess, Values: []string{ArrivalConstant, ArrivalPoisson, ArrivalBursty}},
			RequiredWhen: &Cond{Field: kProcess, Values: []string{ArrivalConstant, ArrivalPoisson, ArrivalBursty}},
			Doc:          "Records per simulated second of constant and poisson, and of bursty while on."},
		{Name: kOffRate, Go: "OffRate", Kind: KindRate, Default: "0/s", Only: bursty, Bounds: Bounds{Min: 0, Max: MaxRate, Per: " per subtask", MaxWhy: "one record per nanosecond"},
			Doc: "Rate of bursty while off."},
		{Name: kOnTime, Go: "On", Kind: KindDuration, Only: bursty, RequiredWhen: bursty, Bounds: Bounds{Positive: true}, Former: []string{"on"},
			Doc: "Mean duration of bursty's on periods (exponentially distributed). Formerly on, which YAML 1.1 tools such as PyYAML read as true."},
		{Name: kOffTime, Go: "Off", Kind: KindDuration, Only: bursty, RequiredWhen: bursty, Bounds: Bounds{Positive: true}, Former: []string{"off"},
			Doc: "Mean duration of bursty's off periods (exponentially distributed). Formerly off."},
		{Name: kSchedule, Go: "Schedule", Kind: KindList, Sub: stepMapping, Noun: "step", Example: "[{at: 0s, rate: 100/s}, {at: 60s, rate: 200/s}]",
			Only:         &Cond{Field: kProcess, Values: []string{ArrivalSchedule}},
			RequiredWhen: &Cond{Field: kProcess, Values: []string{ArrivalSchedule}},
			Doc:          "Steps of process schedule, by increasing at, the first at 0s; records are evenly spaced within a step, a rate of 0 pauses the source."},
		{Name: kTrace, Go: "Trace", Kind: KindMapping, Sub: traceMapping,
			Only:         &Cond{Field: kProcess, Values: []string{ArrivalTrace}},
			RequiredWhen: &Cond{Field: kProcess, Values: []string{ArrivalTrace}},
			Doc:          "What process trace replays (see the trace fields)."},
		{Name: kTopic, Go: "Topic", Kind: KindName,
			Only:         &Cond{Field: kProcess, Values: []string{ArrivalTopic}},
			RequiredWhen: &Cond{Field: kProcess, Values: []string{ArrivalTopic}},
			Doc:          "The topic process topic reads; its partitions go to the subtasks as Flink's KafkaSourceEnumerator.getSplitOwner assigns them (https://nightlies.apache.org/flink/flink-docs-stable/docs/connectors/datastream/kafka/)."},
		{Name: kQueue, Go: "Queue", Kind: KindName,
			Only:         &Cond{Field: kProcess, Values: []string{ArrivalQueue}},
			RequiredWhen: &Cond{Field: kProcess, Values: []string{ArrivalQueue}},
			Doc:          "The queue process queue consumes; its subtasks are competing consumers, each a channel of its own, acknowledging the messages they emitted before a checkpoint when it completes (at-least-once: https://nightlies.apache.org/flink/flink-docs-stable/docs/connectors/datastream/rabbitmq/)."},
	},
}

var keysMapping = &Mapping{
	Path: kSources + "[]." + kKeys,
	Doc:  "Record keys, drawn independently per record.",
	Fields: []*Field{
		{Name: kCount, Go: "Count", Kind: KindInteger, Default: 1000, Bounds: Bounds{Min: 1}, Doc: "Number of distinct keys."},
		{Name: kDistribution, Go: "Distribution", Kind: KindEnum, Default: KeysUniform, Values: []Value{
			val(KeysUniform, "every key equally likely"),
			val(KeysZipf, "the key of rank r has weight 1/r^exponent"),
		}, Doc: "How keys are drawn."},
		{Name: kExponent, Go: "Exponent", Kind: KindRatio, Default: 1.0, Bounds: Bounds{Positive: true},
			Only: &Cond{Field: kDistribution, Values: []string{KeysZipf}}, Doc: "Exponent s of zipf."},
	},
}

var sourceMapping = &Mapping{
	Path:    kSources + "[]",
	Doc:     "A source vertex: where records enter the job (Flink's Source, reading a Kafka topic or a socket).",
	Special: map[string]string{kInput: noInput, kInputs: noInput},
	Fields: []*Field{
		vertexName(),
		{Name: kParallelism, Go: "Parallelism", Kind: KindInteger, Default: 1, Bounds: Bounds{Min: 1},
			Doc: "Number of subtasks; each runs the arrival process."},
		{Name: kArrival, Go: "Arrival", Kind: KindMapping, Sub: arrivalMapping, Required: true, Doc: "The arrival process."},
		{Name: kKeys, Go: "Keys", Kind: KindMapping, Sub: keysMapping,
			Only: &Cond{Field: kArrival + "." + kProcess, Values: []string{ArrivalTrace, ArrivalTopic, ArrivalQueue}, Not: true,
				Why: "a trace source takes its keys from the trace's key_column, a topic's or a queue's reader from its producers"},
			Doc: "Record keys."},
		{Name: kRecordSize, Go: "RecordSize", Kind: KindSize, Default: "100B", Bounds: Bounds{Positive: true, Max: int64(MaxRecordSize)},
			Doc: "Size of each record."},
		{Name: kMaxRate, Go: "MaxRate", Kind: KindRate, DefaultDoc: "no limit", ZeroDefault: true,
			Bounds: Bounds{Positive: true, PositiveWhy: "leave max_rate out for no limit", Max: MaxRate, Per: " per subtask", MaxWhy: "one record per nanosecond"},
			Doc:    "Most records per simulated second one subtask can read (fetch from its log or socket): reading a record takes 1/max_rate of busy time. Equal to the arrival rate, it makes a saturated source: behind a bottleneck of rate μ it is back-pressured 1 − μ/max_rate of the time. Without it, a lagging source catches up as fast as credit allows."},
		{Name: kReplayable, Go: "Replayable", Kind: KindBool, Default: true,
			Doc: "true: the source reads a log such as a Kafka topic by offset; back-pressure becomes consumer lag, nothing is lost, and it rewinds on recovery. false: a socket (see on_backpressure)."},
		{Name: kOnBackpressure, Go: "OnBackpressure", Kind: KindEnum, Default: OnBackpressureBlock, Values: []Value{
			val(OnBackpressureBlock, "the producer waits (TCP back-pressure): nothing is lost"),
			val(OnBackpressureBuffer, "arrivals continue into a buffer of buffer_limit records, then are dropped"),
			val(OnBackpressureDrop, "arrivals while blocked are dropped"),
		}, Only: &Cond{Field: kReplayable, Values: []string{"false"}, Text: "sources with replayable: false", Why: "a replayable source turns back-pressure into lag"},
			Doc: "What a non-replayable source does when back-pressured."},
		{Name: kBufferLimit, Go: "BufferLimit", Kind: KindInteger, Default: 10000, Bounds: Bounds{Min: 1},
			Only: &Cond{Field: kOnBackpressure, Values: []string{OnBackpressureBuffer}, Text: "on_backpressure: buffer"},
			Doc:  "Records the buffer of on_backpressure: buffer holds."},
		{Name: kEventDelay, Go: "EventDelay", Kind: KindMapping, Sub: eventDelayMapping, DefaultDoc: "no delay: event time = arrival",
			Only: &Cond{Field: kArrival + "." + kProcess, Values: []string{ArrivalTrace}, Not: true,
				Why: "a trace source takes its delay from trace.max_delay"},
			Doc: "Out-of-orderness: each record's event time is its arrival at the source less a delay drawn from this distribution."},
		{Name: kWatermarks, Go: "Watermarks", Kind: KindMapping, Sub: watermarksMapping, DefaultDoc: "no watermarks",
			Doc: "Watermark generation of each subtask (Flink's WatermarkStrategy); needed by event-time windows downstream."},
		{Name: kEdges, Go: "Edges", Kind: KindMapping, Sub: edgesMapping, DefaultDoc: "plain records", Doc: "An edge stream: each record is the next edge of a graph (streaming-graph operators read it)."},
		{Name: kShedding, Go: "Shedding", Kind: KindMapping, Sub: sheddingMapping,
			DefaultDoc: "no shedding",
			Doc:        "Load shedding: while the source's lag or the records' time in its log passes a threshold, the records it reads are dropped (shed), at random or by key; they are counted apart from lost ones."},
		{Name: kWrites, Go: "Writes", Kind: KindMapping, Sub: producerMapping,
			Doc: "Makes the source a Kafka producer outside the job: its records are appended to a topic (read it with a source of arrival process topic); no vertex reads the source itself."},
	},
}

var (
	delayMeanOnly = &Cond{Field: kDistribution, Values: []string{DelayConstant, DelayExponential, DelayNormal}}
	delayMaxOnly  = &Cond{Field: kDistribution, Values: []string{DelayUniform, DelayNormal}}
	delayUniform  = &Cond{Field: kDistribution, Values: []string{DelayUniform}}
	delayNormal   = &Cond{Field: kDistribution, Values: []string{DelayNormal}}
)

var eventDelayMapping = &Mapping{
	Path: kSources + "[]." + kEventDelay,
	Doc:  "The delay of a record's arrival after its event time, drawn per record (decided by a hash of the record id, so a replay has the same event time), as the course's sources drew maxEventDelaySecs.",
	Fields: []*Field{
		{Name: kDistribution, Go: "Distribution", Kind: KindEnum, Required: true, Values: []Value{
			val(DelayConstant, "always mean"), val(DelayUniform, "between min and max"),
			val(DelayExponential, "exponential with mean"), val(DelayNormal, "normal with mean and stddev, truncated to [0, max]"),
		}, Doc: "The delay distribution."},
		{Name: kMean, Go: "Mean", Kind: KindDuration, Bounds: Bounds{Min: 0}, Only: delayMeanOnly, RequiredWhen: delayMeanOnly,
			Doc: "Mean delay (of normal: before truncation)."},
		{Name: kMin, Go: "Min", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0}, Only: delayUniform, Doc: "Least delay of uniform."},
		{Name: kMax, Go: "Max", Kind: KindDuration, Bounds: Bounds{Positive: true}, Only: delayMaxOnly, RequiredWhen: delayMaxOnly,
			Doc: "Greatest delay of uniform (at least min) and of normal."},
		{Name: kStddev, Go: "Stddev", Kind: KindDuration, Bounds: Bounds{Positive: true}, Only: delayNormal, RequiredWhen: delayNormal,
			Doc: "Standard deviation of normal (before truncation)."},
	},
}

var boundedOnly = &Cond{Field: kStrategy, Values: []string{WatermarksBounded, WatermarksPunctuated}}

var watermarksMapping = &Mapping{
	Path: kSources + "[]." + kWatermarks,
	Doc:  "Watermark generation per source subtask, as Flink's WatermarkStrategy (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/event-time/generating_watermarks/). Watermarks travel through the network buffers behind the records, to every output channel; a task's input watermark is the minimum over its input channels that are not idle.",
	Fields: []*Field{
		{Name: kStrategy, Go: "Strategy", Kind: KindEnum, Required: true, Values: []Value{
			val(WatermarksBounded, "forBoundedOutOfOrderness: the largest event time seen − bounded_out_of_orderness − 1ns, every auto_watermark_interval"),
			val(WatermarksMonotonous, "forMonotonousTimestamps: the largest event time seen − 1ns, every auto_watermark_interval"),
			val(WatermarksPunctuated, "a punctuated generator: every record carries the watermark largest event time seen − bounded_out_of_orderness − 1ns"),
		}, Doc: "The watermark strategy."},
		{Name: kBoundedOutOfOrderness, Go: "BoundedOutOfOrderness", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0}, Only: boundedOnly,
			Doc: "How far behind the largest event time seen the watermark stays (B of forBoundedOutOfOrderness)."},
		{Name: kAutoWatermarkInterval, Go: "AutoWatermarkInterval", Kind: KindDuration, Default: "200ms", FillZero: true,
			Bounds: Bounds{Positive: true},
			Doc:    "Period of watermark emission (pipeline.auto-watermark-interval); punctuated also checks idleness at this period."},
		{Name: kIdleness, Go: "Idleness", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Doc: "withIdleness: a subtask that read no record for this long is marked idle and no longer holds the watermark back downstream (Flink's IdlenessTimer, checked at every emission); a topic reader times each partition it owns, and a silent partition marked idle no longer holds back the others; 0 is never idle."},
	},
}

// sheddingLink names the paper the shedding fields follow.
const sheddingLink = "Tatbul, Çetintemel, Zdonik, Cherniack, Stonebraker: Load Shedding in a Data Stream Manager, VLDB 2003; Aurora's drop boxes"

// sheddingFields are the fields of a source's and an operator's
// shedding: the trigger given (over), then latency_over and what is shed.
func sheddingFields(over *Field, latencyDoc string) []*Field {
	return []*Field{over,
		{Name: kLatencyOver, Go: "LatencyOver", Kind: KindDuration, Bounds: Bounds{Positive: true}, ZeroDefault: true, DefaultDoc: "no latency trigger",
			Doc: latencyDoc},
		{Name: kMode, Go: "Mode", Kind: KindEnum, Default: SheddingRandom, Values: []Value{
			val(SheddingRandom, "each record is shed with probability (decided by a hash of its id: a replay sheds the same)"),
			val(SheddingSemantic, "the records of keys keep_keys and above are shed (key ids are ranks, 0 the hottest): a predicate on the key"),
		}, Doc: "Which records are shed."},
		{Name: kProbability, Go: "Probability", Kind: KindRatio, Default: 1.0, Bounds: Bounds{Positive: true, Max: 1.0},
			Only: &Cond{Field: kMode, Values: []string{SheddingRandom}}, Doc: "Probability that a record is shed while a trigger holds (random)."},
		{Name: kKeepKeys, Go: "KeepKeys", Kind: KindInteger, Default: 1, Bounds: Bounds{Min: 1},
			Only: &Cond{Field: kMode, Values: []string{SheddingSemantic}}, Doc: "Keys below this id are kept, the others shed (semantic)."},
	}
}

var sheddingMapping = &Mapping{
	Path: kSources + "[]." + kShedding,
	Doc: "Load shedding at a replayable source (" + sheddingLink + "): shed records are read and dropped, never emitted, and counted in delivery.shed. " +
		"Give lag_over, latency_over or both: the source sheds while either passes its threshold.",
	Fields: sheddingFields(
		&Field{Name: kLagOver, Go: "QueueOver", Kind: KindInteger, Bounds: Bounds{Min: 1}, ZeroDefault: true, DefaultDoc: "no lag trigger",
			Doc: "Shed while the source's lag (records appended to its log and not read: a topic's pendingRecords) is above this many records."},
		"Shed the records that waited longer than this in the source's log (now − the time the record was appended: the lag in time)."),
}

var operatorSheddingMapping = &Mapping{
	Path: kOperators + "[]." + kShedding,
	Doc: "Load shedding at an operator, a drop box in front of it (" + sheddingLink + "): a record taken from the input queue while a trigger holds is shed, counted in the operator's shed_records and delivery.shed_by_operators, never processed. " +
		"Give queue_over, latency_over or both: the operator sheds while either passes its threshold. An operator that sheds is never chained to its input (it reads its own input gate).",
	Fields: sheddingFields(
		&Field{Name: kQueueOver, Go: "QueueOver", Kind: KindInteger, Bounds: Bounds{Min: 1}, ZeroDefault: true, DefaultDoc: "no queue trigger",
			Doc: "Shed while more than this many records wait in the subtask's input queue (its input gate's buffers: queued_records in timeseries.csv)."},
		"Shed the records whose latency, now − when the source emitted them into the job (the latency the sinks report), is above this as the operator takes them."),
}

var producerMapping = &Mapping{
	Path: kSources + "[]." + kWrites,
	Doc:  "Where a producer source writes (https://kafka.apache.org/documentation/#producerconfigs).",
	Fields: []*Field{
		{Name: kTopic, Go: "Topic", Kind: KindName, EmptyOK: true, DefaultDoc: "none: give topic or queue", Doc: "The topic of topics the records are appended to."},
		{Name: kQueue, Go: "Queue", Kind: KindName, EmptyOK: true, DefaultDoc: "none: give topic or queue",
			Doc: "The queue of queues the records are published to, instead of a topic (a RabbitMQ or SQS producer: https://www.rabbitmq.com/docs/publishers)."},
		{Name: kPartitioner, Go: "Partitioner", Kind: KindEnum, Default: PartitionerMurmur2, Values: []Value{
			val(PartitionerMurmur2, "Kafka's default for keyed records: toPositive(murmur2(key)) mod partitions, the key serialized as IntegerSerializer does"),
			val(PartitionerRoundRobin, "RoundRobinPartitioner: partitions in turn, whatever the key"),
			val(PartitionerSticky, "the built-in partitioner of records without a key: batch_size bytes to one partition, then a random one (KIP-480)"),
		}, Doc: "How records are spread over the partitions (partitioner.class)."},
		{Name: kBatchSize, Go: "BatchSize", Kind: KindSize, Default: "16KiB", Bounds: Bounds{Positive: true},
			Only: &Cond{Field: kPartitioner, Values: []string{PartitionerSticky}},
			Doc:  "The producer's batch.size: the sticky partitioner switches partition after this many bytes."},
	},
}

var dedupMapping = &Mapping{
	Path: kSinks + "[]." + kDedup,
	Doc:  "MillWheel's exactly-once delivery at a sink (Akidau et al., MillWheel, VLDB 2013, section 5.1): strong productions and deduplication by record id.",
	Fields: []*Field{
		{Name: kBloomBits, Go: "BloomBits", Kind: KindInteger, Default: 8388608, Bounds: Bounds{Min: 1, Max: 1 << 36, MinWhy: "a Bloom filter needs bits"},
			Doc: "Bits of the Bloom filter of recent ids (rounded up to a multiple of 64); its false-positive rate is (1 − e^(−kn/m))^k for n ids."},
		{Name: kHashes, Go: "Hashes", Kind: KindInteger, Default: 7, Bounds: Bounds{Min: 1, Max: 64},
			Doc: "Probes per id (k); the best k for n ids in m bits is m/n · ln 2."},
		{Name: kIDRetention, Go: "IDRetention", Kind: KindDuration, Default: "10m", Bounds: Bounds{Positive: true},
			Doc: "How long the Bloom filter remembers ids: it holds the ids of the last id_retention to 2 x id_retention (two generations); a duplicate older than that passes the filter and is not caught. The stable storage keeps every id written for the whole run (dedup state_bytes grows with them, whatever id_retention)."},
		{Name: kLookupTime, Go: "LookupTime", Kind: KindDuration, Default: "1ms", Bounds: Bounds{Min: 0},
			Doc: "Latency of a stable-storage lookup, paid by a record the filter may have seen."},
		{Name: kProductionWriteTime, Go: "ProductionWriteTime", Kind: KindDuration, Default: "1ms", Bounds: Bounds{Min: 0},
			Doc: "Latency of checkpointing a production with its id before it is delivered (a strong production), paid by every record."},
	},
}

// sinkProducerMapping is where a sink writes (Flink's KafkaSink): the
// fields of a producer's writes.
var sinkProducerMapping = &Mapping{
	Path:   kSinks + "[]." + kWrites,
	Doc:    "The topic a sink writes and its partitioner (Flink's KafkaSink: https://nightlies.apache.org/flink/flink-docs-stable/docs/connectors/datastream/kafka/#kafka-sink; on the micro-batch engines Spark's Kafka sink, at-least-once, its records visible when their batch's job ends).",
	Fields: producerMapping.Fields,
}

var retentionMapping = &Mapping{
	Path: kTopics + "[]." + kRetention,
	Doc:  "Retention of a topic: records are deleted when older than time or beyond size, read or not (https://kafka.apache.org/documentation/#topicconfigs_retention.ms).",
	Fields: []*Field{
		{Name: kTime, Go: "Time", Kind: KindDuration, Default: "168h", Bounds: Bounds{Positive: true},
			Doc: "Records older than this are deleted (retention.ms); a reader that lags more loses them."},
		{Name: kSize, Go: "Size", Kind: KindSize, Default: "0B", DefaultDoc: "no limit", ZeroDefault: true,
			Bounds: Bounds{Positive: true, PositiveWhy: "leave size out for no limit, as Kafka's retention.bytes -1"},
			Doc:    "Most bytes a partition retains (retention.bytes); the oldest records beyond it are deleted. Leave it out for no limit."},
	},
}

var topicMapping = &Mapping{
	Path: kTopics + "[]",
	Doc:  "A Kafka-like topic: a log of partitions kept as offsets and counts (https://kafka.apache.org/documentation/#intro_concepts_and_terms).",
	Fields: []*Field{
		{Name: kName, Go: "Name", Kind: KindName, Required: true, Doc: "Name of the topic, unique among topics."},
		{Name: kPartitions, Go: "Partitions", Kind: KindInteger, Default: 1, Bounds: Bounds{Min: 1, Max: 100000},
			Doc: "Number of partitions (num.partitions)."},
		{Name: kRetention, Go: "Retention", Kind: KindMapping, Sub: retentionMapping, Doc: "Retention by time and by size."},
		{Name: kAppendLatency, Go: "AppendLatency", Kind: KindDuration, Default: "2ms", Bounds: Bounds{Min: 0},
			Doc: "Time from a producer's send until the record can be read (the leader's append)."},
		{Name: kBandwidth, Go: "Bandwidth", Kind: KindBandwidth, Default: "0B/s", DefaultDoc: "no limit", Bounds: Bounds{Min: 0},
			Doc: "Most bytes per second a partition's leader appends; appends beyond it queue (a broker limit). 0 for no limit."},
	},
}

var queueMapping = &Mapping{
	Path: kQueues + "[]",
	Doc:  "A message queue, RabbitMQ or SQS style (https://www.rabbitmq.com/docs/queues): point to point, each message delivered to one of the competing consumers and deleted once acknowledged; the broker holds its working set in memory and pages the rest to disk.",
	Fields: []*Field{
		{Name: kName, Go: "Name", Kind: KindName, Required: true, Doc: "Name of the queue, unique among queues."},
		{Name: kMemoryBound, Go: "MemoryBound", Kind: KindInteger, Default: 100000, Bounds: Bounds{Min: 1, Max: 1 << 40, MinWhy: "a broker holds some messages in memory"},
			Doc: "Ready messages the broker holds in memory (its working set); past it the others are paged to disk and each delivery pages one in (RabbitMQ's paging past vm_memory_high_watermark_paging_ratio: https://www.rabbitmq.com/docs/memory#paging)."},
		{Name: kDeliveryCost, Go: "DeliveryCost", Kind: KindDuration, Default: "100us", Bounds: Bounds{Positive: true, PositiveWhy: "a broker takes time to deliver a message"},
			Doc: "The broker's time to deliver one message held in memory, on its one delivery thread: at most 1/delivery_cost messages per second over all consumers."},
		{Name: kPageInCost, Go: "PageInCost", Kind: KindDuration, Default: "900us", Bounds: Bounds{Min: 0},
			Doc: "The extra time to deliver a message paged to disk (read back in): while the ready backlog passes memory_bound the broker delivers 1/(delivery_cost + page_in_cost) per second."},
		{Name: kVisibilityTimeout, Go: "VisibilityTimeout", Kind: KindDuration, Default: "30s", Bounds: Bounds{Positive: true},
			Doc: "How long a delivered, unacknowledged message stays invisible to other consumers; then it is redelivered, flagged redelivered (SQS's VisibilityTimeout: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html; RabbitMQ requeues a dead channel's deliveries)."},
	},
}

// groupServiceTimeMapping is the processing time of a consumer group's
// member per record: the fields of a service time.
var groupServiceTimeMapping = &Mapping{
	Path:   kConsumerGroups + "[]." + kServiceTime,
	Doc:    "Time a member of a consumer group spends processing one record (between its polls).",
	Fields: serviceTimeMapping.Fields,
}

var consumerGroupMapping = &Mapping{
	Path: kConsumerGroups + "[]",
	Doc:  "A Kafka consumer group outside the job: plain consumers that share a topic's partitions by Kafka's group protocol (https://kafka.apache.org/documentation/#consumerconfigs).",
	Fields: []*Field{
		{Name: kName, Go: "Name", Kind: KindName, Required: true, Doc: "The group.id, unique among consumer groups."},
		{Name: kTopic, Go: "Topic", Kind: KindName, Required: true, Doc: "The topic the group subscribes to (a topic of producers)."},
		{Name: kMembers, Go: "Members", Kind: KindInteger, Default: 1, Bounds: Bounds{Min: 1, Max: 1000},
			Doc: "Consumers in the group; the topic's partitions are shared among them by RangeAssignor (partition.assignment.strategy)."},
		{Name: kServiceTime, Go: "ServiceTime", Kind: KindMapping, Sub: groupServiceTimeMapping, Required: true,
			Doc: "Processing time of one record by a member."},
		{Name: kMaxPollRecords, Go: "MaxPollRecords", Kind: KindInteger, Default: 500, Bounds: Bounds{Min: 1, Max: 100000}, ZeroDefault: true,
			Doc: "max.poll.records: a poll returns at most this many of the records readable then, and the member processes them all before it polls again (where it commits, and joins a rebalance)."},
		{Name: kSessionTimeout, Go: "SessionTimeout", Kind: KindDuration, Default: "45s", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Doc: "session.timeout.ms: a member without a heartbeat for this long is removed from the group, which rebalances."},
		{Name: kHeartbeatInterval, Go: "HeartbeatInterval", Kind: KindDuration, Default: "3s", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Doc: "heartbeat.interval.ms: how often a member heartbeats to the group coordinator, and so how soon it hears of a rebalance; lower than session_timeout."},
		{Name: kAutoCommitInterval, Go: "AutoCommitInterval", Kind: KindDuration, Default: "5s", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Doc: "auto.commit.interval.ms (enable.auto.commit true): a member's poll commits the offsets it consumed once this much time passed since its last commit."},
	},
}

// val is an enum value and its one-line doc.
func val(name, doc string) Value { return Value{Name: name, Doc: doc} }

const noInput = "a source has no input; it reads records from outside the job"

func vertexName() *Field {
	return &Field{Name: kName, Go: "Name", Kind: KindName, Required: true,
		Doc: "Name of the vertex, unique in the job: ASCII letters, digits, _, - and ., not starting with - or . (at most 64)."}
}

var serviceTimeMapping = &Mapping{
	Path: kOperators + "[]." + kServiceTime,
	Doc:  "Time a subtask spends on one record (also sinks[].service_time, where it defaults to constant 0: records leave on arrival).",
	Fields: []*Field{
		{Name: kDistribution, Go: "Distribution", Kind: KindEnum, Default: DistConstant, Values: []Value{
			val(DistConstant, "always mean"), val(DistExponential, "exponential with mean"),
			val(DistUniform, "between min and max"), val(DistLognormal, "lognormal with mean and stddev"),
		}, Doc: "The distribution of service times."},
		{Name: kMean, Go: "Mean", Kind: KindDuration, Bounds: Bounds{Min: 0},
			Only:         &Cond{Field: kDistribution, Values: []string{DistConstant, DistExponential, DistLognormal}},
			RequiredWhen: &Cond{Field: kDistribution, Values: []string{DistConstant, DistExponential, DistLognormal}},
			Doc:          "Mean service time; greater than 0 for exponential and lognormal."},
		{Name: kMin, Go: "Min", Kind: KindDuration, Bounds: Bounds{Min: 0}, Only: uniformOnly, RequiredWhen: uniformOnly,
			Doc: "Least service time of uniform."},
		{Name: kMax, Go: "Max", Kind: KindDuration, Bounds: Bounds{Min: 0}, Only: uniformOnly, RequiredWhen: uniformOnly,
			Doc: "Greatest service time of uniform; at least min."},
		{Name: kStddev, Go: "Stddev", Kind: KindDuration, Bounds: Bounds{Positive: true}, Only: lognormalOnly, RequiredWhen: lognormalOnly,
			Doc: "Standard deviation of lognormal."},
	},
}

var (
	uniformOnly   = &Cond{Field: kDistribution, Values: []string{DistUniform}}
	lognormalOnly = &Cond{Field: kDistribution, Values: []string{DistLognormal}}
)

var partitioningValues = []Value{
	val(PartitionForward, "subtask i to subtask i; needs equal parallelism"),
	val(PartitionRebalance, "round-robin over all downstream subtasks"),
	val(PartitionHash, "by key group of the record key (keyBy)"),
	val(PartitionBroadcast, "every record to every downstream subtask"),
	val(PartitionRescale, "round-robin over a local subset of downstream subtasks"),
}

// vertexFields are the fields of operators and sinks: those they share,
// their own, and the network of their input edges.
func vertexFields(serviceRequired bool, own ...*Field) []*Field {
	shared := []*Field{
		vertexName(),
		{Name: kInput, Kind: KindCustom, Schema: obj{"type": "string"}, Doc: "Name of the upstream vertex (a source or an operator). Give input or inputs."},
		{Name: kInputs, Kind: KindCustom, Schema: obj{"type": "array", "minItems": 1, "uniqueItems": true, "items": obj{"type": "string"}}, Doc: "Names of several upstream vertices (a join or union), such as [a, b]. Give input or inputs."},
		{Name: kPartitioning, Go: "Partitioning", Kind: KindEnum, Values: partitioningValues, EmptyOK: true,
			DefaultDoc: "per input edge: forward when its parallelisms are equal, else rebalance (Flink's default)",
			Doc:        "How records of every input edge are spread over the subtasks (Flink's partitioners; hash is keyBy)."},
		{Name: kParallelism, Go: "Parallelism", Kind: KindInteger, Default: 1, Bounds: Bounds{Min: 1}, Doc: "Number of subtasks."},
		{Name: kMaxParallelism, Go: "MaxParallelism", Kind: KindInteger, Bounds: Bounds{Min: 1, Max: MaxMaxParallelism},
			DefaultDoc: "roundUpToPowerOfTwo(1.5 × parallelism), at least 128 (Flink's default)",
			Doc:        "Number of key groups of hash partitioning, at least parallelism (Flink's pipeline.max-parallelism)."},
		{Name: kServiceTime, Go: "ServiceTime", Kind: KindMapping, Sub: serviceTimeMapping, Required: serviceRequired,
			Doc: "Time a subtask spends on one record."},
		{Name: kChain, Go: "Chain", Kind: KindBool, Default: true,
			Doc: "Whether the vertex may be chained with its input and its outputs into one task (false is Flink's disableChaining(): it runs as a task of its own)."},
	}
	return append(append(shared, own...), &Field{Name: kNetwork, Go: "Network", Kind: KindMapping, Sub: networkMapping,
		DefaultDoc: "the scenario's network", Inherit: true, Doc: "Network settings of the input edges, overriding the scenario's."})
}

var keyedStateMapping = &Mapping{
	Path: kOperators + "[]." + kState,
	Doc:  "Keyed state of the operator: bytes_per_key for every distinct key a subtask has seen, kept in the state backend and snapshotted by checkpoints. Needs partitioning: hash (keyBy).",
	Fields: []*Field{
		{Name: kBytesPerKey, Go: "BytesPerKey", Kind: KindSize, Required: true, Bounds: Bounds{Positive: true, Max: int64(MaxBytesPerKey)},
			Doc: "Keyed state per distinct key a subtask has seen; it grows as new keys come (state_bytes in timeseries.csv)."},
	},
}

var (
	sizedWindow   = &Cond{Field: kKind, Values: []string{WindowTumbling, WindowSliding}}
	slidingWindow = &Cond{Field: kKind, Values: []string{WindowSliding}}
	sessionWindow = &Cond{Field: kKind, Values: []string{WindowSession}}
	globalWindow  = &Cond{Field: kKind, Values: []string{WindowGlobal}}
	timedWindow   = &Cond{Field: kKind, Values: []string{WindowTumbling, WindowSliding, WindowSession}}
)

var windowMapping = &Mapping{
	Path: kOperators + "[]." + kWindow,
	Doc:  "A window operator (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/windows/): keyed with partitioning: hash (keyBy().window()), or windowAll at parallelism 1. Each record costs service_time; its window state is counted in the keyed state, snapshotted by checkpoints and cleared at the window's end plus allowed_lateness. A firing emits one result record per key and window.",
	Fields: []*Field{
		{Name: kKind, Go: "Kind", Kind: KindEnum, Required: true, Values: []Value{
			val(WindowTumbling, "fixed windows of size, aligned to the epoch (TumblingEventTimeWindows, TumblingProcessingTimeWindows)"),
			val(WindowSliding, "windows of size starting every slide: a record is in size/slide of them (SlidingEventTimeWindows)"),
			val(WindowSession, "per key, records closer than gap form one window, merged as records come (EventTimeSessionWindows)"),
			val(WindowGlobal, "one window per key, fired and purged every count records (GlobalWindows with a CountTrigger, countWindow)"),
		}, Doc: "The window assigner."},
		{Name: kTime, Go: "Time", Kind: KindEnum, Default: TimeEvent, Only: timedWindow, Values: []Value{
			val(TimeEvent, "windows by the records' event time, fired by watermarks (EventTimeTrigger)"),
			val(TimeProcessing, "windows by the operator's clock at the record's arrival, fired by it (ProcessingTimeTrigger)"),
		}, Doc: "Event or processing time."},
		{Name: kSize, Go: "Size", Kind: KindDuration, Bounds: Bounds{Positive: true}, Only: sizedWindow, RequiredWhen: sizedWindow,
			Doc: "Length of each window."},
		{Name: kSlide, Go: "Slide", Kind: KindDuration, Bounds: Bounds{Positive: true}, Only: slidingWindow, RequiredWhen: slidingWindow,
			Doc: "Time between the starts of sliding windows, at most size."},
		{Name: kGap, Go: "Gap", Kind: KindDuration, Bounds: Bounds{Positive: true}, Only: sessionWindow, RequiredWhen: sessionWindow,
			Doc: "Session gap: a key's window closes when no record of it came for this long."},
		{Name: kCount, Go: "Count", Kind: KindInteger, Bounds: Bounds{Min: 1}, Only: globalWindow, RequiredWhen: globalWindow,
			Doc: "Records per key between firings of a global window (CountTrigger.of(count))."},
		{Name: kFunction, Go: "Function", Kind: KindEnum, Default: FunctionAggregate, Values: []Value{
			val(FunctionAggregate, "incremental (reduce, aggregate): one accumulator per key and window in state, a firing emits it"),
			val(FunctionProcess, "full (ProcessWindowFunction): every record of the window is kept in state, and a firing costs service_time per record kept"),
		}, Doc: "The window function."},
		{Name: kAllowedLateness, Go: "AllowedLateness", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Doc: "Event time only: a window is kept this long past its end; a late record within it fires the window again (a late firing that updates the result); records later than that are dropped and counted (numLateRecordsDropped), or sent to late_output."},
		{Name: kLateOutput, Go: "LateOutput", Kind: KindName, EmptyOK: true,
			Doc: "Event time only: the name of a side output of the records later than allowed_lateness (sideOutputLateData with an OutputTag); a sink or operator reads it by this name in input/inputs, and the late records go there instead of being dropped (numLateRecordsDropped counts none of them, as Flink's WindowOperator). Unique among vertex names; default none."},
		{Name: kAccumulatorSize, Go: "AccumulatorSize", Kind: KindSize, Default: "64B", Bounds: Bounds{Positive: true},
			Doc: "State of one key and window of an aggregate window function (its accumulator); process keeps record_size per record instead."},
	},
}

var (
	windowJoin   = &Cond{Field: kKind, Values: []string{JoinWindow}}
	intervalJoin = &Cond{Field: kKind, Values: []string{JoinInterval}}
)

var joinMapping = &Mapping{
	Path: kOperators + "[]." + kJoin,
	Doc:  "A keyed join of the operator's two inputs in event time (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/joining/): the first input listed is the left one; both need partitioning: hash (keyBy on each). Its buffered records are keyed state (record_size each), cleared as the watermark passes them; each joined pair is a result record.",
	Fields: []*Field{
		{Name: kKind, Go: "Kind", Kind: KindEnum, Required: true, Values: []Value{
			val(JoinWindow, "a tumbling window join (join().where().equalTo().window(TumblingEventTimeWindows)): at the window's end, every pair of a key's left and right records in it"),
			val(JoinInterval, "an interval join (intervalJoin().between(−before, after)): each left record at t with each right record of its key at t − before to t + after, as they come"),
		}, Doc: "The join."},
		{Name: kSize, Go: "Size", Kind: KindDuration, Bounds: Bounds{Positive: true}, Only: windowJoin, RequiredWhen: windowJoin,
			Doc: "Length of the tumbling windows."},
		{Name: kBefore, Go: "Before", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0}, Only: intervalJoin,
			Doc: "How long before a left record a right record may be (−lowerBound of between)."},
		{Name: kAfter, Go: "After", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0}, Only: intervalJoin,
			Doc: "How long after a left record a right record may be (upperBound of between)."},
	},
}

var timerMapping = &Mapping{
	Path: kOperators + "[]." + kTimer,
	Doc:  "A KeyedProcessFunction with a timer per key (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/process_function/): each record sets its key's timer delay after its event time (or after its service on the clock), replacing the key's earlier one; a timer that fires (no newer record of the key within delay) emits one record for the key: a timeout per key. Needs partitioning: hash (keyBy); the last time of each key is keyed state (accumulator_size of a window, 64B).",
	Fields: []*Field{
		{Name: kTime, Go: "Time", Kind: KindEnum, Default: TimeEvent, Values: []Value{
			val(TimeEvent, "an event-time timer, fired by the watermark"),
			val(TimeProcessing, "a processing-time timer, fired by the clock"),
		}, Doc: "The timer's time domain."},
		{Name: kDelay, Go: "Delay", Kind: KindDuration, Required: true, Bounds: Bounds{Positive: true},
			Doc: "How long after a key's last record its timer fires."},
	},
}

var operatorMapping = &Mapping{
	Path: kOperators + "[]",
	Doc:  "A processing vertex: one record at a time per subtask.",
	Fields: vertexFields(true,
		&Field{Name: kSelectivity, Go: "Selectivity", Kind: KindRatio, Default: 1.0,
			Bounds: Bounds{Min: 0, MinWhy: "output records per input record", Max: float64(MaxSelectivity), MaxWhy: "each input record emits that many output records"},
			Doc:    "Output records per input record: a filter 0.3, a flatMap 2.5."},
		&Field{Name: kState, Go: "State", Kind: KindMapping, Sub: keyedStateMapping, DefaultDoc: "stateless", Doc: "Keyed state."},
		&Field{Name: kWindow, Go: "Window", Kind: KindMapping, Sub: windowMapping, DefaultDoc: "no window", Doc: "Makes the operator a window operator."},
		&Field{Name: kJoin, Go: "Join", Kind: KindMapping, Sub: joinMapping, DefaultDoc: "no join", Doc: "Makes the operator a keyed join of its two inputs."},
		&Field{Name: kTimer, Go: "Timer", Kind: KindMapping, Sub: timerMapping, DefaultDoc: "no timer", Doc: "Makes the operator a keyed process function with a timer per key."},
		&Field{Name: kGraph, Go: "Graph", Kind: KindMapping, Sub: graphMapping, DefaultDoc: "a plain operator", Doc: "A streaming-graph operator over the edges of its input."},
		&Field{Name: kShedding, Go: "Shedding", Kind: KindMapping, Sub: operatorSheddingMapping, DefaultDoc: "no shedding",
			Doc: "Load shedding: while the input queue or the latency passes a threshold, the records the operator takes are dropped (shed), at random or by key; they are counted apart from lost ones."},
	),
	Custom:  decodeInputs,
	Prefill: inheritNetwork,
}

var sinkMapping = &Mapping{
	Path:    kSinks + "[]",
	Doc:     "A sink vertex: where records leave the job.",
	Special: map[string]string{kSelectivity: "a sink has no output, so no selectivity"},
	Fields: vertexFields(false,
		&Field{Name: kDelivery, Go: "Delivery", Kind: KindEnum, Default: DeliveryAtLeastOnce, ZeroDefault: true, Values: []Value{
			val(DeliveryAtLeastOnce, "written on arrival; records replayed after a failure are written again"),
			val(DeliveryAtMostOnce, "written on arrival; after a restart, replays up to the position written are skipped"),
			val(DeliveryIdempotent, "upsert by record id: replays overwrite"),
			{Name: DeliveryTransactional, Doc: "two-phase commit, what Flink calls exactly-once (TwoPhaseCommitSinkFunction): output becomes visible when the checkpoint that covers it completes; needs checkpoints",
				Former: []string{"exactly-once", "exactlyonce"}, FormerWhy: "the two-phase-commit sink that Flink calls exactly-once; " + DeliveryIdempotent + " also gives exactly-once results"},
		}, Former: []string{"guarantee", "delivery_guarantee"}, Doc: "How the sink writes to the outside world."},
		&Field{Name: kDedup, Go: "Dedup", Kind: KindMapping, Sub: dedupMapping,
			Only: &Cond{Field: kDelivery, Values: []string{DeliveryAtLeastOnce}, Text: "delivery: at-least-once", Why: "MillWheel's scheme dedups what at-least-once delivery repeats"},
			Doc:  "MillWheel's exactly-once: checkpoint each production with its id before delivery, and drop ids seen before (a Bloom filter in front of a stable-storage lookup)."},
		&Field{Name: kWrites, Go: "Writes", Kind: KindMapping, Sub: sinkProducerMapping,
			Doc: "Makes the sink Flink's KafkaSink writing a topic: what it makes visible is appended to the topic (a transactional sink's at the checkpoint's commit, as read_committed readers see it), so a source of arrival process topic of another job can read it."},
	),
	Custom:  decodeInputs,
	Prefill: inheritNetwork,
}

var metricsMapping = &Mapping{
	Path: kMetrics,
	Doc:  "Metric sampling.",
	Fields: []*Field{
		{Name: kInterval, Go: "Interval", Kind: KindDuration, Default: "1s", FillZero: true,
			Bounds: Bounds{Min: MinMetricsInterval, MinWhy: "each interval writes a metrics row per subtask"},
			Doc:    "Simulated time between metric samples (rows of timeseries.csv)."},
	},
}

var storageMapping = &Mapping{
	Path:        kCheckpoint + "." + kStorage,
	Doc:         "The checkpoint storage (a distributed file system) that snapshots are uploaded to and restored from; uploads and downloads queue for its bandwidth, one after another.",
	ZeroDefault: true,
	Fields: []*Field{
		{Name: kBandwidth, Go: "Bandwidth", Kind: KindBandwidth, Default: "100MiB/s", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Doc: "Bandwidth of the checkpoint storage."},
		{Name: kLatency, Go: "Latency", Kind: KindDuration, Default: "10ms", Bounds: Bounds{Min: 0}, Doc: "Latency of each upload or download."},
	},
}

var checkpointMapping = &Mapping{
	Path:        kCheckpoint,
	Doc:         "Periodic checkpoints, as Flink's execution.checkpointing.* options (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/fault-tolerance/checkpointing/).",
	ZeroDefault: true,
	Fields: []*Field{
		{Name: kMode, Go: "Mode", Kind: KindEnum, Default: CheckpointNone, ZeroDefault: true, Values: []Value{
			val(CheckpointNone, "no checkpoints"),
			val(CheckpointStopTheWorld, "stop ingestion at the sources, wait for the data in flight to be processed, copy every task's state to storage, resume"),
			val(CheckpointAligned, "asynchronous barrier snapshotting with alignment (Carbone et al. 2015): barriers enter at the sources, a task with several inputs blocks each input whose barrier arrived until all have, then snapshots its state and forwards the barrier"),
			val(CheckpointUnaligned, "barriers overtake buffered data, which is persisted with the state (execution.checkpointing.unaligned)"),
		}, Doc: "How checkpoints are taken."},
		{Name: kInterval, Go: "Interval", Kind: KindDuration, Only: ckptOn, RequiredWhen: ckptOn,
			Bounds: Bounds{Positive: true, Min: MinCheckpointInterval, MinWhy: "Flink's minimum checkpoint interval"},
			Doc:    "Simulated time between checkpoint triggers (execution.checkpointing.interval)."},
		{Name: kTimeout, Go: "Timeout", Kind: KindDuration, Default: "10m", Only: ckptOn, Bounds: Bounds{Positive: true},
			Doc: "A checkpoint not complete this long after its trigger fails (timed_out in checkpoints.csv; execution.checkpointing.timeout)."},
		{Name: kMinPause, Go: "MinPause", Kind: KindDuration, Default: "0s", Only: ckptOn, Bounds: Bounds{Min: 0},
			Doc: "Least simulated time between the end of one checkpoint and the next trigger (execution.checkpointing.min-pause)."},
		{Name: kMaxConcurrent, Go: "MaxConcurrent", Kind: KindInteger, Default: 1, Bounds: Bounds{Min: 1},
			Only: &Cond{Field: kMode, Values: []string{CheckpointAligned, CheckpointUnaligned}},
			Doc:  "Most checkpoints in progress at once; stop-the-world takes one at a time (execution.checkpointing.max-concurrent-checkpoints)."},
		{Name: kTolerableFailures, Go: "TolerableFailures", Kind: KindInteger, Default: -1, Only: ckptOn,
			Bounds: Bounds{Min: -1, MinWhy: "-1 for no limit"}, Former: []string{"tolerable_failed_checkpoints"},
			Doc: "How many checkpoints in a row may fail (time out, or lose their storage) before the job fails and restarts by its restart strategy; -1 is no limit (execution.checkpointing.tolerable-failed-checkpoints, whose own default is 0)."},
		{Name: kIncremental, Go: "Incremental", Kind: KindBool, Default: false, Only: ckptOn,
			Doc: "Upload only the state changed since the last completed checkpoint (checkpointed_size_bytes is then that delta, full_state_size_bytes the whole; recovery may download more); rocksdb only (state.backend.incremental)."},
		{Name: kAlignedTimeout, Go: "AlignedTimeout", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Only: &Cond{Field: kMode, Values: []string{CheckpointUnaligned}}, Former: []string{"aligned_checkpoint_timeout"},
			Doc: "Each checkpoint starts aligned and switches to unaligned once this long has passed since it was triggered (Flink times it from the barrier's timestamp, so a barrier delayed by back-pressure counts too, not only the alignment); 0 is unaligned from the start (execution.checkpointing.aligned-checkpoint-timeout)."},
		{Name: kStorage, Go: "Storage", Kind: KindMapping, Sub: storageMapping, Only: ckptOn, Doc: "The checkpoint storage."},
	},
}

var backendMapping = &Mapping{
	Path:        kStateBackend,
	Doc:         "Flink's state backend: where operators keep their keyed state (state.backend.type).",
	ZeroDefault: true,
	After:       decodeBackend,
	Fields: []*Field{
		{Name: kType, Go: "Type", Kind: KindEnum, Default: BackendHeap, ZeroDefault: true, Values: []Value{
			val(BackendHeap, "objects on the JVM heap (HashMapStateBackend): fast, bounded by workers.memory, with optional garbage-collection pauses"),
			val(BackendRocksDB, "serialized on local disk (EmbeddedRocksDBStateBackend): slower access, incremental checkpoints"),
		}, Doc: "The state backend."},
		{Name: kAccessTime, Go: "AccessTime", Kind: KindDuration, Bounds: Bounds{Min: 0}, DefaultDoc: "100ns for heap, 5µs for rocksdb",
			Doc: "Time added to the service time of every record of an operator with state, for its state access."},
		{Name: kGCInterval, Go: "GCInterval", Kind: KindDuration, Default: "0s", Only: heapOnly,
			Bounds: Bounds{Min: MinGCInterval, ZeroOff: true, MinWhy: "each interval pauses every worker"},
			Doc:    "Every gc_interval each worker pauses for gc_pause_per_gib per GiB of heap state it holds (at least 1ms); 0 is no garbage-collection pauses."},
		{Name: kGCPausePerGiB, Go: "GCPausePerGiB", Kind: KindDuration, Only: heapOnly, Bounds: Bounds{Min: 0}, DefaultDoc: "100ms once gc_interval is on",
			Doc: "The pause per GiB of heap state of a worker; needs gc_interval."},
		{Name: kSerializationBandwidth, Go: "SerializationBandwidth", Kind: KindBandwidth, DefaultDoc: "200MiB/s", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Doc: "Bytes per second a rocksdb state access (de)serialises beside its access_time: a graph operator's read of a ValueState or ListState neighbour list takes its bytes / serialization_bandwidth more (RocksDB stores serialised bytes). Accepted and ignored on heap, which keeps objects, so that switching state_backend.type keeps a scenario valid."},
	},
}

var restartMapping = &Mapping{
	Path:        kRestart,
	Doc:         "What the job does after a failure, as Flink's restart-strategy.* options; the fields depend on type.",
	ZeroDefault: true,
	Fields: []*Field{
		{Name: kType, Go: "Type", Kind: KindEnum, Default: RestartFixedDelay, ZeroDefault: true, Values: []Value{
			val(RestartNone, "a failure fails the job for good"),
			val(RestartFixedDelay, "restart after delay, at most attempts times"),
			val(RestartExponentialDelay, "restart after a backoff that grows from initial_backoff by multiplier up to max_backoff"),
			val(RestartFailureRate, "restart after delay unless more than max_failures_per_interval failures came within failure_rate_interval"),
		}, Doc: "The restart strategy (restart-strategy.type)."},
		{Name: kAttempts, Go: "Attempts", Kind: KindInteger, Default: -1, Bounds: Bounds{Min: -1, MinWhy: "-1 for no limit"},
			Only: &Cond{Field: kType, Values: []string{RestartFixedDelay, RestartExponentialDelay}},
			Doc:  "Restarts before the job fails for good; -1 is no limit (restart-strategy.fixed-delay.attempts)."},
		{Name: kDelay, Go: "Delay", Kind: KindDuration, Default: "1s", Bounds: Bounds{Min: 0},
			Only: &Cond{Field: kType, Values: []string{RestartFixedDelay, RestartFailureRate}},
			Doc:  "Simulated time between the detection of a failure and the restart (restart-strategy.fixed-delay.delay)."},
		{Name: kInitialBackoff, Go: "InitialBackoff", Kind: KindDuration, Default: "1s", Only: expDelay, Bounds: Bounds{Positive: true},
			Doc: "The first backoff (restart-strategy.exponential-delay.initial-backoff)."},
		{Name: kMaxBackoff, Go: "MaxBackoff", Kind: KindDuration, Default: "1m", Only: expDelay, Bounds: Bounds{Positive: true},
			Doc: "The largest backoff, at least initial_backoff (restart-strategy.exponential-delay.max-backoff)."},
		{Name: kMultiplier, Go: "Multiplier", Kind: KindRatio, Default: 2.0, Only: expDelay, Former: []string{"backoff_multiplier"},
			Bounds: Bounds{Min: 1.0, MinWhy: "each backoff is the previous one times multiplier"},
			Doc:    "Each backoff is the previous one times multiplier (restart-strategy.exponential-delay.backoff-multiplier)."},
		{Name: kJitter, Go: "Jitter", Kind: KindRatio, Default: 0.1, Only: expDelay, Former: []string{"jitter_factor"},
			Bounds: Bounds{Min: 0.0, Max: 1.0, MaxExclusive: true, MaxWhy: "a fraction of the backoff"},
			Doc:    "Each backoff is spread uniformly by plus or minus this fraction of it, within initial_backoff and max_backoff (restart-strategy.exponential-delay.jitter-factor)."},
		{Name: kResetThreshold, Go: "ResetThreshold", Kind: KindDuration, Default: "1h", Only: expDelay, Bounds: Bounds{Positive: true},
			Former: []string{"reset_backoff_threshold"},
			Doc:    "A failure this long or longer after the last restart starts the backoff again from initial_backoff (restart-strategy.exponential-delay.reset-backoff-threshold)."},
		{Name: kMaxFailuresPerInterval, Go: "MaxFailuresPerInterval", Kind: KindInteger, Default: 1, Only: failureRate, Bounds: Bounds{Min: 1},
			Doc: "The job fails for good when more failures than this come within failure_rate_interval (restart-strategy.failure-rate.max-failures-per-interval)."},
		{Name: kFailureRateInterval, Go: "FailureRateInterval", Kind: KindDuration, Default: "1m", Only: failureRate, Bounds: Bounds{Positive: true},
			Doc: "The window of max_failures_per_interval (restart-strategy.failure-rate.failure-rate-interval)."},
	},
}

var haMapping = &Mapping{
	Path:        kHighAvailability,
	Doc:         "High availability of the JobManager (high-availability.type).",
	ZeroDefault: true,
	Fields: []*Field{
		{Name: kType, Go: "Type", Kind: KindEnum, Default: HANone, ZeroDefault: true, Values: []Value{
			val(HANone, "a JobManager failure loses the job"),
			val(HAZooKeeper, "a standby JobManager is elected and recovers the job (graph and checkpoint pointers) from storage"),
		}, Doc: "The high-availability service."},
		{Name: kLeaderElection, Go: "LeaderElection", Kind: KindDuration, Default: "10s", Bounds: Bounds{Min: 0},
			Only: &Cond{Field: kType, Values: []string{HAZooKeeper}},
			Doc:  "Simulated time to elect a new leader after the JobManager fails."},
	},
}

// randomFailureKinds are the kinds that may be random (mtbf).
var randomFailureKinds = []string{FailureTask, FailureWorker, FailureJobManager}

var failureMapping = &Mapping{
	Path: kFailures + "[]",
	Doc:  "One failure: scripted (at) or random (mtbf); the fields depend on kind.",
	Fields: []*Field{
		{Name: kKind, Go: "Kind", Kind: KindEnum, Required: true, Former: []string{kType}, Values: []Value{
			val(FailureTask, "one subtask fails (an exception): the JobManager knows at once and fails the job over"),
			val(FailureWorker, "a TaskManager dies with its subtasks: they stop at once, the rest of the job runs on until heartbeat_timeout later the JobManager notices and fails the job over (a worker that runs no subtask fails without consequence)"),
			val(FailureJobManager, "the JobManager dies: with high_availability type zookeeper a new one is elected and restarts the job from its latest checkpoint; without, the job is lost (job_state: lost) and the sources' lag grows, since nobody reads any more"),
			val(FailureSlowdown, "a straggler: service times × factor for duration; nothing fails"),
			val(FailureNetworkPartition, "nothing crosses between the worker and the others for duration; as long as heartbeat_timeout or longer, the worker is declared lost"),
			val(FailureStorageOutage, "the checkpoint storage is unavailable for duration: uploads and restores wait for it, so checkpoints time out (and past tolerable_failures, the job fails)"),
			val(FailureConsumer, "a member of a consumer group dies (no LeaveGroup): the coordinator removes it session_timeout after its last heartbeat, the group rebalances, and its partitions resume from their last committed offsets"),
		}, Doc: "What fails."},
		{Name: kAt, Go: "At", Kind: KindDuration, Former: []string{"time"}, Bounds: Bounds{Min: 0},
			Doc: "A scripted failure: the simulated time it happens, before the end of the run. Give at or mtbf."},
		{Name: kMTBF, Go: "MTBF", Kind: KindDuration, ZeroDefault: true, Only: &Cond{Field: kKind, Values: randomFailureKinds},
			Bounds: Bounds{Positive: true, Min: MinMTBF, MinWhy: "failures more often than that would only keep the job restarting"},
			Doc:    "Random failures: the mean time between failures of each worker (task: of a random task on it, an operator chain counting once; jobmanager: of the JobManager), exponentially distributed and drawn from the seed. Give at or mtbf."},
		{Name: kVertex, Go: "Vertex", Kind: KindString, Former: []string{"operator"},
			Only: &Cond{Field: kKind, Values: []string{FailureTask, FailureSlowdown}},
			Doc:  "The vertex whose subtask fails or slows down, with every operator chained with it (one task); required for task, for slowdown give vertex or worker."},
		{Name: kSubtask, Go: "Subtask", Kind: KindInteger, Default: 0, Schema: obj{"type": "integer", "minimum": 0},
			Only: &Cond{Field: kKind, Values: []string{FailureTask, FailureSlowdown}},
			Doc:  "The subtask of vertex, from 0 to its parallelism - 1."},
		{Name: kWorker, Go: "Worker", Kind: KindInteger, Default: 0, Schema: obj{"type": "integer", "minimum": 0},
			Only: &Cond{Field: kKind, Values: []string{FailureWorker, FailureSlowdown, FailureNetworkPartition}},
			Doc:  "The worker, from 0 to workers.count - 1 (slowdown: without vertex)."},
		{Name: kDuration, Go: "Duration", Kind: KindDuration, Only: timed, RequiredWhen: timed, Bounds: Bounds{Positive: true},
			Doc: "How long a slowdown, network partition or storage outage lasts."},
		{Name: kFactor, Go: "Factor", Kind: KindRatio, Default: 10.0, ZeroDefault: true,
			Only:   &Cond{Field: kKind, Values: []string{FailureSlowdown}},
			Bounds: Bounds{Min: 1.0, MinExclusive: true, MinWhy: "service times are multiplied by it", Max: float64(MaxSlowdownFactor)},
			Doc:    "Service times are multiplied by factor during a slowdown."},
		{Name: kGroup, Go: "Group", Kind: KindName, Only: consumerOnly, RequiredWhen: consumerOnly,
			Doc: "The consumer group (consumer_groups[].name) whose member fails."},
		{Name: kMember, Go: "Member", Kind: KindInteger, Default: 0, Schema: obj{"type": "integer", "minimum": 0}, Only: consumerOnly,
			Doc: "The member of group that fails, from 0 to its members - 1."},
	},
}

var consumerOnly = &Cond{Field: kKind, Values: []string{FailureConsumer}}

// decodeFailure reads failureMapping, so it is wired here, not in the
// literal (an initialization cycle).
func init() { failureMapping.After = decodeFailure }

// topMapping is the scenario itself.
var topMapping = &Mapping{
	Path:       "",
	Doc:        "A dspalab scenario: one stream-processing job (sources, operators, sinks) on a simulated cluster.",
	Extensions: true,
	Fields: []*Field{
		{Name: kName, Go: "Name", Kind: KindText, DefaultDoc: "the file name without its extension (runs/my-job.yaml is my-job)",
			Doc: "A short identifier of the scenario, used in listings and output files: one line of printable text."},
		{Name: kDescription, Go: "Description", Kind: KindText, Bounds: Bounds{Max: MaxDescriptionLength},
			Doc: "One line of printable text that says what the scenario shows, at most 200 characters."},
		{Name: kSeed, Go: "Seed", Kind: KindSeed, Default: 1,
			Doc: "Seed of every random stream of the run; the same scenario and seed give identical results."},
		{Name: kDuration, Go: "Duration", Kind: KindDuration, Required: true, Bounds: Bounds{Positive: true},
			Doc: "Simulated time to run, such as 120s or 10m."},
		{Name: kWarmup, Go: "Warmup", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Doc: "Simulated time at the start left out of summary statistics; shorter than duration."},
		{Name: kEngine, Go: "Engine", Kind: KindEnum, Default: EngineFlink, ZeroDefault: true, Values: engineValues,
			Doc: "The execution model that runs the job: Flink's pipelined runtime, or Spark's micro-batches (the same sources, operators and sinks run on either)."},
		{Name: kSpark, Go: "Spark", Kind: KindMapping, Sub: sparkMapping, Only: sparkEngines, Doc: "Spark's settings of the micro-batch engines."},
		{Name: kChaining, Go: "Chaining", Only: flinkEngine, Kind: KindBool, Default: true,
			Doc: "Operator chaining: a vertex on a forward edge with equal parallelism, as its only input, runs in the task of its input, one record at a time, with no network buffers between them (false is Flink's disableOperatorChaining(), pipeline.operator-chaining.enabled: false)."},
		{Name: kWorkers, Go: "Workers", Kind: KindMapping, Sub: workersMapping, Doc: "The cluster."},
		{Name: kNetwork, Go: "Network", Only: flinkEngine, Kind: KindMapping, Sub: networkMapping, Doc: "Network settings of every edge."},
		{Name: kSources, Go: "Sources", Kind: KindList, Sub: sourceMapping, Doc: "Source vertices: at least one."},
		{Name: kOperators, Go: "Operators", Kind: KindList, Sub: operatorMapping, Doc: "Processing vertices, each reading from input (or inputs); may be empty."},
		{Name: kSinks, Go: "Sinks", Kind: KindList, Sub: sinkMapping, Doc: "Sink vertices: at least one."},
		{Name: kTopics, Go: "Topics", Kind: KindList, Sub: topicMapping, Example: "[{name: clicks, partitions: 4}]", Doc: "Kafka-like topics that producer sources write and topic sources read; default none."},
		{Name: kQueues, Go: "Queues", Kind: KindList, Sub: queueMapping, Example: "[{name: orders, memory_bound: 100000}]", Doc: "Message queues that producer sources publish to and queue sources consume; default none."},
		{Name: kConsumerGroups, Go: "ConsumerGroups", Kind: KindList, Sub: consumerGroupMapping, Only: flinkEngine,
			Example: "[{name: billing, topic: orders, members: 3, service_time: {mean: 1ms}}]",
			Doc:     "Kafka consumer groups outside the job that read topics; default none."},
		{Name: kMetrics, Go: "Metrics", Kind: KindMapping, Sub: metricsMapping, Doc: "Metric sampling."},
		{Name: kCheckpoint, Go: "Checkpoint", Only: flinkEngine, Kind: KindMapping, Sub: checkpointMapping, Doc: "Periodic checkpoints."},
		{Name: kStateBackend, Go: "StateBackend", Kind: KindMapping, Sub: backendMapping, Former: []string{"backend"}, Doc: "The state backend."},
		{Name: kRestart, Go: "Restart", Only: flinkEngine, Kind: KindMapping, Sub: restartMapping, Former: []string{"restart_strategy"}, Doc: "The restart strategy."},
		{Name: kHighAvailability, Go: "HighAvailability", Only: flinkEngine, Kind: KindMapping, Sub: haMapping, Former: []string{"ha"}, Doc: "JobManager high availability."},
		{Name: kFailures, Go: "Failures", Kind: KindList, Sub: failureMapping, Example: "[{kind: worker, at: 30s, worker: 1}]", Doc: "Failures to inject, in the order given; default none."},
	},
}

// The engines, and the conditions of the fields one of them owns.
var (
	engineValues = []Value{
		val(EngineFlink, "Flink's pipelined runtime: records flow one at a time through tasks linked by network buffers with credit-based back-pressure"),
		val(EngineSparkStreaming, "Spark Streaming (DStreams): every batch_interval a batch of the records received becomes a job of stages and tasks on the executors' cores"),
		val(EngineStructuredStreaming, "Spark Structured Streaming: a streaming query run as micro-batches by its trigger, writing its result table to the sink by its output mode"),
	}
	flinkEngine  = &Cond{Field: kEngine, Values: []string{EngineFlink}, Owner: true}
	sparkEngines = &Cond{Field: kEngine, Values: []string{EngineSparkStreaming, EngineStructuredStreaming}, Owner: true}
	receiverOnly = &Cond{Field: kInputStream, Values: []string{InputReceiver}}
	backOn       = &Cond{Field: kBackpressure, Values: []string{"true"}, Text: "backpressure: true"}
	sparkCkpt    = &Cond{Field: kCheckpoint, Values: []string{"true"}, Text: "checkpoint: true"}
	timedTrigger = &Cond{Field: kTrigger, Values: []string{TriggerProcessingTime, TriggerContinuous}}
)

// sparkMapping is Spark's configuration of the micro-batch engines; which
// fields apply to which engine is checked in spark.go (the engine is a key
// of the scenario, outside this mapping).
var sparkMapping = &Mapping{
	Path: kSpark,
	Special: map[string]string{
		kBufferTimeout:     "buffer_timeout is Flink's (execution.buffer-timeout, network.buffer_timeout of engine: flink): a micro-batch job ships no network buffers; its latency is set by spark.batch_interval",
		kBufferSize:        "buffer_size is Flink's (network.buffer_size of engine: flink): a micro-batch job has no network buffers",
		kBuffersPerChannel: "buffers_per_channel is Flink's (network.buffers_per_channel of engine: flink): a micro-batch job has no credit-based flow control; its back-pressure is spark.backpressure",
		kFloatingBuffers:   "floating_buffers is Flink's (network.floating_buffers of engine: flink): a micro-batch job has no credit-based flow control",
	},
	Doc:         "Spark's settings (https://spark.apache.org/docs/latest/configuration.html#spark-streaming). The executors are the workers: workers.count executors with workers.slots cores each; an operator's service_time is its cost per record in a task, and a hash edge is a shuffle that starts a new stage.",
	ZeroDefault: true,
	Fields: []*Field{
		{Name: kBatchInterval, Go: "BatchInterval", Kind: KindDuration, ZeroDefault: true, Bounds: Bounds{Positive: true, Min: MinBatchInterval, MinWhy: "Spark's batch duration is in milliseconds"},
			Doc: "spark-streaming: the batch interval of the StreamingContext (new StreamingContext(conf, Seconds(1))); required."},
		{Name: kJobOverhead, Go: "JobOverhead", Kind: KindDuration, Default: "10ms", Bounds: Bounds{Min: 0}, ZeroDefault: true,
			Doc: "The driver's cost per batch or trigger: generating the job and scheduling its stages."},
		{Name: kTaskOverhead, Go: "TaskOverhead", Kind: KindDuration, Default: "2ms", Bounds: Bounds{Min: 0}, ZeroDefault: true,
			Doc: "The cost of launching one task on an executor core (serialization, scheduling)."},
		{Name: kShuffleBandwidth, Go: "ShuffleBandwidth", Kind: KindBandwidth, Default: "1Gbit/s", Bounds: Bounds{Positive: true}, ZeroDefault: true,
			Doc: "How fast a task of a stage after a shuffle reads its shuffle blocks."},
		{Name: kInputStream, Go: "Input", Kind: KindEnum, Default: InputDirect, ZeroDefault: true, Values: []Value{
			val(InputDirect, "KafkaUtils.createDirectStream: each batch reads an offset range of every Kafka partition (a source subtask), one task per partition"),
			val(InputReceiver, "a receiver per source subtask runs as a long task on one executor core and stores a block every block_interval; each block is a task"),
		}, Doc: "spark-streaming: how the sources are read."},
		{Name: kMaxRatePerPartition, Go: "MaxRatePerPartition", Kind: KindRate, Default: "0/s", Bounds: Bounds{Min: 0}, ZeroDefault: true,
			Doc: "The most records per second read from one Kafka partition (a source subtask) into a batch; 0 is no limit (spark.streaming.kafka.maxRatePerPartition)."},
		{Name: kMinRatePerPartition, Go: "MinRatePerPartition", Kind: KindRate, Default: "1/s", Bounds: Bounds{Min: 0}, ZeroDefault: true,
			Doc: "The fewest records per second a rate limit leaves a partition (spark.streaming.kafka.minRatePerPartition)."},
		{Name: kReceiverMaxRate, Go: "ReceiverMaxRate", Kind: KindRate, Default: "0/s", Bounds: Bounds{Min: 0}, Only: receiverOnly,
			Doc: "The most records per second one receiver stores; 0 is no limit (spark.streaming.receiver.maxRate)."},
		{Name: kBlockInterval, Go: "BlockInterval", Kind: KindDuration, Default: "200ms", Bounds: Bounds{Positive: true}, ZeroDefault: true, Only: receiverOnly,
			Doc: "A receiver cuts a block of what it received every block_interval; a batch has batch_interval / block_interval tasks per receiver (spark.streaming.blockInterval)."},
		{Name: kWriteAheadLog, Go: "WriteAheadLog", Kind: KindBool, Default: false, Only: receiverOnly,
			Doc: "Receivers write every block to a write-ahead log before acknowledging it, so a driver failure loses nothing received (spark.streaming.receiver.writeAheadLog.enable)."},
		{Name: kWALBandwidth, Go: "WALBandwidth", Kind: KindBandwidth, Default: "100MiB/s", Bounds: Bounds{Positive: true}, ZeroDefault: true, Only: receiverOnly,
			Doc: "How fast a receiver writes its write-ahead log (a replicated file system)."},
		{Name: kBackpressure, Go: "Backpressure", Kind: KindBool, Default: false,
			Doc: "The rate of each batch is limited by the PIDRateEstimator from the last batch's processing time and scheduling delay (spark.streaming.backpressure.enabled)."},
		{Name: kPIDProportional, Go: "PIDProportional", Kind: KindRatio, Default: 1.0, Bounds: Bounds{Min: 0.0}, Only: backOn,
			Doc: "Proportional gain of the PID rate estimator (spark.streaming.backpressure.pid.proportional)."},
		{Name: kPIDIntegral, Go: "PIDIntegral", Kind: KindRatio, Default: 0.2, Bounds: Bounds{Min: 0.0}, Only: backOn,
			Doc: "Integral gain, on the error that the scheduling delay accumulates (spark.streaming.backpressure.pid.integral)."},
		{Name: kPIDDerived, Go: "PIDDerived", Kind: KindRatio, Default: 0.0, Bounds: Bounds{Min: 0.0}, Only: backOn,
			Doc: "Derivative gain (spark.streaming.backpressure.pid.derived)."},
		{Name: kPIDMinRate, Go: "PIDMinRate", Kind: KindRate, Default: "100/s", Bounds: Bounds{Positive: true}, ZeroDefault: true, Only: backOn,
			Doc: "The lowest rate the estimator sets, over the whole stream (spark.streaming.backpressure.pid.minRate)."},
		{Name: kInitialRate, Go: "InitialRate", Kind: KindRate, Default: "0/s", Bounds: Bounds{Min: 0}, Only: backOn,
			Doc: "The rate of the batches before the estimator has one; 0 is no limit then (spark.streaming.backpressure.initialRate)."},
		{Name: kStateOperation, Go: "StateOperation", Kind: KindEnum, Default: StateUpdateStateByKey, ZeroDefault: true, Values: []Value{
			val(StateUpdateStateByKey, "updateStateByKey: every batch cogroups the whole state with the batch, so every key held costs state access every batch"),
			val(StateMapWithState, "mapWithState: only the keys of the batch's records are touched; keys idle for state_timeout are removed"),
		}, Doc: "spark-streaming: the stateful operation of operators with state."},
		{Name: kStateTimeout, Go: "StateTimeout", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Only: &Cond{Field: kStateOperation, Values: []string{StateMapWithState}},
			Doc:  "StateSpec.timeout of mapWithState: a key with no record for this long is removed; 0 is never."},
		{Name: kCheckpoint, Go: "Checkpoint", Kind: KindBool, Default: false,
			Doc: "ssc.checkpoint(dir): metadata every batch, state every checkpoint_interval; lineage is truncated at each state checkpoint."},
		{Name: kCheckpointInterval, Go: "CheckpointInterval", Kind: KindDuration, Bounds: Bounds{Positive: true}, ZeroDefault: true, Only: sparkCkpt,
			DefaultDoc: "batch_interval × ceil(10s / batch_interval) for update-state-by-key, as DStream.initialize sets it; batch_interval × 10 for map-with-state, as InternalMapWithStateDStream.initialize",
			Doc:        "Simulated time between checkpoints of the state RDDs (dstream.checkpoint(interval)); a multiple of batch_interval."},
		{Name: kCheckpointBandwidth, Go: "CheckpointBandwidth", Kind: KindBandwidth, Default: "100MiB/s", Bounds: Bounds{Positive: true}, ZeroDefault: true, Only: sparkCkpt,
			Doc: "How fast a checkpoint writes state to the checkpoint directory (a replicated file system)."},
		{Name: kExecutorRestart, Go: "ExecutorRestart", Kind: KindDuration, Default: "10s", Bounds: Bounds{Min: 0}, ZeroDefault: true,
			Doc: "A failed executor (failure kind worker) loses its cores and the state partitions it cached until the cluster manager has started a replacement this long after."},
		{Name: kTaskMaxFailures, Go: "TaskMaxFailures", Kind: KindInteger, Default: 4, Bounds: Bounds{Min: 1}, ZeroDefault: true,
			Doc: "The attempts of one task that may fail (failure kind task) before the job is aborted (spark.task.maxFailures): a failed attempt is run again; the last one aborts the batch's job, which stops the streaming application."},
		{Name: kDriverRestart, Go: "DriverRestart", Kind: KindDuration, Default: "30s", Bounds: Bounds{Min: 0}, ZeroDefault: true,
			Doc: "A failed driver (failure kind jobmanager) is restarted this long after (spark-submit --supervise, or YARN's next application attempt) and recovers from the checkpoint; without checkpoint: true the job is lost."},
		{Name: kTrigger, Go: "Trigger", Kind: KindEnum, Default: TriggerDefault, ZeroDefault: true, Values: []Value{
			val(TriggerDefault, "the next micro-batch starts as soon as the previous one ends (no trigger set)"),
			val(TriggerProcessingTime, "Trigger.ProcessingTime(trigger_interval): a micro-batch every interval, or at once when the previous one overran"),
			val(TriggerAvailableNow, "Trigger.AvailableNow(): process what is available at the start in micro-batches, then stop"),
			val(TriggerContinuous, "Trigger.Continuous(trigger_interval): long-running tasks process records as they come, epoch markers every interval (map-like queries only)"),
		}, Doc: "structured-streaming: when micro-batches run (DataStreamWriter.trigger)."},
		{Name: kTriggerInterval, Go: "TriggerInterval", Kind: KindDuration, ZeroDefault: true, Bounds: Bounds{Positive: true, Min: MinBatchInterval, MinWhy: "Spark's trigger interval is in milliseconds: Trigger.ProcessingTime(intervalMs)"}, Only: timedTrigger, RequiredWhen: timedTrigger,
			Doc: "structured-streaming: the interval of a processing-time or continuous trigger."},
		{Name: kOutputMode, Go: "OutputMode", Kind: KindEnum, Default: OutputUpdate, ZeroDefault: true, Values: []Value{
			val(OutputAppend, "only rows that will not change any more: for an aggregation, a window once the watermark passes its end (needs watermark)"),
			val(OutputUpdate, "only the rows of the result table updated by the trigger"),
			val(OutputComplete, "the whole result table every trigger (aggregations only)"),
		}, Doc: "structured-streaming: what each trigger writes to the sink (DataStreamWriter.outputMode)."},
		{Name: kWatermark, Go: "Watermark", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Doc: "structured-streaming: withWatermark's delay threshold: the watermark is the largest event time seen minus this; 0 is no watermark."},
		{Name: kWindow, Go: "Window", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Doc: "structured-streaming: the tumbling event-time window of the aggregation by key (groupBy(window(...), key)); 0 aggregates by key alone."},
	},
}
