package microbatch

import (
	"math"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// stateJob is a keyed job over many keys: each batch brings about 1000
// new keys, so the state grows linearly.
func stateJob(op string) string {
	return `
engine: spark-streaming
duration: 40s
spark: {batch_interval: 1s, job_overhead: 0s, task_overhead: 0s, checkpoint: true, state_operation: ` + op + `}
state_backend: {access_time: 10us}
sources: [{name: in, arrival: {process: constant, rate: 1000/s}, keys: {count: 10000000}}]
operators: [{name: counts, input: in, partitioning: hash, parallelism: 1, service_time: {mean: 100us}, state: {bytes_per_key: 100B}}]
sinks: [{name: out, input: counts}]
`
}

// updateStateByKey's cost per batch grows linearly with the keys held:
// the update function is called once for every key held, the batch's new
// ones included (StateDStream.computeUsingPreviousRDD), at access_time a
// call, beside the operator's service time per record; its output is a
// row per key held. mapWithState's is per record of the batch, so it
// does not grow, except on checkpoint batches, where it scans its state
// for timeouts.
func TestStateCost(t *testing.T) {
	// the sink writes a row in 5µs: a row per key held costs it too
	sc := parse(t, replace(t, stateJob("update-state-by-key"), "sinks: [{name: out, input: counts}]", "sinks: [{name: out, input: counts, service_time: {mean: 5us}}]"))
	r := run(t, sc)
	bs := r.Batches
	// a batch of 1000 records: the shuffle of 1000 records into counts,
	// 1000 × 100µs, 10µs per key held, and the sink's 5µs per row written
	// (a row per key), plus a state checkpoint every 10s
	shuffle := des.FromSeconds(float64(1000*sc.Sources[0].RecordSize) / sc.Spark.ShuffleBandwidth)
	sink := sc.Sinks[0].ServiceTime.Mean
	var keys int64
	for _, b := range bs {
		if b.Records != 1000 || b.Delivered != 1000 {
			t.Fatalf("batch %d: %d records, %d delivered", b.Batch, b.Records, b.Delivered)
		}
		// the keys held: those before and the new ones of the batch
		if b.StateKeys < keys || b.StateKeys > keys+1000 {
			t.Fatalf("batch %d: %d keys after %d", b.Batch, b.StateKeys, keys)
		}
		keys = b.StateKeys
		if b.RowsWritten != b.StateKeys || b.BytesWritten != 100*b.StateKeys {
			t.Fatalf("batch %d: %d rows (%d bytes) written, want one per key held (%d) of 100B", b.Batch, b.RowsWritten, b.BytesWritten, b.StateKeys)
		}
		want := shuffle + 1000*100*des.Microsecond + des.Time(b.StateKeys)*(10*des.Microsecond+sink)
		if b.CheckpointBytes > 0 {
			want += des.FromSeconds(float64(b.CheckpointBytes) / sc.Spark.CheckpointBandwidth)
		}
		if got := des.FromSeconds(b.ProcessingMs / 1000); math.Abs(float64(got-want)) > 1 {
			t.Fatalf("batch %d: processing time %v, want shuffle %v + 1000 × 100µs + %d keys × (10µs + 5µs) = %v", b.Batch, got, shuffle, b.StateKeys, want)
		}
	}
	first, last := bs[0], bs[len(bs)-2]
	if last.StateKeys < 30000 || last.ProcessingMs-first.ProcessingMs < 250 {
		t.Errorf("keys %d, processing %v → %v ms: the state cost should grow with the keys", last.StateKeys, first.ProcessingMs, last.ProcessingMs)
	}

	r = run(t, parse(t, stateJob("map-with-state")))
	bs = r.Batches
	base := bs[0].ProcessingMs
	for _, b := range bs {
		if b.RowsWritten != 0 || b.Delivered != 1000 {
			t.Fatalf("mapWithState batch %d: %d rows written, %d records delivered; want its mapped records, 1000", b.Batch, b.RowsWritten, b.Delivered)
		}
		if b.CheckpointBytes > 0 {
			// the full scan of a checkpoint batch: 10µs per key held
			continue
		}
		if math.Abs(b.ProcessingMs-base) > 1e-6 {
			t.Fatalf("mapWithState batch %d: processing %v ms, want %v ms whatever the state (%d keys)", b.Batch, b.ProcessingMs, base, b.StateKeys)
		}
	}
	if got := bs[len(bs)-1].StateKeys; got < 38000 {
		t.Errorf("mapWithState holds %d keys", got)
	}
}

// Checkpoints: the state every 10 batches by default (batch 1s), lineage
// truncated at each one; mapWithState's timeout removes idle keys on
// checkpoint batches.
func TestCheckpointsAndTimeout(t *testing.T) {
	r := run(t, parse(t, stateJob("update-state-by-key")))
	c := r.Summary.Checkpoints
	if c == nil || c.IntervalS != 10 || c.Written != 3 || c.MaxLineage != 9 {
		t.Fatalf("checkpoints %+v, want every 10s, 3 written (10s, 20s, 30s; 40s is not done by 40s), lineage at most 9", c)
	}
	for _, b := range r.Batches {
		if want := int(b.TimeS) % 10; b.Lineage != want {
			t.Fatalf("batch %v: lineage %d, want %d", b.TimeS, b.Lineage, want)
		}
		if (b.CheckpointBytes > 0) != (int(b.TimeS)%10 == 0) {
			t.Fatalf("batch %v: checkpoint bytes %d", b.TimeS, b.CheckpointBytes)
		}
		if b.CheckpointBytes > 0 && b.CheckpointBytes != b.StateKeys*100 {
			t.Fatalf("batch %v: checkpoint of %d bytes, state %d keys of 100B", b.TimeS, b.CheckpointBytes, b.StateKeys)
		}
	}
	// keys are almost never repeated (10M of them): with a 5s timeout,
	// the checkpoint at 20s keeps the keys of batches 16..20 only
	y := stateJob("map-with-state")
	r = run(t, parse(t, y))
	noTimeout := r.Batches[19].StateKeys
	sc := parse(t, replace(t, y, "state_operation: map-with-state", "state_operation: map-with-state, state_timeout: 5s"))
	r = run(t, sc)
	b := r.Batches[19] // batch time 20s, a checkpoint batch
	// the keys the source drew: records 15000..19999 are batches 16..20,
	// whose keys were updated less than 5s before 20s
	keys := sim.NewKeyDistribution(sc.Sources[0].Keys)
	rng := des.StreamRand(sc.Seed, "source/in/0/keys")
	all, recent := map[uint32]bool{}, map[uint32]bool{}
	for i := 0; i < 20000; i++ {
		k := keys.Sample(rng)
		all[k] = true
		if i >= 15000 {
			recent[k] = true
		}
	}
	if b.CheckpointBytes == 0 || noTimeout != int64(len(all)) {
		t.Fatalf("batch 20: checkpoint %d bytes, %d keys without timeout, want %d", b.CheckpointBytes, noTimeout, len(all))
	}
	if b.StateKeys != int64(len(recent)) || b.CheckpointBytes != 100*b.StateKeys {
		t.Errorf("after the timeout scan: %d keys (checkpoint %d bytes), want the %d keys of the last 5 batches", b.StateKeys, b.CheckpointBytes, len(recent))
	}
}

// updateStateByKey's rows go downstream as its records would: through a
// filter of selectivity 0.5 on the same partitions, and by key into a
// sink of another parallelism.
func TestStateRowsDownstream(t *testing.T) {
	y := replace(t, stateJob("update-state-by-key"), "sinks: [{name: out, input: counts}]", `  - {name: half, input: counts, parallelism: 1, selectivity: 0.5, service_time: {mean: 1us}}
sinks: [{name: out, input: half}, {name: all, input: counts, partitioning: hash, parallelism: 3}]`)
	y = replace(t, y, "operators: [{name: counts, input: in, partitioning: hash, parallelism: 1, service_time: {mean: 100us}, state: {bytes_per_key: 100B}}]",
		"operators:\n  - {name: counts, input: in, partitioning: hash, parallelism: 1, service_time: {mean: 100us}, state: {bytes_per_key: 100B}}")
	r := run(t, parse(t, y))
	var carried float64
	for _, b := range r.Batches {
		// half writes floor(carry + keys/2), all writes every key
		carried += float64(b.StateKeys) / 2
		half := int64(carried)
		carried -= float64(half)
		if b.RowsWritten != b.StateKeys+half {
			t.Fatalf("batch %d: %d rows written, want %d keys to all and %d to out", b.Batch, b.RowsWritten, b.StateKeys, half)
		}
	}
}
