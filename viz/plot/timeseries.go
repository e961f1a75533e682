package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DefaultMetrics are the panels of a time-series figure when none are
// asked for: throughput, back-pressure and tail latency.
var DefaultMetrics = []string{"in_rate_rps", "backpressured_ms_per_s", "latency_p99_ms"}

// DefaultMicroBatchMetrics are DefaultMetrics for a run of Spark's
// engines, whose timeseries.csv has a row per interval for the whole job
// (sim/microbatch.TimeseriesColumns): the input rate, the scheduling
// delay (which grows while the job falls behind), the processing time
// against the batch interval, and tail latency.
var DefaultMicroBatchMetrics = []string{"input_rate_rps", "scheduling_delay_ms", "processing_time_ms", "latency_p99_ms"}

// DefaultConsumerMetrics are DefaultMetrics for a run without a Flink
// job, producers and consumer groups only, whose rows are the groups'
// (vertex GROUP, kind consumer): the records consumed, the group's lag
// (source_lag_records, which grows while a failed member holds
// partitions) and the records processed again after a rebalance.
var DefaultConsumerMetrics = []string{InRateMetric, LagMetric, "duplicates"}

// LagMetric is the column of a source's lag, and of a consumer group's.
const LagMetric = "source_lag_records"

// allKind reports whether every selected series is of vertex kind k.
func allKind(sel []selected, k string) bool {
	for _, s := range sel {
		if s.series.Kind != k {
			return false
		}
	}
	return len(sel) > 0
}

// The input and output rate columns. A source has no input: in a panel
// of InRateMetric it is drawn with its OutRateMetric (what it emits, the
// job's input), named "NAME (out)" in the legend.
const (
	InRateMetric  = "in_rate_rps"
	OutRateMetric = "out_rate_rps"
)

// maxSeries bounds the series (vertices or subtasks) of a time-series
// figure, one color each: with more, those with the highest mean of the
// first metric are drawn, and the caption says so.
var maxSeries = len(palette)

// TimeSeriesOptions choose what TimeSeries draws.
type TimeSeriesOptions struct {
	// Metrics are columns of timeseries.csv, one panel each;
	// DefaultMetrics when empty.
	Metrics []string
	// Vertices to draw; all when empty.
	Vertices []string
	// Subtasks draws a line per subtask instead of per vertex (the runs'
	// series must have been read with TimeseriesFilter.Subtasks).
	Subtasks bool
	// Title replaces the default title (the scenarios and seeds).
	Title string
}

// TimeSeries draws metrics over simulated time: a panel per metric, a
// line per vertex (or subtask) and run. Runs are overlaid, told apart by
// dashes (and named in the legend); each panel shades the warmup and the
// checkpoints (completed and failed), and marks failures and recoveries
// with vertical lines. A gap in a line is an interval without a value (no
// record left the vertex). It returns an *UnknownError for a metric or
// vertex the runs lack, and a *NoDataError when no panel has a value.
func TimeSeries(runs []*Run, o TimeSeriesOptions) (*Figure, error) {
	if len(runs) == 0 {
		return nil, errors.New("plot: no runs to draw")
	}
	metrics := o.Metrics
	if len(metrics) == 0 {
		metrics = DefaultMetrics
	}
	sel, err := selectSeries(runs, metrics, o.Vertices, o.Subtasks)
	if err != nil {
		return nil, err
	}
	fig := newFigure(o.Title)
	if fig.Title == "" {
		fig.Title = runsTitle(runs)
	}
	// sources draw their output rate in an input-rate panel
	values := func(s selected, m string) []float64 {
		if m == InRateMetric && s.series.Kind == "source" {
			if out, ok := s.series.Values[OutRateMetric]; ok {
				return out
			}
		}
		return s.series.Values[m]
	}
	var outSources bool
	if slices.Contains(metrics, InRateMetric) {
		for i, s := range sel {
			if s.series.Kind == "source" && s.series.Values[OutRateMetric] != nil {
				sel[i].legend += " (out)"
				outSources = true
			}
		}
	}
	var shown, total int
	sel, shown, total = busiest(sel, func(s selected) []float64 { return values(s, metrics[0]) })
	if shown < total {
		what := "vertices"
		if o.Subtasks {
			what = "subtasks"
		}
		words, _ := describeMetric(metrics[0])
		fig.Caption = append(fig.Caption, fmt.Sprintf("%d of %d %s shown: those with the highest mean %s", shown, total, what, words))
	}
	end := 0.0
	for _, r := range runs {
		end = max(end, r.End())
	}
	styles := seriesStyles(runs, sel)
	deco := decorations(runs, true)
	var empty []string
	for i, m := range metrics {
		p := newPlot()
		words, unit := describeMetric(m)
		p.Title.Text = words
		if m == InRateMetric && outSources {
			p.Title.Text += " (of sources: their output rate)"
		}
		if m == LagMetric && allKind(sel, "consumer") {
			p.Title.Text = "consumer lag" // a group's rows: records not yet consumed
		}
		// latencies in the unit of their range: 20 s, not 20000 ms
		top := math.Inf(-1)
		for _, s := range sel {
			for _, y := range values(s, m) {
				if !math.IsNaN(y) && !math.IsInf(y, 0) {
					top = max(top, y)
				}
			}
		}
		factor, unit := timeUnit(unit, top)
		p.Y.Label.Text = unit
		if i == len(metrics)-1 {
			p.X.Label.Text = "simulated time (s)"
		}
		p.Add(deco.plotters...)
		drawn := false
		ymin, ymax := math.Inf(1), math.Inf(-1)
		for _, s := range sel {
			ys := scaled(values(s, m), factor)
			xs := s.series.Time
			thumb, ok := addLine(p, xs, ys, styles[s.key])
			if i == 0 {
				fig.AddLegend(s.legend, thumb)
			}
			if ok {
				drawn = true
				for _, y := range ys {
					if !math.IsNaN(y) && !math.IsInf(y, 0) {
						ymin, ymax = min(ymin, y), max(ymax, y)
					}
				}
			}
		}
		p.X.Min, p.X.Max = 0, math.Max(end, 1e-9)
		switch {
		case !drawn:
			empty = append(empty, m)
			p.Add(&note{Text: fmt.Sprintf("no values of %s for %s", m, namesOf(sel))})
			p.Y.Min, p.Y.Max = 0, 1
		case perSecondMetric(m):
			p.Y.Min, p.Y.Max = 0, 1000
		default:
			setYRange(p, ymin, ymax)
		}
		fig.Panels = append(fig.Panels, p)
	}
	deco.addLegend(fig)
	if len(empty) == len(metrics) {
		return nil, &NoDataError{Msg: fmt.Sprintf("%s %s no values for %s (an empty or all-NaN column: latency is measured where records leave an operator or reach a sink, so a source has none, nor a vertex no record left)",
			strings.Join(metrics, ", "), hasHave(len(metrics)), namesOf(sel))}
	}
	return fig, nil
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// busiest keeps the maxSeries series names (across runs) whose values
// have the highest mean, in their order, and returns how many names it
// kept of how many.
func busiest(sel []selected, values func(selected) []float64) ([]selected, int, int) {
	var names []string
	sum, count := map[string]float64{}, map[string]int{}
	for _, s := range sel {
		if !slices.Contains(names, s.name) {
			names = append(names, s.name)
		}
		for _, v := range values(s) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum[s.name] += v
				count[s.name]++
			}
		}
	}
	if len(names) <= maxSeries {
		return sel, len(names), len(names)
	}
	mean := func(n string) float64 {
		if count[n] == 0 {
			return math.Inf(-1)
		}
		return sum[n] / float64(count[n])
	}
	ranked := slices.Clone(names)
	slices.SortStableFunc(ranked, func(a, b string) int {
		ma, mb := mean(a), mean(b)
		switch {
		case ma > mb:
			return -1
		case ma < mb:
			return 1
		}
		return 0
	})
	keep := map[string]bool{}
	for _, n := range ranked[:maxSeries] {
		keep[n] = true
	}
	var out []selected
	for _, s := range sel {
		if keep[s.name] {
			out = append(out, s)
		}
	}
	return out, maxSeries, len(names)
}

// selected is a series chosen for a figure.
type selected struct {
	run    int
	series *Series
	key    string // identity for styles: run and series name
	name   string // the series' name
	legend string
}

// selectSeries picks the series of the vertices asked for (all if none)
// from every run, checking that the runs have the metrics and vertices.
func selectSeries(runs []*Run, metrics, vertices []string, subtasks bool) ([]selected, error) {
	var sel []selected
	for ri, r := range runs {
		ts := r.Timeseries
		if ts == nil {
			return nil, fmt.Errorf("plot: run %s has no time series", r.Label)
		}
		for _, m := range metrics {
			if !slices.Contains(ts.Metrics, m) {
				return nil, &UnknownError{What: "metric", Name: m, Valid: ts.Metrics, In: r.Label}
			}
		}
		for _, v := range vertices {
			if !slices.Contains(ts.Vertices, v) {
				return nil, &UnknownError{What: "vertex", Name: v, Valid: ts.Vertices, In: r.Label}
			}
		}
		for _, s := range ts.Series {
			if len(vertices) > 0 && !slices.Contains(vertices, s.Vertex) || (s.Subtask >= 0) != subtasks {
				continue
			}
			legend := s.Name()
			if len(runs) > 1 {
				legend = r.Label + ": " + legend
			}
			sel = append(sel, selected{run: ri, series: s, key: fmt.Sprintf("%d\x00%s", ri, s.Name()), name: s.Name(), legend: legend})
		}
	}
	if len(sel) == 0 {
		what := "vertex rows (subtask -1)"
		if subtasks {
			what = "subtask rows"
		}
		return nil, &NoDataError{Msg: "the time series have no " + what + " for the vertices asked for"}
	}
	return sel, nil
}

// seriesStyles gives each selected series its line style: a color per
// series name (a color per run when only one name is drawn), dashes per
// run.
func seriesStyles(runs []*Run, sel []selected) map[string]draw.LineStyle {
	var names []string
	for _, s := range sel {
		if !slices.Contains(names, s.name) {
			names = append(names, s.name)
		}
	}
	styles := map[string]draw.LineStyle{}
	for _, s := range sel {
		switch {
		case len(names) == 1:
			styles[s.key] = lineStyle(s.run, 0)
		case len(runs) == 1:
			styles[s.key] = lineStyle(slices.Index(names, s.name), 0)
		default:
			styles[s.key] = lineStyle(slices.Index(names, s.name), s.run)
		}
	}
	return styles
}

// namesOf lists the series names of sel, without repeats.
func namesOf(sel []selected) string {
	var names []string
	for _, s := range sel {
		if !slices.Contains(names, s.name) {
			names = append(names, s.name)
		}
	}
	if len(names) > 6 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}

// decoration is what marks a run's events on a panel: shaded spans (the
// warmup, checkpoints) and vertical lines (failures, recoveries), with
// their legend entries.
type decoration struct {
	plotters []gplot.Plotter
	legend   []legendEntry
}

func (d *decoration) add(p gplot.Plotter, name string, thumb gplot.Thumbnailer) {
	d.plotters = append(d.plotters, p)
	d.legend = append(d.legend, legendEntry{name, []gplot.Thumbnailer{thumb}})
}

// addLegend adds the decoration's entries to fig's legend.
func (d decoration) addLegend(fig *Figure) { fig.legend = append(fig.legend, d.legend...) }

// decorations returns the marks of the runs' events: the warmup (of the
// first run) shaded; with withSpans, the checkpoints, completed and
// failed, as shaded spans; always, the failures and recoveries as vertical
// lines.
func decorations(runs []*Run, withSpans bool) decoration {
	var d decoration
	if w := runs[0].Warmup(); w > 0 {
		sp := &spans{From: []float64{0}, To: []float64{w}, Fill: warmupFill}
		if !withSpans {
			// over a heatmap's colors: a wash and a line at its end
			sp.Fill, sp.Edge = warmupWash, warmupEdge
		}
		d.add(sp, "warmup (not in statistics)", sp)
	}
	ok := &spans{Fill: checkpointFill}
	bad := &spans{Fill: checkpointFailedFill}
	// the failures and recoveries of each run; of several runs, each in
	// its run's color and named by it, so that one sees which run failed
	// when
	failSty := draw.LineStyle{Color: failureColor, Width: vg.Points(1.6), Dashes: []vg.Length{vg.Points(5), vg.Points(2.5)}}
	recSty := draw.LineStyle{Color: recoveryColor, Width: vg.Points(1.6), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}
	var lines []*vlines
	var names []string
	for ri, r := range runs {
		for _, c := range r.Checkpoints {
			sp := ok
			if c.Failed() {
				sp = bad
			}
			sp.From, sp.To = append(sp.From, c.Start), append(sp.To, c.End)
		}
		fs, rs, of := failSty, recSty, ""
		if len(runs) > 1 {
			fs.Color, rs.Color = palette[ri%len(palette)], palette[ri%len(palette)]
			of = " of " + r.Label
		}
		lines = append(lines, &vlines{Style: fs}, &vlines{Style: rs})
		names = append(names, "failure"+of, "recovery"+of)
		k := len(lines) - 2
		for _, m := range r.Markers {
			if m.Kind == MarkerFailure {
				lines[k].X = append(lines[k].X, m.Time)
			} else {
				lines[k+1].X = append(lines[k+1].X, m.Time)
			}
		}
	}
	if withSpans && len(ok.From) > 0 {
		d.add(ok, "checkpoint (trigger to end)", ok)
	}
	if withSpans && len(bad.From) > 0 {
		d.add(bad, "checkpoint that failed", bad)
	}
	for i, l := range lines {
		if len(l.X) > 0 {
			d.add(l, names[i], l)
		}
	}
	return d
}

// setYRange sets p's Y axis to hold [lo, hi], from 0 for data that is not
// negative, and a unit range around constant data.
func setYRange(p *gplot.Plot, lo, hi float64) {
	if lo >= 0 {
		lo = 0
	}
	if hi <= lo {
		hi = lo + math.Max(1, math.Abs(lo))
	}
	p.Y.Min, p.Y.Max = lo, hi+(hi-lo)*0.04
}

// runsTitle names the runs of a figure: "backpressure, seed 1" for one,
// "backpressure: 3 runs" for several of the same scenario.
func runsTitle(runs []*Run) string {
	var scen []string
	for _, r := range runs {
		name := r.Label
		if r.Summary != nil && r.Summary.Scenario != "" {
			name = r.Summary.Scenario
		}
		if !slices.Contains(scen, name) {
			scen = append(scen, name)
		}
	}
	t := strings.Join(scen, ", ")
	if len(runs) == 1 {
		if s := runs[0].Summary; s != nil {
			t += fmt.Sprintf(", seed %d", s.Seed)
			if s.Partial {
				t += " (partial run)"
			}
		}
		return t
	}
	partial := 0
	for _, r := range runs {
		if r.Summary != nil && r.Summary.Partial {
			partial++
		}
	}
	t = fmt.Sprintf("%s: %d runs", t, len(runs))
	if partial > 0 {
		t += fmt.Sprintf(" (%d of them partial)", partial)
	}
	return t
}
