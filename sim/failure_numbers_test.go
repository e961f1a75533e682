package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The numbers shown around failures (issue 12, the new-user test): each
// test runs what the user ran and checks the table, the diagnosis and
// summary.json against each other.

// runBuiltin runs built-in name, cut to duration when it is not 0, with
// extra YAML appended, and returns the result and its table.
func runBuiltin(t *testing.T, name string, duration des.Time, extra string) (*Result, string) {
	t.Helper()
	sc := mustLoadBuiltin(t, name)
	if extra != "" {
		b, err := scenarios.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if sc, err = scenario.Parse(name+".yaml", append(b, extra...)); err != nil {
			t.Fatal(err)
		}
	}
	if duration > 0 {
		sc.Duration = duration
	}
	return runTable(t, sc)
}

// runTable runs sc and returns the result and its table.
func runTable(t *testing.T, sc *scenario.Scenario) (*Result, string) {
	t.Helper()
	_, res := runSim(t, sc, Options{})
	var b strings.Builder
	if err := WriteTable(&b, &res.Summary); err != nil {
		t.Fatal(err)
	}
	return res, b.String()
}

func wantIn(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func wantNotIn(t *testing.T, what, text string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(text, w) {
			t.Errorf("%s has %q:\n%s", what, w, text)
		}
	}
}

func diagnosisText(d Diagnosis) string { return d.Message + "\n" + strings.Join(d.Evidence, "\n") }

// A run that ends while a dead worker is not noticed yet (exactly-once cut
// to 50s: worker 1 dies at 45s, its heartbeat times out at 55s) was down
// 5s, from the failure to the end, and has not recovered: the failure is
// listed, and the diagnosis names the lost worker and explains the
// source's back-pressure while it waited for it. Records of 4KiB, 8 to a
// buffer, fill the buffers into the dead subtasks in seconds (at 100B, 327
// to a buffer, they hold the 10s of records the sources send there).
func TestUnnoticedLostWorkerIsDown(t *testing.T) {
	sc := mustLoadBuiltin(t, "exactly-once")
	sc.Duration, sc.Sources[0].RecordSize = 50*des.Second, 4096
	res, table := runTable(t, sc)
	r := res.Summary.Recovery
	if r.JobState != JobRunning || r.Failures != 1 || r.Restarts != 0 {
		t.Fatalf("recovery %+v: want running, 1 failure, 0 restarts", r)
	}
	if r.DowntimeS != 5 || r.DetectionS != 5 || r.RestartDelayS != 0 || r.RestoreS != 0 || r.TerminalS != 0 {
		t.Errorf("downtime %g = %g detection + %g delay + %g restore + %g terminal: want 5 = 5 detection", r.DowntimeS, r.DetectionS, r.RestartDelayS, r.RestoreS, r.TerminalS)
	}
	if r.MaxRecoveryTime != -1 || r.MaxCatchUpTime != -1 {
		t.Errorf("max recovery %g, catch-up %g: want -1 (not recovered)", r.MaxRecoveryTime, r.MaxCatchUpTime)
	}
	if len(r.Failovers) != 1 {
		t.Fatalf("failovers %+v: want the unnoticed failure listed", r.Failovers)
	}
	fo := r.Failovers[0]
	if fo.FailedS != 45 || fo.DetectedS != -1 || fo.RecoveredS != -1 || fo.RecoveryTime != -1 || fo.LagAtRecovery != -1 ||
		fo.Cause != "worker 1 failed; not noticed by the end, heartbeat_timeout 10s" {
		t.Errorf("failover %+v: want failed at 45s, not detected, not recovered", fo)
	}
	wantIn(t, "table", table, "recovery: 1 failure, 0 restarts; down 5s from the failure to the end (5s detection so far); job running (worker 1 failed; not noticed by the end, heartbeat_timeout 10s)")
	d := diagnosisText(res.Summary.Diagnosis)
	wantIn(t, "diagnosis", d,
		"sensors is LOW, back-pressured 12%, 12% of the window while worker 1 was lost and not yet noticed",
		"was down 5s from the failure to the end (5s detection so far): worker 1 was lost at 45s and not noticed by the end")
	wantNotIn(t, "diagnosis", d, "down 0s")
}

// A scripted failure of a worker that runs no subtask does nothing: the
// table says so in a note and summary.json lists it apart from the
// failures.
func TestFailureWithoutEffectIsShown(t *testing.T) {
	sc, err := scenario.Parse("ft.yaml", []byte(strings.Replace(fmt.Sprintf(pipeline, 1, true, scenario.DeliveryAtLeastOnce), "count: 2, slots: 2", "count: 4, slots: 2", 1)+`failures:
  - {kind: worker, at: 20s, worker: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, res := runSim(t, sc, Options{})
	r := res.Summary.Recovery
	var b strings.Builder
	if err := WriteTable(&b, &res.Summary); err != nil {
		t.Fatal(err)
	}
	runs := map[int]bool{}
	for _, v := range res.Summary.Vertices {
		for _, st := range v.Subtasks {
			runs[st.Worker] = true
		}
	}
	if runs[3] {
		t.Fatalf("worker 3 runs a subtask: the test needs one that runs none")
	}
	if r.Failures != 0 || len(r.WithoutEffect) != 1 || r.WithoutEffect[0].AtS != 20 ||
		r.WithoutEffect[0].What != "worker 3 failed; it ran no subtask, so the job carries on" {
		t.Errorf("recovery %+v: want 0 failures and the one without effect listed", r)
	}
	wantIn(t, "table", b.String(), "\nnote: at 20s worker 3 failed; it ran no subtask, so the job carries on: the failure had no effect\n")
}

// Failures without effect by the hundred (a script, or random failures of
// idle workers) are counted, listed up to a bound and printed in a few
// notes.
func TestManyFailuresWithoutEffect(t *testing.T) {
	var y strings.Builder
	y.WriteString("failures:\n")
	for i := range 105 {
		fmt.Fprintf(&y, "  - {kind: worker, at: %dms, worker: 3}\n", 1000+500*i)
	}
	sc, err := scenario.Parse("ft.yaml", []byte(strings.Replace(fmt.Sprintf(pipeline, 1, true, scenario.DeliveryAtLeastOnce), "count: 2, slots: 2", "count: 4, slots: 2", 1)+y.String()))
	if err != nil {
		t.Fatal(err)
	}
	_, res := runSim(t, sc, Options{})
	r := res.Summary.Recovery
	if r.Failures != 0 || r.WithoutEffectCount != 105 || len(r.WithoutEffect) != maxWithoutEffect {
		t.Errorf("recovery: %d failures, %d without effect, %d listed: want 0, 105, %d", r.Failures, r.WithoutEffectCount, len(r.WithoutEffect), maxWithoutEffect)
	}
	var b strings.Builder
	if err := WriteTable(&b, &res.Summary); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\nnote: "); n != 4 {
		t.Errorf("%d note lines, want 3 and one for the rest:\n%s", n, b.String())
	}
	wantIn(t, "table", b.String(), "\nnote: at 2s worker 3 failed;", "\nnote: and 102 failures more without effect (summary.json recovery.failures_without_effect)\n")
}

// rocksdb-vs-heap fails for good: the downtime's parts add up (the part
// after the job failed for good has a field of its own), the diagnosis
// names every part as the recovery line does, and the last failover,
// never recovered, has no lag at a recovery.
func TestDowntimePartsAddUp(t *testing.T) {
	res, table := runBuiltin(t, "rocksdb-vs-heap", 0, "")
	r := res.Summary.Recovery
	if r.JobState != JobFailed {
		t.Fatalf("job %s: want failed", r.JobState)
	}
	if sum := r.DetectionS + r.RestartDelayS + r.RestoreS + r.TerminalS; math.Abs(sum-r.DowntimeS) > 2e-6 || r.TerminalS <= 0 {
		t.Errorf("downtime %g != %g detection + %g delay + %g restore + %g terminal", r.DowntimeS, r.DetectionS, r.RestartDelayS, r.RestoreS, r.TerminalS)
	}
	line := "down 31.55s in all, from each failure to running again or to the end (15s restart delay, 9.392s restore, then 7.158s failed)"
	wantIn(t, "table", table, "recovery: 4 failures (out of memory ×4), 3 restarts; "+line)
	wantIn(t, "diagnosis", diagnosisText(res.Summary.Diagnosis), "was "+line)
	if last := r.Failovers[len(r.Failovers)-1]; last.RecoveredS != -1 || last.LagAtRecovery != -1 {
		t.Errorf("last failover %+v: want not recovered, lag at recovery -1", last)
	}
	for _, fo := range r.Failovers[:len(r.Failovers)-1] {
		if fo.LagAtRecovery < 0 {
			t.Errorf("failover %+v recovered: want its lag at the recovery", fo)
		}
	}
}

// A job that is restarting at the end never ran again: the diagnosis
// words its downtime as the recovery line does.
func TestDowntimeToTheEnd(t *testing.T) {
	res, table := runBuiltin(t, "checkpoint-interval", 117500*des.Millisecond, "")
	r := res.Summary.Recovery
	if r.JobState != JobRestarting {
		t.Fatalf("job %s: want restarting", r.JobState)
	}
	want := "down 500ms from the failure to the end (500ms restart delay)"
	wantIn(t, "table", table, want)
	d := diagnosisText(res.Summary.Diagnosis)
	wantIn(t, "diagnosis", d, "was "+want)
	wantNotIn(t, "diagnosis", d, "to running again")
}

// Skew stays skew when failures cut into the window: hot-key's count[2]
// is busy whenever it runs.
func TestSkewNamedUnderFailures(t *testing.T) {
	res, _ := runBuiltin(t, "hot-key", 0, `failures:
  - {kind: task, at: 30s, vertex: count, subtask: 2}
  - {kind: worker, at: 70s, worker: 0}
`)
	d := res.Summary.Diagnosis
	if d.Kind != DiagnosisSkew || d.Vertex != "count" || d.Subtask == nil || *d.Subtask != 2 {
		t.Fatalf("diagnosis %+v: want skew at count subtask 2", d)
	}
	wantIn(t, "diagnosis", d.Message, "skew: count subtask 2 is the bottleneck", "busy 100% of the time it ran (down 46% of the window)", "but the job failed: 2 failures")
}

// A socket source keeps no backlog: after a restart nothing is caught up
// with, and the table says why instead of a catch-up time.
func TestNoCatchUpWithoutReplay(t *testing.T) {
	res, table := runBuiltin(t, "socket-source-failure", 0, "")
	r := res.Summary.Recovery
	if r.SourcesReplayable || r.MaxCatchUpTime != -1 || r.Failovers[0].CaughtUpS != -1 {
		t.Errorf("recovery %+v: want no replayable source and no catch-up", r)
	}
	wantIn(t, "table", table, "; no backlog to catch up: the source is not replayable (the records inside the job when it failed are lost, not replayed); job running")
	wantNotIn(t, "table", table, "caught up")
	wantIn(t, "diagnosis", diagnosisText(res.Summary.Diagnosis), "no source is replayable, so a restart leaves no backlog to catch up with")
	wantNotIn(t, "diagnosis", diagnosisText(res.Summary.Diagnosis), "replaying the backlog")
}

// The records line counts every emission, the delivery line distinct
// records: two names for two numbers.
func TestEmittedCountsHaveTwoNames(t *testing.T) {
	res, table := runBuiltin(t, "at-least-once", 0, "")
	d, tot := res.Summary.Delivery, res.Summary.Totals
	if d.Replayed == 0 || d.EmittedDistinct != d.Emitted || d.Emitted != tot.Emitted-d.Replayed {
		t.Fatalf("delivery %+v, totals %+v: want distinct = emitted = records emitted - replayed, replays > 0", d, tot)
	}
	wantIn(t, "table", table,
		"records: "+strconv.FormatUint(tot.Emitted, 10)+" emitted incl. "+strconv.FormatUint(d.Replayed, 10)+" replays,",
		"delivery: "+strconv.FormatUint(d.Emitted, 10)+" distinct records emitted,")
}

// The records line counts every write that reached a sink, the delivery
// line each record once, once visible: two numbers, two names, and
// "delivered" only for the second.
func TestDeliveredCountsHaveTwoNames(t *testing.T) {
	res, table := runBuiltin(t, "exactly-once", 0, "")
	d, tot := res.Summary.Delivery, res.Summary.Totals
	if d.Replayed == 0 || tot.Delivered <= d.Delivered {
		t.Fatalf("delivery %+v, totals %+v: want replays and more writes than distinct deliveries", d, tot)
	}
	wantIn(t, "table", table,
		", "+strconv.FormatUint(tot.Delivered, 10)+" reached the sinks incl. replays, ",
		", "+strconv.FormatUint(d.Delivered, 10)+" delivered, ")
	if n := strings.Count(table, " delivered,"); n != 1 {
		t.Errorf("table has %d counts called delivered, want 1:\n%s", n, table)
	}
}

// "Nothing is back-pressured" next to an OK source back-pressured 8%:
// the diagnosis says beyond what.
func TestNoBottleneckSaysBeyondOK(t *testing.T) {
	res, _ := runBuiltin(t, "mm1", 0, "")
	wantIn(t, "diagnosis", res.Summary.Diagnosis.Message, "nothing is back-pressured beyond OK (<= 10%)")
}

// A source lag of one record is "1 record".
func TestSourceLagPlural(t *testing.T) {
	var b strings.Builder
	for lag, want := range map[uint64]string{1: "; source lag 1 record\n", 2: "; source lag 2 records\n"} {
		b.Reset()
		if err := WriteTable(&b, &Summary{Scenario: "x", Totals: Totals{SourceLag: lag}, Vertices: []VertexSummary{}}); err != nil {
			t.Fatal(err)
		}
		wantIn(t, "table", b.String(), want)
	}
}

// A keyed state past a worker's memory on the heap backend fails the
// worker (OutOfMemoryError) after every restart, and the text says so:
// rocksdb-vs-heap's 256MiB workers run out at about 33s and again after
// each of the 3 fixed-delay restarts, so all 4 failovers are of kind
// out-of-memory, the recovery line counts them, and the message of the
// job failed for good names the last one, not only the restart strategy.
func TestKeyedOutOfMemoryIsNamed(t *testing.T) {
	res, text := runTable(t, mustLoadBuiltin(t, "rocksdb-vs-heap"))
	r := res.Summary.Recovery
	if r == nil || r.Failures != 4 || len(r.Failovers) != 4 || r.JobState != JobFailed {
		t.Fatalf("recovery %+v; want 4 failures, the job failed", r)
	}
	for i, fo := range r.Failovers {
		if fo.Kind != "out-of-memory" || !strings.HasPrefix(fo.Cause, "worker 1 ran out of memory: ") {
			t.Errorf("failover %d: kind %q, cause %q; want out-of-memory, worker 1", i, fo.Kind, fo.Cause)
		}
	}
	wantIn(t, "rocksdb-vs-heap", text,
		"recovery: 4 failures (out of memory ×4), 3 restarts;",
		"job failed for good at 82.842s: fixed-delay: all 3 restart attempts used; the last failure: worker 1 ran out of memory: 268443648 bytes (256.01MiB) of heap state exceed its memory of 268435456 bytes (256MiB) (java.lang.OutOfMemoryError: Java heap space); the rocksdb state backend keeps state on disk")
}

// The recovery line counts failovers by kind only when one of them came
// from the job itself; the scenario's own failures need no naming.
func TestCausesText(t *testing.T) {
	for _, tc := range []struct {
		kinds []string
		want  string
	}{
		{nil, ""},
		{[]string{"task", "worker"}, ""},
		{[]string{"out-of-memory"}, " (out of memory ×1)"},
		{[]string{"task", "out-of-memory", "task", "checkpoint"}, " (task ×2, out of memory ×1, failed checkpoints ×1)"},
	} {
		r := &RecoverySummary{}
		for _, k := range tc.kinds {
			r.Failovers = append(r.Failovers, FailoverStats{Kind: k})
		}
		if got := r.causesText(); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.kinds, got, tc.want)
		}
	}
}

// A source busy reading at its max_rate, ending behind, with nothing
// downstream back-pressured or saturated, is the limit: queue-vs-log with
// a queue that never pages (memory_bound 1e6) said "no bottleneck ... the
// busiest, invoices, is busy 0%" above a table of billing busy 96% and a
// queue 27691 deep.
func TestSourceAtMaxRateIsOverCapacity(t *testing.T) {
	sc := mustLoadBuiltin(t, "queue-vs-log")
	sc.Queues[0].MemoryBound = 1000000
	res, _ := runTable(t, sc)
	d := res.Summary.Diagnosis
	want := "over capacity: the source billing is busy 96% reading at its max_rate and ends 27691 records behind, so what it reads from keeps growing; raise its max_rate or its parallelism"
	if d.Kind != DiagnosisOverloaded || d.Vertex != "billing" || d.Message != want {
		t.Errorf("diagnosis %s at %s: %q\nwant overloaded at billing: %q", d.Kind, d.Vertex, d.Message, want)
	}
}
