package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/des"
)

func newRunCmd() *cobra.Command {
	var (
		opts      runner.Options
		seed      uint64
		duration  des.Time
		maxEvents = float64(runner.DefaultMaxEvents)
		maxRate   = float64(runner.DefaultMaxEventRate)
		maxRows   = float64(runner.DefaultMaxRows)
		live      liveFlags
	)
	opts.Limits = runner.Limits{MaxSubtasks: runner.DefaultMaxSubtasks, MaxDuration: runner.DefaultMaxDuration,
		MaxQueued: runner.DefaultMaxQueued, MaxMemory: runner.DefaultMaxMemory}
	cmd := &cobra.Command{
		Use:   "run [SCENARIO]",
		Short: "Simulate a scenario and print its summary",
		Long: `Simulate a scenario and print a table per vertex (rates, busy and
back-pressured time, status, latency) with a diagnosis naming the
bottleneck.

SCENARIO is a YAML file or the name of a built-in scenario (see 'dspalab
scenarios'); without it, the course's back-pressure example (` + scenarios.Default + `) runs.

With --out DIR, the run also writes DIR/summary.json, DIR/timeseries.csv and
DIR/events.jsonl; a scenario with checkpoints (any checkpoint mode but
none) also DIR/checkpoints.csv, one row per checkpoint that ended, and
DIR/checkpoint_subtasks.csv, one row per subtask that acknowledged one; a
job reading topics also DIR/partitions.csv, one row per partition and
reader per metrics interval. Old
files there are replaced only once all are complete, and checkpoint files
of an earlier run are removed by a run without checkpoints. Ctrl-C stops
the run: the results so far are still printed and written, marked
partial, and the exit status is 130.

summary.json has a delivery section (records emitted, replayed, delivered,
duplicated, lost, in flight and uncommitted, per sink), a recovery section
(the job's state at the end, failures, restarts, downtime and each
failover) and, with checkpoints, a checkpoint section; the table gives
each a line under it (recovery only when something failed). events.jsonl
records failures (failure,
failure_detected, restart, recovery_completed, job_failed, job_lost,
slowdown, network_partition, storage_outage) beside the checkpoint events.

Runs over a limit are refused before they start: more subtasks than
--max-subtasks, a duration over --max-duration, more estimated events per
simulated second than --max-event-rate, or more estimated events in all
(that rate x seconds) than --max-events. The estimate follows the records
through the job graph: what the sources offer, plus what every operator and
sink receives (after selectivity, and times the parallelism behind a
broadcast), plus the metrics rows.

A run stops when more than --max-queued records wait in queues at once (an
overloaded operator without flow control, capacity: unbounded), or when
what it accumulates (checkpoints in flight and the data they persist) takes
more memory than --max-memory leaves beside the estimate: the results so
far are printed and written, marked partial, and the exit status is 1.

With --tui the run is shown live in the terminal, as 'dspalab watch' does.
--replay FILE replays the actions (failures, checkpoints) recorded in FILE,
the actions.jsonl that a live run writes with --out, so that the run is the
same.

` + exitCodesHelp,
		Example: `  dspalab run                              # the back-pressure example
  dspalab run hot-key                      # a built-in scenario
  dspalab run my.yaml --duration 30s --seed 7
  dspalab run my.yaml --out results/       # summary.json, timeseries.csv, events.jsonl (+ checkpoint files)
  dspalab run my.yaml --json | jq .diagnosis`,
		Args: usage(cobra.MaximumNArgs(1)),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return scenarios.Names(), cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Scenario = args[0]
			}
			if cmd.Flags().Changed("seed") {
				opts.Seed = &seed
			}
			if cmd.Flags().Changed("out") && opts.OutDir == "" {
				return usagef("--out needs a directory name, got an empty string")
			}
			if cmd.Flags().Changed("duration") {
				opts.Duration = &duration
			}
			if opts.Limits.MaxSubtasks <= 0 {
				return usagef("--max-subtasks must be positive, got %d", opts.Limits.MaxSubtasks)
			}
			opts.Limits.MaxEvents = maxEvents
			opts.Limits.MaxEventRate = maxRate
			opts.Limits.MaxRows = maxRows
			opts.Limits.WritesOutputs = opts.OutDir != ""
			opts.Stdout, opts.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			opts.Progress = isTerminal(opts.Stderr)
			if err := live.apply(cmd, args, &opts); err != nil {
				return err
			}
			err := runner.Run(cmd.Context(), opts)
			var oe *runner.OptionError
			if errors.As(err, &oe) {
				return &usageError{err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.Var(seedValue{&seed}, "seed", "seed of every random stream (default: the scenario's)")
	f.Var(durationValue{&duration}, "duration", "simulated time to run, e.g. 30s or 10m (default: the scenario's)")
	f.StringVarP(&opts.OutDir, "out", "o", "", "write summary.json, timeseries.csv, events.jsonl (and with checkpoints checkpoints.csv, checkpoint_subtasks.csv; with topics partitions.csv) into `DIR` (created if missing)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as JSON (summary.json) instead of the table")
	f.IntVar(&opts.Limits.MaxSubtasks, "max-subtasks", runner.DefaultMaxSubtasks, "refuse scenarios with more subtasks in total")
	f.Var(durationValue{&opts.Limits.MaxDuration}, "max-duration", "refuse scenarios that simulate longer")
	f.Var(countValue{&maxEvents}, "max-events", "refuse scenarios with more estimated events (event rate x seconds)")
	f.Var(countValue{&maxRate}, "max-event-rate", "refuse scenarios with more estimated events per simulated second (records through every vertex, plus metrics rows)")
	f.Var(recordsValue{&opts.Limits.MaxQueued}, "max-queued", "stop the run when more records than this are queued at once (the outputs are then partial)")
	f.Var(bytesValue{&opts.Limits.MaxMemory}, "max-memory", maxMemoryUsage)
	f.Var(countValue{&maxRows}, "max-rows", "with --out, refuse scenarios that would write more rows of timeseries.csv (or of checkpoint_subtasks.csv)")
	live.flags(cmd)
	return cmd
}

// isTerminal reports whether w is a terminal (progress is drawn only there).
func isTerminal(w any) bool {
	f := terminalFile(w)
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// terminalFile returns the file under w (a *checkedWriter or an *os.File),
// or nil.
func terminalFile(w any) *os.File {
	if c, ok := w.(*checkedWriter); ok {
		w = c.w
	}
	f, _ := w.(*os.File)
	return f
}
