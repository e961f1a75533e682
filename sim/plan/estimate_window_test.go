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
// window per key seen in the run of 1h (less than 2h + 2s): 3,600,001 at
// 1000/s, and a gap of 5h at 10^6 keys one a key, 10^6 (160MB: refused
// under 100MiB); a global window one per key: 100. A tumbling window of
// 1ns has 2·10^9 window slots of one key in its span of 2s + 1ns, but
// only the 2001 records arriving in the span open windows: 2001, not
// 2,000,000,001.
func TestWindowStatesEstimate(t *testing.T) {
	for _, c := range []struct {
		keys   int
		window string
		want   float64
	}{
		{100, "{kind: tumbling, size: 1s}", 300},
		{100, "{kind: sliding, size: 10s, slide: 1s}", 1200},
		{100000000, "{kind: session, gap: 2h}", 3600001},
		{1000000, "{kind: session, gap: 5h}", 1000000},
		{100, "{kind: tumbling, size: 1ns}", 2001},
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

// TestWindowStatesLateBound: a trace served with a delay of up to 100000h
// (max_delay) behind a watermark bound of 200ms: the lag counted is
// 100000h + 400ms, so a tumbling window of 1s has 3.6·10^8 slots of a key
// in its span, but the run of 30s at 843.3 records/s brings only 25,299
// records, and those more than 200ms late are dropped, not windowed:
// 25,299 windows (4,047,840 bytes), not 3.0·10^11 (44TiB).
func TestWindowStatesLateBound(t *testing.T) {
	sc := parse(t, `duration: 30s
sources:
  - name: tasks
    arrival:
      process: trace
      trace: {dataset: clusterdata-2011-2/task_events, parts: 1, speedup: 60, key_column: event_type, max_delay: 100000h}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 200ms}
operators:
  - {name: count, input: tasks, partitioning: hash, service_time: {mean: 20us}, window: {kind: tumbling, size: 1s}}
sinks:
  - {name: out, input: count}
`)
	e := compile(t, sc).Estimate(map[string]float64{"tasks": 843.3})
	if want := float64(25299); e.WindowStates != want || e.WindowBytes != int64(want)*BytesPerWindowState {
		t.Errorf("%v open windows (%d bytes), want %v", e.WindowStates, e.WindowBytes, want)
	}
}

// TestJoinRecordsEstimate: an interval join of two inputs at 1000/s,
// watermarks 1s + 200ms behind, between(−1s, 3s): a left record is
// held until the watermark passes it + 3s, about 4.2s (4200 records), a
// right one 1s + 1.2s (2200): 6400 records of BytesPerJoinRecord; a run of
// 2s brings no more than 2000 of each; a window join of 5s holds
// ceil(6.2s/5s) = 2 windows of each of the 100 keys instead.
func TestJoinRecordsEstimate(t *testing.T) {
	for _, c := range []struct {
		duration, join string
		records, wins  float64
	}{
		{"1h", "{kind: interval, before: 1s, after: 3s}", 6400, 0},
		{"2s", "{kind: interval, before: 1s, after: 3s}", 4000, 0},
		{"1h", "{kind: window, size: 5s}", 0, 200},
	} {
		src := func(name string) string {
			return fmt.Sprintf("  - {name: %s, arrival: {process: constant, rate: 1000/s}, keys: {count: 100}, watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 1s}}\n", name)
		}
		sc := parse(t, "duration: "+c.duration+"\nsources:\n"+src("l")+src("r")+`operators:
  - {name: j, inputs: [l, r], partitioning: hash, service_time: {mean: 1us}, join: `+c.join+`}
sinks:
  - {name: out, input: j}
`)
		e := compile(t, sc).Estimate(nil)
		if e.JoinRecords != c.records || e.JoinBytes != int64(c.records)*BytesPerJoinRecord || e.WindowStates != c.wins {
			t.Errorf("%s over %s: %v records buffered (%d bytes), %v windows; want %v and %v", c.join, c.duration, e.JoinRecords, e.JoinBytes, e.WindowStates, c.records, c.wins)
		}
	}
}
