package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
)

// rowsOf collects the vertex rows (subtask -1) of one vertex over a run.
type rowsOf struct {
	vertex string
	rows   []sim.Row
}

func (o *rowsOf) Sample(s *sim.Sample) {
	for _, r := range s.Rows {
		if r.Vertex == o.vertex && r.Subtask == -1 {
			o.rows = append(o.rows, r)
		}
	}
}
func (o *rowsOf) Event(sim.Event) {}

// opShedJob: 1000 records/s (λ) from a replayable source into count, an
// operator that serves 500/s (μ: 2ms a record), a task of its own, and
// sheds as shedding says ("" for none).
func opShedJob(shedding string) string {
	if shedding != "" {
		shedding = "\n    shedding: " + shedding
	}
	return fmt.Sprintf(`duration: 100s
sources:
  - name: clicks
    arrival: {process: constant, rate: 1000/s}
    keys: {count: 100, distribution: uniform}
operators:
  - name: count
    input: clicks
    chain: false
    service_time: {distribution: constant, mean: 2ms}%s
sinks:
  - name: out
    input: count
`, shedding)
}

func runRows(t *testing.T, yaml, vertex string) (*sim.Summary, []sim.Row) {
	t.Helper()
	o := &rowsOf{vertex: vertex}
	res, err := sim.Run(context.Background(), parse(t, "t.yaml", []byte(yaml)), sim.Options{Observer: o})
	if err != nil {
		t.Fatal(err)
	}
	return &res.Summary, o.rows
}

// Records of 100B in a 32KiB buffer, and the buffers of count's input
// gate: 2 exclusive for its one channel and 8 floating.
const (
	recsPerBuffer = 32 * 1024 / 100 // 327
	gateRecords   = 10 * recsPerBuffer
)

// TestOperatorSheddingHoldsQueue: with queue_over T and every record
// shed while more than T wait (random, probability 1), each record count
// takes leaves at most T behind it, so a sample finds at most T plus the
// one buffer that may have come during a service; without shedding the
// queue fills the gate. What is not served is shed, not lost: 1000 − 500
// of every 1000 records once the queue reached T.
func TestOperatorSheddingHoldsQueue(t *testing.T) {
	const T = 1000
	maxQueue := func(rows []sim.Row) int {
		m := 0
		for _, r := range rows {
			m = max(m, r.QueuedRecords)
		}
		return m
	}
	base, rows := runRows(t, opShedJob(""), "count")
	if q := maxQueue(rows); q <= T+recsPerBuffer || q > gateRecords {
		t.Errorf("without shedding: the queue reached %d, want past %d, at most the gate's %d", q, T+recsPerBuffer, gateRecords)
	}
	// back-pressured from when the buffers are full (about 11s) on
	if vertex(t, base, "clicks").Backpressured < 0.85 {
		t.Errorf("without shedding: clicks back-pressured %.3f, want > 0.85", vertex(t, base, "clicks").Backpressured)
	}
	s, rows := runRows(t, opShedJob(fmt.Sprintf("{queue_over: %d}", T)), "count")
	if q := maxQueue(rows); q > T+recsPerBuffer || q < T-recsPerBuffer {
		t.Errorf("queue_over %d: the queue reached %d, want within a buffer (%d) of %d and not above it", T, q, recsPerBuffer, T)
	}
	c, d := vertex(t, s, "count"), s.Delivery
	if d.Lost != 0 || d.Shed != 0 || d.ShedByOperators != c.Shed || s.Totals.SourceLag != 0 {
		t.Errorf("lost %d, shed at sources %d, by operators %d (count %d), lag %d: want 0, 0, count's, 0", d.Lost, d.Shed, d.ShedByOperators, c.Shed, s.Totals.SourceLag)
	}
	if vertex(t, s, "clicks").Backpressured != 0 {
		t.Errorf("clicks back-pressured %.3f with shedding, want 0", vertex(t, s, "clicks").Backpressured)
	}
	// every record emitted is delivered, shed, or still inside the job
	if d.Emitted != d.Delivered+d.InFlight+d.ShedByOperators {
		t.Errorf("emitted %d != delivered %d + in flight %d + shed %d", d.Emitted, d.Delivered, d.InFlight, d.ShedByOperators)
	}
	within(t, "records count processed", float64(c.RecordsIn), 500*100, 0.001)
	// the diagnosis says the excess is shed, not that the queue grows
	// or is unbounded (the gate's buffers are bounded, and do not fill)
	if dg := s.Diagnosis; !strings.Contains(dg.Message, "count serves 500 of the 1000 records/s sent to it and sheds the rest") ||
		strings.Contains(dg.Message+strings.Join(dg.Evidence, "\n"), "unbounded") || strings.Contains(dg.Message, "keeps growing") {
		t.Errorf("diagnosis with shedding: %s\n%s", dg.Message, strings.Join(dg.Evidence, "\n"))
	}
}

// TestOperatorSheddingCountError: semantic shedding (keys 40 and above
// of 100) at queue_over 1000. count processes μ = 500/s whatever it sheds,
// so of the λD − Q records that reached it (Q still queued at the end)
// μD are counted: its shed fraction is 1 − μD/(λD − Q), and the error of
// the count the sink sees, 1 − delivered/emitted, is exactly the shed and
// the queued over what was emitted.
func TestOperatorSheddingCountError(t *testing.T) {
	s, _ := runRows(t, opShedJob("{queue_over: 1000, mode: semantic, keep_keys: 40}"), "count")
	c, d := vertex(t, s, "count"), s.Delivery
	emitted := float64(d.Emitted)
	if d.Emitted != 100000 {
		t.Fatalf("emitted %d, want every record of 100s at 1000/s", d.Emitted)
	}
	within(t, "shed fraction", c.ShedFraction, 1-500*100/(emitted-float64(d.InFlight)), 0.005)
	if float64(c.Shed)/float64(c.Shed+c.RecordsIn) != c.ShedFraction && fmt.Sprintf("%.6f", float64(c.Shed)/float64(c.Shed+c.RecordsIn)) != fmt.Sprintf("%.6f", c.ShedFraction) {
		t.Errorf("shed fraction %.6f, want shed %d / (shed + processed %d)", c.ShedFraction, c.Shed, c.RecordsIn)
	}
	countErr := 1 - float64(d.Delivered)/emitted
	want := (float64(c.Shed) + float64(d.InFlight)) / emitted
	if countErr != want && fmt.Sprintf("%.9f", countErr) != fmt.Sprintf("%.9f", want) {
		t.Errorf("count error %.9f, want (shed + in flight)/emitted = %.9f", countErr, want)
	}
	within(t, "count error against 1 − μ/λ", countErr, 0.5, 0.002)
	t.Logf("shed %d (fraction %.4f), in flight %d, count error %.4f", c.Shed, c.ShedFraction, d.InFlight, countErr)
}

// TestOperatorSheddingLatency: without shedding count's queue grows at
// λ − μ until its buffers are full, and a record served at t came in at
// tμ/λ (first in, first out, none lost): its latency is t(1 − μ/λ), the
// p99 of the interval ending at t is t/2 (the first 10s, within the
// buffer timeout: a record waits up to 100ms in the source's output
// buffer, which the latency counts). With
// latency_over L every record served at count is at most L old when
// taken, so count's latency is at most L + its 2ms service; the sink's
// p99 adds at most the buffer timeout (100ms: the output flusher ships
// count's partly filled buffers), L + 102ms; and the shed fraction is
// that of the load: 1 − μ/λ.
func TestOperatorSheddingLatency(t *testing.T) {
	_, rows := runRows(t, opShedJob(""), "count")
	for k := 0; k < 10; k++ {
		near(t, fmt.Sprintf("count's p99 latency (ms) in the interval ending %ds, no shedding", k+1), rows[k].LatencyP99, 500*float64(k+1), 100)
	}
	const L = 200.0 // ms
	s, rows := runRows(t, opShedJob("{latency_over: 200ms}"), "count")
	c, o := vertex(t, s, "count"), vertex(t, s, "out")
	if *c.LatencyMax > L+2 {
		t.Errorf("count's latency reached %.3fms, want at most L + 2ms = %.0fms", *c.LatencyMax, L+2)
	}
	if *o.LatencyP99 > L+102 {
		t.Errorf("the sink's p99 latency %.3fms, want at most L + 2ms + 100ms = %.0fms", *o.LatencyP99, L+102)
	}
	for _, r := range rows {
		if r.Shed.Rate > 1000 || !r.Shed.On {
			t.Fatalf("a row's shed rate %.1f/s (on %v), want at most the arrival rate", r.Shed.Rate, r.Shed.On)
		}
	}
	within(t, "shed fraction", c.ShedFraction, 0.5, 0.005)
	within(t, "shed rate at 50s (records/s)", rows[49].Shed.Rate, 500, 0.05)
}
