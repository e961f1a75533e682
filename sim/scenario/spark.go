package scenario

import (
	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
)

// MinBatchInterval is the shortest spark.batch_interval: Spark's batch
// duration is a whole number of milliseconds (Durations.milliseconds).
const MinBatchInterval = des.Millisecond

// DefaultSparkCheckpointInterval is Spark's checkpoint interval of the
// stateful DStream of op when none is set. updateStateByKey's
// StateDStream (mustCheckpoint) takes DStream.initialize's
// slideDuration * ceil(Seconds(10) / slideDuration): 10 seconds rounded up
// to a multiple of the slide (batch) interval. mapWithState's
// InternalMapWithStateDStream.initialize sets slideDuration *
// DEFAULT_CHECKPOINT_DURATION_MULTIPLIER (10) before it: ten batches
// (org.apache.spark.streaming.dstream).
func DefaultSparkCheckpointInterval(batch des.Time, op string) des.Time {
	if batch <= 0 {
		return 0
	}
	if op == StateMapWithState {
		return 10 * batch
	}
	n := (10*des.Second + batch - 1) / batch
	return batch * n
}

// Warnings are what a valid scenario most likely does not mean, located as
// its errors are (Errorf): a spark.batch_interval no shorter than the
// duration, so that no batch completes (Spark Streaming's first batch is
// generated one batch interval after the start: JobGenerator's
// RecurringTimer, then its job runs), and the same of structured
// streaming's spark.trigger_interval with a processing-time or continuous
// trigger (the first trigger fires one interval after the start).
// Validate and run print them; they refuse nothing.
func (s *Scenario) Warnings() []*Error {
	var w []*Error
	longer := func(field string, iv des.Time, what string) {
		if iv >= s.Duration && s.Duration > 0 {
			w = append(w, s.Errorf(kSpark+"."+field, "warning: %s is not shorter than the run (duration %s): no %s completes, so there is nothing to measure; make it shorter than the duration",
				FormatDuration(iv), FormatDuration(s.Duration), what))
		}
	}
	switch {
	case s.Engine == EngineSparkStreaming:
		longer(kBatchInterval, s.Spark.BatchInterval, "batch")
	case s.Engine == EngineStructuredStreaming && (s.Spark.Trigger == TriggerProcessingTime || s.Spark.Trigger == TriggerContinuous):
		longer(kTriggerInterval, s.Spark.TriggerInterval, "micro-batch")
	}
	return w
}

// IsMicroBatch reports whether the scenario runs on one of Spark's
// micro-batch engines.
func (s *Scenario) IsMicroBatch() bool { return MicroBatchEngine(s.Engine) }

// MicroBatchEngine reports whether engine (a scenario's, or a summary's
// engine field) is one of Spark's micro-batch engines.
func MicroBatchEngine(engine string) bool {
	return engine == EngineSparkStreaming || engine == EngineStructuredStreaming
}

// sparkOnly lists the keys of spark that only one micro-batch engine
// takes.
var sparkOnly = map[string]string{
	kBatchInterval: EngineSparkStreaming, kInputStream: EngineSparkStreaming,
	kMaxRatePerPartition: EngineSparkStreaming, kMinRatePerPartition: EngineSparkStreaming,
	kReceiverMaxRate: EngineSparkStreaming, kBlockInterval: EngineSparkStreaming,
	kWriteAheadLog: EngineSparkStreaming, kWALBandwidth: EngineSparkStreaming,
	kBackpressure: EngineSparkStreaming, kPIDProportional: EngineSparkStreaming,
	kPIDIntegral: EngineSparkStreaming, kPIDDerived: EngineSparkStreaming,
	kPIDMinRate: EngineSparkStreaming, kInitialRate: EngineSparkStreaming,
	kStateOperation: EngineSparkStreaming, kStateTimeout: EngineSparkStreaming,
	kCheckpointInterval: EngineSparkStreaming,
	kTrigger:            EngineStructuredStreaming, kTriggerInterval: EngineStructuredStreaming,
	kOutputMode: EngineStructuredStreaming, kWatermark: EngineStructuredStreaming,
	kWindow: EngineStructuredStreaming,
}

// validateSpark relates the fields of the micro-batch engines to the
// engine and the job: a field of one engine given for the other, the batch
// interval spark-streaming needs, append mode without a watermark, and a
// continuous trigger on a query it cannot run.
func (c *checker) validateSpark() {
	s := c.s
	if !s.IsMicroBatch() {
		return
	}
	for _, f := range sparkMapping.Fields {
		p := kSpark + "." + f.Name
		if eng, ok := sparkOnly[f.Name]; ok && eng != s.Engine && c.s.given(p) {
			c.errorf(p, "this field belongs to engine: %s, not %s", eng, s.Engine)
		}
	}
	for _, k := range []struct{ list, key, msg string }{
		{kSources, kWatermarks, "this field belongs to engine: flink (Flink's WatermarkStrategy); Structured Streaming's watermark is spark.watermark"},
		{kSources, kEdges, "edge streams are not simulated on the micro-batch engines yet"},
		{kOperators, kWindow, "this field belongs to engine: flink (a Flink window); Structured Streaming's window is spark.window"},
		{kOperators, kGraph, "graph operators are not simulated on the micro-batch engines yet"},
		{kOperators, kNetwork, "this field belongs to engine: flink (Flink's network stack)"},
		{kSinks, kNetwork, "this field belongs to engine: flink (Flink's network stack)"},
	} {
		n := map[string]int{kSources: len(s.Sources), kOperators: len(s.Operators), kSinks: len(s.Sinks)}[k.list]
		for i := range n {
			if p := strictyaml.Index(k.list, i) + "." + k.key; c.s.given(p) {
				c.errorf(p, "%s, not %s", k.msg, s.Engine)
			}
		}
	}
	for i, sk := range s.Sinks {
		if sk.Writes != nil && sk.Delivery == DeliveryTransactional {
			c.errorf(strictyaml.Index(kSinks, i)+"."+kDelivery, "Spark's Kafka sink is at-least-once (a batch run again writes its records again); transactional is Flink's KafkaSink (engine: flink): use at-least-once")
		}
	}
	sp := s.Spark
	stateful := false
	for _, op := range s.Operators {
		stateful = stateful || op.State != nil
	}
	for i, f := range s.Failures {
		p := strictyaml.Index(kFailures, i)
		switch {
		case f.Kind != FailureTask && f.Kind != FailureWorker && f.Kind != FailureJobManager:
			c.errorf(p+"."+kKind, "on engine %s a failure is task (an attempt of a task fails and runs again), worker (an executor dies with its cores and cached state) or jobmanager (the driver dies), got %s", s.Engine, f.Kind)
		}
	}
	switch s.Engine {
	case EngineSparkStreaming:
		if sp.BatchInterval <= 0 && !c.s.given(kSpark+"."+kBatchInterval) {
			c.errorf(kSpark, "engine spark-streaming needs batch_interval, the batch duration of the StreamingContext (such as batch_interval: 1s)")
		}
		if stateful && !sp.Checkpoint && sp.BatchInterval > 0 {
			c.errorf(kSpark, "updateStateByKey and mapWithState need checkpoint: true (Spark: \"The checkpoint directory has not been set. Please set it by StreamingContext.checkpoint()\")")
		}
		if sp.Checkpoint && sp.CheckpointInterval > 0 && sp.BatchInterval > 0 && sp.CheckpointInterval%sp.BatchInterval != 0 {
			c.errorf(kSpark+"."+kCheckpointInterval, "must be a multiple of batch_interval (%s), got %s (Spark refuses it: \"the checkpoint interval must be a multiple of the slide duration\")",
				FormatDuration(sp.BatchInterval), FormatDuration(sp.CheckpointInterval))
		}
	case EngineStructuredStreaming:
		if sp.OutputMode == OutputAppend && stateful && sp.Watermark == 0 {
			c.errorf(kSpark+"."+kOutputMode, "append mode on an aggregation needs a watermark (Spark refuses it: \"Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark\"); set watermark, or use output_mode update or complete")
		} else if sp.OutputMode == OutputAppend && stateful && sp.Window == 0 {
			// UnsupportedOperationChecker: the watermarked event time must
			// be a grouping key (a window of it), or no row is ever final
			c.errorf(kSpark+"."+kOutputMode, "append mode on an aggregation needs an event-time window (spark.window): a row is written once the watermark passes its window's end, and a count per key alone is never final (Spark refuses it: \"Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark\", the watermarked column not among the grouping keys); set window, or use output_mode update or complete")
		}
		if sp.OutputMode == OutputComplete && !stateful {
			c.errorf(kSpark+"."+kOutputMode, "complete mode needs an aggregation (an operator with state): Spark refuses it on a query without one (\"Complete output mode not supported when there are no streaming aggregations\")")
		}
		if sp.Trigger == TriggerContinuous && stateful {
			c.errorf(kSpark+"."+kTrigger, "a continuous trigger supports only map-like operations (select, map, filter), not the aggregation of an operator with state (Spark: \"Continuous processing does not support Aggregate operations\"); use trigger processing-time")
		}
		if sp.Window > 0 && !stateful {
			c.errorf(kSpark+"."+kWindow, "a window needs an aggregation: give an operator state (partitioning: hash)")
		}
	}
}
