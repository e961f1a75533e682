package report

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/viz/plot"
)

// TestReportMicroBatch: the page of a spark-backpressure run (90s, a
// batch a second) has the summary in Spark's terms, both figures drawn,
// a row per batch completed (89, the 90th runs at the end) and the
// events; spark-unstable's says it falls behind.
func TestReportMicroBatch(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		batches  int
		want     []string
	}{
		{"spark-backpressure", 89, []string{
			"<li>engine <b>spark-streaming</b></li>",
			"the PID rate estimator caps what a batch reads at 3205 records/s at the end",
			"back-pressure: PID rate 3205 records/s at the end",
			`<h3>PID rate against the input rate`, `<h3>Delays per batch`,
			`title="rate_limit_rps in the CSV file">rate limit (records/s)</th>`,
		}},
		{"spark-unstable", 45, []string{
			"falls behind: processing time 1.302s &gt; batch interval 1s",
			"<code>falling_behind</code>",
		}},
		// a streaming query in its own terms: no StreamingListener,
		// no PID rate (it has no rate controller)
		{"structured-output-modes", -1, []string{
			"progress per micro-batch: the delay from its trigger time to its start", `<h3>Delays per micro-batch`,
		}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			page := runPage(t, tc.scenario)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			figures := 2
			if tc.batches < 0 { // structured streaming
				figures = 1
				for _, w := range []string{"StreamingListener", "PID", "Rate limit"} {
					if strings.Contains(page, w) {
						t.Errorf("a structured streaming page speaks of %s", w)
					}
				}
			}
			if n := strings.Count(page, `<svg class="figure"`); n != figures || strings.Contains(page, "Not drawn") {
				t.Errorf("%d figures drawn, want %d", n, figures)
			}
			sec := page[strings.Index(page, `<h2 id="batches">`):strings.Index(page, `<h2 id="event-log">`)]
			if n := strings.Count(sec, "<tr>") - 1; tc.batches >= 0 && n != tc.batches {
				t.Errorf("%d batch rows, want %d", n, tc.batches)
			}
			if regexp.MustCompile(`href="http|src=|<script|<link|<img`).MatchString(page) {
				t.Error("the page loads something from outside")
			}
		})
	}
}

// dspalab plot DIR of a Spark run draws Spark's default panels
// (plot.DefaultMicroBatchMetrics: input rate, scheduling delay,
// processing time, latency p99, all columns of its timeseries.csv)
// instead of failing on Flink's in_rate_rps; --cdf and --heatmap without
// -m, which draw Flink's per-vertex columns, and an overlay with a Flink
// run without -m, are usage errors that say what to plot instead.
func TestPlotMicroBatchDefaults(t *testing.T) {
	for _, m := range plot.DefaultMicroBatchMetrics {
		if !slices.Contains(microbatch.TimeseriesColumns, m) {
			t.Errorf("default metric %s is not a column of a micro-batch timeseries.csv", m)
		}
	}
	dir := filepath.Join(t.TempDir(), "su")
	if err := runner.Run(context.Background(), runner.Options{Scenario: "spark-unstable", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "p.svg")
	if err := Plot(PlotOptions{Inputs: []string{dir}, Output: out}); err != nil {
		t.Fatalf("plot of a spark-streaming run with the defaults: %v", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, title := range []string{">input rate<", ">scheduling delay<", ">processing time<", ">latency p99<"} {
		if strings.Count(svg, title) != 1 {
			t.Errorf("the figure has %d panels titled %s, want 1", strings.Count(svg, title), title)
		}
	}
	if n := strings.Count(svg, ">simulated time (s)<"); n != 1 {
		t.Errorf("%d time axes labelled, want 1 (the last of 4 panels)", n)
	}
	flink := filepath.Join(t.TempDir(), "fl")
	if err := runner.Run(context.Background(), runner.Options{Scenario: "tandem", OutDir: flink}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts PlotOptions
		want string
	}{
		{PlotOptions{Inputs: []string{dir}, CDF: true}, "--cdf draws the latency distribution at a Flink job's sinks (timeseries.csv's latency_p50_ms to latency_max_ms per vertex); " + dir + " ran on spark-streaming, whose timeseries.csv has the whole job's latency_p50_ms and latency_p99_ms per interval: plot them with -m latency_p50_ms -m latency_p99_ms"},
		{PlotOptions{Inputs: []string{dir}, Heatmap: true}, "--heatmap draws back-pressure per vertex of a Flink job; " + dir + " ran on spark-streaming, which has no back-pressure column and one row per interval for the whole job (vertex job): plot its columns over time with -m (such as -m scheduling_delay_ms), or give --heatmap one -m"},
		{PlotOptions{Inputs: []string{dir}, Watermarks: true}, "--watermarks draws the watermarks and event time of a Flink job's vertices (timeseries.csv's watermark columns); " + dir + " ran on spark-streaming, which has none: Structured Streaming's watermark (spark.watermark) is the whole job's, and the late rows it drops are counted in summary.json (rows_dropped_by_watermark)"},
		{PlotOptions{Inputs: []string{flink, dir}}, dir + " ran on spark-streaming and " + flink + " on flink: their timeseries.csv have different columns; overlay runs of one engine, or name columns both have with -m"},
	} {
		tc.opts.Output = filepath.Join(t.TempDir(), "x.svg")
		err := Plot(tc.opts)
		var oe *runner.OptionError
		if !errors.As(err, &oe) || err.Error() != tc.want {
			t.Errorf("plot %+v: %v\nwant the usage error %s", tc.opts, err, tc.want)
		}
	}
	// --heatmap with a column, and a Flink run's defaults, still draw
	if err := Plot(PlotOptions{Inputs: []string{dir}, Heatmap: true, Metrics: []string{"scheduling_delay_ms"}, Output: filepath.Join(t.TempDir(), "h.svg")}); err != nil {
		t.Errorf("--heatmap -m scheduling_delay_ms: %v", err)
	}
	if err := Plot(PlotOptions{Inputs: []string{flink}, Output: filepath.Join(t.TempDir(), "f.svg")}); err != nil {
		t.Errorf("a Flink run with the defaults: %v", err)
	}
}

// dspalab plot DIR of a run without a Flink job (consumer groups only)
// draws the groups' panels (plot.DefaultConsumerMetrics: records
// consumed, the group's lag, records processed again), not back-pressure
// and latency, which a consumer group has none of (a latency panel said
// "no values").
func TestPlotConsumerGroupDefaults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cg")
	if err := runner.Run(context.Background(), runner.Options{Scenario: "consumer-group-rebalance", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "p.svg")
	if err := Plot(PlotOptions{Inputs: []string{dir}, Output: out}); err != nil {
		t.Fatalf("plot of a consumer-group run with the defaults: %v", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, title := range []string{">input rate<", ">consumer lag<", ">duplicates<"} {
		if strings.Count(svg, title) != 1 {
			t.Errorf("the figure has %d panels titled %s, want 1", strings.Count(svg, title), title)
		}
	}
	if strings.Contains(svg, "no values") || strings.Contains(svg, ">back-pressured time<") {
		t.Error("the figure of a consumer-group run has a panel without values or a back-pressure panel")
	}
}
