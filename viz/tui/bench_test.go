package tui

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The cost of the live view as fast as possible. Each iteration runs a
// scenario to its end twice, in turn: with plain sim.Run, and with the
// engine (observer, steps, commands, snapshots at most 30 a wall second)
// while another goroutine draws every snapshot it gets, as the UI does.
// It reports the median wall time of each, the overhead of the live run
// in percent of wall time and of CPU time (all goroutines); medians of
// pairs taken in turn resist the load of a shared machine better than two
// separate benchmarks:
//
//	go test -run '^$' -bench LiveView -benchtime 20x ./viz/tui
func BenchmarkLiveView(b *testing.B) {
	for _, bc := range []struct {
		name  string
		file  string
		setup func(*scenario.Scenario)
	}{
		// records dominate: the back-pressure job 1000x faster, 2 million
		// records through the bottleneck (as sim's BenchmarkBackpressure)
		{"backpressure-x1000", "backpressure", func(sc *scenario.Scenario) {
			sc.Sources[0].Arrival.Rate *= 1000
			sc.Sources[0].MaxRate *= 1000
			sc.Operators[0].ServiceTime.Mean /= 1000
			sc.Operators[1].ServiceTime.Mean /= 1000
			sc.Duration = 200 * des.Second
		}},
		// 10,000 records/s over hash edges, 8 subtasks
		{"sensors-1000", "sensors-1000", func(sc *scenario.Scenario) { sc.Duration = 200 * des.Second }},
		// samples weigh most: 10 records/s, 20000 metrics intervals
		{"backpressure-as-is", "backpressure", func(sc *scenario.Scenario) { sc.Duration = 20000 * des.Second }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sc := builtin(b, bc.file)
			bc.setup(sc)
			job := testJob(sc)
			var plain, live, plainCPU, liveCPU []time.Duration
			frames := 0
			i := 0
			for b.Loop() {
				for k := range 2 {
					start, startCPU := time.Now(), cpuTime()
					if (i+k)%2 == 0 {
						if _, err := sim.Run(context.Background(), sc, sim.Options{}); err != nil {
							b.Fatal(err)
						}
						plain = append(plain, time.Since(start))
						plainCPU = append(plainCPU, cpuTime()-startCPU)
					} else {
						e, n := runLive(b, job)
						frames += n
						// until the simulation ended: its last snapshot
						// may wait up to 1/30 s for its turn
						live = append(live, e.finishedAt.Sub(start))
						liveCPU = append(liveCPU, cpuTime()-startCPU)
					}
				}
				i++
			}
			p, l := median(plain), median(live)
			b.ReportMetric(float64(p.Microseconds())/1000, "plain-ms")
			b.ReportMetric(float64(l.Microseconds())/1000, "live-ms")
			b.ReportMetric(100*(l.Seconds()/p.Seconds()-1), "overhead-%")
			// CPU time of the process (simulation, engine and drawing on
			// every goroutine) is less sensitive to other load
			b.ReportMetric(100*(median(liveCPU).Seconds()/median(plainCPU).Seconds()-1), "cpu-overhead-%")
			b.ReportMetric(float64(frames)/float64(len(live)), "frames/run")
		})
	}
}

// runLive runs job to its end with the engine as fast as possible, drawing
// every snapshot, and returns the engine and how many snapshots it drew.
func runLive(b *testing.B, job Job) (*engine, int) {
	e, err := newEngine(job, engineConfig{speed: 0, minPublish: time.Second / MaxSnapshotsPerSecond})
	if err != nil {
		b.Fatal(err)
	}
	go e.run(context.Background())
	m := newModel(job, e)
	drawn := 0
	for s := range e.out {
		m.snap = s
		_ = m.View() // what the UI does with a snapshot
		drawn++
		if s.State != Running {
			break
		}
	}
	e.send(command{kind: cmdQuit})
	<-e.done
	if e.state != Finished {
		b.Fatalf("the run ended %s: %v", e.state, e.stopErr)
	}
	return e, drawn
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
