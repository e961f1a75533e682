package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/report"
	"github.com/dspalab/dspalab/internal/runner"
)

func newReportCmd() *cobra.Command {
	opts := report.Options{Output: report.DefaultReportFile}
	cmd := &cobra.Command{
		Use:   "report RUN_DIR [-o report.html]",
		Short: "Write a self-contained HTML page of a run: summary, delivery, recovery, figures, checkpoints, event log",
		Long: `Write one HTML page of a run's outputs (the directory of dspalab run --out):
the diagnosis, the summary per vertex and subtask, the delivery counters
per sink (emitted, delivered, duplicated, lost), the failures and
recoveries, the checkpoint summary, figures inline as SVG (throughput,
back-pressure and latency over time, a back-pressure heatmap, the latency
distribution), the checkpoints (checkpoints.csv, with the subtasks of the
longest one from checkpoint_subtasks.csv) and the event log. The page
needs no other file and no network: attach it to a submission, or turn it
into a PNG with scripts/render-report.sh (headless Chromium).

A run of Spark's engines (engine: spark-streaming or structured-streaming)
gets its own page: the summary in Spark's terms, the delays per batch
(scheduling delay, processing time, total delay), the PID rate against the
input rate, batches.csv as a table and the event log.

` + exitCodesHelp,
		Example: `  dspalab run --out out && dspalab report out -o report.html
  dspalab run spark-backpressure --out sp && dspalab report sp -o spark.html`,
		Args: needArgs(1, 1, "a run directory, written by dspalab run --out DIR", ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputFlags(cmd); err != nil {
				return err
			}
			opts.RunDir = args[0]
			opts.Version = version
			opts.Stderr = cmd.ErrOrStderr()
			err := report.Write(opts)
			var oe *runner.OptionError
			if errors.As(err, &oe) {
				return &usageError{err}
			}
			return err
		},
	}
	outputFlags(cmd, &opts.Output, report.DefaultReportFile, "the page")
	cmd.Flags().StringVar(&opts.Title, "title", "", "replace the page's title (the scenario's name) with `TEXT`")
	return cmd
}
