package microbatch

import (
	"context"
	"runtime"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

func builtin(t *testing.T, name string) string {
	t.Helper()
	data, err := scenarios.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// peakHeap runs sc and returns the simulation, and the largest growth of
// the live heap over New's start, sampled 50 times over the run.
func peakHeap(t *testing.T, sc *scenario.Scenario) (*Sim, uint64) {
	t.Helper()
	before := liveHeap()
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	for k := des.Time(1); k <= 50; k++ {
		if err := s.RunUntil(context.Background(), sc.Duration*k/50); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, liveHeap()-before)
	}
	return s, peak
}

func estimate(t *testing.T, sc *scenario.Scenario) plan.Estimate {
	t.Helper()
	p, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	return p.Estimate(nil)
}

// The up-front estimate (plan.Estimate) of a micro-batch run is its state
// and its queued batches: an upper bound that a job falling behind from
// its first batch reaches, and whose state part a growing state reaches.
func TestMemoryEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two built-ins with 50 heap samples each")
	}
	// spark-unstable with parse 10 times slower: P = 400ms + 2ms + 500 ×
	// 18ms = 9.402s for a batch interval of 1s, so 6 of the 60 batches
	// complete and the queue holds nearly every record of the run (the
	// estimate counts them all: 60,000 records)
	sc := parse(t, replace(t, builtin(t, "spark-unstable"), "mean: 1800us", "mean: 18ms"))
	e := estimate(t, sc)
	s, peak := peakHeap(t, sc)
	t.Logf("spark-unstable, parse 18ms: estimate %d bytes (queue %d for %.0f records), peak live heap %d, %d records queued at the end",
		e.Memory, e.QueueBytes, e.QueuedRecords, peak, s.queuedN)
	if e.QueuedRecords != 60000 || float64(e.Memory) < float64(peak) || float64(e.Memory) > 1.25*float64(peak) {
		t.Errorf("estimate %d bytes for %.0f queued records; want 60000, and at least the peak %d, within 25%%", e.Memory, e.QueuedRecords, peak)
	}
	runtime.KeepAlive(s)

	// spark-state: nearly every record a new key, 178,377 keys at the end;
	// the estimate bounds the keys by the records of the run (180,000)
	sc = parse(t, builtin(t, "spark-state"))
	e = estimate(t, sc)
	s, peak = peakHeap(t, sc)
	keys, _ := s.stateKeys()
	t.Logf("spark-state: estimate %d bytes (state %d for %.0f rows), peak live heap %d, %d keys", e.Memory, e.StateBytes, e.StateRows, peak, keys)
	if e.StateRows != 180000 || keys != 178377 {
		t.Errorf("estimated %.0f state rows, %d keys held", e.StateRows, keys)
	}
	// the heap beyond the state is the queue (one batch of 4000 records
	// here) and the rows: the state's estimate is within 25% of the rest
	queue := uint64(s.queuedN+4000) * plan.BytesPerQueuedRecord
	if rest := float64(peak - queue); float64(e.StateBytes) < 0.8*rest || float64(e.StateBytes) > 1.25*rest || e.Memory < int64(peak) {
		t.Errorf("state estimate %d bytes, %d of the peak %d beside the queue; total estimate %d", e.StateBytes, peak-queue, peak, e.Memory)
	}
	runtime.KeepAlive(s)
}

// The memory of a micro-batch run is bounded by its state and its queued
// batches, not by the run's length: same-workload-spark (1000 keys,
// stable) over 60s and over 600s, ten times the records (600,000 instead
// of 60,000), holds the same state and queue; only the batches' rows of
// batches.csv (and the metrics samples) add up, as the estimate counts
// them.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 660,000 records")
	}
	y := builtin(t, "same-workload-spark")
	short := parse(t, y)
	long := parse(t, replace(t, y, "duration: 60s", "duration: 600s"))
	s1, p1 := peakHeap(t, short)
	runtime.KeepAlive(s1)
	s2, p2 := peakHeap(t, long)
	runtime.KeepAlive(s2)
	rows := estimate(t, long).BatchBytes - estimate(t, short).BatchBytes
	t.Logf("peak live heap %d bytes over 60s, %d over 600s; the estimate's rows grow by %d", p1, p2, rows)
	if int64(p2) > int64(p1)+rows+64<<10 {
		t.Errorf("peak live heap %d over 600s, %d over 60s: grows by more than the batches' rows (%d bytes)", p2, p1, rows)
	}
}

// The records of the queued batches (what --max-queued bounds) are those
// of the batches in the queue, also after a driver failure puts the
// running batch back in it: spark-recovery ended with -500 queued.
func TestQueuedRecordsAfterDriverFailure(t *testing.T) {
	sc := parse(t, builtin(t, "spark-recovery"))
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for at := des.Second; at <= sc.Duration; at += des.Second {
		if err := s.RunUntil(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, b := range s.queue {
			n += int64(len(b.arrivals))
		}
		if s.queuedN != n {
			t.Fatalf("at %s: %d records counted queued, the queue's %d batches hold %d", at, s.queuedN, len(s.queue), n)
		}
	}
	if s.rec.failures == 0 {
		t.Fatal("no failure")
	}
}
