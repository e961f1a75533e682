package sim_test

import (
	"slices"
	"strings"
	"testing"
)

// TestLateSideOutput: a window with late_output sends the records later
// than its allowed lateness to that side output, read by a sink, in
// place of dropping them (Flink's sideOutputLateData; WindowOperator
// then increments numLateRecordsDropped for none of them). With the same
// seed, the run with the side output fires the same windows, drops
// nothing, and its sinks deliver exactly the results of the run without
// it plus the records that run dropped: the late sink's records are the
// dropped source records, each delivered once under its own id.
func TestLateSideOutput(t *testing.T) {
	job := windowJob(t, "2000s", "{process: poisson, rate: 10/s}", "{count: 4}",
		"{strategy: punctuated, bounded_out_of_orderness: 2s}", "{distribution: exponential, mean: 1s}", "{kind: tumbling, size: 1s}")
	a := run(t, parse(t, "drop.yaml", job))
	wa := eventTime(t, a, "win")
	dropped := *wa.NumLateRecordsDropped
	if dropped < 100 {
		t.Fatalf("numLateRecordsDropped %d without the side output: want at least 100 for the test to mean something", dropped)
	}
	if wa.LateRecordsSideOutput != nil {
		t.Errorf("late_records_side_output %d without a late output, want absent", *wa.LateRecordsSideOutput)
	}

	side := strings.Replace(string(job), "{kind: tumbling, size: 1s}", "{kind: tumbling, size: 1s, late_output: late-data}", 1) +
		"  - name: late\n    input: late-data\n"
	b := run(t, parse(t, "side.yaml", []byte(side)))
	wb := eventTime(t, b, "win")
	if got := *wb.NumLateRecordsDropped; got != 0 {
		t.Errorf("numLateRecordsDropped %d with a late output, want 0 (Flink counts only records dropped)", got)
	}
	if wb.LateRecordsSideOutput == nil || *wb.LateRecordsSideOutput != dropped {
		t.Errorf("late_records_side_output %v, want %d (the records the run without it dropped)", wb.LateRecordsSideOutput, dropped)
	}
	if *wb.Firings != *wa.Firings {
		t.Errorf("firings %d with the side output, %d without: the windows should not change", *wb.Firings, *wa.Firings)
	}
	if b.Delivery.Emitted != a.Delivery.Emitted {
		t.Fatalf("emitted %d with the side output, %d without: the same seed should emit the same records", b.Delivery.Emitted, a.Delivery.Emitted)
	}
	if want := a.Delivery.Delivered + dropped; b.Delivery.Delivered != want {
		t.Errorf("delivered %d with the side output, want %d (%d results + %d late records)", b.Delivery.Delivered, want, a.Delivery.Delivered, dropped)
	}
	if b.Delivery.Duplicated != 0 || b.Delivery.Lost != 0 {
		t.Errorf("duplicated %d, lost %d with the side output, want 0, 0", b.Delivery.Duplicated, b.Delivery.Lost)
	}

	// through an operator: the late records leave the side output as
	// records like any other, so the map forwards them to its sink
	mapped := strings.Replace(side, "  - name: late\n    input: late-data\n",
		"  - name: late\n    input: fix\n", 1)
	mapped = strings.Replace(mapped, "sinks:\n", "  - name: fix\n    input: late-data\n    service_time: {mean: 0s}\nsinks:\n", 1)
	c := run(t, parse(t, "mapped.yaml", []byte(mapped)))
	if c.Delivery.Delivered != b.Delivery.Delivered {
		t.Errorf("delivered %d with the late records through a map, want %d as straight into a sink", c.Delivery.Delivered, b.Delivery.Delivered)
	}
	t.Logf("late: %d of %d records; results delivered %d, with the side output %d", dropped, a.Delivery.Emitted, a.Delivery.Delivered, b.Delivery.Delivered)
}

// TestLateAdviceForMonotonous: with monotonous watermarks (B = 0, no field
// to raise) the late-data advice says to switch the strategy, not to
// raise bounded_out_of_orderness, which that strategy refuses.
func TestLateAdviceForMonotonous(t *testing.T) {
	s := run(t, parse(t, "mono.yaml", windowJob(t, "20s", "{process: constant, rate: 1000/s}", "{count: 10}",
		"{strategy: monotonous}", "{distribution: exponential, mean: 200ms}", "{kind: tumbling, size: 1s}")))
	var got string
	for _, d := range s.EventTime.Diagnosis {
		if strings.Contains(d, "were late") {
			got = d
		}
	}
	if !strings.Contains(got, "monotonous watermarks allow no disorder; use strategy: bounded_out_of_orderness with bounded_out_of_orderness past the p99 out-of-orderness") ||
		strings.Contains(got, "raise bounded_out_of_orderness") {
		t.Errorf("late-data advice with monotonous watermarks: %q", got)
	}
}

// TestNoWindowFired: a tumbling window as long as the run never fires
// (the punctuated watermark after the last record, at 9.99s, is 9.99s −
// 1ns, short of the window's end at 10s); the diagnosis says where the
// records are, which the records line (0 reached the sinks, 0 lost) does
// not: 999 in the window (the records of 10ms..9.99s), the one of 10s
// still on its way.
func TestNoWindowFired(t *testing.T) {
	s := run(t, parse(t, "nofire.yaml", windowJob(t, "10s", "{process: constant, rate: 100/s}", "{count: 1}",
		"{strategy: punctuated}", "", "{kind: tumbling, size: 10s}")))
	want := "no window of win fired by the end: a window fires once the watermark passes its end, and its input watermark is at 9.99s; the 999 records it took in wait in its windows"
	var got string
	for _, d := range s.EventTime.Diagnosis {
		if strings.HasPrefix(d, "no window") {
			got = d
		}
	}
	if got != want || s.Totals.Delivered != 0 {
		t.Errorf("%d delivered, diagnosis %q; want 0 and %q", s.Totals.Delivered, got, want)
	}
}

// TestEventTimesBeforeZero: a constant event_delay of 500ms on a source of
// 100/s from 10ms on puts the records of 10ms..490ms (49) before 0, in
// the window [-1s, 0s), which fires too; the diagnosis says so (a student
// counting 100 keys × windows of the run finds one window more).
func TestEventTimesBeforeZero(t *testing.T) {
	s := run(t, parse(t, "before0.yaml", windowJob(t, "10s", "{process: constant, rate: 100/s}", "{count: 1}",
		"{strategy: punctuated}", "{distribution: constant, mean: 500ms}", "{kind: tumbling, size: 1s}")))
	want := "49 records from src had an event time before 0 (its event_delay longer than its arrival time): these fall in windows that start before 0, which fire too"
	if !slices.Contains(s.EventTime.Diagnosis, want) {
		t.Errorf("event-time diagnosis %q, want %q", s.EventTime.Diagnosis, want)
	}
}
