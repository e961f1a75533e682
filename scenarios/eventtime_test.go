package scenarios_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

// eventTimeOf returns the event-time figures of vertex name in s.
func eventTimeOf(t *testing.T, s *sim.Summary, name string) sim.VertexEventTime {
	t.Helper()
	if s.EventTime == nil {
		t.Fatalf("%s: no event_time in the summary", name)
	}
	for _, v := range s.EventTime.Vertices {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no vertex %s in event_time", name)
	return sim.VertexEventTime{}
}

// TestBackpressureDelaysWatermarks checks backpressure-watermarks' opening
// comment: with enrich the bottleneck the source is back-pressured 91%,
// the diagnosis says the watermarks of count were delayed 3.674s on
// average, count's windows fire 6336ms after their end (p50; p99 11317)
// and its watermark lags 12.3s at 120s, of which the source's own 9.0s
// (8650 records behind in its log); with enrich at parallelism 2 nothing
// is back-pressured, the diagnosis line goes, windows fire 452ms after
// their end (p99 461ms) and the lag at count is 0.40s.
func TestBackpressureDelaysWatermarks(t *testing.T) {
	const prefix = "back-pressure delayed the watermarks of count by "
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

	slow := run(t, load(t, "backpressure-watermarks"), nil).Summary
	src, win := eventTimeOf(t, &slow, "clicks"), eventTimeOf(t, &slow, "count")
	want := prefix + "3.674s on average: its input watermark trailed its sources' by that much, the watermarks queued behind the data in the buffers"
	if !slices.Contains(slow.EventTime.Diagnosis, want) {
		t.Errorf("diagnosis %q; want %q", slow.EventTime.Diagnosis, want)
	}
	c := vertex(t, &slow, "clicks")
	if !near(c.Backpressured, 0.91, 0.005) || slow.Totals.SourceLag != 8650 || slow.Diagnosis.Vertex != "enrich" {
		t.Errorf("clicks back-pressured %.3f, source lag %d, bottleneck %q; want 91%%, 8650 records, enrich", c.Backpressured, slow.Totals.SourceLag, slow.Diagnosis.Vertex)
	}
	if !near(*win.FiringDelayP50Ms, 6336, 0.5) || !near(*win.FiringDelayP99Ms, 11317, 0.5) || *win.NumLateRecordsDropped != 0 {
		t.Errorf("count fires %.1fms (p50) and %.1fms (p99) after a window's end, %d late; want 6336, 11317, 0",
			*win.FiringDelayP50Ms, *win.FiringDelayP99Ms, *win.NumLateRecordsDropped)
	}
	if !near(*win.WatermarkLagS, 12.3, 0.05) || !near(*src.WatermarkLagS, 9.0, 0.05) {
		t.Errorf("watermark lag at count %.3fs, at the source %.3fs; want 12.3s and 9.0s", *win.WatermarkLagS, *src.WatermarkLagS)
	}

	fixed := run(t, edit(t, "backpressure-watermarks", "parallelism: 1              # parallelism: 2 keeps up", "parallelism: 2"), nil).Summary
	fw := eventTimeOf(t, &fixed, "count")
	for _, d := range fixed.EventTime.Diagnosis {
		if strings.HasPrefix(d, prefix) {
			t.Errorf("enrich at parallelism 2: diagnosis still says %q", d)
		}
	}
	if c := vertex(t, &fixed, "clicks"); c.Backpressured > 0.1 || fixed.Totals.SourceLag != 0 {
		t.Errorf("enrich at parallelism 2: clicks back-pressured %.3f, source lag %d; want OK and none", c.Backpressured, fixed.Totals.SourceLag)
	}
	if !near(*fw.FiringDelayP50Ms, 452, 0.5) || !near(*fw.FiringDelayP99Ms, 461, 0.5) || !near(*fw.WatermarkLagS, 0.40, 0.005) {
		t.Errorf("enrich at parallelism 2: count fires %.1fms (p50) and %.1fms (p99) after a window's end, lag %.3fs; want 452, 461, 0.40s",
			*fw.FiringDelayP50Ms, *fw.FiringDelayP99Ms, *fw.WatermarkLagS)
	}
	t.Logf("slow: p50 %.0fms, lag %.2fs; fixed: p50 %.0fms, lag %.2fs", *win.FiringDelayP50Ms, *win.WatermarkLagS, *fw.FiringDelayP50Ms, *fw.WatermarkLagS)
}
