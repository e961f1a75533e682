package report

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runner"
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
			"the PID rate estimator holds the input at 3205 records/s",
			"back-pressure: PID rate 3205 records/s at the end",
			`<h3>PID rate against the input rate`, `<h3>Delays per batch`,
			`title="rate_limit_rps in the CSV file">rate limit (records/s)</th>`,
		}},
		{"spark-unstable", 45, []string{
			"falls behind: processing time 1.302s &gt; batch interval 1s",
			"<code>falling_behind</code>",
		}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := runner.Run(context.Background(), runner.Options{Scenario: tc.scenario, OutDir: dir}); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "r.html")
			if err := Write(Options{RunDir: dir, Output: out, Version: "test"}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if n := strings.Count(page, `<svg class="figure"`); n != 2 || strings.Contains(page, "Not drawn") {
				t.Errorf("%d figures drawn, want 2", n)
			}
			sec := page[strings.Index(page, `<h2 id="batches">`):strings.Index(page, `<h2 id="event-log">`)]
			if n := strings.Count(sec, "<tr>") - 1; n != tc.batches {
				t.Errorf("%d batch rows, want %d", n, tc.batches)
			}
			if regexp.MustCompile(`href="http|src=|<script|<link|<img`).MatchString(page) {
				t.Error("the page loads something from outside")
			}
		})
	}
}
