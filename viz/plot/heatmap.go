package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dspalab/dspalab/sim"
)

// DefaultHeatmapMetric is the metric of a heatmap when none is asked for.
const DefaultHeatmapMetric = "backpressured_ms_per_s"

// DownMetric is the column of the time a subtask was not running (its
// worker lost, or the job restarting). A heatmap whose runs were read with
// it (TimeseriesFilter.Optional) draws the cells down for most of their
// time in downColor, not as the metric's value.
const DownMetric = "down_ms_per_s"

// downColor fills the cells of a heatmap where the subtask was down.
var downColor = rgb(0x404040)

// HeatmapOptions choose what Heatmap draws.
type HeatmapOptions struct {
	// Metric is a column of timeseries.csv; DefaultHeatmapMetric when
	// empty.
	Metric string
	// Vertices to draw; all when empty.
	Vertices []string
	// Subtasks draws a row per subtask instead of per vertex.
	Subtasks bool
	// Title replaces the default title.
	Title string
}

// maxColumns bounds the time columns of a heatmap: longer runs are
// averaged into this many.
const maxColumns = 1200

// Heatmap draws a metric (back-pressured time by default) per vertex or
// subtask over time: a row per vertex or subtask, a column per metrics
// interval, the value as a color. It has a panel per run and one color
// scale; for back-pressure the scale shows Flink's OK (≤ 100 ms/s), LOW
// (≤ 500) and HIGH bands. Failures and recoveries are marked with vertical
// lines. Errors as TimeSeries.
func Heatmap(runs []*Run, o HeatmapOptions) (*Figure, error) {
	if len(runs) == 0 {
		return nil, errors.New("plot: no runs to draw")
	}
	metric := o.Metric
	if metric == "" {
		metric = DefaultHeatmapMetric
	}
	sel, err := selectSeries(runs, []string{metric}, o.Vertices, o.Subtasks)
	if err != nil {
		return nil, err
	}
	words, _ := describeMetric(metric)
	fig := newFigure(o.Title)
	if metric == DefaultHeatmapMetric {
		// a hot subtask is busy, not back-pressured: back-pressure
		// cannot show skew, busy time per subtask does
		for _, r := range runs {
			if d := r.Summary; d != nil && d.Diagnosis.Kind == sim.DiagnosisSkew {
				hot := d.Diagnosis.Vertex
				if d.Diagnosis.Subtask != nil {
					hot += fmt.Sprintf(" subtask %d", *d.Diagnosis.Subtask)
				}
				fig.Caption = append(fig.Caption,
					fmt.Sprintf("%s's diagnosis is skew (%s): a hot subtask is busy, not back-pressured, so this figure does not show it.", r.Label, hot),
					fmt.Sprintf("Busy time per subtask does: dspalab plot %s --heatmap --subtasks -m busy_ms_per_s --vertex %s", r.Label, d.Diagnosis.Vertex))
				break
			}
		}
	}
	if fig.Title == "" {
		what := "vertex"
		if o.Subtasks {
			what = "subtask"
		}
		fig.Title = fmt.Sprintf("%s per %s: %s", words, what, runsTitle(runs))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range sel {
		for _, v := range s.series.Values[metric] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, &NoDataError{Msg: fmt.Sprintf("%s has no values for %s", metric, namesOf(sel))}
	}
	if perSecondMetric(metric) {
		lo, hi = 0, 1000
	} else if hi == lo {
		lo, hi = lo-0.5, hi+0.5
	}
	pal := heatColors(metric)
	type labels struct {
		p     *gplot.Plot
		names []string // top to bottom
	}
	var panels []labels
	noData, anyDown := false, false
	for ri, r := range runs {
		var rows []*Series
		for _, s := range sel {
			if s.run == ri {
				rows = append(rows, s.series)
			}
		}
		if len(rows) == 0 {
			continue
		}
		p := newPlot()
		if len(runs) > 1 {
			p.Title.Text = r.Label
		}
		g := newGrid(rows, metric)
		p.Add(&heatCells{g: g, pal: pal, lo: lo, hi: hi, nan: noDataColor})
		for c, col := range g.z {
			for r, v := range col {
				noData = noData || math.IsNaN(v) && !g.isDown(c, r)
				anyDown = anyDown || g.isDown(c, r)
			}
		}
		names := make([]string, len(rows))
		for i, s := range rows {
			names[i] = s.Name()
		}
		panels = append(panels, labels{p, names})
		p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
		p.Y.Tick.Label.Font = font.From(sans, 9)
		p.Y.Padding, p.X.Padding = 0, 0
		p.X.Min, p.X.Max = 0, g.end
		d := decorations([]*Run{r}, false)
		p.Add(d.plotters...)
		if ri == 0 {
			d.addLegend(fig)
		}
		fig.Panels = append(fig.Panels, p)
		fig.PanelHeight = max(fig.PanelHeight, vg.Length(len(rows))*0.3*vg.Inch+1.1*vg.Inch)
	}
	fig.PanelHeight = min(fig.PanelHeight, 9*vg.Inch)
	thinned := 0
	for _, l := range panels {
		k := labelStep(len(l.names), fig.PanelHeight)
		l.p.Y.Tick.Marker = rowTicks(l.names, k)
		thinned = max(thinned, k)
	}
	if thinned > 1 {
		fig.Caption = append(fig.Caption, fmt.Sprintf("Rows are labelled every %d: the first from the top and every %dth after it.", thinned, thinned))
	}
	if noData {
		nd := &spans{Fill: noDataColor}
		fig.AddLegend("no data (no value in the interval)", nd)
	}
	if anyDown {
		fig.AddLegend("down (not running: its worker lost, or the job restarting)", &spans{Fill: downColor})
	}
	fig.Panels[len(fig.Panels)-1].X.Label.Text = "simulated time (s)"
	fig.colorBar = colorBar(metric, pal, lo, hi)
	return fig, nil
}

// noDataColor fills the cells of a heatmap without a value.
var noDataColor = rgb(0xE4E4E4)

// rowLabelHeight is the height a row label needs.
var rowLabelHeight = vg.Points(11)

// labelStep returns k such that labelling every k-th of n rows in a panel
// of height h keeps the labels apart.
func labelStep(n int, h vg.Length) int {
	avail := h - 1.1*vg.Inch // the panel's title and time axis
	if n == 0 || avail <= 0 {
		return 1
	}
	per := avail / vg.Length(n)
	return max(1, int(math.Ceil(float64(rowLabelHeight/per))))
}

// rowTicks labels every k-th row from the top; names are top to bottom,
// the top row at n-1.
func rowTicks(names []string, k int) gplot.ConstantTicks {
	n := len(names)
	var ticks gplot.ConstantTicks
	for i, name := range names {
		t := gplot.Tick{Value: float64(n - 1 - i)}
		if i%k == 0 {
			t.Label = name
		} else if n > 60 {
			continue // no tick marks where they would be a solid bar
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// grid is a heatmap's data: a column per interval, a row per series (the
// first series on top).
type grid struct {
	x0, x1 []float64   // column edges: the start and end of its intervals
	z      [][]float64 // [column][row]
	down   [][]bool    // [column][row]: down most of the time (nil: not known)
	end    float64
}

// isDown says whether cell (c, r) is drawn as down.
func (g *grid) isDown(c, r int) bool { return g.down != nil && g.down[c][r] }

func newGrid(rows []*Series, metric string) *grid {
	times := rows[0].Time
	for _, s := range rows {
		if len(s.Time) > len(times) {
			times = s.Time
		}
	}
	idx := map[float64]int{}
	for i, t := range times {
		idx[t] = i
	}
	n := len(times)
	cols := min(n, maxColumns, max(50, maxCells/len(rows)))
	g := &grid{x0: make([]float64, cols), x1: make([]float64, cols), z: make([][]float64, cols)}
	// column c covers the intervals [c*n/cols, (c+1)*n/cols)
	colOf := make([]int, n)
	for c := range cols {
		a, b := c*n/cols, (c+1)*n/cols
		for j := a; j < b; j++ {
			colOf[j] = c
		}
		start := 0.0
		if a > 0 {
			start = times[a-1]
		}
		g.x0[c], g.x1[c] = start, times[b-1]
		g.z[c] = make([]float64, len(rows))
		for r := range g.z[c] {
			g.z[c][r] = math.NaN()
		}
	}
	if n > 0 {
		g.end = times[n-1]
	}
	for ri, s := range rows {
		r := len(rows) - 1 - ri
		vals := s.Values[metric]
		sums := make([]float64, cols)
		counts := make([]int, cols)
		for i, t := range s.Time {
			j, ok := idx[t]
			if !ok || i >= len(vals) || math.IsNaN(vals[i]) {
				continue
			}
			c := colOf[j]
			sums[c] += vals[i]
			counts[c]++
		}
		for c := range cols {
			if counts[c] > 0 {
				g.z[c][r] = sums[c] / float64(counts[c])
			}
		}
		// down for more than half of a cell's time: drawn as down
		if downs := s.Values[DownMetric]; downs != nil && metric != DownMetric {
			if g.down == nil {
				g.down = make([][]bool, cols)
				for c := range g.down {
					g.down[c] = make([]bool, len(rows))
				}
			}
			sum := make([]float64, cols)
			n := make([]int, cols)
			for i, t := range s.Time {
				if j, ok := idx[t]; ok && i < len(downs) && !math.IsNaN(downs[i]) {
					sum[colOf[j]] += downs[i]
					n[colOf[j]]++
				}
			}
			for c := range cols {
				g.down[c][r] = n[c] > 0 && sum[c]/float64(n[c]) > 500
			}
		}
	}
	return g
}

// heatCells draws a grid's cells as rectangles, a run of equal colors in
// a row as one, each overlapping its neighbours a little so that no
// hairline shows between them.
type heatCells struct {
	g      *grid
	pal    colors
	lo, hi float64
	nan    color.Color
}

// maxCells bounds the cells of a heatmap panel (columns are merged to keep
// within it).
const maxCells = 60000

// Plot implements gplot.Plotter.
func (h *heatCells) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	g := h.g
	cols := len(g.z)
	if cols == 0 {
		return
	}
	rows := len(g.z[0])
	const ov = 0.4 // points of overlap
	for r := range rows {
		y0, y1 := trY(float64(r)-0.5), trY(float64(r)+0.5)
		if r < rows-1 {
			y1 += ov
		}
		for a := 0; a < cols; {
			k := h.cell(a, r)
			b := a + 1
			for b < cols && h.cell(b, r) == k {
				b++
			}
			x0, x1 := trX(g.x0[a]), trX(g.x1[b-1])
			if b < cols {
				x1 += ov
			}
			var path vg.Path
			path.Move(vg.Point{X: x0, Y: y0})
			path.Line(vg.Point{X: x1, Y: y0})
			path.Line(vg.Point{X: x1, Y: y1})
			path.Line(vg.Point{X: x0, Y: y1})
			path.Close()
			switch {
			case k == cellDown:
				c.SetColor(downColor)
			case k < 0:
				c.SetColor(h.nan)
			default:
				c.SetColor(h.pal[k])
			}
			c.Fill(path)
			a = b
		}
	}
}

// cellDown is the cell index of a cell drawn as down.
const cellDown = -2

// cell returns the palette index of cell (c, r), -1 for no value and
// cellDown for a subtask down.
func (h *heatCells) cell(c, r int) int {
	if h.g.isDown(c, r) {
		return cellDown
	}
	return h.index(h.g.z[c][r])
}

// index returns the palette index of v, -1 for NaN.
func (h *heatCells) index(v float64) int {
	if math.IsNaN(v) {
		return -1
	}
	f := (v - h.lo) / (h.hi - h.lo)
	k := int(math.Round(f * float64(len(h.pal)-1)))
	return max(0, min(len(h.pal)-1, k))
}

// DataRange implements gplot.DataRanger.
func (h *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	if len(h.g.z) == 0 {
		return 0, 1, -0.5, 0.5
	}
	return h.g.x0[0], h.g.x1[len(h.g.x1)-1], -0.5, float64(len(h.g.z[0])) - 0.5
}

// heatColors returns the palette of a metric: for back-pressure, greens up
// to 100 ms/s (OK), yellows to oranges up to 500 (LOW), reds above (HIGH);
// for others, light to dark blue.
func heatColors(metric string) colors {
	const n = 200
	out := make(colors, n)
	if metric == DefaultHeatmapMetric {
		for i := range out {
			v := 1000 * float64(i) / float64(n-1)
			switch {
			case v <= 100:
				out[i] = mix(rgb(0xF1F8EC), rgb(0xA6D98B), v/100)
			case v <= 500:
				out[i] = mix(rgb(0xFFE08A), rgb(0xF59B42), (v-100)/400)
			default:
				out[i] = mix(rgb(0xE8553A), rgb(0x7A0010), (v-500)/500)
			}
		}
		return out
	}
	for i := range out {
		out[i] = mix(rgb(0xF4F8FC), rgb(0x08306B), float64(i)/float64(n-1))
	}
	return out
}

// colors is a palette.Palette.
type colors []color.Color

// Colors implements palette.Palette.
func (c colors) Colors() []color.Color { return c }

// mix blends a into b by f in [0, 1].
func mix(a, b color.Color, f float64) color.Color {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	l := func(x, y uint32) uint8 { return uint8((float64(x)*(1-f) + float64(y)*f) / 257) }
	return color.RGBA{R: l(ar, br), G: l(ag, bg), B: l(ab, bb), A: 255}
}

// colorBar returns the plot of a heatmap's color scale.
func colorBar(metric string, pal colors, lo, hi float64) *gplot.Plot {
	p := newPlot()
	p.HideY()
	p.Add(&colorScale{Colors: pal, Min: lo, Max: hi})
	p.X.Min, p.X.Max = lo, hi
	p.X.Padding = 0
	p.X.Label.Text = axisLabel(metric)
	if metric == DefaultHeatmapMetric {
		p.X.Label.Text += ":  OK ≤ 100 < LOW ≤ 500 < HIGH"
		p.X.Tick.Marker = gplot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 100, Label: "100"}, {Value: 500, Label: "500"}, {Value: 1000, Label: "1000"}}
		return p
	}
	p.X.Tick.Marker = endTicks(lo, hi)
	return p
}

// endTicks returns round ticks between lo and hi with lo and hi labelled
// too (the ends of a color scale), dropping round labels too near an end.
func endTicks(lo, hi float64) gplot.ConstantTicks {
	nice := niceTicks{}.Ticks(lo, hi)
	step := (hi - lo) / 5
	var labelled []float64
	for _, t := range nice {
		if t.Label != "" {
			labelled = append(labelled, t.Value)
		}
	}
	if len(labelled) > 1 {
		step = labelled[1] - labelled[0]
	}
	ticks := gplot.ConstantTicks{{Value: lo, Label: formatTick(lo, step/10)}}
	for _, t := range nice {
		if t.Label != "" && (t.Value-lo < (hi-lo)*0.08 || hi-t.Value < (hi-lo)*0.08) {
			continue
		}
		ticks = append(ticks, t)
	}
	return append(ticks, gplot.Tick{Value: hi, Label: formatTick(hi, step/10)})
}
