// Package plot draws figures of dspalab's run and sweep outputs with
// gonum/plot, written to an io.Writer as PNG, SVG or PDF:
//
//   - TimeSeries: metrics of timeseries.csv over simulated time, a panel per
//     metric, a line per vertex (or subtask) and run, with the warmup and
//     checkpoints shaded and failures and recoveries marked;
//   - LatencyCDF: the distribution of end-to-end latency at the sinks;
//   - Heatmap: back-pressured time (or another metric) per vertex or
//     subtask over time, with Flink's OK/LOW/HIGH bands on the scale;
//   - Tradeoff: a sweep's metric against one of its parameters, the mean
//     over seeds with a min-max band;
//   - Watermarks, EventTimeLagCDF and LateRecords, of a run with event
//     time: each vertex's watermark against processing time below the
//     diagonal (and its lag), the event-time lag CDF at the sinks
//     (summary.json's event_time_lag_cdf), late records over time; a run
//     without event time gives a *NoEventTimeError.
//
// The package reads values and readers (ReadTimeseries, ReadEvents,
// ReadCheckpoints, ReadSweep; ReadRun through an fs.FS) and opens no file
// itself. Legends sit in a column of their own beside the panels, so they
// never cover data. Missing or NaN data gives a *NoDataError and an
// unknown metric, vertex or parameter an *UnknownError listing the valid
// ones; no input makes it panic (the drawing library's panics are
// returned as errors).
//
// Checkpoints and failures are read generically, so that the plots follow
// the simulator as it grows: checkpoints.csv when present, else the
// events whose type names a checkpoint being triggered and completed (or
// failed); failures and recoveries are the events whose type holds "fail"
// or "recover" (a failure's detection and the end of the job it causes,
// failure_detected and job_failed, aside: one marker per failure).
// Of several overlaid runs, each run's markers are in its palette color
// and its legend entries name it ("failure of runA").
package plot
