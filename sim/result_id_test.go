package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// TestResultIDsDistinct: without failures every result reaches the sink
// once, so every one is delivered and none is a duplicate. Tumbling 1 ms
// windows of one key for 1100 s make 1.1 million windows, past the 2^20
// of an id's window-index bits (the first 2^20 windows' results wrapped
// around onto them before); an interval join of two 200/s streams over
// one key makes 3.4 million pairs, whose ids, hashed into 40 bits,
// collided by the birthday bound (4 of them here; with 52 bits about one
// pair in 10^8 collides).
func TestResultIDsDistinct(t *testing.T) {
	for _, c := range []struct{ name, yaml string }{
		{"window-wrap", string(windowJob(t, "1100s", "{process: constant, rate: 1000/s}", "{count: 1}",
			"{strategy: bounded_out_of_orderness, bounded_out_of_orderness: 0ms}", "", "{kind: tumbling, size: 1ms, function: aggregate}"))},
		{"interval-join", `duration: 30s
workers: {count: 1, slots: 4}
sources:
  - name: impressions
    arrival: {process: poisson, rate: 200/s}
    keys: {count: 1}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms}
  - name: clicks
    arrival: {process: poisson, rate: 200/s}
    keys: {count: 1}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms}
operators:
  - name: interval_join
    inputs: [impressions, clicks]
    partitioning: hash
    service_time: {mean: 1us}
    join: {kind: interval, before: 0s, after: 3s}
sinks:
  - name: out
    input: interval_join
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := run(t, parse(t, c.name+".yaml", []byte(c.yaml)))
			d := s.Delivery
			if d.Duplicated != 0 || d.Delivered != s.Totals.Delivered || d.Delivered < 1_000_000 {
				t.Fatalf("%d results reached the sink: %d delivered, %d duplicated; want all delivered (over a million), none duplicated",
					s.Totals.Delivered, d.Delivered, d.Duplicated)
			}
		})
	}
}

// TestInterruptInWindowWork: a job whose few events each do much work (a
// record falls into size/slide = 6000 sliding windows) is checked as often
// as any other (Sim.didWork): a cancelled context stops it at the first
// check, long before its end, although the job fires far fewer than the
// 65,536 events between two checks by events (before, the run went on to
// its end, the interrupt unseen).
func TestInterruptInWindowWork(t *testing.T) {
	sc := parse(t, "slide.yaml", windowJob(t, "30s", "{process: poisson, rate: 2000/s}", "{count: 1000}",
		"{strategy: bounded_out_of_orderness, bounded_out_of_orderness: 100ms}", "", "{kind: sliding, size: 30000s, slide: 5s, function: aggregate}"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	res, err := sim.Run(ctx, sc, sim.Options{Progress: func(des.Time, uint64) {
		calls++
		cancel()
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run returned %v, want context.Canceled", err)
	}
	// the first window update checks at once (progress: the cancel),
	// the next check 2^16 updates later stops the run: in the 11th
	// record the window operator takes (6000 windows each), 46 ms in
	if calls != 1 || res == nil || res.Summary.SimulatedS > 0.1 {
		t.Fatalf("progress called %d times; want 1 call and a stop within the first 100 ms of 30 s (result %v)", calls, res != nil)
	}
	if got := res.Summary.SimulatedS; got != 0.045671024 {
		t.Fatalf("stopped at %v s, want 0.045671024 (the first check, after 2^16 window updates)", got)
	}
}
