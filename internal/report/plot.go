// Package report turns run and sweep outputs into things for people:
// figure files (`dspalab plot`, Plot) and a self-contained HTML page of a
// run (`dspalab report`, Write). The figures themselves are drawn by
// viz/plot; this package finds the inputs, picks the figure and writes the
// files.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/internal/atomicfile"
	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/internal/sweep"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
	"github.com/dspalab/dspalab/viz/plot"
)

// DefaultPlotFile is where Plot writes when no output is named.
const DefaultPlotFile = "plot.png"

// PlotOptions configure Plot.
type PlotOptions struct {
	// Inputs are run directories (dspalab run --out), or one sweep:
	// a sweep.csv or the directory holding it (dspalab sweep --out).
	Inputs []string
	// Output is the figure file; its extension (.png, .svg, .pdf) gives
	// the format. DefaultPlotFile when empty.
	Output string
	// Metrics, for runs: columns of timeseries.csv, a panel each
	// (plot.DefaultMetrics when empty, plot.DefaultMicroBatchMetrics for
	// runs of Spark's engines); the heatmap's metric.
	Metrics []string
	// Vertices to draw, for runs; all (the sinks for a CDF) when empty.
	Vertices []string
	// Subtasks draws subtasks instead of whole vertices.
	Subtasks bool
	// CDF draws the latency CDF; Heatmap the back-pressure heatmap.
	CDF, Heatmap bool
	// The figures of a run with event time: Watermarks, event time
	// against processing time per vertex (plot.Watermarks);
	// EventTimeLag, the event-time lag CDF at the sinks
	// (plot.EventTimeLagCDF); Late, late records over time
	// (plot.LateRecords).
	Watermarks, EventTimeLag, Late bool
	// X and Y, for a sweep: the parameter on the x axis and the metrics.
	X string
	Y []string
	// Title replaces the figure's default title.
	Title string
	// Stderr receives the "wrote FILE" line; nil discards.
	Stderr io.Writer
}

// Plot draws the figure opts ask for and writes it to opts.Output. It
// returns a *runner.OptionError (a usage error: exit status 2) for
// options that do not fit the inputs, an unknown metric, vertex or
// parameter (listing the valid ones) and an unknown output format; other
// errors for inputs that cannot be read and data with no values (a
// *plot.NoDataError).
func Plot(opts PlotOptions) error {
	out := opts.Output
	if out == "" {
		out = DefaultPlotFile
	}
	if err := runner.CheckNotInput([]string{out}, readDirs(opts.Inputs)); err != nil {
		return err
	}
	format, err := plot.FormatOf(out)
	if err != nil {
		return &runner.OptionError{Err: err}
	}
	if len(opts.Inputs) == 0 {
		return &runner.OptionError{Err: errors.New("name a run directory (dspalab run --out DIR) or a sweep.csv")}
	}
	if err := checkParent(out); err != nil {
		return err
	}
	opts.Inputs = dedupe(opts.Inputs, opts.Stderr)
	fig, err := drawPlot(opts)
	if err != nil {
		var ue *plot.UnknownError
		if errors.As(err, &ue) {
			return &runner.OptionError{Err: err}
		}
		return err
	}
	if err := writeFile(out, func(w io.Writer) error { return fig.WriteTo(w, format) }); err != nil {
		return err
	}
	if opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "wrote %s\n", out)
	}
	return nil
}

// drawPlot reads the inputs and draws the figure.
func drawPlot(opts PlotOptions) (*plot.Figure, error) {
	sweepFile, isSweep, err := sweepInput(opts.Inputs)
	if err != nil {
		return nil, err
	}
	if isSweep {
		switch {
		case len(opts.Inputs) > 1:
			return nil, &runner.OptionError{Err: errors.New("plot one sweep at a time (several run directories can be overlaid, not sweeps)")}
		case opts.CDF || opts.Heatmap || opts.eventTime() || len(opts.Metrics) > 0 || len(opts.Vertices) > 0 || opts.Subtasks:
			return nil, &runner.OptionError{Err: errors.New("a sweep is plotted with -x PARAMETER -y METRIC; -m, --vertex, --subtasks, --cdf, --heatmap, --watermarks, --event-time-lag and --late are for run directories")}
		}
		f, err := regfile.Open(sweepFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		s, err := plot.ReadSweep(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sweepFile, err)
		}
		if err := readManifest(sweepFile, s); err != nil {
			return nil, err
		}
		return plot.Tradeoff(s, plot.TradeoffOptions{X: opts.X, Y: opts.Y, Title: opts.Title})
	}
	switch {
	case opts.X != "" || len(opts.Y) > 0:
		return nil, &runner.OptionError{Err: errors.New("-x and -y are for a sweep's sweep.csv; plot run directories with -m METRIC")}
	case opts.kinds() > 1:
		return nil, &runner.OptionError{Err: errors.New(strings.Join(opts.kindFlags(), " and ") + " draw different figures: choose one")}
	case opts.eventTime() && len(opts.Metrics) > 0:
		return nil, &runner.OptionError{Err: errors.New(opts.kindFlags()[0] + " draws the event-time columns; it takes no -m")}
	case (opts.EventTimeLag || opts.Late) && opts.Subtasks:
		return nil, &runner.OptionError{Err: errors.New(opts.kindFlags()[0] + " draws whole vertices; it takes no --subtasks")}
	case opts.CDF && len(opts.Metrics) > 0:
		return nil, &runner.OptionError{Err: errors.New("--cdf draws end-to-end latency; it takes no -m")}
	case opts.CDF && opts.Subtasks:
		return nil, &runner.OptionError{Err: errors.New("--cdf draws whole vertices; it takes no --subtasks")}
	case opts.Heatmap && len(opts.Metrics) > 1:
		return nil, &runner.OptionError{Err: errors.New("--heatmap draws one metric; give one -m")}
	}
	defaults := plot.DefaultMetrics
	if micro, engine, flink, consumers := runEngines(opts.Inputs); len(micro) > 0 {
		switch {
		case len(flink) > 0 && (len(opts.Metrics) == 0 || opts.CDF):
			return nil, &runner.OptionError{Err: fmt.Errorf("%s ran on %s and %s on flink: their timeseries.csv have different columns; overlay runs of one engine, or name columns both have with -m",
				strings.Join(micro, ", "), engine, strings.Join(flink, ", "))}
		case opts.CDF:
			return nil, &runner.OptionError{Err: fmt.Errorf("--cdf draws the latency distribution at a Flink job's sinks (timeseries.csv's latency_p50_ms to latency_max_ms per vertex); %s ran on %s, whose timeseries.csv has the whole job's latency_p50_ms and latency_p99_ms per interval: plot them with -m latency_p50_ms -m latency_p99_ms",
				micro[0], engine)}
		case opts.Heatmap && len(opts.Metrics) == 0:
			return nil, &runner.OptionError{Err: fmt.Errorf("--heatmap draws back-pressure per vertex of a Flink job; %s ran on %s, which has no back-pressure column and one row per interval for the whole job (vertex job): plot its columns over time with -m (such as -m scheduling_delay_ms), or give --heatmap one -m",
				micro[0], engine)}
		case opts.eventTime():
			// "add watermarks: to a source" is Flink's advice, refused on
			// Spark's engines (spark.watermark is the job's own)
			return nil, &runner.OptionError{Err: fmt.Errorf("%s draws the watermarks and event time of a Flink job's vertices (timeseries.csv's watermark columns); %s ran on %s, which has none: Structured Streaming's watermark (spark.watermark) is the whole job's, and the late rows it drops are counted in summary.json (rows_dropped_by_watermark)",
				opts.kindFlags()[0], micro[0], engine)}
		}
		defaults = plot.DefaultMicroBatchMetrics
	} else if consumers {
		defaults = plot.DefaultConsumerMetrics
	}
	filter := plot.TimeseriesFilter{Metrics: opts.Metrics, Vertices: opts.Vertices, Subtasks: opts.Subtasks}
	switch {
	case opts.eventTime():
		// optional: a run without them has no event time, which the
		// figure says (plot.NoEventTimeError)
		filter.Metrics, filter.Optional = []string{}, plot.EventTimeMetrics
	case opts.CDF:
		filter.Metrics = plot.CDFMetrics
	case opts.Heatmap && len(opts.Metrics) == 0:
		filter.Metrics = []string{plot.DefaultHeatmapMetric}
	case len(opts.Metrics) == 0:
		filter.Metrics = defaults
	}
	if opts.Heatmap {
		filter.Optional = []string{plot.DownMetric} // down cells drawn as down
	}
	if !opts.CDF && !opts.Heatmap && slices.Contains(filter.Metrics, plot.InRateMetric) {
		// the input-rate panel draws the sources' output rate
		filter.Optional = []string{plot.OutRateMetric}
	}
	runs, err := readRuns(opts.Inputs, filter)
	if err != nil {
		return nil, err
	}
	et := plot.EventTimeOptions{Vertices: opts.Vertices, Subtasks: opts.Subtasks, Title: opts.Title}
	switch {
	case opts.Watermarks:
		return plot.Watermarks(runs, et)
	case opts.EventTimeLag:
		return plot.EventTimeLagCDF(runs, et)
	case opts.Late:
		return plot.LateRecords(runs, et)
	case opts.CDF:
		return plot.LatencyCDF(runs, plot.CDFOptions{Vertices: opts.Vertices, Title: opts.Title})
	case opts.Heatmap:
		m := ""
		if len(opts.Metrics) == 1 {
			m = opts.Metrics[0]
		}
		return plot.Heatmap(runs, plot.HeatmapOptions{Metric: m, Vertices: opts.Vertices, Subtasks: opts.Subtasks, Title: opts.Title})
	}
	metrics := opts.Metrics
	if len(metrics) == 0 {
		metrics = defaults
	}
	return plot.TimeSeries(runs, plot.TimeSeriesOptions{Metrics: metrics, Vertices: opts.Vertices, Subtasks: opts.Subtasks, Title: opts.Title})
}

// runEngines sorts run directories by the engine their summary.json
// names: micro the runs of Spark's engines (engine is the first one's),
// flink the others (and those without a readable summary, which reading
// the run reports); consumers is true when every run had no Flink job,
// consumer groups only (sim.Summary.ConsumersOnly). Each summary is read
// once.
func runEngines(dirs []string) (micro []string, engine string, flink []string, consumers bool) {
	consumers = len(dirs) > 0
	for _, d := range dirs {
		sum, data := readRunSummary(d)
		if e := summaryEngine(data); e != "" {
			if micro = append(micro, d); len(micro) == 1 {
				engine = e
			}
		} else {
			flink = append(flink, d)
		}
		consumers = consumers && sum != nil && sum.ConsumersOnly()
	}
	return micro, engine, flink, consumers
}

// readRunSummary reads the summary.json of the run in dir: nil and no
// data when it cannot (reading the run for the figure says why).
func readRunSummary(dir string) (*sim.Summary, []byte) {
	rd, err := runfiles.OpenRunDir(os.DirFS(dir), filepath.Clean(dir))
	if err != nil {
		return nil, nil
	}
	sum, data, err := rd.ReadSummary()
	if err != nil {
		return nil, nil
	}
	return sum, data
}

// summaryEngine returns the engine summary.json data names when it is one
// of Spark's micro-batch engines, else "" (Flink's summary names flink, or
// none when written before engines).
func summaryEngine(data []byte) string {
	var e struct {
		Engine string `json:"engine"`
	}
	if json.Unmarshal(data, &e) != nil || !scenario.MicroBatchEngine(e.Engine) {
		return ""
	}
	return e.Engine
}

// eventTime says whether opts ask for a figure of event time.
func (opts PlotOptions) eventTime() bool { return opts.Watermarks || opts.EventTimeLag || opts.Late }

// kindFlags names the flags of the figures opts ask for, in the order
// of dspalab plot's help.
func (opts PlotOptions) kindFlags() []string {
	var out []string
	for _, k := range []struct {
		on   bool
		flag string
	}{{opts.CDF, "--cdf"}, {opts.Heatmap, "--heatmap"}, {opts.Watermarks, "--watermarks"}, {opts.EventTimeLag, "--event-time-lag"}, {opts.Late, "--late"}} {
		if k.on {
			out = append(out, k.flag)
		}
	}
	return out
}

// kinds counts the figures opts ask for (one at most).
func (opts PlotOptions) kinds() int { return len(opts.kindFlags()) }

// sweepInput tells whether the inputs are a sweep: a .csv file other
// than a run's (a sweep.csv under any name), or a directory with a
// sweep.csv (else a sweep.partial.csv) and no timeseries.csv. It returns
// the CSV's path, and an error for a file that is neither a run directory
// nor a sweep's CSV.
func sweepInput(inputs []string) (string, bool, error) {
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", false, fmt.Errorf("%s does not exist; name a run directory (dspalab run --out DIR) or a sweep.csv", in)
			}
			return "", false, err
		}
		if !fi.IsDir() {
			base := filepath.Base(in)
			switch {
			case base == runfiles.TimeseriesFile:
				return "", false, fmt.Errorf("%s is a run's time series: name its directory, %s", in, filepath.Dir(in))
			case base == runfiles.SweepManifestFile || base == runfiles.SweepPartialManifestFile:
				csvFile := strings.TrimSuffix(in, ".json") + ".csv"
				return "", false, fmt.Errorf("%s: expected a run directory (with %s) or a sweep.csv; did you mean %s?", in, runfiles.TimeseriesFile, csvFile)
			case base == runfiles.SummaryFile || base == runfiles.EventsFile || base == runfiles.CheckpointsFile:
				return "", false, fmt.Errorf("%s: expected a run directory (with %s) or a sweep.csv; did you mean its directory, %s?", in, runfiles.TimeseriesFile, filepath.Dir(in))
			case !strings.EqualFold(filepath.Ext(in), ".csv"):
				return "", false, fmt.Errorf("%s: expected a run directory (with %s) or a sweep.csv", in, runfiles.TimeseriesFile)
			}
			return in, true, nil
		}
		if _, err := os.Stat(filepath.Join(in, runfiles.TimeseriesFile)); err == nil {
			continue
		}
		for _, name := range []string{runfiles.SweepFile, runfiles.SweepPartialFile} {
			if _, err := os.Stat(filepath.Join(in, name)); err == nil {
				return filepath.Join(in, name), true, nil
			}
		}
	}
	return "", false, nil
}

// maxSweepManifestBytes bounds a sweep.json read: 16 MiB (it lists the
// swept values).
const maxSweepManifestBytes = 16 << 20

// readManifest reads the manifest next to a sweep's CSV (sweep.json for
// sweep.csv, sweep.partial.json for sweep.partial.csv), if there is one,
// into what the figure says of the sweep: the runs and seeds asked for
// and whether it was interrupted.
func readManifest(csvFile string, s *plot.Sweep) error {
	name := strings.TrimSuffix(csvFile, filepath.Ext(csvFile)) + ".json"
	data, err := regfile.ReadFile(name, maxSweepManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var m sweep.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.AskedRuns, s.AskedSeeds, s.Interrupted = m.ShardRuns, m.Seeds, m.Partial
	return nil
}

// dedupe drops inputs that name a directory given before (by cleaned
// absolute path), saying so on w.
func dedupe(inputs []string, w io.Writer) []string {
	var out []string
	seen := map[string]string{}
	for _, in := range inputs {
		abs, err := filepath.Abs(in)
		if err != nil {
			abs = filepath.Clean(in)
		}
		if first, ok := seen[abs]; ok {
			if w != nil {
				fmt.Fprintf(w, "note: %s is %s again; drawing it once\n", in, first)
			}
			continue
		}
		seen[abs] = in
		out = append(out, in)
	}
	return out
}

// checkParent refuses an output file whose directory does not exist:
// Plot creates no directories.
func checkParent(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("writing %s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("writing %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("writing %s: %s is not a directory", path, dir)
	}
	return nil
}

// readRuns reads run directories, labelled by their paths as given.
func readRuns(dirs []string, f plot.TimeseriesFilter) ([]*plot.Run, error) {
	var runs []*plot.Run
	for _, d := range dirs {
		r, err := plot.ReadRun(os.DirFS(d), filepath.Clean(d), f)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// writeFile writes a file through a temporary file in the same directory,
// renamed over path only when write succeeded. The directory must exist.
func writeFile(path string, write func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("writing %s: it is not a regular file", path)
	}
	if err := checkParent(path); err != nil {
		return err
	}
	err := atomicfile.Write(path, write)
	if err != nil {
		if strings.Contains(err.Error(), path) || strings.HasPrefix(err.Error(), "plot:") {
			return err
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// readDirs are the directories that the inputs of plot stand for, for
// runner.CheckNotInput: a run directory, or the directory of a sweep.csv
// (read with the sweep.json beside it).
func readDirs(inputs []string) []string {
	dirs := make([]string, len(inputs))
	for i, in := range inputs {
		dirs[i] = in
		if fi, err := os.Stat(in); err == nil && !fi.IsDir() {
			dirs[i] = filepath.Dir(in)
		}
	}
	return dirs
}
