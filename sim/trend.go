package sim

import (
	"fmt"
	"math"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
)

// trendMargin is how far apart the two halves of the statistics window
// may be before the summary says the window still shows a trend: the
// larger mean latency more than this share above the smaller. The
// built-ins without a trend stay within 14% (checkpoint-unaligned, whose
// sink latency swings between about 3s and 20s); backpressure with a
// warmup of 10s, inside its start-up transient, differs by 17%.
const trendMargin = 0.15

// trendFloor leaves out latencies too small for a difference to matter
// (the halves of a fast job differ by a few buffer timeouts).
const trendFloor = 50 * des.Millisecond

// Trend is a statistic of the window whose two halves differ by more
// than the margin (summary.json trends[]): the window still holds a
// start-up transient, a failure or a backlog that keeps growing, so the
// statistics over the whole window average over a change.
type Trend struct {
	Vertex string `json:"vertex"`
	// Metric is the statistic compared, named as in summary.json's
	// vertices (latency_mean_ms: the mean end-to-end latency).
	Metric string `json:"metric"`
	// First and Second are its values over the first and the second half
	// of the window, which meet at SplitS (simulated seconds).
	First  float64 `json:"first_half"`
	Second float64 `json:"second_half"`
	SplitS float64 `json:"split_s"`
	// Margin is the share by which the halves may differ before this is
	// reported.
	Margin float64 `json:"margin"`
}

// windowMiddle is where the window's halves meet: halfway between the
// warmup and the scenario's duration.
func (s *Sim) windowMiddle() des.Time { return s.warmup + (s.duration-s.warmup)/2 }

// observeHalves adds the sink's latencies of the interval that ends at
// now (inside the window) to the half of the window it falls in.
func (s *Sim) observeHalves(v *vertex, now des.Time) {
	if v.kind != KindSink || v.ivLat.Count() == 0 {
		return
	}
	half := 0
	if now > s.windowMiddle() {
		half = 1
	}
	if v.halfLat[half] == nil {
		v.halfLat[half] = metrics.NewHistogram()
	}
	v.halfLat[half].Merge(v.ivLat)
}

// trends compares the two halves of the window at every sink: its mean
// end-to-end latency (a percentile of a half hides a transient inside it).
func (s *Sim) trends() []Trend {
	out := []Trend{}
	for _, v := range s.vertices {
		a, b := v.halfLat[0], v.halfLat[1]
		if a == nil || b == nil || a.Count() == 0 || b.Count() == 0 {
			continue
		}
		p, q := des.Time(a.Mean()), des.Time(b.Mean())
		if max(p, q) < trendFloor || float64(max(p, q)) <= (1+trendMargin)*float64(min(p, q)) {
			continue
		}
		out = append(out, Trend{Vertex: v.name, Metric: "latency_mean_ms", First: round6(p.Milliseconds()), Second: round6(q.Milliseconds()),
			SplitS: round6(s.windowMiddle().Seconds()), Margin: trendMargin})
	}
	return out
}

// trendText is the line under the table for a trend.
func trendText(t Trend, s *Summary) string {
	change := "higher"
	if t.Second < t.First {
		change = "lower"
	}
	first, second := t.First, t.Second
	// the change relative to the first half (10.16s then 5.02s is 51%
	// lower, not 102%); trends tests the higher half against the lower,
	// so a fall says so in those terms too: 202ms then 174ms is 14% lower,
	// the first half 16% above the second, past a margin of 15%
	apart := fmt.Sprintf("its halves more than %.0f%% apart", 100*t.Margin)
	if second < first {
		apart = fmt.Sprintf("the first half's mean %.0f%% above the second's, more than %.0f%%", 100*(first-second)/second, 100*t.Margin)
	}
	return fmt.Sprintf("trend: %s's mean latency is %s in %s..%s and %s in %s..%s (%.0f%% %s): the statistics window still shows a trend (%s: a start-up transient not over at the warmup's end, a failure, a backlog or a cost that keeps growing, or an input that changes), so these statistics average over a change; see timeseries.csv",
		t.Vertex, FormatLatency(first), seconds(s.Window.FromS), seconds(t.SplitS), FormatLatency(second), seconds(t.SplitS), seconds(s.Window.ToS),
		100*math.Abs(second-first)/first, change, apart)
}
