package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runner"
)

// TestReportShowsSkew checks that the report of a run diagnosed as skew
// (hot-key) draws the busy time of the hot vertex's subtasks, which shows
// it, besides the back-pressure heatmap, which cannot.
func TestReportShowsSkew(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "hk")
	if err := runner.Run(context.Background(), runner.Options{Scenario: "hot-key", OutDir: run}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	if err := Write(Options{RunDir: run, Output: out}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	page := string(b)
	for _, want := range []string{"Busy time per subtask: the skew", "Busy milliseconds per second of each subtask of count over time",
		"--heatmap --subtasks -m busy_ms_per_s --vertex count"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg "); n != 4 {
		t.Errorf("%d figures, want 4 (time series, back-pressure and busy heatmaps, CDF)", n)
	}
}
