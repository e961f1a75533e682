package plot

import (
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// spans shades vertical bands [From, To] over the whole height of a panel
// (checkpoints, the warmup).
type spans struct {
	From, To []float64
	Fill     color.Color
	// Edge, if set, draws a line at the end of each span.
	Edge color.Color
}

// Plot implements gplot.Plotter.
func (s *spans) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, _ := p.Transforms(&c)
	c.SetColor(s.Fill)
	for i := range s.From {
		a, b := math.Max(s.From[i], p.X.Min), math.Min(s.To[i], p.X.Max)
		if !(b >= a) {
			continue
		}
		x0, x1 := trX(a), trX(b)
		if x1-x0 < vg.Points(0.75) { // keep short spans visible
			x1 = x0 + vg.Points(0.75)
		}
		var path vg.Path
		path.Move(vg.Point{X: x0, Y: c.Min.Y})
		path.Line(vg.Point{X: x1, Y: c.Min.Y})
		path.Line(vg.Point{X: x1, Y: c.Max.Y})
		path.Line(vg.Point{X: x0, Y: c.Max.Y})
		path.Close()
		c.Fill(path)
		if s.Edge != nil && s.To[i] <= p.X.Max {
			c.StrokeLine2(draw.LineStyle{Color: s.Edge, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}, x1, c.Min.Y, x1, c.Max.Y)
			c.SetColor(s.Fill)
		}
	}
}

// Thumbnail implements gplot.Thumbnailer.
func (s *spans) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.Fill)
	c.Fill(c.Rectangle.Path())
	if s.Edge != nil {
		c.StrokeLine2(draw.LineStyle{Color: s.Edge, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}, c.Max.X, c.Min.Y, c.Max.X, c.Max.Y)
	}
}

// vlines draws vertical lines at X over the whole height of a panel
// (failures, recoveries).
type vlines struct {
	X     []float64
	Style draw.LineStyle
}

// Plot implements gplot.Plotter.
func (v *vlines) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range v.X {
		if x < p.X.Min || x > p.X.Max {
			continue
		}
		c.StrokeLine2(v.Style, trX(x), c.Min.Y, trX(x), c.Max.Y)
	}
}

// Thumbnail implements gplot.Thumbnailer.
func (v *vlines) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.Style, x, c.Min.Y, x, c.Max.Y)
}

// note writes a line of text in the middle of a panel ("no data").
type note struct{ Text string }

// Plot implements gplot.Plotter.
func (n *note) Plot(c draw.Canvas, p *gplot.Plot) {
	sty := text.Style{Color: color.Gray{Y: 90}, Font: font.From(sans, 11),
		XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: gplot.DefaultTextHandler}
	c.FillText(sty, c.Center(), n.Text)
}

// colorScale draws a horizontal color scale: Colors spread evenly over
// [Min, Max] of the X axis.
type colorScale struct {
	Colors   []color.Color
	Min, Max float64
}

// Plot implements gplot.Plotter.
func (s *colorScale) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(s.Colors)
	step := (s.Max - s.Min) / float64(n)
	for i, col := range s.Colors {
		x0, x1 := trX(s.Min+float64(i)*step), trX(s.Min+float64(i+1)*step)
		var path vg.Path
		path.Move(vg.Point{X: x0, Y: trY(0)})
		path.Line(vg.Point{X: x1 + 0.3, Y: trY(0)}) // overlap: no hairline gaps
		path.Line(vg.Point{X: x1 + 0.3, Y: trY(1)})
		path.Line(vg.Point{X: x0, Y: trY(1)})
		path.Close()
		c.SetColor(col)
		c.Fill(path)
	}
}

// DataRange implements gplot.DataRanger.
func (s *colorScale) DataRange() (xmin, xmax, ymin, ymax float64) { return s.Min, s.Max, 0, 1 }

// segments splits points at NaN values into runs that a line can join;
// runs of a single point are kept (drawn as a dot by the caller).
func segments(xs, ys []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range xs {
		if math.IsNaN(ys[i]) || math.IsInf(ys[i], 0) || math.IsNaN(xs[i]) || math.IsInf(xs[i], 0) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: xs[i], Y: ys[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// maxPoints bounds the points of a drawn line: longer series are thinned
// to the minimum and the maximum of each of maxPoints/2 buckets, which
// keeps their envelope (peaks stay visible).
const maxPoints = 2400

// thin returns xs and ys with at most about maxPoints points.
func thin(xs, ys []float64) ([]float64, []float64) {
	n := len(xs)
	if n <= maxPoints {
		return xs, ys
	}
	buckets := maxPoints / 2
	ox, oy := make([]float64, 0, maxPoints+2), make([]float64, 0, maxPoints+2)
	for b := range buckets {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		imin, imax := -1, -1
		for i := lo; i < hi; i++ {
			if math.IsNaN(ys[i]) {
				continue
			}
			if imin < 0 || ys[i] < ys[imin] {
				imin = i
			}
			if imax < 0 || ys[i] > ys[imax] {
				imax = i
			}
		}
		if imin < 0 { // a gap: keep it a gap
			ox, oy = append(ox, xs[lo]), append(oy, math.NaN())
			continue
		}
		a, b := min(imin, imax), max(imin, imax)
		ox, oy = append(ox, xs[a]), append(oy, ys[a])
		if b != a {
			ox, oy = append(ox, xs[b]), append(oy, ys[b])
		}
	}
	return ox, oy
}

// addLine adds a series to p as lines between its points and dots where a
// point stands alone (between gaps). It returns a thumbnail for the legend
// and whether anything was drawn.
func addLine(p *gplot.Plot, xs, ys []float64, sty draw.LineStyle) (gplot.Thumbnailer, bool) {
	xs, ys = thin(xs, ys)
	thumb := &plotter.Line{LineStyle: sty}
	drawn := false
	for _, seg := range segments(xs, ys) {
		if len(seg) == 1 {
			s, err := plotter.NewScatter(seg)
			if err != nil {
				continue
			}
			s.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
			p.Add(s)
			drawn = true
			continue
		}
		l, err := plotter.NewLine(seg)
		if err != nil {
			continue
		}
		l.LineStyle = sty
		p.Add(l)
		drawn = true
	}
	return thumb, drawn
}
