package plan

import (
	"fmt"
	"testing"
)

// TestWindowStatesEstimate: the open windows of one key the estimate
// counts (windowStates). A source of 1000/s over 100 keys with watermarks
// 2s behind (bounded_out_of_orderness 1.8s + the 200ms interval): a
// tumbling window of 1s lives about 1s + 2s, 3 windows per key, each with
// all 100 keys (1000 records a second): 300; sliding 10s every 1s lives
// 12s, 12 windows: 1200; a session gap of 2h at 10^8 keys holds one
// window per key seen in 2h + 2s: 7,202,001 at 1000/s; a global window
// one per key: 100.
func TestWindowStatesEstimate(t *testing.T) {
	for _, c := range []struct {
		keys   int
		window string
		want   float64
	}{
		{100, "{kind: tumbling, size: 1s}", 300},
		{100, "{kind: sliding, size: 10s, slide: 1s}", 1200},
		{100000000, "{kind: session, gap: 2h}", 7202001},
		{100, "{kind: global, count: 10}", 100},
	} {
		sc := parse(t, fmt.Sprintf(`duration: 1h
sources:
  - name: src
    arrival: {process: constant, rate: 1000/s}
    keys: {count: %d}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 1800ms}
operators:
  - {name: w, input: src, partitioning: hash, service_time: {mean: 1us}, window: %s}
sinks:
  - {name: out, input: w}
`, c.keys, c.window))
		e := compile(t, sc).Estimate(nil)
		if e.WindowStates != c.want || e.WindowBytes != int64(c.want)*BytesPerWindowState {
			t.Errorf("%s: %v open windows (%d bytes), want %v", c.window, e.WindowStates, e.WindowBytes, c.want)
		}
	}
}
