package plan

import (
	"strings"
	"testing"
)

// The estimate of a micro-batch run counts its state stores and queued
// batches by the scenario's sizes, in closed form.
func TestMicroBatchEstimate(t *testing.T) {
	const job = `engine: spark-streaming
duration: 100s
spark: {batch_interval: 2s, checkpoint: true}
sources: [{name: s, parallelism: 2, arrival: {process: constant, rate: 500/s}, keys: {count: 5000}}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 4, service_time: {mean: 10us}, state: {bytes_per_key: 10B}}]
sinks: [{name: out, input: a}]
`
	est := func(y string) Estimate { return compile(t, parse(t, y)).Estimate(nil) }
	e := est(job)
	// 5000 keys (fewer than the 100,000 records); 100,000 records reach
	// the sink; 50 batches of 2 stages; 100 samples; 2 + 10 events (a
	// state checkpoint every 10s); stages of 2 and 4 partitions
	if !e.MicroBatch || e.StateRows != 5000 || e.StateBytes != 5000*BytesPerStateRow || e.QueuedRecords != 100000 || e.BatchRecords != 2000 ||
		e.Batches != 50 || e.Rows != 100 || e.Channels != 0 || e.TaskSlots != 6 {
		t.Fatalf("%+v", e)
	}
	if want := int64(50*(bytesPerBatchRow+2*bytesPerBatchStage) + 100*bytesPerMicroBatchSample + 12*bytesPerMicroBatchEvent); e.BatchBytes != want {
		t.Errorf("batch bytes %d, want %d", e.BatchBytes, want)
	}
	if want := 2*(bytesPerTaskSlot+bytesPerTaskSlotVertex) + 4*(bytesPerTaskSlot+2*bytesPerTaskSlotVertex); e.TaskSlotBytes != int64(want) {
		t.Errorf("task slot bytes %d, want %d", e.TaskSlotBytes, want)
	}
	// --max-queued 1000: the queue, a batch past it and the one running
	e.CapQueued(1000)
	if e.QueuedRecords != 1000+2*2000 || e.QueueBytes != 5000*BytesPerQueuedRecord || e.QueueCap != 1000 {
		t.Errorf("capped: %v records, %d bytes", e.QueuedRecords, e.QueueBytes)
	}

	e = est(strings.Replace(job, "count: 5000}", "count: 1000000}", 1))
	if e.StateRows != 100000 {
		t.Errorf("10^6 keys: %v state rows, want the 100,000 records", e.StateRows)
	}

	// structured streaming with a 10s window: (10 + 1) windows of 5000
	// keys, bounded by the records, twice (the rows changed per trigger);
	// its records stop at the aggregation, whose rows go to the sink
	e = est(`engine: structured-streaming
duration: 100s
spark: {trigger: processing-time, trigger_interval: 1s, window: 10s, output_mode: update}
sources: [{name: s, parallelism: 2, arrival: {process: constant, rate: 500/s}, keys: {count: 5000}}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 4, service_time: {mean: 10us}, state: {bytes_per_key: 10B}}]
sinks: [{name: out, input: a}]
`)
	if e.StateRows != 2*55000 || e.QueuedRecords != 100000 || e.BatchRecords != 0 || e.Batches != 100 {
		t.Errorf("structured: %v state rows, %v queued records (%v a batch), %v batches", e.StateRows, e.QueuedRecords, e.BatchRecords, e.Batches)
	}

	// a receiver cuts a block every block_interval: 2s / 1ms = 2000
	// partitions of each receiver's stage
	e = est(strings.Replace(job, "checkpoint: true}", "checkpoint: true, input_stream: receiver, block_interval: 1ms}\nworkers: {count: 1, slots: 8}", 1))
	if e.TaskSlots != 2*2000+4 {
		t.Errorf("receivers: %d task slots", e.TaskSlots)
	}
}
