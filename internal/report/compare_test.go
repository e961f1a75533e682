package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim/des"
)

// TestWriteCompare: the compare page of the built-in pair over 20s has
// the table's rows, cell for cell (Flink's mean latency 105.306ms,
// Spark's 1.701s: half the 2s batch interval plus a batch's processing
// time), and both diagnoses.
func TestWriteCompare(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.html")
	d := 20 * des.Second
	var figs []runner.Figures
	err := runner.Compare(context.Background(), runner.CompareOptions{Scenarios: []string{"same-workload-flink", "same-workload-spark"}, Duration: &d,
		Report: func(all []runner.Figures) error {
			figs = all
			return WriteCompare(Options{Output: out, Version: "test"}, all)
		}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	rows := runner.ComparisonRows(figs)
	if len(rows) != 17 { // a header row and 16 figures
		t.Fatalf("%d rows", len(rows))
	}
	for _, want := range []string{
		"<title>compare same-workload-flink · same-workload-spark: dspalab compare</title>",
		"<th>same-workload-flink</th><th>same-workload-spark</th>",
		`<td class="l"><b>latency mean</b></td><td>105.306ms</td><td>1.701s</td>`,
		`<td class="l"><b>model</b></td><td>pipelined</td><td>batch interval 2s</td>`,
		`<td class="l"><b>source lag</b></td><td>`,
		`<td class="l"><b>queued at the end</b></td><td>`,
		"stable: processing time 706.118ms &lt; batch interval 2s",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, r := range rows[1:] { // every row of the table is on the page
		if !strings.Contains(page, "<td class=\"l\"><b>"+r[0]+"</b></td><td>"+r[1]+"</td><td>"+r[2]+"</td>") {
			t.Errorf("row %q is not on the page", r)
		}
	}
}
