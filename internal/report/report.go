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
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
	"github.com/dspalab/dspalab/viz/plot"
)

// DefaultReportFile is where Write puts the page when no output is named.
const DefaultReportFile = "report.html"

// Options configure Write.
type Options struct {
	// RunDir is the run's output directory (dspalab run --out DIR).
	RunDir string
	// Output is the HTML file; DefaultReportFile when empty.
	Output string
	// Title replaces the page's title (the scenario's name).
	Title string
	// Version is the dspalab version, named at the foot of the page.
	Version string
	// Stderr receives the "wrote FILE" line; nil discards.
	Stderr io.Writer
}

// Limits of the page, so that a long run still gives a page a browser
// opens at once.
const (
	maxEventRows      = 2000
	maxCheckpointRows = 500
	maxSubtaskFigure  = 48 // subtasks beyond which the heatmap shows vertices
)

//go:embed report.html.tmpl
var pageTemplate string

// page is the parsed template, parsed on first use: parsing it takes a few
// thousand allocations that every dspalab command would pay at start-up.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct":     func(x float64) string { return strconv.FormatFloat(100*x, 'f', 0, 64) + "%" },
		"rate":    formatRate,
		"latency": formatLatency,
		"ms":      formatMs,
		// msOrDash: a duration in ms, or a dash when there is none (nil)
		"msOrDash": func(ms *float64) string {
			if ms == nil {
				return "–"
			}
			return formatMs(*ms)
		},
		"time": func(s float64) string { return sim.FormatTime(des.FromSeconds(s)) },
		// at: simulated seconds, or a dash for a step that did not happen (-1)
		"at": func(s float64) string {
			if s < 0 {
				return "–"
			}
			return sim.FormatTime(des.FromSeconds(s))
		},
		"bytes":  scenario.FormatByteSize,
		"lower":  strings.ToLower,
		"anchor": anchor,
	}).Parse(pageTemplate))
})

// anchor makes an id for a heading of the page: "Checkpoint summary" is
// "checkpoint-summary".
func anchor(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	return b.String()
}

// pageData is what the template shows.
type pageData struct {
	Title       string
	Summary     *sim.Summary
	Dir         string
	Version     string
	Figures     []figure
	Extra       []section // summary.json sections this page does not know
	Checkpoints *table
	// CheckpointDetail is checkpoint_subtasks.csv's rows of the longest
	// completed checkpoint of Checkpoints (see longestCheckpoint); nil
	// without that file.
	CheckpointDetail *table
	DetailID         string
	Events           []plot.Event
	EventsMore       int
	Subtasks         bool
	Files            []string
}

type figure struct {
	Title   string
	Caption string
	SVG     template.HTML // inline <svg>
	Problem string        // why it could not be drawn
}

// section is a summary.json section the page does not know: its plain
// values as (name, value) rows, its lists of objects as tables, and the
// fields of those objects left out of the tables (lists of their own).
type section struct {
	Title   string
	Rows    [][2]string
	Tables  []namedTable
	Omitted []string
}

// namedTable is a table of a section, titled by the field it shows ("" for
// the section's own list).
type namedTable struct {
	Name string
	*table
}

type table struct {
	Header []string
	Rows   [][]cell
	More   int
}

// head is a column heading of a table: the column in words, which wrap
// at their spaces so that a wide table of CSV columns fits the page, and
// the column's name in the file (shown on hover).
type head struct {
	Text, Column string
	Left         bool
}

// headWords are the headings of CSV columns whose words alone would read
// badly; the others are their names without the unit (the cells show it)
// and with spaces for underscores.
var headWords = map[string]string{
	"checkpoint_id":          "checkpoint",
	"trigger_time_s":         "triggered at",
	"acknowledged_s":         "acknowledged at",
	"end_to_end_duration_ms": "end-to-end duration",
	"acknowledged_subtasks":  "acknowledged subtasks",
	"rate_limit_rps":         "rate limit (records/s)",
}

// columnWords returns the heading of a CSV column: "start_delay_max_ms"
// is "start delay (max)", "full_state_size_bytes" "full state size".
func columnWords(name string) string {
	if w, ok := headWords[name]; ok {
		return w
	}
	w := name
	for _, unit := range []string{"_ms", "_s", "_bytes", "_rps"} {
		if t, ok := strings.CutSuffix(w, unit); ok {
			w = t
			break
		}
	}
	words := strings.ReplaceAll(w, "_", " ")
	if t, ok := strings.CutSuffix(words, " max"); ok {
		words = t + " (max)"
	}
	return words
}

// Heads returns the headings of t, aligned as their columns are (left
// when a value in the column is text).
func (t *table) Heads() []head {
	hs := make([]head, len(t.Header))
	for i, name := range t.Header {
		hs[i].Text, hs[i].Column = columnWords(name), name
		for _, r := range t.Rows {
			if i < len(r) && r[i].Left {
				hs[i].Left = true
				break
			}
		}
	}
	return hs
}

// cell is one value of a table read from a CSV file, formatted for people
// by its column's unit (_s, _ms, _bytes); Title holds the value as the
// file has it when the text differs.
type cell struct {
	Text, Title string
	Left        bool // text, not a number
}

// Write builds one self-contained HTML page of a run (summary, diagnosis,
// figures inline as SVG, checkpoint table, event log; no external
// resources) and writes it to opts.Output. It needs the run's
// summary.json and timeseries.csv; events.jsonl and checkpoints.csv are
// shown when present. A figure that cannot be drawn (no data) is replaced
// by a note saying why.
func Write(opts Options) error {
	dir := opts.RunDir
	out := opts.Output
	if out == "" {
		out = DefaultReportFile
	}
	if err := runner.CheckNotInput([]string{out}, []string{dir}); err != nil {
		return err
	}
	if err := CheckPageName(out); err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s does not exist; name a run directory (dspalab run --out DIR)", dir)
		}
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory; name a run directory (dspalab run --out DIR)", dir)
	}
	rd, err := runfiles.OpenRunDir(os.DirFS(dir), filepath.Clean(dir))
	if err != nil {
		return err
	}
	sum, data, err := rd.ReadSummary()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s has no %s: is it the --out directory of dspalab run?", dir, runfiles.SummaryFile)
		}
		return err
	}
	if summaryEngine(data) != "" {
		return writeMicroBatch(opts, rd, data)
	}
	pd := &pageData{Title: opts.Title, Summary: sum, Dir: filepath.Clean(dir), Version: opts.Version}
	if pd.Title == "" {
		pd.Title = sum.Scenario
	}
	if pd.Extra, err = extraSections(data); err != nil {
		return fmt.Errorf("%s: reading %s: %w", dir, runfiles.SummaryFile, err)
	}
	subtasks := 0
	for _, v := range sum.Vertices {
		subtasks += v.Parallelism
	}
	pd.Subtasks = subtasks > len(sum.Vertices) && subtasks <= maxSubtaskFigure

	metrics := slices.Clone(plot.CDFMetrics)
	consumers := sum.ConsumersOnly() // no Flink job
	if consumers {
		metrics = slices.Clone(plot.DefaultConsumerMetrics)
	}
	for _, m := range append(slices.Clone(plot.DefaultMetrics), plot.DefaultHeatmapMetric) {
		if consumers {
			break
		}
		if !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	run, err := plot.ReadRunDir(rd, filepath.Base(pd.Dir), plot.TimeseriesFilter{Metrics: metrics})
	if err != nil {
		return err
	}
	pd.Events = run.Events
	if len(pd.Events) > maxEventRows {
		pd.EventsMore = len(pd.Events) - maxEventRows
		pd.Events = pd.Events[:maxEventRows]
	}
	var subRun *plot.Run
	// skew (a hot key) shows in busy time per subtask, not in
	// back-pressure: the hot subtask is busy and not back-pressured
	skew := sum.Diagnosis.Kind == sim.DiagnosisSkew
	if pd.Subtasks || skew {
		subMetrics := []string{plot.DefaultHeatmapMetric}
		if skew {
			subMetrics = append(subMetrics, busyMetric)
		}
		if subRun, err = plot.ReadRunDir(rd, filepath.Base(pd.Dir), plot.TimeseriesFilter{Metrics: subMetrics, Subtasks: true, Optional: []string{plot.DownMetric}}); err != nil {
			return err
		}
	}
	if consumers {
		f, err := plot.TimeSeries([]*plot.Run{run}, plot.TimeSeriesOptions{Metrics: plot.DefaultConsumerMetrics})
		pd.Figures = []figure{drawn("Consumption, lag and duplicates over time",
			"Per consumer group: records per second consumed, the group's lag (records written to its partitions and not yet consumed; it grows while a failed member still holds partitions) and the records processed again after a rebalance. Grey: the warmup, left out of the statistics.",
			f, err)}
	} else {
		pd.Figures = figures(run, subRun, pd.Subtasks, skew, sum.Diagnosis.Vertex)
	}
	if pd.Checkpoints, err = checkpointTable(rd, run); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if pd.Checkpoints != nil {
		if pd.DetailID = longestCheckpoint(pd.Checkpoints); pd.DetailID != "" {
			if pd.CheckpointDetail, err = subtaskTable(rd, pd.DetailID); err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
		}
	}
	for _, f := range []string{runfiles.SummaryFile, runfiles.TimeseriesFile, runfiles.EventsFile, runfiles.CheckpointsFile, runfiles.CheckpointSubtasksFile} {
		if rd.Has(f) {
			pd.Files = append(pd.Files, f)
		}
	}

	return writePage(opts, page(), "report", pd)
}

// busyMetric is the column of busy time, drawn per subtask for skew.
const busyMetric = "busy_ms_per_s"

// figures draws the page's figures; one that fails gets its reason. The
// back-pressure heatmap is per subtask when perSubtask is set (subRun
// holds the subtasks' rows); skew adds a heatmap of the busy time of the
// subtasks of vertex, where a hot key shows as one busy row.
func figures(run, subRun *plot.Run, perSubtask, skew bool, vertex string) []figure {
	runs := []*plot.Run{run}
	var figs []figure
	add := func(title, caption string, f *plot.Figure, err error) {
		figs = append(figs, drawn(title, caption, f, err))
	}
	f, err := plot.TimeSeries(runs, plot.TimeSeriesOptions{})
	add("Throughput, back-pressure and latency over time",
		"Per vertex: records per second in, back-pressured milliseconds per second (Flink's backPressuredTimeMsPerSecond) and the 99th percentile of end-to-end latency. Grey: the warmup, left out of the statistics.",
		f, err)
	heatRuns, caption := runs, "Back-pressured time of each vertex over time: green OK (at most 100 ms/s), yellow to orange LOW (at most 500), red HIGH, as Flink's web UI rates it."
	if perSubtask {
		heatRuns, caption = []*plot.Run{subRun}, "Back-pressured time of each subtask over time: green OK (at most 100 ms/s), yellow to orange LOW (at most 500), red HIGH, as Flink's web UI rates it."
	}
	f, err = plot.Heatmap(heatRuns, plot.HeatmapOptions{Subtasks: perSubtask})
	add("Back-pressure heatmap", caption, f, err)
	if skew && subRun != nil {
		var vs []string
		if vertex != "" {
			vs = []string{vertex}
		}
		f, err = plot.Heatmap([]*plot.Run{subRun}, plot.HeatmapOptions{Metric: busyMetric, Vertices: vs, Subtasks: true})
		add("Busy time per subtask: the skew",
			"Busy milliseconds per second of each subtask of "+vertex+" over time: a hot key keeps one subtask busy (dark) while its siblings idle, and it back-pressures the sources without being back-pressured itself, so the back-pressure heatmap above cannot show it. Draw it with: dspalab plot DIR --heatmap --subtasks -m busy_ms_per_s --vertex "+vertex+".",
			f, err)
	}
	f, err = plot.LatencyCDF(runs, plot.CDFOptions{})
	add("Latency distribution at the sinks",
		"Fraction of records whose end-to-end latency was at most x, after the warmup, estimated from each interval's percentiles; the crosses are the percentiles of summary.json.",
		f, err)
	return figs
}

var svgHead = regexp.MustCompile(`(?s)^.*?<svg `)

// inlineSVG prepares gonum's SVG document for an HTML page: no XML
// prolog, and a class that lets it shrink with the page.
func inlineSVG(doc string) string {
	return svgHead.ReplaceAllString(doc, `<svg class="figure" `)
}

// knownSections are the fields of summary.json that the page shows in its
// own way; any other top-level field (added as the simulator grows) is
// shown as a table of its own.
var knownSections = []string{"scenario", "description", "seed", "duration_s", "warmup_s", "simulated_s",
	"partial", "partial_reason", "window", "totals", "vertices", "diagnosis", "checkpoints", "delivery", "recovery"}

// extraSections returns the unknown top-level fields of summary.json as
// sections of the page, in the file's order: a list of objects (the tasks,
// a topic's partitions) as a table, a row each, its columns the objects'
// plain fields in their order (a field that is itself a list, such as a
// task's subtasks, stays in summary.json: the section says so); an object
// as rows of its plain fields (nested objects flattened to dotted names)
// and a table for each list of objects in it. Values are formatted by the
// unit in their names as the page's other tables are (cells), ratios as
// percentages, and other numbers to 4 significant digits (hover shows the
// value in the file).
func extraSections(data []byte) ([]section, error) {
	top, err := decodeOrdered(data)
	if err != nil {
		return nil, err
	}
	obj, ok := top.(orderedObject)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []section
	for _, f := range obj {
		if slices.Contains(knownSections, f.key) {
			continue
		}
		s := section{Title: titleWords(f.key)}
		switch v := f.value.(type) {
		case []any:
			if t := objectTable(v, &s); t != nil {
				s.Tables = append(s.Tables, namedTable{table: t})
			} else {
				flattenJSON("", v, &s.Rows)
			}
			if f.key == "consumer_groups" {
				// a group's rebalances are what its failure did: a
				// table each (its members and partitions stay in
				// summary.json)
				for _, e := range v {
					g, _ := e.(orderedObject)
					name, _ := g.get("name").(string)
					if l, ok := g.get("rebalances").([]any); ok {
						var rs section
						if t := objectTable(l, &rs); t != nil {
							s.Tables = append(s.Tables, namedTable{Name: "Rebalances of " + name, table: t})
							s.Omitted = slices.DeleteFunc(s.Omitted, func(k string) bool { return k == "rebalances" })
						}
					}
				}
			}
		case orderedObject:
			for _, g := range v {
				if l, ok := g.value.([]any); ok {
					if t := objectTable(l, &s); t != nil {
						s.Tables = append(s.Tables, namedTable{Name: titleWords(g.key), table: t})
						continue
					}
				}
				flattenJSON(g.key, g.value, &s.Rows)
			}
		default:
			flattenJSON(f.key, v, &s.Rows)
		}
		if len(s.Rows) > 0 || len(s.Tables) > 0 {
			out = append(out, s)
		}
	}
	return out, nil
}

// titleWords is a summary.json field's name as a section title:
// "event_time" is "Event time".
func titleWords(key string) string {
	w := strings.ReplaceAll(key, "_", " ")
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// objectTable returns the list l of objects as a table (nil when l is
// empty or holds anything but objects): a column for each plain field
// of its objects, in the order they first come, a row for each object (at
// most maxExtraRows; More counts the rest). The names of the fields that
// are lists or objects, left out, go into s.Omitted.
func objectTable(l []any, s *section) *table {
	if len(l) == 0 {
		return nil
	}
	var header []string
	for _, e := range l {
		o, ok := e.(orderedObject)
		if !ok {
			return nil
		}
		for _, f := range o {
			switch v := f.value.(type) {
			case []any, orderedObject:
				if l, ok := v.([]any); ok && plainList(l) {
					if !slices.Contains(header, f.key) {
						header = append(header, f.key)
					}
					continue
				}
				if !slices.Contains(s.Omitted, f.key) {
					s.Omitted = append(s.Omitted, f.key)
				}
			default:
				if !slices.Contains(header, f.key) {
					header = append(header, f.key)
				}
			}
		}
	}
	t := &table{Header: header}
	for _, e := range l {
		if len(t.Rows) == maxExtraRows {
			t.More++
			continue
		}
		rec := make([]string, len(header))
		for _, f := range e.(orderedObject) {
			if i := slices.Index(header, f.key); i >= 0 {
				rec[i] = jsonText(f.value)
			}
		}
		t.Rows = append(t.Rows, extraCells(header, rec))
	}
	return t
}

// maxExtraRows is the most rows a table of an unknown section shows.
const maxExtraRows = 500

// jsonText is a plain JSON value as text ("" for null); a list of plain
// values (plainList) is its values joined by ", ".
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	if l, ok := v.([]any); ok {
		parts := make([]string, len(l))
		for i, x := range l {
			parts[i] = jsonText(x)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// plainList reports whether l holds only plain values (numbers, strings,
// booleans, nulls), which a table's cell can show joined.
func plainList(l []any) bool {
	for _, x := range l {
		switch x.(type) {
		case []any, orderedObject:
			return false
		}
	}
	return true
}

// extraCells formats a row of an unknown section's table: as cells does,
// and a _ratio as a percentage, a _rps as a rate, any other number to 4
// significant digits.
func extraCells(header, rec []string) []cell {
	row := cells(header, rec)
	for i, c := range row {
		if c.Left || c.Title != "" || i >= len(header) {
			continue
		}
		x, err := strconv.ParseFloat(rec[i], 64)
		if err != nil {
			continue
		}
		switch name := header[i]; {
		case strings.Contains(name, "_ratio"): // busy_ratio, busy_ratio_mean
			c.Text = strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
		case strings.HasSuffix(name, "_rps"):
			c.Text = formatRate(x) + "/s"
		case x == math.Trunc(x) && math.Abs(x) < 1e15:
			c.Text = rec[i] // a count: an integer as it is, 80045 (not 8.004e+04)
		default:
			c.Text = strconv.FormatFloat(x, 'g', 4, 64)
		}
		if c.Text != rec[i] {
			c.Title = rec[i]
		}
		row[i] = c
	}
	return row
}

// flattenJSON appends the leaves of v as (dotted name, value) rows, each
// value formatted as extraCells formats it, at most maxExtraRows.
func flattenJSON(prefix string, v any, rows *[][2]string) {
	if len(*rows) >= maxExtraRows {
		return
	}
	switch x := v.(type) {
	case orderedObject:
		for _, f := range x {
			flattenJSON(joinName(prefix, f.key), f.value, rows)
		}
	case []any:
		for i, e := range x {
			name := strconv.Itoa(i)
			if _, ok := e.(string); ok {
				name = "" // a list of lines (messages): each under the list's name
			}
			if m, ok := e.(orderedObject); ok {
				if n, ok := m.get("name").(string); ok {
					name = n
				} else if id := m.get("id"); id != nil {
					name = fmt.Sprint(id)
				}
			}
			flattenJSON(joinName(prefix, name), e, rows)
		}
	case nil:
		*rows = append(*rows, [2]string{prefix, "–"})
	default:
		leaf := prefix[strings.LastIndexByte(prefix, '.')+1:]
		*rows = append(*rows, [2]string{prefix, extraCells([]string{leaf}, []string{fmt.Sprint(x)})[0].Text})
	}
}

func joinName(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "." + b
}

// orderedObject is a JSON object with its fields in the file's order.
type orderedObject []jsonField

type jsonField struct {
	key   string
	value any
}

// get returns the value of field key, nil when o has none.
func (o orderedObject) get(key string) any {
	for _, f := range o {
		if f.key == key {
			return f.value
		}
	}
	return nil
}

// decodeOrdered decodes one JSON value, its objects as orderedObjects and
// its numbers as json.Number.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var value func() (any, error)
	value = func() (any, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch d := tok.(type) {
		case json.Delim:
			if d == '[' {
				var l []any
				for dec.More() {
					v, err := value()
					if err != nil {
						return nil, err
					}
					l = append(l, v)
				}
				_, err := dec.Token() // ]
				return l, err
			}
			var o orderedObject
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := value()
				if err != nil {
					return nil, err
				}
				o = append(o, jsonField{fmt.Sprint(k), v})
			}
			_, err := dec.Token() // }
			return o, err
		}
		return tok, nil
	}
	return value()
}

// checkpointTable returns checkpoints.csv as a table (its first
// maxCheckpointRows rows, read a row at a time), or, without it, the
// checkpoints found in the events; nil when there are none.
func checkpointTable(rd *runfiles.RunDir, run *plot.Run) (*table, error) {
	if rd.Has(runfiles.CheckpointsFile) {
		return csvTable(rd, runfiles.CheckpointsFile, maxCheckpointRows, func(h, rec []string) []cell { return unmeasured(h, rec, cells(h, rec)) })
	}
	if len(run.Checkpoints) == 0 {
		return nil, nil
	}
	t := &table{Header: []string{"id", "triggered", "ended", "duration", "status"}}
	for _, c := range run.Checkpoints {
		if len(t.Rows) == maxCheckpointRows {
			t.More++
			continue
		}
		t.Rows = append(t.Rows, []cell{{Text: c.ID}, {Text: sim.FormatTime(des.FromSeconds(c.Start))}, {Text: sim.FormatTime(des.FromSeconds(c.End))},
			{Text: sim.FormatTime(des.FromSeconds(c.End - c.Start))}, {Text: c.Status, Left: true}})
	}
	return t, nil
}

// checkpointMeasures are the columns of checkpoints.csv that a
// checkpoint measures only when it completes: in the file, a checkpoint
// that failed or timed out has there the maxima over the subtasks that
// had acknowledged it (as Flink's failed checkpoint statistics), which
// are no figure of the checkpoint.
var checkpointMeasures = []string{"start_delay_max_ms", "alignment_max_ms", "sync_max_ms", "async_max_ms",
	"checkpointed_size_bytes", "full_state_size_bytes", "persisted_in_flight_bytes"}

// unmeasured shows "–" in row, a checkpoint that did not complete, for
// what it never measured (checkpointMeasures), and keeps the file's
// value and what it covers in the cell's title.
func unmeasured(header, rec []string, row []cell) []cell {
	col := func(name string) string {
		if i := slices.Index(header, name); i >= 0 && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	status := col("status")
	if status == "" || status == "completed" {
		return row
	}
	acked, of := col("acknowledged_subtasks"), col("subtasks")
	for _, name := range checkpointMeasures {
		if i := slices.Index(header, name); i >= 0 && i < len(row) {
			row[i] = cell{Text: "–", Title: fmt.Sprintf("not measured: checkpoint %s (the file has %s, the longest or largest over the %s of %s subtasks that had acknowledged)", strings.ReplaceAll(status, "_", " "), rec[i], acked, of)}
		}
	}
	return row
}

// cells formats one CSV row by the units in its header's names: _s
// simulated seconds, _ms milliseconds, _bytes bytes, with their unit
// when 0 too; an empty cell (no failure reason) is "–"; a column that is
// not a number (status, vertex, failure_reason) is text.
func cells(header, rec []string) []cell {
	row := make([]cell, len(rec))
	for i, v := range rec {
		c := cell{Text: v}
		name := ""
		if i < len(header) {
			name = header[i]
		}
		x, err := strconv.ParseFloat(v, 64)
		switch {
		case v == "":
			c.Text, c.Left = "–", true
		case err != nil:
			c.Left = true
		case strings.HasSuffix(name, "_bytes"):
			c.Text = scenario.FormatByteSize(int64(x))
		case strings.HasSuffix(name, "_ms"):
			c.Text = formatMs(x)
		case strings.HasSuffix(name, "_s"):
			c.Text = sim.FormatTime(des.FromSeconds(x))
		}
		if c.Text != v {
			c.Title = v
		}
		row[i] = c
	}
	return row
}

// longestCheckpoint returns the id of the completed checkpoint of t with
// the longest end-to-end duration, or of the longest of all when none
// completed ("" when t has no such columns). A failed checkpoint has rows
// only for the subtasks that acknowledged it, so a completed one shows
// more.
func longestCheckpoint(t *table) string {
	id, dur, status := slices.Index(t.Header, "checkpoint_id"), slices.Index(t.Header, "end_to_end_duration_ms"), slices.Index(t.Header, "status")
	if id < 0 || dur < 0 {
		return ""
	}
	best, longest, bestDone := "", -1.0, false
	for _, r := range t.Rows {
		v := r[dur].Title
		if v == "" {
			v = r[dur].Text
		}
		d, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		done := status >= 0 && r[status].Text == sim.CheckpointCompleted
		if (done && !bestDone) || (done == bestDone && d > longest) {
			best, longest, bestDone = r[id].Text, d, done
		}
	}
	return best
}

// subtaskTable returns the rows of checkpoint_subtasks.csv for checkpoint
// id, read a row at a time (the file has a row per subtask and
// checkpoint); nil without the file.
func subtaskTable(rd *runfiles.RunDir, id string) (*table, error) {
	f, err := rd.Open(runfiles.CheckpointSubtasksFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name := rd.Name(runfiles.CheckpointSubtasksFile)
	t := &table{}
	col := -1
	header, err := runfiles.ReadTable(f, name, func(h, rec []string, _ int) error {
		if col < 0 {
			if col = slices.Index(h, "checkpoint_id"); col < 0 {
				return fmt.Errorf("reading %s: no checkpoint_id column", name)
			}
		}
		if col >= len(rec) || rec[col] != id {
			return nil
		}
		if len(t.Rows) == maxCheckpointRows {
			t.More++
			return nil
		}
		t.Rows = append(t.Rows, cells(h, rec))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if slices.Index(header, "checkpoint_id") < 0 {
		return nil, fmt.Errorf("reading %s: no checkpoint_id column", name)
	}
	t.Header = header
	return t, nil
}

func formatRate(r float64) string {
	switch {
	case math.IsNaN(r):
		return "–"
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'f', 1, 64)
}

// formatLatency writes a latency of the summary (ms; nil when no record
// left the vertex) as the table of dspalab run does (sim.FormatLatency):
// "77.8ms", "5.08s".
func formatLatency(ms *float64) string {
	if ms == nil {
		return "–"
	}
	return sim.FormatLatency(*ms)
}

// formatMs writes a duration in milliseconds (a restart delay, a
// checkpoint's duration, a sojourn) as dspalab run writes durations
// (sim.FormatTime): "2s", "48.827ms".
func formatMs(ms float64) string {
	if math.IsNaN(ms) {
		return "–"
	}
	return sim.FormatTime(des.FromSeconds(ms / 1000))
}
