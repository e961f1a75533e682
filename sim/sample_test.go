package sim

import (
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// Every row of timeseries.csv accounts its whole interval: busy, idle,
// back-pressured and down sum to 1000 ms/s per subtask, for each vertex of
// a chain too, whose rows show their task's times (Flink's
// busyTimeMsPerSecond and its siblings are the task's, one thread for the
// whole OperatorChain). A record every 100ms, at 50ms past each tenth of
// a second (the schedule's first step holds the source back 50ms), through
// the chain a -> b -> c serving it 10 + 20 + 50ms keeps the task busy
// 10/s × 80ms = 800 ms/s in every 1s interval: the record of x.950s is in
// c from x.980s to (x+1).030s, across the sample, so each sample finds the
// chain's last operator in service, which its head and middle show as well.
func TestSampleAccountsTheWholeChain(t *testing.T) {
	sc := mustParse(t, `
name: chain-sample
duration: 20s
network: {buffer_timeout: 0}
sources:
  - {name: src, arrival: {process: schedule, schedule: [{at: 0s, rate: 0/s}, {at: 50ms, rate: 10/s}]}}
operators:
  - {name: a, input: src, partitioning: rebalance, service_time: {distribution: constant, mean: 10ms}}
  - {name: b, input: a, service_time: {distribution: constant, mean: 20ms}}
  - {name: c, input: b, service_time: {distribution: constant, mean: 50ms}}
sinks:
  - {name: out, input: c, partitioning: rebalance}
`)
	var samples []Sample
	obs := &countingObserver{onSample: func(smp *Sample) {
		c := *smp
		c.Rows = append([]Row(nil), smp.Rows...)
		samples = append(samples, c)
	}}
	s, err := New(sc, Options{Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if pt := s.vertices[1].pv.Task; pt.Name != "a -> b -> c" {
		t.Fatalf("a runs in task %q, want the chain a -> b -> c", pt.Name)
	}
	_ = s.RunUntil(t.Context(), 20*des.Second)
	// the window, 0..20s: records from 150ms to 19.95s, 198 of 80ms and
	// 50ms of the last, 15.89s busy
	for _, v := range s.Result().Summary.Vertices[1:4] {
		if v.Busy != 0.7945 {
			t.Errorf("summary: %s busy %v, want the task's 0.7945", v.Name, v.Busy)
		}
	}
	if len(samples) != 20 {
		t.Fatalf("%d samples, want 20 (one a second)", len(samples))
	}
	for _, smp := range samples {
		for _, r := range smp.Rows {
			if sum := r.Busy + r.Idle + r.Backpressured + r.Down; r.Subtask >= 0 && sum != 1000 {
				t.Errorf("%v: %s[%d] busy %v + idle %v + back-pressured %v + down %v = %v ms/s, want 1000",
					FormatTime(smp.Time), r.Vertex, r.Subtask, r.Busy, r.Idle, r.Backpressured, r.Down, sum)
			}
			// the first record comes at 150ms, once the schedule's 10/s
			// has made a whole one: 8 records and 50ms of the ninth
			want := 800.0
			if smp.Time == des.Second {
				want = 690
			}
			switch r.Vertex {
			case "a", "b", "c":
				if r.Busy != want || r.Idle != 1000-want || r.Backpressured != 0 {
					t.Errorf("%v: %s[%d] busy %v, idle %v, back-pressured %v ms/s; want the task's %v, %v and 0 (10/s × 80ms)",
						FormatTime(smp.Time), r.Vertex, r.Subtask, r.Busy, r.Idle, r.Backpressured, want, 1000-want)
				}
			}
		}
	}
}
