package plot

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Sweep is a sweep.csv: a row per run with the columns "run", the
// parameters (named by their paths), "seed", then the metrics.
type Sweep struct {
	Params  []string
	Metrics []string
	Header  []string
	Rows    [][]string
	// What the sweep asked for, from its sweep.json (0 when unknown):
	// the runs (of its shard) and the seeds per combination; Interrupted
	// when it stopped before all its runs.
	AskedRuns, AskedSeeds int
	Interrupted           bool
}

// partialRows counts the rows whose partial column is "true": runs
// stopped early by a limit.
func (s *Sweep) partialRows() int {
	c := slices.Index(s.Header, runfiles.SweepPartialColumn)
	n := 0
	for _, r := range s.Rows {
		if c >= 0 && c < len(r) && r[c] == "true" {
			n++
		}
	}
	return n
}

// title is the default title of a trade-off figure: the runs, the seeds
// per point (present, and asked when fewer), and whether the sweep is
// partial (interrupted, or with runs stopped early).
func (s *Sweep) title(xcol string) string {
	runs := count(len(s.Rows), "run")
	if s.AskedRuns > len(s.Rows) {
		runs = fmt.Sprintf("%d of %s", len(s.Rows), count(s.AskedRuns, "run"))
	}
	// the seeds of each combination of the parameters
	seedCol := len(s.Params) + 1
	perPoint := map[string]map[string]bool{}
	for _, r := range s.Rows {
		k := strings.Join(r[1:seedCol], "\x00")
		if perPoint[k] == nil {
			perPoint[k] = map[string]bool{}
		}
		perPoint[k][r[seedCol]] = true
	}
	lo, hi := -1, 0
	for _, seeds := range perPoint {
		if lo < 0 || len(seeds) < lo {
			lo = len(seeds)
		}
		hi = max(hi, len(seeds))
	}
	lo = max(lo, 0)
	seeds := count(hi, "seed") + " per point"
	switch {
	case lo != hi && s.AskedSeeds > 0:
		seeds = fmt.Sprintf("%d to %d of %d seeds per point", lo, hi, s.AskedSeeds)
	case lo != hi:
		seeds = fmt.Sprintf("%d to %d seeds per point", lo, hi)
	case s.AskedSeeds > hi:
		seeds = fmt.Sprintf("%d of %d seeds per point", hi, s.AskedSeeds)
	}
	t := fmt.Sprintf("Sweep of %s: %s, %s", xcol, runs, seeds)
	var why []string
	if s.Interrupted {
		why = append(why, "interrupted")
	}
	if n := s.partialRows(); n > 0 {
		why = append(why, count(n, "run")+" stopped early")
	}
	if len(why) > 0 {
		t += " (partial sweep: " + strings.Join(why, ", ") + ")"
	}
	return t
}

// count returns "1 run", "2 runs".
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// ReadSweep reads a sweep.csv. It returns an error for a CSV without the
// run and seed columns.
func ReadSweep(r io.Reader) (*Sweep, error) {
	var rows [][]string
	h, err := runfiles.ReadTable(r, runfiles.SweepFile, func(_, rec []string, _ int) error {
		rows = append(rows, slices.Clone(rec))
		return nil
	})
	if errors.Is(err, runfiles.ErrEmpty) {
		return nil, &NoDataError{Msg: runfiles.SweepFile + " is empty"}
	}
	if err != nil {
		return nil, err
	}
	seed := slices.Index(h, runfiles.SweepSeedColumn)
	if len(h) == 0 || h[0] != runfiles.SweepRunColumn || seed < 0 {
		return nil, fmt.Errorf("%s has no run and seed columns: is it the output of dspalab sweep?", runfiles.SweepFile)
	}
	return &Sweep{Params: h[1:seed], Metrics: h[seed+1:], Header: h, Rows: rows}, nil
}

// ResolveMetric returns the metric column a name means: the column of that
// name, else the only column ending in "."+name (so "out.latency_p99_ms"
// means "vertices.out.latency_p99_ms"). It returns an *UnknownError that
// lists the metrics, or the columns a short name could mean.
func (s *Sweep) ResolveMetric(name string) (string, error) {
	return resolve(name, s.Metrics, "metric", compactMetrics(s.Metrics))
}

// ResolveParam returns the parameter column a name means, as
// ResolveMetric does.
func (s *Sweep) ResolveParam(name string) (string, error) {
	return resolve(name, s.Params, "parameter", s.Params)
}

func resolve(name string, cols []string, what string, valid []string) (string, error) {
	if slices.Contains(cols, name) {
		return name, nil
	}
	var matches []string
	for _, c := range cols {
		if strings.HasSuffix(c, "."+name) {
			matches = append(matches, c)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", &UnknownError{What: what, Name: name, Valid: valid, Names: cols}
	}
	return "", &UnknownError{What: what, Name: name, Valid: matches, Ambiguous: true, Note: "it ends several names: give one of these in full"}
}

// compactMetrics lists metric columns for a message, with the per-vertex
// columns folded into one pattern.
func compactMetrics(cols []string) []string {
	var out, vertices, fields []string
	for _, c := range cols {
		rest, ok := strings.CutPrefix(c, "vertices.")
		if !ok {
			out = append(out, c)
			continue
		}
		i := strings.LastIndex(rest, ".")
		if i < 0 {
			out = append(out, c)
			continue
		}
		if v := rest[:i]; !slices.Contains(vertices, v) {
			vertices = append(vertices, v)
		}
		if f := rest[i+1:]; !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}
	if len(vertices) > 0 {
		out = append(out, fmt.Sprintf("vertices.VERTEX.FIELD with VERTEX one of %s and FIELD one of %s",
			strings.Join(vertices, ", "), strings.Join(fields, ", ")))
	}
	return out
}

// TradeoffOptions choose what Tradeoff draws.
type TradeoffOptions struct {
	// X is the parameter on the horizontal axis; it may be left empty
	// when the sweep has one parameter.
	X string
	// Y are metrics, a panel each.
	Y []string
	// Title replaces the default title.
	Title string
}

// Tradeoff draws metrics of a sweep against one of its parameters: for
// each combination of the other parameters a line through the mean over
// the seeds, with a band from the minimum to the maximum. Parameter values
// with units (50/s, 250ms, 32KiB, 1Gbit/s) are placed by their value, in
// records/s, seconds, bytes or bytes/s; values that are not numbers are
// spread evenly in the order of the sweep. It returns an *UnknownError
// for a parameter or metric the sweep lacks, and a *NoDataError when a
// metric has no numbers.
func Tradeoff(s *Sweep, o TradeoffOptions) (*Figure, error) {
	if len(s.Params) == 0 {
		return nil, errors.New("the sweep has no parameters (it ran with no --set): there is nothing to put on the x axis")
	}
	xname := o.X
	if xname == "" {
		if len(s.Params) > 1 {
			return nil, &UnknownError{What: "parameter", Name: "", Valid: s.Params, Note: "name the x axis with -x"}
		}
		xname = s.Params[0]
	}
	xcol, err := s.ResolveParam(xname)
	if err != nil {
		return nil, err
	}
	if len(o.Y) == 0 {
		return nil, &UnknownError{What: "metric", Name: "", Valid: compactMetrics(s.Metrics), Note: "name one with -y"}
	}
	var ycols []string
	for _, y := range o.Y {
		c, err := s.ResolveMetric(y)
		if err != nil {
			return nil, err
		}
		ycols = append(ycols, c)
	}
	if len(s.Rows) == 0 {
		return nil, &NoDataError{Msg: runfiles.SweepFile + " has no runs"}
	}
	col := func(name string) int { return slices.Index(s.Header, name) }
	xi := col(xcol)
	xs, unit, categories := placeValues(s.Rows, xi)
	var others []int // the other parameters that take several values
	for _, p := range s.Params {
		if p != xcol && distinct(s.Rows, col(p)) > 1 {
			others = append(others, col(p))
		}
	}
	groupOf := func(row []string) string {
		parts := make([]string, len(others))
		for i, c := range others {
			parts[i] = shortName(s.Header[c], s.Params) + "=" + row[c]
		}
		return strings.Join(parts, ", ")
	}
	var groups []string
	for _, row := range s.Rows {
		if g := groupOf(row); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	seeds := map[string]bool{}
	for _, row := range s.Rows {
		seeds[row[len(s.Params)+1]] = true
	}
	fig := newFigure(o.Title)
	if fig.Title == "" {
		fig.Title = s.title(xcol)
	}
	ticks := valueTicks(s.Rows, xi, xs)
	asWritten := categories == nil && unit != "" && len(ticks) <= 12
	// categories: points side by side, no lines between them
	dodge := func(gi int) float64 {
		if categories == nil || len(groups) < 2 {
			return 0
		}
		w := min(0.5, 0.16*float64(len(groups)))
		return -w/2 + w*float64(gi)/float64(len(groups)-1)
	}
	for pi, ycol := range ycols {
		yi := col(ycol)
		p := newPlot()
		words, u := describeMetric(ycol)
		top := math.Inf(-1)
		for _, row := range s.Rows {
			if v := parseNum(row[yi]); !math.IsNaN(v) && !math.IsInf(v, 0) {
				top = max(top, v)
			}
		}
		factor, u := timeUnit(u, top) // 20 s, not 20000 ms
		p.Title.Text = words
		p.Y.Label.Text = u
		if pi == len(ycols)-1 {
			p.X.Label.Text = xcol
			if unit != "" && !asWritten {
				p.X.Label.Text += " (" + unit + ")"
			}
		}
		ymin, ymax := math.Inf(1), math.Inf(-1)
		drawn := false
		var notNumber string
		var bandThumb gplot.Thumbnailer
		for gi, g := range groups {
			byX := map[float64][]float64{}
			for ri, row := range s.Rows {
				if groupOf(row) != g || math.IsNaN(xs[ri]) {
					continue
				}
				v := parseNum(row[yi]) * factor
				if math.IsNaN(v) {
					if row[yi] != "" && notNumber == "" {
						notNumber = row[yi]
					}
					continue
				}
				byX[xs[ri]] = append(byX[xs[ri]], v)
			}
			var keys []float64
			for x := range byX {
				keys = append(keys, x)
			}
			sort.Float64s(keys)
			var mean, lo, hi plotter.XYs
			for _, x := range keys {
				vs := byX[x]
				sum, mn, mx := 0.0, math.Inf(1), math.Inf(-1)
				for _, v := range vs {
					sum += v
					mn, mx = min(mn, v), max(mx, v)
				}
				px := x + dodge(gi)
				mean = append(mean, plotter.XY{X: px, Y: sum / float64(len(vs))})
				lo = append(lo, plotter.XY{X: px, Y: mn})
				hi = append(hi, plotter.XY{X: px, Y: mx})
				ymin, ymax = min(ymin, mn), max(ymax, mx)
			}
			if len(mean) == 0 {
				continue
			}
			drawn = true
			sty := lineStyle(gi, 0)
			var band gplot.Plotter
			if categories != nil {
				if bars := rangeBars(mean, lo, hi, sty.Color); bars != nil {
					band = bars
				}
			} else if pg := bandPolygon(lo, hi, sty.Color); pg != nil {
				band = pg
			}
			if band != nil {
				p.Add(band)
			}
			l, pts, err := plotter.NewLinePoints(mean)
			if err != nil {
				continue
			}
			l.LineStyle = sty
			pts.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(2.4), Shape: draw.CircleGlyph{}}
			var thumbs []gplot.Thumbnailer
			if categories != nil {
				pts.GlyphStyle.Radius = vg.Points(3)
				p.Add(pts)
				thumbs = []gplot.Thumbnailer{pts}
			} else {
				p.Add(l, pts)
				thumbs = []gplot.Thumbnailer{l, pts}
			}
			if pi == 0 {
				name := g
				if name == "" {
					name = "mean"
					if len(seeds) > 1 {
						name = fmt.Sprintf("mean over %d seeds", len(seeds))
					}
				}
				fig.AddLegend(name, thumbs...)
				if band != nil && bandThumb == nil {
					switch b := band.(type) {
					case *plotter.YErrorBars:
						bandThumb = barThumb{b.LineStyle}
					case *plotter.Polygon:
						if len(groups) == 1 {
							bandThumb = &spans{Fill: b.Color} // the band's own colour
							break
						}
						bandThumb = &spans{Fill: rgba(0x808080, 70)} // each group's band in its colour
					}
				}
			}
		}
		if bandThumb != nil {
			fig.AddLegend("min to max over the seeds", bandThumb)
		}
		if !drawn {
			if notNumber != "" {
				return nil, &NoDataError{Msg: fmt.Sprintf("%s is not a number (values such as %q); choose a numeric metric", ycol, notNumber)}
			}
			return nil, &NoDataError{Msg: fmt.Sprintf("%s has no values in %s", ycol, runfiles.SweepFile)}
		}
		setYRange(p, ymin, ymax)
		if strings.HasSuffix(ycol, "_ratio") {
			p.Y.Min, p.Y.Max = 0, 1.02
		}
		xmin, xmax := math.Inf(1), math.Inf(-1)
		for _, x := range xs {
			if !math.IsNaN(x) {
				xmin, xmax = min(xmin, x), max(xmax, x)
			}
		}
		pad := (xmax - xmin) * 0.04
		if pad == 0 {
			pad = 0.5
		}
		p.X.Min, p.X.Max = xmin-pad, xmax+pad
		switch {
		case categories != nil:
			p.NominalX(categories...)
			p.X.Min, p.X.Max = -0.5, float64(len(categories))-0.5
		case len(ticks) <= 12:
			// the swept values, as written, where their labels fit
			p.X.Tick.Marker = gplot.ConstantTicks(spaceTicks(ticks, p.X.Min, p.X.Max, axisWidth(fig)))
		}
		fig.Panels = append(fig.Panels, p)
	}
	return fig, nil
}

// shortName returns the last part of a parameter's path when no other
// parameter's ends the same ("distribution" for
// operators.server.service_time.distribution), else the whole path.
func shortName(path string, params []string) string {
	last := func(p string) string { return p[strings.LastIndex(p, ".")+1:] }
	for _, p := range params {
		if p != path && last(p) == last(path) {
			return path
		}
	}
	return last(path)
}

// distinct counts the values of column c.
func distinct(rows [][]string, c int) int {
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r[c]] = true
	}
	return len(seen)
}

// valueTicks returns a tick at each distinct value of column c, labelled
// as written in the sweep.
func valueTicks(rows [][]string, c int, xs []float64) []gplot.Tick {
	var ticks []gplot.Tick
	seen := map[float64]bool{}
	for i, row := range rows {
		if math.IsNaN(xs[i]) || seen[xs[i]] {
			continue
		}
		seen[xs[i]] = true
		ticks = append(ticks, gplot.Tick{Value: xs[i], Label: row[c]})
	}
	slices.SortFunc(ticks, func(a, b gplot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	return ticks
}

// axisWidth estimates the width of a figure's x axis: the figure less
// the legend column and the y axis.
func axisWidth(f *Figure) vg.Length {
	return f.Width * 0.55
}

// spaceTicks blanks the labels of ticks that would overlap the label of
// a tick kept before them (from the left), on an axis of width w
// showing [lo, hi]: the values stay marked, the labels readable.
func spaceTicks(ticks []gplot.Tick, lo, hi float64, w vg.Length) []gplot.Tick {
	sty := text.Style{Font: font.From(sans, 9), Handler: gplot.DefaultTextHandler}
	gap := vg.Points(6)
	out := make([]gplot.Tick, len(ticks))
	right := vg.Length(math.Inf(-1))
	for i, t := range ticks {
		out[i] = t
		if hi <= lo {
			continue
		}
		x := w * vg.Length((t.Value-lo)/(hi-lo))
		half := sty.Width(t.Label) / 2
		if x-half < right+gap {
			out[i].Label = ""
			continue
		}
		right = x + half
	}
	return out
}

// rangeBars returns vertical bars from lo to hi at each mean's x (nil
// when they are the same everywhere, as with one seed).
func rangeBars(mean, lo, hi plotter.XYs, c color.Color) *plotter.YErrorBars {
	same := true
	errs := make(plotter.YErrors, len(mean))
	for i := range mean {
		if lo[i].Y != hi[i].Y {
			same = false
		}
		errs[i] = struct{ Low, High float64 }{mean[i].Y - lo[i].Y, hi[i].Y - mean[i].Y}
	}
	if same {
		return nil
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{mean, errs})
	if err != nil {
		return nil
	}
	bars.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.2)}
	bars.CapWidth = vg.Points(6)
	return bars
}

// barThumb is the legend's thumbnail of range bars.
type barThumb struct{ style draw.LineStyle }

// Thumbnail implements gplot.Thumbnailer.
func (b barThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	w := vg.Points(3)
	c.StrokeLine2(b.style, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(b.style, x-w, c.Min.Y, x+w, c.Min.Y)
	c.StrokeLine2(b.style, x-w, c.Max.Y, x+w, c.Max.Y)
}

// bandPolygon returns the band between lo and hi (nil when they are the
// same everywhere, as with one seed).
func bandPolygon(lo, hi plotter.XYs, c color.Color) *plotter.Polygon {
	same := true
	for i := range lo {
		if lo[i].Y != hi[i].Y {
			same = false
		}
	}
	if same {
		return nil
	}
	ring := append(plotter.XYs{}, lo...)
	for i := len(hi) - 1; i >= 0; i-- {
		ring = append(ring, hi[i])
	}
	pg, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil
	}
	r, g, b, _ := c.RGBA()
	pg.Color = rgba(uint32(r>>8)<<16|uint32(g>>8)<<8|uint32(b>>8), 56)
	pg.LineStyle.Width = 0
	return pg
}

// placeValues returns the x position of every row's value in column c:
// numbers as they are, or all values read with one of the scenario
// format's units (with the unit's name), else the values' order of first
// appearance (with the values, as categories).
func placeValues(rows [][]string, c int) (xs []float64, unit string, categories []string) {
	parsers := []struct {
		unit  string
		parse func(string) (float64, error)
	}{
		{"", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }},
		{"s", func(s string) (float64, error) { d, err := scenario.ParseDuration(s); return d.Seconds(), err }},
		{"records/s", scenario.ParseRate},
		{"bytes", func(s string) (float64, error) { n, err := scenario.ParseByteSize(s); return float64(n), err }},
		{"bytes/s", scenario.ParseBandwidth},
	}
	for _, p := range parsers {
		xs = make([]float64, len(rows))
		ok := true
		for i, row := range rows {
			v, err := p.parse(row[c])
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				ok = false
				break
			}
			xs[i] = v
		}
		if ok {
			return xs, p.unit, nil
		}
	}
	xs = make([]float64, len(rows))
	for i, row := range rows {
		k := slices.Index(categories, row[c])
		if k < 0 {
			categories = append(categories, row[c])
			k = len(categories) - 1
		}
		xs[i] = float64(k)
	}
	return xs, "", categories
}
