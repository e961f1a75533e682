package plan

import (
	"math"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// PollingDelay is spark.sql.streaming.pollingDelay: how long a structured
// streaming query with the default trigger waits before it looks for new
// data again after a micro-batch found none (MicroBatchExecution).
const PollingDelay = 10 * des.Millisecond

// Memory of a micro-batch run in the simulator (sim/microbatch), in
// bytes, measured on it (live heap after runs, with the growth of maps
// and slices):
//   - a row of a state store (a key, or a window and key, with its last
//     update): 27 to 32 bytes measured over 178,377 and 295,532 keys;
//   - a record of a batch waiting for its job or running: its arrival
//     time for its latency, 8 bytes, in a slice grown by up to a quarter
//     (10.1 bytes measured over 540,000 queued records, the batches' rows
//     included);
//   - a batch's row kept for batches.csv and the summary (184 bytes, and
//     a stage's makespan) and a metrics sample's row of timeseries.csv
//     (112 bytes), each twice over since a slice grown by append holds up
//     to twice its rows (558 places for 299 batches, 950 for 600 samples
//     measured);
//   - an event of events.jsonl with its message;
//   - a task slot of a stage: its vertices' records and busy time per
//     partition, its task time and shuffle bytes.
const (
	BytesPerStateRow         = 32
	BytesPerQueuedRecord     = 10
	bytesPerBatchRow         = 2 * 184
	bytesPerBatchStage       = 16
	bytesPerMicroBatchSample = 2 * 112
	bytesPerMicroBatchEvent  = 256
	bytesPerTaskSlot         = 64
	bytesPerTaskSlotVertex   = 40
)

// estimateMicroBatch fills what a micro-batch run (engine spark-streaming
// or structured-streaming) holds, given the records per second each
// vertex receives: its memory is the state and the batches in the queue
// (sim/microbatch keeps no record beyond the arrival time of those of
// the batches waiting or running), beside the rows of its outputs and the
// job's structures:
//   - StateRows: the rows of the state stores of the operators with
//     state, each at most its key space (the largest key count of the
//     sources, each key in one partition behind keyBy; a trace's keys
//     are unknown), times the windows of
//     the run with spark.window, and no more than the records it receives
//     over the run; structured streaming keeps as many again for the rows
//     changed within a trigger;
//   - QueuedRecords: the records the batches waiting for their job (and
//     the one running) hold for their latencies, those that reach a sink
//     or a state whose rows go on instead (structured streaming's result
//     table, updateStateByKey's state), over the whole run: an unstable job queues nearly
//     all of them. The runner bounds it by --max-queued (CapQueued), past
//     which the run stops;
//   - Batches: the batches (or triggers) over the run, each a row kept
//     for batches.csv, and Rows the metrics samples of timeseries.csv;
//   - TaskSlots: the partitions of all stages (a receiver's stage has one
//     partition per block: batch_interval / block_interval of them).
//
// Flink's structures (channels, key sets, checkpoints in flight, windows,
// graphs) have no counterpart and count nothing.
func (p *Plan) estimateMicroBatch(e *Estimate, in []float64) {
	sc := p.Scenario
	sp := sc.Spark
	d := sc.Duration.Seconds()
	structured := sc.Engine == scenario.EngineStructuredStreaming
	e.MicroBatch = true
	e.KeyedSubtasks, e.KeySets, e.KeySetBytes, e.CheckpointsInFlight, e.CheckpointBytes = 0, 0, 0, 0, 0
	e.CheckpointEvents, e.CheckpointEvery, e.CheckpointRows = 0, 0, 0
	keys := 1.0
	e.ZipfKeys = 0
	for _, v := range p.Vertices {
		if v.Kind != Source {
			continue
		}
		keys = max(keys, float64(v.Source.Keys.Count))
		if v.Source.Arrival.Process == scenario.ArrivalTrace {
			keys = math.MaxInt32 // a trace's key column: unknown
		}
		if v.Source.Keys.Distribution == scenario.KeysZipf { // a key table per Kafka partition
			e.ZipfKeys = satAdd(e.ZipfKeys, satMul(int64(v.Source.Keys.Count), int64(p.SourcePartitions(v))))
		}
	}
	// absorbed: behind an operator whose records stop there for their
	// latency (an aggregation of structured streaming, whose result rows
	// go on, and updateStateByKey, whose state rows go on)
	absorbs := func(v *Vertex) bool {
		return v.State != nil && (structured || sp.StateOperation == scenario.StateUpdateStateByKey)
	}
	absorbed := make([]bool, len(p.Vertices))
	var held float64 // records per second that reach a sink or an aggregation
	for _, v := range p.Vertices {
		for _, ed := range v.Inputs {
			absorbed[v.Index] = absorbed[v.Index] || absorbed[ed.From.Index] || absorbs(ed.From)
		}
		if absorbed[v.Index] {
			continue
		}
		if v.Kind == Sink || absorbs(v) {
			held = finite(held + in[v.Index])
		}
		if v.State == nil {
			continue
		}
		rows := keys // keyed state is behind keyBy (validated): each key in one partition
		if w := sp.Window; structured && w > 0 {
			rows = finite(rows * (math.Ceil(float64(sc.Duration)/float64(w)) + 1))
		}
		rows = min(rows, math.Ceil(finite(in[v.Index]*d)))
		if structured {
			rows = finite(2 * rows) // the rows changed this trigger, a map as large
		}
		e.StateRows = finite(e.StateRows + rows)
	}
	e.StateBytes = satMul(int64(min(e.StateRows, 1<<60)), BytesPerStateRow)

	interval := sp.BatchInterval
	if structured {
		interval = sp.TriggerInterval
	}
	var batches float64
	switch {
	case !structured || sp.Trigger == scenario.TriggerProcessingTime || sp.Trigger == scenario.TriggerContinuous:
		if interval > 0 {
			batches = math.Floor(float64(sc.Duration) / float64(interval))
		}
	case sp.Trigger == scenario.TriggerAvailableNow:
		batches = 1
	default: // as fast as possible: a trigger after each, or a polling delay without data
		stages := len(p.Stages())
		if least := sp.JobOverhead + des.Time(stages)*sp.TaskOverhead; least > 0 {
			batches = math.Floor(float64(sc.Duration)/float64(min(least, PollingDelay))) + 1
		} else {
			batches = finite(math.Floor(float64(sc.Duration)/float64(PollingDelay)) + 1 + e.Offered*d)
		}
	}
	e.Batches = batches
	e.QueuedRecords = math.Ceil(finite(held * d))
	if !structured && interval > 0 {
		// one batch's records: the queue goes at most one batch past
		// --max-queued, beside the running one
		e.BatchRecords = math.Ceil(finite(held * interval.Seconds()))
	}
	e.QueueBytes = satMul(int64(min(e.QueuedRecords, 1<<60)), BytesPerQueuedRecord)
	stages := p.Stages()
	for _, st := range stages {
		parts := int64(st.Vertices[0].Parallelism)
		if v := st.Vertices[0]; v.Kind == Source {
			parts = int64(p.SourcePartitions(v))
		}
		if !st.Shuffle && !structured && sp.Input == scenario.InputReceiver && sp.BlockInterval > 0 {
			parts = satMul(parts, int64(max((sp.BatchInterval+sp.BlockInterval-1)/sp.BlockInterval, 1)))
		}
		e.TaskSlots = satAdd(e.TaskSlots, parts)
		e.TaskSlotBytes = satAdd(e.TaskSlotBytes, satMul(parts, bytesPerTaskSlot+int64(len(st.Vertices))*bytesPerTaskSlotVertex))
	}
	mi := p.MetricsInterval()
	e.MetricsRows = 1 / mi.Seconds()
	e.Rows = math.Ceil(float64(sc.Duration) / float64(mi))
	events := 2 + e.Failovers // started, falling behind; a failure's
	if ck := sp.CheckpointInterval; sp.Checkpoint && !structured {
		if ck == 0 {
			ck = scenario.DefaultSparkCheckpointInterval(sp.BatchInterval, sp.StateOperation)
		}
		if ck > 0 {
			events += math.Floor(float64(sc.Duration) / float64(ck)) // a state checkpoint's
		}
	}
	e.BatchBytes = satAdd(satMul(int64(min(batches, 1<<50)), bytesPerBatchRow+int64(len(stages))*bytesPerBatchStage),
		satMul(int64(min(e.Rows, 1<<50)), bytesPerMicroBatchSample), satMul(int64(min(events, 1<<50)), bytesPerMicroBatchEvent))
	e.EventRate = finite(e.Records + e.MetricsRows + e.FailoverEvents + e.GCEvents + e.TopicReads)
	e.Events = finite(e.EventRate * d)
	e.sumMicroBatch()
}

// sumMicroBatch is the Memory of a micro-batch run's estimate.
func (e *Estimate) sumMicroBatch() {
	e.Memory = satAdd(e.StateBytes, e.QueueBytes, e.BatchBytes, e.TaskSlotBytes, e.ZipfKeys*BytesPerZipfKey,
		int64(e.Subtasks)*BytesPerSubtask, int64(e.Workers)*BytesPerWorker, e.TopicBytes, e.FailoverBytes, e.BloomBytes)
}

// CapQueued bounds the records of a micro-batch run's queued batches by
// maxQueued (--max-queued: past it the run stops), plus the batch that
// went over it and the one running, and sums the memory again. It does
// nothing to a Flink run's estimate, or with maxQueued <= 0.
func (e *Estimate) CapQueued(maxQueued int64) {
	if !e.MicroBatch || maxQueued <= 0 {
		return
	}
	e.QueueCap = maxQueued
	if e.BatchRecords > 0 {
		e.QueuedRecords = min(e.QueuedRecords, float64(maxQueued)+2*e.BatchRecords)
	}
	e.QueueBytes = satMul(int64(min(e.QueuedRecords, 1<<60)), BytesPerQueuedRecord)
	e.sumMicroBatch()
}

// SourcePartitions is the Kafka partitions a micro-batch source reads, one
// RDD partition each: its topic's partitions, or one per subtask.
func (p *Plan) SourcePartitions(v *Vertex) int {
	if tp := p.TopicOf(v); tp != nil {
		return tp.Partitions
	}
	return v.Parallelism
}
