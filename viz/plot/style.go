package plot

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// sans is the font of every text: Liberation Sans, built into gonum/plot.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a gonum plot with the package's fonts and a grid-less,
// white look.
func newPlot() *gplot.Plot {
	p := gplot.New()
	p.Title.TextStyle.Font = font.From(sans, 11)
	p.Title.Padding = vg.Points(4)
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
		a.Padding = vg.Points(2)
		a.Tick.Marker = niceTicks{}
	}
	p.Legend.TextStyle.Font = font.From(sans, 9)
	return p
}

// palette holds the line colors: the Okabe–Ito colors, distinguishable by
// people with colour-blindness, then more.
var palette = []color.Color{
	rgb(0x0072B2), // blue
	rgb(0xE69F00), // orange
	rgb(0x009E73), // green
	rgb(0xCC79A7), // purple
	rgb(0x56B4E9), // sky blue
	rgb(0xD55E00), // vermillion
	rgb(0x000000), // black
	rgb(0x999933), // olive
	rgb(0x882255), // wine
	rgb(0x44AA99), // teal
}

// dashes vary the lines of series once the colors run out, and tell runs
// apart when several are overlaid.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
}

func rgb(x uint32) color.Color {
	return color.RGBA{R: uint8(x >> 16), G: uint8(x >> 8), B: uint8(x), A: 255}
}

func rgba(x uint32, a uint8) color.Color {
	// premultiplied, as color.RGBA requires
	m := func(c uint8) uint8 { return uint8(uint32(c) * uint32(a) / 255) }
	return color.RGBA{R: m(uint8(x >> 16)), G: m(uint8(x >> 8)), B: m(uint8(x)), A: a}
}

// lineStyle returns the style of series i of a figure (color by i, dashes
// by dash).
func lineStyle(i, dash int) draw.LineStyle {
	return draw.LineStyle{
		Color:  palette[i%len(palette)],
		Width:  vg.Points(1.4),
		Dashes: dashes[(dash+i/len(palette))%len(dashes)],
	}
}

// Colors of the marks of events.
var (
	checkpointFill       = rgba(0x4A90D9, 46)
	checkpointFailedFill = rgba(0xF08C00, 70)
	warmupFill           = rgba(0x000000, 16)
	warmupWash           = rgba(0xFFFFFF, 110) // over a heatmap: paler
	warmupEdge           = rgb(0x333333)
	failureColor         = rgb(0xC0001A)
	recoveryColor        = rgb(0x1B7F3B)
)

// metricNames are the words and units of the metrics of timeseries.csv.
var metricNames = map[string][2]string{
	"in_rate_rps":            {"input rate", "records/s"},
	"out_rate_rps":           {"output rate", "records/s"},
	"queued_records":         {"queued records", "records"},
	"queued_buffers":         {"queued buffers", "buffers"},
	"busy_ms_per_s":          {"busy time", "ms per s"},
	"idle_ms_per_s":          {"idle time", "ms per s"},
	"backpressured_ms_per_s": {"back-pressured time", "ms per s"},
	"latency_p50_ms":         {"latency p50", "ms"},
	"latency_p90_ms":         {"latency p90", "ms"},
	"latency_p99_ms":         {"latency p99", "ms"},
	"latency_max_ms":         {"latency max", "ms"},
	"latency_mean_ms":        {"latency mean", "ms"},
	"source_lag_records":     {"source lag", "records"},
	"dropped_records":        {"dropped records", "records"},
	"busy_ratio":             {"busy", "fraction of time"},
	"busy_ratio_mean":        {"busy, mean over subtasks", "fraction of time"},
	"backpressured_ratio":    {"back-pressured", "fraction of time"},
	"simulated_s":            {"simulated time", "s"},
	"records_emitted":        {"records emitted", "records"},
	"records_delivered":      {"records reached the sinks", "records"},
	"records_dropped":        {"records dropped", "records"},
	"records_in_flight":      {"records in flight", "records"},
	"records_in":             {"records in", "records"},
	"records_out":            {"records out", "records"},
}

// unitSuffixes turn the unit at the end of a column name into words.
var unitSuffixes = []struct{ suffix, unit string }{
	{"_ms_per_s", "ms per s"},
	{"_rps", "records/s"},
	{"_ms", "ms"},
	{"_s", "s"},
	{"_bytes", "bytes"},
	{"_records", "records"},
	{"_ratio", "fraction"},
}

// describeMetric returns the words and the unit of a metric column ("" if
// it has none): "backpressured_ms_per_s" is ("back-pressured time", "ms per
// s"). A dotted sweep column keeps its context: "vertices.out.latency_p99_ms"
// is ("out: latency p99", "ms").
func describeMetric(name string) (words, unit string) {
	field, context := name, ""
	if i := strings.LastIndex(name, "."); i >= 0 {
		field, context = name[i+1:], name[:i]
		context = strings.TrimPrefix(context, "vertices.")
		context = strings.TrimPrefix(context, "totals")
	}
	if wu, ok := metricNames[field]; ok {
		words, unit = wu[0], wu[1]
	} else {
		words = field
		for _, s := range unitSuffixes {
			if strings.HasSuffix(field, s.suffix) && len(field) > len(s.suffix) {
				words, unit = strings.TrimSuffix(field, s.suffix), s.unit
				break
			}
		}
		words = strings.ReplaceAll(words, "_", " ")
	}
	if context != "" {
		words = strings.ReplaceAll(context, ".", " ") + ": " + words
	}
	return words, unit
}

// timeUnit chooses the unit of an axis of milliseconds from the largest
// value on it: ms below 10 s, s below 10 min, min above, so that a latency
// of 20000 ms reads 20 s. It returns the factor that converts
// milliseconds into the unit and the unit; any other unit is kept, with
// the factor 1.
func timeUnit(unit string, hi float64) (float64, string) {
	if unit != "ms" || math.IsNaN(hi) {
		return 1, unit
	}
	switch {
	case hi >= 600e3:
		return 1 / 60e3, "min"
	case hi >= 10e3:
		return 1 / 1e3, "s"
	}
	return 1, unit
}

// scaled returns xs times f (xs itself when f is 1).
func scaled(xs []float64, f float64) []float64 {
	if f == 1 {
		return xs
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}

// axisLabel returns "words (unit)".
func axisLabel(name string) string {
	w, u := describeMetric(name)
	if u == "" {
		return w
	}
	return w + " (" + u + ")"
}

// perSecondMetric reports a metric in milliseconds per second, whose axis
// runs from 0 to 1000.
func perSecondMetric(name string) bool { return strings.HasSuffix(name, "_ms_per_s") }

// niceTicks places about five labelled ticks at round values (steps of 1,
// 2, 2.5 or 5 times a power of ten) and four minor ticks between each.
type niceTicks struct{}

// Ticks implements gplot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return []gplot.Tick{{Value: lo, Label: formatTick(lo, 1)}}
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	minor := step / 5
	var ticks []gplot.Tick
	first := math.Ceil(lo/minor-1e-9) * minor
	for i := 0; ; i++ {
		v := first + float64(i)*minor
		if v > hi+minor*1e-9 || i > 1000 {
			break
		}
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		t := gplot.Tick{Value: v}
		if k := v / step; math.Abs(k-math.Round(k)) < 1e-6 {
			t.Label = formatTick(v, step)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// formatTick writes a tick value with as many decimals as its step needs
// to be stated exactly, and no more: 25000, 0.5, and 2.5 and 7.5 (with
// 0.0, 5.0 and 10.0 beside them) for a step of 2.5, never 2 and 8 for
// 2.5 and 7.5; 1e+06 for large values.
func formatTick(v, step float64) string {
	if v != 0 && (math.Abs(v) >= 1e6 || math.Abs(v) < 1e-4) {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	dec := 0
	if step > 0 {
		for ; dec < 8; dec++ {
			s := step * math.Pow(10, float64(dec))
			if math.Abs(s-math.Round(s)) <= 1e-6*s {
				break
			}
		}
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}
