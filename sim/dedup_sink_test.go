package sim_test

import (
	"fmt"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/dedup"
)

// millwheel is exactly-once.yaml with two sinks on the aggregate: one
// transactional (Flink's barriers and two-phase commit), one
// at-least-once with MillWheel's dedup.
func millwheel(seed int, bits string, random bool) string {
	failures := "failures:\n  - {kind: worker, at: 45s, worker: 1}\n"
	if random {
		failures = "failures:\n  - {kind: task, mtbf: 40s}\n"
	}
	return fmt.Sprintf(`duration: 120s
warmup: 10s
seed: %d
workers: {count: 2, slots: 1, heartbeat_timeout: 10s}
sources:
  - name: sensors
    parallelism: 2
    arrival: {process: poisson, rate: 500/s}
    max_rate: 800/s
operators:
  - name: aggregate
    input: sensors
    partitioning: hash
    parallelism: 2
    service_time: {distribution: exponential, mean: 1ms}
sinks:
  - name: barriers
    input: aggregate
    parallelism: 2
    delivery: transactional
  - name: millwheel
    input: aggregate
    parallelism: 2
    delivery: at-least-once
    dedup: {bloom_bits: %s, hashes: 7, id_retention: 10m, lookup_time: 2ms, production_write_time: 1ms}
checkpoint: {mode: aligned, interval: 10s}
restart: {type: fixed-delay, delay: 2s}
%s`, seed, bits, failures)
}

func sinkOf(t *testing.T, s *sim.Summary, name string) sim.SinkSummary {
	t.Helper()
	for _, k := range s.Delivery.Sinks {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no sink %s", name)
	return sim.SinkSummary{}
}

// TestMillWheelDedup: with failures, no duplicate reaches the MillWheel
// sink over 20 seeds; it catches exactly the duplicates at-least-once
// delivery brings (a sink without dedup would write them); its latency is
// the pipeline's plus the production write (and a lookup now and then),
// against half the checkpoint interval of the transactional sink.
func TestMillWheelDedup(t *testing.T) {
	caught := 0
	for seed := 1; seed <= 20; seed++ {
		s := run(t, parse(t, "t.yaml", []byte(millwheel(seed, "8388608", seed > 10))))
		mw, tx := sinkOf(t, s, "millwheel"), sinkOf(t, s, "barriers")
		if mw.Duplicated != 0 || tx.Duplicated != 0 || s.Delivery.Lost != 0 {
			t.Errorf("seed %d: millwheel %d duplicated, barriers %d, lost %d; want 0", seed, mw.Duplicated, tx.Duplicated, s.Delivery.Lost)
		}
		if mw.Dedup == nil {
			t.Fatal("no dedup summary")
		}
		d := mw.Dedup
		if d.Received != mw.Delivered+d.DuplicatesCaught {
			t.Errorf("seed %d: received %d != delivered %d + caught %d", seed, d.Received, mw.Delivered, d.DuplicatesCaught)
		}
		if s.Recovery.Restarts > 0 && d.DuplicatesCaught == 0 {
			t.Errorf("seed %d: %d restarts replayed records, but no duplicate was caught", seed, s.Recovery.Restarts)
		}
		caught += int(d.DuplicatesCaught)
		if seed == 1 {
			mwP50, txP50 := *vertex(t, s, "millwheel").LatencyP50, *vertex(t, s, "barriers").LatencyP50
			t.Logf("seed 1: millwheel p50 %.0fms, barriers p50 %.0fms; %d caught, %d lookups, %d false positives, %d storage writes, %d state bytes",
				mwP50, txP50, d.DuplicatesCaught, d.Lookups, d.FalsePositives, d.StorageWrites, d.StateBytes)
			if mwP50 > 500 || txP50 < 4000 {
				t.Errorf("p50 millwheel %.0fms, barriers %.0fms; want a few hundred ms against about 5s", mwP50, txP50)
			}
			// every record costs a production write and an id write
			if d.StorageWrites != d.Received+mw.Delivered {
				t.Errorf("storage writes %d, want received %d + delivered %d", d.StorageWrites, d.Received, mw.Delivered)
			}
		}
	}
	if caught == 0 {
		t.Error("no duplicates caught over 20 seeds")
	}
}

// TestMillWheelFalsePositives: a filter too small for its ids answers
// "maybe" for new ids at the closed-form rate: the i-th new id meets a
// filter of i ids (no rotation within the run: id_retention 10m), so the
// false positives expected are the sum of (1 − e^(−ki/m))^k over the new
// ids (about 310 of 120,000 per run at m = 2^20, k = 7; summed over 6
// seeds, so that the noise, about 2%, stays inside the 5%); each costs a
// lookup, none loses or duplicates a record.
func TestMillWheelFalsePositives(t *testing.T) {
	var got uint64
	want := 0.0
	for seed := 1; seed <= 6; seed++ {
		s := run(t, parse(t, "t.yaml", []byte(millwheel(seed, "1048576", false))))
		mw := sinkOf(t, s, "millwheel")
		d := mw.Dedup
		fresh := d.Received - d.DuplicatesCaught
		seedWant := 0.0
		for i := range fresh {
			seedWant += dedup.FalsePositiveRate(1048576, 7, i)
		}
		want += seedWant
		// the closed form over the run is that sum over the new ids, the
		// same quantity as the measured rate; at the end, the closed form
		// at all of them
		near(t, fmt.Sprintf("seed %d: closed form over the run", seed), d.MeanExpectedFalsePositiveRate, seedWant/float64(fresh), 1e-6) // round6
		near(t, fmt.Sprintf("seed %d: closed form at the end", seed), d.ExpectedFalsePositiveRate, dedup.FalsePositiveRate(1048576, 7, fresh), 1e-6)
		got += d.FalsePositives
		if mw.Duplicated != 0 || s.Delivery.Lost != 0 || d.Lookups != d.FalsePositives+d.DuplicatesCaught {
			t.Errorf("seed %d: duplicated %d, lost %d, lookups %d != false positives %d + caught %d", seed, mw.Duplicated, s.Delivery.Lost, d.Lookups, d.FalsePositives, d.DuplicatesCaught)
		}
	}
	within(t, "false positives over 6 seeds", float64(got), want, 0.05)
}
