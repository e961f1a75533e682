package sim_test

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// benchRecords runs sc once per iteration and reports the records that
// the sinks received per wall second.
func benchRecords(b *testing.B, sc *scenario.Scenario) {
	b.Helper()
	b.ReportAllocs()
	var delivered, events uint64
	for i := 0; i < b.N; i++ {
		res, err := sim.Run(context.Background(), sc, sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		delivered += res.Summary.Totals.Delivered
		events += res.Summary.Totals.Events
	}
	b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// fastTandem is the built-in tandem with time scaled 1000× faster (same
// ρ, same queues), so that per-record work, not the 1-second metrics
// sampling, is measured: 1.6 million records in 20 s.
func fastTandem(b *testing.B) *scenario.Scenario {
	sc := load(b, "tandem")
	sc.Sources[0].Arrival.Rate *= 1000
	sc.Operators[0].ServiceTime.Mean /= 1000
	sc.Operators[1].ServiceTime.Mean /= 1000
	sc.Duration = 20 * des.Second
	sc.Warmup = des.Second
	return sc
}

// A two-stage tandem with unbounded queues (the SimPy comparison model):
// Poisson arrivals through two exponential servers (fastTandem).
func BenchmarkTandemUnbounded(b *testing.B) {
	benchRecords(b, fastTandem(b))
}

// The same tandem (1000× faster) with credit-based flow control: bounded
// buffers (2 exclusive per channel, 8 floating per gate), flushed after
// every record (buffer_timeout: 0), so that every record also takes a
// credit and returns one.
func BenchmarkTandemCredit(b *testing.B) {
	sc := fastTandem(b)
	for _, n := range []*scenario.Network{&sc.Network, &sc.Operators[0].Network, &sc.Operators[1].Network, &sc.Sinks[0].Network} {
		n.Capacity, n.BufferTimeout = scenario.Bounded, 0
	}
	benchRecords(b, sc)
}

// The same tandem at the built-in's own time scale (80 records/s), where
// per-second metrics sampling is part of the cost.
func BenchmarkTandemUnboundedAsIs(b *testing.B) {
	sc := load(b, "tandem")
	sc.Duration = 20000 * des.Second // 1.6 million records
	benchRecords(b, sc)
}

// The course's back-pressure job with credit-based buffers, its rates
// scaled up 1000× so that records, not idle timers, dominate.
func BenchmarkBackpressure(b *testing.B) {
	sc := load(b, "backpressure")
	sc.Sources[0].Arrival.Rate *= 1000
	sc.Sources[0].MaxRate *= 1000
	sc.Operators[0].ServiceTime.Mean /= 1000
	sc.Operators[1].ServiceTime.Mean /= 1000
	sc.Duration = 200 * des.Second // 2 million records through the bottleneck
	benchRecords(b, sc)
}

// The built-in back-pressure scenario as it is (10 records/s).
func BenchmarkBackpressureAsIs(b *testing.B) {
	sc := load(b, "backpressure")
	sc.Duration = 20000 * des.Second
	benchRecords(b, sc)
}

// sensors-1000: 10,000 records/s over hash edges between two workers.
func BenchmarkSensors1000(b *testing.B) {
	sc := load(b, "sensors-1000")
	sc.Duration = 200 * des.Second // 2 million records
	benchRecords(b, sc)
}

// peakHeap runs sc and returns the largest live heap seen (see heapStats).
func peakHeap(b *testing.B, sc *scenario.Scenario) uint64 {
	peak, _ := heapStats(b, sc)
	return peak
}

// heapStats runs sc and returns the peak and the median of the live heap
// sampled after forced collections about every 500,000 events.
func heapStats(b *testing.B, sc *scenario.Scenario) (peak, median uint64) {
	var ms runtime.MemStats
	var samples []uint64
	n := 0
	_, err := sim.Run(context.Background(), sc, sim.Options{Progress: func(des.Time, uint64) {
		n++
		if n%8 != 0 {
			return
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		samples = append(samples, ms.HeapAlloc)
	}})
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(samples)
	return samples[len(samples)-1], samples[len(samples)/2]
}

// BenchmarkMemoryFlat compares the peak live heap of a run with that of a
// run ten times longer: memory must not grow with the records passed.
func BenchmarkMemoryFlat(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sc := load(b, "sensors-1000")
		sc.Duration = 100 * des.Second
		short := peakHeap(b, sc)
		sc.Duration = 1000 * des.Second
		long := peakHeap(b, sc)
		b.ReportMetric(float64(short), "peak-heap-1x-bytes")
		b.ReportMetric(float64(long), "peak-heap-10x-bytes")
		b.ReportMetric(float64(long)/float64(short), "ratio")
	}
}

// faultTolerant is sensors-1000 with keyed state, a transactional sink,
// aligned checkpoints every second and a worker failure every minute
// (detected after 2 s): the fault-tolerance machinery at work, against the
// same job without it.
func faultTolerant(b testing.TB, withFaults bool) *scenario.Scenario {
	sc := load(b, "sensors-1000")
	if !withFaults {
		return sc
	}
	for i := range sc.Operators {
		if sc.Operators[i].Partitioning == scenario.PartitionHash {
			sc.Operators[i].State = &scenario.KeyedState{BytesPerKey: 200}
		}
	}
	sc.Sinks[0].Delivery = scenario.DeliveryTransactional
	sc.Checkpoint = scenario.DefaultCheckpointing()
	sc.Checkpoint.Mode, sc.Checkpoint.Interval = scenario.CheckpointAligned, des.Second
	sc.Workers.HeartbeatTimeout = 2 * des.Second
	sc.Restart = scenario.DefaultRestart()
	sc.Failures = nil
	for at := 30 * des.Second; at < 10000*des.Second; at += des.Minute {
		sc.Failures = append(sc.Failures, scenario.Failure{Kind: scenario.FailureWorker, At: at, Worker: int(at/des.Minute) % sc.Workers.Count})
	}
	return sc
}

// cut drops the failures after the end of sc.
func cut(sc *scenario.Scenario) *scenario.Scenario {
	var keep []scenario.Failure
	for _, f := range sc.Failures {
		if f.At < sc.Duration {
			keep = append(keep, f)
		}
	}
	sc.Failures = keep
	return sc
}

// BenchmarkFaultTolerance measures records per wall second with
// checkpoints every second and failures against the failure-free model
// (issue: at least 70% of it). Records are those the sinks received,
// replays included.
func BenchmarkFaultTolerance(b *testing.B) {
	for _, c := range []struct {
		name   string
		faults bool
	}{{"failure-free", false}, {"checkpoints+failures", true}} {
		b.Run(c.name, func(b *testing.B) {
			sc := faultTolerant(b, c.faults)
			sc.Duration = 200 * des.Second
			benchRecords(b, cut(sc))
		})
	}
}

// BenchmarkFaultToleranceMemoryFlat compares the live heap of the
// fault-tolerant run with that of a run ten times longer: the median over
// the run, and the peak (a catch-up after a recovery holds more records in
// buffers and open transactions for a while; a longer run meets more of
// them).
func BenchmarkFaultToleranceMemoryFlat(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sc := faultTolerant(b, true)
		sc.Duration = 100 * des.Second
		short, shortMedian := heapStats(b, cut(sc))
		sc = faultTolerant(b, true)
		sc.Duration = 1000 * des.Second
		long, longMedian := heapStats(b, cut(sc))
		b.ReportMetric(float64(short), "peak-heap-1x-bytes")
		b.ReportMetric(float64(long), "peak-heap-10x-bytes")
		b.ReportMetric(float64(long)/float64(short), "peak-ratio")
		b.ReportMetric(float64(longMedian)/float64(shortMedian), "median-ratio")
	}
}
