package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/viz/plot"
)

// The run directories of viz/plot's tests: run-a has checkpoint, failure
// and recovery events; run-b a checkpoints.csv and two enrich subtasks.
const fixtures = "../../viz/plot/testdata"

// copyRun copies a fixture run directory into a temporary one.
func copyRun(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(fixtures, name, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReport(t *testing.T) {
	dir := copyRun(t, "run-a")
	// a description that must be escaped, and a section of summary.json
	// that the page does not know (as the simulator grows)
	var sum map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	sum["description"] = "a <b>bold</b> claim & more"
	sum["watermarks"] = map[string]any{"late": 2, "dropped": 1, "lag_ms": map[string]any{"p50": 1500}}
	data, _ = json.Marshal(sum)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "sub")
	if err := Write(Options{RunDir: dir, Output: filepath.Join(missing, "report.html")}); err == nil || err.Error() != "writing "+filepath.Join(missing, "report.html")+": directory "+missing+" does not exist" {
		t.Errorf("report into a missing directory: %v", err)
	}
	out := filepath.Join(t.TempDir(), "report.html")
	var stderr bytes.Buffer
	if err := Write(Options{RunDir: dir, Output: out, Version: "v9", Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	if stderr.String() != "wrote "+out+"\n" {
		t.Errorf("stderr %q", stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"<!DOCTYPE html>", "<title>backpressure: dspalab run report</title>",
		"a &lt;b&gt;bold&lt;/b&gt; claim &amp; more",
		"bottleneck: enrich (busy 100%, not back-pressured) holds back parse and sensors",
		`<span class="status high">HIGH</span>`,
		`<h2 id="watermarks">Watermarks<a class="self" href="#watermarks">#</a></h2>`, "<code>lag_ms.p50</code>",
		"Throughput, back-pressure and latency over time", "Back-pressure heatmap", "Latency distribution at the sinks",
		`<h2 id="checkpoints">Checkpoints<a class="self" href="#checkpoints">#</a></h2>`, `<td>14s</td><td>17.2s</td><td>3.2s</td><td class="l">failed</td>`,
		"<code>recovery_completed</code>", "restored checkpoint 1; sources rewound",
		"Made by dspalab v9",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<svg class="figure"`); n != 3 {
		t.Errorf("%d inline figures, want 3", n)
	}
	// self-contained: nothing is loaded from elsewhere
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script`), regexp.MustCompile(`<link`), regexp.MustCompile(`<img`),
		regexp.MustCompile(`\ssrc=`), regexp.MustCompile(`url\(`), regexp.MustCompile(`<\?xml`),
		regexp.MustCompile(`href="http`),
	} {
		if loc := bad.FindStringIndex(page); loc != nil {
			t.Errorf("the page has %q: %.80s", bad, page[loc[0]:])
		}
	}
	// the same run gives the same page
	out2 := filepath.Join(t.TempDir(), "again.html")
	if err := Write(Options{RunDir: dir, Output: out2, Version: "v9"}); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(out2); !bytes.Equal(b, b2) {
		t.Error("the same run gave two different pages")
	}
}

func TestReportCheckpointsCSVAndSubtasks(t *testing.T) {
	dir := copyRun(t, "run-b")
	out := filepath.Join(t.TempDir(), "r.html")
	if err := Write(Options{RunDir: dir, Output: out}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	page := string(b)
	for _, want := range []string{`<th title="trigger_time_s in the CSV file">triggered at</th>`, `<td title="2500">2.5s</td>`, `<td title="2048">2KiB</td>`, "enrich[1]", "Back-pressured time of each subtask"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestReportNoData: a run whose time series is empty still gets a page,
// with notes where the figures would be.
func TestReportNoData(t *testing.T) {
	dir := copyRun(t, "run-a")
	if err := os.WriteFile(filepath.Join(dir, "timeseries.csv"), []byte("time_s,vertex,kind,subtask,in_rate_rps,out_rate_rps,busy_ms_per_s,backpressured_ms_per_s,latency_p50_ms,latency_p90_ms,latency_p99_ms,latency_max_ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "events.jsonl"))
	out := filepath.Join(t.TempDir(), "r.html")
	if err := Write(Options{RunDir: dir, Output: out}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), "Not drawn: no data to plot"); n != 3 {
		t.Errorf("%d notes, want 3:\n%s", n, b)
	}
	if !strings.Contains(string(b), "No events.jsonl") {
		t.Error("no note on the missing event log")
	}
	err := Write(Options{RunDir: t.TempDir(), Output: out})
	if err == nil || !strings.Contains(err.Error(), "has no summary.json: is it the --out directory of dspalab run?") {
		t.Errorf("a directory that is not a run: %v", err)
	}
}

func TestPlot(t *testing.T) {
	a := filepath.Join(fixtures, "run-a")
	tmp := t.TempDir()
	for name, opts := range map[string]PlotOptions{
		"timeseries.png": {Inputs: []string{a}},
		"overlay.svg":    {Inputs: []string{a, filepath.Join(fixtures, "run-b")}, Metrics: []string{"busy_ms_per_s"}, Vertices: []string{"enrich"}},
		"cdf.pdf":        {Inputs: []string{a}, CDF: true},
		"heat.svg":       {Inputs: []string{a}, Heatmap: true, Subtasks: true},
		"busyheat.svg":   {Inputs: []string{a}, Heatmap: true, Metrics: []string{"busy_ms_per_s"}},
		"sweep.png":      {Inputs: []string{filepath.Join(fixtures, "sweep.csv")}, X: "rate", Y: []string{"departures.latency_p99_ms"}},
	} {
		opts.Output = filepath.Join(tmp, name)
		var stderr bytes.Buffer
		opts.Stderr = &stderr
		if err := Plot(opts); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi, err := os.Stat(opts.Output); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v, %v", name, fi, err)
		}
		if stderr.String() != "wrote "+opts.Output+"\n" {
			t.Errorf("%s: stderr %q", name, stderr.String())
		}
	}
	// a sweep's directory is found by its sweep.csv
	sw := t.TempDir()
	data, _ := os.ReadFile(filepath.Join(fixtures, "sweep.csv"))
	os.WriteFile(filepath.Join(sw, "sweep.csv"), data, 0o644)
	if err := Plot(PlotOptions{Inputs: []string{sw}, X: "rate", Y: []string{"simulated_s"}, Output: filepath.Join(tmp, "s.svg")}); err != nil {
		t.Errorf("a sweep directory: %v", err)
	}
}

func TestPlotErrors(t *testing.T) {
	a := filepath.Join(fixtures, "run-a")
	s := filepath.Join(fixtures, "sweep.csv")
	out := filepath.Join(t.TempDir(), "p.png")
	for name, c := range map[string]struct {
		opts   PlotOptions
		want   string
		option bool
	}{
		"unknown metric": {PlotOptions{Inputs: []string{a}, Metrics: []string{"latency"}}, `unknown metric "latency"`, true},
		"unknown vertex": {PlotOptions{Inputs: []string{a}, Vertices: []string{"x"}}, `unknown vertex "x" in ` + a + "; vertices: sensors, parse, enrich, out", true},
		"format":         {PlotOptions{Inputs: []string{a}, Output: "p.jpg"}, "cannot write .jpg figures", true},
		"x on runs":      {PlotOptions{Inputs: []string{a}, X: "rate"}, "-x and -y are for a sweep", true},
		"cdf and heat":   {PlotOptions{Inputs: []string{a}, CDF: true, Heatmap: true}, "choose one", true},
		"m on sweep":     {PlotOptions{Inputs: []string{s}, Metrics: []string{"x"}}, "a sweep is plotted with -x", true},
		"no y":           {PlotOptions{Inputs: []string{s}, X: "rate"}, "name one with -y", true},
		"missing":        {PlotOptions{Inputs: []string{"nope"}}, "nope does not exist", false},
		"timeseries.csv": {PlotOptions{Inputs: []string{filepath.Join(a, "timeseries.csv")}}, "name its directory", false},
		"not a run":      {PlotOptions{Inputs: []string{t.TempDir()}}, "has no timeseries.csv", false},
		"summary.json": {PlotOptions{Inputs: []string{filepath.Join(a, "summary.json")}},
			filepath.Join(a, "summary.json") + ": expected a run directory (with timeseries.csv) or a sweep.csv; did you mean its directory, " + a + "?", false},
		"a text file": {PlotOptions{Inputs: []string{filepath.Join(a, "events.txt")}}, "", false},
		"no directory": {PlotOptions{Inputs: []string{a}, Output: filepath.Join(out, "x", "p.png")},
			"writing " + filepath.Join(out, "x", "p.png") + ": directory " + filepath.Join(out, "x") + " does not exist", false},
	} {
		if name == "a text file" {
			// any file but a run's or a CSV
			f := filepath.Join(t.TempDir(), "notes.txt")
			os.WriteFile(f, []byte("x"), 0o644)
			c.opts.Inputs = []string{f}
			c.want = f + ": expected a run directory (with timeseries.csv) or a sweep.csv"
		}
		if c.opts.Output == "" {
			c.opts.Output = out
		}
		err := Plot(c.opts)
		var oe *runner.OptionError
		switch {
		case err == nil:
			t.Errorf("%s: no error", name)
		case !strings.Contains(err.Error(), c.want),
			(strings.Contains(name, "json") || name == "a text file" || name == "no directory") && err.Error() != c.want:
			t.Errorf("%s: %v, want %q", name, err, c.want)
		case errors.As(err, &oe) != c.option:
			t.Errorf("%s: usage error %v, want %v", name, !c.option, c.option)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed plot wrote its file")
	}
	var nd *plot.NoDataError
	if err := Plot(PlotOptions{Inputs: []string{a}, Metrics: []string{"latency_p99_ms"}, Vertices: []string{"sensors"}, Output: out}); !errors.As(err, &nd) {
		t.Errorf("no data: %v", err)
	}
}

// TestPlotDedupe: a run directory named twice (by different paths) is
// drawn once, with a note.
func TestPlotDedupe(t *testing.T) {
	a := filepath.Join(fixtures, "run-a")
	abs, _ := filepath.Abs(a)
	out := filepath.Join(t.TempDir(), "p.svg")
	var stderr bytes.Buffer
	if err := Plot(PlotOptions{Inputs: []string{a, abs + string(filepath.Separator)}, Output: out, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	want := "note: " + abs + string(filepath.Separator) + " is " + a + " again; drawing it once\nwrote " + out + "\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	b, _ := os.ReadFile(out)
	if bytes.Contains(b, []byte(": sensors")) {
		t.Error("the run was overlaid on itself")
	}
}

// TestReportFaultTolerance reports a simulated run with aligned
// checkpoints, a transactional sink and a worker failure: the delivery and
// recovery sections, the checkpoint summary, the checkpoint columns of
// sizes and persisted data, and the subtasks of the longest checkpoint.
func TestReportFaultTolerance(t *testing.T) {
	dir := t.TempDir()
	yaml := filepath.Join(dir, "ft.yaml")
	if err := os.WriteFile(yaml, []byte(`name: ft
duration: 40s
workers: {count: 2, slots: 1, heartbeat_timeout: 5s}
sources:
  - {name: events, parallelism: 2, arrival: {process: constant, rate: 100/s}, keys: {count: 100}}
operators:
  - {name: count, input: events, partitioning: hash, parallelism: 2, service_time: {mean: 2ms}, state: {bytes_per_key: 1KiB}}
sinks:
  - {name: out, input: count, delivery: transactional}
checkpoint: {mode: aligned, interval: 5s}
restart: {type: fixed-delay, delay: 2s}
failures:
  - {kind: worker, at: 12s, worker: 1}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	page := runPage(t, yaml)
	for _, want := range []string{
		`<h2 id="delivery">Delivery<a class="self" href="#delivery">#</a></h2>`, "<b>Exactly once so far:</b> no record lost, none duplicated.",
		`<td class="l"><b>out</b></td><td class="l">transactional</td>`,
		`<h2 id="recovery">Recovery<a class="self" href="#recovery">#</a></h2>`, "job <b>running</b> at the end", "failures <b>1</b>",
		// every write, as the table's records line: the Delivery table's delivered counts each record once
		"</b> reached the sinks (every write, replays included), ",
		`<td class="msg cause">worker 1 lost: no heartbeat for 5s</td><td>12s</td><td>17s</td><td>2s</td><td>19s</td>`,
		// the sinks' future duplicates, not the delivery line's "to replay" (records left in a log)
		`<th>lost</th><th>delivered, to be replayed</th></tr></thead>`,
		`<h2 id="checkpoint-summary">Checkpoint summary<a class="self" href="#checkpoint-summary">#</a></h2>`, "mode <b>aligned</b>",
		`<th title="full_state_size_bytes in the CSV file">full state size</th>`, `<th title="persisted_in_flight_bytes in the CSV file">persisted in flight</th>`,
		`<td title="102400">100KiB</td>`, `<td class="l">the job failed over</td>`,
		"the longest to complete (checkpoint_subtasks.csv)", `<th title="checkpointed_size_bytes in the CSV file">checkpointed size</th>`, `<td class="l">count</td>`,
		"checkpoint_subtasks.csv).",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{">delivery<a", ">recovery<a", ">checkpoints<a"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page shows %q as an unknown section too", bad)
		}
	}
}

// A checkpoint that failed shows "–" for what it never measured, with the
// file's value in the title; zeros keep their unit; an empty failure
// reason is "–".
func TestCheckpointCells(t *testing.T) {
	header := strings.Split("checkpoint_id,trigger_time_s,status,end_to_end_duration_ms,start_delay_max_ms,alignment_max_ms,sync_max_ms,async_max_ms,checkpointed_size_bytes,full_state_size_bytes,persisted_in_flight_bytes,unaligned,acknowledged_subtasks,subtasks,failure_reason", ",")
	text := func(line string) string {
		rec := strings.Split(line, ",")
		row := unmeasured(header, rec, cells(header, rec))
		var s []string
		for _, c := range row {
			s = append(s, c.Text)
		}
		return strings.Join(s, " | ")
	}
	for line, want := range map[string]string{
		"5,50,failed,5000,0,0,0,0,0,0,0,false,1,6,the job failed over":            "5 | 50s | failed | 5s | – | – | – | – | – | – | – | false | 1 | 6 | the job failed over",
		"3,30,completed,54.452,39.456,0,0.015,14.98,1024000,1024000,0,false,6,6,": "3 | 30s | completed | 54.452ms | 39.456ms | 0s | 15µs | 14.98ms | 1000KiB | 1000KiB | 0B | false | 6 | 6 | –",
		"2,20,timed_out,600000,12,3,0.5,10,2048,2048,0,false,3,5,":                "2 | 20s | timed_out | 600s | – | – | – | – | – | – | – | false | 3 | 5 | –",
	} {
		if got := text(line); got != want {
			t.Errorf("%s:\n got  %s\n want %s", line, got, want)
		}
	}
	rec := strings.Split("5,50,failed,5000,0,0,0,0,0,0,0,false,1,6,the job failed over", ",")
	if c := unmeasured(header, rec, cells(header, rec))[5]; c.Title != "not measured: checkpoint failed (the file has 0, the longest or largest over the 1 of 6 subtasks that had acknowledged)" {
		t.Errorf("title %q", c.Title)
	}
}

// The sections of summary.json the page does not know by name (the tasks,
// event time) are tables in the file's order, their values formatted by
// their units: ratios as percentages, rates per second, seconds and
// milliseconds as durations, other numbers to 4 significant digits; lists
// of messages are rows under the list's name.
func TestReportExtraSectionsAsTables(t *testing.T) {
	data := []byte(`{"scenario": "x", "tasks": [
  {"name": "src", "kind": "source", "parallelism": 1, "in_rate_rps": 0, "out_rate_rps": 898.25, "busy_ratio": 0.1234, "subtasks": [{"busy_ratio": 0.1}]},
  {"name": "count", "kind": "operator", "parallelism": 2, "in_rate_rps": 17.81, "out_rate_rps": 0, "busy_ratio": 1}],
 "event_time": {"diagnosis": ["first line", "second line"], "vertices": [{"name": "count", "watermark_lag_s": 12.3151, "firing_delay_p50_ms": 6336.196969, "records_per_window_mean": 49.81234, "num_late_records_dropped": 80045}]}}`)
	secs, err := extraSections(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 2 || secs[0].Title != "Tasks" || secs[1].Title != "Event time" {
		t.Fatalf("sections %+v", secs)
	}
	tasks := secs[0]
	if len(tasks.Tables) != 1 || !slices.Equal(tasks.Tables[0].Header, []string{"name", "kind", "parallelism", "in_rate_rps", "out_rate_rps", "busy_ratio"}) ||
		!slices.Equal(tasks.Omitted, []string{"subtasks"}) {
		t.Fatalf("tasks: %+v", tasks)
	}
	var got []string
	for _, r := range tasks.Tables[0].Rows {
		for _, c := range r {
			got = append(got, c.Text)
		}
	}
	want := []string{"src", "source", "1", "0.0/s", "898/s", "12.3%", "count", "operator", "2", "17.8/s", "0.0/s", "100.0%"}
	if !slices.Equal(got, want) {
		t.Errorf("tasks cells %q, want %q", got, want)
	}
	et := secs[1]
	if !slices.Equal(et.Rows, [][2]string{{"diagnosis", "first line"}, {"diagnosis", "second line"}}) {
		t.Errorf("event time rows %q", et.Rows)
	}
	got = nil
	for _, c := range et.Tables[0].Rows[0] {
		got = append(got, c.Text)
	}
	if et.Tables[0].Name != "Vertices" || !slices.Equal(got, []string{"count", "12.315s", "6.336s", "49.81", "80045"}) { // a count as it is, not 8.004e+04
		t.Errorf("event time table %q: %q", et.Tables[0].Name, got)
	}
}

// Records that retention deleted before they were read never reach a
// sink: the page does not call retention-loss's delivery exactly once
// (no failure lost one, but 80045 were deleted unread), and the Topics
// table shows the counts as integers.
func TestReportRetentionLossIsNotExactlyOnce(t *testing.T) {
	page := runPage(t, "retention-loss")
	for _, want := range []string{
		"<b>Not every record arrived:</b> none lost in a failure, none duplicated, but 80045 lost to topic retention",
		"<td>80045</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "Exactly once so far") || strings.Contains(page, "e+04") {
		t.Error("the page calls the delivery exactly once, or prints a count in scientific notation")
	}
}

// runPage runs scenario (a built-in's name or a file) into a temporary
// directory and returns the report page of that run.
func runPage(t *testing.T, scenario string) string {
	t.Helper()
	dir := t.TempDir()
	run := filepath.Join(dir, "out")
	if err := runner.Run(context.Background(), runner.Options{Scenario: scenario, OutDir: run}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	if err := Write(Options{RunDir: run, Output: out, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run without a Flink job (consumer-group-rebalance: producers and a
// consumer group) has no Recovery section saying "failures 0" beside the
// consumer's failure; the diagnosis says what failed. Its one figure is
// the group's consumption, lag and duplicates, not a job's back-pressure
// and latency (which a consumer group has no values of).
func TestReportConsumerGroupHasNoJobRecovery(t *testing.T) {
	page := runPage(t, "consumer-group-rebalance")
	if strings.Contains(page, `id="recovery"`) || !strings.Contains(page, "consumer billing-1 of group billing failed at 33s") ||
		strings.Contains(page, "emitted, <b>") || !strings.Contains(page, "No Flink job: producers and consumer groups only") {
		t.Error("the page of a run without a Flink job shows a job's recovery, or not the consumer's failure")
	}
	if !strings.Contains(page, "Consumption, lag and duplicates over time") || !strings.Contains(page, ">consumer lag<") ||
		strings.Contains(page, "Back-pressure heatmap") || strings.Contains(page, "no values") {
		t.Error("the figures of a run without a Flink job are not the group's consumption, lag and duplicates")
	}
	// the group's rebalance, a table of its own: billing-1 failed at 33s,
	// partitions 2 and 3 moved, 599 records processed again
	if i := strings.Index(page, "Rebalances of billing"); i < 0 || !strings.Contains(page[i:], "billing-1") || !strings.Contains(page[i:], ">2, 3<") {
		t.Error("the page has no table of group billing's rebalances, with the member and the partitions moved")
	}
}

// A page of the user's own is never replaced: report refuses a file
// without dspalab's generator tag (notes.html named by mistake with -o, a
// report.html of another tool), and replaces a page it wrote before.
func TestReportKeepsTheUsersPage(t *testing.T) {
	dir := copyRun(t, "run-a")
	out := filepath.Join(t.TempDir(), "notes.html")
	if err := os.WriteFile(out, []byte("<html>my notes</html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(Options{RunDir: dir, Output: out})
	if want := "writing " + out + ": it exists and is not a page dspalab wrote"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("report over the user's page: %v, want %q", err, want)
	}
	if b, _ := os.ReadFile(out); string(b) != "<html>my notes</html>\n" {
		t.Errorf("the user's page became %.60q", b)
	}
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second replaces the first
		if err := Write(Options{RunDir: dir, Output: out}); err != nil {
			t.Fatal(err)
		}
	}
}
