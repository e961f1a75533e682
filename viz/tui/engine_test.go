package tui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

func summaryJSON(t testing.TB, s *sim.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := sim.WriteSummaryJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestEngineChangesNothing checks that a run driven by the engine, step by
// step in the test mode or as fast as possible on the wall clock, ends as
// sim.Run does: the observer and the steps change nothing.
func TestEngineChangesNothing(t *testing.T) {
	sc := builtin(t, "backpressure")
	plain, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := summaryJSON(t, &plain.Summary)

	job := testJob(sc)
	e := manualEngine(t, job)
	for _, to := range []des.Time{1500 * des.Microsecond, 7 * des.Second, 7 * des.Second, 61 * des.Second, 200 * des.Second} {
		e.send(command{kind: cmdAdvance, to: to})
	}
	e.send(command{kind: cmdStep}) // after the end: nothing
	s := next(t, e, func(s *Snapshot) bool { return s.State == Finished })
	if s.Now != sc.Duration {
		t.Errorf("finished at %s", s.Now)
	}
	e.send(command{kind: cmdQuit})
	<-e.done
	if got := summaryJSON(t, &e.sim.Result().Summary); got != want {
		t.Errorf("stepped run differs from sim.Run:\n%s\nwant\n%s", got, want)
	}

	fast, err := newEngine(job, engineConfig{speed: 0, minPublish: time.Second / MaxSnapshotsPerSecond})
	if err != nil {
		t.Fatal(err)
	}
	go fast.run(context.Background())
	next(t, fast, func(s *Snapshot) bool { return s.State == Finished })
	fast.send(command{kind: cmdQuit})
	<-fast.done
	if got := summaryJSON(t, &fast.sim.Result().Summary); got != want {
		t.Errorf("a run as fast as possible differs from sim.Run:\n%s\nwant\n%s", got, want)
	}
}

// TestEngineStepPauseSpeed checks s (to the next sampling instant, the end
// of the warmup included), space and the speeds.
func TestEngineStepPauseSpeed(t *testing.T) {
	sc := builtin(t, "backpressure")
	sc.Warmup = 2500 * des.Millisecond
	e := manualEngine(t, testJob(sc))
	s := next(t, e, at(0))
	if s.State != Running || s.Speed != 1 {
		t.Fatalf("first snapshot: %s at %v×", s.State, s.Speed)
	}
	for _, want := range []des.Time{des.Second, 2 * des.Second, 2500 * des.Millisecond, 3 * des.Second} {
		e.send(command{kind: cmdStep})
		s = next(t, e, at(want))
		if s.Now != want || s.State != Paused || s.SampleTime != want {
			t.Fatalf("step: at %s (sample %s), %s; want %s, paused", s.Now, s.SampleTime, s.State, want)
		}
	}
	e.send(command{kind: cmdTogglePause})
	next(t, e, func(s *Snapshot) bool { return s.State == Running })
	e.send(command{kind: cmdTogglePause})
	next(t, e, func(s *Snapshot) bool { return s.State == Paused })
	speed := func(want float64) {
		t.Helper()
		e.send(command{kind: cmdAdvance}) // a marker: its snapshot follows the speed commands
		if s := next(t, e, func(s *Snapshot) bool { return s.Speed == want }); s.State != Paused || s.Now != 3*des.Second {
			t.Errorf("speed %v: %s at %s", want, s.State, s.Now)
		}
	}
	for range 2 {
		e.send(command{kind: cmdSlower})
	}
	speed(0.2)
	for range 20 {
		e.send(command{kind: cmdSlower})
	}
	speed(0.1)
	e.send(command{kind: cmdFaster})
	speed(0.2)
	for range 20 {
		e.send(command{kind: cmdFaster})
	}
	speed(0)
}

// TestEngineInject checks that f, F and c go through sim.Inject: a
// failure of a subtask fails the job over at once, a failure of its worker
// takes the worker's subtasks down until the JobManager notices (after the
// heartbeat timeout), and an action the simulator refuses is reported in
// the event log.
func TestEngineInject(t *testing.T) {
	e := manualEngine(t, testJob(builtin(t, "backpressure")))
	logOf := func(s *Snapshot) string {
		log := ""
		for _, l := range s.Events {
			log += l.Type + " " + l.Message + "\n"
		}
		return log
	}
	e.send(command{kind: cmdAdvance, to: 5 * des.Second})
	task := sim.Action{Kind: sim.ActionFailure, Vertex: "parse", Subtask: 0}
	e.send(command{kind: cmdInject, action: task})
	s := next(t, e, func(s *Snapshot) bool { return s.Recovery.Failures == 1 })
	log := logOf(s)
	for _, want := range []string{sim.EventAction + " " + task.String(), sim.EventFailure + " task parse[0] failed",
		sim.EventFailureDetected + " task parse[0] failed: global failover, restart in 1s"} {
		if !strings.Contains(log, want) {
			t.Errorf("after f, the log has no %q:\n%s", want, log)
		}
	}
	if s.Recovery.JobState != sim.JobRestarting || !s.JobDown() || !s.Down(0) || len(s.DownWorkers) != 0 {
		t.Errorf("after f: job %s, down %v, workers down %v", s.Recovery.JobState, s.JobDown(), s.DownWorkers)
	}

	e.send(command{kind: cmdAdvance, to: 10 * des.Second})
	s = next(t, e, at(10*des.Second))
	if s.Recovery.JobState != sim.JobRunning || s.Recovery.Restarts != 1 || s.Down(0) {
		t.Fatalf("5s after f: job %s, %d restarts, worker 0 down %v", s.Recovery.JobState, s.Recovery.Restarts, s.Down(0))
	}
	if log := logOf(s); !strings.Contains(log, sim.EventRecoveryCompleted+" recovered") {
		t.Errorf("no recovery in the log:\n%s", log)
	}

	worker := sim.Action{Kind: sim.ActionFailure, Vertex: "parse", Subtask: 0, Worker: true}
	e.send(command{kind: cmdInject, action: worker})
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}})
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure, Vertex: "nope"}})
	e.send(command{kind: cmdAdvance, to: 11 * des.Second})
	s = next(t, e, at(11*des.Second))
	log = logOf(s)
	for _, want := range []string{sim.EventAction + " " + worker.String(), sim.EventFailure + " worker 0 (running parse[0]) failed",
		LogError + " checkpoint refused (nothing applied or recorded): checkpointing is off in this scenario", LogError + ` failure of nope[0] refused (nothing applied or recorded): sim: no vertex "nope"`} {
		if !strings.Contains(log, want) {
			t.Errorf("after F, c and a failure of nope, the log has no %q:\n%s", want, log)
		}
	}
	// backpressure runs every subtask on worker 0, noticed after the
	// default heartbeat timeout of 50s
	if s.Recovery.JobState != sim.JobRunning || len(s.DownWorkers) != 1 || s.DownWorkers[0] != (WorkerDown{0, 10 * des.Second}) || !s.Down(0) || s.Down(1) {
		t.Errorf("after F: job %s, workers down %v", s.Recovery.JobState, s.DownWorkers)
	}
	e.send(command{kind: cmdAdvance, to: 60 * des.Second})
	s = next(t, e, at(60*des.Second))
	if s.Recovery.Failures != 2 || s.Recovery.JobState != sim.JobRestarting || len(s.DownWorkers) != 0 || !s.Down(0) {
		t.Errorf("50s after F: %d failures, job %s, workers down %v", s.Recovery.Failures, s.Recovery.JobState, s.DownWorkers)
	}
	if s.State != Running || s.Err != "" {
		t.Errorf("the failures stopped the run: %s %q", s.State, s.Err)
	}
}

// TestFailedWorker checks that the view reads the worker of the
// simulator's failure events, injected or scripted, and nothing else.
func TestFailedWorker(t *testing.T) {
	for msg, want := range map[string]int{"worker 1 failed": 1, "worker 12 (running parse[3]) failed": 12,
		"task parse[0] failed": -1, "the JobManager failed": -1, "worker lost": -1} {
		w, ok := failedWorker(msg)
		if !ok {
			w = -1
		}
		if w != want {
			t.Errorf("failedWorker(%q) = %d, %v; want %d", msg, w, ok, want)
		}
	}
}

// TestEngineRestart checks r: the run starts again from time 0 with an
// empty log, and the engine keeps the new simulation.
func TestEngineRestart(t *testing.T) {
	e := manualEngine(t, testJob(builtin(t, "backpressure")))
	e.send(command{kind: cmdAdvance, to: 120 * des.Second})
	if s := next(t, e, at(120*des.Second)); s.State != Finished || len(s.Events) < 3 {
		t.Fatalf("at the end: %s, %d events", s.State, len(s.Events))
	}
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}})
	e.send(command{kind: cmdRestart})
	s := next(t, e, func(s *Snapshot) bool { return s.Gen == 1 })
	if s.Now != 0 || s.State != Running || s.SampleTime != 0 || len(s.Events) != 1 || s.Events[0].Type != sim.EventRunStarted {
		t.Errorf("after r: %s at %s, sample %s, events %+v", s.State, s.Now, s.SampleTime, s.Events)
	}
	e.send(command{kind: cmdStep})
	if s = next(t, e, at(des.Second)); s.Gen != 1 || s.State != Paused || len(s.Vertices[0].Subtasks) != 1 {
		t.Errorf("a step after r: %+v", s)
	}
}

// TestEngineStoppedRun checks a run stopped by the simulator (a queue
// limit): the snapshot says why, and the engine keeps the error.
func TestEngineStoppedRun(t *testing.T) {
	sc := builtin(t, "mm1")
	sc.Operators[0].ServiceTime.Mean *= 100 // overloaded without flow control
	job := Job{Label: "mm1", Scenario: sc, Start: func(obs sim.Observer) (*sim.Sim, error) {
		return sim.New(sc, sim.Options{Observer: obs, MaxQueued: 500})
	}}
	e := manualEngine(t, job)
	e.send(command{kind: cmdAdvance, to: 60 * des.Second})
	s := next(t, e, func(s *Snapshot) bool { return s.State == Stopped })
	if !strings.Contains(s.Err, "records are queued (limit 500)") {
		t.Errorf("stopped with %q", s.Err)
	}
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}})
	s = next(t, e, at(0))
	if l := s.Events[len(s.Events)-1]; !strings.Contains(l.Message, "the run has stopped (r restarts it)") {
		t.Errorf("an action after the stop: %q", l.Message)
	}
	var qe *sim.QueueLimitError
	e.send(command{kind: cmdQuit})
	<-e.done
	if !errors.As(e.stopErr, &qe) {
		t.Errorf("the engine's error is %v", e.stopErr)
	}
}

// TestEngineCoalesces checks that a run as fast as possible hands the UI
// at most MaxSnapshotsPerSecond snapshots a wall second, and that a UI
// slower than that gets the latest one.
func TestEngineCoalesces(t *testing.T) {
	sc := builtin(t, "sensors-1000")
	sc.Duration = 3600 * des.Second // longer than the test lets it run
	e, err := newEngine(testJob(sc), engineConfig{speed: 0, minPublish: time.Second / MaxSnapshotsPerSecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	go e.run(ctx)
	var got []*Snapshot
	for len(got) < 12 {
		s := <-e.out
		got = append(got, s)
		time.Sleep(50 * time.Millisecond) // a slow UI: the engine must not wait for it
	}
	e.send(command{kind: cmdQuit})
	<-e.done
	elapsed := time.Since(start)
	if max := int(elapsed.Seconds()*MaxSnapshotsPerSecond) + 2; e.published > max {
		t.Errorf("%d snapshots in %s, more than %d", e.published, elapsed, max)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Now <= got[i-1].Now {
			t.Fatalf("snapshot %d at %s after one at %s", i, got[i].Now, got[i-1].Now)
		}
	}
	if got[len(got)-1].WallSpeed <= 0 {
		t.Error("no speed measured as fast as possible")
	}
}

// TestEngineRealTime checks that at 1000× the simulation follows the wall
// clock, and that pausing stops it.
func TestEngineRealTime(t *testing.T) {
	e, err := newEngine(testJob(builtin(t, "backpressure")), engineConfig{speed: 1000, minPublish: time.Second / MaxSnapshotsPerSecond})
	if err != nil {
		t.Fatal(err)
	}
	go e.run(context.Background())
	defer func() {
		e.send(command{kind: cmdQuit})
		<-e.done
	}()
	start := time.Now()
	s := next(t, e, at(20*des.Second))
	if took := time.Since(start); took < 15*time.Millisecond {
		t.Errorf("20 simulated seconds at 1000x took %s of wall time", took)
	}
	e.send(command{kind: cmdTogglePause})
	s = next(t, e, func(s *Snapshot) bool { return s.State == Paused })
	time.Sleep(50 * time.Millisecond)
	e.send(command{kind: cmdFaster})
	s2 := next(t, e, func(s *Snapshot) bool { return s.Speed == 2000 || s.Speed == 0 })
	if s2.Now != s.Now {
		t.Errorf("paused at %s, then at %s", s.Now, s2.Now)
	}
}

// TestCollectorBuckets checks the sparklines' minute of history: one
// bucket per second at a 1s interval, and repeated buckets at a coarser
// interval.
func TestCollectorBuckets(t *testing.T) {
	sc := builtin(t, "backpressure")
	e := manualEngine(t, testJob(sc))
	e.send(command{kind: cmdAdvance, to: 62 * des.Second}) // the minute from 2s on, while the buffers fill (until ~30s)
	s := next(t, e, at(62*des.Second))
	if len(s.Throughput) != HistoryBuckets || len(s.P99) != HistoryBuckets {
		t.Fatalf("%d and %d buckets", len(s.Throughput), len(s.P99))
	}
	for i, x := range s.Throughput {
		if x < 9 || x > 11 { // the sink receives the bottleneck's 10/s
			t.Errorf("throughput bucket %d = %v, want about 10", i, x)
		}
	}
	if !(s.P99[59] > s.P99[0]) {
		t.Errorf("p99 does not grow with the lag: %v .. %v", s.P99[0], s.P99[59])
	}

	sc = builtin(t, "backpressure")
	sc.Metrics.Interval = 5 * des.Second
	e = manualEngine(t, testJob(sc))
	e.send(command{kind: cmdAdvance, to: 30 * des.Second})
	s = next(t, e, at(30*des.Second))
	nan := 0
	for _, x := range s.Throughput {
		if x != x {
			nan++
		}
	}
	if nan != 30+4 { // the half minute before time 0, and the first interval's first 4 seconds
		t.Errorf("%d empty buckets at a 5s interval after 30s, want 34: %v", nan, s.Throughput)
	}
}

// TestReplayIsExact checks the promise of --replay: the actions a live run
// recorded (a checkpoint, a failure of a subtask, a failure of a worker),
// replayed by sim.Options.Actions, give the same run. Each is injected at
// a metrics sampling instant, where other events fall at the same
// simulated time.
func TestReplayIsExact(t *testing.T) {
	sc := builtin(t, "checkpoint-aligned") // its checkpoints can be triggered by hand
	e := manualEngine(t, testJob(sc))
	e.send(command{kind: cmdAdvance, to: 21 * des.Second})
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}})
	e.send(command{kind: cmdAdvance, to: 40 * des.Second})
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure, Vertex: "parse"}})
	e.send(command{kind: cmdAdvance, to: 60 * des.Second})
	e.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure, Vertex: "enrich", Worker: true}})
	e.send(command{kind: cmdAdvance, to: sc.Duration})
	next(t, e, func(s *Snapshot) bool { return s.State != Running })
	e.send(command{kind: cmdQuit})
	<-e.done
	actions := e.sim.Actions()
	if len(actions) != 3 {
		t.Fatalf("recorded %+v, want the checkpoint and the two failures", actions)
	}
	if r := e.sim.Recovery(); r.Failures != 2 {
		t.Errorf("%d failures, want 2", r.Failures)
	}
	live := summaryJSON(t, &e.sim.Result().Summary)
	res, err := sim.Run(context.Background(), sc, sim.Options{Actions: actions})
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryJSON(t, &res.Summary); got != live {
		t.Errorf("the replay of %+v differs from the live run:\n%s\nwant\n%s", actions, got, live)
	}
}
