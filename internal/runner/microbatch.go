package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// runMicroBatch is Run for a scenario of a micro-batch engine
// (scenario.Scenario.IsMicroBatch): it simulates sc with sim/microbatch,
// writes runfiles.MicroBatchNames into opts.OutDir and prints the table
// (or the summary JSON). With opts.LiveBatches the live view drives the
// run; opts.Actions are replayed (microbatch.Options.Actions) up to a
// final stop, and a live or replayed run writes its actions to
// runfiles.ActionsFile.
func runMicroBatch(ctx context.Context, opts Options, label string, sc *scenario.Scenario, beyondEnd []scenario.Failure, stdout, stderr io.Writer) error {
	if opts.Live != nil && opts.LiveBatches == nil {
		return &OptionError{fmt.Errorf("scenario %q runs on engine %s: this live view shows Flink runs only; use dspalab run", label, sc.Engine)}
	}
	// the traces and data sets, resolved and checked against the limits
	// as for a Flink run
	prep, err := prepareRun(label, sc, Setup{Label: label, Limits: opts.Limits, Actions: opts.Actions}, stderr)
	if err != nil {
		return err
	}
	defer prep.Close()
	if err := checkOutDir(opts, prep); err != nil {
		return err
	}
	var out *runfiles.Writer
	var dir *runfiles.Dir
	names := runfiles.MicroBatchNames(opts.Actions != nil || opts.LiveBatches != nil)
	if opts.OutDir != "" {
		d, err := runfiles.Lock(opts.OutDir)
		if err != nil {
			return err
		}
		defer d.Close()
		if out, err = d.Create(names); err != nil {
			return err
		}
		defer out.Abort()
		dir = d
	}
	mo := prep.MicroBatchOptions()
	var prog *progress
	if opts.Progress && opts.LiveBatches == nil {
		prog = newProgress(stderr, label, sc.Duration)
		mo.Progress = prog.update
	}
	s, err := microbatch.New(sc, mo)
	if err != nil {
		var el scenario.ErrorList
		var e *scenario.Error
		if errors.As(err, &el) || errors.As(err, &e) {
			return err
		}
		return fmt.Errorf("simulating %s: %w", label, err)
	}
	var runErr error
	var wroteDir string // the directory the files were committed to
	if opts.LiveBatches != nil {
		// the view's first start is the simulation built above (its
		// errors are reported as a run's); a restart builds another
		first := s
		start := func() (*microbatch.Sim, error) {
			if first != nil {
				f := first
				first = nil
				return f, nil
			}
			return microbatch.New(sc, mo)
		}
		var live *microbatch.Sim
		live, runErr = opts.LiveBatches(ctx, LiveBatchRun{Label: label, Scenario: sc, Start: start})
		if live == nil && runErr == nil {
			runErr = errNoResult
		}
		if live == nil {
			return runErr
		}
		s = live
	} else {
		runErr = s.RunUntil(ctx, prep.Until())
	}
	if prog != nil {
		prog.finish()
	}
	res := s.Result()
	if len(beyondEnd) > 0 && !res.Summary.Partial {
		// the failures a shortened run never reached, as a Flink run lists them
		for i := range beyondEnd {
			res.Summary.AddBeyondEnd(&beyondEnd[i], sc.Duration)
		}
	}
	var stopped error
	var qe *microbatch.QueueLimitError
	switch {
	case runErr != nil && ctx.Err() != nil && errors.Is(runErr, ctx.Err()):
		stopped = &InterruptedError{Reached: s.Now(), Duration: sc.Duration, Err: runErr}
	case errors.As(runErr, &qe):
		stopped = fmt.Errorf("run stopped: %v; the outputs are partial (raise --max-queued to let the queue grow further)", qe)
	case runErr != nil:
		return fmt.Errorf("simulating %s: %w", label, runErr)
	}
	if out != nil {
		w := []struct {
			name  string
			write func(io.Writer) error
		}{
			{runfiles.TimeseriesFile, func(f io.Writer) error { return microbatch.WriteTimeseriesCSV(f, res.Timeseries) }},
			{runfiles.EventsFile, func(f io.Writer) error { return microbatch.WriteEventsJSONL(f, res.Events) }},
			{runfiles.BatchesFile, func(f io.Writer) error { return microbatch.WriteBatchesCSV(f, res.Batches) }},
		}
		for _, x := range w {
			if err := x.write(out.File(x.name)); err != nil {
				return errors.Join(fmt.Errorf("writing outputs: %w", err), stopped)
			}
		}
		acts := s.Actions()
		if now := s.Now(); now < sc.Duration && runErr == nil {
			// quit before the end (the live view's q, or a replayed stop)
			acts = append(acts, sim.Action{At: now, AtS: now.Seconds(), Kind: runfiles.ActionStop})
		}
		wrote, err := out.CommitSummary(func(f io.Writer) error { return microbatch.WriteSummaryJSON(f, &res.Summary) }, res.Summary.Partial, acts)
		if err != nil {
			return errors.Join(err, stopped)
		}
		// a partial run beside a complete one: the files went to its
		// partial/, and the messages name where they are (notePartial)
		wroteDir = wrote
	}
	if opts.JSON {
		err = microbatch.WriteSummaryJSON(stdout, &res.Summary)
	} else {
		err = microbatch.WriteTable(stdout, &res.Summary)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("printing the summary: %w", err), stopped)
	}
	if dir != nil && !opts.JSON {
		var ps []string
		for _, n := range names {
			ps = append(ps, filepath.Join(wroteDir, n))
		}
		if _, err := fmt.Fprintf(stderr, "wrote %s\n", strings.Join(ps, ", ")); err != nil {
			return errors.Join(err, stopped)
		}
	}
	if dir != nil {
		return notePartial(stopped, opts.OutDir, wroteDir, stderr)
	}
	return stopped
}
