// Package sim is dspalab's simulator of pipelined (Flink-like) stream
// processing: sources with arrival processes, operators with service-time
// distributions, sinks, and the network between them with Flink's
// credit-based flow control, so that back-pressure arises, travels upstream
// and can be measured as Flink measures it; checkpoints, failures,
// recovery and delivery guarantees on top.
//
// The simulator is a library: it prints nothing, opens no file and starts no
// goroutine. A scenario arrives as a *scenario.Scenario, compiled once into
// a plan (sim/plan); results leave as a Result, as rows handed to an
// Observer while the run goes on, and as encodings written to io.Writers
// (summary JSON, timeseries CSV, events JSONL, checkpoints CSV). The same
// scenario and seed give byte-identical outputs: one engine (sim/des), one
// thread, every random draw from a stream named after its component.
//
// # A task and its parts
//
// Every subtask of a vertex is a task built from parts, each a type in a
// file of its own and named after Flink's runtime class it follows:
//   - input: a unionInputGate over one singleInputGate per input edge
//     (Flink's UnionInputGate and SingleInputGate), each with one input
//     channel per sending subtask (input_gate.go);
//   - output: one result partition per output edge with its bufferPool
//     (ResultPartition, LocalBufferPool; result_partition.go,
//     buffer_pool.go), written by a recordWriter whose ChannelSelector is
//     the edge's partitioning (record_writer.go, channel_selector.go);
//   - the record processor behind one interface (processor.go): the source
//     reader (source.go, with edge_stream.go's arrivals for an edge
//     stream), the operator function, the sink writer (sink_writer.go),
//     and operators of their own kind such as the graph operator
//     (graph_operator.go);
//   - the barrier handler, a state machine as Flink's BarrierHandlerState
//     (barrier_handler.go);
//   - time accounting and record counters (time_accounting.go) and keyed
//     state (keyed_state.go).
//
// Each kind of event is a type of its own (task_events.go and beside each
// part), so events carry no packed meaning and cost no allocation; a
// network buffer carries records or one typed event (Flink's
// Buffer.DataType and BufferOrEvent: a checkpoint barrier today).
//
// # Modelled mechanisms and their sources
//
// Tasks: operators on a forward edge of equal parallelism, the edge the
// downstream one's only input, are chained into one task by default
// (Flink's StreamingJobGraphGenerator.isChainable; the chains are
// computed in package plan): one thread runs the chain one record at a
// time, each operator's processElement called by the one before it
// (Flink's OperatorChain and ChainingOutput), with no buffer or channel
// between them; busy and back-pressured time are the task's
// (operator_chain.go).
//
// Network and back-pressure:
//   - credit-based flow control: exclusive buffers per channel, a pool of
//     floating buffers per input gate (one gate per input edge, as Flink's
//     SingleInputGateFactory gives every SingleInputGate its own buffer
//     pool), backlog announcements ("Credit-based network flow
//     control", Flink 1.5; "A Deep-Dive into Flink's Network Stack",
//     flink.apache.org blog, 2019);
//   - output flusher: every result partition has a free-running timer
//     that ships its partly filled buffers every buffer_timeout, whatever
//     was written (Flink's RecordWriter.OutputFlusher, one thread per
//     RecordWriter, i.e. per output edge, looping Thread.sleep(timeout)
//     and flushAll()), so at low load a record waits buffer_timeout/2 per
//     hop on average; its first tick is drawn uniformly within one
//     buffer_timeout of the partition's start, as tasks start at
//     unrelated instants (see the simplifications);
//   - a flush does not close the buffer: it makes what was written
//     available, and the network takes it as a slice of the same buffer
//     when it has credit, while the writer goes on filling the buffer
//     until it is full (Flink's PipelinedSubpartition.flush and
//     pollBuffer, BufferBuilder and BufferConsumer over one memory
//     segment); the segment returns to the pool with its last piece, so
//     under back-pressure every buffer held is full and the data in
//     flight is buffers × buffer_size; an aligned barrier or a watermark
//     finishes the buffer first (BufferWritingResultPartition
//     .broadcastEvent);
//   - transfer between workers takes latency + bytes/bandwidth on the one
//     connection from the sending worker to the receiving one, which all
//     channels between them share, first come first served, each direction
//     its own (Flink's PartitionRequestClientFactory keeps one
//     NettyPartitionRequestClient per ConnectionID, the remote
//     TaskManager); a network partition holds what crosses it until it
//     ends;
//   - back-pressure monitoring: per-subtask busy / idle / back-pressured
//     time (busyTimeMsPerSecond, idleTimeMsPerSecond,
//     backPressuredTimeMsPerSecond) and the OK (<= 10%), LOW (<= 50%), HIGH
//     thresholds of Flink's web UI ("Monitoring Back Pressure", Flink
//     documentation);
//   - key groups: key group = murmurHash(key) mod max parallelism, subtask
//     = key group * parallelism / max parallelism (Flink's
//     KeyGroupRangeAssignment).
//
// Checkpoints (checkpoint.go, barrier_handler.go; Flink's
// CheckpointCoordinator, "Checkpointing" and "Checkpointing under
// back-pressure" in the Flink documentation):
//   - triggering every interval, with min_pause, max_concurrent, timeout
//     and tolerable_failures (more failed checkpoints in a row fail the
//     job);
//   - aligned: barriers injected at the sources travel with the records
//     and need credit like a buffer; a task with several input channels
//     blocks each one whose barrier came until all have (asynchronous
//     barrier snapshotting, Carbone et al. 2015); a back-pressured source
//     emits its barrier once its record in hand is written;
//   - unaligned: barriers overtake the buffered data, which is persisted
//     with the snapshot (in-flight bytes), as is what arrives on an input
//     before its barrier (FLIP-76); aligned_timeout starts aligned and
//     switches (execution.checkpointing.aligned-checkpoint-timeout);
//   - stop-the-world: the sources stop, the job drains, every task
//     copies its state, the sources resume;
//   - snapshots take time: a synchronous part that blocks the task (heap:
//     the state table's entries, 32 bytes per key, copied at 1 GiB/s; RocksDB: 2 ms plus the
//     memtable flush of the changes at 256 MiB/s, at most a 64 MiB write
//     buffer) and an asynchronous upload of the state (the changes only,
//     when incremental; RocksDB only) and persisted bytes to a checkpoint
//     storage of one bandwidth and latency, shared by all uploads and
//     restores in turn; a storage outage holds transfers until it ends.
//     A subtask with nothing to upload (no keyed state, nothing
//     persisted) acknowledges at once, and a checkpoint completes at its
//     last acknowledgement: the JobManager's write of the checkpoint's
//     _metadata (PendingCheckpoint.finalizeCheckpoint) takes no time, so
//     that a stateless job's checkpoint takes 0ms when its barriers cross
//     no network.
//
// Failures and recovery (failure.go, recovery.go; "Task Failure Recovery"
// and "JobManager High Availability" in the Flink documentation):
//   - task, worker (all its subtasks), JobManager, slowdown (a straggler),
//     network partition and storage outage, scripted or random (mtbf); a
//     task failure or slowdown of a chained operator is its task's, every
//     operator of the chain with it (one thread), and a random task
//     failure draws a task of the worker, a chain once;
//   - a failed task is reported at once; a lost worker, or one cut off for
//     longer than heartbeat_timeout, is noticed after heartbeat_timeout,
//     and the rest of the job runs on meanwhile;
//   - restart strategies none, fixed-delay, exponential-delay and
//     failure-rate, then a global failover: every task is cancelled, what
//     was in flight is destroyed, the latest completed checkpoint is
//     restored (its state and persisted channel state downloaded from the
//     storage), replayable sources rewind to its offsets;
//   - a JobManager failure loses the job without high availability, and
//     recovers after the leader election with ZooKeeper HA.
//
// State (keyed_state.go, worker.go; "State Backends" in the Flink
// documentation): heap or RocksDB keyed state of bytes_per_key per
// distinct key, with the backend's access time per record; heap state
// counts against the worker's memory (past it the worker fails,
// java.lang.OutOfMemoryError) and, when configured, garbage-collection
// pauses of gc_pause_per_gib per GiB of heap every gc_interval stop the
// worker's tasks.
//
// Streaming graphs (edge_stream.go, graph_operator.go, the algorithms in
// package graph; "Working with State" in the Flink documentation): an
// edge-stream source emits the edges of a seeded generator (Erdős–Rényi,
// Barabási–Albert, grid) or of a SNAP edge-list file, one per record; a
// graph operator keeps its graph as keyed state and computes degrees,
// connected components (union-find) or a greedy (2k−1)-spanner (BFS
// bounded to depth 2k−1, none when an endpoint is new). Its service time
// per edge is the algorithm's state accesses at the backend's cost for
// the state primitive (stateCost in keyed_state.go: access_time, plus on
// rocksdb serialization_bandwidth per byte and an iterator step per
// scanned entry) plus visit_time per vertex visited; its state bytes are
// estimated by primitive and backend (package graph), count against the
// heap, and are snapshotted by checkpoints like other keyed state (the
// snapshot's cost is the keyed state's: the graph's bytes copied on heap,
// uploaded on rocksdb). At the barrier the operator keeps its graph (a
// spanner's edge count, since its adjacency only grows; a copy of the
// union-find or degrees) and the counts that describe it; a failover
// restores them from the latest completed checkpoint, as the rewound
// edge sources replay from its offsets, so with a replayable source the
// graph after recovery is the one a run without the failure builds.
//
// Delivery (delivery.go, sink_writer.go): every record has an id and a copy
// class; sinks write at-least-once, at-most-once, idempotent (upsert by
// id) or transactional (two-phase commit: visible when the checkpoint
// that closed the transaction completes; Flink's
// TwoPhaseCommitSinkFunction), and the run counts emitted, delivered,
// duplicated and lost records against the ids the sources emitted. A
// result an operator makes (a window's, a join's pair, a timer's) is
// identified by what it is (key, window, firing; a pair's times), so a
// replay makes the same one: the on-time firing of a window of a key
// below 2^20 exactly (up to 2^52 windows), anything else by a 52-bit hash
// (resultRecord), so that about one pair of results in 10^8 share an id
// and would count as a duplicate: a simplification Flink, which has no
// ids, does not need.
//
// Event time (watermark.go, window_operator.go, timer.go; Flink's
// "Timely Stream Processing", "Generating Watermarks" and "Windows"): a
// source record's event time is its arrival less a delay drawn per record
// (event_delay; a trace source's from its timestamp column and
// max_delay); each source subtask runs a watermark generator
// (BoundedOutOfOrdernessWatermarks: max − B − 1ns; monotonous; punctuated)
// every auto_watermark_interval, with WatermarksWithIdleness' IdlenessTimer;
// a watermark is an event buffer that finishes the partly filled buffer,
// goes to every output channel behind the data and needs credit; the
// input watermark is StatusWatermarkValve's minimum over the active
// channels. A window operator assigns records to tumbling, sliding,
// session or global windows (a session merge deletes the merged windows'
// timers, so the timers held are the open windows'), fires on its
// EventTimeTrigger's timers as
// the watermark passes a window's maxTimestamp (or on the clock, or every
// count records), fires again for a late record within allowed_lateness,
// drops and counts later ones (numLateRecordsDropped) or, with a
// late_output, sends them to that side output (WindowOperator's
// lateDataOutputTag: then numLateRecordsDropped counts none; the record
// writer writes a late record to the side output's edges only, the
// results to the others), and clears a
// window at maxTimestamp + allowed_lateness; its windows count in the
// task's keyed state. A result record's id is derived from (operator,
// key, window, firing). Joins (join_operator.go): a tumbling window join
// is a window operator whose firing pairs the two inputs' records (as
// Flink's JoinedStreams is a coGroup over a window); an interval join
// (IntervalJoinOperator) buffers each input per key, joins each record
// with the other input's buffered ones within [t − before, t + after] as
// it comes, drops records older than the watermark, and clears a record
// when the watermark passes its cleanup time.
//
// Topics (topic.go, package kafka; Kafka's producer partitioners and
// Flink's KafkaSource): a topic is a log of partitions kept as offsets and
// counts; producer sources (writes) send records at their arrival times,
// partitioned by murmur2 of the key, round-robin or sticky as Kafka's
// clients do; a source of process topic owns the partitions
// KafkaSourceEnumerator.getSplitOwner gives its subtasks, reads them by
// offset, commits the offsets of a checkpoint when it completes and
// rewinds to them on recovery; retention by time and size deletes records
// read or not, and a reader that comes to a deleted one skips it (lost to
// retention, never emitted). A sink with writes is Flink's KafkaSink: what
// it makes visible (a transactional sink's at the commit, as read_committed
// readers see it) is appended to a stored topic that another job reads.
//
// Consumer groups (consumer_group.go; Kafka's KafkaConsumer,
// ConsumerCoordinator and AbstractCoordinator with the eager protocol,
// RangeAssignor in package kafka): plain consumers outside the job share a
// topic's partitions by RangeAssignor, poll at most max.poll.records,
// process each record for their service time, auto-commit their
// positions at a poll once auto.commit.interval.ms passed, and heartbeat
// every heartbeat.interval.ms. A failed member (failure kind consumer) is
// removed session.timeout.ms after its last heartbeat; the survivors hear
// of the rebalance at their next heartbeat, commit and revoke at their
// next poll and wait; when all have joined, RangeAssignor assigns the
// partitions and each resumes from the committed offsets, so what the
// failed member processed after its last commit is processed again
// (counted as duplicates).
//
// MillWheel's exactly-once (dedup_sink.go, package dedup; Akidau et al.,
// VLDB 2013, §5.1): an at-least-once sink with dedup checkpoints each
// production with its id before delivery and drops the ids it has seen,
// asking a Bloom filter of recent ids (two generations of id_retention)
// before a stable-storage lookup. Simplified: the storage keeps every id
// for the whole run (MillWheel garbage-collects them once no sender can
// retry them), so state_bytes counts 16 bytes per id ever written. Load shedding (shed.go, Aurora's drop
// boxes): a replayable source sheds the records it reads while its lag
// passes lag_over or a record's time in its log passes latency_over; an
// operator sheds the records it takes from its input gate while more
// than queue_over wait behind them or their latency since ingestion
// passes latency_over; at random or by key, counted apart from lost
// ones. A message queue's broker
// (package queue, RabbitMQ's and SQS's semantics: competing consumers,
// deletion on acknowledgement, a visibility timeout that redelivers
// what a failed consumer held, a working set paged to disk past a
// bound at a per-message cost) is the broker of queues: (queue_source.go):
// producer sources publish to it, and a source of process queue is
// Flink's RabbitMQ source (RMQSource), each subtask a channel polling one
// message at a time, acknowledging at a checkpoint's completion the
// messages it emitted before the barrier (without checkpoints, on
// delivery: autoAck); a failover opens new channels, and the old ones'
// unacknowledged messages are redelivered after the visibility timeout.
//
// The queue's simplifications: the broker has one delivery thread
// (delivery_cost a message, page_in_cost more while the ready backlog
// passes memory_bound, a count of messages, not bytes); no prefetch
// window (basicQos): a consumer holds one delivered message at a time,
// and unacknowledged ones have no limit; a closed channel's deliveries
// wait for the visibility timeout (SQS), where RabbitMQ requeues them
// as soon as it notices the channel is gone; the broker itself never
// fails, and a sink does not publish to a queue yet; a consumer's
// source_lag_records is its share of the queue's ready messages (they
// are shared; the subtasks' lags add up to the depth).
//
// # Simplifications
//
// Stated so that nobody mistakes them for Flink:
//   - load shedding is not Flink's (Flink has none: it back-pressures);
//     an operator's drop box costs no service time and decides as the
//     operator takes a record from its gate (the records behind it, its
//     latency then), not as buffers arrive, and keeps the operator out of
//     a chain with its input;
//   - a chained operator is a subtask of its own inside its task (its
//     records, latency and state are its own; busy and back-pressured
//     time are the task's); a record handed to it is counted as emitted
//     by a chained source only when the whole chain is done with it;
//     unaligned barriers reach a chain between two records of its head
//     but may pass a record the head has not yet handed on;
//   - channels inside one worker use the same credit protocol as remote
//     ones, with zero latency and no bandwidth limit; a connection between
//     workers serializes whole buffers in the order they are sent (Netty
//     interleaves the channels' buffers the same way, one at a time), each
//     at the bandwidth of its receiver's network setting;
//   - the output flusher's ticks that find nothing to flush are not
//     simulated (they do nothing); a record is never split across two
//     buffers (Flink's serializer spans records), so a full buffer may
//     fall short of buffer_size by less than one record;
//   - the union gate reads channels in the order their data arrived over
//     all gates (Flink's UnionInputGate takes gates in that order, then
//     each gate its channels);
//   - the sender of an edge has a buffer pool of
//     channels*buffers_per_channel + floating_buffers buffers, and a sent
//     buffer returns to it when it reaches the receiver;
//   - recovery is a global failover (no regional failover); a restart
//     redeploys at once after the strategy's delay;
//   - state is a set of keys of one size each; its access time does not
//     depend on its size;
//   - an unaligned snapshot's synchronous part is counted, not waited
//     for;
//   - a source that is not a topic's is one split: its watermark is its
//     subtask's; a topic reader has a watermark generator per partition
//     it owns (split-local, combined as the minimum over the partitions
//     not idle), and a subtask that owns no partition keeps one generator
//     that never sees a record (Flink's multiplexer has none, and emits
//     nothing); a watermark event needs credit, as an aligned barrier does (Flink
//     sends events without credit);
//   - an edge into a window operator is never chained; a window
//     operator's windows and timers are copied whole at its snapshot;
//     an incremental one uploads the state written since the previous
//     snapshot and still held (an accumulator once, a buffered record
//     each, a timer operator's key once), what RocksDB's flush writes
//     to new SST files, with nothing for a purged window's tombstone,
//     the timers themselves, or compaction; after a restart
//     its input watermark starts from none, as Flink's does, so a record
//     late before the failure may not be late in the replay;
//   - a late side output's edge is never chained (Flink may chain it),
//     and a join has none (an interval join drops and counts its late
//     records);
//   - a timer operator (timer_operator.go, a KeyedProcessFunction) has one
//     timer per key, the timeout pattern; its keys' last times are its
//     state;
//   - a join tells a record's input by where the record comes from (the
//     input whose upstream holds its source or window); a record whose
//     origin reaches both inputs counts as left;
//   - graph operators: heap graph state past a worker's memory stops the
//     run at once (it would fail again after every restart); a replay
//     never meets edges the restored graph holds (exactly-once state; a
//     duplicate edge in the stream is dropped by a spanner, counted as a
//     repeat), since Flink's at-least-once checkpointing mode (barriers
//     not aligned) is not modelled; a spanner and components need
//     parallelism 1 (a partitioned variant would lose paths and
//     components across partitions), degrees counts each subtask's edges
//     and sums the counts in the summary (a two-phase aggregation); the
//     state sizes are estimates of the JVM's and RocksDB's layouts, not
//     measurements; on the heap an access costs access_time whatever the
//     size of what it reads (objects by reference); RocksDB's block cache,
//     compaction and write amplification are not modelled;
//   - a topic reader reads its partitions in the order the producers sent
//     the records (a merged log), not partition by partition in fetches;
//     a bandwidth-limited partition leader therefore holds the reader's
//     other partitions behind it;
//   - retention deletes single records (by age or by the partition's
//     size in whole records), not log segments, and only the records a
//     reader comes to are counted as lost; a topic's broker limit is per
//     partition leader, not per broker; a producer never waits for the
//     broker (no acks, no max.in.flight) and retries nothing;
//   - the records in a topic all have the first producer's size for
//     retention by size and retained bytes;
//   - readers of a topic that sinks write are read_committed (Kafka's
//     default is read_uncommitted); a failure anywhere fails over every
//     job of the scenario at once (one global failover), and an idempotent
//     Kafka sink is refused (Kafka appends);
//   - a consumer group starts stable at 0 (no JoinGroup round and no
//     group.initial.rebalance.delay.ms); JoinGroup, SyncGroup and commits
//     take no time and never fail; every member heartbeats from 0 on the
//     same grid; a failed member never comes back and sends no
//     LeaveGroup; a member polls the records readable at the poll one
//     after the other (not in fetches per partition), its position
//     advancing as it takes each (Kafka's moves for the whole batch);
//     max.poll.interval.ms is not modelled (a member never exceeds it
//     unless one batch takes 5 minutes); retention does not apply to a
//     group's reads; a partition without a committed offset starts at its
//     log end (auto.offset.reset latest), counted as skipped;
//   - MillWheel's storage writes and lookups add latency to the record's
//     observed latency but do not occupy the sink's task (asynchronous,
//     batched storage); its stable storage of ids is the sink's written
//     ids, kept for the whole run (a duplicate older than the filter's
//     two generations is written again, as past MillWheel's id
//     retention); one filter per sink, shared by its subtasks.
//
// Spark's micro-batch engines (engine: spark-streaming and
// structured-streaming) are sim/microbatch; its package documentation
// lists where they simplify. New refuses a scenario of theirs.
package sim
