package grading

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dspalab/dspalab/internal/plural"
)

// sans is Liberation Sans, built into gonum/plot (as in viz/plot).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Histogram draws the scores of results as a PNG bar chart (6 x 3.5
// inches at 96 dpi): one bar per whole score from 0 to the maximum when
// the maximum is at most 20 whole points, else ten bars of a tenth of
// the maximum each. The title names the exercise and the submissions.
func Histogram(exercise string, results []*Result) (png []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			png, err = nil, fmt.Errorf("grading: drawing the histogram: %v", r)
		}
	}()
	maxScore := 0.0
	for _, r := range results {
		maxScore = math.Max(maxScore, r.Max)
	}
	var labels []string
	var counts plotter.Values
	if maxScore <= 20 && maxScore == math.Trunc(maxScore) {
		counts = make(plotter.Values, int(maxScore)+1)
		for i := range counts {
			labels = append(labels, fmt.Sprint(i))
		}
		for _, r := range results {
			counts[min(int(math.Floor(r.Score+1e-9)), len(counts)-1)]++
		}
	} else {
		counts = make(plotter.Values, 10)
		w := maxScore / 10
		for i := range counts {
			labels = append(labels, points(float64(i)*w)+"-")
		}
		for _, r := range results {
			k := 0
			if w > 0 {
				k = int(math.Floor(r.Score/w + 1e-9))
			}
			counts[min(max(k, 0), len(counts)-1)]++
		}
	}
	p := gplot.New()
	p.Title.Text = fmt.Sprintf("%s: scores of %s", exercise, plural.Count(len(results), "submission"))
	p.Title.TextStyle.Font = font.From(sans, 11)
	p.X.Label.Text = "score (points)"
	p.Y.Label.Text = "submissions"
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
	}
	p.Y.Min = 0
	top := 1.0
	for _, c := range counts {
		top = math.Max(top, c)
	}
	p.Y.Max = top
	p.Y.Tick.Marker = countTicks{}
	bars, err := plotter.NewBarChart(counts, vg.Points(math.Max(4, 300/float64(len(counts)))))
	if err != nil {
		return nil, fmt.Errorf("grading: drawing the histogram: %w", err)
	}
	bars.Color = color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xff}
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalX(labels...)
	wt, err := p.WriterTo(6*vg.Inch, 3.5*vg.Inch, "png")
	if err != nil {
		return nil, fmt.Errorf("grading: drawing the histogram: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("grading: drawing the histogram: %w", err)
	}
	return buf.Bytes(), nil
}

// countTicks puts ticks at whole counts only.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []gplot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/5))
	var ts []gplot.Tick
	for v := math.Ceil(lo); v <= hi+1e-9; v += step {
		ts = append(ts, gplot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return ts
}
