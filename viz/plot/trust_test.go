package plot

import (
	"strings"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
)

// TestTimeUnit checks that an axis of milliseconds takes its unit from
// its range: ms below 10 s, s below 10 min, min above; other units stay.
func TestTimeUnit(t *testing.T) {
	for _, tc := range []struct {
		unit string
		hi   float64
		f    float64
		want string
	}{
		{"ms", 9999, 1, "ms"}, {"ms", 20000, 1e-3, "s"}, {"ms", 599e3, 1e-3, "s"},
		{"ms", 600e3, 1 / 60e3, "min"}, {"ms per s", 1000, 1, "ms per s"}, {"records/s", 1e6, 1, "records/s"},
	} {
		if f, u := timeUnit(tc.unit, tc.hi); f != tc.f || u != tc.want {
			t.Errorf("timeUnit(%q, %v) = %v, %q; want %v, %q", tc.unit, tc.hi, f, u, tc.f, tc.want)
		}
	}
}

// TestLatencyAxisInSeconds checks that the back-pressure example, whose
// p99 reaches 28 s, draws its latency panel and its CDF in s, with the
// values converted (28, not 28000).
func TestLatencyAxisInSeconds(t *testing.T) {
	data, err := scenarios.Get("backpressure")
	if err != nil {
		t.Fatal(err)
	}
	run, _ := simRunFiltered(t, string(data), TimeseriesFilter{Metrics: CDFMetrics})
	fig, err := TimeSeries([]*Run{run}, TimeSeriesOptions{Metrics: []string{"latency_p99_ms"}, Vertices: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	p := fig.Panels[0]
	if p.Y.Label.Text != "s" || p.Y.Max < 14 || p.Y.Max > 20 {
		t.Errorf("latency p99 axis: %q up to %v, want s up to about 17", p.Y.Label.Text, p.Y.Max)
	}
	cdf, err := LatencyCDF([]*Run{run}, CDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := cdf.Panels[0].X
	if !strings.HasPrefix(x.Label.Text, "latency (s") || x.Max < 14 || x.Max > 20 {
		t.Errorf("CDF axis: %q up to %v, want s up to about 16", x.Label.Text, x.Max)
	}
	caption := strings.Join(cdf.Caption, " ")
	if strings.Contains(caption, "exact p50") || !strings.Contains(caption, "from a streaming sketch, within 1% of the exact values") {
		t.Errorf("the CDF caption calls the sketch's percentiles exact: %s", caption)
	}
}

// TestUnknownMetricSuggestsByWords checks the did-you-mean of a metric
// typed short or misspelt: "latncy" names the latency columns.
func TestUnknownMetricSuggestsByWords(t *testing.T) {
	valid := []string{"in_rate_rps", "busy_ms_per_s", "latency_p50_ms", "latency_p99_ms", "latency_max_ms"}
	for typed, want := range map[string]string{
		"latncy":      "(did you mean one of latency_p50_ms, latency_p99_ms, latency_max_ms?)",
		"latency_p99": "(did you mean latency_p99_ms?)",
		"bsy":         "(did you mean busy_ms_per_s?)",
	} {
		msg := (&UnknownError{What: "metric", Name: typed, Valid: valid}).Error()
		if !strings.HasSuffix(msg, want) {
			t.Errorf("-m %s: %s\nwant it to end in %s", typed, msg, want)
		}
	}
	if msg := (&UnknownError{What: "metric", Name: "zzzzzz", Valid: valid}).Error(); strings.Contains(msg, "did you mean") {
		t.Errorf("nothing near: %s", msg)
	}
}

// TestHeatmapOfSkewSaysWhere checks that the back-pressure heatmap of a
// run diagnosed as skew says it cannot show it, and names the busy-time
// heatmap that does, which shows one busy subtask.
func TestHeatmapOfSkewSaysWhere(t *testing.T) {
	data, err := scenarios.Get("hot-key")
	if err != nil {
		t.Fatal(err)
	}
	run, _ := simRunFiltered(t, string(data), TimeseriesFilter{Metrics: []string{DefaultHeatmapMetric, "busy_ms_per_s"}, Subtasks: true})
	fig, err := Heatmap([]*Run{run}, HeatmapOptions{Subtasks: true})
	if err != nil {
		t.Fatal(err)
	}
	caption := strings.Join(fig.Caption, "\n")
	if !strings.Contains(caption, "diagnosis is skew (count subtask 2): a hot subtask is busy, not back-pressured") ||
		!strings.Contains(caption, "--heatmap --subtasks -m busy_ms_per_s --vertex count") {
		t.Errorf("caption:\n%s", caption)
	}
	plain, err := Heatmap([]*Run{run}, HeatmapOptions{Subtasks: true, Metric: "busy_ms_per_s"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(plain.Caption, "\n"), "skew") {
		t.Errorf("the busy-time heatmap repeats the advice: %v", plain.Caption)
	}
}

// TestSweepColumnSuggests checks the did-you-mean of a sweep's columns
// (plot DIR/sweep.csv -y latency_p99): the same suggestion code as -m,
// drawn from the full column names and their endings, though the message
// lists the vertex metrics in short.
func TestSweepColumnSuggests(t *testing.T) {
	s := readTestSweep(t)
	for typed, want := range map[string]string{
		"latency_p99":           "(did you mean one of vertices.arrivals.latency_p99_ms, vertices.server.latency_p99_ms, vertices.departures.latency_p99_ms?)",
		"server.latency_p99":    "(did you mean vertices.server.latency_p99_ms?)",
		"records_delivred":      "(did you mean totals.records_delivered?)",
		"latncy":                "(did you mean one of vertices.arrivals.latency_mean_ms, vertices.server.latency_mean_ms, vertices.departures.latency_mean_ms, vertices.arrivals.latency_p50_ms",
		"totals.records_emited": "(did you mean totals.records_emitted?)",
	} {
		_, err := s.ResolveMetric(typed)
		if err == nil || !strings.HasSuffix(err.Error(), want) && !strings.Contains(err.Error(), want) {
			t.Errorf("-y %s: %v\nwant it to end in %s", typed, err, want)
		}
	}
	_, err := Tradeoff(s, TradeoffOptions{X: "arrival.rat", Y: []string{"simulated_s"}})
	if err == nil || !strings.HasSuffix(err.Error(), "(did you mean sources.arrivals.arrival.rate?)") {
		t.Errorf("-x arrival.rat: %v", err)
	}
}
