package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dspalab/dspalab/internal/plural"
)

// CDFMetrics are the columns of timeseries.csv that LatencyCDF reads.
var CDFMetrics = []string{"in_rate_rps", "out_rate_rps", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_max_ms"}

// CDFOptions choose what LatencyCDF draws.
type CDFOptions struct {
	// Vertices to draw; the sinks (else the last vertex) when empty.
	Vertices []string
	// Title replaces the default title.
	Title string
}

// cdfPoints is the number of latencies at which a CDF is evaluated.
const cdfPoints = 400

// LatencyCDF draws the distribution of end-to-end latency at vertices (the
// sinks by default) over each run's statistics window (after the warmup):
// the fraction of records whose latency was at most x.
//
// timeseries.csv holds each interval's p50, p90, p99 and max, so the curve
// is a mixture over the intervals, each weighted by its records (in_rate
// times the interval; out_rate for a source): within an interval it runs
// linearly between those quantiles, and below the median it goes on with
// the slope it has between p50 and p90, down to 0 ms at the least (so a
// nearly constant latency stays a step, an exponential one gets a lower
// tail). It is an estimate; where summary.json is present, its window
// percentiles (from a streaming sketch, within 1%) and maximum are marked
// on the curve to check it against. The axis is in ms, or in s or min
// when the latencies reach 10 s or 10 min.
func LatencyCDF(runs []*Run, o CDFOptions) (*Figure, error) {
	if len(runs) == 0 {
		return nil, errors.New("plot: no runs to draw")
	}
	vertices := o.Vertices
	if len(vertices) == 0 {
		vertices = defaultCDFVertices(runs[0])
	}
	sel, err := selectSeries(runs, CDFMetrics[2:], vertices, false)
	if err != nil {
		return nil, err
	}
	fig := newFigure(o.Title)
	if fig.Title == "" {
		fig.Title = "Latency CDF: " + runsTitle(runs)
	}
	styles := seriesStyles(runs, sel)
	p := newPlot()
	p.Title.Text = "end-to-end latency over the statistics window (after warmup)"
	p.X.Label.Text = "latency (ms)"
	p.Y.Label.Text = "fraction of records at most x"
	type curve struct {
		s     selected
		knots []knot
		w     float64
	}
	var curves []curve
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range sel {
		knots, w := intervalKnots(runs[s.run], s.series)
		if len(knots) == 0 {
			continue
		}
		curves = append(curves, curve{s, knots, w})
		for _, k := range knots {
			lo, hi = min(lo, k.low), max(hi, k.max)
		}
	}
	if len(curves) == 0 {
		names := namesOf(sel)
		return nil, &NoDataError{Msg: fmt.Sprintf("no latency values for %s after the warmup (no record left the %s)", names, plural.For(strings.Count(names, ", ")+1, "vertex"))}
	}
	// the axis in the unit of its range: 20 s, not 20000 ms
	factor, unit := timeUnit("ms", hi)
	lo, hi = lo*factor, hi*factor
	for i := range curves {
		for j := range curves[i].knots {
			k := &curves[i].knots[j]
			k.low, k.p50, k.p90, k.p99, k.max = k.low*factor, k.p50*factor, k.p90*factor, k.p99*factor, k.max*factor
		}
	}
	p.X.Label.Text = "latency (" + unit + ")"
	logX := lo > 0 && hi/lo > 50
	grid := make([]float64, cdfPoints)
	for i := range grid {
		f := float64(i) / float64(cdfPoints-1)
		if logX {
			grid[i] = lo * math.Pow(hi/lo, f)
		} else {
			grid[i] = lo + (hi-lo)*f
		}
	}
	if hi == lo {
		for i := range grid {
			grid[i] = lo
		}
	}
	marks := &plotter.Scatter{}
	for _, c := range curves {
		ys := mixtureCDF(c.knots, c.w, grid)
		xs := slices.Clone(grid)
		// start at 0 at the left end, so that a step shows
		xs = append([]float64{grid[0]}, xs...)
		ys = append([]float64{0}, ys...)
		thumb, _ := addLine(p, xs, ys, styles[c.s.key])
		fig.AddLegend(c.s.legend, thumb)
		if sum := runs[c.s.run].Summary; sum != nil {
			for _, v := range sum.Vertices {
				if v.Name != c.s.series.Vertex {
					continue
				}
				for _, q := range []struct {
					v *float64
					p float64
				}{{v.LatencyP50, .5}, {v.LatencyP90, .9}, {v.LatencyP99, .99}, {v.LatencyMax, 1}} {
					if q.v != nil && (*q.v > 0 || !logX) {
						marks.XYs = append(marks.XYs, plotter.XY{X: *q.v * factor, Y: q.p})
					}
				}
			}
		}
	}
	fig.Caption = append(fig.Caption, "The curves are estimated from each interval's p50, p90, p99 and max latency in timeseries.csv, weighted by its records.")
	if len(marks.XYs) > 0 {
		marks.GlyphStyle = draw.GlyphStyle{Color: rgb(0x222222), Radius: vg.Points(2.6), Shape: draw.CrossGlyph{}}
		p.Add(marks)
		fig.AddLegend("p50, p90, p99, max of summary.json", marks)
		fig.Caption = append(fig.Caption, "The crosses are summary.json's p50, p90 and p99 over the same window (from a streaming sketch, within 1% of the exact values) and its max (exact).")
	}
	if logX {
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = gplot.LogTicks{Prec: -1}
		p.X.Label.Text = "latency (" + unit + ", log scale)"
	}
	p.X.Min, p.X.Max = lo, hi
	if hi == lo {
		p.X.Min, p.X.Max = lo*0.9, hi*1.1+1e-9
	}
	for _, m := range marks.XYs {
		p.X.Min, p.X.Max = min(p.X.Min, m.X), max(p.X.Max, m.X)
	}
	if logX && p.X.Min <= 0 {
		p.X.Min = lo
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	fig.Panels = append(fig.Panels, p)
	fig.PanelHeight = 4 * vg.Inch
	return fig, nil
}

// defaultCDFVertices returns the sinks of a run, else its last vertex.
func defaultCDFVertices(r *Run) []string {
	var sinks []string
	ts := r.Timeseries
	if ts == nil {
		return nil
	}
	for _, s := range ts.Series {
		if s.Kind == "sink" && !slices.Contains(sinks, s.Vertex) {
			sinks = append(sinks, s.Vertex)
		}
	}
	if len(sinks) == 0 && len(ts.Vertices) > 0 {
		sinks = ts.Vertices[len(ts.Vertices)-1:]
	}
	return sinks
}

// knot holds one interval's latency quantiles, the start of its lower
// tail, and its weight (records).
type knot struct {
	low, p50, p90, p99, max float64
	w                       float64
}

// intervalKnots returns the quantiles of s's intervals in the statistics
// window, with their weights, and the total weight.
func intervalKnots(r *Run, s *Series) ([]knot, float64) {
	warm := r.Warmup()
	rate := s.Values["in_rate_rps"]
	if s.Kind == "source" || rate == nil {
		rate = s.Values["out_rate_rps"]
	}
	p50, p90, p99, pmax := s.Values["latency_p50_ms"], s.Values["latency_p90_ms"], s.Values["latency_p99_ms"], s.Values["latency_max_ms"]
	var ks []knot
	total := 0.0
	prev := 0.0
	for i, t := range s.Time {
		dt := t - prev
		prev = t
		if t <= warm+1e-9 || i >= len(p50) {
			continue
		}
		k := knot{p50: p50[i], p90: p90[i], p99: p99[i], max: pmax[i]}
		w := 1.0
		if rate != nil && !math.IsNaN(rate[i]) {
			w = rate[i] * dt
		}
		if math.IsNaN(k.p50) || math.IsNaN(k.max) || !(w > 0) {
			continue
		}
		// fill missing quantiles and keep them in order
		if math.IsNaN(k.p90) {
			k.p90 = k.p50
		}
		if math.IsNaN(k.p99) {
			k.p99 = k.p90
		}
		k.p90 = max(k.p90, k.p50)
		k.p99 = max(k.p99, k.p90)
		k.max = max(k.max, k.p99)
		k.low = max(0, k.p50-1.25*(k.p90-k.p50))
		k.w = w
		total += w
		ks = append(ks, k)
	}
	return ks, total
}

// mixtureCDF evaluates the weighted mixture of the intervals' CDFs at the
// sorted points of grid.
func mixtureCDF(ks []knot, total float64, grid []float64) []float64 {
	acc := make([]float64, len(grid))
	tail := make([]float64, len(grid)+1) // weight of intervals wholly below grid[j], from j on
	for _, k := range ks {
		j0 := sort.SearchFloat64s(grid, k.low)
		j1 := sort.SearchFloat64s(grid, k.max)
		for j := j0; j < j1; j++ {
			acc[j] += k.w * k.at(grid[j])
		}
		tail[j1] += k.w // from the first point >= max on, it counts whole
	}
	out := make([]float64, len(grid))
	run := 0.0
	for j := range grid {
		run += tail[j]
		out[j] = min(1, (acc[j]+run)/total)
	}
	return out
}

// at is the interval's CDF at x < max.
func (k knot) at(x float64) float64 {
	seg := func(x0, y0, x1, y1 float64) float64 {
		if x1 <= x0 {
			return y1
		}
		return y0 + (y1-y0)*(x-x0)/(x1-x0)
	}
	switch {
	case x < k.low:
		return 0
	case x < k.p50:
		return seg(k.low, 0, k.p50, .5)
	case x < k.p90:
		return seg(k.p50, .5, k.p90, .9)
	case x < k.p99:
		return seg(k.p90, .9, k.p99, .99)
	case x < k.max:
		return seg(k.p99, .99, k.max, 1)
	}
	return 1
}
