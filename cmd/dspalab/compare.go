package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/report"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/des"
)

// compareFlags are the flags of dspalab compare.
type compareFlags struct {
	opts     runner.CompareOptions
	seed     uint64
	duration des.Time
	report   string // --report FILE: the HTML page
}

func newCompareCmd() *cobra.Command {
	var c compareFlags
	c.opts.Limits = runner.Limits{MaxSubtasks: runner.DefaultMaxSubtasks, MaxDuration: runner.DefaultMaxDuration,
		MaxQueued: runner.DefaultMaxQueued, MaxMemory: runner.DefaultMaxMemory,
		MaxEvents: runner.DefaultMaxEvents, MaxEventRate: runner.DefaultMaxEventRate, MaxRows: runner.DefaultMaxRows}
	cmd := &cobra.Command{
		Use:   "compare SCENARIO SCENARIO...",
		Short: "Run scenarios side by side, such as one workload on Flink and on Spark",
		Long: `Run two or more scenarios, each on its own engine (engine: flink,
spark-streaming or structured-streaming), and print their figures side by
side in the same terms: input and output records/s, the sinks' record
latency (mean, p50, p99, max), records delivered, duplicated and lost,
failures, downtime, and each run's diagnosis.

The built-in pair same-workload-flink and same-workload-spark is one
workload on both engines: the latency floor of a micro-batch engine is
half its batch interval plus the processing time of a batch.

With --report FILE it also writes the comparison as a self-contained HTML
page: the same table and each run's diagnosis.

` + exitCodesHelp,
		Example: `  dspalab compare same-workload-flink same-workload-spark
  dspalab compare same-workload-flink same-workload-spark --report compare.html
  dspalab compare a.yaml b.yaml --duration 30s --json`,
		Args: usage(cobra.MinimumNArgs(2)),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return scenarios.Names(), cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error { return c.run(cmd, args) },
	}
	f := cmd.Flags()
	f.Var(seedValue{&c.seed}, "seed", "seed of every run (default: each scenario's)")
	f.Var(durationValue{&c.duration}, "duration", "simulated time of every run, e.g. 30s (default: each scenario's)")
	f.BoolVar(&c.opts.JSON, "json", false, "print the figures as a JSON list instead of the table")
	f.StringVar(&c.report, "report", "", "also write the comparison as an HTML page to `FILE`")
	return cmd
}

func (c *compareFlags) run(cmd *cobra.Command, args []string) error {
	c.opts.Scenarios = args
	if cmd.Flags().Changed("seed") {
		c.opts.Seed = &c.seed
	}
	if cmd.Flags().Changed("duration") {
		c.opts.Duration = &c.duration
	}
	c.opts.Stdout = cmd.OutOrStdout()
	if cmd.Flags().Changed("report") {
		if c.report == "" {
			return usagef("--report needs a file name, got an empty string")
		}
		if err := report.CheckPageName(c.report); err != nil {
			return &usageError{err}
		}
		c.opts.Report = func(all []runner.Figures) error {
			return report.WriteCompare(report.Options{Output: c.report, Version: version, Stderr: cmd.ErrOrStderr()}, all)
		}
	}
	err := runner.Compare(cmd.Context(), c.opts)
	var oe *runner.OptionError
	if errors.As(err, &oe) {
		return &usageError{err}
	}
	return err
}
