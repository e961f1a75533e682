package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// recoveryModel is a model of recoveryYAML (orders, totals and out, each
// with subtask 0 on worker 0 and subtask 1 on worker 1) on a fake
// controller, 80x24, with totals selected.
func recoveryModel(t *testing.T) model {
	t.Helper()
	sc, err := scenario.Parse("recovery.yaml", []byte(recoveryYAML))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(testJob(sc), &fakeController{ch: make(chan *Snapshot, 1)})
	m.width, m.height, m.sel = 80, 24, 1
	return m
}

// recoverySnapshot is a snapshot of recoveryYAML at now with every vertex
// sampled (OK) and the job's state.
func recoverySnapshot(now des.Time, rec sim.RecoverySummary) *Snapshot {
	s := &Snapshot{Now: now, Duration: 120 * des.Second, State: Running, Speed: 1, Recovery: rec}
	for _, v := range []struct{ name, kind string }{{"orders", sim.KindSource}, {"totals", sim.KindOperator}, {"out", sim.KindSink}} {
		vs := VertexState{Row: sim.Row{Vertex: v.name, Kind: v.kind, Subtask: -1, Idle: 1000, Status: sim.StatusOK}, HaveTotal: true}
		for i := range 2 {
			vs.Subtasks = append(vs.Subtasks, sim.Row{Vertex: v.name, Kind: v.kind, Subtask: i, Idle: 1000, Status: sim.StatusOK})
		}
		s.Vertices = append(s.Vertices, vs)
	}
	return s
}

// TestJobBanner checks what the header says of the job's state, and the
// DOWN statuses of the graph and the subtasks.
func TestJobBanner(t *testing.T) {
	running := sim.RecoverySummary{JobState: sim.JobRunning}
	restarting := sim.RecoverySummary{JobState: sim.JobRestarting, Failures: 1,
		Failovers: []sim.FailoverStats{{Cause: "task totals[0] failed", FailedS: 95, DetectedS: 95, RestartS: -1, RecoveredS: -1, RestartWait: 5000}}}
	restoring := sim.RecoverySummary{JobState: sim.JobRestarting, Failures: 1, Restarts: 1,
		Failovers: []sim.FailoverStats{{Cause: "worker 1 lost", DetectedS: 55, RestartS: 60, RecoveredS: -1, RestartWait: 5000, Checkpoint: 4, RestoreBytes: 1010688}}}
	fromScratch := restoring
	fromScratch.Failovers = []sim.FailoverStats{{Cause: "worker 1 lost", DetectedS: 55, RestartS: 60, RecoveredS: -1}}
	failed := sim.RecoverySummary{JobState: sim.JobFailed, Failures: 1, Message: "job failed for good at 80s: restart strategy none"}
	lost := sim.RecoverySummary{JobState: sim.JobLost, Failures: 1,
		Message: "job lost at 60s: the JobManager failed without high availability (high_availability: {type: zookeeper} would elect a new one and recover from the latest checkpoint)"}
	for _, tc := range []struct {
		name   string
		rec    sim.RecoverySummary
		down   []WorkerDown
		state  RunState
		header []string // the lines under the title
		// statuses of the graph's rows (orders, and the chain totals ->
		// out as one row) and of totals' subtasks
		graph, subtasks []string
	}{
		{"running", running, nil, Running,
			[]string{"Checkpoints every 10s, an at-least-once sink; worker 1 dies at 45s."},
			[]string{"OK", "OK"}, []string{"OK", "OK"}},
		{"worker down", running, []WorkerDown{{1, 45 * des.Second}}, Running,
			[]string{"WORKER 1 DOWN since 45s; the JobManager notices at 55s (heartbeat_timeout 10s)"},
			[]string{"DOWN*", "DOWN*"}, []string{"OK", "DOWN"}},
		{"workers down", running, []WorkerDown{{1, 45 * des.Second}, {0, 47 * des.Second}}, Running,
			[]string{"WORKERS 1, 0 DOWN since 45s; the JobManager notices at 55s (heartbeat_timeout", "10s)"},
			[]string{"DOWN*", "DOWN*"}, []string{"DOWN", "DOWN"}},
		{"restarting", restarting, nil, Running,
			[]string{"RESTARTING since 95s: task totals[0] failed · restart at 100s"},
			[]string{"DOWN*", "DOWN*"}, []string{"DOWN", "DOWN"}},
		{"restoring", restoring, nil, Running,
			[]string{"RESTARTING since 55s: restoring checkpoint 4 (987KiB of state)"},
			[]string{"DOWN*", "DOWN*"}, []string{"DOWN", "DOWN"}},
		{"from scratch", fromScratch, nil, Paused,
			[]string{"RESTARTING since 55s: no checkpoint to restore: the sources start over"},
			[]string{"DOWN*", "DOWN*"}, []string{"DOWN", "DOWN"}},
		{"failed", failed, nil, Running,
			[]string{"JOB FAILED at 80s: restart strategy none"},
			[]string{"DOWN*", "DOWN*"}, []string{"DOWN", "DOWN"}},
		{"lost", lost, nil, Running,
			[]string{"JOB LOST at 60s: the JobManager failed without high availability",
				"(high_availability: {type: zookeeper} would elect a new one and recover from th…"},
			[]string{"DOWN*", "DOWN*"}, []string{"DOWN", "DOWN"}},
		{"finished failed", failed, nil, Finished,
			[]string{"JOB FAILED at 80s: restart strategy none", "finished: r restarts, q quits and prints the summary"},
			[]string{"DOWN*", "DOWN*"}, []string{"DOWN", "DOWN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := recoveryModel(t)
			m.snap = recoverySnapshot(100*des.Second, tc.rec)
			m.snap.DownWorkers, m.snap.State = tc.down, tc.state
			lines := strings.Split(ansi.Strip(m.render()), "\n")
			if got := lines[1 : 1+len(tc.header)]; strings.Join(got, "\n") != strings.Join(tc.header, "\n") {
				t.Errorf("header:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.header, "\n"))
			}
			if l := lines[1+len(tc.header)]; !strings.HasPrefix(l, "JOB GRAPH") {
				t.Errorf("the graph does not follow the header: %q", l)
			}
			var graph, subtasks []string
			panels := 0 // the selected vertex's subtasks are the first panel
			for _, l := range lines {
				f := strings.Fields(l)
				if strings.HasPrefix(l, "SUBTASKS of ") {
					panels++
				}
				switch {
				case panels > 1:
				case len(f) > 0 && (strings.HasPrefix(l, "  orders") || strings.HasPrefix(l, "› totals") || strings.HasPrefix(l, "  out ")):
					graph = append(graph, f[len(f)-1])
				case strings.HasPrefix(strings.TrimPrefix(l, "› "), "  #") || strings.HasPrefix(l, "› #"):
					for _, st := range []string{"OK", "LOW", "HIGH", "DOWN"} {
						if strings.Contains(l, "bp  "+st+" ") || strings.Contains(l, "idle  "+st+" ") || strings.Contains(l, "down  "+st+" ") {
							subtasks = append(subtasks, st)
						}
					}
					// a subtask down is drawn as down: a bar of ×, not of
					// idle time (issue 12)
					if strings.Contains(l, "  DOWN  ") && (strings.Contains(l, "░") || strings.Contains(l, "idle") || !strings.Contains(l, "××××××")) {
						t.Errorf("a DOWN subtask drawn as idle: %q", l)
					}
				}
			}
			if strings.Join(graph, " ") != strings.Join(tc.graph, " ") || strings.Join(subtasks, " ") != strings.Join(tc.subtasks, " ") {
				t.Errorf("statuses: graph %v, subtasks %v; want %v, %v\n%s", graph, subtasks, tc.graph, tc.subtasks, strings.Join(lines, "\n"))
			}
		})
	}
}

// TestCheckpointPane checks the checkpoint timeline and the line under it.
func TestCheckpointPane(t *testing.T) {
	m := recoveryModel(t)
	completed := CheckpointMark{ID: 1, Trigger: 10 * des.Second, End: 12500 * des.Millisecond, Status: sim.CheckpointCompleted,
		Message: "checkpoint 1 completed in 2.5s (alignment up to 5.633ms, start delay up to 5.633ms, 640.0KiB of state)"}
	timedOut := CheckpointMark{ID: 2, Trigger: 20 * des.Second, End: 40 * des.Second, Status: sim.CheckpointFailed,
		Message: "checkpoint 2 timed out after 20s: 3 of 6 subtasks acknowledged (barriers wait behind buffered records under back-pressure)"}
	inProgress := CheckpointMark{ID: 3, Trigger: 55 * des.Second, Status: CheckpointInProgress}
	for _, tc := range []struct {
		name     string
		ckpts    []CheckpointMark
		timeline string // the marks on the timeline, in order
		last     string
	}{
		{"none", nil, "", "CHECKPOINTS none so far"},
		{"in progress", []CheckpointMark{{ID: 1, Trigger: 55 * des.Second, Status: CheckpointInProgress}}, "◐", "now #1 ◐ in progress for 5s"},
		{"completed", []CheckpointMark{completed}, "✓", "last #1 ✓ in 2.5s, alignment 5.63ms"},
		{"all", []CheckpointMark{completed, timedOut, inProgress}, "✓✗◐",
			"last #2 ✗ timed out after 20s: 3 of 6 subtasks acknowledged (barriers wait behind buffered records under back-pressure)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := recoverySnapshot(60*des.Second, sim.RecoverySummary{JobState: sim.JobRunning})
			s.Checkpoints = tc.ckpts
			lines := m.checkpointLines(s, 200)
			tl := ansi.Strip(lines[0])
			marks := strings.Map(func(r rune) rune {
				if strings.ContainsRune("✓✗◐", r) {
					return r
				}
				return -1
			}, tl)
			if marks != tc.timeline {
				t.Errorf("timeline %q: marks %q, want %q", tl, marks, tc.timeline)
			}
			want := tc.last
			if tc.ckpts == nil {
				want = ""
				if tl != tc.last {
					t.Errorf("timeline %q, want %q", tl, tc.last)
				}
			}
			if got := ansi.Strip(lines[1]); got != want {
				t.Errorf("under the timeline: %q, want %q", got, want)
			}
		})
	}
	// a timeline of 188 cells for 60s: a checkpoint from 20s to 40s spans
	// cells 62 to 124 and ends in 125; the one in progress from 55s spans
	// cells 172 to 186 and ends now, in the last
	s := recoverySnapshot(60*des.Second, sim.RecoverySummary{JobState: sim.JobRunning})
	s.Checkpoints = []CheckpointMark{timedOut, inProgress}
	cells := []rune(strings.TrimPrefix(ansi.Strip(m.checkpointLines(s, 200)[0]), "CHECKPOINTS "))
	if len(cells) != 188 || cells[62] != '─' || cells[124] != '─' || cells[125] != '✗' || cells[126] != '·' || cells[187] != '◐' || cells[171] != '·' || cells[172] != '─' {
		t.Errorf("timeline %q", string(cells))
	}
	// checkpoints off
	sc := builtin(t, "backpressure")
	m2 := newModel(testJob(sc), &fakeController{})
	if got := ansi.Strip(m2.checkpointLines(&Snapshot{}, 40)[0]); got != "CHECKPOINTS off in this scenario" {
		t.Errorf("without a checkpoint block: %q", got)
	}
}

// TestDeliveryLines checks the delivery counters, and that the optional
// ones come as they fit.
func TestDeliveryLines(t *testing.T) {
	m := recoveryModel(t)
	s := &Snapshot{Delivery: sim.DeliverySummary{Emitted: 12345, Delivered: 9876, Duplicated: 514, Lost: 3, Replayed: 563, InFlight: 9, Uncommitted: 40}}
	for w, want := range map[int]string{
		40:  "duplicated 514 · lost 3 · uncommitted 40",
		39:  "duplicated 514 · lost 3",
		30:  "duplicated 514 · lost 3",
		10:  "duplicated 514",
		100: "duplicated 514 · lost 3 · uncommitted 40 · replayed 563 · in flight 9",
	} {
		lines := m.deliveryLines(s, w)
		if got := ansi.Strip(lines[0]); got != "DELIVERY emitted 12.3k · delivered 9876" {
			t.Errorf("%d wide: %q", w, got)
		}
		if got := ansi.Strip(lines[1]); got != want {
			t.Errorf("%d wide: %q, want %q", w, got, want)
		}
	}
	s.Delivery = sim.DeliverySummary{Emitted: 5, Delivered: 5}
	if got := ansi.Strip(m.deliveryLines(s, 100)[1]); got != "duplicated 0 · lost 0 · in flight 0" {
		t.Errorf("nothing replayed or uncommitted: %q", got)
	}
}

// TestCollectorEvents checks what the collector makes of the simulator's
// events: checkpoints to the timeline (the ones that went well not in the
// log), failed workers down until the failover, a failure while the job
// is down ignored as the simulator ignores it.
func TestCollectorEvents(t *testing.T) {
	m := recoveryModel(t)
	c := newCollector(m.g)
	ev := func(at des.Time, typ, msg string, id int64) {
		c.Event(sim.Event{Time: at, Type: typ, Message: msg, Checkpoint: id})
	}
	running := sim.RecoverySummary{JobState: sim.JobRunning}
	ev(10*des.Second, sim.EventCheckpointTriggered, "checkpoint 1 triggered", 1)
	ev(12*des.Second, sim.EventCheckpointCompleted, "checkpoint 1 completed in 2s (alignment up to 1ms, ...)", 1)
	ev(20*des.Second, sim.EventCheckpointTriggered, "checkpoint 2 triggered", 2)
	ev(45*des.Second, sim.EventFailure, "worker 1 failed", 0)
	ev(46*des.Second, sim.EventFailure, "worker 1 (running totals[1]) failed", 0)
	ev(47*des.Second, sim.EventFailure, "task totals[0] failed", 0)
	s := c.snapshot(sim.DeliverySummary{}, running)
	if len(s.DownWorkers) != 1 || s.DownWorkers[0] != (WorkerDown{1, 45 * des.Second}) || !s.Down(1) || s.Down(0) {
		t.Errorf("after worker 1 failed: %v", s.DownWorkers)
	}
	if len(s.Checkpoints) != 2 || s.Checkpoints[0].Status != sim.CheckpointCompleted || s.Checkpoints[0].End != 12*des.Second ||
		s.Checkpoints[1].Status != CheckpointInProgress || s.Checkpoints[1].Trigger != 20*des.Second {
		t.Errorf("checkpoints %+v", s.Checkpoints)
	}
	for _, l := range s.Events {
		if strings.HasPrefix(l.Type, "checkpoint") {
			t.Errorf("a checkpoint that went well is in the log: %+v", l)
		}
	}
	ev(50*des.Second, sim.EventCheckpointFailed, "checkpoint 2 aborted: the job failed over", 2)
	ev(50*des.Second, sim.EventFailureDetected, "worker 1 lost: ...", 0)
	ev(51*des.Second, sim.EventFailure, "worker 0 failed", 0) // ignored while restarting
	s = c.snapshot(sim.DeliverySummary{}, sim.RecoverySummary{JobState: sim.JobRestarting})
	if len(s.DownWorkers) != 0 || !s.Down(0) || s.Checkpoints[1].Status != sim.CheckpointFailed || s.Checkpoints[1].End != 50*des.Second {
		t.Errorf("after the failover: workers down %v, checkpoints %+v", s.DownWorkers, s.Checkpoints)
	}
	if l := s.Events[len(s.Events)-3]; l.Type != sim.EventCheckpointFailed {
		t.Errorf("the aborted checkpoint is not in the log: %+v", s.Events)
	}
	ev(55*des.Second, sim.EventRecoveryCompleted, "recovered", 0)
	s = c.snapshot(sim.DeliverySummary{}, running)
	if len(s.DownWorkers) != 0 || s.Down(0) || s.Down(1) {
		t.Errorf("after the recovery: workers down %v", s.DownWorkers)
	}
	ev(60*des.Second, sim.EventFailure, "worker 0 failed", 0)
	c.reset()
	if s = c.snapshot(sim.DeliverySummary{}, running); len(s.DownWorkers) != 0 || len(s.Checkpoints) != 0 || len(s.Events) != 0 {
		t.Errorf("after a reset: %+v", s)
	}
}
