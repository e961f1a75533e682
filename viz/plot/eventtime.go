package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dspalab/dspalab/sim"
)

// The event-time columns of timeseries.csv that the event-time figures
// read (sim.EventTimeColumns): a run without them has no event time.
const (
	WatermarkMetric    = "current_input_watermark_s"
	WatermarkLagMetric = "watermark_lag_s"
	LateMetric         = "num_late_records_dropped"
	EventTimeLagP50    = "event_time_lag_p50_ms"
	EventTimeLagP99    = "event_time_lag_p99_ms"
)

// EventTimeMetrics are the columns Watermarks and LateRecords read; read
// them as optional columns (TimeseriesFilter.Optional), so that a run
// without event time gets a *NoEventTimeError, not an unknown metric.
var EventTimeMetrics = []string{WatermarkMetric, WatermarkLagMetric, LateMetric, EventTimeLagP50, EventTimeLagP99}

// NoEventTimeError says that a run has no event time: no source with
// watermarks, no window, no join, so timeseries.csv has no watermark
// columns and summary.json no event_time.
type NoEventTimeError struct{ Run string }

func (e *NoEventTimeError) Error() string {
	return e.Run + ": this run has no event time: add watermarks: to a source (or a window: or join: to an operator)"
}

// EventTimeOptions choose what the event-time figures draw.
type EventTimeOptions struct {
	// Vertices to draw: all by default for Watermarks, the sinks for
	// EventTimeLagCDF, the window and join operators for LateRecords.
	Vertices []string
	// Subtasks draws each subtask's watermark (Watermarks only; the runs
	// must have been read with TimeseriesFilter.Subtasks).
	Subtasks bool
	// Title replaces the default title.
	Title string
}

// checkEventTime returns a *NoEventTimeError for the first run without
// the watermark columns.
func checkEventTime(runs []*Run) error {
	if len(runs) == 0 {
		return errors.New("plot: no runs to draw")
	}
	for _, r := range runs {
		if r.Timeseries == nil || !slices.Contains(r.Timeseries.Metrics, WatermarkMetric) {
			return &NoEventTimeError{Run: r.Label}
		}
	}
	return nil
}

// Colors of the event-time figures' guides.
var diagonalColor = rgb(0x888888)

// Watermarks draws the classic figure of event time against processing
// time (Akidau et al., "The Dataflow Model", 2015; Streaming 101): the
// diagonal where event time equals processing time, and below it each
// vertex's watermark (current_input_watermark_s of timeseries.csv, the
// least over its subtasks; a source's is the watermark it generates), so
// that the vertical distance to the diagonal is the watermark lag; at the
// sinks, the event time of the records written (processing time less
// their event-time lag: the median as a line, down to the p99 as a band).
// A second panel draws watermark_lag_s over processing time: an idle
// input shows as a lag that grows by a second a second, back-pressure as
// a lag that trails the sources'. It returns a *NoEventTimeError for a
// run without event time and an *UnknownError for a vertex the runs lack.
func Watermarks(runs []*Run, o EventTimeOptions) (*Figure, error) {
	if err := checkEventTime(runs); err != nil {
		return nil, err
	}
	sel, err := selectSeries(runs, []string{WatermarkMetric, WatermarkLagMetric}, o.Vertices, o.Subtasks)
	if err != nil {
		return nil, err
	}
	sel, shown, total := busiest(sel, func(s selected) []float64 { return s.series.Values[WatermarkLagMetric] })
	fig := newFigure(o.Title)
	if fig.Title == "" {
		fig.Title = "Watermarks: " + runsTitle(runs)
	}
	if shown < total {
		fig.Caption = append(fig.Caption, fmt.Sprintf("%d of %d series shown: those with the highest mean watermark lag", shown, total))
	}
	end := runsEnd(runs)
	styles := seriesStyles(runs, sel)
	deco := decorations(runs, true)

	et := newPlot()
	et.Title.Text = "event time against processing time: the watermark below the diagonal"
	et.Y.Label.Text = "event time (s)"
	et.Add(deco.plotters...)
	diag := draw.LineStyle{Color: diagonalColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	thumb, _ := addLine(et, []float64{0, end}, []float64{0, end}, diag)
	fig.AddLegend("processing time (event time = processing time)", thumb)
	lo := 0.0
	drawn := false
	// the watermarks of a chain of vertices often coincide: the first
	// is drawn widest, each next one narrower on top of it, so that all
	// show
	var names []string
	for _, s := range sel {
		if !slices.Contains(names, s.name) {
			names = append(names, s.name)
		}
	}
	for _, s := range sel {
		xs := s.series.Time
		wm := s.series.Values[WatermarkMetric]
		wide := styles[s.key]
		wide.Width += vg.Points(0.9 * float64(min(len(names)-1-slices.Index(names, s.name), 4)))
		th, ok := addLine(et, xs, wm, wide)
		fig.AddLegend(s.legend+" watermark", th)
		drawn = drawn || ok
		for _, y := range wm {
			if !math.IsNaN(y) {
				lo = min(lo, y)
			}
		}
		if s.series.Kind != "sink" {
			continue
		}
		p50, p99 := s.series.Values[EventTimeLagP50], s.series.Values[EventTimeLagP99]
		if p50 == nil {
			continue
		}
		med := make([]float64, len(xs))
		band := &spansY{}
		for i, t := range xs {
			med[i] = t - p50[i]/1000
			if p99 != nil && !math.IsNaN(p99[i]) && !math.IsNaN(p50[i]) {
				band.X = append(band.X, t)
				band.Lo = append(band.Lo, t-p99[i]/1000)
				band.Hi = append(band.Hi, med[i])
				lo = min(lo, t-p99[i]/1000)
			}
		}
		thumbs := []gplot.Thumbnailer{}
		if len(band.X) > 1 {
			band.Fill = rgba(colorHex(styles[s.key].Color), 50)
			et.Add(band)
			thumbs = append(thumbs, band)
		}
		sty := styles[s.key]
		sty.Dashes = []vg.Length{vg.Points(1.5), vg.Points(1.5)}
		th, ok = addLine(et, xs, med, sty)
		if ok {
			fig.AddLegend(s.legend+" event time written (median lag; band: p99)", append(thumbs, th)...)
		}
	}
	if !drawn {
		return nil, &NoDataError{Msg: fmt.Sprintf("no watermark of %s in any sample (none reached them)", namesOf(sel))}
	}
	et.X.Min, et.X.Max = 0, end
	et.Y.Min, et.Y.Max = lo, end*1.02
	fig.Panels = append(fig.Panels, et)

	lag := newPlot()
	lag.Title.Text = "watermark lag: processing time − watermark"
	lag.Y.Label.Text = "s"
	lag.X.Label.Text = "processing time: simulated time (s)"
	lag.Add(deco.plotters...)
	top := 0.0
	for _, s := range sel {
		ys := s.series.Values[WatermarkLagMetric]
		addLine(lag, s.series.Time, ys, styles[s.key])
		for _, y := range ys {
			if !math.IsNaN(y) {
				top = max(top, y)
			}
		}
	}
	lag.X.Min, lag.X.Max = 0, end
	setYRange(lag, 0, top)
	fig.Panels = append(fig.Panels, lag)
	deco.addLegend(fig)
	fig.PanelHeight = 3.4 * vg.Inch
	fig.Caption = append(fig.Caption, "Watermarks are current_input_watermark_s of timeseries.csv at the end of each metrics interval (a vertex: its least subtask);",
		"a gap is an interval before the first watermark. Lines that coincide are drawn one on another, the first widest.")
	return fig, nil
}

// runsEnd is the latest simulated time the runs reached (seconds, more
// than 0): the end of the x axis.
func runsEnd(runs []*Run) float64 {
	end := 0.0
	for _, r := range runs {
		end = max(end, r.End())
	}
	return math.Max(end, 1e-9)
}

// colorHex returns c as 0xRRGGBB.
func colorHex(c color.Color) uint32 {
	r, g, b, _ := c.RGBA()
	return (r>>8)<<16 | (g>>8)<<8 | b>>8
}

// spansY shades the area between Lo and Hi over X (a band).
type spansY struct {
	X, Lo, Hi []float64
	Fill      color.Color
}

// Plot implements gplot.Plotter.
func (s *spansY) Plot(c draw.Canvas, p *gplot.Plot) {
	if len(s.X) < 2 {
		return
	}
	trX, trY := p.Transforms(&c)
	var path vg.Path
	for i, x := range s.X {
		pt := vg.Point{X: trX(x), Y: trY(s.Hi[i])}
		if i == 0 {
			path.Move(pt)
		} else {
			path.Line(pt)
		}
	}
	for i := len(s.X) - 1; i >= 0; i-- {
		path.Line(vg.Point{X: trX(s.X[i]), Y: trY(s.Lo[i])})
	}
	path.Close()
	c.SetColor(s.Fill)
	c.Fill(path)
}

// Thumbnail implements gplot.Thumbnailer.
func (s *spansY) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.Fill)
	c.Fill(c.Rectangle.Path())
}

// EventTimeLagCDF draws the distribution of the event-time lag at the
// sinks (processing time at the sink less the record's event time; for a
// window's result, its window's end), after the warmup: summary.json's
// event_time_lag_cdf of each sink, quantiles at p = 0, 0.05, ..., 0.95,
// 0.99, 0.999 and 1 (the least and the largest exact, the others within
// 1%), joined by lines. It needs summary.json, returns a
// *NoEventTimeError for a run without event time and an *UnknownError for
// a vertex that is not a sink with such a distribution.
func EventTimeLagCDF(runs []*Run, o EventTimeOptions) (*Figure, error) {
	if err := checkEventTime(runs); err != nil {
		return nil, err
	}
	type curve struct {
		run    int
		vertex string
		points []sim.LagQuantile
	}
	var curves []curve
	for ri, r := range runs {
		if r.Summary == nil || r.Summary.EventTime == nil {
			return nil, &NoDataError{Msg: r.Label + " has no summary.json with event_time: the event-time lag distribution is there (dspalab run --out writes it)"}
		}
		var valid []string
		for _, v := range r.Summary.EventTime.Vertices {
			if len(v.EventTimeLagCDF) > 0 {
				valid = append(valid, v.Name)
			}
		}
		for _, want := range o.Vertices {
			if !slices.Contains(valid, want) {
				return nil, &UnknownError{What: "vertex", Name: want, Valid: valid, In: r.Label,
					Note: "the event-time lag is measured at sinks that wrote records after the warmup"}
			}
		}
		for _, v := range r.Summary.EventTime.Vertices {
			if len(v.EventTimeLagCDF) > 0 && (len(o.Vertices) == 0 || slices.Contains(o.Vertices, v.Name)) {
				curves = append(curves, curve{ri, v.Name, v.EventTimeLagCDF})
			}
		}
	}
	if len(curves) == 0 {
		return nil, &NoDataError{Msg: "no sink wrote a record after the warmup: summary.json has no event_time_lag_cdf"}
	}
	fig := newFigure(o.Title)
	if fig.Title == "" {
		fig.Title = "Event-time lag CDF: " + runsTitle(runs)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for _, q := range c.points {
			lo, hi = min(lo, q.Ms), max(hi, q.Ms)
		}
	}
	factor, unit := timeUnit("ms", hi)
	lo, hi = lo*factor, hi*factor
	logX := lo > 0 && hi/lo > 50
	p := newPlot()
	p.Title.Text = "event-time lag at the sinks (processing time − event time), after the warmup"
	p.X.Label.Text = "event-time lag (" + unit + ")"
	p.Y.Label.Text = "fraction of records at most x"
	names := map[string]int{}
	for _, c := range curves {
		if _, ok := names[c.vertex]; !ok {
			names[c.vertex] = len(names)
		}
	}
	marks := &plotter.Scatter{}
	for _, c := range curves {
		xs, ys := make([]float64, len(c.points)), make([]float64, len(c.points))
		for i, q := range c.points {
			xs[i], ys[i] = q.Ms*factor, q.P
			if q.P == 0.5 || q.P == 0.99 {
				marks.XYs = append(marks.XYs, plotter.XY{X: xs[i], Y: q.P})
			}
		}
		sty := lineStyle(names[c.vertex], 0)
		legend := c.vertex
		if len(runs) > 1 {
			sty = lineStyle(names[c.vertex]+c.run*len(names), c.run)
			legend = runs[c.run].Label + ": " + legend
		}
		th, _ := addLine(p, xs, ys, sty)
		fig.AddLegend(legend, th)
	}
	marks.GlyphStyle = draw.GlyphStyle{Color: rgb(0x222222), Radius: vg.Points(2.6), Shape: draw.CrossGlyph{}}
	p.Add(marks)
	fig.AddLegend("p50 and p99", marks)
	if logX {
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = gplot.LogTicks{Prec: -1}
		p.X.Label.Text = "event-time lag (" + unit + ", log scale)"
	}
	// a little room on both sides, so that steps at the ends show
	p.X.Min, p.X.Max = max(lo-0.03*(hi-lo), 0), hi+0.03*(hi-lo)
	if logX {
		p.X.Min, p.X.Max = lo/1.1, hi*1.1
	}
	if hi == lo {
		p.X.Min, p.X.Max = lo*0.9, hi*1.1+1e-9
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	fig.Panels = append(fig.Panels, p)
	fig.PanelHeight = 4 * vg.Inch
	fig.Caption = append(fig.Caption,
		"The curves join summary.json's event_time_lag_cdf: the lag's least value, its quantiles at p = 0.05 ... 0.95, 0.99, 0.999 (within 1%) and its largest.",
		"A window's result carries its window's end as event time: its lag is how long after the window's end it was written.")
	return fig, nil
}

// LateRecords draws the late records of each window and join operator
// over processing time: numLateRecordsDropped so far (timeseries.csv's
// num_late_records_dropped) and, below, the records dropped per second
// in each interval. It returns a *NoEventTimeError for a run without
// event time, an *UnknownError for a vertex the runs lack, and a
// *NoDataError when no vertex counts late records.
func LateRecords(runs []*Run, o EventTimeOptions) (*Figure, error) {
	if err := checkEventTime(runs); err != nil {
		return nil, err
	}
	sel, err := selectSeries(runs, []string{LateMetric}, o.Vertices, false)
	if err != nil {
		return nil, err
	}
	// the window and join operators: the vertices with a count
	var counted []selected
	for _, s := range sel {
		for _, v := range s.series.Values[LateMetric] {
			if !math.IsNaN(v) {
				counted = append(counted, s)
				break
			}
		}
	}
	if len(counted) == 0 {
		return nil, &NoDataError{Msg: fmt.Sprintf("no window or join operator among %s: only they drop late records", namesOf(sel))}
	}
	sel = counted
	fig := newFigure(o.Title)
	if fig.Title == "" {
		fig.Title = "Late records: " + runsTitle(runs)
	}
	end := runsEnd(runs)
	styles := seriesStyles(runs, sel)
	deco := decorations(runs, true)
	total, rate := newPlot(), newPlot()
	total.Title.Text = "late records dropped so far (numLateRecordsDropped)"
	total.Y.Label.Text = "records"
	rate.Title.Text = "late records dropped per second, by interval"
	rate.Y.Label.Text = "records/s"
	rate.X.Label.Text = "processing time: simulated time (s)"
	total.Add(deco.plotters...)
	rate.Add(deco.plotters...)
	topT, topR := 0.0, 0.0
	for _, s := range sel {
		xs, ys := s.series.Time, s.series.Values[LateMetric]
		per := perSecond(xs, ys)
		for i := range ys {
			if !math.IsNaN(per[i]) {
				topR = max(topR, per[i])
			}
			if !math.IsNaN(ys[i]) {
				topT = max(topT, ys[i])
			}
		}
		th, _ := addLine(total, xs, ys, styles[s.key])
		fig.AddLegend(s.legend, th)
		addLine(rate, xs, per, styles[s.key])
	}
	for _, p := range []*gplot.Plot{total, rate} {
		p.X.Min, p.X.Max = 0, end
	}
	setYRange(total, 0, topT)
	setYRange(rate, 0, topR)
	fig.Panels = append(fig.Panels, total, rate)
	deco.addLegend(fig)
	fig.Caption = append(fig.Caption, "A record is late when its window's end plus allowed_lateness is at or behind the operator's watermark as it comes",
		"(an interval join: when it is behind the watermark less the join's bound).")
	return fig, nil
}

// perSecond returns the increase per second of a count sampled at the
// ends of intervals xs (seconds, from 0): (ys[i] − ys[i−1]) / (xs[i] −
// xs[i−1]), the first interval from 0 at time 0. A count that falls (a
// restart starts it again) counts from 0; NaN where the count has no
// value.
func perSecond(xs, ys []float64) []float64 {
	per := make([]float64, len(ys))
	prevT, prevY := 0.0, 0.0
	for i := range ys {
		per[i] = math.NaN()
		if dt := xs[i] - prevT; dt > 0 && !math.IsNaN(ys[i]) {
			d := ys[i] - prevY
			if d < 0 {
				d = ys[i]
			}
			per[i] = d / dt
		}
		if !math.IsNaN(ys[i]) {
			prevY = ys[i]
		}
		prevT = xs[i]
	}
	return per
}
