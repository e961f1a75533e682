// Package microbatch is dspalab's second engine: Spark's micro-batch
// execution model on the same kernel (sim/des), scenario format
// (sim/scenario), plan (sim/plan), sources and keys (sim's generators) and
// metrics (sim/metrics) as the Flink engine in sim.
//
// Spark Streaming (engine: spark-streaming, DStreams): every batch
// interval the JobGenerator cuts a batch of what the inputs hold (an
// offset range per Kafka partition for a direct stream, the blocks of
// the receivers otherwise) and submits it as a job; the JobScheduler runs
// one job at a time (spark.streaming.concurrentJobs = 1), so a batch whose
// job cannot start at its batch time waits: its scheduling delay. A job
// is stages cut at shuffles (plan.Stages), each one task per partition on
// the executors' cores; its processing time is the driver's job overhead
// plus the stages' makespans. StreamingListener's figures follow:
// scheduling delay = start − batch time, processing time = end − start,
// total delay = end − batch time. Back-pressure is Spark's
// PIDRateEstimator and DirectKafkaInputDStream.maxMessagesPerPartition
// (pid.go).
//
// Structured Streaming (engine: structured-streaming) runs micro-batches
// by its trigger (structured.go).
//
// The package depends on sim (for the shared generators and formatting),
// never the other way: sim is the Flink engine and the model's shared
// pieces, and internal/runner chooses the engine by scenario.Engine.
//
// # Simplifications
//
// Where this engine departs from Spark, it says so here:
//
//   - A job's stages run one after another (Spark may run independent
//     stages of one job at once), and a stage's tasks go, in partition
//     order, to the core that frees first; a task's partition lives on
//     executor (partition mod executors) for what an executor loss costs.
//   - The processing time of a batch is computed when the batch is cut,
//     with the cores there are then; a change of cores while it waits (an
//     executor lost or replaced) does not change it, except for the job
//     that is running, whose lost tasks rerun.
//   - One PID rate estimator serves the whole job (Spark has one per input
//     stream); a receiver's rate is that rate over the receivers, capped by
//     receiver_max_rate and by what the write-ahead log can write.
//   - Records keep their source's key through every operator; an operator's
//     selectivity scales its output count (fractions carried over). A
//     broadcast edge sends every record to every partition.
//   - updateStateByKey's update function costs state_backend.access_time
//     per call, one call per key held (the new keys included), beside the
//     operator's service time per record; its output, a row per key, goes
//     downstream as counted rows: a state behind it does not keep their
//     keys, a hash edge past the first spreads them evenly, and they
//     carry no latency (the batch's records deliver theirs at the state).
//     The update function never removes a key (it returns Some).
//     mapWithState's timeout scan happens on checkpoint batches, as
//     MapWithStateRDD's full scan does.
//   - The metadata checkpoint costs nothing; a state checkpoint writes the
//     state at checkpoint_bandwidth as part of its batch's processing time.
//   - Structured streaming: each micro-batch reads every offset available
//     (no maxOffsetsPerTrigger); the watermark of a trigger is the largest
//     event time of the triggers before, less the delay (Spark's
//     watermark is likewise updated between micro-batches); complete mode
//     keeps every row. rows_dropped_by_watermark counts the late input
//     records; Spark's numRowsDroppedByWatermark counts the rows its
//     stateful operator drops, after the partial aggregation: at most one
//     per window and key in a partition and micro-batch, fewer than the
//     records behind them. A continuous trigger's epochs are counted as
//     micro-batches for their costs, while each record's latency is its
//     own processing (the sum of the service means and one task overhead).
//     The offset and commit logs are not modelled as costs.
//   - A trace source (Options.OpenTrace) is a direct stream of one Kafka
//     partition per source subtask, its records' keys and event times
//     the trace's; a partition opens its trace twice (the log's end and
//     the read position), as sim's replayable trace sources do.
//   - A source of process topic reads a topic of producers as
//     DirectKafkaInputDStream does: one RDD partition (a task) per Kafka
//     partition, from sim.TopicCursor (the records a Flink job would
//     read, latency from their send); the topic's retention is not
//     applied. A sink with writes is Spark's Kafka sink (kafka_sink.go):
//     its batch's records become visible when the batch's job ends
//     (then append_latency, behind the topic's bandwidth), and a source
//     of the same scenario reads them as a direct stream, in a later
//     batch; the copy written before a driver failure is counted as
//     duplicated, not appended. A scenario has one engine, so a Spark
//     job and a Flink job do not share a topic in one run.
//   - Failures: executor and driver failures at a scripted time or at
//     random (mtbf: exponential times per worker, or for the driver, from
//     the streams sim draws them from; a random failure does not strike
//     an executor being replaced or while the driver is down). A task
//     failure (kind task, scripted, random or injected) fails the task's
//     attempt in the running job, or in the next job when none runs; the
//     attempt runs again in full, its time added to the job's processing
//     time whenever in the attempt it failed (Spark's TaskSetManager
//     reruns it as soon as a core frees, so its stage grows by at most
//     that), and the spark.task.maxFailures-th failure of one task aborts
//     the job, which stops the application. A batch cut while every
//     executor is lost is computed with the replacements' cores. A rerun batch keeps the
//     processing time it was computed with, plus the recomputation (or,
//     for structured streaming, the reload) of the lost state. With
//     receivers, the batches of a driver's downtime get no block (the
//     receivers were down with it) and the backlog goes to the batches
//     after the restart; the blocks the write-ahead log kept of those
//     received since the last batch go to the next batch, where Spark
//     gives them to the first batch of the downtime.
//   - Statistics: the window holds the batches completed after the
//     warmup; the stability verdict reads its end (the last batch over
//     the interval and waiting longer than the one before), where Spark
//     leaves the judgement to the reader of the StreamingListener's
//     delays. A batch aborted by spark.task.maxFailures is a row of
//     batches.csv but no completed batch of the statistics.
package microbatch
