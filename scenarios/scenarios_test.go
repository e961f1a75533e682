package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// The tests below run the built-in scenarios of the fault-tolerance
// lessons and check that each teaches what its opening comment says, with
// the numbers a student reads in the summary.

// source returns the YAML of built-in scenario name.
func source(t *testing.T, name string) []byte {
	t.Helper()
	b, err := scenarios.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parse parses YAML as built-in scenario name would be.
func parse(t *testing.T, name string, b []byte) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(name+".yaml", b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return sc
}

func load(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	return parse(t, name, source(t, name))
}

// edit returns built-in scenario name with the text old replaced by new,
// as a student following its comment would change it.
func edit(t *testing.T, name, old, new string) *scenario.Scenario {
	t.Helper()
	b := source(t, name)
	if bytes.Count(b, []byte(old)) != 1 {
		t.Fatalf("%s: %q is not in the file exactly once", name, old)
	}
	return parse(t, name, bytes.Replace(b, []byte(old), []byte(new), 1))
}

// sampler is an Observer that hands every sample to fn.
type sampler func(s *sim.Sample)

func (f sampler) Sample(s *sim.Sample) { f(s) }
func (sampler) Event(sim.Event)        {}

func run(t *testing.T, sc *scenario.Scenario, obs sim.Observer) *sim.Result {
	t.Helper()
	res, err := sim.Run(context.Background(), sc, sim.Options{Observer: obs})
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	if res.Summary.Partial {
		t.Fatalf("%s: partial run: %s", sc.Name, res.Summary.PartialReason)
	}
	return res
}

func vertex(t *testing.T, s *sim.Summary, name string) sim.VertexSummary {
	t.Helper()
	for _, v := range s.Vertices {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("%s: no vertex %q", s.Scenario, name)
	return sim.VertexSummary{}
}

// onlyFailover returns the single failover of a run.
func onlyFailover(t *testing.T, s *sim.Summary) sim.FailoverStats {
	t.Helper()
	r := s.Recovery
	if r == nil || r.Failures != 1 || len(r.Failovers) != 1 {
		t.Fatalf("%s: recovery %+v, want exactly one failure", s.Scenario, r)
	}
	return r.Failovers[0]
}

// Every built-in scenario opens with a comment that says what to look at,
// and is named after its file.
func TestEveryScenarioSaysWhatToLookAt(t *testing.T) {
	for _, name := range scenarios.Names() {
		b := source(t, name)
		head, _, _ := bytes.Cut(b, []byte("\nname:"))
		if !bytes.HasPrefix(b, []byte("# ")) || !bytes.Contains(head, []byte("Look at")) {
			t.Errorf("%s: does not open with a comment saying what to look at", name)
		}
		if sc := parse(t, name, b); sc.Name != name {
			t.Errorf("%s.yaml is named %q", name, sc.Name)
		}
	}
}

// The same back-pressured job: aligned barriers queue behind 14.7 to
// 20.8 s of buffered records (full buffers of 4 records of 8KiB), and
// enrich, reading two unevenly loaded parse subtasks, aligns for seconds;
// checkpoints 1 and 3 time out at 22 s, 2 completes just under it. Unaligned ones overtake the
// records and complete in milliseconds, persisting what they overtook.
func TestAlignedTimesOutWhereUnalignedCompletes(t *testing.T) {
	al := run(t, load(t, "checkpoint-aligned"), nil)
	cs := al.Summary.Checkpoints
	if cs == nil || cs.Completed != 1 || cs.Failed != 2 {
		t.Fatalf("aligned: %+v, want 1 completed and 2 timed out", cs)
	}
	for i, c := range al.Checkpoints {
		switch {
		case c.StartDelay < 14000:
			t.Errorf("aligned checkpoint %+v: want a start delay over 14s", c)
		case i == 1 && (c.Status != sim.CheckpointCompleted || c.EndToEnd < 20000 || c.EndToEnd > 22000 || c.Acked != 5 || c.Alignment < 1000):
			t.Errorf("aligned checkpoint %+v: want completed in 20 to 22s by all 5 subtasks, aligned over 1s", c)
		case i != 1 && (c.Status != sim.CheckpointTimedOut || c.EndToEnd != 22000 || c.Acked != 3 || c.Subtasks != 5):
			t.Errorf("aligned checkpoint %+v: want timed out after 22s with 3 of 5 acknowledged", c)
		}
	}

	// the comment's advice: with a 1-minute timeout they complete in 20.8 to 23.3s
	long := edit(t, "checkpoint-aligned", "timeout: 22s}", "timeout: 1m}")
	res := run(t, long, nil)
	if cs := res.Summary.Checkpoints; cs.Completed != 3 || cs.Failed != 0 {
		t.Fatalf("aligned, timeout 1m: %+v, want 3 completed", cs)
	}
	for _, c := range res.Checkpoints {
		if c.EndToEnd < 20000 || c.EndToEnd > 24000 || c.Persisted != 0 || c.StateSize == 0 {
			t.Errorf("aligned, timeout 1m: checkpoint %+v, want 20 to 24s, state and no in-flight data", c)
		}
	}

	un := run(t, load(t, "checkpoint-unaligned"), nil)
	cs = un.Summary.Checkpoints
	if cs == nil || cs.Mode != scenario.CheckpointUnaligned || cs.Completed != 3 || cs.Failed != 0 || cs.MaxPersisted <= 0 {
		t.Fatalf("unaligned: %+v, want 3 completed with persisted in-flight data", cs)
	}
	inFlight := un.Summary.Totals.InFlight
	for _, c := range un.Checkpoints {
		if c.Status != sim.CheckpointCompleted || c.EndToEnd > 100 || c.StartDelay != 0 {
			t.Errorf("unaligned checkpoint %+v: want completed within 100ms, start delay 0", c)
		}
		// the overtaken records: about as many as are in flight at the
		// end, 8KiB each, in full buffers of 4 (a flush does not close a
		// buffer): 46 to 55 buffers' worth of 32KiB
		if c.Persisted%8192 != 0 || float64(c.Persisted)/8192 < 0.5*float64(inFlight) || float64(c.Persisted)/8192 > 1.5*float64(inFlight) {
			t.Errorf("unaligned checkpoint %d persisted %d bytes, want about %d records of 8KiB", c.ID, c.Persisted, inFlight)
		}
		if n := float64(c.Persisted) / 32768; n < 40 || n > 60 {
			t.Errorf("unaligned checkpoint %d persisted %.2f buffers of 32KiB, want 46 to 55, the buffers held under back-pressure", c.ID, n)
		}
		if c.StateSize == 0 {
			t.Errorf("unaligned checkpoint %d: no keyed state", c.ID)
		}
	}
	t.Logf("aligned: start delays up to %.0fms, all timed out; unaligned: %.1fms, %d bytes in flight persisted",
		al.Summary.Checkpoints.MaxStartDelay, *cs.MaxDuration, cs.MaxPersisted)
}

// Stop-the-world holds the sources for the whole checkpoint; aligned
// checkpoints take as long (the upload) but the records keep flowing.
func TestStopTheWorldHoldsTheSources(t *testing.T) {
	measure := func(sc *scenario.Scenario) (held float64, s sim.Summary) {
		sc.Metrics.Interval = 100 * des.Millisecond
		bins, zero := 0, 0
		res := run(t, sc, sampler(func(smp *sim.Sample) {
			if smp.Time <= sc.Warmup || smp.Interval != sc.Metrics.Interval {
				return
			}
			for _, r := range smp.Rows {
				if r.Vertex == "sensors" && r.Subtask == -1 {
					bins++
					if r.OutRate == 0 {
						zero++
					}
				}
			}
		}))
		return float64(zero) / float64(bins), res.Summary
	}
	stwHeld, stw := measure(load(t, "stop-the-world"))
	alHeld, al := measure(edit(t, "stop-the-world", "mode: stop-the-world ", "mode: aligned "))

	if stw.Checkpoints.Mode != scenario.CheckpointStopTheWorld || al.Checkpoints.Mode != scenario.CheckpointAligned {
		t.Fatalf("modes %s and %s", stw.Checkpoints.Mode, al.Checkpoints.Mode)
	}
	so, ao := stw.Checkpoints.Overhead, al.Checkpoints.Overhead
	if so < 0.1 || so < ao {
		t.Errorf("in_progress_ratio: stop-the-world %.3f, aligned %.3f; want stop-the-world >= 0.1 and >= aligned", so, ao)
	}
	// the sources emit nothing while a stop-the-world checkpoint runs
	if math.Abs(stwHeld-so) > 0.03 {
		t.Errorf("stop-the-world: the source emitted nothing in %.3f of the time, in_progress_ratio %.3f; want them equal", stwHeld, so)
	}
	if alHeld > 0.005 {
		t.Errorf("aligned: the source emitted nothing in %.3f of the time, want 0", alHeld)
	}
	sp99, ap99 := *vertex(t, &stw, "out").LatencyP99, *vertex(t, &al, "out").LatencyP99
	if sp99 < 3*ap99 {
		t.Errorf("sink latency p99: stop-the-world %.0fms, aligned %.0fms; want stop-the-world over 3 times aligned", sp99, ap99)
	}
	if stw.Totals.Emitted != al.Totals.Emitted {
		t.Errorf("emitted: stop-the-world %d, aligned %d; a replayable source catches up", stw.Totals.Emitted, al.Totals.Emitted)
	}
	t.Logf("stop-the-world: in progress %.3f, held %.3f, p99 %.0fms; aligned: in progress %.3f, held %.3f, p99 %.0fms",
		so, stwHeld, sp99, ao, alHeld, ap99)
}

// Aligned checkpoints, a replayable source and a transactional sink: a
// worker failure loses nothing and duplicates nothing, for any seed.
func TestExactlyOnce(t *testing.T) {
	sc := load(t, "exactly-once")
	for seed := uint64(1); seed <= 10; seed++ {
		sc.Seed = seed
		s := run(t, sc, nil).Summary
		d, r := s.Delivery, s.Recovery
		if d.Lost != 0 || d.Duplicated != 0 || d.Delivered == 0 || d.Replayed == 0 {
			t.Errorf("seed %d: delivery %+v, want 0 lost, 0 duplicated, records delivered and replayed", seed, d)
		}
		if r.JobState != sim.JobRunning || r.Restarts != 1 {
			t.Errorf("seed %d: recovery %+v, want 1 restart and the job running", seed, r)
		}
		fo := onlyFailover(t, &s)
		if fo.FailedS != 45 || fo.DetectedS != 55 || fo.Checkpoint != 4 || fo.ToReplay != 0 {
			t.Errorf("seed %d: failover %+v, want failed at 45s, detected at 55s, checkpoint 4 restored, nothing committed to replay", seed, fo)
		}
		// output waits for the checkpoint that covers it: half the 10s interval
		if p50 := *vertex(t, &s, "out").LatencyP50; p50 < 4000 || p50 > 6000 {
			t.Errorf("seed %d: sink latency p50 %.0fms, want about 5s", seed, p50)
		}
		if seed == 1 {
			t.Logf("exactly-once: %d delivered, %d replayed, 0 lost, 0 duplicated", d.Delivered, d.Replayed)
		}
	}
}

// The same job with an at-least-once sink: what the sink had written and
// the rewound source reads again is written twice; nothing is lost.
func TestAtLeastOnceDuplicatesTheReplay(t *testing.T) {
	s := run(t, load(t, "at-least-once"), nil).Summary
	d, fo := s.Delivery, onlyFailover(t, &s)
	if d.Lost != 0 || d.Duplicated == 0 || d.Duplicated != fo.ToReplay || d.Duplicated > d.Replayed {
		t.Errorf("delivery %+v, failover %+v: want 0 lost and duplicated = delivered_to_replay > 0, at most the replayed", d, fo)
	}
	if s.Recovery.Restarts != 1 || fo.Checkpoint != 4 {
		t.Errorf("recovery %+v: want 1 restart from checkpoint 4", s.Recovery)
	}
	eo := run(t, load(t, "exactly-once"), nil).Summary
	if d.Emitted != eo.Delivery.Emitted || d.Replayed != eo.Delivery.Replayed {
		t.Errorf("emitted/replayed %d/%d, exactly-once %d/%d: the sink should change neither", d.Emitted, d.Replayed, eo.Delivery.Emitted, eo.Delivery.Replayed)
	}
	if al, ex := *vertex(t, &s, "out").LatencyP50, *vertex(t, &eo, "out").LatencyP50; al*10 > ex {
		t.Errorf("sink latency p50: at-least-once %.0fms, exactly-once %.0fms; want at-least-once far lower", al, ex)
	}
	t.Logf("at-least-once: %d duplicated = delivered_to_replay, %d replayed, 0 lost", d.Duplicated, d.Replayed)
}

// A socket source cannot rewind: the records inside the job at the
// failover are lost, and nothing is read or written twice.
func TestSocketSourceLosesRecords(t *testing.T) {
	s := run(t, load(t, "socket-source-failure"), nil).Summary
	d, fo := s.Delivery, onlyFailover(t, &s)
	if d.Lost == 0 || d.Lost != fo.Lost || d.Duplicated != 0 || d.Replayed != 0 {
		t.Errorf("delivery %+v, failover %+v: want lost > 0 (as the failover counted), 0 duplicated, 0 replayed", d, fo)
	}
	if d.Delivered+d.Lost+d.InFlight != d.Emitted {
		t.Errorf("delivered %d + lost %d + in flight %d != emitted %d", d.Delivered, d.Lost, d.InFlight, d.Emitted)
	}
	if s.Recovery.JobState != sim.JobRunning || s.Recovery.Restarts != 1 {
		t.Errorf("recovery %+v: want 1 restart, running", s.Recovery)
	}
	// one emitted count: the records line's (replays included) less the
	// replays is the delivery line's; a record the socket source had read
	// and not yet written when it failed is dropped, not emitted
	if s.Totals.Emitted != d.Emitted+d.Replayed || s.Totals.Dropped != d.Dropped || fo.Dropped != d.Dropped {
		t.Errorf("records line: %d emitted, %d dropped; delivery: %d emitted, %d replayed, %d dropped; failover dropped %d: want one count each",
			s.Totals.Emitted, s.Totals.Dropped, d.Emitted, d.Replayed, d.Dropped, fo.Dropped)
	}
	t.Logf("socket-source-failure: %d lost of %d emitted, %d dropped", d.Lost, d.Emitted, d.Dropped)

	// the comment's edit: the socket buffer fills while the job is down
	// and is dropped with the failover
	b := run(t, edit(t, "socket-source-failure", "on_backpressure: block ", "buffer_limit: 5000\n    on_backpressure: buffer "), nil).Summary
	bd, bfo := b.Delivery, onlyFailover(t, &b)
	if bfo.Dropped < 100 || bd.Dropped < bfo.Dropped || b.Totals.Emitted != bd.Emitted || b.Totals.Dropped != bd.Dropped ||
		bd.Delivered+bd.Lost+bd.InFlight != bd.Emitted {
		t.Errorf("buffer_limit 5000: records %+v, delivery %+v, failover dropped %d: want hundreds dropped from the buffer, one emitted count, emitted = delivered + lost + in flight",
			b.Totals, bd, bfo.Dropped)
	}
	t.Logf("buffer_limit 5000: %d lost, %d dropped (%d at the failover)", bd.Lost, bd.Dropped, bfo.Dropped)
}

// A JobManager failure: with ZooKeeper HA the job recovers after the
// leader election; without HA (the comment's edit) it is lost.
func TestJobManagerHA(t *testing.T) {
	ha := run(t, load(t, "jobmanager-ha"), nil).Summary
	fo := onlyFailover(t, &ha)
	if r := ha.Recovery; r.JobState != sim.JobRunning || r.Restarts != 1 || r.DowntimeS < 10 || r.DowntimeS > 11 {
		t.Errorf("with HA: recovery %+v, want 1 restart after about 10s (the leader election), running", r)
	}
	if fo.FailedS != 45 || fo.RestartS != 55 || fo.Checkpoint != 4 {
		t.Errorf("with HA: failover %+v, want failed at 45s, restarted at 55s from checkpoint 4", fo)
	}
	if d := ha.Delivery; d.Lost != 0 || d.Duplicated != 0 {
		t.Errorf("with HA: delivery %+v, want 0 lost, 0 duplicated", d)
	}

	none := run(t, edit(t, "jobmanager-ha", "high_availability: {type: zookeeper}", "high_availability: {type: none}"), nil).Summary
	r := none.Recovery
	if r.JobState != sim.JobLost || r.Restarts != 0 || !strings.Contains(r.Message, "job lost at 45s") {
		t.Errorf("without HA: recovery %+v, want the job lost at 45s and no restart", r)
	}
	if none.Delivery.Delivered*2 > ha.Delivery.Delivered || none.Totals.SourceLag < 50000 {
		t.Errorf("without HA: %d delivered (with HA %d), source lag %d; want less than half and a lag growing past 50,000",
			none.Delivery.Delivered, ha.Delivery.Delivered, none.Totals.SourceLag)
	}
	t.Logf("with HA: %.2fs down, %d delivered; without: job lost, %d delivered, lag %d",
		ha.Recovery.DowntimeS, ha.Delivery.Delivered, none.Delivery.Delivered, none.Totals.SourceLag)
}

// Large state: on the heap the worker runs out of memory again and again
// until the restart strategy gives up; in RocksDB (the comment's edit) the
// job survives, slower.
func TestRocksDBVsHeap(t *testing.T) {
	heap := run(t, load(t, "rocksdb-vs-heap"), nil).Summary
	r := heap.Recovery
	if r.JobState != sim.JobFailed || r.Failures != 4 || r.Restarts != 3 {
		t.Fatalf("heap: recovery %+v, want 4 failures, 3 restarts, the job failed", r)
	}
	for _, fo := range r.Failovers {
		if !strings.Contains(fo.Cause, "out of memory") {
			t.Errorf("heap: failover cause %q, want out of memory", fo.Cause)
		}
	}
	if d := heap.Delivery; d.Lost != 0 || d.Replayed == 0 {
		t.Errorf("heap: delivery %+v, want records replayed and none lost", d)
	}

	rocks := run(t, edit(t, "rocksdb-vs-heap",
		"state_backend: {type: heap}                       # access 100ns, bounded by workers.memory\n# state_backend: {type: rocksdb, access_time: 800us}",
		"# state_backend: {type: heap}                     # access 100ns, bounded by workers.memory\nstate_backend: {type: rocksdb, access_time: 800us}"), nil).Summary
	if r := rocks.Recovery; r.JobState != sim.JobRunning || r.Failures != 0 {
		t.Fatalf("rocksdb: recovery %+v, want no failure", r)
	}
	sess := vertex(t, &rocks, "sessions")
	if sess.Busy < 0.98 || sess.OutRate > 0.9*2000 || rocks.Totals.SourceLag == 0 || rocks.Diagnosis.Vertex != "sessions" {
		t.Errorf("rocksdb: sessions busy %.3f, %.0f records/s, lag %d, diagnosis %q; want the bottleneck, below 1,800 of the 2,000 offered",
			sess.Busy, sess.OutRate, rocks.Totals.SourceLag, rocks.Diagnosis.Message)
	}

	// the slowdown is the state access: the heap with memory to spare keeps up
	big := load(t, "rocksdb-vs-heap")
	big.Workers.Memory = 8 << 30
	fast := run(t, big, nil).Summary
	fs := vertex(t, &fast, "sessions")
	if fast.Recovery.Failures != 0 || math.Abs(fs.OutRate-2000) > 0.03*2000 || fs.Busy > 0.6 {
		t.Errorf("heap with 8GiB: %d failures, sessions %.0f records/s busy %.3f; want no failure, keeping up with 2,000/s",
			fast.Recovery.Failures, fs.OutRate, fs.Busy)
	}
	t.Logf("heap: failed for good after %d restarts; rocksdb: %.0f records/s, busy %.2f; heap with 8GiB: %.0f records/s, busy %.2f",
		r.Restarts, sess.OutRate, sess.Busy, fs.OutRate, fs.Busy)
}

// A longer checkpoint interval costs less while nothing fails, but more
// replay (and a longer catch-up) after a failure.
func TestCheckpointIntervalTradeOff(t *testing.T) {
	type point struct {
		interval  des.Time
		overhead  float64
		replayed  uint64
		duplicate uint64
		caughtUp  des.Time // from the failure until the source lag is back under 100
	}
	var pts []point
	for _, iv := range []des.Time{5 * des.Second, 30 * des.Second, 60 * des.Second} {
		sc := load(t, "checkpoint-interval")
		sc.Checkpoint.Interval = iv
		failAt := sc.Failures[0].At
		var lagging des.Time
		res := run(t, sc, sampler(func(smp *sim.Sample) {
			for _, r := range smp.Rows {
				if r.Vertex == "sensors" && r.Subtask == -1 && r.SourceLag >= 100 && smp.Time > failAt {
					lagging = smp.Time
				}
			}
		}))
		s := res.Summary
		fo := onlyFailover(t, &s)
		if s.Delivery.Lost != 0 || s.Delivery.Duplicated != fo.ToReplay || s.Recovery.JobState != sim.JobRunning {
			t.Errorf("interval %s: delivery %+v, failover %+v: want 0 lost, duplicated = delivered_to_replay, running",
				scenario.FormatDuration(iv), s.Delivery, fo)
		}
		if lagging == 0 || lagging >= sc.Duration {
			t.Errorf("interval %s: the source lag is not back under 100 by the end (last lagging sample %s)", scenario.FormatDuration(iv), lagging)
		}
		pts = append(pts, point{iv, s.Checkpoints.Overhead, s.Delivery.Replayed, s.Delivery.Duplicated, lagging - failAt})
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if !(a.overhead > b.overhead && a.replayed < b.replayed && a.caughtUp < b.caughtUp) {
			t.Errorf("interval %s -> %s: in progress %.3f -> %.3f, replayed %d -> %d, caught up after %s -> %s; want less overhead, more replay, a longer catch-up",
				scenario.FormatDuration(a.interval), scenario.FormatDuration(b.interval), a.overhead, b.overhead, a.replayed, b.replayed, a.caughtUp, b.caughtUp)
		}
	}
	// at 30s, the failure at 117s goes back to the checkpoint of 90s: 27s
	// of input (1,000 records/s) read again
	if p := pts[1]; p.replayed < 24000 || p.replayed > 30000 {
		t.Errorf("interval 30s: %d replayed, want about 27,000", p.replayed)
	}
	for _, p := range pts {
		t.Logf("interval %-3s: in progress %.3f, replayed %6d, duplicated %6d, caught up %s after the failure",
			scenario.FormatDuration(p.interval), p.overhead, p.replayed, p.duplicate, p.caughtUp)
	}
}

// A failure in backpressure without checkpoints (the live view's f): the
// source starts over at offset 0 behind a bottleneck, so its lag keeps
// growing and never comes back to where it was at the failure. The
// summary must not call that caught up.
func TestBackpressureFailureNeverCatchesUp(t *testing.T) {
	sc := parse(t, "backpressure", append(source(t, "backpressure"), "failures: [{kind: task, at: 60s, vertex: parse}]\n"...))
	res := run(t, sc, nil)
	s := res.Summary
	fo := onlyFailover(t, &s)
	if fo.CaughtUpS != -1 || s.Recovery.MaxCatchUpTime != -1 || fo.LagAtFailure < 5000 || s.Totals.SourceLag < 2*fo.LagAtFailure {
		t.Errorf("failover %+v, source lag at the end %d: want a lag of over 5000 at the failure, twice that at the end, never caught up",
			fo, s.Totals.SourceLag)
	}
	var b strings.Builder
	if err := sim.WriteTable(&b, &s); err != nil {
		t.Fatal(err)
	}
	if fo.LagAtRecovery >= int64(s.Totals.SourceLag) {
		t.Errorf("lag %d at the recovery, %d at the end: want it growing", fo.LagAtRecovery, s.Totals.SourceLag)
	}
	want := fmt.Sprintf("not caught up with the backlog by the end (source lag %d records, %d when the job failed at 60s and %d when it ran again: it kept growing)",
		s.Totals.SourceLag, fo.LagAtFailure, fo.LagAtRecovery)
	if !strings.Contains(b.String(), want) {
		t.Errorf("the table does not say %q:\n%s", want, b.String())
	}
}

// The diagnosis never denies the table: a source back-pressured while a
// lost worker is not yet noticed (at-least-once with a 40s heartbeat
// timeout: LOW, 28%) is left out of the search for a bottleneck, and the
// diagnosis says so in words; summary.json keeps the edge it waited on.
func TestDiagnosisSaysWhatTheFailureBackpressured(t *testing.T) {
	s := run(t, edit(t, "at-least-once", "heartbeat_timeout: 10s", "heartbeat_timeout: 40s"), nil).Summary
	src := vertex(t, &s, "sensors")
	d := s.Diagnosis
	if src.Status != sim.StatusLow || src.BackpressuredLostWorker < 0.25 || src.BackpressuredOn["aggregate"] != src.Backpressured {
		t.Fatalf("sensors %s, back-pressured %.3f (%.3f while the worker was lost), on %v: want LOW, mostly the failure's, waiting on aggregate",
			src.Status, src.Backpressured, src.BackpressuredLostWorker, src.BackpressuredOn)
	}
	want := fmt.Sprintf("no bottleneck: sensors is LOW, back-pressured %s, %s of the window while worker 1 was lost and not yet noticed: the failure's doing; apart from that nothing is back-pressured",
		pctText(src.Backpressured), pctText(src.BackpressuredLostWorker))
	if d.Kind != sim.DiagnosisNone || !strings.HasPrefix(d.Message, want) {
		t.Errorf("diagnosis %q (%s); want it to start %q", d.Message, d.Kind, want)
	}
}

// No built-in's diagnosis says nothing is back-pressured while its
// table shows a vertex that is.
func TestDiagnosisNeverDeniesTheTable(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc := load(t, name)
		if sc.IsMicroBatch() {
			continue // Spark's engine has no back-pressure status (microbatch_test.go)
		}
		if slices.ContainsFunc(sc.Sources, func(s scenario.Source) bool { return s.Arrival.Process == scenario.ArrivalTrace }) {
			continue // needs a data set (internal/runner's golden test covers it)
		}
		s := run(t, sc, nil).Summary
		for _, v := range s.Vertices {
			if v.Status != sim.StatusOK && strings.HasPrefix(s.Diagnosis.Message, "no bottleneck: nothing is back-pressured") {
				t.Errorf("%s: %s is %s in the table, the diagnosis says %q", name, v.Name, v.Status, s.Diagnosis.Message)
			}
		}
	}
}

func pctText(r float64) string { return fmt.Sprintf("%.0f%%", 100*r) }

// The built-ins' warmups cover their start-up transients: no sink's mean
// latency differs between the halves of the window by more than the
// margin, except in those whose comments say why (a failure in the
// second half, a hold that grows with the state, a trace's changing
// rate, spanner-rocksdb, session windows held back by long gaps in the
// traffic, shedding-p99's spike, exactly-once-topic's failure in the
// first half). backpressure without a warmup sits inside the transient
// (the buffers fill until ~20s): the summary says so under the table.
func TestWarmupsCoverTheTransient(t *testing.T) {
	keep := map[string]bool{"checkpoint-interval": true, "stop-the-world": true, "cluster-trace": true, "spanner-rocksdb": true, "session-windows": true, "shedding-p99": true, "exactly-once-topic": true}
	for _, name := range scenarios.Names() {
		sc := load(t, name)
		if sc.IsMicroBatch() {
			continue // Spark's engine: microbatch_test.go
		}
		if slices.ContainsFunc(sc.Sources, func(s scenario.Source) bool { return s.Arrival.Process == scenario.ArrivalTrace }) {
			continue // needs a data set: internal/runner's golden test has its trend line
		}
		s := run(t, sc, nil).Summary
		if got := len(s.Trends) > 0; got != keep[name] {
			t.Errorf("%s: trends %+v; want a trend: %v", name, s.Trends, keep[name])
		}
		if keep[name] && !strings.Contains(string(source(t, name)), `"trend:" line`) {
			t.Errorf("%s keeps a trend but its comment does not explain the trend line", name)
		}
	}
	s := run(t, edit(t, "backpressure", "warmup: 40s ", "warmup: 0s "), nil).Summary
	if len(s.Trends) != 1 || s.Trends[0].Vertex != "out" || s.Trends[0].Second < 1.15*s.Trends[0].First {
		t.Fatalf("backpressure with warmup 0s: trends %+v; want out's mean latency over 15%% higher in the second half", s.Trends)
	}
	var b strings.Builder
	if err := sim.WriteTable(&b, &s); err != nil {
		t.Fatal(err)
	}
	if want := "\ntrend: out's mean latency is 13.53s in 0s..60s and 15.97s in 60s..120s (18% higher): the statistics window still shows a trend"; !strings.Contains(b.String(), want) {
		t.Errorf("the table does not say %q:\n%s", want, b.String())
	}
}
