package sim_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

// eventTime returns the event-time figures of vertex name.
func eventTime(t *testing.T, s *sim.Summary, name string) sim.VertexEventTime {
	t.Helper()
	if s.EventTime == nil {
		t.Fatal("summary has no event_time")
	}
	for _, v := range s.EventTime.Vertices {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no vertex %q in event_time", name)
	return sim.VertexEventTime{}
}

// windowJob is a Poisson (or constant) source with watermarks into a
// keyed window operator and a sink, on one worker (no network latency).
func windowJob(t *testing.T, duration, arrival, keys, watermarks, delay, window string) []byte {
	t.Helper()
	d := ""
	if delay != "" {
		d = "\n    event_delay: " + delay
	}
	return []byte(fmt.Sprintf(`duration: %s
workers: {count: 1, slots: 2}
sources:
  - name: src
    arrival: %s
    keys: %s
    watermarks: %s%s
operators:
  - name: win
    input: src
    partitioning: hash
    service_time: {mean: 0s}
    window: %s
sinks:
  - name: out
    input: win
`, duration, arrival, keys, watermarks, d, window))
}

// TestTumblingWindowFiringDelay: with no disorder and a watermark on
// every record (punctuated, B = 0), the watermark after a record of event
// time e is e − 1ns, so window [s, s+W) fires when the first record at or
// past its end s+W arrives (its maxTimestamp s+W−1 is then <= the
// watermark). Arrivals are Poisson(λ) and memoryless, so the firing delay
// (firing − window end) is exponential with mean 1/λ, and its p90 is
// ln(10)/λ. λ = 50/s, W = 100ms over 4000s: 40000 windows (a window
// is empty with probability e^{−5}, and fires not at all), so the
// sampling error is about 0.5% on the mean and 0.7% on the p90, plus the
// histogram's 1%.
func TestTumblingWindowFiringDelay(t *testing.T) {
	lambda := 50.0
	sc := parse(t, "tumbling.yaml", windowJob(t, "4000s", "{process: poisson, rate: 50/s}", "{count: 1}",
		"{strategy: punctuated}", "", "{kind: tumbling, size: 100ms}"))
	s := run(t, sc)
	w := eventTime(t, s, "win")
	if w.FiringDelayMeanMs == nil || w.Firings == nil {
		t.Fatalf("no firing delay: %+v", w)
	}
	within(t, "firing delay mean (ms)", *w.FiringDelayMeanMs, 1000/lambda, 0.03)
	within(t, "firing delay p90 (ms)", *w.FiringDelayP90Ms, 1000*math.Log(10)/lambda, 0.03)
	if *w.NumLateRecordsDropped != 0 {
		t.Errorf("numLateRecordsDropped = %d, want 0 without disorder", *w.NumLateRecordsDropped)
	}
	// every non-empty window fires once: about 40000(1 − e^−5)
	within(t, "firings", float64(*w.Firings), 40000*(1-math.Exp(-5)), 0.01)
}

// lateFraction is the closed form of the late fraction with iid delays
// and a watermark on every record. Record i, arriving at a_i with delay
// D_i, has event time e_i = a_i − D_i and meets the watermark
// max_{j<i} e_j − B − 1ns (the punctuated watermark follows each
// record). It is late (its window's maxTimestamp is at or below the
// watermark; windows of 1ms make that e_i < max_{j<i} e_j − B up to 1ms)
// iff some earlier record j, g_j = a_i − a_j before it, has
// D_j + g_j < D_i − B. The earlier records' gaps form a Poisson process
// of rate λ, so those with D_j + g_j < c are Poisson with mean
// λ∫_0^c F(c−g)dg = λ G(c), G(c) = ∫_0^c F(x)dx, and
//
//	P(late) = E[1 − exp(−λ G(D − B))],  over D > B.
//
// Exponential delays of mean μ: G(c) = c − μ(1 − e^{−c/μ}); uniform on
// [0, M]: G(c) = c²/(2M) for c <= M. The expectation is integrated
// numerically (midpoint rule, 10^5 steps).
func lateFraction(lambda, bound float64, density func(d float64) float64, g func(c float64) float64, hi float64) float64 {
	const n = 100000
	h := (hi - bound) / n
	p := 0.0
	for k := 0; k < n; k++ {
		d := bound + (float64(k)+0.5)*h
		p += density(d) * (1 - math.Exp(-lambda*g(d-bound))) * h
	}
	return p
}

// TestLateFractionClosedForm checks the late fraction against
// lateFraction for exponential and uniform delays, and that periodic
// watermarks (every 200ms instead of every record) lower it: the
// watermark lags the largest event time by up to an interval more.
func TestLateFractionClosedForm(t *testing.T) {
	cases := []struct {
		name, arrival, delay string
		lambda, bound        float64
		density, g           func(float64) float64
		hi                   float64
	}{
		{"exponential mean 1s, B = 2s", "{process: poisson, rate: 10/s}", "{distribution: exponential, mean: 1s}", 10, 2,
			func(d float64) float64 { return math.Exp(-d) }, func(c float64) float64 { return c - (1 - math.Exp(-c)) }, 40},
		{"uniform [0, 2s], B = 1s", "{process: poisson, rate: 5/s}", "{distribution: uniform, max: 2s}", 5, 1,
			func(d float64) float64 { return 0.5 }, func(c float64) float64 { return c * c / 4 }, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := lateFraction(c.lambda, c.bound, c.density, c.g, c.hi)
			wm := fmt.Sprintf("{strategy: punctuated, bounded_out_of_orderness: %gs}", c.bound)
			s := run(t, parse(t, "late.yaml", windowJob(t, "20000s", c.arrival, "{count: 1}", wm, c.delay, "{kind: tumbling, size: 1ms}")))
			emitted := float64(s.Delivery.Emitted)
			late := float64(*eventTime(t, s, "win").NumLateRecordsDropped)
			within(t, "late fraction", late/emitted, want, 0.03)

			wm = fmt.Sprintf("{strategy: bounded_out_of_orderness, bounded_out_of_orderness: %gs, auto_watermark_interval: 200ms}", c.bound)
			s = run(t, parse(t, "late.yaml", windowJob(t, "20000s", c.arrival, "{count: 1}", wm, c.delay, "{kind: tumbling, size: 1ms}")))
			periodic := float64(*eventTime(t, s, "win").NumLateRecordsDropped) / float64(s.Delivery.Emitted)
			if periodic >= late/emitted {
				t.Errorf("periodic watermarks (200ms): late fraction %.4f, want below %.4f (per record)", periodic, late/emitted)
			}
			t.Logf("late fraction: per record %.4f, every 200ms %.4f", late/emitted, periodic)
		})
	}
}

// TestWindowStateBytes: a constant source of 100/s over 4 keys, with a
// watermark on every record and no disorder, at 20.505s: the window
// [20s, 21s) is open for every key (50 records over 4 uniform keys miss
// one with probability 4·0.75^50 ≈ 2e-6), every earlier one fired and
// cleared by the record at 20s. Incremental: one accumulator of 64B per
// key and open window: 4·64 = 256B tumbling, and 2·256 = 512B for
// sliding windows of 2s every 1s (each record is in two). Full: every
// record of the open windows, 100B each: the 51 records at 20.00s,
// 20.01s, ..., 20.50s are 5100B; sliding, the open windows are [19s, 21s)
// with 151 records and [20s, 22s) with those 51: 202 records, 20200B.
func TestWindowStateBytes(t *testing.T) {
	for _, c := range []struct {
		window string
		want   int64
	}{
		{"{kind: tumbling, size: 1s}", 256},
		{"{kind: sliding, size: 2s, slide: 1s}", 512},
		{"{kind: tumbling, size: 1s, function: process}", 5100},
		{"{kind: sliding, size: 2s, slide: 1s, function: process}", 20200},
	} {
		s := run(t, parse(t, "state.yaml", windowJob(t, "20.505s", "{process: constant, rate: 100/s}", "{count: 4}",
			"{strategy: punctuated}", "", c.window)))
		w := eventTime(t, s, "win")
		if *w.WindowStateBytes != c.want {
			t.Errorf("%s: window state %dB, want %dB", c.window, *w.WindowStateBytes, c.want)
		}
	}
}

// TestEventTimeDeterministic: the same scenario and seed give the same
// summary, byte for byte.
func TestEventTimeDeterministic(t *testing.T) {
	y := windowJob(t, "60s", "{process: poisson, rate: 200/s}", "{count: 50, distribution: zipf}",
		"{strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms, idleness: 1s}",
		"{distribution: normal, mean: 300ms, stddev: 200ms, max: 1s}", "{kind: session, gap: 300ms, function: process}")
	var out [2][]byte
	for i := range out {
		b, err := json.Marshal(run(t, parse(t, "det.yaml", y)))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Fatal("two runs of the same scenario and seed differ")
	}
}

// TestEventTimeColumns: a job with event time writes the
// EventTimeColumns after the usual ones; the window operator's last
// num_late_records_dropped is the summary's, and its input watermark
// trails the sample's time by its watermark_lag_s.
func TestEventTimeColumns(t *testing.T) {
	sc := parse(t, "cols.yaml", windowJob(t, "30s", "{process: poisson, rate: 100/s}", "{count: 10}",
		"{strategy: bounded_out_of_orderness, bounded_out_of_orderness: 200ms}",
		"{distribution: exponential, mean: 100ms}", "{kind: tumbling, size: 1s}"))
	var ts bytes.Buffer
	sw := sim.NewStreamWriter(&ts, nil)
	res, err := sim.Run(context.Background(), sc, sim.Options{Observer: sw})
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&ts).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string(nil), sim.TimeseriesColumns...), sim.EventTimeColumns...)
	if !slices.Equal(rows[0], want) {
		t.Fatalf("header %v, want %v", rows[0], want)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	var last []string
	for _, r := range rows[1:] {
		if r[col("vertex")] == "win" && r[col("subtask")] == "-1" {
			last = r
		}
	}
	dropped := *eventTime(t, &res.Summary, "win").NumLateRecordsDropped
	if dropped == 0 || last[col("num_late_records_dropped")] != strconv.FormatUint(dropped, 10) {
		t.Errorf("last num_late_records_dropped %q, want the summary's %d (> 0)", last[col("num_late_records_dropped")], dropped)
	}
	at, _ := strconv.ParseFloat(last[col("time_s")], 64)
	wm, _ := strconv.ParseFloat(last[col("current_input_watermark_s")], 64)
	lag, _ := strconv.ParseFloat(last[col("watermark_lag_s")], 64)
	if math.Abs(at-wm-lag) > 1e-6 || lag <= 0.2 || lag > 1 {
		t.Errorf("time %g, watermark %g, lag %g: want lag = time − watermark, past the 200ms bound and under 1s", at, wm, lag)
	}
}

// joinJob: a left source of 10/s and a right one of 20/s, one key, with
// a watermark on every record, into a join of the given kind.
func joinJob(duration, join string) []byte {
	return []byte(fmt.Sprintf(`duration: %s
workers: {count: 1, slots: 2}
sources:
  - {name: left, arrival: {process: constant, rate: 10/s}, keys: {count: 1}, watermarks: {strategy: punctuated}}
  - {name: right, arrival: {process: constant, rate: 20/s}, keys: {count: 1}, watermarks: {strategy: punctuated}}
operators:
  - {name: j, inputs: [left, right], partitioning: hash, service_time: {mean: 0s}, join: %s}
sinks:
  - {name: out, input: j}
`, duration, join))
}

// TestJoins counts the pairs exactly. Left records come at 0.1s, 0.2s,
// ..., right ones at 0.05s, 0.1s, ....
//   - Tumbling window join of 1s, run to 10.5s: [0, 1) holds 9 left and
//     19 right records, each later window 10 and 20; windows [0, 1) to
//     [9, 10) have fired (the records of 10s carry the watermark past
//     10s − 1ns): 9·19 + 9·10·20 = 1971 pairs, in 10 firings.
//   - Interval join, before = after = 50ms, run to 10.01s: a left record at
//     t joins the right ones at t − 50ms, t and t + 50ms; the last, at 10s,
//     misses 10.05s: 99·3 + 2 = 299 pairs. Nothing is late, and at the end
//     the buffers hold only the records the watermark has not passed
//     their cleanup time: the left one of 10s (kept to 10.05s) and the
//     right ones of 9.95s and 10s (kept to 10s and 10.05s; the watermark
//     is 10s − 1ns): 3 records of 100B.
func TestJoins(t *testing.T) {
	s := run(t, parse(t, "wjoin.yaml", joinJob("10.5s", "{kind: window, size: 1s}")))
	j := eventTime(t, s, "j")
	if *j.JoinedPairs != 1971 || *j.Firings != 10 || s.Totals.Delivered != 1971 {
		t.Errorf("window join: %d pairs in %d firings, %d results at the sink; want 1971 in 10, 1971", *j.JoinedPairs, *j.Firings, s.Totals.Delivered)
	}
	s = run(t, parse(t, "ijoin.yaml", joinJob("10.01s", "{kind: interval, before: 50ms, after: 50ms}")))
	j = eventTime(t, s, "j")
	if *j.JoinedPairs != 299 || *j.NumLateRecordsDropped != 0 || s.Totals.Delivered != 299 {
		t.Errorf("interval join: %d pairs, %d late, %d results at the sink; want 299, 0, 299", *j.JoinedPairs, *j.NumLateRecordsDropped, s.Totals.Delivered)
	}
	if *j.WindowStateBytes != 300 {
		t.Errorf("interval join: %dB buffered at the end, want 300B (3 records)", *j.WindowStateBytes)
	}
}

// TestEventTimeDiagnosis: the three sentences of the event-time
// diagnosis. A window of 1,100µs a record behind a source of 1000/s is the
// bottleneck: its buffers fill, and the watermarks wait behind them (over
// a second on average); exponential delays of mean 200ms against a bound
// of 200ms leave some 3% late (the p99 of how far a record is behind the
// largest event time seen is about ln(100)·200ms ≈ 0.92s); a second
// source that stops at 20s without idleness holds the watermark at its
// own, and is named.
func TestEventTimeDiagnosis(t *testing.T) {
	job := func(quiet bool) *sim.Summary {
		q, in := "", "input: src"
		if quiet {
			q = `
  - name: quiet
    arrival: {process: schedule, schedule: [{at: 0s, rate: 10/s}, {at: 20s, rate: 0/s}]}
    keys: {count: 100}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 200ms}`
			in = "inputs: [src, quiet]"
		}
		return run(t, parse(t, "diag.yaml", []byte(`duration: 60s
warmup: 10s
workers: {count: 2, slots: 2}
sources:
  - name: src
    arrival: {process: constant, rate: 1000/s}
    keys: {count: 100}
    event_delay: {distribution: exponential, mean: 200ms}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 200ms}`+q+`
operators:
  - {name: win, `+in+`, partitioning: hash, service_time: {mean: 1100us}, window: {kind: tumbling, size: 1s}}
sinks:
  - {name: out, input: win}
`)))
	}
	has := func(s *sim.Summary, prefix string) string {
		for _, d := range s.EventTime.Diagnosis {
			if strings.HasPrefix(d, prefix) {
				return d
			}
		}
		t.Errorf("no event-time diagnosis starting %q in %q", prefix, s.EventTime.Diagnosis)
		return ""
	}
	s := job(false)
	t.Log(has(s, "back-pressure delayed the watermarks of win by "))
	t.Log(has(s, "2.9% of the records into win were late (numLateRecordsDropped 1589 of 54453): raise bounded_out_of_orderness (now "))
	s = job(true)
	t.Log(has(s, "the watermark of win is held back by source quiet, subtask 0, idle for 40s (no record since 20s); set watermarks.idleness"))
}

// TestGlobalCountWindow: a global window per key fired and purged every
// 10 records (countWindow(10)): a constant 100/s of one key for 10.005s
// is 1000 records, so 100 firings, 100 results, each a result of its own
// (the key's firing count is its identity): none is counted twice at the
// sink. Incremental state holds one accumulator at the end: 64B.
func TestGlobalCountWindow(t *testing.T) {
	s := run(t, parse(t, "global.yaml", windowJob(t, "10.005s", "{process: constant, rate: 100/s}", "{count: 1}",
		"{strategy: punctuated}", "", "{kind: global, count: 10}")))
	w := eventTime(t, s, "win")
	k := s.Delivery.Sinks[0]
	if *w.Firings != 100 || k.Delivered != 100 || k.Duplicated != 0 || *w.WindowStateBytes != 64 {
		t.Errorf("%d firings, %d results delivered, %d duplicated, %dB of state; want 100, 100, 0, 64B", *w.Firings, k.Delivered, k.Duplicated, *w.WindowStateBytes)
	}
}

// TestProcessingTimeTumbling: a tumbling window of 1s in processing time
// (Flink's TumblingProcessingTimeWindows) fires at its last instant, end −
// 1ns (ProcessingTimeTrigger's timer at window.maxTimestamp()), so each of
// the ten windows of a 10.005s run fires on time, 0ms late (a firing delay
// of −1ns once stopped the run). A constant 100/s from 10ms on puts 99
// records in the first window ([10ms, 990ms]) and 100 in each other: 999 in
// the ten, 99.9 on average.
func TestProcessingTimeTumbling(t *testing.T) {
	s := run(t, parse(t, "processing.yaml", windowJob(t, "10.005s", "{process: constant, rate: 100/s}", "{count: 1}",
		"{strategy: punctuated}", "", "{kind: tumbling, size: 1s, time: processing}")))
	w := eventTime(t, s, "win")
	if *w.Firings != 10 || s.Totals.Delivered != 10 || *w.FiringDelayP99Ms != 0 || *w.RecordsPerWindowMean != 99.9 {
		t.Errorf("%d firings, %d results delivered, firing delay p99 %gms, %g records per window; want 10, 10, 0ms, 99.9",
			*w.Firings, s.Totals.Delivered, *w.FiringDelayP99Ms, *w.RecordsPerWindowMean)
	}
}

// TestKeyedTimers: a keyed process function with a timer of 1s per key
// (the timeout pattern). One key writes 10/s from 0 to 5s and from 10s
// to 15s. In processing time each record moves the key's timer to 1s
// after it; the timers of the records at 5s and 15s fire, at 6s and 16s:
// 2 records, fired on time. In event time the watermark moves only with
// the records: the record of 10.1s, which carries the watermark past 6s,
// is the key's own and replaces its timer first, and nothing passes 16s:
// no timer fires.
func TestKeyedTimers(t *testing.T) {
	job := func(domain string) *sim.Summary {
		return run(t, parse(t, "timer.yaml", []byte(`duration: 20s
workers: {count: 1, slots: 2}
sources:
  - name: src
    arrival: {process: schedule, schedule: [{at: 0s, rate: 10/s}, {at: 5s, rate: 0/s}, {at: 10s, rate: 10/s}, {at: 15s, rate: 0/s}]}
    keys: {count: 1}
    watermarks: {strategy: punctuated}
operators:
  - {name: timeout, input: src, partitioning: hash, service_time: {mean: 0s}, timer: {time: `+domain+`, delay: 1s}}
sinks:
  - {name: out, input: timeout}
`)))
	}
	s := job("processing")
	w := eventTime(t, s, "timeout")
	if *w.Firings != 2 || s.Totals.Delivered != 2 || *w.FiringDelayP99Ms > 0.001 {
		t.Errorf("processing time: %d timers fired, %d records at the sink, fired %gms late; want 2, 2, on time", *w.Firings, s.Totals.Delivered, *w.FiringDelayP99Ms)
	}
	s = job("event")
	if w := eventTime(t, s, "timeout"); *w.Firings != 0 {
		t.Errorf("event time: %d timers fired, want 0", *w.Firings)
	}
}
