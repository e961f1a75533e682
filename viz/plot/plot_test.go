package plot

import (
	"bytes"
	"errors"
	"flag"
	"gonum.org/v1/plot/plotter"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite the golden figures in testdata/golden")

// The fixtures in testdata are fixed files, so the figures do not change
// when the simulator does: run-a is the backpressure scenario for 30s with
// checkpoint, failure and recovery events added by hand; run-b the same
// with enrich at parallelism 2, seed 2, and a checkpoints.csv; sweep.csv
// a sweep of mm1 over the arrival rate and the service-time distribution,
// 3 seeds each.

func readTestRun(t *testing.T, name string, f TimeseriesFilter) *Run {
	t.Helper()
	r, err := ReadRun(os.DirFS(filepath.Join("testdata", name)), name, f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readTestSweep(t *testing.T) *Sweep {
	t.Helper()
	f, err := os.Open("testdata/sweep.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadSweep(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// golden compares a figure's SVG with testdata/golden/NAME.svg (or
// rewrites it with -update). SVG is text with coordinates to 5 digits, so
// it is the same on every machine that computes the same floats.
func golden(t *testing.T, name string, fig *Figure) {
	t.Helper()
	var b bytes.Buffer
	if err := fig.WriteTo(&b, SVG); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", name+".svg")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./viz/plot -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		got := strings.Split(b.String(), "\n")
		exp := strings.Split(string(want), "\n")
		for i := range min(len(got), len(exp)) {
			if got[i] != exp[i] {
				t.Fatalf("%s differs from the golden file at line %d:\n got: %.200s\nwant: %.200s\n(if the change is intended, run go test ./viz/plot -update and look at the figures)", name, i+1, got[i], exp[i])
			}
		}
		t.Fatalf("%s differs from the golden file in length: %d lines, want %d", name, len(got), len(exp))
	}
}

func TestGoldenTimeSeries(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{})
	fig, err := TimeSeries([]*Run{a}, TimeSeriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "timeseries", fig)
}

func TestGoldenTimeSeriesOverlay(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{})
	b := readTestRun(t, "run-b", TimeseriesFilter{})
	fig, err := TimeSeries([]*Run{a, b}, TimeSeriesOptions{Metrics: []string{"busy_ms_per_s", "queued_records"}, Vertices: []string{"parse", "enrich"}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "timeseries-overlay", fig)
}

func TestGoldenTimeSeriesSubtasks(t *testing.T) {
	b := readTestRun(t, "run-b", TimeseriesFilter{Subtasks: true})
	fig, err := TimeSeries([]*Run{b}, TimeSeriesOptions{Metrics: []string{"busy_ms_per_s"}, Vertices: []string{"enrich"}, Subtasks: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "timeseries-subtasks", fig)
}

func TestGoldenCDF(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{Metrics: CDFMetrics})
	b := readTestRun(t, "run-b", TimeseriesFilter{Metrics: CDFMetrics})
	fig, err := LatencyCDF([]*Run{a, b}, CDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "cdf", fig)
}

func TestGoldenHeatmap(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{})
	fig, err := Heatmap([]*Run{a}, HeatmapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "heatmap", fig)
}

func TestGoldenHeatmapSubtasks(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{Subtasks: true})
	b := readTestRun(t, "run-b", TimeseriesFilter{Subtasks: true})
	fig, err := Heatmap([]*Run{a, b}, HeatmapOptions{Subtasks: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "heatmap-subtasks", fig)
}

func TestGoldenTradeoff(t *testing.T) {
	s := readTestSweep(t)
	fig, err := Tradeoff(s, TradeoffOptions{X: "sources.arrivals.arrival.rate", Y: []string{"departures.latency_p99_ms", "server.busy_ratio"}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tradeoff", fig)
}

func TestGoldenTradeoffCategories(t *testing.T) {
	s := readTestSweep(t)
	fig, err := Tradeoff(s, TradeoffOptions{X: "distribution", Y: []string{"vertices.server.latency_mean_ms"}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tradeoff-categories", fig)
}

// TestPNG checks the PNG of a figure: its size at 150 dots per inch, that
// drawing it twice gives the same bytes, and that it matches the golden
// image but for a few pixels (anti-aliasing may differ across
// architectures, so pixels are compared with a tolerance).
func TestPNG(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{})
	fig, err := TimeSeries([]*Run{a}, TimeSeriesOptions{Metrics: []string{"backpressured_ms_per_s"}})
	if err != nil {
		t.Fatal(err)
	}
	var b1, b2 bytes.Buffer
	if err := fig.WriteTo(&b1, PNG); err != nil {
		t.Fatal(err)
	}
	if err := fig.WriteTo(&b2, PNG); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Error("drawing the same figure twice gave different PNGs")
	}
	img, err := png.Decode(bytes.NewReader(b1.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	w, h := fig.Size()
	if got := img.Bounds().Dx(); math.Abs(float64(got)-float64(w/vg.Inch)*dpi) > 1 {
		t.Errorf("PNG is %d pixels wide, want %.0f", got, float64(w/vg.Inch)*dpi)
	}
	if got := img.Bounds().Dy(); math.Abs(float64(got)-float64(h/vg.Inch)*dpi) > 1 {
		t.Errorf("PNG is %d pixels high, want %.0f", got, float64(h/vg.Inch)*dpi)
	}
	path := filepath.Join("testdata", "golden", "backpressure.png")
	if *update {
		if err := os.WriteFile(path, b1.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./viz/plot -update to create it)", err)
	}
	want, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if d := differentPixels(img, want); d > 0.002 {
		t.Errorf("%.2f%% of the pixels differ from %s (if intended, run go test ./viz/plot -update)", 100*d, path)
	}
}

// differentPixels returns the fraction of pixels that differ by more than
// a small amount in a channel (1 if the sizes differ).
func differentPixels(a, b image.Image) float64 {
	if a.Bounds() != b.Bounds() {
		return 1
	}
	n, diff := 0, 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			n++
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d := max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2))
			if d > 24<<8 {
				diff++
			}
		}
	}
	return float64(diff) / float64(n)
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestPDF(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{Metrics: CDFMetrics})
	fig, err := LatencyCDF([]*Run{a}, CDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fig.WriteTo(&b, PDF); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) || b.Len() < 1000 {
		t.Errorf("not a PDF: %.40q (%d bytes)", b.String(), b.Len())
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{"a.png": PNG, "b.SVG": SVG, "dir/c.pdf": PDF} {
		if got, err := FormatOf(name); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"a.jpg", "plot", "x.png.gz"} {
		if _, err := FormatOf(name); err == nil || !strings.Contains(err.Error(), ".png, .svg or .pdf") {
			t.Errorf("FormatOf(%q): %v, want an error naming the formats", name, err)
		}
	}
}

func TestUnknownMetricAndVertex(t *testing.T) {
	fsys := os.DirFS("testdata/run-a")
	_, err := ReadRun(fsys, "run-a", TimeseriesFilter{Metrics: []string{"backpresured_ms_per_s"}})
	var ue *UnknownError
	if !errors.As(err, &ue) {
		t.Fatalf("unknown metric: %v, want an *UnknownError", err)
	}
	for _, want := range []string{`unknown metric "backpresured_ms_per_s" in run-a`, "in_rate_rps, out_rate_rps,", "latency_p99_ms", "did you mean backpressured_ms_per_s?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	_, err = ReadRun(fsys, "run-a", TimeseriesFilter{Vertices: []string{"enrch"}})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `unknown vertex "enrch" in run-a; vertices: sensors, parse, enrich, out (did you mean enrich?)`) {
		t.Errorf("unknown vertex: %v", err)
	}
	// the figures check too, for data read without a filter
	a := readTestRun(t, "run-a", TimeseriesFilter{})
	if _, err := TimeSeries([]*Run{a}, TimeSeriesOptions{Metrics: []string{"nope"}}); !errors.As(err, &ue) {
		t.Errorf("TimeSeries with an unknown metric: %v", err)
	}
	if _, err := Heatmap([]*Run{a}, HeatmapOptions{Vertices: []string{"nope"}}); !errors.As(err, &ue) {
		t.Errorf("Heatmap with an unknown vertex: %v", err)
	}
	if _, err := LatencyCDF([]*Run{a}, CDFOptions{Vertices: []string{"nope"}}); !errors.As(err, &ue) {
		t.Errorf("LatencyCDF with an unknown vertex: %v", err)
	}
}

func TestSweepNames(t *testing.T) {
	s := readTestSweep(t)
	for name, want := range map[string]string{
		"vertices.departures.latency_p99_ms": "vertices.departures.latency_p99_ms",
		"departures.latency_p99_ms":          "vertices.departures.latency_p99_ms",
		"records_delivered":                  "totals.records_delivered",
	} {
		if got, err := s.ResolveMetric(name); err != nil || got != want {
			t.Errorf("ResolveMetric(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	_, err := s.ResolveMetric("latency_p99_ms")
	if err == nil || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), "vertices.server.latency_p99_ms") {
		t.Errorf("ambiguous metric: %v", err)
	}
	_, err = s.ResolveMetric("latency")
	if err == nil || !strings.Contains(err.Error(), "vertices.VERTEX.FIELD with VERTEX one of arrivals, server, departures") {
		t.Errorf("unknown metric: %v", err)
	}
	_, err = Tradeoff(s, TradeoffOptions{X: "parallelism", Y: []string{"simulated_s"}})
	if err == nil || !strings.Contains(err.Error(), `unknown parameter "parallelism"; parameters: sources.arrivals.arrival.rate, operators.server.service_time.distribution, duration`) {
		t.Errorf("unknown parameter: %v", err)
	}
	_, err = Tradeoff(s, TradeoffOptions{Y: []string{"simulated_s"}})
	if err == nil || !strings.Contains(err.Error(), "name the x axis with -x") {
		t.Errorf("no -x with several parameters: %v", err)
	}
	_, err = Tradeoff(s, TradeoffOptions{X: "rate", Y: []string{"diagnosis.kind"}})
	var nd *NoDataError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), "diagnosis.kind is not a number") {
		t.Errorf("a text metric: %v", err)
	}
}

// TestNoData feeds figures with data that has nothing to draw: they say
// so, and never panic.
func TestNoData(t *testing.T) {
	header := "time_s,vertex,kind,subtask,in_rate_rps,out_rate_rps,busy_ms_per_s,backpressured_ms_per_s,latency_p50_ms,latency_p90_ms,latency_p99_ms,latency_max_ms\n"
	cases := map[string]string{
		"header only": header,
		"all NaN":     header + "1,a,source,-1,,,,,,,,\n2,a,source,-1,NaN,NaN,NaN,NaN,NaN,NaN,NaN,NaN\n",
		"text cells":  header + "1,a,sink,-1,x,y,z,w,v,u,t,s\n",
	}
	for name, ts := range cases {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{"timeseries.csv": {Data: []byte(ts)}}
			run, err := ReadRun(fsys, "r", TimeseriesFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var nd *NoDataError
			for kind, draw := range map[string]func() (*Figure, error){
				"timeseries": func() (*Figure, error) { return TimeSeries([]*Run{run}, TimeSeriesOptions{}) },
				"cdf":        func() (*Figure, error) { return LatencyCDF([]*Run{run}, CDFOptions{}) },
				"heatmap":    func() (*Figure, error) { return Heatmap([]*Run{run}, HeatmapOptions{}) },
			} {
				_, err := draw()
				if !errors.As(err, &nd) {
					t.Errorf("%s: %v, want a *NoDataError", kind, err)
				}
				if kind == "cdf" && name == "text cells" && err.Error() != "no data to plot: no latency values for a after the warmup (no record left the vertex)" {
					t.Errorf("cdf: %q", err)
				}
				if kind == "timeseries" && name == "all NaN" && !strings.HasSuffix(err.Error(), "(an empty or all-NaN column: latency is measured where records leave an operator or reach a sink, so a source has none, nor a vertex no record left)") {
					t.Errorf("timeseries of a source's latency: %q", err)
				}
			}
		})
	}
	fsys := fstest.MapFS{"timeseries.csv": {Data: []byte("")}}
	if _, err := ReadRun(fsys, "r", TimeseriesFilter{}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty file: %v", err)
	}
	if _, err := ReadRun(fstest.MapFS{}, "r", TimeseriesFilter{}); err == nil || !strings.Contains(err.Error(), "r has no timeseries.csv") {
		t.Errorf("no file: %v", err)
	}
	if _, err := ReadSweep(strings.NewReader("run,seed\n")); err != nil {
		t.Fatal(err)
	} else if _, err := Tradeoff(&Sweep{Header: []string{"run", "seed"}}, TradeoffOptions{}); err == nil {
		t.Error("a sweep without parameters drew a figure")
	}
}

// TestOddData draws degenerate but valid data: one interval, constant
// values, gaps, a single point between gaps, infinities. Each gives a
// figure in every format.
func TestOddData(t *testing.T) {
	header := "time_s,vertex,kind,subtask,in_rate_rps,out_rate_rps,busy_ms_per_s,backpressured_ms_per_s,latency_p50_ms,latency_p90_ms,latency_p99_ms,latency_max_ms\n"
	cases := map[string]string{
		"one row":  header + "1,a,sink,-1,5,5,0,0,3,3,3,3\n",
		"constant": header + "1,a,sink,-1,5,5,0,0,3,3,3,3\n2,a,sink,-1,5,5,0,0,3,3,3,3\n",
		"gaps":     header + "1,a,sink,-1,5,5,0,0,,,,\n2,a,sink,-1,5,5,0,0,4,5,6,7\n3,a,sink,-1,5,5,0,0,,,,\n4,a,sink,-1,5,5,+Inf,0,1,2,3,4\n5,a,sink,-1,0,0,1e308,0,1,2,3,4\n",
		"zero":     header + "0,a,sink,-1,0,0,0,0,0,0,0,0\n",
	}
	for name, ts := range cases {
		t.Run(name, func(t *testing.T) {
			run, err := ReadRun(fstest.MapFS{"timeseries.csv": {Data: []byte(ts)}}, "r", TimeseriesFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for kind, draw := range map[string]func() (*Figure, error){
				"timeseries": func() (*Figure, error) { return TimeSeries([]*Run{run}, TimeSeriesOptions{}) },
				"cdf":        func() (*Figure, error) { return LatencyCDF([]*Run{run}, CDFOptions{}) },
				"heatmap":    func() (*Figure, error) { return Heatmap([]*Run{run}, HeatmapOptions{}) },
			} {
				fig, err := draw()
				if err != nil {
					var nd *NoDataError
					if !errors.As(err, &nd) {
						t.Errorf("%s: %v", kind, err)
					}
					continue
				}
				for _, f := range []Format{PNG, SVG, PDF} {
					if err := fig.WriteTo(&bytes.Buffer{}, f); err != nil {
						t.Errorf("%s as %s: %v", kind, f, err)
					}
				}
			}
		})
	}
}

// TestPartlyEmptyPanel: a metric without values in one panel gives a note
// in that panel, not an error, when others have data.
func TestPartlyEmptyPanel(t *testing.T) {
	a := readTestRun(t, "run-a", TimeseriesFilter{})
	fig, err := TimeSeries([]*Run{a}, TimeSeriesOptions{Metrics: []string{"in_rate_rps", "latency_p99_ms"}, Vertices: []string{"sensors"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fig.WriteTo(&b, SVG); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no values of latency_p99_ms for sensors") {
		t.Error("the empty panel has no note")
	}
	_, err = TimeSeries([]*Run{a}, TimeSeriesOptions{Metrics: []string{"latency_p99_ms"}, Vertices: []string{"sensors"}})
	var nd *NoDataError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), "latency_p99_ms has no values for sensors") {
		t.Errorf("only empty panels: %v", err)
	}
}

func TestCheckpointsFromEvents(t *testing.T) {
	evs, err := ReadEvents(strings.NewReader(`{"time_s":1,"type":"checkpoint_triggered","checkpoint_id":1}
{"time_s":2,"type":"checkpoint_triggered","checkpoint_id":2}
{"time_s":2.5,"type":"checkpoint_completed","checkpoint_id":2}
{"time_s":3,"type":"checkpoint_timed_out","checkpoint_id":1}

{"time_s":4,"type":"checkpoint_triggered"}
{"time_s":4.5,"type":"checkpoint_triggered"}
{"time_s":5,"type":"checkpoint_completed"}
{"time_s":6,"type":"checkpoint_declined"}
{"time_s":7,"type":"checkpoint_triggered","checkpoint_id":"x"}
{"time_s":8,"type":"task_failure","message":"boom"}
{"time_s":9,"type":"recovery_completed"}
{"time_s":9.5,"type":"checkpoint_failed","checkpoint_id":9}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := CheckpointsFromEvents(evs, 10)
	want := []Checkpoint{
		{ID: "1", Start: 1, End: 3, Status: "failed"},
		{ID: "2", Start: 2, End: 2.5, Status: "completed"},
		{Start: 4, End: 5, Status: "completed"},
		{Start: 4.5, End: 6, Status: "failed"},
		{ID: "x", Start: 7, End: 10, Status: "in progress"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d checkpoints %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("checkpoint %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	ms := MarkersFromEvents(evs)
	if len(ms) != 2 || ms[0] != (Marker{8, MarkerFailure, "task_failure"}) || ms[1] != (Marker{9, MarkerRecovery, "recovery_completed"}) {
		t.Errorf("markers %+v", ms)
	}
	if _, err := ReadEvents(strings.NewReader("{\"time_s\":1,\"type\":\"x\"}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad line: %v", err)
	}
}

func TestReadCheckpoints(t *testing.T) {
	for name, c := range map[string]struct {
		csv  string
		want []Checkpoint
	}{
		"duration in ms": {"id,trigger_time_s,status,end_to_end_duration_ms\n1,6,completed,800\n2,12,failed,2500\n",
			[]Checkpoint{{"1", 6, 6.8, "completed"}, {"2", 12, 14.5, "failed"}}},
		"end time": {"checkpoint_id,triggered_s,completed_s,status\n7,1,2,COMPLETED\n8,3,,FAILED\n",
			[]Checkpoint{{"7", 1, 2, "COMPLETED"}}},
		"trigger in ms": {"id,trigger_ms,duration_s\n1,1500,0.5\n",
			[]Checkpoint{{"1", 1.5, 2, ""}}},
	} {
		got, err := ReadCheckpoints(strings.NewReader(c.csv))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: got %+v, want %+v", name, got, c.want)
			continue
		}
		for i := range got {
			if got[i].ID != c.want[i].ID || math.Abs(got[i].Start-c.want[i].Start) > 1e-9 || math.Abs(got[i].End-c.want[i].End) > 1e-9 || got[i].Status != c.want[i].Status {
				t.Errorf("%s: checkpoint %d = %+v, want %+v", name, i, got[i], c.want[i])
			}
		}
	}
	if _, err := ReadCheckpoints(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("a CSV without time columns was read")
	}
}

func TestNiceTicks(t *testing.T) {
	var labels []string
	for _, tk := range (niceTicks{}).Ticks(0, 1000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0 200 400 600 800 1000" {
		t.Errorf("ticks of 0..1000: %s", got)
	}
	labels = nil
	for _, tk := range (niceTicks{}).Ticks(0, 1.02) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0.00 0.25 0.50 0.75 1.00" {
		t.Errorf("ticks of 0..1.02: %s", got)
	}
	// a step of 2.5 on an axis of seconds (exactly-once's p99 and CDF, 0
	// to 10.1 s): the labels state 2.5 and 7.5, not 2 and 8
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 10.1, "0.0 2.5 5.0 7.5 10.0"},
		{0, 12.5, "0.0 2.5 5.0 7.5 10.0 12.5"},
		{0, 9, "0 2 4 6 8"},
		{0, 110, "0 25 50 75 100"},
		{0, 0.11, "0.000 0.025 0.050 0.075 0.100"},
	} {
		labels = nil
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
				if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(tk.Value)) {
					t.Errorf("ticks of %v..%v: label %q at %v", c.lo, c.hi, tk.Label, tk.Value)
				}
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("ticks of %v..%v: %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
	if tk := (niceTicks{}).Ticks(5, 5); len(tk) != 1 {
		t.Errorf("ticks of an empty range: %v", tk)
	}
}

func TestDescribeMetric(t *testing.T) {
	for name, want := range map[string]string{
		"backpressured_ms_per_s":      "back-pressured time (ms per s)",
		"vertices.out.latency_p99_ms": "out: latency p99 (ms)",
		"totals.records_delivered":    "records reached the sinks (records)",
		"checkpoints.mean_duration_s": "checkpoints: mean duration (s)",
		"state_bytes":                 "state (bytes)",
		"diagnosis.kind":              "diagnosis: kind",
	} {
		if got := axisLabel(name); got != want {
			t.Errorf("axisLabel(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestThin keeps the peaks of a long series.
func TestThin(t *testing.T) {
	n := 100000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	ys[54321] = 7
	tx, ty := thin(xs, ys)
	if len(tx) > maxPoints+2 || len(tx) != len(ty) {
		t.Fatalf("thinned to %d points", len(tx))
	}
	found := false
	for i := range tx {
		if tx[i] == 54321 && ty[i] == 7 {
			found = true
		}
	}
	if !found {
		t.Error("the peak was lost")
	}
}

// With one line, the legend's band is drawn in the band's own colour (it
// was grey against a blue band).
func TestTradeoffBandLegendColour(t *testing.T) {
	csv := "run,rate,seed,duration_s,totals.records_delivered\n0,10/s,1,10,90\n1,10/s,2,10,110\n2,20/s,1,10,180\n3,20/s,2,10,220\n"
	s, err := ReadSweep(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	fig, err := Tradeoff(s, TradeoffOptions{X: "rate", Y: []string{"totals.records_delivered"}})
	if err != nil {
		t.Fatal(err)
	}
	// the band of the first (only) line: its colour, as bandPolygon fills it
	band := bandPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}}, plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 1}}, lineStyle(0, 0).Color)
	for _, e := range fig.legend {
		if e.name != "min to max over the seeds" {
			continue
		}
		sp, ok := e.thumbs[0].(*spans)
		if band == nil || !ok || sp.Fill != band.Color {
			t.Errorf("band legend %#v, band %v: want the band's colour", e.thumbs[0], band)
		}
		return
	}
	t.Errorf("no band in the legend: %v", fig.legend)
}
