package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/internal/sweep"
	"github.com/dspalab/dspalab/scenarios"
)

func newSweepCmd() *cobra.Command {
	var (
		opts      sweep.Options
		sets      []string
		shard     string
		maxEvents = float64(runner.DefaultMaxEvents)
		maxRate   = float64(runner.DefaultMaxEventRate)
		maxSweep  = float64(runner.DefaultMaxSweepEvents)
	)
	cmd := &cobra.Command{
		Use:   "sweep SCENARIO --set PATH=V1,V2,... [--set ...] [--seeds N] --out DIR",
		Short: "Run a scenario over a grid of settings and seeds, one row per run in sweep.csv",
		Long: `Run SCENARIO (a file or a built-in name) once for every combination of
the values given with --set, and every seed (--seeds N: the scenario's
seed and the N-1 after it), in parallel on all cores. DIR/sweep.csv gets
one row per run: the run's number, the values, the seed and the summary
metrics (the fields of summary.json, such as simulated_s,
totals.records_delivered and vertices.NAME.latency_p99_ms). DIR/sweep.json
says what was swept.

A PATH names any value of the scenario by its YAML keys joined by dots;
sources, operators and sinks are named by their names:
  operators.parse.parallelism  sources.sensors.arrival.rate
  network.buffer_timeout       duration
Values are written as in the file (4, 50/s, 250ms, 32KiB); a field left
to its default can be set too. Every run is checked before any starts.

Past one machine: --shard I/N runs only the runs whose number is I modulo N
(I from 0, as JOB_COMPLETION_INDEX), and 'dspalab sweep merge' joins the
shards' directories into the files one machine would have written.

A run stopped by --max-queued keeps its row (partial=true), sweep.json
lists it in partial_runs and the exit status is 1. Interrupted (Ctrl-C),
the completed runs are written, marked partial, with exit status 130; if
DIR holds a complete sweep, they go to sweep.partial.csv and
sweep.partial.json instead, and the complete sweep is kept.

Plot the result with: dspalab plot DIR/sweep.csv -x PATH -y METRIC

` + exitCodesHelp,
		Example: `  dspalab sweep backpressure --set operators.enrich.parallelism=1,2,4 --seeds 3 --out sw
  dspalab sweep my.yaml --set sources.src.arrival.rate=50/s,100/s --set network.buffer_timeout=0,100ms --out sw
  dspalab sweep my.yaml --set duration=30s,60s --shard 0/4 --out shard-0
  dspalab sweep merge shard-0 shard-1 shard-2 shard-3 --out sw`,
		Args: needArgs(1, 1, "a scenario, a file or a built-in name", "dspalab scenarios lists the built-ins"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return scenarios.Names(), cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Scenario = args[0]
			if opts.OutDir == "" {
				return usagef("--out DIR is required: the directory for sweep.csv and sweep.json")
			}
			for _, s := range sets {
				p, err := sweep.ParseParam(s)
				if err != nil {
					return &usageError{err}
				}
				opts.Params = append(opts.Params, p)
			}
			if cmd.Flags().Changed("shard") {
				sh, err := sweep.ParseShard(shard)
				if err != nil {
					return &usageError{err}
				}
				opts.Shard = sh
			}
			if opts.Seeds < 1 {
				return usagef("--seeds must be at least 1, got %d", opts.Seeds)
			}
			if opts.Workers < 0 {
				return usagef("--workers must be at least 1 (0: all cores), got %d", opts.Workers)
			}
			opts.Limits.MaxEvents, opts.Limits.MaxEventRate = maxEvents, maxRate
			opts.MaxEvents = maxSweep
			opts.Version = version
			opts.Stderr = cmd.ErrOrStderr()
			opts.Progress = isTerminal(opts.Stderr)
			err := sweep.Run(cmd.Context(), opts)
			var oe *runner.OptionError
			if errors.As(err, &oe) {
				return &usageError{err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&sets, "set", nil, "run with each value at the path: `PATH=V1,V2,...` (repeat --set for a grid)")
	f.IntVar(&opts.Seeds, "seeds", 1, "run every combination with `N` seeds, from the scenario's seed up")
	f.StringVar(&shard, "shard", "", "run only shard `I/N` of the runs (I from 0 to N-1)")
	f.IntVar(&opts.Workers, "workers", 0, "simulate `N` runs at once (default 0: all cores)")
	f.StringVarP(&opts.OutDir, "out", "o", "", "write sweep.csv and sweep.json into `DIR` (created if missing)")
	opts.Limits = runner.Limits{MaxSubtasks: runner.DefaultMaxSubtasks, MaxDuration: runner.DefaultMaxDuration, MaxQueued: runner.DefaultMaxQueued, MaxMemory: runner.DefaultMaxMemory}
	f.IntVar(&opts.Limits.MaxSubtasks, "max-subtasks", runner.DefaultMaxSubtasks, "refuse runs with more subtasks in total")
	f.Var(durationValue{&opts.Limits.MaxDuration}, "max-duration", "refuse runs that simulate longer")
	f.Var(countValue{&maxEvents}, "max-events", "refuse runs with more estimated events (event rate x seconds)")
	f.Var(countValue{&maxRate}, "max-event-rate", "refuse runs with more estimated events per simulated second")
	f.Var(countValue{&maxSweep}, "max-sweep-events", "refuse a sweep whose runs have more estimated events in all")
	f.Var(recordsValue{&opts.Limits.MaxQueued}, "max-queued", "stop a run when more records than this are queued at once (its row is then partial)")
	f.Var(bytesValue{&opts.Limits.MaxMemory}, "max-memory", maxMemoryUsage)
	cmd.AddCommand(newSweepMergeCmd())
	return cmd
}

func newSweepMergeCmd() *cobra.Command {
	var opts sweep.MergeOptions
	cmd := &cobra.Command{
		Use:   "merge DIR... --out DIR",
		Short: "Join the output directories of a sweep's shards",
		Long: `Join the output directories of the shards of one sweep (dspalab sweep
--shard I/N) into one sweep.csv and sweep.json, byte for byte those that
the whole sweep run on one machine writes. Every shard from 0 to N-1 must
be given once, complete, and of the same sweep (scenario text, --set
values, --seeds and dspalab version); otherwise nothing is written.

` + exitCodesHelp,
		Example: `  dspalab sweep merge shard-0 shard-1 shard-2 shard-3 --out sw
  dspalab sweep merge results/shard-* --out results/all`,
		Args: usage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.OutDir == "" {
				return usagef("--out DIR is required: the directory for the merged sweep.csv and sweep.json")
			}
			opts.Dirs = args
			opts.Stderr = cmd.ErrOrStderr()
			return sweep.Merge(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.OutDir, "out", "o", "", "write the merged sweep.csv and sweep.json into `DIR`")
	return cmd
}
