package sim_test

import (
	"fmt"
	"strings"
	"testing"
)

// shedJob: 1000 records/s into a count that serves 500/s; the source
// sheds while its lag passes 2000 records.
func shedJob(mode string) string {
	return fmt.Sprintf(`duration: 100s
warmup: 10s
sources:
  - name: clicks
    arrival: {process: constant, rate: 1000/s}
    keys: {count: 100, distribution: uniform}
    shedding: {lag_over: 2000, %s}
operators:
  - name: count
    input: clicks
    partitioning: hash
    service_time: {distribution: constant, mean: 2ms}
sinks:
  - name: out
    input: count
`, mode)
}

// TestShedding: shedding holds the lag at its threshold, sheds what the
// job cannot serve (1000 − 500 = 500 of every 1000 records once the lag
// reached 2000), and the count's error, 1 − counted / appended, is the
// shed fraction (plus what is still queued); shed records are not lost.
func TestShedding(t *testing.T) {
	for _, mode := range []string{"mode: random, probability: 1", "mode: semantic, keep_keys: 40"} {
		s := run(t, parse(t, "t.yaml", []byte(shedJob(mode))))
		d := s.Delivery
		// every record read above the threshold is shed (random with
		// probability 1) or 60% of them (semantic); a record read at or
		// under it waits for a buffer (327 records of 100 B in 32 KiB,
		// served in 0.654s) while 654 more are appended
		if limit := uint64(2000 + 654); s.Totals.SourceLag > limit {
			t.Errorf("%s: lag %d at the end, want held under %d", mode, s.Totals.SourceLag, limit)
		}
		if d.Lost != 0 || d.Shed == 0 {
			t.Errorf("%s: lost %d, shed %d; want 0 lost and records shed", mode, d.Lost, d.Shed)
		}
		appended := 100000.0
		// 500/s are counted; the rest, but for the lag and what the
		// buffers hold, is shed
		within(t, mode+": records counted", float64(d.Delivered), 500*100, 0.01)
		countErr := 1 - float64(d.Delivered)/appended
		within(t, mode+": shed fraction", d.ShedFraction, float64(d.Shed)/float64(d.Shed+d.Emitted), 1e-6)
		within(t, mode+": count error against shed + queued", countErr, (float64(d.Shed)+float64(s.Totals.SourceLag)+float64(d.InFlight))/appended, 0.01)
		t.Logf("%s: shed %d (%.3f of what was read), count error %.3f", mode, d.Shed, d.ShedFraction, countErr)
	}
}

// TestSheddingByLatencyAtSource: with latency_over 200ms the source
// sheds the records that waited in its log longer than that, so the lag
// in time stays within 200ms and a buffer's wait: at most 200 records
// plus the 654 appended while a record waits for a buffer (as above).
func TestSheddingByLatencyAtSource(t *testing.T) {
	s := run(t, parse(t, "t.yaml", []byte(strings.Replace(shedJob("mode: random"), "lag_over: 2000, ", "latency_over: 200ms, ", 1))))
	d := s.Delivery
	if limit := uint64(200 + 654); s.Totals.SourceLag > limit {
		t.Errorf("lag %d at the end, want held under %d", s.Totals.SourceLag, limit)
	}
	if d.Lost != 0 || d.ShedByOperators != 0 {
		t.Errorf("lost %d, shed by operators %d; want 0", d.Lost, d.ShedByOperators)
	}
	within(t, "records counted", float64(d.Delivered), 500*100, 0.01)
	// what is not counted is shed, or still in the log or the buffers
	within(t, "count error against shed + queued", 1-float64(d.Delivered)/100000, (float64(d.Shed)+float64(s.Totals.SourceLag)+float64(d.InFlight))/100000, 0.001)
	t.Logf("shed %d (%.4f of what was read), lag %d, in flight %d", d.Shed, d.ShedFraction, s.Totals.SourceLag, d.InFlight)
}
