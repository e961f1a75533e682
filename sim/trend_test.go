package sim

import (
	"strings"
	"testing"
)

// TestTrendTextPercent: the change is relative to the first half: 10.16s
// then 5.02s is 51% lower, 5.02s then 10.16s is 102% higher; the margin's
// figure for a fall is the first half over the second, as trends tests
// the higher over the lower (202.23ms then 173.84ms: 14% lower, the first
// half 16% above the second, more than 15%).
func TestTrendTextPercent(t *testing.T) {
	s := &Summary{}
	s.Window.FromS, s.Window.ToS = 20, 120
	for _, c := range []struct {
		first, second float64
		want          string
	}{
		{10160, 5020, "(51% lower): the statistics window still shows a trend (the first half's mean 102% above the second's, more than 15%: "},
		{5020, 10160, "(102% higher): the statistics window still shows a trend (its halves more than 15% apart: "},
		{202.23, 173.84, "(14% lower): the statistics window still shows a trend (the first half's mean 16% above the second's, more than 15%: "},
	} {
		got := trendText(Trend{Vertex: "sink", Metric: "latency_mean_ms", First: c.first, Second: c.second, SplitS: 70, Margin: trendMargin}, s)
		if !strings.Contains(got, c.want) {
			t.Errorf("trendText(%v, %v) = %q, want %q", c.first, c.second, got, c.want)
		}
	}
}
