package sweep

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runner"
)

// A sweep of a Spark Streaming scenario runs on sim/microbatch and its
// columns are microbatch.Summary's: sweeping the batch interval of
// spark-unstable finds where it turns stable (processing time 0.402s +
// 0.9 × the interval < the interval past 4.02s). Sweeping the engine
// itself is refused.
func TestSweepMicroBatch(t *testing.T) {
	dir := t.TempDir()
	params := []Param{{Path: "spark.batch_interval", Values: []string{"1s", "4010ms", "4030ms"}}}
	if err := Run(context.Background(), Options{Scenario: "spark-unstable", Params: params, OutDir: dir, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, c := range []string{"streaming.stable", "streaming.processing_time.mean_ms", "engine", "backpressure.rate_swing_rps"} {
		if _, ok := col[c]; !ok {
			t.Fatalf("no column %s in %v", c, rows[0])
		}
	}
	want := map[string][2]string{"1s": {"false", "1302"}, "4010ms": {"false", "4011"}, "4030ms": {"true", "4029"}}
	for _, r := range rows[1:] {
		iv := r[col["spark.batch_interval"]]
		if got := [2]string{r[col["streaming.stable"]], r[col["streaming.processing_time.mean_ms"]]}; got != want[iv] || r[col["engine"]] != "spark-streaming" {
			t.Errorf("batch interval %s: stable, processing %v, want %v", iv, got, want[iv])
		}
	}
	err = Run(context.Background(), Options{Scenario: "spark-unstable", Params: []Param{{Path: "engine", Values: []string{"spark-streaming", "flink"}}}, OutDir: t.TempDir()})
	// the spark settings make it invalid on engine flink before the
	// engine check (which a scenario valid on both engines would meet)
	var oe *runner.OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "engine=flink is invalid: spark: this field belongs to engine: spark-streaming") {
		t.Errorf("sweeping the engine: %v", err)
	}
}

// A sweep to batch intervals no shorter than the run prints each such
// combination's warning before it runs, and their rows leave stable, the
// delays and the latency empty (null in summary.json) instead of writing
// stable=true and 0 ms, which a plot would draw as a latency falling to 0.
func TestSweepMicroBatchNoBatch(t *testing.T) {
	dir := t.TempDir()
	var stderr strings.Builder
	params := []Param{{Path: "spark.batch_interval", Values: []string{"1s", "60s", "2m"}}}
	if err := Run(context.Background(), Options{Scenario: "spark-unstable", Params: params, OutDir: dir, Version: "test", Stderr: &stderr, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(stderr.String(), "\n")
	want := []string{
		"spark-unstable with spark.batch_interval=60s: spark.batch_interval: warning: 60s is not shorter than the run (duration 60s): no batch completes, so there is nothing to measure; make it shorter than the duration",
		"spark-unstable with spark.batch_interval=2m: spark.batch_interval: warning: 120s is not shorter than the run (duration 60s): no batch completes, so there is nothing to measure; make it shorter than the duration",
	}
	if len(lines) != 4 || lines[0] != want[0] || lines[1] != want[1] || !strings.HasPrefix(lines[2], "wrote ") {
		t.Errorf("stderr:\n%s\nwant the lines\n%s\nthen wrote ...", stderr.String(), strings.Join(want, "\n"))
	}
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	cols := []string{"streaming.stable", "streaming.processing_time.mean_ms", "streaming.scheduling_delay.max_ms", "latency.mean_ms", "latency.count", "totals.records_delivered"}
	wantRow := map[string][]string{
		"1s":  {"false", "1302", "", "", "", ""},
		"60s": {"", "", "", "", "0", "0"},
		"2m":  {"", "", "", "", "0", "0"},
	}
	for _, r := range rows[1:] {
		iv := r[col["spark.batch_interval"]]
		got := make([]string, len(cols))
		for i, c := range cols {
			got[i] = r[col[c]]
		}
		w := wantRow[iv]
		if iv == "1s" {
			got = got[:2] // a run that batches: its figures are TestSweepMicroBatch's
			w = w[:2]
		}
		if !slices.Equal(got, w) {
			t.Errorf("batch interval %s: %v = %v, want %v", iv, cols, got, w)
		}
	}
}
