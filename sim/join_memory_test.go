package sim_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// builtinWith is a built-in with its rates, keys, bounds and duration
// replaced (old, new pairs).
func builtinWith(t *testing.T, name string, pairs ...string) *scenario.Scenario {
	t.Helper()
	b, err := scenarios.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	y := string(b)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(y, pairs[i]) {
			t.Fatalf("%s.yaml has no %q", name, pairs[i])
		}
		y = strings.ReplaceAll(y, pairs[i], pairs[i+1])
	}
	return parse(t, name+".yaml", []byte(y))
}

func estimateOf(t *testing.T, sc *scenario.Scenario) plan.Estimate {
	t.Helper()
	p, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	return p.Estimate(nil)
}

// The up-front estimate of the records an interval join buffers, of a
// window join's open windows and of those of the aggregate and process
// window functions, against the peak live heap they take: the same job
// with a large and a negligible bound (or key space), the difference of
// the peaks against the difference of the estimates. (A process window
// holds the count of its records, not the records: its modelled
// record_size is keyed state, not the simulator's memory.)
func TestJoinMemoryEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs six jobs of 30s")
	}
	joins := []string{"duration: 120s", "duration: 30s", "warmup: 10s", "warmup: 0s", "rate: 200/s", "rate: 5000/s", "size: 5s", "size: 10s"}
	windows := []string{"duration: 120s", "duration: 30s", "warmup: 40s", "warmup: 0s"}
	const clicksWM = "mean: 200ms}\n    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms}"
	const idleClicks = "mean: 200ms}\n    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms, idleness: 1s}"
	joinBytes := func(e plan.Estimate) (int64, float64) { return e.JoinBytes, e.JoinRecords }
	windowBytes := func(e plan.Estimate) (int64, float64) { return e.WindowBytes, e.WindowStates }
	for _, c := range []struct {
		name, builtin string
		common        []string
		big, small    []string
		part          func(plan.Estimate) (int64, float64)
	}{
		// impressions at 5000/s held 20s + 1.7s (the watermarks' lag:
		// 500ms + 200ms + 5 x the clicks' mean delay of 200ms), clicks
		// made rare (0.2/s) so that few pairs reach the sink, and idle
		// after 1s so that their watermark does not hold the join's back
		{"interval join of 20s", "window-join", joins, []string{"rate: 20/s", "rate: 0.2/s", clicksWM, idleClicks, "after: 3s", "after: 20s"},
			[]string{"rate: 20/s", "rate: 0.2/s", clicksWM, idleClicks, "after: 3s", "after: 0s"}, joinBytes},
		// 20,000 keys (50), windows of 10s: two open per key; the clicks
		// as above
		{"window join of 10s", "window-join", joins, []string{"rate: 20/s", "rate: 0.2/s", clicksWM, idleClicks, "count: 50", "count: 20000", "after: 3s", "after: 0s"},
			[]string{"rate: 20/s", "rate: 0.2/s", clicksWM, idleClicks, "after: 3s", "after: 0s"}, windowBytes},
		// 20,000 keys (10), sliding 30s every 5s: 7 open per key and operator
		{"aggregate and process windows", "window-functions", windows, []string{"count: 1000", "count: 20000"}, []string{"count: 1000", "count: 10"}, windowBytes},
	} {
		big, small := builtinWith(t, c.builtin, append(c.common, c.big...)...), builtinWith(t, c.builtin, append(c.common, c.small...)...)
		bb, nb := c.part(estimateOf(t, big))
		bs, ns := c.part(estimateOf(t, small))
		pb, ps := peakEverySecond(t, big), peakEverySecond(t, small)
		est, got := bb-bs, int64(pb)-int64(ps)
		r := float64(got) / float64(est)
		t.Logf("%s: estimate %.0f -> %.0f (%d bytes more), peak live heap %d -> %d (%d more, %.2f of the estimate)", c.name, ns, nb, est, ps, pb, got, r)
		// the estimate is an upper bound of the heap they take, within a factor of 2
		if r < 0.5 || r > 1.0 {
			t.Errorf("%s: the heap grew by %d bytes, %.2f of the estimate's %d; want 0.5 to 1.0", c.name, got, r, est)
		}
	}
}

// peakEverySecond runs sc a simulated second at a time and returns the
// largest live heap after a forced collection at those pauses.
func peakEverySecond(t *testing.T, sc *scenario.Scenario) uint64 {
	t.Helper()
	s, err := sim.New(sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	var ms runtime.MemStats
	for at := des.Second; at <= sc.Duration; at += des.Second {
		if err := s.RunUntil(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	runtime.KeepAlive(s)
	return peak
}
