package sim

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// pipeline is a keyed job on two workers: two replayable sources, a keyed
// count with state, one sink. Each test adds its checkpoint, sink and
// failure settings.
const pipeline = `
name: ft
seed: %d
duration: 60s
workers: {count: 2, slots: 2, heartbeat_timeout: 5s}
sources:
  - name: src
    parallelism: 2
    arrival: {process: poisson, rate: 200/s}
    keys: {count: 100}
    replayable: %v
operators:
  - name: count
    input: src
    partitioning: hash
    parallelism: 3
    service_time: {distribution: exponential, mean: 1ms}
    state: {bytes_per_key: 1000B}
sinks:
  - {name: out, input: count, delivery: %s}
restart: {type: fixed-delay, delay: 1s}
`

func ftScenario(t testing.TB, seed int, replayable bool, delivery, extra string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("ft.yaml", []byte(fmt.Sprintf(pipeline, seed, replayable, delivery)+extra))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func runSim(t testing.TB, sc *scenario.Scenario, opts Options) (*Sim, *Result) {
	t.Helper()
	s, err := New(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), sc.Duration); err != nil {
		t.Fatal(err)
	}
	return s, s.Result()
}

// checkExactlyOnce checks the sink's visible ids against the ids the
// sources emitted: every offset a source has read past is visible or
// inside the job (in flight or in an open transaction), and nothing is
// lost or duplicated.
func checkExactlyOnce(t *testing.T, s *Sim, res *Result, label string) {
	t.Helper()
	d := res.Summary.Delivery
	if d.Lost != 0 || d.Duplicated != 0 {
		t.Errorf("%s: lost %d, duplicated %d; want 0 and 0", label, d.Lost, d.Duplicated)
	}
	inside := map[uint64]bool{}
	s.walkInFlight(func(id uint64, copy uint32) {
		if copy == 0 {
			inside[id] = true
		}
	})
	if ck := s.ckpt.latest; s.fo.state == JobRestarting && ck != nil {
		// persisted channel state, waiting for the restore
		for _, rss := range [2]map[int][]Record{ck.chanState, ck.outState} {
			for _, rs := range rss {
				for _, r := range rs {
					inside[r.ID] = true
				}
			}
		}
	}
	vis := s.vertices[len(s.vertices)-1].sink.visible
	missing, both := 0, 0
	for _, src := range s.sources {
		for off := uint64(0); off < src.next; off++ {
			id := sourceID(src.seq, off)
			v, in := vis.Contains(0, id), inside[id]
			switch {
			case !v && !in:
				if missing == 0 {
					t.Logf("%s: first missing id: source subtask %d offset %d", label, src.seq, off)
				}
				missing++
			case v && in && s.vertices[len(s.vertices)-1].sink.mode == scenario.DeliveryTransactional:
				both++ // would be made visible twice
			}
		}
	}
	if missing > 0 || both > 0 {
		t.Errorf("%s: %d emitted ids neither visible nor inside the job, %d both visible and in an open transaction", label, missing, both)
	}
	transactional := s.vertices[len(s.vertices)-1].sink.mode == scenario.DeliveryTransactional
	if transactional && d.Emitted != d.Delivered+d.InFlight+d.Uncommitted+d.Lost+d.ToReplay {
		// (an idempotent sink's visible records may be in flight again)
		t.Errorf("%s: emitted %d != delivered %d + in flight %d + uncommitted %d + lost %d + to replay %d",
			label, d.Emitted, d.Delivered, d.InFlight, d.Uncommitted, d.Lost, d.ToReplay)
	}
	if d.Delivered < d.Emitted/2 {
		t.Errorf("%s: delivered %d of %d emitted", label, d.Delivered, d.Emitted)
	}
}

// Aligned checkpoints, a replayable source and a transactional sink are
// exactly-once under random worker and task failures: over 20 seeds, not
// one record is lost or duplicated, checked against the emitted ids.
func TestExactlyOnceUnderRandomFailures(t *testing.T) {
	switched := map[string]int{}
	for _, mode := range []string{"aligned", "unaligned", "stop-the-world", "unaligned, aligned_timeout: 20ms"} {
		for _, delivery := range []string{"transactional", "idempotent"} {
			for seed := 1; seed <= 20; seed++ {
				if testing.Short() && seed > 5 {
					break
				}
				sc := ftScenario(t, seed, true, delivery, fmt.Sprintf(`
checkpoint: {mode: %s, interval: 1s}
failures:
  - {kind: worker, mtbf: 40s}
  - {kind: task, mtbf: 60s}
`, mode))
				s, res := runSim(t, sc, Options{})
				label := fmt.Sprintf("%s/%s/seed %d", mode, delivery, seed)
				for _, c := range res.Checkpoints {
					if c.Unaligned {
						switched[mode]++
					}
				}
				if res.Summary.Recovery.Failures == 0 {
					t.Errorf("%s: no failure happened; the test needs some", label)
				}
				checkExactlyOnce(t, s, res, label)
			}
		}
	}
	t.Logf("checkpoints that were unaligned: %v", switched)
	if n := switched["unaligned, aligned_timeout: 20ms"]; n == 0 {
		t.Error("no checkpoint switched to unaligned after aligned_timeout: the switch is not tested")
	}
}

// An at-least-once sink writes again what the rewound sources replay:
// its duplicates are exactly the records it had made visible since the
// restored checkpoint (counted from the sink's ids at the failover).
func TestAtLeastOnceDuplicatesAreTheReplay(t *testing.T) {
	for _, mode := range []string{"aligned", "unaligned"} {
		sc := ftScenario(t, 1, true, "at-least-once", fmt.Sprintf(`
checkpoint: {mode: %s, interval: 2s}
failures: [{kind: worker, at: 21500ms, worker: 1}]
`, mode))
		_, res := runSim(t, sc, Options{})
		d, r := res.Summary.Delivery, res.Summary.Recovery
		if r.Failures != 1 || r.Restarts != 1 || len(r.Failovers) != 1 {
			t.Fatalf("%s: recovery %+v, want one failure and one restart", mode, r)
		}
		want := r.Failovers[0].ToReplay
		if want == 0 || d.Duplicated != want || d.Lost != 0 {
			t.Errorf("%s: duplicated %d, lost %d; want the %d records replayed since checkpoint %d, and none lost",
				mode, d.Duplicated, d.Lost, want, r.Failovers[0].Checkpoint)
		}
	}
}

// An idempotent sink overwrites what the rewound sources replay: the
// delivery line says how many writes were overwrites, as summary.json
// does, next to its 0 duplicated.
func TestIdempotentDeliveryLineShowsOverwritten(t *testing.T) {
	sc := ftScenario(t, 1, true, "idempotent", `
checkpoint: {mode: aligned, interval: 2s}
failures: [{kind: worker, at: 21500ms, worker: 1}]
`)
	_, res := runSim(t, sc, Options{})
	d := res.Summary.Delivery
	if d.Duplicated != 0 || d.Overwritten == 0 || d.Overwritten != d.Sinks[0].Overwritten {
		t.Fatalf("delivery %+v: want 0 duplicated and the sink's overwrites (> 0)", d)
	}
	var b strings.Builder
	if err := WriteTable(&b, &res.Summary); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(", 0 duplicated, %d overwritten, 0 lost", d.Overwritten)
	if !strings.Contains(b.String(), want) {
		t.Errorf("the table does not say %q:\n%s", want, b.String())
	}
}

// A non-replayable source cannot rewind: what was inside the job when it
// failed is lost, and nothing is duplicated.
func TestSocketSourceLosesWhatItHeld(t *testing.T) {
	sc := ftScenario(t, 1, false, "at-least-once", `
checkpoint: {mode: aligned, interval: 2s}
failures: [{kind: task, at: 21500ms, vertex: count, subtask: 1}]
`)
	_, res := runSim(t, sc, Options{})
	d := res.Summary.Delivery
	if d.Lost == 0 || d.Duplicated != 0 || d.Replayed != 0 {
		t.Errorf("lost %d, duplicated %d, replayed %d: want lost > 0 and nothing replayed", d.Lost, d.Duplicated, d.Replayed)
	}
	// every emitted record is delivered, inside the job, or lost
	if d.Emitted != d.Delivered+d.InFlight+d.Lost {
		t.Errorf("emitted %d != delivered %d + in flight %d + lost %d", d.Emitted, d.Delivered, d.InFlight, d.Lost)
	}
	if got := res.Summary.Recovery.Failovers[0].Lost; got != d.Lost {
		t.Errorf("failover lost %d, delivery lost %d", got, d.Lost)
	}
}

// An aligned checkpoint is a consistent cut: on every channel, the records
// the sender had written before its barrier equal the records the
// receiver had taken before its snapshot. Checked on the keyed pipeline
// and on checkpoint-aligned, where enrich aligns two inputs for seconds
// while records keep arriving on the blocked one.
func TestAlignedCheckpointIsAConsistentCut(t *testing.T) {
	keyed := ftScenario(t, 3, true, "at-least-once", `
checkpoint: {mode: aligned, interval: 1s}
`)
	keyed.Sinks[0].Parallelism = 2
	long := mustLoadBuiltin(t, "checkpoint-aligned")
	long.Checkpoint.Timeout = des.Minute // let them complete
	// the keyed pipeline on one worker, its channels unbounded and flushed
	// after every record: records hop to the receiver (channel.hops),
	// never past a barrier on its way
	hops := ftScenario(t, 3, true, "at-least-once", `
checkpoint: {mode: aligned, interval: 1s}
`)
	hops.Sinks[0].Parallelism = 2
	hops.Workers.Count, hops.Workers.Slots = 1, 16
	hops.Failures = nil
	hops.Operators[0].ServiceTime = scenario.ServiceTime{Distribution: scenario.DistConstant} // a record written the instant the barrier is forwarded
	for _, n := range []*scenario.Network{&hops.Network, &hops.Operators[0].Network, &hops.Sinks[0].Network} {
		n.Capacity, n.BufferTimeout = scenario.Unbounded, 0
	}
	// a stateless map with no service time aligns a local and a remote
	// input (20ms apart), then takes the records queued behind the local
	// barrier at the instant it forwards its own on an unbounded local
	// channel flushed after every record: they must not overtake the
	// barrier, posted to the wire (channel.drained), as one-record hops
	// or (without them) as buffers handed over at once
	overtake, err := scenario.Parse("overtake.yaml", []byte(`
name: overtake
seed: 1
duration: 30s
workers: {count: 2, slots: 1}
checkpoint: {mode: aligned, interval: 1s}
network: {buffer_timeout: 0s, latency: 20ms}
sources:
  - {name: src, parallelism: 2, arrival: {process: poisson, rate: 2000/s}}
operators:
  - {name: map, input: src, partitioning: rebalance, parallelism: 1, service_time: {distribution: constant, mean: 0s}}
sinks:
  - {name: out, input: map, chain: false, parallelism: 1, network: {capacity: unbounded, buffer_timeout: 0s}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sc       *scenario.Scenario
		channels int
		min      int
		noHops   bool
	}{{keyed, 2*3 + 3*2, 50, false}, {long, 2 + 2, 3, false}, {hops, 2*3 + 3*2, 50, false}, // checkpoint-aligned: enrich -> out is chained, no channel
		{overtake, 2 + 1, 25, false}, {overtake, 2 + 1, 25, true}} {
		directHops = !c.noHops // read when channels connect and at every delivery: off for the whole run
		s, err := New(c.sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.ckpt.recordCuts = true
		err = s.RunUntil(context.Background(), c.sc.Duration)
		directHops = true
		if err != nil {
			t.Fatal(err)
		}
		if len(s.ckpt.cutLog) < c.min {
			t.Fatalf("%s: %d completed checkpoints recorded, want at least %d", c.sc.Name, len(s.ckpt.cutLog), c.min)
		}
		for i, cuts := range s.ckpt.cutLog {
			if len(cuts) != c.channels {
				t.Fatalf("%s: checkpoint %d: %d channels cut, want %d", c.sc.Name, i+1, len(cuts), c.channels)
			}
			moved := false
			for _, x := range cuts {
				if x.Sent != x.Received {
					t.Errorf("%s: checkpoint %d: %s -> %s sent %d before its barrier, received %d before its snapshot", c.sc.Name, i+1, x.From, x.To, x.Sent, x.Received)
				}
				moved = moved || x.Sent > 0
			}
			if !moved {
				t.Errorf("%s: checkpoint %d: no channel carried records; the cut checks nothing", c.sc.Name, i+1)
			}
		}
		if al := s.ckpt.sum.MaxAlignment; c.sc == long && al < 1000 {
			t.Errorf("%s: longest alignment %.0fms; the test needs records arriving during alignment", c.sc.Name, al)
		}
	}
}

// Under back-pressure, unaligned barriers overtake the buffered records:
// checkpoints that time out aligned complete unaligned, persisting
// in-flight data.
func TestUnalignedFasterUnderBackpressure(t *testing.T) {
	res := map[string]*CheckpointSummary{}
	for _, mode := range []string{"aligned", "unaligned"} {
		sc := mustLoadBuiltin(t, "backpressure")
		sc.Checkpoint = scenario.DefaultCheckpointing()
		// about 20s of records wait ahead of an aligned barrier
		sc.Checkpoint.Mode, sc.Checkpoint.Interval, sc.Checkpoint.Timeout = mode, 10*des.Second, 15*des.Second
		_, r := runSim(t, sc, Options{})
		res[mode] = r.Summary.Checkpoints
	}
	a, u := res["aligned"], res["unaligned"]
	sc := mustLoadBuiltin(t, "backpressure")
	sc.Checkpoint = scenario.DefaultCheckpointing()
	sc.Checkpoint.Mode, sc.Checkpoint.Interval, sc.Checkpoint.Timeout = "unaligned", 10*des.Second, 20*des.Second
	sc.Checkpoint.AlignedTimeout = 2 * des.Second
	_, r := runSim(t, sc, Options{})
	// they start aligned, wait 2s behind the buffered records, then
	// overtake them
	if at := r.Summary.Checkpoints; at.Completed < 10 || at.Failed != 0 || *at.MaxDuration < 2000 || *at.MaxDuration > 3000 || at.MaxPersisted == 0 {
		t.Errorf("aligned_timeout 2s: %+v; want every checkpoint complete after 2-3s, persisting in-flight data", at)
	}
	if a.Completed != 0 || a.Failed == 0 {
		t.Errorf("aligned: %d completed, %d failed; want all timed out under back-pressure", a.Completed, a.Failed)
	}
	if u.Completed < 10 || u.Failed != 0 || u.MaxDuration == nil || *u.MaxDuration > 1000 || u.MaxPersisted == 0 {
		t.Errorf("unaligned: %+v; want every checkpoint complete within 1s, persisting in-flight data", u)
	}
}

func mustLoadBuiltin(t testing.TB, name string) *scenario.Scenario {
	t.Helper()
	b, err := scenarios.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(name+".yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A stop-the-world checkpoint holds ingestion for its whole duration: no
// source emits a record between the trigger and the completion.
func TestStopTheWorldHoldsIngestion(t *testing.T) {
	sc := ftScenario(t, 1, true, "transactional", `
checkpoint: {mode: stop-the-world, interval: 2s, storage: {bandwidth: 1MiB/s}}
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	checked := 0
	for s.Now() < sc.Duration {
		// step to each trigger, then to its completion
		c := s.ckpt
		before := len(c.stats)
		for len(c.pending) == 0 && s.Now() < sc.Duration {
			if err := s.RunUntil(ctx, s.Now()+des.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		if s.Now() >= sc.Duration {
			break
		}
		emitted := s.Emitted()
		for len(c.stats) == before && s.Now() < sc.Duration {
			if got := s.Emitted(); got != emitted {
				t.Fatalf("at %s, during checkpoint %d, the sources emitted %d records", FormatTime(s.Now()), c.nextID, got-emitted)
			}
			if err := s.RunUntil(ctx, s.Now()+des.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		if len(c.stats) > before && c.stats[before].Status == CheckpointCompleted {
			checked++
		}
	}
	if checked < 25 {
		t.Errorf("%d stop-the-world checkpoints checked, want about 29", checked)
	}
	res := s.Result()
	// each copies the state of the 100 keys, 1000B each, through 1 MiB/s:
	// at least 95 ms of held ingestion per checkpoint
	cs := res.Summary.Checkpoints
	if *cs.MaxDuration < 95 || cs.Overhead < 0.05 {
		t.Errorf("checkpoints %+v: want each to take >= 95ms and hold the job >= 5%% of the time", cs)
	}
	// the sources are held from each trigger to its end, one checkpoint
	// at a time: sources_held_ratio is their summed durations over the run
	held := 0.0
	for _, c := range res.Checkpoints {
		held += c.EndToEnd / 1000
	}
	if want := held / sc.Duration.Seconds(); cs.InProgress != 0 || math.Abs(cs.SourcesHeld-want) > 1e-5 || math.Abs(cs.Overhead-want) > 1e-5 {
		t.Errorf("sources held %.6f, in progress %.6f of the run; want both %.6f (the checkpoints' durations)", cs.SourcesHeld, cs.Overhead, want)
	}
}

// The keyed state of a subtask is bytes_per_key for every distinct key it
// has seen: the timeseries' state_bytes of count, once all 100 keys have
// come, is 100 × 1000 bytes, split over its subtasks by key group.
func TestStateBytes(t *testing.T) {
	sc := ftScenario(t, 1, true, "at-least-once", "")
	var last []Row
	obs := &countingObserver{onSample: func(smp *Sample) { last = append(last[:0], smp.Rows...) }}
	runSim(t, sc, Options{Observer: obs})
	var sum, vertex int64
	for _, r := range last {
		switch {
		case r.Vertex == "count" && r.Subtask >= 0:
			if r.StateBytes == 0 || r.StateBytes%1000 != 0 {
				t.Errorf("count[%d] holds %d bytes, want a positive multiple of 1000", r.Subtask, r.StateBytes)
			}
			sum += r.StateBytes
		case r.Vertex == "count":
			vertex = r.StateBytes
		case r.StateBytes != 0:
			t.Errorf("%s[%d] is stateless but holds %d bytes", r.Vertex, r.Subtask, r.StateBytes)
		}
	}
	if sum != 100*1000 || vertex != sum {
		t.Errorf("count holds %d bytes over its subtasks (vertex row %d), want 100000", sum, vertex)
	}
}

// A transactional sink makes output visible only when the checkpoint that
// covers it completes: its latency is at least the wait for the next
// completed checkpoint, so at least about half the interval on average,
// while at-least-once output is visible at once.
func TestTransactionalLatencyWaitsForCheckpoint(t *testing.T) {
	lat := map[string]float64{}
	for _, delivery := range []string{"transactional", "at-least-once"} {
		sc := ftScenario(t, 1, true, delivery, `
checkpoint: {mode: aligned, interval: 4s}
`)
		_, res := runSim(t, sc, Options{})
		out := res.Summary.Vertices[len(res.Summary.Vertices)-1]
		lat[delivery] = *out.LatencyMean
		if delivery == "transactional" && *out.LatencyP50 < 1000 {
			t.Errorf("transactional sink p50 latency %.0fms, want >= 1s with a 4s interval", *out.LatencyP50)
		}
	}
	// uniform wait over the 4 s interval plus the checkpoint's duration
	if tx := lat["transactional"]; tx < 1800 || tx > 2600 || lat["at-least-once"] > 300 {
		t.Errorf("mean latency transactional %.0fms, at-least-once %.0fms; want about 2000 and the buffer timeouts'", tx, lat["at-least-once"])
	}
}

// Restart strategies wait exactly as configured: fixed-delay its delay,
// exponential-delay (without jitter) doubling backoffs up to the maximum,
// failure-rate its delay until too many failures come within the interval,
// none not at all.
func TestRestartStrategyDelays(t *testing.T) {
	failures := `
failures:
  - {kind: task, at: 10s, vertex: count}
  - {kind: task, at: 20s, vertex: count}
  - {kind: task, at: 30s, vertex: count}
  - {kind: task, at: 40s, vertex: count}
`
	cases := []struct {
		restart string
		delays  []float64 // ms; -1: the job failed for good there
		state   string
	}{
		{"{type: fixed-delay, delay: 3s, attempts: 3}", []float64{3000, 3000, 3000, -1}, JobFailed},
		{"{type: exponential-delay, initial_backoff: 1s, multiplier: 3, max_backoff: 5s, jitter: 0, reset_threshold: 1h}", []float64{1000, 3000, 5000, 5000}, JobRunning},
		{"{type: exponential-delay, initial_backoff: 1s, multiplier: 3, max_backoff: 5s, jitter: 0, reset_threshold: 8s}", []float64{1000, 1000, 1000, 1000}, JobRunning},
		// the threshold runs from the restart (Flink's nextRestartTimestamp,
		// FLINK-32895), not from the failure: the failures 10s apart come
		// 9s, 8s and 6s after the restarts of 11s, 22s and 34s
		{"{type: exponential-delay, initial_backoff: 1s, multiplier: 2, max_backoff: 1m, jitter: 0, reset_threshold: 9500ms}", []float64{1000, 2000, 4000, 8000}, JobRunning},
		{"{type: failure-rate, delay: 2s, max_failures_per_interval: 2, failure_rate_interval: 25s}", []float64{2000, 2000, -1}, JobFailed},
		{"{type: none}", []float64{-1}, JobFailed},
	}
	for _, c := range cases {
		sc, err := scenario.Parse("ft.yaml", []byte(strings.Replace(fmt.Sprintf(pipeline, 1, true, "at-least-once"),
			"restart: {type: fixed-delay, delay: 1s}", "restart: "+c.restart, 1)+"checkpoint: {mode: aligned, interval: 2s}\n"+failures))
		if err != nil {
			t.Fatal(err)
		}
		_, res := runSim(t, sc, Options{})
		r := res.Summary.Recovery
		if r.JobState != c.state || len(r.Failovers) != len(c.delays) {
			t.Errorf("%s: job %s after %d failovers, want %s after %d", c.restart, r.JobState, len(r.Failovers), c.state, len(c.delays))
			continue
		}
		for i, f := range r.Failovers {
			if c.delays[i] < 0 {
				if f.RestartS != -1 {
					t.Errorf("%s: failover %d restarted at %gs; want the job to fail for good", c.restart, i+1, f.RestartS)
				}
				continue
			}
			if f.RestartWait != c.delays[i] || math.Abs((f.RestartS-f.DetectedS)*1000-c.delays[i]) > 1e-3 {
				t.Errorf("%s: failover %d waited %gms (detected %gs, restarted %gs), want %gms", c.restart, i+1, f.RestartWait, f.DetectedS, f.RestartS, c.delays[i])
			}
		}
	}
}

// Jitter spreads exponential-delay backoffs uniformly by ±jitter, from the
// run's seed, within [initial_backoff, max_backoff]
// (calculateActualBackoffTime): the first backoff of 2s is never shorter,
// the second, 4s, is spread over [3s, 5s].
func TestExponentialDelayJitter(t *testing.T) {
	sc, err := scenario.Parse("ft.yaml", []byte(strings.Replace(fmt.Sprintf(pipeline, 1, true, "at-least-once"),
		"restart: {type: fixed-delay, delay: 1s}", "restart: {type: exponential-delay, initial_backoff: 2s, jitter: 0.25}", 1)+`
failures: [{kind: task, at: 10s, vertex: count}, {kind: task, at: 20s, vertex: count}]
`))
	if err != nil {
		t.Fatal(err)
	}
	_, res := runSim(t, sc, Options{})
	fo := res.Summary.Recovery.Failovers
	if w := fo[0].RestartWait; w < 2000 || w > 2500 {
		t.Errorf("first jittered backoff %gms, want in [2000, 2500]", w)
	}
	if w := fo[1].RestartWait; w < 3000 || w > 5000 || w == 4000 {
		t.Errorf("second jittered backoff %gms, want in [3000, 5000] and not exactly 4000", w)
	}
}

// A worker failure is noticed after heartbeat_timeout; recovery restores
// the latest checkpoint's state from the storage at its bandwidth.
func TestDetectionAndRestoreTime(t *testing.T) {
	sc := ftScenario(t, 1, true, "transactional", `
checkpoint: {mode: aligned, interval: 2s, storage: {bandwidth: 100KiB/s, latency: 50ms}}
failures: [{kind: worker, at: 21s, worker: 1}]
`)
	_, res := runSim(t, sc, Options{})
	f := res.Summary.Recovery.Failovers[0]
	if f.DetectedS != 26 || f.RestartS != 27 {
		t.Errorf("detected at %gs, restarted at %gs; want 26 (5s heartbeat timeout) and 27 (1s delay)", f.DetectedS, f.RestartS)
	}
	// 100 keys × 1000B (split over 3 subtasks) = 100000B at 102400B/s,
	// plus 50ms
	want := 27 + 100000.0/102400 + 0.05
	if f.RestoreBytes != 100000 || math.Abs(f.RecoveredS-want) > 1e-3 {
		t.Errorf("restored %dB, recovered at %gs; want 100000B and %.4fs", f.RestoreBytes, f.RecoveredS, want)
	}
	// without a read limit the backlog of the 7s without processing is
	// read into the network buffers at once: the lag is back to 0 at the
	// recovery, but the records queued inside the job are not worked off
	// until the sample at 30s, where the job has caught up
	if f.LagAtRecovery != 0 || f.CaughtUpS != 30 || res.Summary.Recovery.MaxCatchUpTime != round6(30-f.FailedS) {
		t.Errorf("lag %d at the recovery (%gs), caught up at %gs; want 0, and caught up at 30s (the buffered backlog processed)", f.LagAtRecovery, f.RecoveredS, f.CaughtUpS)
	}
	// reading at most 300 records/s per source subtask, 100/s above the
	// arrival rate, the 8s of backlog from the checkpoint at 20s (1600
	// records each) take 16s more, the last 100 records (the slack) a
	// second less: caught up at the sample at 44s
	sc.Sources[0].MaxRate = 300
	_, res2 := runSim(t, sc, Options{})
	if f := res2.Summary.Recovery.Failovers[0]; f.CaughtUpS != 44 || f.CatchUpTime != 23 {
		t.Errorf("max_rate 300/s: caught up at %gs (%gs after the failure), want 44s (23s)", f.CaughtUpS, f.CatchUpTime)
	}
	// down from the failure, not from its detection: 5s detection, 1s
	// restart delay, then the restore
	r := res.Summary.Recovery
	if math.Abs(r.DowntimeS-(want-21)) > 1e-3 || r.DetectionS != 5 || r.RestartDelayS != 1 || math.Abs(r.RestoreS-(want-27)) > 1e-3 {
		t.Errorf("downtime %gs (detection %gs, restart delay %gs, restore %gs), want %.4fs (5s, 1s, %.4fs): from the failure to running again",
			r.DowntimeS, r.DetectionS, r.RestartDelayS, r.RestoreS, want-21, want-27)
	}
	var b strings.Builder
	if err := WriteTable(&b, &res.Summary); err != nil {
		t.Fatal(err)
	}
	if line := fmt.Sprintf("down %s from the failure to running again (5s detection, 1s restart delay, %s restore)",
		FormatTime(des.FromSeconds(want-21)), FormatTime(des.FromSeconds(want-27))); !strings.Contains(b.String(), line) {
		t.Errorf("the table does not say %q:\n%s", line, b.String())
	}
}

// A failure after the recovery from another but before the job has caught
// up with its backlog interrupts that catch-up: the first failover is
// marked (catch_up_interrupted, caught up never), the second's catch-up
// takes the backlog over, and the recovery line says the job caught up,
// not "not caught up by the end" (it did: by the second's catch-up).
// TestDetectionAndRestoreTime's job at max_rate 300/s recovers at about
// 28s and catches up at 44s; a task failure at 35s falls in between.
func TestCatchUpInterruptedByAFailure(t *testing.T) {
	sc := ftScenario(t, 1, true, "transactional", `
checkpoint: {mode: aligned, interval: 2s, storage: {bandwidth: 100KiB/s, latency: 50ms}}
failures: [{kind: worker, at: 21s, worker: 1}, {kind: task, at: 35s, vertex: count}]
`)
	sc.Sources[0].MaxRate = 300
	_, res := runSim(t, sc, Options{})
	r := res.Summary.Recovery
	if len(r.Failovers) != 2 {
		t.Fatalf("failovers %+v: want 2", r.Failovers)
	}
	first, second := r.Failovers[0], r.Failovers[1]
	if first.Superseded || !first.CatchUpInterrupted || first.RecoveredS < 0 || first.CaughtUpS != -1 {
		t.Errorf("first failover %+v: want recovered, not superseded, its catch-up interrupted (caught up -1)", first)
	}
	if second.CatchUpInterrupted || second.CaughtUpS <= 35 || r.MaxCatchUpTime != second.CatchUpTime {
		t.Errorf("second failover caught up at %gs (%gs), max catch-up %gs: want after 35s, and the max its catch-up time",
			second.CaughtUpS, second.CatchUpTime, r.MaxCatchUpTime)
	}
	var b strings.Builder
	if err := WriteTable(&b, &res.Summary); err != nil {
		t.Fatal(err)
	}
	if line := "after the failure at most (the job failed again at 35s, before it had caught up from the failure at 21s)"; !strings.Contains(b.String(), line) || strings.Contains(b.String(), "not caught up") {
		t.Errorf("the table does not say %q, or says not caught up:\n%s", line, b.String())
	}
}

// Outages that overlap count once: the JobManager fails while the job
// restores after a worker loss; the second failover supersedes the first,
// and the downtime runs from the worker's failure to the second recovery.
func TestDowntimeOfOverlappingFailovers(t *testing.T) {
	sc := ftScenario(t, 1, true, "transactional", `
checkpoint: {mode: aligned, interval: 2s, storage: {bandwidth: 100KiB/s, latency: 50ms}}
high_availability: {type: zookeeper, leader_election: 2s}
failures:
  - {kind: worker, at: 21s, worker: 1}
  - {kind: jobmanager, at: 27500ms}
`)
	_, res := runSim(t, sc, Options{})
	r := res.Summary.Recovery
	if len(r.Failovers) != 2 || !r.Failovers[0].Superseded {
		t.Fatalf("failovers %+v: want the second to supersede the first", r.Failovers)
	}
	second := r.Failovers[1]
	// 21s..26s detection, 26s..27s delay, 27s..27.5s restore (cut short),
	// 27.5s..29.5s the leader election, then the second restore
	want := second.RecoveredS - 21
	if math.Abs(r.DowntimeS-want) > 1e-6 || r.DetectionS != 5 || r.RestartDelayS != 3 ||
		math.Abs(r.DetectionS+r.RestartDelayS+r.RestoreS-r.DowntimeS) > 1e-6 {
		t.Errorf("downtime %gs = %g + %g + %g; want %gs (21s to %gs) = 5 detection + 3 restart delay + the restores",
			r.DowntimeS, r.DetectionS, r.RestartDelayS, r.RestoreS, want, second.RecoveredS)
	}
}

// With high availability a standby JobManager is elected and recovers the
// job from its latest checkpoint; without it the job is lost.
func TestJobManagerFailure(t *testing.T) {
	for _, ha := range []string{"zookeeper", "none"} {
		election := ", leader_election: 7s"
		if ha == "none" {
			election = ""
		}
		sc := ftScenario(t, 1, true, "transactional", fmt.Sprintf(`
checkpoint: {mode: aligned, interval: 2s}
high_availability: {type: %s%s}
failures: [{kind: jobmanager, at: 20s}]
`, ha, election))
		_, res := runSim(t, sc, Options{})
		r, d := res.Summary.Recovery, res.Summary.Delivery
		if ha == "zookeeper" {
			if r.JobState != JobRunning || r.Failovers[0].RestartS != 27 || d.Lost != 0 || d.Duplicated != 0 {
				t.Errorf("HA: %+v, delivery %+v; want a restart at 27s and exactly-once", r, d)
			}
			continue
		}
		if r.JobState != JobLost || !strings.Contains(r.Message, "without high availability") {
			t.Errorf("no HA: job %s (%q), want lost", r.JobState, r.Message)
		}
		out := res.Summary.Vertices[len(res.Summary.Vertices)-1]
		if out.RecordsIn > 20*400 {
			t.Errorf("no HA: the sink took %d records, want none after the JobManager failed at 20s", out.RecordsIn)
		}
	}
}

// Heap state beyond the worker's memory fails the worker (out of memory);
// rocksdb keeps it on disk and survives, each record paying the access
// time.
func TestHeapOutOfMemoryRocksDBSurvives(t *testing.T) {
	for _, backend := range []string{"heap", "rocksdb"} {
		sc := ftScenario(t, 1, true, "at-least-once", fmt.Sprintf(`
checkpoint: {mode: aligned, interval: 5s}
state_backend: {type: %s, access_time: 100us}
`, backend))
		sc.Sources[0].Keys.Count = 1_000_000
		// about 24000 distinct keys of 1000B in 60s, two thirds of them
		// on worker 0 (count[0] and count[1])
		sc.Workers.Memory = 8 << 20
		sc.Restart = scenario.RestartStrategy{Type: scenario.RestartFixedDelay, Attempts: 2, Delay: des.Second}
		_, res := runSim(t, sc, Options{})
		r := res.Summary.Recovery
		if backend == "heap" {
			if r.JobState != JobFailed || r.Failures != 3 || !strings.Contains(r.Failovers[0].Cause, "out of memory") {
				t.Errorf("heap: %+v; want 3 out-of-memory failures and the job failed after 2 restarts", r)
			}
			continue
		}
		if r.Failures != 0 || r.JobState != JobRunning {
			t.Errorf("rocksdb: %+v, want no failure", r)
		}
		for _, v := range res.Summary.Vertices {
			// 400 records/s over 3 subtasks, 1ms + 100µs each
			if want := 400.0 / 3 * 0.0011; v.Name == "count" && math.Abs(v.BusyMean-want) > 0.1*want {
				t.Errorf("rocksdb: count busy %.4f, want %.4f (service plus state access)", v.BusyMean, want)
			}
		}
	}
}

// Determinism holds with failures, checkpoints of every mode and random
// failure processes: the same scenario and seed give byte-identical
// outputs.
func TestDeterministicWithFailures(t *testing.T) {
	for _, mode := range []string{"aligned", "unaligned", "stop-the-world"} {
		var outs [2]string
		for i := range outs {
			sc := ftScenario(t, 7, true, "at-least-once", fmt.Sprintf(`
checkpoint: {mode: %s, interval: 1s}
failures:
  - {kind: worker, mtbf: 20s}
  - {kind: slowdown, at: 5s, vertex: count, subtask: 0, factor: 5, duration: 10s}
  - {kind: network-partition, at: 30s, worker: 1, duration: 2s}
  - {kind: storage-outage, at: 40s, duration: 3s}
`, mode))
			var ts, ev, sum, ck bytes.Buffer
			sw := NewStreamWriter(&ts, &ev)
			_, res := runSim(t, sc, Options{Observer: sw})
			if err := sw.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := WriteSummaryJSON(&sum, &res.Summary); err != nil {
				t.Fatal(err)
			}
			if err := WriteCheckpointsCSV(&ck, res.Checkpoints); err != nil {
				t.Fatal(err)
			}
			if res.Summary.Recovery.Failures == 0 {
				t.Fatalf("%s: no failure happened", mode)
			}
			outs[i] = ts.String() + ev.String() + sum.String() + ck.String()
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: two runs of the same scenario and seed differ", mode)
		}
	}
}

// A slowdown multiplies the straggler's service times for its duration:
// count[0] is busy `factor` times as long, then back to normal.
func TestSlowdown(t *testing.T) {
	sc := ftScenario(t, 1, true, "at-least-once", `
failures: [{kind: slowdown, at: 20s, vertex: count, subtask: 0, factor: 20, duration: 20s}]
`)
	busy := map[des.Time]float64{}
	obs := &countingObserver{onSample: func(smp *Sample) {
		for _, r := range smp.Rows {
			if r.Vertex == "count" && r.Subtask == 0 {
				busy[smp.Time] = r.Busy
			}
		}
	}}
	runSim(t, sc, Options{Observer: obs})
	// count[0] gets a third of 400 records/s at 1ms each: 133 ms/s, and
	// 20 times that saturates it
	for _, c := range []struct {
		at       des.Time
		min, max float64
	}{{10 * des.Second, 60, 250}, {30 * des.Second, 990, 1000}, {55 * des.Second, 60, 250}} {
		if b := busy[c.at]; b < c.min || b > c.max {
			t.Errorf("count[0] busy %.0f ms/s at %s, want [%.0f, %.0f]", b, FormatTime(c.at), c.min, c.max)
		}
	}
}

// A network partition shorter than the heartbeat timeout only delays what
// crosses between the workers; a longer one gets the worker declared lost.
func TestNetworkPartition(t *testing.T) {
	for _, c := range []struct {
		duration string
		failures int
	}{{"3s", 0}, {"8s", 1}} {
		sc := ftScenario(t, 1, true, "at-least-once", fmt.Sprintf(`
checkpoint: {mode: aligned, interval: 2s}
failures: [{kind: network-partition, at: 20s, worker: 1, duration: %s}]
`, c.duration))
		_, res := runSim(t, sc, Options{})
		r := res.Summary.Recovery
		if r.Failures != c.failures {
			t.Errorf("partition %s: %d failures, want %d", c.duration, r.Failures, c.failures)
		}
		out := res.Summary.Vertices[len(res.Summary.Vertices)-1]
		if c.failures == 0 {
			// records through count[2] (worker 1) waited up to 3s
			if *out.LatencyMax < 2900 || *out.LatencyMax > 3300 || res.Summary.Delivery.Lost != 0 {
				t.Errorf("partition %s: max latency %.0fms, lost %d; want about 3000ms and none", c.duration, *out.LatencyMax, res.Summary.Delivery.Lost)
			}
			continue
		}
		if f := r.Failovers[0]; f.DetectedS != 25 || !strings.Contains(f.Cause, "network partition") {
			t.Errorf("partition %s: %+v, want worker 1 declared lost at 25s (5s heartbeat timeout)", c.duration, f)
		}
	}
}

// A storage outage holds uploads until it ends: checkpoints in it time
// out; more failed in a row than tolerable_failures fail the job, which
// restarts from the last completed checkpoint.
func TestStorageOutageAndTolerableFailures(t *testing.T) {
	for _, tol := range []int{-1, 1} {
		sc := ftScenario(t, 1, true, "transactional", fmt.Sprintf(`
checkpoint: {mode: aligned, interval: 2s, timeout: 3s, tolerable_failures: %d}
failures: [{kind: storage-outage, at: 20s, duration: 15s}]
`, tol))
		_, res := runSim(t, sc, Options{})
		cs, r := res.Summary.Checkpoints, res.Summary.Recovery
		if cs.Failed < 2 {
			t.Errorf("tolerable %d: %d checkpoints failed, want the ones in the outage to time out", tol, cs.Failed)
		}
		for _, c := range res.Checkpoints {
			if c.Status == CheckpointTimedOut && (c.TriggerS < 18 || c.TriggerS > 35) {
				t.Errorf("tolerable %d: checkpoint %d at %gs timed out outside the outage", tol, c.ID, c.TriggerS)
			}
		}
		if tol < 0 {
			if r.Failures != 0 {
				t.Errorf("no limit: %d failures, want none", r.Failures)
			}
			continue
		}
		if r.Failures == 0 || !strings.Contains(r.Failovers[0].Cause, "tolerable_failures") {
			t.Fatalf("tolerable 1: %+v, want the job to fail on the second failed checkpoint", r)
		}
		if d := res.Summary.Delivery; d.Lost != 0 || d.Duplicated != 0 {
			t.Errorf("tolerable 1: lost %d, duplicated %d after the restart, want exactly-once", d.Lost, d.Duplicated)
		}
	}
}

// Incremental rocksdb checkpoints upload only the keys touched since the
// previous snapshot; the full state still grows with the keys seen.
func TestIncrementalCheckpoints(t *testing.T) {
	sc := ftScenario(t, 1, true, "at-least-once", `
checkpoint: {mode: aligned, interval: 1s, incremental: true}
state_backend: {type: rocksdb}
`)
	sc.Sources[0].Keys.Count = 100_000
	_, res := runSim(t, sc, Options{})
	cks := res.Checkpoints
	if len(cks) < 50 {
		t.Fatalf("%d checkpoints", len(cks))
	}
	last := cks[len(cks)-1]
	t.Logf("last %+v", last)
	// about 400 records (distinct keys) per second: 400 KB changed per
	// checkpoint, while the full state is all keys seen (about 23000)
	if last.StateSize < 300_000 || last.StateSize > 500_000 || last.FullSize < 20_000_000 || last.FullSize > 25_000_000 {
		t.Errorf("last checkpoint uploaded %d of %d bytes, want about 400KB of about 23MB", last.StateSize, last.FullSize)
	}
}

// Garbage-collection pauses stop every subtask of a worker for a time that
// grows with its heap: count's latency spikes at each pause.
func TestGCPauses(t *testing.T) {
	latency := map[string]float64{}
	for _, gc := range []string{"", ", gc_interval: 5s, gc_pause_per_gib: 100s"} {
		sc := ftScenario(t, 1, true, "at-least-once", `
state_backend: {type: heap`+gc+`}
`)
		sc.Sources[0].Keys.Count = 1_000_000
		_, res := runSim(t, sc, Options{})
		latency[gc] = *res.Summary.Vertices[len(res.Summary.Vertices)-1].LatencyMax
	}
	t.Logf("max latency %v", latency)
	// at 60s about 16MB of state on worker 0: a pause of about 1.5s
	if off, on := latency[""], latency[", gc_interval: 5s, gc_pause_per_gib: 100s"]; off > 300 || on < 1000 {
		t.Errorf("max latency without GC %.0fms, with %.0fms; want the pauses to add about a second", off, on)
	}
}

// A transactional sink makes records visible only at the completion of
// the checkpoint that covers them: stepping the run event by event, the
// visible count grows only in steps where a checkpoint completed, and
// every record's latency is at least the wait from its arrival at the
// sink to that completion.
func TestTransactionalVisibleOnlyAtCompletion(t *testing.T) {
	sc := ftScenario(t, 1, true, "transactional", `
checkpoint: {mode: aligned, interval: 3s}
`)
	sc.Duration = 20 * des.Second
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := s.vertices[len(s.vertices)-1].sink
	commits := 0
	for s.eng.NextTime() <= sc.Duration {
		before, completed := k.delivered, s.ckpt.sum.Completed
		s.eng.Step()
		if k.delivered == before {
			continue
		}
		if s.ckpt.sum.Completed == completed {
			t.Fatalf("at %s, %d records became visible with no checkpoint completing", FormatTime(s.Now()), k.delivered-before)
		}
		commits++
	}
	if commits < 5 || k.delivered == 0 {
		t.Errorf("%d commits made %d records visible; want one per checkpoint", commits, k.delivered)
	}
}

// max_concurrent lets checkpoints overlap when one takes longer than the
// interval; min_pause spaces them: the next trigger waits that long after
// the last one ended.
func TestMaxConcurrentAndMinPause(t *testing.T) {
	// checkpoint-aligned's checkpoints take about 15s
	run := func(extra func(c *scenario.Checkpointing)) []CheckpointStats {
		sc := mustLoadBuiltin(t, "checkpoint-aligned")
		sc.Checkpoint.Interval, sc.Checkpoint.Timeout = 10*des.Second, des.Minute
		extra(&sc.Checkpoint)
		_, res := runSim(t, sc, Options{})
		return res.Checkpoints
	}
	one := run(func(c *scenario.Checkpointing) {})
	three := run(func(c *scenario.Checkpointing) { c.MaxConcurrent = 3 })
	paused := run(func(c *scenario.Checkpointing) { c.MinPause = 20 * des.Second })
	// one at a time: each trigger waits for the previous end
	for i := 1; i < len(one); i++ {
		end := one[i-1].TriggerS + one[i-1].EndToEnd/1000
		if one[i].TriggerS < end-1e-6 {
			t.Errorf("max_concurrent 1: checkpoint %d triggered at %gs, before %d ended (%gs)", one[i].ID, one[i].TriggerS, one[i-1].ID, end)
		}
	}
	// three at a time: triggered every 10s, overlapping
	for i, c := range three {
		if c.TriggerS != float64(10*(i+1)) {
			t.Errorf("max_concurrent 3: checkpoint %d triggered at %gs, want %ds", c.ID, c.TriggerS, 10*(i+1))
		}
	}
	if len(three) <= len(one) {
		t.Errorf("max_concurrent 3 completed %d checkpoints, 1 completed %d: want more", len(three), len(one))
	}
	// min_pause: at least 20s from an end to the next trigger
	for i := 1; i < len(paused); i++ {
		end := paused[i-1].TriggerS + paused[i-1].EndToEnd/1000
		if paused[i].TriggerS < end+20-1e-6 {
			t.Errorf("min_pause 20s: checkpoint %d triggered at %gs, %gs after the previous ended", paused[i].ID, paused[i].TriggerS, paused[i].TriggerS-end)
		}
	}
	if len(paused) < 2 {
		t.Fatalf("min_pause: %d checkpoints", len(paused))
	}
}

// While a lost worker is not noticed yet, the senders into its subtasks
// are back-pressured (Flink's web UI shows them so, and so do the
// statistics), but that is the failure's doing, not a bottleneck's: the
// diagnosis leaves that time out. The checkpoints are 10s apart, and the
// failure 2s after one: a barrier injected in the 2s or so before the
// sources block on the dead subtasks would block the surviving sink's
// channels in alignment (waiting for the dead count's barrier), which
// back-pressures the live counts for another reason.
func TestDiagnosisIgnoresBackpressureFromAFailure(t *testing.T) {
	sc := ftScenario(t, 1, true, "at-least-once", `
checkpoint: {mode: aligned, interval: 10s}
failures: [{kind: worker, at: 22s, worker: 1}]
`)
	sc.Workers.HeartbeatTimeout = 10 * des.Second
	sc.Sources[0].RecordSize = 4096 // 8 to a buffer: the buffers into the dead subtasks fill in about 3s
	_, res := runSim(t, sc, Options{})
	s := res.Summary
	if src := s.Vertices[0]; src.Backpressured < 0.05 {
		t.Fatalf("the source was back-pressured %.3f of the time; the test needs the failure to hold it back", src.Backpressured)
	}
	if d := s.Diagnosis; d.Kind != DiagnosisNone || !strings.Contains(strings.Join(d.Evidence, " "), "the job failed") {
		t.Errorf("diagnosis %s: %q %q; want none, with the failure in the evidence", d.Kind, d.Message, d.Evidence)
	}
}

// timeseries.csv shows the subtasks of a lost worker as down, as the
// live view does: in exactly-once worker 1 dies at 45s, the JobManager
// notices at 55s and the job runs again at 57.02s. In between worker 1's
// subtasks are DOWN with down 1000 ms/s (not OK and idle), the whole job
// while it restarts; every subtask row sums to 1000 ms/s.
func TestTimeseriesShowsDownSubtasks(t *testing.T) {
	type key struct {
		at      float64
		vertex  string
		subtask int
	}
	rows := map[key]Row{}
	obs := &countingObserver{onSample: func(s *Sample) {
		for _, r := range s.Rows {
			rows[key{s.Time.Seconds(), r.Vertex, r.Subtask}] = r
		}
	}}
	_, res := runSim(t, mustLoadBuiltin(t, "exactly-once"), Options{Observer: obs})
	for k, r := range rows {
		if k.subtask >= 0 {
			if sum := r.Busy + r.Idle + r.Backpressured + r.Down; math.Abs(sum-1000) > 1e-6 {
				t.Errorf("%s[%d] at %gs: busy+idle+bp+down = %g ms/s", k.vertex, k.subtask, k.at, sum)
			}
		}
	}
	for _, v := range []string{"sensors", "aggregate", "out"} {
		for at := 46.0; at <= 57; at++ {
			r := rows[key{at, v, 1}]
			if r.Status != StatusDown || r.Down != 1000 || r.Idle != 0 {
				t.Errorf("%s[1] at %gs: %s, down %g, idle %g ms/s; want DOWN, 1000, 0 (worker 1 lost)", v, at, r.Status, r.Down, r.Idle)
			}
			if vr := rows[key{at, v, -1}]; vr.Status != StatusDown {
				t.Errorf("%s at %gs: %s; want DOWN (a subtask is down)", v, at, vr.Status)
			}
			r0 := rows[key{at, v, 0}]
			// the failover at 55s: DOWN at that instant, down all the
			// intervals after it
			if (r0.Status == StatusDown) != (at >= 55) || (r0.Down == 1000) != (at >= 56) {
				t.Errorf("%s[0] at %gs: %s, down %g ms/s; want down only from the failover at 55s", v, at, r0.Status, r0.Down)
			}
		}
		if r := rows[key{58, v, 1}]; r.Status == StatusDown || math.Abs(r.Down-19.766) > 1e-3 {
			t.Errorf("%s[1] at 58s: %s, down %g ms/s; want running again after 19.766ms", v, r.Status, r.Down)
		}
	}
	// the summary: worker 1's subtasks were down from 45s to 57.02s
	for _, v := range res.Summary.Vertices {
		if got, want := v.Subtasks[1].Down, round6(12.019766/110); math.Abs(got-want) > 1e-6 {
			t.Errorf("%s[1] down %.6f of the window, want %.6f", v.Name, got, want)
		}
	}
}

// The network's buffer count (the running memory budget's) is the
// buffers in the senders' backlogs and on the wire, unaligned barriers
// included: each is counted in when sent and out when delivered (an
// unaligned barrier was counted out only, so the count drifted down by one
// a channel and checkpoint).
func TestNetworkBufferCount(t *testing.T) {
	for _, c := range []struct {
		name           string
		alignedTimeout des.Time
	}{{"checkpoint-unaligned", 0}, {"checkpoint-aligned", 0}, {"backpressure", 0},
		// aligned barriers that switch to unaligned: out of the backlog
		// and onto the wire ahead of the data
		{"checkpoint-unaligned", des.Millisecond}} {
		name := c.name
		sc := mustLoadBuiltin(t, name)
		if c.alignedTimeout > 0 {
			sc.Checkpoint.AlignedTimeout = c.alignedTimeout
			name += " with aligned_timeout"
		}
		s, _ := runSim(t, sc, Options{})
		var bufs, recs int64
		for _, st := range s.subtasks {
			for _, p := range st.outs {
				for _, c := range p.chans {
					for i := 0; i < c.backlog.len(); i++ {
						bufs, recs = bufs+1, recs+int64(len(c.backlog.at(i).recs))
					}
					for i := 0; i < c.inflight.len(); i++ {
						bufs, recs = bufs+1, recs+int64(len(c.inflight.at(i).recs))
					}
				}
			}
		}
		if s.netBufs != bufs || s.netRecs != recs {
			t.Errorf("%s: counted %d buffers and %d records in the network, %d and %d are there", name, s.netBufs, s.netRecs, bufs, recs)
		}
	}
}

// A job that fails over again and again lists the first and the last 500
// of its failovers in the summary (1842 task failures in 2000s at an mtbf
// of 1s, each down for the 100ms restart delay: no state to restore), and
// counts them all; the downtime is over all of them, 1842 × 100ms.
func TestFailoversListedAreBounded(t *testing.T) {
	_, res := runSim(t, mustParse(t, `
name: many
duration: 2000s
warmup: 0s
workers: {count: 1, slots: 2}
sources:
  - {name: src, arrival: {process: constant, rate: 10/s}, replayable: true}
operators:
  - {name: op, input: src, service_time: {distribution: constant, mean: 1ms}}
sinks:
  - {name: out, input: op}
restart: {type: fixed-delay, delay: 100ms}
failures:
  - {kind: task, mtbf: 1s}
`), Options{})
	r := res.Summary.Recovery
	if r.Failures != 1842 || r.FailoversCount != r.Failures || len(r.Failovers) != maxListedFailovers {
		t.Fatalf("%d failures, failovers_count %d, %d listed; want 1842, 1842, %d", r.Failures, r.FailoversCount, len(r.Failovers), maxListedFailovers)
	}
	if math.Abs(r.DowntimeS-184.2) > 1e-6 {
		t.Errorf("downtime %gs, want 184.2s (1842 × 100ms)", r.DowntimeS)
	}
	half := maxListedFailovers / 2
	if a, b := r.Failovers[half-1].FailedS, r.Failovers[half].FailedS; b-a < 500 {
		t.Errorf("failovers %d and %d failed at %gs and %gs: want the first and the last %d, with the ones between left out", half-1, half, a, b, half)
	}
	var tb strings.Builder
	if err := WriteTable(&tb, &res.Summary); err != nil {
		t.Fatal(err)
	}
	if want := "summary.json lists 1000 of the 1842 failovers: the first 500 (to "; !strings.Contains(tb.String(), want) || !strings.Contains(tb.String(), "), 842 left out") {
		t.Errorf("the table does not say which failovers are listed:\n%s", tb.String())
	}
}

// A job over capacity never catches up after a failure, even when the
// failure adds less to its backlog than 10% of it (the margin a large lag
// is allowed): at 2000 records/s into an operator that takes 1000/s the
// backlog is about 50000 at the failure at 50.5s, the replay since the
// checkpoint of 50s and the arrivals while the job was down add about
// 1200, and the backlog keeps growing by 1000/s. Before the margin was
// bounded by half of what the failure added, the job counted as caught
// up the moment it ran again.
func TestOverCapacityNeverCatchesUp(t *testing.T) {
	sc := mustParse(t, `
name: over-capacity
seed: 1
duration: 60s
sources:
  - name: src
    arrival: {process: constant, rate: 2000/s}
    replayable: true
operators:
  - name: slow
    input: src
    service_time: {distribution: constant, mean: 1ms}
sinks:
  - {name: out, input: slow}
checkpoint: {mode: aligned, interval: 1s}
restart: {type: fixed-delay, delay: 100ms}
failures:
  - {kind: task, at: 50500ms, vertex: slow}
`)
	_, res := runSim(t, sc, Options{})
	r := res.Summary.Recovery
	if len(r.Failovers) != 1 {
		t.Fatalf("failovers %+v: want 1", r.Failovers)
	}
	fo := r.Failovers[0]
	added := fo.backlogAtRecovery - fo.backlogAtFailure
	if fo.backlogAtRecovery < fo.backlogAtFailure || float64(added) >= catchUpShare*float64(fo.backlogAtFailure) {
		t.Fatalf("backlog %d at the failure, %d when the job ran again: the test wants the failure to add less than 10%%",
			fo.backlogAtFailure, fo.backlogAtRecovery)
	}
	if fo.RecoveredS < 0 || fo.CaughtUpS != -1 || fo.CatchUpTime != -1 || r.MaxCatchUpTime != -1 {
		t.Errorf("failover %+v, max catch-up %gs: want recovered, never caught up (-1)", fo, r.MaxCatchUpTime)
	}
	var b strings.Builder
	if err := WriteTable(&b, &res.Summary); err != nil {
		t.Fatal(err)
	}
	if line := "not caught up with the backlog by the end"; !strings.Contains(b.String(), line) || !strings.Contains(b.String(), "it kept growing") {
		t.Errorf("the table does not say %q and that the lag kept growing:\n%s", line, b.String())
	}
}

// max_checkpoint_age_s is the oldest the latest completed checkpoint got
// before the first failure: from the start to the first completion, from
// each completed checkpoint's trigger to the next completion, and from the
// last trigger to the failure; checkpoints after the failure do not count
// (the restart's downtime would be age). With a checkpoint every 10s and a
// failure at 33s it is the largest of these, about 10s plus a checkpoint's
// duration.
func TestMaxCheckpointAge(t *testing.T) {
	sc := ftScenario(t, 1, true, "transactional", `
checkpoint: {mode: aligned, interval: 10s, storage: {bandwidth: 100KiB/s, latency: 50ms}}
failures: [{kind: task, at: 33s, vertex: count}]
`)
	_, res := runSim(t, sc, Options{})
	from, want := 0.0, 0.0
	for _, ck := range res.Checkpoints {
		end := ck.TriggerS + ck.EndToEnd/1000
		if ck.Status != CheckpointCompleted || end > 33 {
			continue
		}
		want = max(want, end-from)
		from = ck.TriggerS
	}
	want = max(want, 33-from)
	got := res.Summary.Checkpoints.MaxAgeS
	if from != 30 || math.Abs(got-want) > 1e-5 || got <= 10 || got > 12 {
		t.Errorf("max_checkpoint_age_s %g, want %g (the last completed before the failure triggered at %gs, want 30s), a little over 10s", got, want, from)
	}
}

// A checkpoint whose barriers all came but whose state upload outlasts
// the timeout says the storage was the limit, not back-pressure: 1000
// keys of 1 MiB at 10 MiB/s take far longer than the 1s timeout, and the
// operator is busy half the time, back-pressured never.
func TestCheckpointTimeoutByUpload(t *testing.T) {
	sc := mustParse(t, `
name: upload
duration: 30s
sources:
  - {name: src, arrival: {process: constant, rate: 100/s}, keys: {count: 1000, distribution: uniform}, replayable: true}
operators:
  - {name: op, input: src, partitioning: hash, service_time: {distribution: constant, mean: 5ms}, state: {bytes_per_key: 1MiB}}
sinks:
  - {name: out, input: op}
checkpoint: {mode: aligned, interval: 10s, timeout: 1s, storage: {bandwidth: 10MiB/s, latency: 10ms}}
`)
	_, res := runSim(t, sc, Options{})
	if len(res.Checkpoints) == 0 {
		t.Fatal("no checkpoint ended")
	}
	for _, ck := range res.Checkpoints {
		if want := "(uploads to the checkpoint storage did not finish in time)"; ck.Status != CheckpointTimedOut || !strings.HasSuffix(ck.Reason, want) {
			t.Errorf("checkpoint %d: %s, %q; want timed out, %s", ck.ID, ck.Status, ck.Reason, want)
		}
	}
}
