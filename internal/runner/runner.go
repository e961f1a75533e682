// Package runner holds what the dspalab commands do, so that the cobra
// commands in cmd/dspalab only parse flags and print: `run` (Run: resolve a
// scenario file or built-in name, apply overrides, check limits, simulate,
// write outputs atomically, print the summary), `validate` (Validate),
// `scenarios` (ListScenarios, ShowScenario), and how errors are printed and
// turned into exit codes (WriteError, ExitCode).
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Exit codes of the dspalab command.
const (
	ExitOK          = 0   // success
	ExitFailure     = 1   // invalid scenario, refused by a limit, or run error
	ExitUsage       = 2   // bad flags or arguments
	ExitInterrupted = 130 // stopped by Ctrl-C (SIGINT) or SIGTERM: outputs are partial
)

// Options configure Run.
type Options struct {
	// Scenario is a file path or the name of a built-in scenario; ""
	// means scenarios.Default (see Resolve).
	Scenario string
	// Seed, if non-nil, replaces the scenario's seed.
	Seed *uint64
	// Duration, if non-nil, replaces the scenario's duration; it must be
	// longer than the scenario's warmup.
	Duration *des.Time
	// OutDir, if set, receives summary.json, timeseries.csv and
	// events.jsonl, with checkpointing checkpoints.csv and
	// checkpoint_subtasks.csv, and run.json, the manifest (see runfiles:
	// created if missing and locked while the run writes; old files are
	// replaced only when all are complete, and only files an earlier run
	// listed are removed; a run stopped before its end, for whatever
	// reason, into a directory holding a complete run writes into
	// OutDir/partial instead, and the error, or for a stop without one a
	// line on Stderr, says so).
	OutDir string
	// Inputs are the files the command read besides the scenario and
	// what it names (the --replay file): with the scenario's own files
	// (Prepared.Inputs), OutDir must not hold them (CheckNotInput).
	Inputs []string
	// JSON prints the summary as JSON instead of the table.
	JSON bool
	// Limits refuse oversized runs before they start, and stop a run
	// that queues too many records (MaxQueued).
	Limits Limits
	// Stdout receives the table or JSON; Stderr the progress line and the
	// list of files written. Nil writers discard.
	Stdout, Stderr io.Writer
	// Progress draws a progress line on Stderr when the run takes more
	// than a second of wall time; set it only when Stderr is a terminal.
	Progress bool
	// Actions are replayed at their simulated times (sim.Options.Actions),
	// as runfiles.ReadActions reads them from a file of --replay. They are checked
	// against the scenario before the run (CheckActions).
	Actions []sim.Action
	// Live, if non-nil, drives the run instead of simulating it to its end
	// at once: the live view (dspalab watch). It returns the simulation to
	// report, wherever it stands, and the error that stopped it (see
	// LiveRun). With Live or Actions set, OutDir also receives
	// actions.jsonl: the actions of the run, for --replay.
	Live func(ctx context.Context, run LiveRun) (*sim.Sim, error)
	// LiveBatches is Live for a scenario of a micro-batch engine: it
	// drives the run (the batch timeline of dspalab watch) and returns
	// the simulation to report, wherever it stands.
	LiveBatches func(ctx context.Context, run LiveBatchRun) (*microbatch.Sim, error)
}

// LiveBatchRun is the run handed to Options.LiveBatches.
type LiveBatchRun struct {
	Label    string             // the scenario's name (a file or built-in name)
	Scenario *scenario.Scenario // the scenario with the overrides applied: read only
	// Start builds the simulation from the beginning; each call starts
	// the run again (the output files are written once, at the end, from
	// the simulation returned).
	Start func() (*microbatch.Sim, error)
}

// LiveRun is the run handed to Options.Live.
type LiveRun struct {
	// Label names the scenario (a file or built-in name).
	Label string
	// Scenario is the scenario with the overrides applied: read it, do
	// not change it.
	Scenario *scenario.Scenario
	// Start builds the simulation from the beginning, obs receiving its
	// samples and events besides the output files. Each call starts the
	// run again, output files included: the last simulation started is
	// the one to return.
	Start func(obs sim.Observer) (*sim.Sim, error)
}

// InterruptedError is returned by Run when its context was cancelled: the
// run stopped early, and its outputs (written and printed) are partial.
type InterruptedError struct {
	Reached  des.Time // simulated time reached
	Duration des.Time // simulated time the run was to reach
	Err      error    // the context's error
	// Kept, if set, is the output directory, whose complete run was kept;
	// the partial outputs went to Partial (Kept/partial) instead.
	Kept, Partial string
}

func (e *InterruptedError) Error() string {
	msg := fmt.Sprintf("interrupted at %s of %s simulated; the outputs are partial",
		sim.FormatTime(e.Reached), sim.FormatTime(e.Duration))
	if e.Kept != "" {
		msg += fmt.Sprintf(" and are in %s (%s holds a complete earlier run, which was kept)", e.Partial, e.Kept)
	}
	return msg
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// QueuedError is returned by Run when the simulator stopped because more
// records were queued than Limits.MaxQueued allows: like an interrupted
// run, its outputs (written and printed) are partial.
type QueuedError struct {
	Err *sim.QueueLimitError
}

func (e *QueuedError) Error() string {
	return fmt.Sprintf("run stopped: %v; the outputs are partial (raise --max-queued to let the queues grow further, at about 100 bytes of memory a record)",
		e.Err)
}

func (e *QueuedError) Unwrap() error { return e.Err }

// MemoryError is returned by Run when the simulator stopped because what
// the run accumulated (checkpoints in flight and the data they persisted,
// network buffers between subtasks) went past the memory that
// --max-memory leaves beside the job's structures: like an interrupted
// run, its outputs are partial.
type MemoryError struct {
	Err *sim.MemoryLimitError
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("run stopped: %v; the outputs are partial (raise --max-memory to let the run hold more)", e.Err)
}

func (e *MemoryError) Unwrap() error { return e.Err }

// StoppedError is returned by Run when the simulated job itself stopped
// the run before its end (sim.Sim.Stopped): a worker ran out of memory
// with heap state past workers.memory (Flink's job would fail with
// java.lang.OutOfMemoryError again after every restart), a restore found
// a checkpoint it cannot take back, an edge-list file has a malformed
// line. Like an interrupted run, its outputs (written and printed) are
// partial, and summary.json's partial_reason names the cause.
type StoppedError struct {
	Reached  des.Time // simulated time reached
	Duration des.Time // simulated time the run was to reach
	Err      error    // what stopped it
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("run stopped at %s of %s simulated: %v; the outputs are partial",
		sim.FormatTime(e.Reached), sim.FormatTime(e.Duration), e.Err)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// OptionError is an option of Run that the scenario refuses, such as a
// --duration no longer than its warmup: a bad flag value, so ExitCode
// maps it to ExitUsage.
type OptionError struct{ Err error }

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// prepareRun prepares a run of sc (Prepare), refuses it over the limits
// of s (Prepared.CheckLimits) and says on stderr what its traces replay,
// for run on either engine.
func prepareRun(label string, sc *scenario.Scenario, s Setup, stderr io.Writer) (*Prepared, error) {
	prep, err := Prepare(sc, s)
	if err != nil {
		return nil, err
	}
	if err := prep.CheckLimits(s.Limits); err != nil {
		prep.Close()
		return nil, err
	}
	if err := prep.traces.describe(stderr, label); err != nil {
		prep.Close()
		return nil, err
	}
	return prep, nil
}

// checkOutDir refuses, before anything is written, an output directory
// of opts that holds a file the run reads: the scenario file, its traces
// and edge lists, the replayed actions (CheckNotInput).
func checkOutDir(opts Options, prep *Prepared) error {
	if opts.OutDir == "" {
		return nil
	}
	return CheckNotInput(RunOutputs(opts.OutDir), append(prep.Inputs(), opts.Inputs...))
}

// Run simulates the scenario of opts and reports it: the table (or the
// summary JSON) on Stdout, the output files in OutDir. It returns:
//   - the scenario.ErrorList of an invalid scenario, unwrapped;
//   - an *OptionError for an override the scenario refuses (before
//     running);
//   - an error for an unknown scenario or a limit it refuses (before
//     running), or a failure of the simulator or of the outputs;
//   - an *InterruptedError when ctx is cancelled, a *QueuedError when
//     more records were queued than Limits.MaxQueued, a *MemoryError
//     when the run accumulated more than Limits.MaxMemory leaves, a
//     *TraceStoppedError when a trace failed, or a *StoppedError when the
//     simulated job stopped the run (a worker out of memory, say): the
//     run stops, and the results so far are still written and printed,
//     marked partial.
//
// ExitCode maps each to the command's exit status.
func Run(ctx context.Context, opts Options) error {
	stdout, stderr := orDiscard(opts.Stdout), orDiscard(opts.Stderr)
	sc, label, err := Load(opts.Scenario)
	if err != nil {
		return err
	}
	beyondEnd, err := applyOverrides(label, sc, opts)
	if err != nil {
		return err
	}
	if err := writeWarnings(stderr, sc); err != nil {
		return err
	}
	if sc.IsMicroBatch() {
		return runMicroBatch(ctx, opts, label, sc, beyondEnd, stdout, stderr)
	}
	prep, err := prepareRun(label, sc, Setup{Label: label, Limits: opts.Limits, Actions: opts.Actions}, stderr)
	if err != nil {
		return err
	}
	defer prep.Close()
	if err := checkOutDir(opts, prep); err != nil {
		return err
	}

	var out *outputs
	var files sim.Observer // the output files' writer, if any
	if opts.OutDir != "" {
		names := runfiles.Names(contents(sc, opts.Actions != nil || opts.Live != nil))
		if out, err = openOutputs(opts.OutDir, names); err != nil {
			return err
		}
		defer out.close()
		files = out.observer()
	}
	var prog *progress
	var progressFn func(des.Time, uint64)
	if opts.Progress && opts.Live == nil {
		prog = newProgress(stderr, label, sc.Duration)
		progressFn = prog.update
	}

	var s *sim.Sim
	var runErr error
	if opts.Live != nil {
		s, runErr = runLive(ctx, opts, label, sc, prep, out)
	} else if s, runErr = sim.New(sc, prep.Options(files, progressFn)); runErr == nil {
		runErr = s.RunUntil(ctx, prep.Until())
	}
	var res *sim.Result
	if s != nil {
		res = s.Result()
	}
	if prog != nil {
		prog.finish()
	}
	if res != nil && res.Summary.Recovery != nil && !res.Summary.Partial {
		r := res.Summary.Recovery
		for i := range beyondEnd {
			r.AddBeyondEnd(&beyondEnd[i], sc.Duration)
		}
	}
	var stopped error // the run stopped early: report it after the partial results
	var qe *sim.QueueLimitError
	var me *sim.MemoryLimitError
	var te *sim.TraceError
	switch {
	case res != nil && runErr != nil && ctx.Err() != nil && errors.Is(runErr, ctx.Err()):
		stopped = &InterruptedError{Reached: des.FromSeconds(res.Summary.SimulatedS), Duration: sc.Duration, Err: runErr}
	case res != nil && errors.As(runErr, &qe):
		stopped = &QueuedError{Err: qe}
	case res != nil && errors.As(runErr, &me):
		stopped = &MemoryError{Err: me}
	case res != nil && errors.As(runErr, &te):
		stopped = &TraceStoppedError{Err: te}
	case res != nil && runErr != nil && errors.Is(runErr, s.Stopped()):
		stopped = &StoppedError{Reached: des.FromSeconds(res.Summary.SimulatedS), Duration: sc.Duration, Err: s.Stopped()}
	case runErr != nil:
		return fmt.Errorf("simulating %s: %w", label, runErr)
	case res == nil:
		return fmt.Errorf("simulating %s: %w", label, errNoResult)
	}

	// the files first: a closed or broken stdout must not lose them
	if out != nil {
		out.actions = s.Actions()
		if now := s.Now(); now < sc.Duration && runErr == nil {
			// quit before the end (the live view's q, or a replayed stop)
			out.actions = append(out.actions, sim.Action{At: now, AtS: now.Seconds(), Kind: runfiles.ActionStop})
		}
		if err := out.commit(&res.Summary); err != nil {
			return errors.Join(err, stopped)
		}
	}
	if opts.JSON {
		err = sim.WriteSummaryJSON(stdout, &res.Summary)
	} else {
		err = sim.WriteTable(stdout, &res.Summary)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("printing the summary: %w", err), stopped)
	}
	if err := prep.traces.report(stderr, label); err != nil {
		return errors.Join(err, stopped)
	}
	if out != nil && !opts.JSON {
		if _, err := fmt.Fprintf(stderr, "wrote %s\n", strings.Join(out.paths(), ", ")); err != nil {
			return errors.Join(fmt.Errorf("printing the files written: %w", err), stopped)
		}
	}
	if out != nil {
		return notePartial(stopped, opts.OutDir, out.wrote, stderr)
	}
	return stopped
}

// runLive hands the run to opts.Live. Every start but the first starts
// the output files again (out, nil without --out), so that they hold the
// last run started.
func runLive(ctx context.Context, opts Options, label string, sc *scenario.Scenario, prep *Prepared, out *outputs) (*sim.Sim, error) {
	started, broken := false, false
	start := func(obs sim.Observer) (*sim.Sim, error) {
		o := prep.Options(nil, nil)
		if out != nil {
			if started {
				if err := out.restart(); err != nil {
					broken = true
					return nil, err
				}
			}
			broken = false
			o.Observer = teeObserver{prep.Options(out.observer(), nil).Observer, obs}
		} else {
			o.Observer = obs
		}
		started = true
		return sim.New(sc, o)
	}
	s, err := opts.Live(ctx, LiveRun{Label: label, Scenario: sc, Start: start})
	if s == nil && err == nil {
		err = errNoResult
	}
	if err == nil && broken {
		err = errors.New("the output files could not be started again")
	}
	return s, err
}

// teeObserver hands samples and events to several observers in turn.
type teeObserver []sim.Observer

func (t teeObserver) Sample(s *sim.Sample) {
	for _, o := range t {
		if o != nil {
			o.Sample(s)
		}
	}
}

func (t teeObserver) Event(e sim.Event) {
	for _, o := range t {
		if o != nil {
			o.Event(e)
		}
	}
}

// Checkpoint implements sim.CheckpointObserver for the observers that do.
func (t teeObserver) Checkpoint(c *sim.CheckpointStats) {
	for _, o := range t {
		if co, ok := o.(sim.CheckpointObserver); ok {
			co.Checkpoint(c)
		}
	}
}

// contents says which optional files a run of sc writes: the actions of
// a live or replayed run, the checkpoint files with checkpointing,
// partitions.csv with sources that read topics (its rows are theirs: a
// topic only consumer groups read has its partitions in summary.json's
// consumer_groups[], and no partitions.csv of a header alone).
func contents(sc *scenario.Scenario, actions bool) runfiles.Contents {
	p, err := plan.Compile(sc)
	c := runfiles.Contents{Actions: actions}
	if err == nil {
		c.Checkpoints = p.Checkpointing()
		for _, v := range p.Vertices {
			c.Topics = c.Topics || v.Kind == plan.Source && v.Source.Arrival.Process == scenario.ArrivalTopic
		}
	}
	return c
}

// applyOverrides applies --seed and --duration to sc; a shorter duration
// drops the scripted failures at or after its end and returns them, for
// the summary to list among the failures without effect.
func applyOverrides(label string, sc *scenario.Scenario, opts Options) ([]scenario.Failure, error) {
	if opts.Seed != nil {
		sc.Seed = *opts.Seed
	}
	if opts.Duration != nil {
		d := *opts.Duration
		if d <= sc.Warmup {
			return nil, &OptionError{fmt.Errorf("--duration %s must be longer than the warmup of scenario %q (%s), which is left out of the statistics",
				sim.FormatTime(d), label, sim.FormatTime(sc.Warmup))}
		}
		sc.Duration = d
		// scripted failures after the new end cannot happen: leave them
		// out rather than refuse the scenario
		var keep, beyond []scenario.Failure
		for _, f := range sc.Failures {
			if f.MTBF > 0 || f.At < d {
				keep = append(keep, f)
			} else {
				beyond = append(beyond, f)
			}
		}
		sc.Failures = keep
		return beyond, nil
	}
	return nil, nil
}

// writeWarnings prints the scenario's warnings (scenario.Warnings), one a
// line, as its errors are printed.
func writeWarnings(w io.Writer, sc *scenario.Scenario) error {
	for _, e := range sc.Warnings() {
		if _, err := fmt.Fprintln(w, e.Error()); err != nil {
			return fmt.Errorf("printing the warnings: %w", err)
		}
	}
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
