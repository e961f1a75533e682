package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/report"
	"github.com/dspalab/dspalab/internal/runner"
)

func newPlotCmd() *cobra.Command {
	var opts report.PlotOptions
	cmd := &cobra.Command{
		Use:   "plot RUN_DIR... [-m METRIC[,METRIC...]] [--vertex V] [--cdf | --heatmap | --watermarks | --event-time-lag | --late] [-o FILE]\n  dspalab plot SWEEP_DIR/sweep.csv -x PATH -y METRIC [-o FILE]",
		Short: "Draw a run's metrics over time, a latency CDF, a back-pressure heatmap, watermarks, or a sweep's trade-off",
		Long: `Draw a figure of run outputs (the directories of dspalab run --out) or of
a sweep (the sweep.csv of dspalab sweep --out), as PNG, SVG or PDF by the
extension of -o (default plot.png).

Runs: a panel per metric (-m, columns of timeseries.csv such as
in_rate_rps, backpressured_ms_per_s, busy_ms_per_s, queued_records,
latency_p99_ms; default in_rate_rps,backpressured_ms_per_s,latency_p99_ms,
for a Spark run input_rate_rps,scheduling_delay_ms,processing_time_ms,
latency_p99_ms) over simulated time, a line per vertex (--vertex to choose, --subtasks for
a line per subtask; past 10, those with the highest mean of the first
metric). Sources draw their output rate in the input-rate panel, as
"NAME (out)". Several run directories are overlaid, with a legend.
The warmup and checkpoints are shaded (orange: failed), failures (one red
line each, from the failure events) and recoveries (green) marked. Any
column of timeseries.csv can be drawn, state_bytes too (keyed state).
  --cdf      the distribution of end-to-end latency at the sinks (or --vertex),
             estimated from each interval's percentiles; crosses mark the
             exact ones of summary.json
  --heatmap  back-pressured time (or -m METRIC) per vertex or subtask over
             time; the warmup is shaded paler, failures and recoveries
             marked, grey cells have no value

A run with event time (a source with watermarks:, a window or a join):
  --watermarks      event time against processing time, the classic figure:
                    the diagonal where they are equal, each vertex's watermark
                    (current_input_watermark_s) below it, at the sinks the event
                    time of what they wrote (median lag, band to the p99); under
                    it the watermark lag over time (an idle input: a lag that
                    grows a second a second; --subtasks: a line per subtask)
  --event-time-lag  the CDF of the event-time lag at the sinks (processing time
                    - event time) after the warmup, from summary.json's
                    event_time_lag_cdf
  --late            late records dropped by each window or join
                    (numLateRecordsDropped), so far and per second
A run without event time is refused: "this run has no event time: add
watermarks: to a source".

Sweeps: a metric (-y, a column of sweep.csv such as
vertices.out.latency_p99_ms, or its unique ending, out.latency_p99_ms)
against a swept parameter (-x PATH): the mean over the seeds with a band
from the minimum to the maximum, a line per combination of the other
parameters. Values that are not numbers are categories, drawn as points.

An unknown metric, vertex or parameter is a usage error that lists the
valid ones.

` + exitCodesHelp,
		Example: `  dspalab run --out out && dspalab plot out -o bp.png
  dspalab plot out -m busy_ms_per_s,backpressured_ms_per_s --vertex parse,enrich -o busy.svg
  dspalab plot out-seed1 out-seed2 -m latency_p99_ms --vertex out
  dspalab plot out --cdf -o latency.pdf
  dspalab plot out --heatmap --subtasks -o heat.png
  dspalab run idle-source --out idle && dspalab plot idle --watermarks -o watermarks.svg
  dspalab plot wb --event-time-lag -o lag.png && dspalab plot wb --late -o late.png
  dspalab plot sw/sweep.csv -x operators.enrich.parallelism -y out.latency_p99_ms -o tradeoff.png`,
		Args: usage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputFlags(cmd); err != nil {
				return err
			}
			opts.Inputs = args
			opts.Stderr = cmd.ErrOrStderr()
			err := report.Plot(opts)
			var oe *runner.OptionError
			if errors.As(err, &oe) {
				return &usageError{err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringSliceVarP(&opts.Metrics, "metric", "m", nil, "draw the columns `METRIC[,METRIC...]` of timeseries.csv, a panel each")
	f.StringSliceVar(&opts.Vertices, "vertex", nil, "draw only the vertices `V[,V...]` (default all; the sinks for --cdf)")
	f.BoolVar(&opts.Subtasks, "subtasks", false, "draw each subtask instead of whole vertices")
	f.BoolVar(&opts.CDF, "cdf", false, "draw the latency CDF")
	f.BoolVar(&opts.Heatmap, "heatmap", false, "draw a heatmap of back-pressured time (or -m METRIC) over time")
	f.BoolVar(&opts.Watermarks, "watermarks", false, "draw event time against processing time: each vertex's watermark below the diagonal, and its lag")
	f.BoolVar(&opts.EventTimeLag, "event-time-lag", false, "draw the CDF of the event-time lag at the sinks")
	f.BoolVar(&opts.Late, "late", false, "draw the late records each window or join dropped, over time")
	f.StringVarP(&opts.X, "x", "x", "", "sweep: put the parameter `PATH` on the x axis")
	f.StringSliceVarP(&opts.Y, "y", "y", nil, "sweep: draw the columns `METRIC[,METRIC...]` of sweep.csv, a panel each")
	f.StringVar(&opts.Title, "title", "", "replace the figure's title with `TEXT`")
	outputFlags(cmd, &opts.Output, report.DefaultPlotFile, "the figure (.png, .svg or .pdf)")
	return cmd
}
