package grading

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/dspalab/dspalab/exercises"
)

// workerEnv makes the test binary a grading worker (see TestMain).
const workerEnv = "DSPALAB_GRADING_TEST_WORKER"

// crashMarker in a submission's description makes the test worker crash
// as a bug in the simulator would: a Go fatal error (a stack overflow),
// which no recover catches.
const crashMarker = "crash-the-worker"

// oomMarker in a submission's description makes the test worker allocate
// until its memory limit kills it, as a leak the model's memory
// accounting does not see would.
const oomMarker = "exhaust-the-worker"

// hangMarker in a submission's description makes the test worker sleep
// past any wall-clock limit, as a simulation that never ends would.
const hangMarker = "hang-the-worker"

// TestMain lets the test binary act as the grading worker, re-executed
// with workerEnv set: it serves the request as dspalab's grade-worker
// does, except that a scenario holding crashMarker crashes it, one
// holding oomMarker exhausts its memory and one holding hangMarker never
// answers.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			os.Exit(3)
		}
		var req workerRequest
		if json.Unmarshal(data, &req) == nil && bytes.Contains(req.Scenario, []byte(crashMarker)) {
			debug.SetMaxStack(1 << 20)
			recurse(0)
		}
		if json.Unmarshal(data, &req) == nil && bytes.Contains(req.Scenario, []byte(oomMarker)) {
			limitMemory(req.MaxMemory)
			var hold [][]byte // past the limit where setrlimit applies; else bounded
			for n := int64(0); n < 4*req.MaxMemory; n += 1 << 20 {
				hold = append(hold, bytes.Repeat([]byte{1}, 1<<20))
			}
			_ = hold
			os.Exit(3)
		}
		if bytes.Contains(req.Scenario, []byte(hangMarker)) {
			time.Sleep(time.Hour)
		}
		if err := ServeWorker(context.Background(), bytes.NewReader(data), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

//go:noinline
func recurse(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	return recurse(n+1) + int(pad[0])
}

// testIsolation is Isolation with the test binary as the worker.
func testIsolation(t testing.TB, maxMemory int64, timeout time.Duration) *Isolation {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Isolation{Command: []string{exe}, Env: append(os.Environ(), workerEnv+"=1"), MaxMemory: maxMemory, Timeout: timeout}
}

// sturdy writes an exercise whose submissions may change the
// parallelism, the partitioning, the rate, the duration and the
// description, with no event budget: a submission can ask for more memory
// or time than a worker has. The starter's operator (40 rec/s per subtask)
// cannot keep up with its 100 rec/s source; three subtasks can.
func sturdy(t testing.TB) (*exercises.Exercise, map[string]string) {
	dir := filepath.Join(t.TempDir(), "pack", "sturdy")
	starter := `name: sturdy
description: A 100 rec/s source into an operator that serves 40 rec/s.
duration: 20s
warmup: 5s
workers: {count: 4, slots: 2000}
sources:
  - name: src
    arrival: {process: constant, rate: 100/s}
operators:
  - name: work
    input: src
    partitioning: rebalance
    parallelism: 1
    service_time: {distribution: exponential, mean: 25ms}
sinks:
  - name: out
    input: work
    partitioning: rebalance
`
	files := map[string]string{
		"exercise.yaml": `id: sturdy
title: Keep up, whatever the submissions do
topics: [parallelism]
goals: [Give the operator the parallelism it needs]
starter: starter.yaml
editable:
  - description
  - duration
  - sources[src].arrival.rate
  - operators[work].parallelism
  - operators[work].partitioning
  - checkpoint
  - sinks[out].parallelism
  - sinks[out].partitioning
limits:
  max_events: 1000000000000
seeds: [1]
checks:
  - id: keeps-up
    metric: vertices[out].in_rate_rps
    op: ">="
    value: 95
    points: 4
    pass: The sink keeps up.
    fail: "The sink receives {value} records/s; it should get {want}."
  - id: runs
    metric: vertices[out].records_in
    op: ">="
    value: 1
    points: 1
`,
		"starter.yaml": starter,
		"README.md":    "# Keep up\n\nGive `work` the parallelism it needs.\n",
	}
	for name, data := range files {
		write(t, filepath.Join(dir, name), data)
	}
	p, err := exercises.OpenDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Get("sturdy")
	if err != nil {
		t.Fatal(err)
	}
	subs := map[string]string{
		"starter": starter,
		"good":    strings.Replace(starter, "parallelism: 1\n", "parallelism: 3\n", 1),
		"two":     strings.Replace(starter, "parallelism: 1\n", "parallelism: 2\n", 1),
		// a faster operator: not an editable field
		"forbidden": strings.Replace(starter, "mean: 25ms", "mean: 1ms", 1),
		"crash":     strings.Replace(starter, "description: A 100", "description: "+crashMarker+" A 100", 1),
		// memory the model does not count: past the worker's limit
		"oom": strings.Replace(starter, "description: A 100", "description: "+oomMarker+" A 100", 1),
		// unaligned checkpoints that pile up (issue 13 F3): the running
		// budget stops the run before the worker's limit
		"pileup": strings.NewReplacer("sources:", "checkpoint: {mode: unaligned, interval: 100ms, max_concurrent: 1000000, timeout: 2m, storage: {bandwidth: 1B/s}}\nsources:",
			"rate: 100/s", "rate: 1000/s", "duration: 20s", "duration: 10m").Replace(starter),
		// a million channels, a few hundred MB: refused before it runs
		"big": strings.NewReplacer("partitioning: rebalance\n    parallelism: 1\n", "partitioning: hash\n    parallelism: 1000\n",
			"input: work\n    partitioning: rebalance\n", "input: work\n    partitioning: hash\n    parallelism: 1000\n").Replace(starter),
		// a run that never ends (the simulator's speed varies with the
		// machine's load: a long simulation is not a reliable hang)
		"hang": strings.Replace(starter, "description: A 100", "description: "+hangMarker+" A 100", 1),
	}
	return e, subs
}

// TestIsolation: a submission whose simulation crashes the process (a Go
// fatal error), runs out of memory (past the worker's limit) or out of
// time (past the wall-clock limit) gets 0 with the reason, and the others
// in the same batch are graded as in process. In process, the crash and
// the out-of-memory would kill the grading process itself, and the hang
// would never end.
func TestIsolation(t *testing.T) {
	e, texts := sturdy(t)
	dir := filepath.Join(t.TempDir(), "class")
	for _, id := range []string{"starter", "good", "crash", "oom", "hang", "big", "pileup"} {
		write(t, filepath.Join(dir, id, ScenarioFile), texts[id])
	}
	subs, err := Collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(e, Options{Isolate: testIsolation(t, 128<<20, testTimeout)})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := g.GradeAll(context.Background(), subs, BatchOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Result{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	want := map[string]string{
		"crash":  "the simulation crashed (exit status 2: fatal error: stack overflow); please report it with the submission",
		"oom":    "the simulation ran out of memory: it needs more than 128MiB, the limit per submission (--max-memory); lower what the scenario holds at once (parallelism, buffers, keys, checkpoints in flight, topics[].partitions, sinks[].dedup.bloom_bits)",
		"hang":   "the simulation was stopped after 8s of wall-clock time, the limit per submission (--timeout)",
		"big":    `refused before running: scenario "scenario.yaml": about 290.3MiB of memory before any record (1001000 channels, 2001 subtasks) exceeds the limit of 128MiB; lower the parallelism of all-to-all edges, or raise --max-memory`,
		"pileup": "the run on seed 1 was stopped: at 9.5s, the run holds about 14.19MiB (limit 14.05MiB): 95 checkpoints in progress, which persisted 364839 in-flight records; checkpoints that do not complete pile up (the checkpoint storage is too slow for what they upload, or max_concurrent and the timeout let too many run at once); beside the job's structures a run may hold 1/8 of the memory limit per submission (--max-memory 128MiB), the rest is the runtime's",
	}
	for id, reason := range want {
		r := byID[id]
		if r.Score != 0 || len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], reason) {
			t.Errorf("%s: %s points, problems %q; want 0 and %q", id, points(r.Score), r.Problems, reason)
		}
		if !strings.Contains(string(g.Summary(rs)), "- **"+id+"** (0): "+mdText(reason)) {
			t.Errorf("summary.md does not give %s's reason:\n%s", id, g.Summary(rs))
		}
	}
	// the others: the same results as in process, byte for byte
	inProc, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"good", "starter"} {
		want, err := inProc.Grade(context.Background(), Submission{ID: id, Path: filepath.Join(dir, id)})
		if err != nil {
			t.Fatal(err)
		}
		if got := byID[id]; !bytes.Equal(got.JSON(), want.JSON()) {
			t.Errorf("%s in a worker:\n%s\nin process:\n%s", id, got.JSON(), want.JSON())
		}
	}
	if byID["good"].Score != 5 || byID["starter"].Score != 1 {
		t.Errorf("good %s, starter %s: want 5 and 1", points(byID["good"].Score), points(byID["starter"].Score))
	}
}

// TestBatchOfFifty grades a class of 50 in worker processes, five of the
// submissions hostile: two crash the simulator, one runs out of memory,
// one is a symbolic link to a folder outside, and one, Student07, clashes
// with student07 and student07-2 (and changes a field it may not). The
// batch must finish with the 45 others' grades on their own rows, and the
// five at 0 with their reasons in grades.csv, their feedback and
// summary.md. (A submission that runs out of time is TestIsolation's: in
// a batch it costs the whole wall-clock limit, testTimeout, which this
// test would wait a second time for the same check.)
func TestBatchOfFifty(t *testing.T) {
	e, texts := sturdy(t)
	dir := filepath.Join(t.TempDir(), "class")
	want := map[string]float64{} // by source folder
	kinds := []string{"good", "two", "starter"}
	score := map[string]float64{"good": 5, "two": 1, "starter": 1}
	names := []string{"student07-2"}
	for i := 1; i <= 44; i++ {
		names = append(names, fmt.Sprintf("student%02d", i))
	}
	for i, name := range names {
		kind := kinds[i%len(kinds)]
		write(t, filepath.Join(dir, name, ScenarioFile), texts[kind])
		want[name] = score[kind]
	}
	reasons := map[string]string{
		"student45": "the simulation crashed (exit status 2: fatal error: stack overflow)",
		"student46": "the simulation ran out of memory: it needs more than 128MiB",
		"student47": "the simulation crashed (exit status 2: fatal error: stack overflow)",
		"student48": "student48 is a symbolic link: a submission is read only from the submissions' directory",
		"Student07": "changed a field you may not change: operators[work].service_time.mean",
	}
	for name, kind := range map[string]string{"student45": "crash", "student46": "oom", "student47": "crash", "Student07": "forbidden"} {
		write(t, filepath.Join(dir, name, ScenarioFile), texts[kind])
	}
	outside := filepath.Join(t.TempDir(), "elsewhere")
	write(t, filepath.Join(outside, ScenarioFile), texts["good"])
	if err := os.Symlink(outside, filepath.Join(dir, "student48")); err != nil {
		t.Fatal(err)
	}
	subs, err := Collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 50 {
		t.Fatalf("%d submissions, want 50", len(subs))
	}
	g, err := New(e, Options{Isolate: testIsolation(t, 128<<20, testTimeout)})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := g.GradeAll(context.Background(), subs, BatchOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "grades")
	if _, err := g.WriteReports(out, rs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(slurp(t, filepath.Join(out, GradesFile)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	summary := slurp(t, filepath.Join(out, SummaryFile))
	correct, zeros := 0, 0
	ids := map[string]bool{}
	for _, row := range rows[1:] {
		id, folder, got := row[0], filepath.Base(row[1]), row[2]
		if ids[strings.ToLower(id)] {
			t.Errorf("id %s twice", id)
		}
		ids[strings.ToLower(id)] = true
		if reason, hostile := reasons[folder]; hostile {
			fb := slurp(t, filepath.Join(out, FeedbackDir, id+".md"))
			if got != "0" || !strings.Contains(fb, mdText(reason)) || !strings.Contains(summary, "- **"+id+"** (0): "+mdText(reason)) {
				t.Errorf("%s (row %s): %s points, want 0 with %q in its feedback and summary.md:\n%s", folder, id, got, reason, fb)
				continue
			}
			zeros++
			continue
		}
		if got != points(want[folder]) {
			t.Errorf("%s (row %s): %s points, want %s", folder, id, got, points(want[folder]))
			continue
		}
		correct++
	}
	if correct != 45 || zeros != 5 {
		t.Errorf("%d correct grades and %d zeros of %d rows, want 45 and 5", correct, zeros, len(rows)-1)
	}
}

func slurp(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkGradeInProcess and BenchmarkGradeIsolated measure the cost of
// a worker process per submission: the tiny exercise's solution, three
// seeds.
func BenchmarkGradeInProcess(b *testing.B) { benchGrade(b, nil) }

func BenchmarkGradeIsolated(b *testing.B) {
	benchGrade(b, testIsolation(b, DefaultWorkerMemory, time.Minute))
}

func benchGrade(b *testing.B, iso *Isolation) {
	e := tiny(b)
	dir := filepath.Join(b.TempDir(), "good")
	data := read(b, e, "solution.yaml")
	write(b, filepath.Join(dir, ScenarioFile), data)
	write(b, filepath.Join(dir, AnswersFile), "which: work\nrate: 42\n")
	g, err := New(e, Options{Hidden: true, Isolate: iso})
	if err != nil {
		b.Fatal(err)
	}
	if err := g.Prepare(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := g.Grade(context.Background(), Submission{ID: "good", Path: dir})
		if err != nil || !r.Full() {
			b.Fatalf("%v %s", err, r.JSON())
		}
	}
}

// testTimeout is the wall-clock limit of the isolation tests: long enough
// that the out-of-memory submission reaches its memory limit first on a
// loaded machine (at 3s it did not, under a load average of 36), short
// enough that the hanging one costs the suite little.
const testTimeout = 8 * time.Second
