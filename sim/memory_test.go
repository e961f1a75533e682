package sim_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// f3 is issue 13's F3: unaligned checkpoints every 10ms that cannot
// complete (1 B/s to the storage), a million at once allowed, on a 1000/s
// keyed job; each persists the records buffered at its barrier.
const f3 = `duration: 168h
workers: {count: 2, slots: 1}
sources: [{name: s, parallelism: 2, arrival: {process: poisson, rate: 500/s}, keys: {count: 1000}, replayable: true}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 2, service_time: {distribution: exponential, mean: 1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 2}]
checkpoint: {mode: unaligned, interval: 10ms, max_concurrent: 1000000, timeout: 100h, storage: {bandwidth: 1B/s}}
`

// The memory that checkpoints in flight accumulate is budgeted
// (Options.MaxMemory): the run stops with a *MemoryLimitError and partial
// results once they hold more than the budget, and the heap stays near
// it; without the budget the same run goes on piling them up.
func TestMemoryBudgetStopsPiledUpCheckpoints(t *testing.T) {
	sc, err := scenario.Parse("f3.yaml", []byte(f3))
	if err != nil {
		t.Fatal(err)
	}
	const budget = 32 << 20
	before := liveHeap()
	s, err := sim.New(sc, sim.Options{MaxMemory: budget})
	if err != nil {
		t.Fatal(err)
	}
	err = s.RunUntil(context.Background(), sc.Duration)
	var me *sim.MemoryLimitError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want a *MemoryLimitError", err)
	}
	grown := liveHeap() - before
	t.Logf("stopped: %v; heap grew %d", me, grown)
	runtime.KeepAlive(s)
	if me.Held <= budget || me.Held > budget+budget/8 || me.Limit != budget || me.InFlight < 1000 || me.Persisted <= 0 {
		t.Errorf("stopped with %+v", me)
	}
	// the budget counts what the checkpoints hold: the heap they take is
	// of its order (not ten times more)
	if grown > 2*budget {
		t.Errorf("the heap grew by %d bytes for a budget of %d", grown, budget)
	}
	if !strings.HasPrefix(me.Error(), "at ") || !strings.Contains(me.Error(), "checkpoints in progress, which persisted ") {
		t.Errorf("message: %s", me.Error())
	}
	res := s.Result()
	if !res.Summary.Partial || res.Summary.Checkpoints.InProgress != me.InFlight || res.Summary.SimulatedS >= 3600 {
		t.Errorf("partial %v, %d in progress, %vs simulated", res.Summary.Partial, res.Summary.Checkpoints.InProgress, res.Summary.SimulatedS)
	}

	// aligned checkpoints that complete hold nothing but the latest: the
	// budget never stops a long run
	sc.Duration = 60 * des.Second
	sc.Checkpoint.Mode, sc.Checkpoint.Storage.Bandwidth, sc.Checkpoint.MaxConcurrent = scenario.CheckpointAligned, 1<<30, 1
	if _, err := sim.Run(context.Background(), sc, sim.Options{MaxMemory: 1 << 20}); err != nil {
		t.Errorf("aligned checkpoints that complete: %v", err)
	}
}

// checkpointCounter counts the checkpoints it receives.
type checkpointCounter struct{ n int }

func (c *checkpointCounter) Sample(*sim.Sample)                 {}
func (c *checkpointCounter) Event(sim.Event)                    {}
func (c *checkpointCounter) Checkpoint(cs *sim.CheckpointStats) { c.n++ }

// With a CheckpointObserver the checkpoint rows stream to it and are not
// kept in the Result, so memory does not grow with checkpoints.
func TestCheckpointRowsStream(t *testing.T) {
	sc := load(t, "sensors-1000")
	sc.Checkpoint = aligned(des.Second, des.Minute)
	var c checkpointCounter
	res, err := sim.Run(context.Background(), sc, sim.Options{Observer: &c})
	if err != nil {
		t.Fatal(err)
	}
	cs := res.Summary.Checkpoints
	if c.n == 0 || c.n != cs.Completed+cs.Failed || res.Checkpoints != nil {
		t.Errorf("observer got %d, summary %d completed + %d failed, result kept %d rows", c.n, cs.Completed, cs.Failed, len(res.Checkpoints))
	}
	if res, _ := sim.Run(context.Background(), sc, sim.Options{}); len(res.Checkpoints) != c.n {
		t.Errorf("without an observer the result keeps %d rows, want %d", len(res.Checkpoints), c.n)
	}
}

// Huge buffers_per_channel and floating_buffers into a network of 1kbit/s
// let buffers pile up between the workers: --max-queued counts their
// records, the memory budget their buffers, and either stops the run.
func TestNetworkBuffersBounded(t *testing.T) {
	sc, err := scenario.Parse("net.yaml", []byte(`duration: 10s
workers: {count: 2, slots: 1}
network: {buffers_per_channel: 2147483647, floating_buffers: 2147483647, bandwidth: 1kbit/s, buffer_timeout: 0s}
sources: [{name: s, arrival: {process: constant, rate: 1000000/s}}]
sinks: [{name: out, input: s, partitioning: rebalance, parallelism: 2}]
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Run(context.Background(), sc, sim.Options{MaxQueued: 1e5})
	var qe *sim.QueueLimitError
	if !errors.As(err, &qe) || qe.Vertex != "" || qe.Network <= 1e5 || !strings.Contains(qe.Error(), " of them in network buffers between subtasks: ") {
		t.Errorf("MaxQueued: %v", err)
	}
	_, err = sim.Run(context.Background(), sc, sim.Options{MaxMemory: 16 << 20})
	var me *sim.MemoryLimitError
	if !errors.As(err, &me) || me.NetworkBuffers < 16<<20/320/2 || me.InFlight != 0 || !strings.Contains(me.Error(), " network buffers between subtasks, with ") {
		t.Errorf("MaxMemory: %v", err)
	}
}
