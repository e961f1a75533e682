package scenarios_test

import (
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

// The lesson of shedding-p99: shedding what is older than 250ms holds
// the sink's p99 at 250ms + the 1ms service and sheds the excess of the
// spike, 600/s for 60s; without it the sink's latency climbs to seconds
// and the backlog waits in the log.
func TestSheddingP99Lesson(t *testing.T) {
	var shedRate []float64 // enrich's, per interval
	res := run(t, load(t, "shedding-p99"), sampler(func(s *sim.Sample) {
		for _, r := range s.Rows {
			if r.Vertex == "enrich" && r.Subtask == -1 {
				shedRate = append(shedRate, r.Shed.Rate)
			}
		}
	}))
	s := res.Summary
	e, o, d := vertex(t, &s, "enrich"), vertex(t, &s, "out"), s.Delivery
	if p := *o.LatencyP99; p > 251 || math.Round(p*10)/10 != 251.0 {
		t.Errorf("out's p99 %.3fms, want 251.0 (at most 250ms + 1ms)", p)
	}
	if e.Shed != 35833 || e.ShedFraction != 0.213379 || d.ShedByOperators != e.Shed || d.Delivered != 132098 || d.Emitted != 168000 || d.Lost != 0 {
		t.Errorf("shed %d (%.6f), by operators %d, delivered %d of %d, lost %d; want 35833 (0.213379), the same, 132098 of 168000, 0",
			e.Shed, e.ShedFraction, d.ShedByOperators, d.Delivered, d.Emitted, d.Lost)
	}
	// about 600/s x 60s, less what the queue held when the spike ended
	if e.Shed > 600*60 || e.Shed < 600*60-250 {
		t.Errorf("shed %d, want 600/s x 60s = 36000 less at most 250ms of queue", e.Shed)
	}
	for i, r := range shedRate { // interval i ends at i+1 s
		want := 0.0
		if i+1 > 41 && i+1 <= 100 {
			want = 600
		}
		if i+1 != 41 && i+1 != 101 && math.Abs(r-want) > 1 {
			t.Errorf("shed rate in the interval ending %ds: %.1f/s, want %.0f", i+1, r, want)
		}
	}
	if m, want := s.Diagnosis.Message, "enrich shed 35833 records by load shedding, 21% of what came to it (it sheds the records whose latency is over 250ms): a count downstream misses as many; no bottleneck"; !strings.HasPrefix(m, want) {
		t.Errorf("diagnosis %q, want it to start %q", m, want)
	}
	if p := vertex(t, &s, "out").LatencyP50; *p < 100 || *p > 110 {
		t.Errorf("out's p50 %.1fms, want about 101 (the flusher's 100ms, then the queue)", *p)
	}
	s = run(t, edit(t, "shedding-p99", "    shedding: {latency_over: 250ms}\n", ""), nil).Summary
	if p, bp := *vertex(t, &s, "out").LatencyP99, vertex(t, &s, "clicks").Backpressured; p != 6542 || bp < 0.71 || bp > 0.72 || s.Delivery.ShedByOperators != 0 {
		t.Errorf("without shedding: p99 %.1fms, clicks back-pressured %.3f, shed %d; want 6542, 0.715 (72%%), 0", p, bp, s.Delivery.ShedByOperators)
	}
	if lag := s.Totals.SourceLag; lag != 19869 {
		t.Errorf("without shedding: source lag %d at 150s, want 19869", lag)
	}
}
