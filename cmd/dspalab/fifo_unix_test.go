//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// F1: a FIFO (or another file that is not a regular one) given to any
// command as an input is refused at once, with its path: it is never
// opened for reading, which would block until a writer came, and Ctrl-C
// would not help. Each command must answer within seconds.
func TestFIFOInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("cannot make a FIFO: %v", err)
		}
		return p
	}
	scenarioFIFO := fifo("pipe.yaml")
	replay := fifo("actions.jsonl")
	traceYAML := filepath.Join(dir, "trace.yaml")
	fifo("data.csv")
	if err := os.WriteFile(traceYAML, []byte(`name: t
duration: 5s
sources:
  - name: s
    arrival: {process: trace, trace: {file: data.csv, columns: [ts], time_column: ts, time_unit: s}}
sinks:
  - name: out
    input: s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// a run directory whose summary.json, or timeseries.csv, is a FIFO
	withSummary := filepath.Join(dir, "run-summary")
	if code := execute(context.Background(), []string{"run", "mm1", "--out", withSummary}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("run: exit %d", code)
	}
	os.Remove(filepath.Join(withSummary, "summary.json"))
	fifo("run-summary/summary.json")
	withTS := filepath.Join(dir, "run-ts")
	fifo("run-ts/timeseries.csv")
	sweepDir := filepath.Join(dir, "sweep")
	fifo("sweep/sweep.csv")
	mergeDir := filepath.Join(dir, "shard")
	fifo("shard/sweep.json")
	// a user registry that is a FIFO, and one whose offline sample is
	registryFIFO := fifo("fifo-registry.yaml")
	registry := filepath.Join(dir, "course", "datasets.yaml")
	fifo("course/rides-sample.csv")
	write := func(p, data string) {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(registry, `datasets:
  - name: course/rides
    description: Taxi rides of the course.
    bucket: dspa-course
    objects: [rides/rides-0.csv.gz]
    format: csv.gz
    columns: [ride_id, time]
    time_column: time
    time_unit: s
    default_parts: "0"
    sample: {part: 0, file: rides-sample.csv, description: the first rides, rows: 6, first: 100, last: 160}
`)
	rides := filepath.Join(dir, "rides.yaml")
	write(rides, `duration: 100s
sources:
  - name: rides
    arrival: {process: trace, trace: {dataset: course/rides}}
sinks: [{name: out, input: rides}]
`)
	t.Setenv("DSPALAB_CACHE", filepath.Join(dir, "cache"))

	for _, tc := range []struct {
		args     []string
		want     string
		registry string // $DSPALAB_REGISTRY
	}{
		{[]string{"validate", scenarioFIFO}, scenarioFIFO + " is not a regular file (a named pipe)", ""},
		{[]string{"run", scenarioFIFO}, scenarioFIFO + " is not a regular file (a named pipe)", ""},
		{[]string{"sweep", scenarioFIFO, "--out", filepath.Join(dir, "sw")}, scenarioFIFO + " is not a regular file (a named pipe)", ""},
		{[]string{"run", "mm1", "--replay", replay}, replay + " is not a regular file (a named pipe)", ""},
		{[]string{"run", traceYAML}, "data.csv is not a regular file (a named pipe)", ""},
		{[]string{"plot", withSummary, "-o", filepath.Join(dir, "p.png")}, "summary.json is not a regular file (a named pipe)", ""},
		{[]string{"report", withSummary, "-o", filepath.Join(dir, "r.html")}, "summary.json is not a regular file (a named pipe)", ""},
		{[]string{"plot", withTS, "-o", filepath.Join(dir, "p.png")}, "timeseries.csv is not a regular file (a named pipe)", ""},
		{[]string{"plot", sweepDir, "-x", "a", "-y", "b", "-o", filepath.Join(dir, "p.png")}, "sweep.csv is not a regular file (a named pipe)", ""},
		{[]string{"sweep", "merge", mergeDir, "--out", filepath.Join(dir, "merged")}, "sweep.json is not a regular file (a named pipe)", ""},
		{[]string{"run", rides}, registryFIFO + " is not a regular file (a named pipe)", registryFIFO},
		{[]string{"run", rides}, "rides-sample.csv is not a regular file (a named pipe)", registry},
	} {
		t.Setenv("DSPALAB_REGISTRY", tc.registry)
		var stderr bytes.Buffer
		done := make(chan int, 1)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { done <- execute(ctx, tc.args, &bytes.Buffer{}, &stderr) }()
		select {
		case code := <-done:
			if code == 0 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("dspalab %s: exit %d, stderr %q; want %q", strings.Join(tc.args, " "), code, stderr.String(), tc.want)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("dspalab %s hangs on a FIFO", strings.Join(tc.args, " "))
		}
		cancel()
	}
}
