package sweep

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkSweepBackpressure100 runs a 100-run sweep of the built-in
// backpressure scenario (enrich's parallelism 1 to 4, 25 seeds each) with
// 1 worker and with 2, to measure how a sweep uses the cores:
//
//	go test -run XXX -bench SweepBackpressure100 -benchtime 3x ./internal/sweep
func BenchmarkSweepBackpressure100(b *testing.B) {
	params := []Param{{Path: "operators.enrich.parallelism", Values: []string{"1", "2", "3", "4"}}}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				err := Run(context.Background(), Options{Scenario: "backpressure", Params: params, Seeds: 25, Workers: workers, OutDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(100*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			// the cores the process kept busy: about the workers when
			// the runs are simulated at once and the machine is idle
			b.ReportMetric((cpuTime()-cpu0).Seconds()/b.Elapsed().Seconds(), "cores")
		})
	}
}
