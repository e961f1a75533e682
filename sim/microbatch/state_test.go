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

// updateStateByKey's cost per batch grows linearly with the keys held
// (access_time per key every batch); mapWithState's is per record of the
// batch, so it does not grow, except on checkpoint batches, where it
// scans its state for timeouts.
func TestStateCost(t *testing.T) {
	r := run(t, parse(t, stateJob("update-state-by-key")))
	bs := r.Batches
	for k := 1; k < len(bs); k++ {
		a, b := bs[k-1], bs[k]
		if b.CheckpointBytes > 0 || a.CheckpointBytes > 0 {
			continue
		}
		// processing = 1000 × 100µs + shuffle + 10µs × keys held; the
		// difference between batches is 10µs × the new keys
		got := b.ProcessingMs - a.ProcessingMs
		want := 0.01 * float64(b.StateKeys-a.StateKeys)
		if math.Abs(got-want) > 1e-6 {
			t.Fatalf("batch %d: processing time grew %v ms, want 10µs × %d new keys = %v ms", b.Batch, got, b.StateKeys-a.StateKeys, want)
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
	rng := des.Stream(sc.Seed, "source/in/0/keys")
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
