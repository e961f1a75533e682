package sim_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

func runCheckpoints(t *testing.T, sc *scenario.Scenario) *sim.Result {
	t.Helper()
	res, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Without back-pressure a barrier passes each channel within a buffer
// timeout, so aligned checkpoints complete fast and every subtask
// acknowledges each of them.
func TestAlignedCheckpointsComplete(t *testing.T) {
	sc := load(t, "sensors-1000")
	sc.Checkpoint = aligned(10*des.Second, des.Minute)
	res := runCheckpoints(t, sc)
	cs := res.Summary.Checkpoints
	if cs == nil || cs.Triggered != 5 || cs.Completed != 5 || cs.Failed != 0 || cs.InProgress != 0 {
		// triggers at 10..50s; none at the very end (60s)
		t.Fatalf("checkpoints %+v, want 5 triggered, 5 completed, 0 failed", cs)
	}
	for _, c := range res.Checkpoints {
		if c.Status != sim.CheckpointCompleted || c.Acked != 8 || c.Subtasks != 8 {
			t.Errorf("checkpoint %+v: want completed, acknowledged by all 8 subtasks", c)
		}
		// two hops of at most a 100ms buffer timeout each, plus 1ms latency
		if c.EndToEnd <= 0 || c.EndToEnd > 250 {
			t.Errorf("checkpoint %d took %.1fms, want (0, 250]", c.ID, c.EndToEnd)
		}
	}
	// barriers flush buffers on their way, so records arrive a little
	// earlier; the sources emit exactly what they would without checkpoints
	plain := load(t, "sensors-1000")
	if p := run(t, plain); p.Totals.Emitted != res.Summary.Totals.Emitted {
		t.Errorf("emitted with checkpoints %d, without %d", res.Summary.Totals.Emitted, p.Totals.Emitted)
	}
}

// Under back-pressure the barrier queues behind every buffered record: in
// `backpressure` about 20 s of them at enrich's 10 records/s, so a 15 s
// timeout fails every checkpoint and a 2-minute one lets them complete in
// about the time the queued records take.
func TestAlignedCheckpointsUnderBackpressure(t *testing.T) {
	sc := load(t, "backpressure")
	sc.Checkpoint = aligned(30*des.Second, 15*des.Second)
	res := runCheckpoints(t, sc)
	cs := res.Summary.Checkpoints
	if cs.Completed != 0 || cs.Failed == 0 || cs.LastDuration != nil || cs.MaxDuration != nil {
		t.Fatalf("checkpoints %+v: want all timed out, and no completed duration (null)", cs)
	}
	for _, c := range res.Checkpoints {
		if c.Status != sim.CheckpointTimedOut || c.EndToEnd != 15000 {
			t.Errorf("checkpoint %+v: want timed_out after 15000ms", c)
		}
		// checkpoints.csv's failure_reason: what the checkpoint_failed event says
		if !strings.HasPrefix(c.Reason, "timed out after 15s: ") || !strings.HasSuffix(c.Reason, " subtasks acknowledged (barriers wait behind buffered records under back-pressure)") {
			t.Errorf("checkpoint %d: failure reason %q", c.ID, c.Reason)
		}
	}
	sc.Checkpoint.Timeout = 2 * des.Minute
	res = runCheckpoints(t, sc)
	if res.Summary.Checkpoints.Completed == 0 {
		t.Fatalf("checkpoints %+v: want completions with a 2-minute timeout", res.Summary.Checkpoints)
	}
	inFlight := float64(res.Summary.Totals.InFlight) // records ahead of a barrier, roughly
	for _, c := range res.Checkpoints {
		if c.Status != sim.CheckpointCompleted {
			continue
		}
		want := inFlight / 10 * 1000 // ms at enrich's 10 records/s
		if c.EndToEnd < 0.8*want || c.EndToEnd > 1.2*want {
			t.Errorf("checkpoint %d took %.0fms, want about %.0fms (%.0f records ahead at 10/s)", c.ID, c.EndToEnd, want, inFlight)
		}
		if c.StartDelay <= 0 {
			t.Errorf("checkpoint %d: start delay %.1fms, want > 0 (the source is back-pressured)", c.ID, c.StartDelay)
		}
	}
}

// A subtask with two inputs blocks the input whose barrier came first
// until the other's comes: the alignment time is the difference in the
// paths' delays.
func TestAlignmentOfTwoInputs(t *testing.T) {
	sc := parse(t, "union.yaml", []byte(`
name: union
duration: 60s
network: {buffer_timeout: 0, latency: 0}
sources:
  - {name: fast, arrival: {process: poisson, rate: 10/s}}
  - {name: slow, arrival: {process: poisson, rate: 10/s}}
operators:
  - {name: delay, input: slow, service_time: {distribution: exponential, mean: 50ms}}
  - {name: join, inputs: [fast, delay], service_time: {mean: 1ms}}
sinks:
  - {name: out, input: join}
checkpoint: {mode: aligned, interval: 10s, timeout: 1m}
`))
	sc.Duration = 1000 * des.Second
	res := runCheckpoints(t, sc)
	if res.Summary.Checkpoints.Completed != 99 {
		t.Fatalf("checkpoints %+v, want 99 completed (the 100th is in progress at the end)", res.Summary.Checkpoints)
	}
	aligned := 0
	for _, c := range res.Checkpoints {
		// the barrier from slow waits behind delay's queue (an M/M/1 at
		// ρ = 0.5: mostly empty, rarely long); fast's input stays blocked
		if c.Alignment > 0 {
			aligned++
		}
		if c.Alignment > 2000 || c.EndToEnd < c.Alignment {
			t.Errorf("checkpoint %d: alignment %.3fms, end to end %.3fms", c.ID, c.Alignment, c.EndToEnd)
		}
	}
	// delay is busy half the time: about half the barriers find it busy
	if aligned < 30 || aligned > 70 {
		t.Errorf("%d of 99 checkpoints needed alignment, want about half", aligned)
	}
	var b bytes.Buffer
	if err := sim.WriteCheckpointsCSV(&b, res.Checkpoints); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 100 || lines[0] != strings.Join(sim.CheckpointColumns, ",") {
		t.Errorf("checkpoints.csv:\n%s", b.String())
	}
}

// A checkpoint triggered by hand (the live view's c) runs like a periodic
// one; without checkpointing the action is refused.
func TestCheckpointAction(t *testing.T) {
	sc := load(t, "sensors-1000")
	s, err := sim.New(sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.RunUntil(context.Background(), 5*des.Second)
	if err := s.Inject(sim.Action{Kind: sim.ActionCheckpoint}); err == nil || !strings.Contains(err.Error(), "checkpointing is off") {
		t.Errorf("checkpoint without checkpointing: err = %v", err)
	}
	sc.Checkpoint = aligned(time100s, des.Minute)
	s, _ = sim.New(sc, sim.Options{})
	_ = s.RunUntil(context.Background(), 5*des.Second)
	if err := s.Inject(sim.Action{Kind: sim.ActionCheckpoint}); err != nil {
		t.Fatal(err)
	}
	_ = s.RunUntil(context.Background(), 6*des.Second)
	if cs := s.Result().Summary.Checkpoints; cs.Completed != 1 {
		t.Errorf("after a checkpoint by hand: %+v, want 1 completed", cs)
	}
}

const time100s = 100 * des.Second

// aligned returns aligned checkpoints every interval with the given
// timeout and the other settings at their defaults.
func aligned(interval, timeout des.Time) scenario.Checkpointing {
	c := scenario.DefaultCheckpointing()
	c.Mode, c.Interval, c.Timeout = scenario.CheckpointAligned, interval, timeout
	return c
}
