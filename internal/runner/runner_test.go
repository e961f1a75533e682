package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// fastYAML runs about 65536 kernel events in well under a simulated second.
const fastYAML = `name: fast
duration: 10s
warmup: 1s
sources:
  - name: src
    arrival: {process: constant, rate: 100000/s}
operators:
  - name: op
    input: src
    service_time: {mean: 1us}
sinks:
  - name: out
    input: op
`

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	d := 50 * des.Second
	err := Run(context.Background(), Options{Duration: &d, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{"backpressure: ", "simulated 50s, seed 1;", "diagnosis: bottleneck: enrich"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

func TestRunJSONWithOverridesAndOutputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "out")
	var stdout, stderr bytes.Buffer
	seed, d := uint64(7), 30*des.Second
	err := Run(context.Background(), Options{Scenario: "mm1", Seed: &seed, Duration: &d, OutDir: dir, JSON: true,
		Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	var sum sim.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("stdout is not the summary JSON: %v\n%s", err, stdout.String())
	}
	if sum.Scenario != "mm1" || sum.Seed != 7 || sum.DurationS != 30 || sum.Partial {
		t.Errorf("summary = %+v, want mm1, seed 7, 30s, complete", sum)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q, want nothing in JSON mode", stderr.String())
	}
	file, err := os.ReadFile(filepath.Join(dir, runfiles.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, stdout.Bytes()) {
		t.Error("summary.json differs from the JSON printed")
	}
	ts, err := os.ReadFile(filepath.Join(dir, runfiles.TimeseriesFile))
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(ts), "\n"); header != strings.Join(sim.TimeseriesColumns, ",") {
		t.Errorf("timeseries header = %q", header)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("output directory holds %d entries, want the 3 files and run.json only", len(entries))
	}
}

func TestRunWroteLine(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	d := 50 * des.Second
	if err := Run(context.Background(), Options{Duration: &d, OutDir: dir, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	want := "wrote " + filepath.Join(dir, "summary.json") + ", " + filepath.Join(dir, "timeseries.csv") + ", " +
		filepath.Join(dir, "events.jsonl") + "\n"
	if stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}

func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "fast.yaml", fastYAML)
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the simulator checks every 65,536 events, so it stops early
	var stdout bytes.Buffer
	err := Run(ctx, Options{Scenario: file, OutDir: out, Stdout: &stdout})
	var ie *InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want an InterruptedError wrapping context.Canceled", err)
	}
	if ExitCode(err) != ExitInterrupted {
		t.Errorf("ExitCode = %d, want %d", ExitCode(err), ExitInterrupted)
	}
	if ie.Reached <= 0 || ie.Reached >= ie.Duration || ie.Duration != 10*des.Second {
		t.Errorf("reached %v of %v", ie.Reached, ie.Duration)
	}
	if !strings.Contains(stdout.String(), "\nPARTIAL: ") {
		t.Errorf("table lacks the PARTIAL line:\n%s", stdout.String())
	}
	data, err := os.ReadFile(filepath.Join(out, runfiles.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"partial": true`) {
		t.Errorf("summary.json is not partial:\n%s", data)
	}
}

func TestRunRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	d := 5 * des.Second
	for name, opts := range map[string]Options{
		"warmup":  {Duration: &d, OutDir: out},
		"limit":   {Limits: Limits{MaxSubtasks: 1}, OutDir: out},
		"unknown": {Scenario: "nope", OutDir: out},
		"invalid": {Scenario: writeFile(t, dir, "bad.yaml", "duration: 0s\n"), OutDir: out},
	} {
		var stdout bytes.Buffer
		opts.Stdout = &stdout
		err := Run(context.Background(), opts)
		if err == nil {
			t.Errorf("%s: Run succeeded", name)
			continue
		}
		want := ExitFailure
		if name == "warmup" {
			want = ExitUsage // a bad --duration
		}
		if ExitCode(err) != want {
			t.Errorf("%s: ExitCode = %d, want %d", name, ExitCode(err), want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: printed %q", name, stdout.String())
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: created the output directory", name)
		}
	}
	err := Run(context.Background(), Options{Duration: &d})
	var oe *OptionError
	if want := `--duration 5s must be longer than the warmup of scenario "backpressure" (40s)`; !errors.As(err, &oe) || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %T %v, want an *OptionError %q", err, err, want)
	}
	var list scenario.ErrorList
	err = Run(context.Background(), Options{Scenario: filepath.Join(dir, "bad.yaml")})
	if !errors.As(err, &list) {
		t.Errorf("invalid scenario: err = %T %v, want the scenario.ErrorList", err, err)
	}
}

func TestProgress(t *testing.T) {
	defer func(d time.Duration) { progressDelay = d }(progressDelay)
	progressDelay = 0
	dir := t.TempDir()
	file := writeFile(t, dir, "fast.yaml", fastYAML)
	var stderr bytes.Buffer
	if err := Run(context.Background(), Options{Scenario: file, Stderr: &stderr, Progress: true}); err != nil {
		t.Fatal(err)
	}
	got := stderr.String()
	if !strings.Contains(got, "simulating "+file+": ") || !strings.Contains(got, " / 10s, ") || !strings.Contains(got, " records/s") {
		t.Errorf("no progress line in %q", got)
	}
	if !strings.HasSuffix(got, "\033[2K\r") {
		t.Errorf("the progress line is not cleared at the end: %q", got[max(0, len(got)-40):])
	}

	for _, c := range []struct {
		now, duration des.Time
		wall          time.Duration
		want          string
	}{
		{30 * des.Second, 120 * des.Second, 10 * time.Second, ", about 30s left"},
		{des.Second, 7 * 24 * des.Hour, 3 * time.Second, ", about 503h59m57s left"},
		{119 * des.Second, 120 * des.Second, 100 * time.Millisecond, ", about 1s left"},
		{0, 120 * des.Second, time.Second, ""},
	} {
		if got := eta(c.now, c.duration, c.wall); got != c.want {
			t.Errorf("eta(%v, %v, %v) = %q, want %q", c.now, c.duration, c.wall, got, c.want)
		}
	}

	// Short runs draw nothing.
	progressDelay = time.Hour
	stderr.Reset()
	if err := Run(context.Background(), Options{Scenario: file, Stderr: &stderr, Progress: true}); err != nil {
		t.Fatal(err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "mm1", "duration: 1s\n")
	for _, tc := range []struct {
		arg, label, data, err string
	}{
		{arg: "", label: scenarios.Default, data: "name: backpressure"},
		{arg: "tandem", label: "tandem", data: "name: tandem"},
		{arg: file, label: file, data: "duration: 1s"},
		{arg: dir, err: dir + " is a directory, not a scenario file"},
		{arg: "backpresure", err: `no scenario file or built-in scenario named "backpresure"; did you mean backpressure? (built-in: ` + strings.Join(scenarios.Names(), ", ") + `)`},
		{arg: filepath.Join(file, "x"), err: `no scenario file or built-in scenario named`},
	} {
		label, data, err := Resolve(tc.arg)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Resolve(%q) error = %v, want %q", tc.arg, err, tc.err)
			}
		case err != nil:
			t.Errorf("Resolve(%q): %v", tc.arg, err)
		case label != tc.label || !strings.Contains(string(data), tc.data):
			t.Errorf("Resolve(%q) = %q, %.40q", tc.arg, label, data)
		}
	}

	big := writeFile(t, dir, "big.yaml", strings.Repeat("#", MaxScenarioBytes+1))
	if _, _, err := Resolve(big); err == nil || !strings.Contains(err.Error(), "big.yaml is more than 1MiB; the limit is 1MiB (") {
		t.Errorf("a file over 1 MiB: err = %v", err)
	}
	ok := writeFile(t, dir, "ok.yaml", strings.Repeat("#", MaxScenarioBytes))
	if _, _, err := Resolve(ok); err != nil {
		t.Errorf("a file of exactly 1 MiB: %v", err)
	}
}

func TestSuggest(t *testing.T) {
	names := scenarios.Names()
	for typed, want := range map[string]string{
		"backpresure":           "backpressure",
		"Backpressure.yaml":     "backpressure",
		"scenarios/hot_key.yml": "hot-key",
		"sensors":               "sensors-1000",
		"mm2":                   "mm1",
		"tandom":                "tandem",
		"zzzzzzzz":              "",
		"":                      "",
	} {
		if got := suggest(typed, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", typed, got, want)
		}
	}
}

func parse(t *testing.T, yaml string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestMeasure(t *testing.T) {
	sc := parse(t, `duration: 100s
workers: {count: 2, slots: 4}
sources:
  - name: a
    parallelism: 2
    arrival: {process: poisson, rate: 10/s}
  - name: b
    arrival: {process: bursty, rate: 100/s, off_rate: 20/s, on_time: 1s, off_time: 3s}
  - name: c
    arrival:
      process: schedule
      schedule: [{at: 0s, rate: 10/s}, {at: 50s, rate: 30/s}, {at: 200s, rate: 1000/s}]
operators:
  - name: op
    inputs: [a, b, c]
    parallelism: 3
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: op
`)
	e := Measure(sc)
	// Offered: a 2 x 10; b 100/4 + 20*3/4 = 40; c (10*50 + 30*50)/100 = 20.
	// op and out receive the 80 too; the metrics rows are (8 + 5) / 1s.
	// Channels: a 2x3 + b 1x3 + c 1x3 into op, op 3x1 into out = 15;
	// memory 15 x 300 B + 8 subtasks x 2 KiB + 2 workers x 80 B; rows 13 x
	// 100 samples.
	want := Estimate{Subtasks: 8, Vertices: 5, Duration: 100 * des.Second, Offered: 80, Records: 240,
		Busiest: "op", BusiestRate: 80, MetricsRows: 13, MetricsInterval: des.Second, EventRate: 253, Events: 25300,
		Channels: 15, Workers: 2, Memory: 15*300 + 8*2048 + 2*80, Rows: 1300}
	if e != want {
		t.Errorf("Measure =\n%+v\nwant\n%+v", e, want)
	}
}

func TestMemoryAndRowsLimits(t *testing.T) {
	sc := parse(t, `duration: 168h
workers: {count: 1024, slots: 4}
sources:
  - {name: s, parallelism: 4000, arrival: {process: constant, rate: 0.001/s}, keys: {count: 10000000, distribution: zipf}}
sinks:
  - {name: o, input: s, partitioning: rebalance, parallelism: 4000}
`)
	err := CheckLimits("m.yaml", sc, Limits{MaxSubtasks: 1e4, MaxDuration: 200 * des.Hour, WritesOutputs: true})
	want := `scenario "m.yaml": about 4.56GiB of memory before any record (16000000 channels, 10000000 zipf keys, 8000 subtasks) exceeds the limit of 4GiB; lower the parallelism of all-to-all edges, or raise --max-memory
scenario "m.yaml": about 4.8e9 rows of timeseries.csv (8002 subtasks and vertices every 1s over 168h, some 450.72GiB) exceed the limit of 2e7; lengthen metrics.interval, shorten the duration, or raise --max-rows`
	if err == nil || err.Error() != want {
		t.Errorf("CheckLimits =\n%v\nwant\n%s", err, want)
	}
	// a limit under 1GiB is shown in its own unit, not as 0GiB (F19); the
	// forward edge is chained (one task "s -> o"), so it has no channel
	small := parse(t, `duration: 10s
workers: {count: 10, slots: 100}
sources: [{name: s, parallelism: 500, arrival: {process: constant, rate: 1/s}}]
sinks: [{name: o, input: s, partitioning: forward, parallelism: 500}]
`)
	err = CheckLimits("small.yaml", small, Limits{MaxMemory: 1 << 20})
	if want := `scenario "small.yaml": about 1.95MiB of memory before any record (1000 subtasks) exceeds the limit of 1MiB; lower the parallelism, or raise --max-memory`; err == nil || err.Error() != want {
		t.Errorf("CheckLimits with --max-memory 1MiB =\n%v\nwant\n%s", err, want)
	}
	// every structure the scenario sizes is counted, with what to lower
	// (issue 13 F2, F3, F4, F5); a -> out is chained: the 4 channels are
	// s -> a's
	job := `sources: [{name: s, parallelism: 2, arrival: {process: poisson, rate: 500/s}, keys: {count: 1000}}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 2, service_time: {mean: 1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 2}]
`
	for _, c := range []struct{ name, yaml, want string }{
		{"F2", "duration: 120s\nworkers: {count: 1000000000, slots: 1000000000}\n" + job,
			`scenario "F2": about 74.51GiB of memory before any record (4 channels, 6 subtasks, 1000000000 workers, 384B of keyed state: 2 key sets of 2 keyed subtasks) exceeds the limit of 4GiB; lower workers.count, or raise --max-memory`},
		{"F3", "duration: 168h\nworkers: {count: 2, slots: 1}\n" + job + "checkpoint: {mode: unaligned, interval: 10ms, max_concurrent: 1000000, timeout: 100h, storage: {bandwidth: 1B/s}}\n",
			`scenario "F3": about 2.56GiB of memory before any record (4 channels, 6 subtasks, 366.21MiB of keyed state: 2000004 key sets of 2 keyed subtasks, 2.21GiB for up to 1000000 checkpoints in flight) exceeds the limit of 1GiB; lower checkpoint.max_concurrent or checkpoint.timeout, or lengthen checkpoint.interval, or raise --max-memory`},
		{"F4", `duration: 60s
workers: {count: 1000, slots: 4}
sources: [{name: s, parallelism: 4, arrival: {process: constant, rate: 100/s}, keys: {count: 8388608}}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 4000, service_time: {mean: 1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 4}]
state_backend: {type: rocksdb}
checkpoint: {mode: aligned, interval: 10s, incremental: true}
`, `scenario "F4": about 15.64GiB of memory before any record (32000 channels, 4008 subtasks, 15.63GiB of keyed state: 16000 key sets of 4000 keyed subtasks, 1.71MiB for up to 1 checkpoint in flight) exceeds the limit of 4GiB; lower the key count or the parallelism of keyed operators (or checkpoint.max_concurrent), or raise --max-memory`},
		// MillWheel's Bloom filter: two generations of 2^31 bits (bloom_bits
		// 2^31 − 1 rounded up to 64-bit words), one pair per sink vertex:
		// 536870912 + 20 x 300 + 12 x 2048 + 2 x 80 + 384 = 536902032 bytes
		{"bloom", "duration: 120s\nworkers: {count: 2, slots: 4}\n" + strings.Replace(job, "sinks: [{name: out, input: a, parallelism: 2}]",
			"sinks: [{name: out, input: a, parallelism: 8, delivery: at-least-once, chain: false, dedup: {bloom_bits: 2147483647}}]", 1),
			`scenario "bloom": about 512.03MiB of memory before any record (20 channels, 12 subtasks, 384B of keyed state: 2 key sets of 2 keyed subtasks, 512MiB for Bloom filters of 4294967296 bits (two generations per sink)) exceeds the limit of 200MiB; lower sinks[].dedup.bloom_bits, or raise --max-memory`},
		// 100,000 partitions: 7 cursors of 2.39MiB and 100,000 summary rows
		// (plan's TestTopicPartitionBytes)
		{"partitions", `duration: 300s
topics: [{name: clicks, partitions: 100000}]
sources:
  - {name: app, arrival: {process: poisson, rate: 1000/s}, writes: {topic: clicks}}
  - {name: etl, parallelism: 2, arrival: {process: topic, topic: clicks}}
sinks: [{name: out, input: etl}]
`, `scenario "partitions": about 65.53MiB of memory before any record (2 channels, 3 subtasks, 65.52MiB for the readers' offsets and summary rows of 100000 topic partitions) exceeds the limit of 50MiB; lower topics[].partitions, or raise --max-memory`},
		// an interval join of 2h at 50,000/s on each input, watermarks
		// 1s + 200ms behind: each input's records of 2h + 1.2s, bounded by
		// the run of 1h: 1.8e8 each, 3.6e8 of 80 bytes (2.88e10 bytes)
		{"interval", `duration: 1h
sources:
  - {name: l, arrival: {process: constant, rate: 50000/s}, keys: {count: 1000}, watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 1s}}
  - {name: r, arrival: {process: constant, rate: 50000/s}, keys: {count: 1000}, watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 1s}}
operators: [{name: j, inputs: [l, r], partitioning: hash, service_time: {mean: 1us}, join: {kind: interval, before: 2h, after: 2h}}]
sinks: [{name: out, input: j}]
`, `scenario "interval": about 2.7e10 events per simulated second (records through 4 vertices: 1.0e5/s offered by the sources, 9.0e9/s handled in all; plus 1.8e10 window and join updates/s (records added to each of their windows, compared with an interval join's buffer)) exceed the limit of 1e8; lengthen the sliding windows' slide or narrow the interval joins, lower the rates, or raise --max-event-rate
scenario "interval": about 9.7e13 events (records through 4 vertices: 1.0e5/s offered by the sources, 9.0e9/s handled in all; plus 1.8e10 window and join updates/s (records added to each of their windows, compared with an interval join's buffer), over 1h) exceed the limit of 5e9; shorten duration, lengthen the sliding windows' slide or narrow the interval joins, lower the rates, or raise --max-events
scenario "interval": about 26.82GiB of memory before any record (2 channels, 4 subtasks, 26.82GiB for about 3.6e8 records the interval joins buffer (each until the watermark passes it plus the join's bound)) exceeds the limit of 4GiB; narrow the interval joins (operators[].join.before, operators[].join.after), lower the rates (sources[].arrival.rate) or the bound of the watermarks, or raise --max-memory`},
	} {
		lim := Limits{MaxSubtasks: 1e4}
		switch c.name {
		case "F3":
			lim.MaxMemory = 1 << 30
		case "bloom":
			lim.MaxMemory = 200 << 20
		case "partitions":
			lim.MaxMemory = 50 << 20
		}
		if err := CheckLimits(c.name, parse(t, c.yaml), lim); err == nil || err.Error() != c.want {
			t.Errorf("%s: CheckLimits =\n%v\nwant\n%s", c.name, err, c.want)
		}
	}
	// a micro-batch run: its state stores and its queued batches, the
	// queue bounded by --max-queued
	mb := `engine: spark-streaming
duration: 1h
spark: {batch_interval: 1s, checkpoint: true}
sources: [{name: s, parallelism: 2, arrival: {process: constant, rate: 50000/s}, keys: {count: 100000000}}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 2, service_time: {mean: 1us}, state: {bytes_per_key: 100B}}]
sinks: [{name: out, input: a}]
`
	for _, c := range []struct {
		name, yaml string
		lim        Limits
		want       string
	}{
		// 10^8 keys of 32 bytes (3600s x 100,000/s = 3.6e8 records bring
		// them all): 3.2e9 bytes; 2e7 queued records (the default
		// --max-queued) and two batches of 100,000, 10 bytes each; 3600
		// batch rows of 2 x 184 + 2 x 16 bytes (two stages), 3600 samples
		// of 2 x 112 and 362 events of 256 (360 state checkpoints); two
		// stages of 2 task partitions: 2 x (64 + 40) + 2 x (64 + 2 x 40)
		{"keys", mb, Limits{},
			`scenario "keys": about 3.17GiB of memory by the end of the run (5 subtasks, 3200MB of state stores: about 1.0e8 rows (keys, or windows and keys), 202MB for up to 2.0e7 records in queued batches (--max-queued 2e7, the batch past it and the one running), 2.23MiB for the rows of 3600 batches and 3600 metrics samples kept for batches.csv and timeseries.csv, 496B for 4 task partitions of the stages) exceeds the limit of 3GiB; lower the key count (sources[].keys.count) or shorten the duration (the state holds every key seen), or raise --max-memory`},
		// 1000 keys: the queue of the whole run (3.6e8 records of 10
		// bytes) when --max-queued does not bound it
		{"queue", strings.Replace(mb, "count: 100000000", "count: 1000", 1), Limits{MaxQueued: 1e9},
			`scenario "queue": about 3.35GiB of memory by the end of the run (5 subtasks, 32KB of state stores: about 1000 rows (keys, or windows and keys), 3600MB for up to 3.6e8 records in queued batches (every one that reaches a sink over the run), 2.23MiB for the rows of 3600 batches and 3600 metrics samples kept for batches.csv and timeseries.csv, 496B for 4 task partitions of the stages) exceeds the limit of 3GiB; lower the rates or shorten the duration, or lower --max-queued (a job whose processing time passes spark.batch_interval queues its batches), or raise --max-memory`},
	} {
		c.lim.MaxMemory = 3 << 30
		if err := CheckLimits(c.name, parse(t, c.yaml), c.lim); err == nil || err.Error() != c.want {
			t.Errorf("%s: CheckLimits =\n%v\nwant\n%s", c.name, err, c.want)
		}
	}
	// F5: checkpoint traffic counts as events
	f5 := parse(t, `duration: 168h
workers: {count: 1023, slots: 4}
sources: [{name: s, parallelism: 2045, arrival: {process: constant, rate: 1/s}}]
sinks: [{name: out, input: s, partitioning: rebalance, parallelism: 2045}]
checkpoint: {mode: aligned, interval: 10ms}
`)
	if err := CheckLimits("F5", f5, Limits{}); err == nil || !strings.Contains(err.Error(), `scenario "F5": about 8.4e8 events per simulated second (records through 2 vertices: 2045/s offered by the sources, 4090/s handled in all; plus 8.4e8 checkpoint events/s (a barrier on each of 4182025 channels and a snapshot of each of 4090 subtasks every 10ms)) exceed the limit of 1e8; lengthen checkpoint.interval, lower the rates, or raise --max-event-rate`) {
		t.Errorf("F5: CheckLimits =\n%v", err)
	}
	// without outputs the rows are not written, so they do not count
	err = CheckLimits("m.yaml", sc, Limits{MaxSubtasks: 1e4, MaxDuration: 200 * des.Hour, MaxMemory: 8 << 30})
	if err != nil {
		t.Errorf("raised memory limit, no outputs: %v", err)
	}
}

// TestMeasureFollowsTheGraph checks that selectivity and broadcast
// multiply the records, and that a filter divides them.
func TestMeasureFollowsTheGraph(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		records    float64
		busiest    string
		sel, bc    bool
	}{
		{
			// A chain of three operators of selectivity 1000 from a 1/s
			// source: 1 + 1 + 1e3 + 1e6 + 1e9 records/s.
			name: "selectivity",
			yaml: `duration: 10s
sources: [{name: src, arrival: {process: constant, rate: 1/s}}]
operators:
  - {name: a, input: src, service_time: {mean: 1ns}, selectivity: 1000}
  - {name: b, input: a, service_time: {mean: 1ns}, selectivity: 1000}
  - {name: c, input: b, service_time: {mean: 1ns}, selectivity: 1000}
sinks: [{name: out, input: c}]
`,
			records: 1 + 1 + 1e3 + 1e6 + 1e9, busiest: "out", sel: true,
		},
		{
			// A broadcast into 2000 subtasks: every record reaches each.
			name: "broadcast",
			yaml: `duration: 10s
workers: {count: 500, slots: 4}
sources: [{name: src, arrival: {process: constant, rate: 100/s}}]
operators:
  - {name: rules, input: src, partitioning: broadcast, parallelism: 2000, service_time: {mean: 1ns}}
sinks: [{name: out, input: rules, parallelism: 2000}]
`,
			records: 100 + 100*2000 + 100*2000, busiest: "rules", bc: true,
		},
		{
			// A filter (0.1) feeding two sinks, one of them a broadcast
			// into 1 subtask (which multiplies nothing), then a join of
			// both sources.
			name: "filter and join",
			yaml: `duration: 10s
sources:
  - {name: s1, arrival: {process: constant, rate: 1000/s}}
  - {name: s2, parallelism: 2, arrival: {process: constant, rate: 50/s}}
operators:
  - {name: f, input: s1, service_time: {mean: 1ns}, selectivity: 0.1}
  - {name: join, inputs: [f, s2], service_time: {mean: 1ns}, partitioning: rebalance}
sinks:
  - {name: o1, input: f}
  - {name: o2, input: join, partitioning: broadcast}
`,
			// offered 1000 + 100; f 1000; join 100 + 100; o1 100; o2 200.
			records: 1100 + 1000 + 200 + 100 + 200, busiest: "f",
		},
	} {
		e := Measure(parse(t, tc.yaml))
		if math.Abs(e.Records-tc.records) > 1e-6*tc.records || e.Busiest != tc.busiest || e.BySelectivity != tc.sel || e.ByBroadcast != tc.bc {
			t.Errorf("%s: Measure = %+v, want %g records/s, busiest %s, selectivity %v, broadcast %v",
				tc.name, e, tc.records, tc.busiest, tc.sel, tc.bc)
		}
		if e.EventRate != e.Records+e.MetricsRows || e.Events != e.EventRate*10 {
			t.Errorf("%s: event rate %g, events %g, from %g records/s and %g rows/s", tc.name, e.EventRate, e.Events, e.Records, e.MetricsRows)
		}
	}

	// Absurd rates stay finite, and a filter after them gives 0, not NaN.
	sc := parse(t, `duration: 10s
sources: [{name: src, arrival: {process: constant, rate: 1/s}}]
operators:
  - {name: a, input: src, service_time: {mean: 1ns}}
  - {name: b, input: a, service_time: {mean: 1ns}, selectivity: 0}
sinks: [{name: out, input: b}]
`)
	sc.Sources[0].Arrival.Rate = 1e300 // more than Parse accepts
	sc.Operators[0].Selectivity = 1e300
	e := Measure(sc)
	if e.Records != math.MaxFloat64 || e.Events != math.MaxFloat64 {
		t.Errorf("Measure = %+v, want the records capped at the largest float64", e)
	}
	if err := CheckLimits("x", sc, Limits{}); err == nil || !strings.Contains(err.Error(), "about 1.8e308 events") {
		t.Errorf("CheckLimits = %v", err)
	}
}

func TestCheckLimits(t *testing.T) {
	sc := parse(t, `name: x
duration: 120s
sources:
  - name: src
    parallelism: 4
    arrival: {process: constant, rate: 25000000/s}
operators:
  - name: a
    input: src
    parallelism: 4
    service_time: {mean: 1ns}
  - name: b
    input: a
    parallelism: 4
    service_time: {mean: 1ns}
  - name: c
    input: b
    parallelism: 4
    service_time: {mean: 1ns}
sinks:
  - name: out
    input: c
    parallelism: 4
`)
	err := CheckLimits("x.yaml", sc, Limits{})
	want := `scenario "x.yaml": about 5.0e8 events per simulated second (records through 5 vertices: 1.0e8/s offered by the sources, 5.0e8/s handled in all) exceed the limit of 1e8; lower the rates, or raise --max-event-rate
scenario "x.yaml": about 6.0e10 events (records through 5 vertices: 1.0e8/s offered by the sources, 5.0e8/s handled in all, over 120s) exceed the limit of 5e9; shorten duration, lower the rates, or raise --max-events`
	if err == nil || err.Error() != want {
		t.Errorf("CheckLimits = %v\nwant %s", err, want)
	}
	if err := CheckLimits("x.yaml", sc, Limits{MaxEvents: 1e11, MaxEventRate: 5.1e8}); err != nil {
		t.Errorf("raised limit: %v", err)
	}
	err = CheckLimits("x.yaml", sc, Limits{MaxSubtasks: 19, MaxDuration: des.Minute, MaxEvents: 1e11, MaxEventRate: 1e9})
	want = `scenario "x.yaml": 20 subtasks exceed the limit of 19; lower the parallelism or raise --max-subtasks
scenario "x.yaml": a duration of 120s exceeds the limit of 60s; shorten it (--duration) or raise --max-duration`
	if err == nil || err.Error() != want {
		t.Errorf("CheckLimits = %v\nwant %s", err, want)
	}
	sc.Duration = 30 * 24 * des.Hour
	err = CheckLimits("x.yaml", sc, Limits{MaxEvents: 1e30, MaxEventRate: 1e30})
	if want := `a duration of 720h exceeds the limit of 168h;`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckLimits = %v, want %q", err, want)
	}

	// What multiplies the records is named, with the vertex receiving the
	// most, and the metrics rows when they matter.
	sel := parse(t, `duration: 60s
sources: [{name: src, arrival: {process: constant, rate: 1/s}}]
operators:
  - {name: a, input: src, service_time: {mean: 1ns}, selectivity: 1000}
  - {name: b, input: a, service_time: {mean: 1ns}, selectivity: 1000}
  - {name: c, input: b, service_time: {mean: 1ns}, selectivity: 1000}
sinks: [{name: out, input: c}]
`)
	err = CheckLimits("sel.yaml", sel, Limits{MaxEvents: 1e30})
	want = `scenario "sel.yaml": about 1.0e9 events per simulated second (records through 5 vertices: 1/s offered by the sources, 1.0e9/s handled in all, multiplied by selectivity: 1.0e9/s into "out") exceed the limit of 1e8; lower the rates or the selectivity, or raise --max-event-rate`
	if err == nil || err.Error() != want {
		t.Errorf("CheckLimits = %v\nwant %s", err, want)
	}
	bc := parse(t, `duration: 2000s
workers: {count: 500, slots: 4}
sources: [{name: src, arrival: {process: constant, rate: 1000/s}}]
sinks: [{name: out, input: src, partitioning: broadcast, parallelism: 2000}]
metrics: {interval: 1ms}
`)
	err = CheckLimits("bc.yaml", bc, Limits{})
	want = `scenario "bc.yaml": about 8.0e9 events (records through 2 vertices: 1000/s offered by the sources, 2.0e6/s handled in all, multiplied by broadcast: 2.0e6/s into "out"; plus 2.0e6 metrics rows/s, over 33m20s) exceed the limit of 5e9; shorten duration, lengthen metrics.interval, lower the rates or the parallelism behind broadcast, or raise --max-events`
	if err == nil || err.Error() != want {
		t.Errorf("CheckLimits = %v\nwant %s", err, want)
	}
}

func TestFormatting(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 2.54: "2.5", 4096: "4096", 99999: "99999", 1e5: "1e5", 1.234e10: "1.2e10", 6e10: "6.0e10", 1e-7: "0",
	} {
		if got := Sci(x, 1); x != 1e5 && got != want {
			t.Errorf("Sci(%g, 1) = %q, want %q", x, got, want)
		}
	}
	if got := Sci(5e9, -1); got != "5e9" {
		t.Errorf("Sci(5e9, -1) = %q", got)
	}
	for x, want := range map[float64]string{950: "950", 12345: "12.3k", 1.2e6: "1.2M", 3.4e9: "3.4G"} {
		if got := Human(x); got != want {
			t.Errorf("Human(%g) = %q, want %q", x, got, want)
		}
	}
}

// A run whose unaligned checkpoints pile up (issue 13 F3) passes the
// up-front estimate with 64MiB, then stops at the running budget that
// --max-memory leaves, with partial results and a *MemoryError (exit 1).
func TestRunMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "f3.yaml", `duration: 168h
workers: {count: 2, slots: 1}
sources: [{name: s, parallelism: 2, arrival: {process: poisson, rate: 500/s}, keys: {count: 1000}, replayable: true}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 2, service_time: {distribution: exponential, mean: 1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 2}]
checkpoint: {mode: unaligned, interval: 10ms, max_concurrent: 20000, timeout: 100h, storage: {bandwidth: 1B/s}}
`)
	var stdout, stderr bytes.Buffer
	lim := Limits{MaxMemory: 64 << 20}
	sc, _, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	e := Measure(sc)
	err = Run(context.Background(), Options{Scenario: file, Limits: lim, Stdout: &stdout, Stderr: &stderr})
	var me *MemoryError
	var sme *sim.MemoryLimitError
	if !errors.As(err, &me) || !errors.As(err, &sme) || sme.Limit != 64<<20-e.Memory || sme.InFlight < 100 || sme.InFlight >= 20000 {
		t.Fatalf("err = %T %v, want a *MemoryError wrapping the simulator's with the budget %d", err, err, 64<<20-e.Memory)
	}
	if ExitCode(err) != ExitFailure {
		t.Errorf("ExitCode = %d, want %d", ExitCode(err), ExitFailure)
	}
	for _, want := range []string{"run stopped: at ", " checkpoints in progress, which persisted ", "the outputs are partial", "raise --max-memory"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if !strings.Contains(stdout.String(), "\nPARTIAL: ") {
		t.Errorf("table lacks the PARTIAL line:\n%s", stdout.String())
	}
}

// TestRunQueueLimit checks that a run stopped by --max-queued still writes
// and prints its partial results, then returns a *QueuedError (exit 1).
func TestRunQueueLimit(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "over.yaml", `name: over
duration: 60s
chaining: false
network: {capacity: unbounded}
sources: [{name: src, arrival: {process: constant, rate: 100000/s}}]
operators: [{name: slow, input: src, service_time: {mean: 1s}}]
sinks: [{name: out, input: slow}]
`)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), Options{Scenario: file, OutDir: out, Limits: Limits{MaxQueued: 1e5},
		Stdout: &stdout, Stderr: &stderr})
	var qe *QueuedError
	var sqe *sim.QueueLimitError
	if !errors.As(err, &qe) || !errors.As(err, &sqe) || sqe.Limit != 1e5 || sqe.Vertex != "slow" {
		t.Fatalf("err = %T %v, want a *QueuedError wrapping the simulator's", err, err)
	}
	if ExitCode(err) != ExitFailure {
		t.Errorf("ExitCode = %d, want %d", ExitCode(err), ExitFailure)
	}
	for _, want := range []string{"run stopped: at ", "records are queued (limit 100000)", "the outputs are partial", "raise --max-queued"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if !strings.Contains(stdout.String(), "\nPARTIAL: ") {
		t.Errorf("table lacks the PARTIAL line:\n%s", stdout.String())
	}
	if !strings.HasPrefix(stderr.String(), "wrote ") {
		t.Errorf("stderr = %q, want the wrote line", stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, runfiles.SummaryFile))
	if err != nil || !strings.Contains(string(data), `"partial": true`) {
		t.Errorf("summary.json is not partial (%v):\n%s", err, data)
	}

	// The default limit (2e7 records) lets a short run go on.
	d := 2 * des.Second
	if err := Run(context.Background(), Options{Scenario: file, Duration: &d}); err != nil {
		t.Errorf("default limit: %v", err)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteFailures(t *testing.T) {
	if err := Validate(failWriter{}, nil, []string{"mm1"}); err == nil || errors.Is(err, ErrReported) || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Validate = %v, want the write error", err)
	}
	if err := ListScenarios(failWriter{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("ListScenarios = %v, want the write error", err)
	}
	if err := ShowScenario(failWriter{}, "mm1"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("ShowScenario = %v, want the write error", err)
	}
	d := 50 * des.Second
	if err := Run(context.Background(), Options{Duration: &d, Stdout: failWriter{}}); err == nil || !strings.Contains(err.Error(), "printing the summary: disk full") {
		t.Errorf("Run = %v, want the write error", err)
	}
	err := Run(context.Background(), Options{Duration: &d, OutDir: t.TempDir(), Stderr: failWriter{}})
	if err == nil || !strings.Contains(err.Error(), "printing the files written: disk full") {
		t.Errorf("Run = %v, want the write error of the wrote line", err)
	}
}

func TestWriteErrorAndExitCode(t *testing.T) {
	var b bytes.Buffer
	list := scenario.ErrorList{{File: "f.yaml", Line: 1, Col: 2, Path: "a", Msg: "bad"}, {File: "f.yaml", Line: 3, Col: 4, Msg: "worse"}}
	WriteError(&b, list)
	if want := "f.yaml:1:2: a: bad\nf.yaml:3:4: worse\n"; b.String() != want {
		t.Errorf("ErrorList printed as %q, want %q", b.String(), want)
	}
	b.Reset()
	WriteError(&b, errors.Join(errors.New("one"), errors.New("two")))
	if want := "dspalab: one\ndspalab: two\n"; b.String() != want {
		t.Errorf("joined errors printed as %q, want %q", b.String(), want)
	}
	b.Reset()
	// a bidi override in a file name would reorder the terminal's line:
	// it is written as \u202e, the newlines between errors kept
	WriteError(&b, errors.Join(errors.New("reading abc\u202etxt.yaml: no such file"), errors.New("two")))
	if want := "dspalab: reading abc\\u202etxt.yaml: no such file\ndspalab: two\n"; b.String() != want {
		t.Errorf("an error with a bidi override printed as %q, want %q", b.String(), want)
	}
	b.Reset()
	WriteError(&b, ErrReported)
	WriteError(&b, nil)
	if b.Len() != 0 {
		t.Errorf("printed %q for ErrReported or nil", b.String())
	}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("x"), ExitFailure},
		{list, ExitFailure},
		{ErrReported, ExitFailure},
		{&InterruptedError{Err: context.Canceled}, ExitInterrupted},
		{errors.Join(errors.New("printing"), &InterruptedError{Err: context.Canceled}), ExitInterrupted},
		{&OptionError{errors.New("x")}, ExitUsage},
		{&QueuedError{Err: &sim.QueueLimitError{}}, ExitFailure},
		{fmt.Errorf("wrapped: %w", &InterruptedError{Err: context.Canceled}), ExitInterrupted},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestValidateListShow(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", "duration: 1s\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: o, input: s}]\n")
	bad := writeFile(t, dir, "bad.yaml", "duration: 1s\nsources: []\nsinks: []\nfoo: 1\n")
	var stdout, stderr bytes.Buffer
	if err := Validate(&stdout, &stderr, []string{good, "mm1"}); err != nil || stdout.String() != good+": ok\nmm1: ok\n" || stderr.Len() != 0 {
		t.Errorf("Validate(good) = %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	stdout.Reset()
	err := Validate(&stdout, &stderr, []string{bad, good, "nope"})
	if !errors.Is(err, ErrReported) || stdout.String() != good+": ok\n" {
		t.Errorf("Validate(bad) = %v, stdout %q", err, stdout.String())
	}
	if !strings.Contains(stderr.String(), bad+":4:1: foo: unknown field") || !strings.Contains(stderr.String(), `dspalab: no scenario file or built-in scenario named "nope"`) {
		t.Errorf("stderr = %q", stderr.String())
	}

	stdout.Reset()
	if err := ListScenarios(&stdout); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	// names first, descriptions aligned after the longest name
	width := 0
	for _, n := range scenarios.Names() {
		width = max(width, len(n))
	}
	i := slices.Index(scenarios.Names(), "backpressure")
	if len(lines) != len(scenarios.Names()) || i < 0 || !strings.HasPrefix(lines[i], "backpressure"+strings.Repeat(" ", width+2-len("backpressure"))+"A 100 rec/s") {
		t.Errorf("ListScenarios:\n%s", stdout.String())
	}

	stdout.Reset()
	if err := ShowScenario(&stdout, "tandem"); err != nil || !strings.Contains(stdout.String(), "name: tandem") {
		t.Errorf("ShowScenario(tandem) = %v, %q", err, stdout.String())
	}
	if err := ShowScenario(&stdout, "tandom"); err == nil || !strings.Contains(err.Error(), "did you mean tandem?") {
		t.Errorf("ShowScenario(tandom) = %v", err)
	}
}

// Ctrl-C cancels the command's context: any command stopped by it (a
// fetch, a sweep, a run) exits 130.
func TestExitCodeOfCancellation(t *testing.T) {
	wrapped := fmt.Errorf("fetching part 1: %w", context.Canceled)
	for err, want := range map[error]int{
		nil:                        ExitOK,
		wrapped:                    ExitInterrupted,
		&InterruptedError{}:        ExitInterrupted,
		&OptionError{}:             ExitUsage,
		errors.New("no such file"): ExitFailure,
	} {
		if got := ExitCode(err); got != want {
			t.Errorf("ExitCode(%v) = %d, want %d", err, got, want)
		}
	}
}

// A run that the simulated job stops (a worker out of memory: the
// spanner's heap state past workers.memory) still writes and prints what
// it simulated up to the stop, marked partial with the cause, and
// returns a *StoppedError (exit 1), as an interrupted run does: the
// state_bytes growth the scenario shows is not lost.
func TestRunStoppedByModelWritesPartial(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "oom.yaml", `name: oom
seed: 1
duration: 60s
sources: [{name: edges, arrival: {process: constant, rate: 4000/s}, edges: {type: barabasi-albert, vertices: 1000000, attach: 5}}]
operators: [{name: spanner, input: edges, chain: false, service_time: {mean: 2us}, graph: {algorithm: spanner, k: 2, primitive: value}}]
sinks: [{name: out, input: spanner}]
state_backend: {type: heap}
workers: {memory: 2MiB}
`)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), Options{Scenario: file, OutDir: out, Stdout: &stdout, Stderr: &stderr})
	var se *StoppedError
	if !errors.As(err, &se) || sim.FormatTime(se.Reached) != "9.134s" || se.Duration != 60*des.Second {
		t.Fatalf("err = %T %v, want a *StoppedError at 9.134s of 60s", err, err)
	}
	if ExitCode(err) != ExitFailure {
		t.Errorf("ExitCode = %d, want %d", ExitCode(err), ExitFailure)
	}
	cause := "worker 0 ran out of memory at 9.134s: 2097184 bytes (2MiB) of heap state (the graph of spanner, value) exceed its memory of 2097152 bytes (2MiB)"
	if want := "run stopped at 9.134s of 60s simulated: " + cause; !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; the outputs are partial") {
		t.Errorf("message %q, want it to start %q and say the outputs are partial", err, want)
	}
	if want := "\nPARTIAL: stopped at 9.134s of 60s: " + cause; !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "\ngraph spanner (3-spanner, value state on heap): 36511 edges in, 30297 kept") {
		t.Errorf("table lacks %q or the graph line up to the stop:\n%s", want, stdout.String())
	}
	if !strings.HasPrefix(stderr.String(), "wrote "+filepath.Join(out, runfiles.SummaryFile)+", ") {
		t.Errorf("stderr = %q, want the wrote line", stderr.String())
	}
	got := readDir(t, out)
	if !strings.Contains(got[runfiles.ManifestFile], `"partial": true`) || !strings.Contains(got[runfiles.SummaryFile], `"partial": true`) ||
		!strings.Contains(got[runfiles.SummaryFile], `"partial_reason": "stopped at 9.134s of 60s: `+cause) {
		t.Errorf("run.json or summary.json not partial with the cause:\n%s\n%s", got[runfiles.ManifestFile], got[runfiles.SummaryFile])
	}
	// the heap state's growth up to the stop: the last row of spanner[0]
	// is the state that did not fit
	var last string
	for _, l := range strings.Split(got[runfiles.TimeseriesFile], "\n") {
		if strings.HasPrefix(l, "9.134,spanner,operator,0,") {
			last = l
		}
	}
	if !strings.Contains(last, ",2097184,36511,30297,") {
		t.Errorf("timeseries.csv's last row of spanner[0] = %q, want state_bytes 2097184 over 36511 edges", last)
	}
	// the live view's q after the stop: the view returns the simulation
	// and the error that stopped it, and the summary up to the stop is
	// printed and written the same way
	live := filepath.Join(dir, "live")
	stdout.Reset()
	err = Run(context.Background(), Options{Scenario: file, OutDir: live, Stdout: &stdout, Stderr: &stderr,
		Live: func(ctx context.Context, r LiveRun) (*sim.Sim, error) {
			s, err := r.Start(nil)
			if err != nil {
				return nil, err
			}
			return s, s.RunUntil(ctx, r.Scenario.Duration)
		}})
	if !errors.As(err, &se) || !strings.Contains(stdout.String(), "\nPARTIAL: stopped at 9.134s of 60s: "+cause) {
		t.Errorf("live: err = %T %v, want a *StoppedError and the table up to the stop:\n%s", err, err, stdout.String())
	}
	l := readDir(t, live)
	if !strings.Contains(l[runfiles.SummaryFile], `"partial_reason": "stopped at 9.134s of 60s: `+cause) {
		t.Errorf("live: summary.json not partial with the cause:\n%s", l[runfiles.SummaryFile])
	}
	if a, ok := l[runfiles.ActionsFile]; !ok || a != "" {
		t.Errorf("live: actions.jsonl = %q (present %v), want it empty: the replay stops by itself", a, ok)
	}
	events := got[runfiles.EventsFile]
	if !strings.Contains(events, `{"time_s":9.134`) || !strings.Contains(events, `"type":"run_stopped","message":"stopped at 9.134s of 60s: worker 0 ran out of memory`) {
		t.Errorf("events.jsonl lacks the run_stopped event:\n%s", events)
	}
}
