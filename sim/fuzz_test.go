package sim_test

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// FuzzSimulate runs every scenario the parser accepts, cut down to a small
// size, and checks the simulator's invariants: it never panics, every
// subtask's time sums to the window, records are conserved when no
// operator changes their number and nothing fails, and no more distinct
// records are delivered or lost than were emitted. The seed corpus (testdata/fuzz and the
// built-in scenarios) runs as an ordinary test.
func FuzzSimulate(f *testing.F) {
	for _, name := range scenarios.Names() {
		b, _ := scenarios.Get(name)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		subtasks := 0
		offered := 0.0
		for _, s := range sc.Sources {
			if s.Arrival.Process == scenario.ArrivalTrace {
				return // needs the runner's trace opener
			}
			subtasks += s.Parallelism
			offered += max(s.Arrival.Rate, s.Arrival.OffRate) * float64(s.Parallelism)
			for _, st := range s.Arrival.Schedule {
				offered += st.Rate * float64(s.Parallelism)
			}
		}
		for _, o := range sc.Operators {
			subtasks += o.Parallelism
		}
		for _, k := range sc.Sinks {
			subtasks += k.Parallelism
		}
		if subtasks > 64 || offered > 2e5 {
			return // keep each input fast
		}
		sc.Duration = min(sc.Duration, 3*des.Second)
		var keep []scenario.Failure
		for _, f := range sc.Failures {
			if f.MTBF > 0 || f.At < sc.Duration {
				keep = append(keep, f)
			}
		}
		sc.Failures = keep
		sc.Warmup = min(sc.Warmup, sc.Duration/2)
		sc.Metrics.Interval = max(sc.Metrics.Interval, 100*des.Millisecond)
		res, err := sim.Run(context.Background(), sc, sim.Options{MaxQueued: 1e5})
		if res == nil {
			t.Fatalf("no result (err %v)", err)
		}
		s := res.Summary
		if s.Partial {
			return // stopped by the queue limit: the window is cut short
		}
		for _, v := range s.Vertices {
			for _, st := range v.Subtasks {
				if sum := st.Busy + st.Idle + st.Backpressured; s.Window.ToS > s.Window.FromS && (sum < 0.99999 || sum > 1.00001) {
					t.Errorf("%s[%d]: busy+idle+back-pressured = %v", v.Name, st.Index, sum)
				}
			}
		}
		plain := true
		for _, o := range sc.Operators {
			plain = plain && o.Selectivity == 1
		}
		for _, k := range sc.Sinks {
			plain = plain && k.Partitioning != scenario.PartitionBroadcast
		}
		for _, o := range sc.Operators {
			plain = plain && o.Partitioning != scenario.PartitionBroadcast
		}
		// records are conserved on a graph of single paths (each source
		// feeds one chain): emitted = delivered + in flight
		outs := map[string]int{}
		for _, o := range sc.Operators {
			for _, in := range o.Inputs {
				outs[in]++
			}
		}
		for _, k := range sc.Sinks {
			for _, in := range k.Inputs {
				outs[in]++
			}
		}
		for _, n := range outs {
			plain = plain && n == 1
		}
		for _, o := range sc.Operators {
			plain = plain && outs[o.Name] == 1
		}
		if plain && s.Recovery.Failures == 0 && s.Totals.Emitted != s.Totals.Delivered+s.Totals.InFlight {
			t.Errorf("emitted %d != delivered %d + in flight %d", s.Totals.Emitted, s.Totals.Delivered, s.Totals.InFlight)
		}
		// distinct records: nothing delivered or lost that was not emitted
		if d := s.Delivery; plain && len(sc.Sinks) == 1 && (d.Delivered > d.Emitted || d.Lost > d.Emitted) {
			t.Errorf("delivery %+v: more delivered or lost than emitted", d)
		}
	})
}
