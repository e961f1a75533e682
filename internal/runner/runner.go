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

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
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
	// events.jsonl (created if missing; old files are replaced only when
	// all three are complete).
	OutDir string
	// JSON prints the summary as JSON instead of the table.
	JSON bool
	// Limits refuse oversized runs before they start.
	Limits Limits
	// Stdout receives the table or JSON; Stderr the progress line and the
	// list of files written. Nil writers discard.
	Stdout, Stderr io.Writer
	// Progress draws a progress line on Stderr when the run takes more
	// than a second of wall time; set it only when Stderr is a terminal.
	Progress bool
}

// InterruptedError is returned by Run when its context was cancelled: the
// run stopped early, and its outputs (written and printed) are partial.
type InterruptedError struct {
	Reached  des.Time // simulated time reached
	Duration des.Time // simulated time the run was to reach
	Err      error    // the context's error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted at %s of %s simulated; the outputs are partial",
		FormatDuration(e.Reached), FormatDuration(e.Duration))
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// Run simulates the scenario of opts and reports it: the table (or the
// summary JSON) on Stdout, the output files in OutDir. It returns:
//   - the scenario.ErrorList of an invalid scenario, unwrapped;
//   - an error for an unknown scenario, an override or a limit it refuses
//     (before running), or a failure of the simulator or of the outputs;
//   - an *InterruptedError when ctx is cancelled: the run stops, and the
//     results so far are still written and printed, marked partial.
//
// ExitCode maps each to the command's exit status.
func Run(ctx context.Context, opts Options) error {
	stdout, stderr := orDiscard(opts.Stdout), orDiscard(opts.Stderr)
	sc, label, err := Load(opts.Scenario)
	if err != nil {
		return err
	}
	if err := applyOverrides(label, sc, opts); err != nil {
		return err
	}
	if err := CheckLimits(label, sc, opts.Limits); err != nil {
		return err
	}

	var out *outputs
	simOpts := sim.Options{}
	if opts.OutDir != "" {
		if out, err = openOutputs(opts.OutDir); err != nil {
			return err
		}
		defer out.abort()
		simOpts.Observer = out.writer
	}
	var prog *progress
	if opts.Progress {
		prog = newProgress(stderr, label, sc.Duration)
		simOpts.Progress = prog.update
	}

	res, runErr := sim.Run(ctx, sc, simOpts)
	if prog != nil {
		prog.finish()
	}
	var interrupted error
	switch {
	case res != nil && runErr != nil && ctx.Err() != nil && errors.Is(runErr, ctx.Err()):
		interrupted = &InterruptedError{Reached: des.FromSeconds(res.Summary.SimulatedS), Duration: sc.Duration, Err: runErr}
	case runErr != nil:
		return fmt.Errorf("simulating %s: %w", label, runErr)
	case res == nil:
		return fmt.Errorf("simulating %s: %w", label, errNoResult)
	}

	// the files first: a closed or broken stdout must not lose them
	if out != nil {
		if err := out.commit(&res.Summary); err != nil {
			return err
		}
	}
	if opts.JSON {
		err = sim.WriteSummaryJSON(stdout, &res.Summary)
	} else {
		err = sim.WriteTable(stdout, &res.Summary)
	}
	if err != nil {
		return fmt.Errorf("printing the summary: %w", err)
	}
	if out != nil && !opts.JSON {
		fmt.Fprintf(stderr, "wrote %s\n", strings.Join(out.paths(), ", "))
	}
	return interrupted
}

// applyOverrides applies --seed and --duration to sc.
func applyOverrides(label string, sc *scenario.Scenario, opts Options) error {
	if opts.Seed != nil {
		sc.Seed = *opts.Seed
	}
	if opts.Duration != nil {
		d := *opts.Duration
		if d <= sc.Warmup {
			return fmt.Errorf("--duration %s must be longer than the warmup of scenario %q (%s), which is left out of the statistics",
				FormatDuration(d), label, FormatDuration(sc.Warmup))
		}
		sc.Duration = d
	}
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
