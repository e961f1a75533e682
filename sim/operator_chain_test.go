package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// Two operators on a forward edge of equal parallelism run as one task
// (Flink's operator chaining): no channel between them, and one thread
// busy for the sum of their service times, 100/s × (2ms + 3ms) = 50%, as
// both operators show it. chaining: false on the job and chain: false on
// the second operator make two tasks again, busy 20% and 30%.
func TestChainRunsAsOneTask(t *testing.T) {
	const job = `
name: chain
duration: 60s
warmup: 10s
CHAINING
sources:
  - {name: src, arrival: {process: constant, rate: 100/s}}
operators:
  - {name: a, input: src, partitioning: rebalance, service_time: {distribution: constant, mean: 2ms}}
  - {name: b, input: a, service_time: {distribution: constant, mean: 3ms}CHAIN}
sinks:
  - {name: out, input: b, partitioning: rebalance}
`
	run := func(chaining, chain string) (*Sim, Summary) {
		sc := mustParse(t, strings.NewReplacer("CHAINING", chaining, "CHAIN", chain).Replace(job))
		s, err := New(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.RunUntil(t.Context(), 60*des.Second)
		return s, s.Result().Summary
	}
	busy := func(sum Summary, name string) float64 {
		for _, v := range sum.Vertices {
			if v.Name == name {
				return v.Busy
			}
		}
		t.Fatalf("no vertex %s", name)
		return 0
	}
	s, sum := run("", "")
	a := s.vertices[1].subtasks[0]
	if len(a.outs) != 1 || a.outs[0].next != s.vertices[2].subtasks[0] || len(a.outs[0].chans) != 0 {
		t.Fatalf("a's output: %d partitions, want one chained into b with no channel", len(a.outs))
	}
	if len(s.vertices[2].subtasks[0].gate.chans) != 0 {
		t.Error("b has input channels; chained, it should have none")
	}
	for _, name := range []string{"a", "b"} {
		if got := busy(sum, name); math.Abs(got-0.5) > 0.001 {
			t.Errorf("chained: %s busy %.4f, want the task's 0.5 (2ms + 3ms at 100/s)", name, got)
		}
	}
	if got := sum.Vertices[3].InRate; math.Abs(got-100) > 0.5 {
		t.Errorf("chained: out takes %.1f records/s, want 100", got)
	}
	// stopped while a waits for b: the record b serves is in flight once
	s, _ = run("", "")
	s.duration = 70 * des.Second
	a = s.vertices[1].subtasks[0]
	for at := 60 * des.Second; a.state != stateChained && at < 61*des.Second; at += des.Millisecond / 2 {
		_ = s.RunUntil(t.Context(), at)
	}
	if a.state != stateChained {
		t.Fatal("a never waited for b")
	}
	if tt := s.Result().Summary.Totals; tt.Emitted != tt.Delivered+tt.InFlight {
		t.Errorf("a waiting for b: %d emitted != %d delivered + %d in flight", tt.Emitted, tt.Delivered, tt.InFlight)
	}
	for _, c := range [][2]string{{"chaining: false", ""}, {"", ", chain: false"}} {
		s, sum := run(c[0], c[1])
		if len(s.vertices[1].subtasks[0].outs[0].chans) != 1 {
			t.Errorf("%q %q: a -> b has no channel", c[0], c[1])
		}
		if ga, gb := busy(sum, "a"), busy(sum, "b"); math.Abs(ga-0.2) > 0.001 || math.Abs(gb-0.3) > 0.001 {
			t.Errorf("%q %q: a busy %.4f, b busy %.4f; want 0.2 and 0.3, two tasks", c[0], c[1], ga, gb)
		}
	}
}
