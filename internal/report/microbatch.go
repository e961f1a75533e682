package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
	"github.com/dspalab/dspalab/viz/plot"
)

// maxBatchRows bounds the batches table of a micro-batch page.
const maxBatchRows = 500

//go:embed microbatch.html.tmpl
var batchTemplate string

// pageStyle is the run page's style sheet, which the micro-batch and
// compare pages share.
var pageStyle = sync.OnceValue(func() template.HTML {
	return template.HTML(regexp.MustCompile(`(?s)<style>.*?</style>`).FindString(pageTemplate))
})

// batchPage is the parsed micro-batch and compare template, parsed on
// first use.
var batchPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.Must(page().Clone()).New("batches").Parse(batchTemplate))
})

// batchData is what the micro-batch page shows.
type batchData struct {
	Title, Dir, Version string
	Style               template.HTML
	Summary             *microbatch.Summary
	Table               string // microbatch.WriteTable's text, Spark's terms
	Figures             []figure
	Batches             *table
	Events              []plot.Event
	EventsMore          int
	Files               []string
}

// writeMicroBatch is Write for the run of a micro-batch engine: the
// summary in Spark's terms, the figures of the batches (the delays per
// batch, the PID rate against the input rate), batches.csv as a table
// and the events.
func writeMicroBatch(opts Options, rd *runfiles.RunDir, data []byte) error {
	dir := filepath.Clean(opts.RunDir)
	var sum microbatch.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		return fmt.Errorf("%s: reading %s: %w", dir, runfiles.SummaryFile, err)
	}
	pd := &batchData{Title: opts.Title, Dir: dir, Version: opts.Version, Style: pageStyle(), Summary: &sum}
	if pd.Title == "" {
		pd.Title = sum.Scenario
	}
	var tb bytes.Buffer
	if err := microbatch.WriteTable(&tb, &sum); err != nil {
		return err
	}
	pd.Table = tb.String()
	metrics := []string{"scheduling_delay_ms", "processing_time_ms", "total_delay_ms", "input_rate_rps", "rate_limit_rps", "queued_batches"}
	run, err := plot.ReadRunDir(rd, filepath.Base(dir), plot.TimeseriesFilter{Metrics: metrics})
	if err != nil {
		return err
	}
	pd.Events = run.Events
	if len(pd.Events) > maxEventRows {
		pd.EventsMore, pd.Events = len(pd.Events)-maxEventRows, pd.Events[:maxEventRows]
	}
	pd.Figures = batchFigures(run, sum.Engine == scenario.EngineStructuredStreaming)
	if pd.Batches, err = csvTable(rd, runfiles.BatchesFile, maxBatchRows, cells); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, f := range []string{runfiles.SummaryFile, runfiles.TimeseriesFile, runfiles.EventsFile, runfiles.BatchesFile} {
		if rd.Has(f) {
			pd.Files = append(pd.Files, f)
		}
	}
	return writePage(opts, batchPage(), "batches", pd)
}

// batchFigures draws the figures of a micro-batch run: a structured
// streaming query's (structured) in its terms, without the PID rate of
// Spark Streaming's rate controller, which it does not have.
func batchFigures(run *plot.Run, structured bool) []figure {
	var figs []figure
	add := func(title, caption string, metrics []string) {
		f, err := plot.TimeSeries([]*plot.Run{run}, plot.TimeSeriesOptions{Metrics: metrics})
		figs = append(figs, drawn(title, caption, f, err))
	}
	delays := []string{"total_delay_ms", "scheduling_delay_ms", "processing_time_ms", "queued_batches"}
	if structured {
		add("Delays per micro-batch",
			"A streaming query's progress per micro-batch: the delay from its trigger time to its start (scheduling delay), its processing time and their sum (total delay), the mean of the micro-batches completed in each metrics interval (batches.csv, below, has every one). A query keeps up while its processing time stays under the trigger interval; past it, each micro-batch starts when the last one ended and reads all that arrived meanwhile.",
			delays)
		return figs
	}
	add("Delays per batch",
		"StreamingListener's figures: scheduling delay (batch time to the start of its job), processing time and total delay (batch time to the end of its job), the mean of the batches completed in each metrics interval (batches.csv, below, has every batch). A job is stable while its processing time stays under the batch interval; otherwise batches queue and the scheduling delay grows by the difference every batch.",
		delays)
	add("PID rate against the input rate",
		"Records read per second (input rate) and, with spark.streaming.backpressure.enabled, the rate controller's latest rate (PIDRateEstimator: proportional 1.0, integral 0.2, derivative 0 by default), which caps the next batch, spread over the Kafka partitions by maxRatePerPartition. Without back-pressure, and before the estimator's first rate, rate_limit_rps is empty (no limit) and only the input rate is drawn.",
		[]string{"input_rate_rps", "rate_limit_rps"})
	return figs
}

// drawn renders a figure for the page, or the reason it could not be.
func drawn(title, caption string, f *plot.Figure, err error) figure {
	fig := figure{Title: title, Caption: caption}
	if err == nil {
		f.Title = "" // the page gives the title
		var b bytes.Buffer
		if err = f.WriteTo(&b, plot.SVG); err == nil {
			fig.SVG = template.HTML(inlineSVG(b.String()))
		}
	}
	if err != nil {
		fig.Problem = err.Error()
	}
	return fig
}

// csvTable returns the CSV file name of rd as a table of its first most
// rows, each formatted by row, read a row at a time (nil without the
// file, or with no row).
func csvTable(rd *runfiles.RunDir, name string, most int, row func(header, rec []string) []cell) (*table, error) {
	f, err := rd.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &table{}
	header, err := runfiles.ReadTable(f, rd.Name(name), func(h, rec []string, _ int) error {
		if len(t.Rows) == most {
			t.More++
			return nil
		}
		t.Rows = append(t.Rows, row(h, rec))
		return nil
	})
	if errors.Is(err, runfiles.ErrEmpty) || err == nil && len(t.Rows) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.Header = header
	return t, nil
}

// generatorTag opens the generator meta tag of every page dspalab writes
// (report.html.tmpl, microbatch.html.tmpl): the mark of a page it may
// replace.
const generatorTag = `<meta name="generator" content="dspalab`

// checkOwnPage refuses to replace a file at out that is not a page
// dspalab wrote (its generator tag within the first KiBs): a page of the
// user's own called report.html, or notes named by mistake with -o, is
// never overwritten, as a run never overwrites files it did not write.
func checkOwnPage(out string) error {
	// Stat before Open: opening a FIFO blocks until a writer comes
	if fi, err := os.Stat(out); err != nil || !fi.Mode().IsRegular() {
		return nil // nothing there to lose, or writeFile refuses what is not a regular file
	}
	f, err := os.OpenFile(out, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil // replaced meanwhile: writeFile decides
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	if bytes.Contains(head[:n], []byte(generatorTag)) {
		return nil
	}
	return fmt.Errorf("writing %s: it exists and is not a page dspalab wrote (it has no dspalab generator tag); it was not replaced (move it away, or name another page with -o)", out)
}

// writePage executes the template name of tmpl with pd into opts.Output
// (DefaultReportFile when empty), and says so on opts.Stderr.
func writePage(opts Options, tmpl *template.Template, name string, pd any) error {
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, name, pd); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	out := opts.Output
	if out == "" {
		out = DefaultReportFile
	}
	if err := checkOwnPage(out); err != nil {
		return err
	}
	if err := writeFile(out, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		return err
	}
	if opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "wrote %s\n", out)
	}
	return nil
}
