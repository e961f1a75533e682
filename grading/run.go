package grading

import (
	"context"
	"errors"
	"fmt"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// progressEvery is how many kernel events pass between two calls of
// sim.Options.Progress: the granularity of the event budget.
const progressEvery = 1 << 16

// errOverBudget is the cause of a run cancelled by the event budget.
var errOverBudget = errors.New("over the event budget")

// RunError is a grading run that did not give a summary to check: stopped
// by the event budget or the queue limit, a trace that could not be read,
// or a failure of the simulator. It is deterministic: the same scenario
// and seed fail the same way.
type RunError struct {
	Seed   uint64
	Hidden bool // the seed is a hidden one: messages do not show it
	Msg    string
}

func (e *RunError) Error() string {
	if e.Hidden {
		return "the run on a hidden seed " + e.Msg
	}
	return fmt.Sprintf("the run on seed %d %s", e.Seed, e.Msg)
}

// simulate runs sc (parsed under label, its seed set) to its end with the
// exercise's event budget and returns its summary as a document for
// exercises.Lookup. Trace sources replay the embedded offline samples of
// data sets (never the user's cache, so that every machine grades alike)
// or files of the exercise's folder. It returns a *RunError for a run that
// stopped early, and ctx's error when ctx is cancelled.
func (g *Grader) simulate(ctx context.Context, sc *scenario.Scenario) (any, error) {
	return runScenario(ctx, sc, g.spec())
}

// runSpec is what a grading run takes besides its scenario: the same in
// process and in a worker process (which receives it as JSON).
type runSpec struct {
	// MaxEvents is the exercise's event budget per run (limits.max_events).
	MaxEvents int64 `json:"max_events"`
	// MaxQueued bounds the records queued in one run (Options.MaxQueued).
	MaxQueued int64 `json:"max_queued"`
	// MaxMemory bounds the job's estimated structures and, beside them,
	// what the run accumulates, in bytes (Options.MaxMemory).
	MaxMemory int64 `json:"max_memory"`
	// BaseDir is the exercise's folder on disk, where file traces are
	// read ("" for the built-in pack).
	BaseDir string `json:"base_dir,omitempty"`
}

// spec returns the runSpec of g's exercise.
func (g *Grader) spec() runSpec {
	maxEvents := g.ex.Limits.MaxEvents
	if maxEvents <= 0 {
		maxEvents = exercises.DefaultMaxEvents
	}
	l := g.opts.limits()
	return runSpec{MaxEvents: maxEvents, MaxQueued: l.MaxQueued, MaxMemory: l.MaxMemory, BaseDir: g.ex.BaseDir()}
}

// runningShare divides the memory limit of a grading run (runSpec.MaxMemory,
// --max-memory) for the simulator's running budget (sim.Options.MaxMemory,
// runner's runBudget): what the run accumulates, as the simulator counts
// it, stops at about 1/runningShare of the limit, less the job's
// structures. The simulator counts the bytes of its model's structures,
// not the Go runtime's overhead (garbage between collections, the heap
// arenas it reserves in 64 MiB steps, which RLIMIT_AS counts), which at
// least doubles them: measured on a run whose unaligned checkpoints pile
// up, 148 MB resident when the simulator counted 64 MiB, and under a
// 128 MiB worker loaded by a parallel test suite the worker was killed at
// 30 MiB counted (a quarter). A budget of the whole limit would let the
// worker's hard limit (Isolation.MaxMemory) kill the run first, with a
// less precise reason. The up-front estimate (runner.CheckLimits) is
// checked against the whole limit.
const runningShare = 8

// runScenario is simulate with the runSpec given.
func runScenario(ctx context.Context, sc *scenario.Scenario, spec runSpec) (any, error) {
	maxEvents := spec.MaxEvents
	prep, err := runner.Prepare(sc, runner.Setup{
		Traces: runner.TraceEnv{Offline: true, BaseDir: spec.BaseDir},
		Limits: runner.Limits{MaxQueued: spec.MaxQueued, MaxMemory: spec.MaxMemory / runningShare},
	})
	if err != nil {
		return nil, err
	}
	defer prep.Close()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if sc.IsMicroBatch() {
		return runMicroBatch(runCtx, sc, prep, spec)
	}
	var calls int64
	s, err := sim.New(sc, prep.Options(nil, func(des.Time, uint64) {
		calls++
		if calls*progressEvery >= maxEvents {
			cancel(errOverBudget)
		}
	}))
	if err != nil {
		return nil, &RunError{Seed: sc.Seed, Msg: "could not start: " + err.Error()}
	}
	runErr := s.RunUntil(runCtx, sc.Duration)
	res := s.Result()
	var qe *sim.QueueLimitError
	var me *sim.MemoryLimitError
	var te *sim.TraceError
	switch {
	case runErr == nil && res.Summary.Totals.Events > uint64(maxEvents):
		return nil, &RunError{Seed: sc.Seed, Msg: overBudget(maxEvents, res)}
	case runErr == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(context.Cause(runCtx), errOverBudget):
		return nil, &RunError{Seed: sc.Seed, Msg: overBudget(maxEvents, res)}
	case errors.As(runErr, &qe):
		return nil, &RunError{Seed: sc.Seed, Msg: "was stopped: " + qe.Error()}
	case errors.As(runErr, &me):
		return nil, &RunError{Seed: sc.Seed, Msg: fmt.Sprintf("was stopped: %v; beside the job's structures a run may hold 1/%d of the memory limit per submission (--max-memory %s), the rest is the runtime's",
			me, runningShare, scenario.FormatByteSize(spec.MaxMemory))}
	case errors.As(runErr, &te):
		return nil, &RunError{Seed: sc.Seed, Msg: "was stopped: " + (&runner.TraceStoppedError{Err: te}).Error()}
	default:
		return nil, &RunError{Seed: sc.Seed, Msg: "failed: " + runErr.Error()}
	}
	return exercises.SummaryDoc(&res.Summary)
}

// overBudget says that a run went past the event budget.
func overBudget(maxEvents int64, res *sim.Result) string {
	return fmt.Sprintf("was stopped at %s of %s simulated: it needs more than %s kernel events, the exercise's budget per run (limits.max_events); lower the rates, or the work per record",
		sim.FormatTime(des.FromSeconds(res.Summary.SimulatedS)), sim.FormatTime(des.FromSeconds(res.Summary.DurationS)), runner.Sci(float64(maxEvents), -1))
}

// runMicroBatch is runScenario for a scenario of Spark's engines
// (sim/microbatch): the same budgets (the events fired, and the records
// queued in waiting batches), its summary as the metric document; prep
// opens its traces as for a Flink run.
func runMicroBatch(ctx context.Context, sc *scenario.Scenario, prep *runner.Prepared, spec runSpec) (any, error) {
	s, err := microbatch.New(sc, prep.MicroBatchOptions())
	if err != nil {
		return nil, &RunError{Seed: sc.Seed, Msg: "could not start: " + err.Error()}
	}
	runErr := s.RunUntil(ctx, sc.Duration)
	res := s.Result()
	var qe *microbatch.QueueLimitError
	switch {
	case runErr == nil && res.Summary.Totals.Events > uint64(spec.MaxEvents):
		return nil, &RunError{Seed: sc.Seed, Msg: fmt.Sprintf("went past the event budget of %d events (%d fired)", spec.MaxEvents, res.Summary.Totals.Events)}
	case runErr == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(runErr, &qe):
		return nil, &RunError{Seed: sc.Seed, Msg: "was stopped: " + qe.Error()}
	default:
		return nil, &RunError{Seed: sc.Seed, Msg: "failed: " + runErr.Error()}
	}
	return exercises.MicroBatchSummaryDoc(&res.Summary)
}
