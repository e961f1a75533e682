package sweep

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeSweepNumbers checks the README's reading of its sweep example
// (backpressure at 100/s, enrich's parallelism 1, 2, 4, five seeds): the
// numbers it quotes are the means of the runs, 2 subtasks about halve
// the p99 and double the deliveries, and 4 cut the p99 by only about a
// third more while the deliveries nearly double again.
func TestReadmeSweepNumbers(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip("no README:", err)
	}
	for _, want := range []string{"(16s to about 12s)", "(1198 to about 2390 records)", "(to about 11s)", "(about 4580)", "p99 282ms with 2 subtasks and 307ms with 4", "228ms with 1 subtask"} {
		if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
			t.Errorf("README.md's sweep text lacks %q", want)
		}
	}
	dir := t.TempDir()
	params := []Param{{Path: "operators.enrich.parallelism", Values: []string{"1", "2", "4"}}, {Path: "sources.sensors.arrival.rate", Values: []string{"5/s", "100/s"}}}
	if err := Run(context.Background(), Options{Scenario: "backpressure", Params: params, Seeds: 5, OutDir: dir, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(dir, "sweep.csv"))
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	p99, delivered := map[string]float64{}, map[string]float64{}
	for _, r := range rows[1:] {
		key := r[col["sources.sensors.arrival.rate"]] + " p" + r[col["operators.enrich.parallelism"]]
		l, _ := strconv.ParseFloat(r[col["vertices.out.latency_p99_ms"]], 64)
		d, _ := strconv.ParseFloat(r[col["totals.records_delivered"]], 64)
		p99[key] += l / 1000 / 5
		delivered[key] += d / 5
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4g, the README says about %g", what, got, want)
		}
	}
	near("p99 at 5/s, p1 (s)", p99["5/s p1"], 0.228, 0.001) // enrich -> out chained: no buffer timeout between them
	near("p99 at 5/s, p2 (s)", p99["5/s p2"], 0.282, 0.0005)
	near("p99 at 5/s, p4 (s)", p99["5/s p4"], 0.307, 0.001)
	near("p99 at p1 (s)", p99["100/s p1"], 16, 0.5)
	near("p99 at p2 (s)", p99["100/s p2"], 12, 0.5)
	near("p99 at p4 (s)", p99["100/s p4"], 11, 0.5)
	near("delivered at p1", delivered["100/s p1"], 1198, 0.5)
	near("delivered at p2", delivered["100/s p2"], 2390, 25)
	near("delivered at p4", delivered["100/s p4"], 4580, 45)
	if r := p99["100/s p2"] / p99["100/s p1"]; r < 0.65 || r > 0.8 {
		t.Errorf("p2 gives %.2f of p1's p99: not about three quarters", r)
	}
	if r := p99["100/s p4"] / p99["100/s p2"]; r < 0.85 || r > 0.97 {
		t.Errorf("p4 gives %.2f of p2's p99: not a little less", r)
	}
	if r := delivered["100/s p4"] / delivered["100/s p2"]; r < 1.8 || r > 1.95 {
		t.Errorf("p4 delivers %.2f times p2's: not 'nearly double'", r)
	}
}
