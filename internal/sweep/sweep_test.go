package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

const tiny = "testdata/tiny.yaml"

func tinyParams() []Param {
	return []Param{
		{Path: "sources.src.arrival.rate", Values: []string{"10/s", "20/s"}},
		{Path: "operators.op.parallelism", Values: []string{"1", "2"}},
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func col(t *testing.T, header []string, name string) int {
	t.Helper()
	i := slices.Index(header, name)
	if i < 0 {
		t.Fatalf("sweep.csv has no column %s; columns: %v", name, header)
	}
	return i
}

// TestTinyGrid runs a 2 x 2 grid with 2 seeds and checks sweep.csv: the
// runs in grid order (first parameter slowest, seed fastest), the values
// as given, the metrics of each run equal to those of the same scenario
// run directly, and what the model fixes exactly (a constant source of
// rate r emits r x 10s records).
func TestTinyGrid(t *testing.T) {
	dir := t.TempDir()
	err := Run(context.Background(), Options{Scenario: tiny, Params: tinyParams(), Seeds: 2, OutDir: dir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, filepath.Join(dir, runfiles.SweepFile))
	header, rows := recs[0], recs[1:]
	if want := []string{"run", "sources.src.arrival.rate", "operators.op.parallelism", "seed", "duration_s", "warmup_s", "simulated_s", "partial"}; !slices.Equal(header[:len(want)], want) {
		t.Errorf("header starts %v, want %v", header[:len(want)], want)
	}
	for _, c := range []string{"totals.records_emitted", "vertices.src.out_rate_rps", "vertices.op.busy_ratio", "vertices.out.latency_p99_ms", "diagnosis.kind"} {
		col(t, header, c)
	}
	for _, c := range header {
		if c == "scenario" || c == "diagnosis.message" || strings.Contains(c, "subtasks") || strings.HasSuffix(c, ".name") {
			t.Errorf("sweep.csv has column %s", c)
		}
	}
	wantRows := [][]string{ // run, rate, parallelism, seed, records emitted, op parallelism, partial
		{"0", "10/s", "1", "1", "100", "1", "false"},
		{"1", "10/s", "1", "2", "100", "1", "false"},
		{"2", "10/s", "2", "1", "100", "2", "false"},
		{"3", "10/s", "2", "2", "100", "2", "false"},
		{"4", "20/s", "1", "1", "200", "1", "false"},
		{"5", "20/s", "1", "2", "200", "1", "false"},
		{"6", "20/s", "2", "1", "200", "2", "false"},
		{"7", "20/s", "2", "2", "200", "2", "false"},
	}
	if len(rows) != len(wantRows) {
		t.Fatalf("%d rows, want %d", len(rows), len(wantRows))
	}
	cols := []int{0, 1, 2, 3, col(t, header, "totals.records_emitted"), col(t, header, "vertices.op.parallelism"), col(t, header, "partial")}
	for i, row := range rows {
		var got []string
		for _, c := range cols {
			got = append(got, row[c])
		}
		if !slices.Equal(got, wantRows[i]) {
			t.Errorf("row %d: %v, want %v", i, got, wantRows[i])
		}
	}

	// every row is the summary of the same scenario run on its own
	data, err := os.ReadFile(tiny)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		text := strings.Replace(string(data), "rate: 10/s", "rate: "+row[1], 1)
		text = strings.Replace(text, "  - name: op\n", "  - name: op\n    parallelism: "+row[2]+"\n", 1)
		sc, err := scenario.Parse(tiny, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		sc.Seed = map[string]uint64{"1": 1, "2": 2}[row[3]]
		res, err := sim.Run(context.Background(), sc, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cells := flatten(&res.Summary)
		for i, c := range header[4:] {
			if row[4+i] != cells[c] {
				t.Errorf("run %s: %s = %q in sweep.csv, %q when run alone", row[0], c, row[4+i], cells[c])
			}
		}
	}

	var m Manifest
	mdata, err := os.ReadFile(filepath.Join(dir, runfiles.SweepManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mdata, &m); err != nil {
		t.Fatal(err)
	}
	if m.Scenario != tiny || m.Runs != 8 || m.Seeds != 2 || m.FirstSeed != 1 || m.Shard != "0/1" || m.ShardRuns != 8 || m.CompletedRuns != 8 || m.Partial || m.Version != "test" || len(m.ScenarioSHA256) != 64 {
		t.Errorf("manifest %+v", m)
	}
}

// TestShardsMergeToTheWhole: three shards merged give byte for byte the
// files of the sweep run on one machine, and so do a run with one worker
// and a run that parses each run's scenario again (as a sweep of more
// than keepParsed combinations does).
func TestShardsMergeToTheWhole(t *testing.T) {
	ctx := context.Background()
	base := Options{Scenario: tiny, Params: tinyParams(), Seeds: 3, Version: "test"}
	whole := base
	whole.OutDir = t.TempDir()
	if err := Run(ctx, whole); err != nil {
		t.Fatal(err)
	}
	one := base
	one.OutDir, one.Workers = t.TempDir(), 1
	if err := Run(ctx, one); err != nil {
		t.Fatal(err)
	}
	reparsed := base
	reparsed.OutDir = t.TempDir()
	kept := keepParsed
	keepParsed = 0
	err := Run(ctx, reparsed)
	keepParsed = kept
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 2; i >= 0; i-- { // any order
		o := base
		o.OutDir, o.Shard, o.Workers = t.TempDir(), Shard{Index: i, Count: 3}, 2
		if err := Run(ctx, o); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, o.OutDir)
	}
	merged := t.TempDir()
	var stderr bytes.Buffer
	if err := Merge(MergeOptions{Dirs: dirs, OutDir: merged, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "12 runs from 3 shards") {
		t.Errorf("merge said %q", stderr.String())
	}
	for _, f := range []string{runfiles.SweepFile, runfiles.SweepManifestFile} {
		want, err := os.ReadFile(filepath.Join(whole.OutDir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{merged, one.OutDir, reparsed.OutDir} {
			got, err := os.ReadFile(filepath.Join(d, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s of %s differs from the whole sweep's:\n%s\nwant:\n%s", f, d, got, want)
			}
		}
	}
	// a shard holds its slice: runs 1, 4, 7, 10 for shard 1/3
	recs := readCSV(t, filepath.Join(dirs[1], runfiles.SweepFile))
	var runs []string
	for _, r := range recs[1:] {
		runs = append(runs, r[0])
	}
	if got := strings.Join(runs, " "); got != "1 4 7 10" {
		t.Errorf("shard 1/3 ran %s, want 1 4 7 10", got)
	}

	// what merge refuses, writing nothing
	for name, c := range map[string]struct {
		dirs []string
		want string
	}{
		"missing":   {dirs[:2], "shards 0/3 are missing"},
		"twice":     {[]string{dirs[0], dirs[1], dirs[2], dirs[0]}, "are both shard 2/3"},
		"not sweep": {[]string{t.TempDir()}, "has no sweep.json"},
		"whole and shard": {[]string{whole.OutDir, dirs[0]},
			"not the same number of shards"},
	} {
		out := t.TempDir()
		err := Merge(MergeOptions{Dirs: c.dirs, OutDir: out})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			t.Errorf("%s: merge wrote %v", name, entries)
		}
	}
	other := base
	other.OutDir, other.Shard, other.Seeds = t.TempDir(), Shard{Index: 0, Count: 3}, 2
	if err := Run(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := Merge(MergeOptions{Dirs: []string{other.OutDir, dirs[0], dirs[1]}, OutDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "different sweeps (the seeds differ)") {
		t.Errorf("shards of different sweeps: %v", err)
	}
	if err := Merge(MergeOptions{Dirs: dirs, OutDir: dirs[0]}); err == nil || !strings.Contains(err.Error(), "is also a shard") {
		t.Errorf("merging into a shard: %v", err)
	}
}

// TestInterrupted: a cancelled sweep writes what it completed, marked
// partial, and exits as an interrupted command (130); merge refuses it.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	err := Run(ctx, Options{Scenario: tiny, Params: tinyParams(), OutDir: dir})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Done != 0 || ie.Total != 4 {
		t.Fatalf("cancelled sweep: %v", err)
	}
	if code := runner.ExitCode(err); code != runner.ExitInterrupted {
		t.Errorf("exit status %d, want %d", code, runner.ExitInterrupted)
	}
	var m Manifest
	data, _ := os.ReadFile(filepath.Join(dir, runfiles.SweepManifestFile))
	if err := json.Unmarshal(data, &m); err != nil || !m.Partial || m.CompletedRuns != 0 {
		t.Errorf("manifest of an interrupted sweep: %+v, %v", m, err)
	}
	if err := Merge(MergeOptions{Dirs: []string{dir}, OutDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("merging an interrupted sweep: %v", err)
	}
}

// TestPlanErrors: every run is checked before any starts; bad settings
// are *runner.OptionErrors (usage errors) that say what is wrong.
func TestPlanErrors(t *testing.T) {
	for name, c := range map[string]struct {
		params []Param
		want   string
		option bool
	}{
		"unknown vertex": {[]Param{{"operators.opp.parallelism", []string{"2"}}},
			`operators has no operator named "opp"; operators: op (did you mean op?)`, true},
		"unknown field": {[]Param{{"operators.op.paralelism", []string{"2"}}},
			"operators[0].paralelism: unknown field", true},
		"bad value": {[]Param{{"operators.op.parallelism", []string{"1", "0"}}},
			"the scenario with operators.op.parallelism=0 is invalid: operators[0].parallelism: must be at least 1", true},
		"bad unit": {[]Param{{"sources.src.arrival.rate", []string{"10 per second"}}},
			"sources[0].arrival.rate:", true},
		"a mapping": {[]Param{{"sources.src.arrival", []string{"1"}}},
			"sources.src.arrival is a mapping, not a value: set one of its fields, such as sources.src.arrival.process", true},
		"through a value": {[]Param{{"duration.x", []string{"1"}}},
			`duration is a value ("10s"), not a mapping or a list: it has no x`, true},
		"renamed vertex": {[]Param{{"operators.op.name", []string{"op2"}}},
			"", true},
		"over a limit": {[]Param{{"duration", []string{"10s", "800h"}}},
			"exceeds the limit of 168h", false},
		"twice": {[]Param{{"duration", []string{"1s"}}, {"duration", []string{"2s"}}},
			"--set duration is given twice", true},
	} {
		err := Run(context.Background(), Options{Scenario: tiny, Params: c.params, OutDir: t.TempDir()})
		var oe *runner.OptionError
		switch {
		case err == nil:
			t.Errorf("%s: no error", name)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v\nwant %q", name, err, c.want)
		case errors.As(err, &oe) != c.option:
			t.Errorf("%s: option error %v, want %v (%v)", name, !c.option, c.option, err)
		}
	}
	err := Run(context.Background(), Options{Scenario: "nosuch", OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `no scenario file or built-in scenario named "nosuch"`) {
		t.Errorf("unknown scenario: %v", err)
	}
	// the sweep as a whole: its runs' estimated events add up (the
	// per-run limits let each through), and nothing is written
	out := filepath.Join(t.TempDir(), "sw")
	err = Run(context.Background(), Options{Scenario: tiny, Params: tinyParams(), Seeds: 1000, MaxEvents: 1e5, OutDir: out})
	want := "sweep of " + tiny + ": 4000 runs, about "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "exceed the limit of 1e5 for a sweep;") {
		t.Errorf("a sweep over --max-sweep-events: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused sweep made %s: %v", out, err)
	}
}

func TestParseParamAndShard(t *testing.T) {
	p, err := ParseParam(" operators.parse.parallelism = 1, 2 ,4")
	if err != nil || p.Path != "operators.parse.parallelism" || !slices.Equal(p.Values, []string{"1", "2", "4"}) {
		t.Errorf("ParseParam: %+v, %v", p, err)
	}
	for in, want := range map[string]string{
		"noequals":    "expected PATH=V1,V2",
		"=1":          "expected PATH=V1,V2",
		"a=1,,2":      "empty value",
		"a=1,1":       "value 1 is given twice",
		"seed=1,2":    "use --seeds N",
		"a.b=":        "empty value",
		"x.y=1/s,2/s": "",
	} {
		_, err := ParseParam(in)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseParam(%q): %v, want %q", in, err, want)
		}
	}
	// a long flag is quoted by its first 80 characters
	long := "a=" + strings.Repeat("9,", 100) + "9"
	if _, err := ParseParam(long); err == nil || !strings.Contains(err.Error(), `--set "`+long[:80]+`…": value 9 is given twice`) {
		t.Errorf("ParseParam of a long flag: %v", err)
	}
	if s, err := ParseShard("2/4"); err != nil || s != (Shard{2, 4}) || !s.Has(6) || s.Has(7) || s.String() != "2/4" {
		t.Errorf("ParseShard(2/4) = %+v, %v", s, err)
	}
	for in, want := range map[string]string{"4/4": "from 0 to 3", "-1/2": "from 0 to 1", "1/0": "at least 1", "x": "expected I/N", "1/2/3": "expected I/N"} {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseShard(%q): %v, want %q", in, err, want)
		}
	}
	if (Shard{}).String() != "0/1" || !(Shard{}).Has(5) {
		t.Error("the zero Shard is not the whole sweep")
	}
	g, err := NewGrid([]Param{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}}, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if g.Runs() != 12 {
		t.Errorf("%d runs, want 12", g.Runs())
	}
	c, seed := g.Run(7) // combination 3 = (a=2, b=x), second seed
	if c != 3 || seed != 11 || !slices.Equal(g.Combination(c), []string{"2", "x"}) {
		t.Errorf("run 7: combination %d %v, seed %d", c, g.Combination(c), seed)
	}
	if _, err := NewGrid(nil, 2, ^uint64(0)); err == nil {
		t.Error("seeds past the largest uint64 were accepted")
	}
	if _, err := NewGrid([]Param{{"a", make([]string, 1001)}, {"b", make([]string, 1001)}}, 1, 1); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a huge grid: %v", err)
	}
}

func TestSet(t *testing.T) {
	src := `# a comment stays
name: x
duration: 10s
network: &net {latency: 1ms}
sources:
  - name: s.1
    arrival: {process: constant, rate: 10/s}
    <<: {record_size: 100B}
operators:
  - name: op
    input: s.1
    network: *net
    service_time: {distribution: constant, mean: 1ms}
  - name: op2
    input: op
    service_time: {distribution: constant, mean: 1ms}
checkpoint:
sinks:
  - {name: out, input: op2}
`
	doc, err := ReadDocument([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d := doc.Clone()
	for path, v := range map[string]string{
		"sources.s.1.arrival.rate":         "20/s",  // a name with a dot, a flow mapping
		"sources.0.record_size":            "200B",  // by index; overrides the merged key
		"operators.op.network.latency":     "5ms",   // through an alias: only here
		"operators.op2.parallelism":        "2",     // a field left to its default
		"operators.op2.network.bandwidth":  "1Gbps", // a mapping created on the way
		"sinks.out.parallelism":            "3",
		"checkpoint.interval":              "1s", // an empty mapping
		"metrics.interval":                 "2s",
		"operators.op.service_time.stddev": "1ms",
	} {
		if err := d.Set(path, v); err != nil {
			t.Errorf("Set(%s): %v", path, err)
		}
	}
	out, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Network struct{ Latency string }
		Sources []struct {
			Arrival    struct{ Rate string }
			RecordSize string `yaml:"record_size"`
		}
		Operators []struct {
			Parallelism int
			Network     struct{ Latency, Bandwidth string }
		}
		Sinks      []struct{ Parallelism int }
		Checkpoint struct{ Interval string }
		Metrics    struct{ Interval string }
	}
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Network.Latency != "1ms" || got.Operators[0].Network.Latency != "5ms" || got.Sources[0].Arrival.Rate != "20/s" ||
		got.Sources[0].RecordSize != "200B" || got.Operators[1].Parallelism != 2 || got.Operators[1].Network.Bandwidth != "1Gbps" ||
		got.Sinks[0].Parallelism != 3 || got.Checkpoint.Interval != "1s" || got.Metrics.Interval != "2s" {
		t.Errorf("edited document:\n%s\nread back as %+v", out, got)
	}
	if !strings.Contains(string(out), "# a comment stays") {
		t.Error("the comment was lost")
	}
	// the original is untouched
	if orig, _ := doc.Bytes(); strings.Contains(string(orig), "20/s") {
		t.Error("Set on a clone changed the original")
	}
	for path, want := range map[string]string{
		"sources.nope.arrival.rate": `sources has no source named "nope"; sources: s.1`,
		"sources.3.arrival.rate":    "sources has 1 element (indexes 0 to 0), no element 3",
		"operators.op.input.x":      `operators.op.input is a value ("s.1")`,
		"operators":                 "operators is a list, not a value",
		"a..b":                      "has an empty part",
	} {
		if err := doc.Clone().Set(path, "1"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Set(%s): %v, want %q", path, err, want)
		}
	}
}

// A sweep of a trace-replay scenario opens each run's trace (the offline
// sample here): the records a run emits are the trace's rows in its window.
func TestTraceScenario(t *testing.T) {
	dir := t.TempDir()
	err := Run(context.Background(), Options{Scenario: "cluster-trace", Seeds: 1, OutDir: dir, Version: "test",
		Params: []Param{{Path: "operators.count.parallelism", Values: []string{"2", "4"}}}})
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, filepath.Join(dir, runfiles.SweepFile))
	header, rows := recs[0], recs[1:]
	emitted, lag := col(t, header, "totals.records_emitted"), col(t, header, "totals.source_lag_records")
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		e, _ := strconv.Atoi(r[emitted])
		l, _ := strconv.Atoi(r[lag])
		// the same trace rows reach the source in both runs: read + lag
		if e+l != 14650 {
			t.Errorf("parallelism %s: emitted %d + lag %d = %d, want the 14650 rows of the window", r[1], e, l, e+l)
		}
	}
}

// TestPartialRuns: a run stopped by --max-queued keeps its row (partial=
// true); the sweep's files are written, sweep.json lists the run in
// partial_runs, and Run returns a *PartialRunsError (exit status 1) that
// names it. Merge carries the list through to the same files.
func TestPartialRuns(t *testing.T) {
	params := []Param{{Path: "sources.src.arrival.rate", Values: []string{"10/s", "2000/s"}}}
	limits := runner.Limits{MaxQueued: 100}
	whole := t.TempDir()
	err := Run(context.Background(), Options{Scenario: tiny, Params: params, OutDir: whole, Limits: limits, Version: "test"})
	const want = "1 of 2 runs was stopped early by a limit (--max-queued) and is partial: run 1 (sources.src.arrival.rate=2000/s, seed 1); its row in sweep.csv says partial=true and sweep.json lists it in partial_runs"
	var pe *PartialRunsError
	if !errors.As(err, &pe) || err.Error() != want {
		t.Fatalf("sweep with a partial run: %v\nwant: %s", err, want)
	}
	if code := runner.ExitCode(err); code != runner.ExitFailure {
		t.Errorf("exit status %d, want %d", code, runner.ExitFailure)
	}
	data, _ := os.ReadFile(filepath.Join(whole, runfiles.SweepManifestFile))
	if !bytes.Contains(data, []byte("\"partial\": false,\n  \"partial_runs\": [\n    1\n  ],")) {
		t.Errorf("sweep.json does not list run 1 in partial_runs:\n%s", data)
	}
	recs := readCSV(t, filepath.Join(whole, runfiles.SweepFile))
	if p := col(t, recs[0], runfiles.SweepPartialColumn); recs[1][p] != "false" || recs[2][p] != "true" {
		t.Errorf("partial column: %q, %q; want false, true", recs[1][p], recs[2][p])
	}

	var dirs []string
	for i := range 2 {
		d := t.TempDir()
		err := Run(context.Background(), Options{Scenario: tiny, Params: params, OutDir: d, Limits: limits, Version: "test", Shard: Shard{i, 2}})
		if i == 0 && err != nil || i == 1 && !errors.As(err, &pe) {
			t.Fatalf("shard %d/2: %v", i, err)
		}
		dirs = append(dirs, d)
	}
	merged := t.TempDir()
	if err := Merge(MergeOptions{Dirs: dirs, OutDir: merged}); !errors.As(err, &pe) || err.Error() != want {
		t.Fatalf("merging shards with a partial run: %v\nwant: %s", err, want)
	}
	for _, f := range []string{runfiles.SweepFile, runfiles.SweepManifestFile} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the whole sweep's", f)
		}
	}
}

// TestPartialRunsError: singular and plural, and at most 10 runs named.
func TestPartialRunsError(t *testing.T) {
	var runs []string
	for i := range 12 {
		runs = append(runs, "run "+strconv.Itoa(i)+" (seed 1)")
	}
	got := (&PartialRunsError{Runs: runs, Total: 40}).Error()
	want := "12 of 40 runs were stopped early by a limit (--max-queued) and are partial: run 0 (seed 1), run 1 (seed 1), run 2 (seed 1), run 3 (seed 1), run 4 (seed 1), run 5 (seed 1), run 6 (seed 1), run 7 (seed 1), run 8 (seed 1), run 9 (seed 1) and 2 more; their rows in sweep.csv say partial=true and sweep.json lists them in partial_runs"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got = (&PartialRunsError{Runs: runs[:1], Total: 1}).Error()
	if !strings.HasPrefix(got, "1 of 1 run was stopped early") {
		t.Errorf("one run: %s", got)
	}
}

// TestInterruptedKeepsComplete: an interrupted sweep into a directory
// that holds a complete sweep writes sweep.partial.csv and
// sweep.partial.json next to it and leaves the complete one as it was; a
// directory that holds only an interrupted sweep gets sweep.csv replaced.
func TestInterruptedKeepsComplete(t *testing.T) {
	dir := t.TempDir()
	if err := Run(context.Background(), Options{Scenario: tiny, Params: tinyParams(), OutDir: dir, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, runfiles.SweepFile))
	beforeM, _ := os.ReadFile(filepath.Join(dir, runfiles.SweepManifestFile))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	err := Run(ctx, Options{Scenario: tiny, Params: tinyParams(), OutDir: dir, Version: "test", Stderr: &stderr, Workers: 1})
	csvPath, partialPath := filepath.Join(dir, runfiles.SweepFile), filepath.Join(dir, runfiles.SweepPartialFile)
	want := "sweep interrupted after 0 of 4 runs; " + partialPath + " holds those, marked partial (" + csvPath + ", of an earlier complete sweep, was kept)"
	if err == nil || err.Error() != want {
		t.Fatalf("interrupted sweep: %v\nwant: %s", err, want)
	}
	if !strings.HasPrefix(stderr.String(), "wrote "+partialPath+", "+filepath.Join(dir, runfiles.SweepPartialManifestFile)+": 0 of 4 runs on 1 worker in ") {
		t.Errorf("closing line: %q", stderr.String())
	}
	after, _ := os.ReadFile(csvPath)
	afterM, _ := os.ReadFile(filepath.Join(dir, runfiles.SweepManifestFile))
	if !bytes.Equal(before, after) || !bytes.Equal(beforeM, afterM) {
		t.Error("the complete sweep was replaced by an interrupted one")
	}
	var m Manifest
	data, _ := os.ReadFile(filepath.Join(dir, runfiles.SweepPartialManifestFile))
	if err := json.Unmarshal(data, &m); err != nil || !m.Partial {
		t.Errorf("sweep.partial.json: %+v, %v", m, err)
	}

	// an interrupted sweep replaces an interrupted one
	other := t.TempDir()
	for range 2 {
		err = Run(ctx, Options{Scenario: tiny, Params: tinyParams(), OutDir: other})
		if want := "sweep interrupted after 0 of 4 runs; " + filepath.Join(other, runfiles.SweepFile) + " holds those, marked partial"; err == nil || err.Error() != want {
			t.Fatalf("interrupted sweep: %v\nwant: %s", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(other, runfiles.SweepPartialFile)); err == nil {
		t.Error("an interrupted sweep over an interrupted one wrote sweep.partial.csv")
	}
}

// emptyTrace is a trace with no records.
type emptyTrace struct{}

func (emptyTrace) Next() (sim.TraceRecord, error) { return sim.TraceRecord{}, io.EOF }

// TestWorkersRunAtOnce: with 2 workers two simulations are in progress at
// the same time. Each run opens its trace inside sim.Run; the opener
// waits until two runs have called it, which never happens if the runs
// were serialised (no lock around sim.Run, no serialising writer).
func TestWorkersRunAtOnce(t *testing.T) {
	var mu sync.Mutex
	callers := 0
	both := make(chan struct{})
	open := func(string, int, int) (sim.Trace, error) {
		mu.Lock()
		callers++
		if callers == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
			return emptyTrace{}, nil
		case <-time.After(10 * time.Second):
			return nil, errors.New("no second run started while this one was running")
		}
	}
	err := Run(context.Background(), Options{Scenario: "cluster-trace", Seeds: 2, Workers: 2, OutDir: t.TempDir(), OpenTrace: open,
		Params: []Param{{Path: "duration", Values: []string{"1s"}}}})
	if err != nil {
		t.Fatal(err)
	}
}

// sweep.json records what the trace sources replayed, and merge refuses
// shards that replayed different data (a sample here, cached parts there).
func TestManifestRecordsTraceData(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, dir := range dirs {
		err := Run(context.Background(), Options{Scenario: "cluster-trace", Seeds: 1, OutDir: dir, Version: "test",
			Shard: Shard{Index: i, Count: 2}, Params: []Param{{Path: "operators.count.parallelism", Values: []string{"2", "4"}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dirs[0], runfiles.SweepManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Data) != 1 || !strings.HasPrefix(m.Data[0], "tasks: clusterdata-2011-2/task_events part 1 (") {
		t.Fatalf("sweep.json data = %q, want the task_events trace", m.Data)
	}
	// pretend the second shard ran on a machine with another data source
	other, _ := os.ReadFile(filepath.Join(dirs[1], runfiles.SweepManifestFile))
	var m2 Manifest
	_ = json.Unmarshal(other, &m2)
	m2.Data = []string{"tasks: clusterdata-2011-2/task_events part 1 (cache)"}
	b, _ := json.Marshal(m2)
	if err := os.WriteFile(filepath.Join(dirs[1], runfiles.SweepManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	err = Merge(MergeOptions{Dirs: dirs, OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "the data the traces replay") {
		t.Errorf("merge of shards with different data: err = %v", err)
	}
}

// A file of the user's named as a sweep output is refused before any
// run, and kept; a sweep's own outputs are replaced by the next sweep.
func TestUserFilesRefused(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{runfiles.SweepFile, "my table\n", "sweep.csv is not the table of a dspalab sweep (a header of run, the parameters, seed and the metrics); it was not replaced"},
		{runfiles.SweepFile, "run,my,own,data\n1,2,3,4\n", "sweep.csv is not the table of a dspalab sweep"},
		{runfiles.SweepPartialFile, "", "sweep.partial.csv is not the table of a dspalab sweep"},
		{runfiles.SweepManifestFile, `{"mine": true}`, "sweep.json is not the manifest of a dspalab sweep; it was not replaced"},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Run(context.Background(), Options{Scenario: tiny, Params: tinyParams(), OutDir: dir, Version: "test"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s of the user's: err %v, want %q", tc.name, err, tc.want)
		}
		if b, _ := os.ReadFile(p); string(b) != tc.data {
			t.Errorf("%s of the user's is now %.40q", tc.name, b)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s of the user's: %d entries in the directory, want it alone", tc.name, len(entries))
		}
	}
	dir := t.TempDir()
	for i := range 2 {
		if err := Run(context.Background(), Options{Scenario: tiny, Params: tinyParams(), OutDir: dir, Version: "test"}); err != nil {
			t.Fatalf("sweep %d into the same directory: %v", i+1, err)
		}
	}
}

// TestConsumerGroupColumns: a run of consumer groups has their figures as
// columns by group name. In consumer-group-rebalance, billing-1 fails at
// 33s and its partitions 2 and 3 (200 of the 600 records/s) make no
// progress until the coordinator removes it at 75s: a run that ends
// before then has a lag of 200/s from 33s on, and no duplicates yet.
func TestConsumerGroupColumns(t *testing.T) {
	dir := t.TempDir()
	err := Run(context.Background(), Options{Scenario: "consumer-group-rebalance", Params: []Param{{Path: "duration", Values: []string{"60s", "70s"}}}, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, filepath.Join(dir, runfiles.SweepFile))
	header, rows := recs[0], recs[1:]
	lag, dup := col(t, header, "consumer_groups.billing.lag_records"), col(t, header, "consumer_groups.billing.duplicates")
	processed, rate := col(t, header, "consumer_groups.billing.records_processed"), col(t, header, "consumer_groups.billing.processed_rate_rps")
	for i, want := range []struct{ lag, seconds int }{{5400, 60}, {7400, 70}} {
		row := rows[i]
		if row[lag] != strconv.Itoa(want.lag) || row[dup] != "0" {
			t.Errorf("run %d: lag %s, duplicates %s; want %d (200/s from 33s to %ds) and 0", i, row[lag], row[dup], want.lag, want.seconds)
		}
		n, err := strconv.ParseFloat(row[processed], 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := row[rate]; got != formatFloat(math.Round(n/float64(want.seconds)*1e6)/1e6) {
			t.Errorf("run %d: processed_rate_rps %s, want %s records / %ds (no warmup)", i, got, row[processed], want.seconds)
		}
	}
}
