package sim

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// sessionJob is a session-window job of keys keys at rate records/s,
// out of order by up to 300ms.
func sessionJob(t testing.TB, duration string, rate, keys int, window string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("sessions.yaml", []byte(fmt.Sprintf(`name: sessions
seed: 1
duration: %s
workers: {count: 1, slots: 2}
sources:
  - name: clicks
    arrival: {process: poisson, rate: %d/s}
    keys: {count: %d}
    event_delay: {distribution: uniform, min: 0s, max: 300ms}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 300ms}
operators:
  - name: sessions
    input: clicks
    partitioning: hash
    parallelism: 2
    service_time: {mean: 1us}
    window: %s
sinks:
  - name: out
    input: sessions
`, duration, rate, keys, window)))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSessionTimersHeld: a merge deletes the merged windows' timers
// (Flink's WindowOperator deletes them with deleteEventTimeTimer), so at
// every moment the timers held are exactly those of the open sessions:
// one a window without allowed lateness; with it, the trigger's and the
// cleanup timer until the window fires, then the cleanup timer. Before,
// every merge pushed new timers and left the old ones queued.
func TestSessionTimersHeld(t *testing.T) {
	for _, c := range []struct {
		window string
		fired  bool // some sessions close within the run
	}{
		{"{kind: session, gap: 3h}", false},
		{"{kind: session, gap: 50ms}", true},
		{"{kind: session, gap: 50ms, allowed_lateness: 200ms}", true},
	} {
		s, err := New(sessionJob(t, "3s", 20000, 500, c.window), Options{})
		if err != nil {
			t.Fatal(err)
		}
		fired := uint64(0)
		for at := des.Second / 2; at <= 3*des.Second; at += des.Second / 2 {
			if err := s.RunUntil(context.Background(), at); err != nil {
				t.Fatal(err)
			}
			timers, want, open := 0, 0, 0
			for _, v := range s.vertices {
				for _, st := range v.subtasks {
					w, ok := st.proc.(*windowOperator)
					if !ok {
						continue
					}
					fired = w.stats.firings
					timers += w.timers.len()
					for _, starts := range w.sessions {
						open += len(starts)
					}
					for _, ws := range w.windows {
						want++
						if w.lateness > 0 && !ws.fired {
							want++
						}
					}
				}
			}
			if open == 0 || timers != want || (!strings.Contains(c.window, "allowed_lateness") && timers != open) {
				t.Errorf("%s at %v: %d timers held, want %d (%d open sessions)", c.window, at, timers, want, open)
			}
		}
		if (fired > 0) != c.fired {
			t.Errorf("%s: %d firings", c.window, fired)
		}
	}
}

// peakLiveHeap runs sc and returns the largest live heap seen after
// forced collections every 250ms of simulated time (as bench_test.go's
// heapStats).
func peakLiveHeap(t *testing.T, sc *scenario.Scenario) uint64 {
	t.Helper()
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	peak := uint64(0)
	for at := des.Second / 4; at <= sc.Duration; at += des.Second / 4 {
		if err := s.RunUntil(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	return peak
}

// TestSessionMemoryFlat: sessions of a 3h gap never close within the run,
// so the state is one window (and one timer) per key, whatever the run's
// length: the peak live heap of a run four times longer (four times the
// records, 300,000 more) grows by less than 2 MiB. With the merged
// windows' timers left queued it grew by about 29 bytes a record (5.4 MB
// over 5s, 14.0 MB over 20s).
func TestSessionMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 400,000 records")
	}
	short := peakLiveHeap(t, sessionJob(t, "5s", 20000, 10000, "{kind: session, gap: 3h}"))
	long := peakLiveHeap(t, sessionJob(t, "20s", 20000, 10000, "{kind: session, gap: 3h}"))
	t.Logf("peak live heap: %d bytes over 5s, %d over 20s", short, long)
	if long > short+2<<20 {
		t.Errorf("peak live heap %d bytes over 20s, %d over 5s: grows with the records", long, short)
	}
}
