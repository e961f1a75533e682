package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// readDir returns the files of dir by name (directories as "<dir>").
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			files[e.Name()] = "<dir>"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// F7: files of the user's that carry the names of optional outputs
// (checkpoints.csv, checkpoint_subtasks.csv, actions.jsonl) survive a run
// that writes none, and refuse one that would write them; the same files written by an earlier dspalab run (its
// run.json lists them) are removed, so the directory holds one run. A
// run.json that is not dspalab's is never replaced.
func TestRunKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	user := map[string]string{
		runfiles.CheckpointsFile:        "my checkpoint notes\n",
		runfiles.CheckpointSubtasksFile: "my subtasks\n",
		runfiles.ActionsFile:            "my actions\n",
		"notes.txt":                     "notes\n",
	}
	for name, data := range user {
		writeFile(t, dir, name, data)
	}
	if err := Run(context.Background(), Options{Scenario: "mm1", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	got := readDir(t, dir)
	for name, data := range user {
		if got[name] != data {
			t.Errorf("%s = %q after the run, want the user's %q", name, got[name], data)
		}
	}
	if !strings.Contains(got[runfiles.ManifestFile], `"summary.json"`) || strings.Contains(got[runfiles.ManifestFile], runfiles.CheckpointsFile) {
		t.Errorf("run.json:\n%s", got[runfiles.ManifestFile])
	}

	// a run with checkpoints is refused before running: it would
	// overwrite the user's checkpoint files
	err := Run(context.Background(), Options{Scenario: "checkpoint-aligned", Duration: durationPtr(t, "45s"), OutDir: dir})
	if err == nil || !strings.Contains(err.Error(), "checkpoint") || !strings.Contains(err.Error(), "was not written by a dspalab run") {
		t.Fatalf("a run with checkpoints over the user's checkpoint files: err = %v", err)
	}
	if got := readDir(t, dir); got[runfiles.CheckpointsFile] != user[runfiles.CheckpointsFile] {
		t.Fatalf("the user's checkpoints.csv is now %.40q", got[runfiles.CheckpointsFile])
	}

	// moved away, a run with checkpoints writes them (they are its
	// outputs now), and a run without removes them: dspalab wrote them
	os.Remove(filepath.Join(dir, runfiles.CheckpointsFile))
	os.Remove(filepath.Join(dir, runfiles.CheckpointSubtasksFile))
	if err := Run(context.Background(), Options{Scenario: "checkpoint-aligned", Duration: durationPtr(t, "45s"), OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	got = readDir(t, dir)
	if !strings.HasPrefix(got[runfiles.CheckpointsFile], "checkpoint_id,") || got[runfiles.ActionsFile] != user[runfiles.ActionsFile] {
		t.Fatalf("after a run with checkpoints: checkpoints.csv %.40q, actions.jsonl %q", got[runfiles.CheckpointsFile], got[runfiles.ActionsFile])
	}
	if err := Run(context.Background(), Options{Scenario: "mm1", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	got = readDir(t, dir)
	if _, ok := got[runfiles.CheckpointsFile]; ok {
		t.Errorf("checkpoints.csv of the earlier run was left")
	}
	if _, ok := got[runfiles.CheckpointSubtasksFile]; ok {
		t.Errorf("checkpoint_subtasks.csv of the earlier run was left")
	}
	if got[runfiles.ActionsFile] != user[runfiles.ActionsFile] || got["notes.txt"] != user["notes.txt"] {
		t.Errorf("the user's actions.jsonl or notes.txt changed")
	}

	// a run.json of the user's: refused before running, nothing replaced
	other := t.TempDir()
	writeFile(t, other, runfiles.ManifestFile, `{"mine": true}`)
	err = Run(context.Background(), Options{Scenario: "mm1", OutDir: other})
	if err == nil || !strings.Contains(err.Error(), "run.json is not the manifest of a dspalab run; nothing was replaced") {
		t.Errorf("a run.json of the user's: err = %v", err)
	}
	if got := readDir(t, other); len(got) != 1 || got[runfiles.ManifestFile] != `{"mine": true}` {
		t.Errorf("the directory changed: %v", got)
	}
}

// F6: Ctrl-C into a directory that holds a complete run keeps it: the
// partial outputs go to DIR/partial, and the error says so. Into a
// directory holding a partial run (or none), they replace it in place.
func TestRunInterruptedKeepsCompleteRun(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "fast.yaml", fastYAML)
	out := filepath.Join(dir, "out")
	if err := Run(context.Background(), Options{Scenario: "mm1", OutDir: out}); err != nil {
		t.Fatal(err)
	}
	complete := readDir(t, out)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	err := Run(ctx, Options{Scenario: file, OutDir: out, Stderr: &stderr})
	partial := checkKeptComplete(t, err, out, stderr.String(), complete)
	got := readDir(t, out)
	delete(got, runfiles.PartialDir)
	if len(got) != len(complete) {
		t.Errorf("the complete run's directory holds %d entries, had %d", len(got), len(complete))
	}
	p := readDir(t, partial)
	if !strings.Contains(p[runfiles.SummaryFile], `"partial": true`) || !strings.Contains(p[runfiles.ManifestFile], `"partial": true`) {
		t.Errorf("partial/summary.json:\n%.300s", p[runfiles.SummaryFile])
	}

	// a partial run in the directory is replaced by the next one
	only := filepath.Join(dir, "only-partial")
	for range 2 {
		var ie *InterruptedError
		if err := Run(ctx, Options{Scenario: file, OutDir: only}); !errors.As(err, &ie) || ie.Kept != "" {
			t.Fatalf("err = %v, want an InterruptedError that kept nothing", err)
		}
	}
	if _, err := os.Stat(filepath.Join(only, runfiles.PartialDir)); err == nil {
		t.Error("a partial run was kept as if complete")
	}
}

// F8: two runs into one directory at once do not mix their files: one
// holds the directory, the other is refused (a *runfiles.BusyError) and
// changes nothing; what the directory holds is one run's files.
func TestRunConcurrentOutDir(t *testing.T) {
	dir := t.TempDir()
	d, err := runfiles.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Run(context.Background(), Options{Scenario: "mm1", OutDir: dir})
	var be *runfiles.BusyError
	if !errors.As(err, &be) || err.Error() != dir+" is being written by another dspalab command; nothing was written (wait for it to finish, or choose another --out)" {
		t.Errorf("a locked directory: err = %v", err)
	}
	d.Close()
	if got := readDir(t, dir); len(got) != 0 {
		t.Errorf("the refused run wrote %v", got)
	}

	// two at once, with different seeds: whichever wins, its files
	// are all its own
	solo := map[uint64]map[string]string{}
	for _, seed := range []uint64{1, 2} {
		out := filepath.Join(t.TempDir(), "solo")
		if err := Run(context.Background(), Options{Scenario: "backpressure", Seed: &seed, OutDir: out}); err != nil {
			t.Fatal(err)
		}
		solo[seed] = readDir(t, out)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, seed := range []uint64{1, 2} {
		wg.Go(func() {
			errs[i] = Run(context.Background(), Options{Scenario: "backpressure", Seed: &seed, OutDir: shared})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !errors.As(err, &be) {
			t.Errorf("a concurrent run failed otherwise: %v", err)
		}
	}
	if ok == 0 {
		t.Fatal("neither run wrote its files")
	}
	got := readDir(t, shared)
	match := 0
	for _, want := range solo {
		same := len(got) == len(want)
		for name, data := range want {
			same = same && got[name] == data
		}
		if same {
			match++
		}
	}
	if match != 1 {
		t.Errorf("the shared directory holds a mix of the two runs (%d entries)", len(got))
	}
}

// durationPtr parses a --duration value.
func durationPtr(t *testing.T, s string) *des.Time {
	t.Helper()
	d, err := scenario.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

// A micro-batch run interrupted into a directory holding a complete run
// keeps it as a Flink run does, and its messages name DIR/partial, where
// its files went (they named DIR's files, the kept run's).
func TestMicroBatchInterruptedKeepsCompleteRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if err := Run(context.Background(), Options{Scenario: "spark-unstable", OutDir: out}); err != nil {
		t.Fatal(err)
	}
	complete := readDir(t, out)
	long := writeFile(t, t.TempDir(), "long.yaml", `duration: 1h
engine: spark-streaming
spark: {batch_interval: 1s}
sources:
  - name: src
    arrival: {process: constant, rate: 100/s}
sinks:
  - name: out
    input: src
`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	err := Run(ctx, Options{Scenario: long, OutDir: out, Stderr: &stderr})
	partial := checkKeptComplete(t, err, out, stderr.String(), complete)
	if p := readDir(t, partial); !strings.Contains(p[runfiles.SummaryFile], `"partial": true`) {
		t.Errorf("partial/summary.json:\n%.300s", p[runfiles.SummaryFile])
	}
}

// checkKeptComplete checks an interrupted run into out, which held the
// complete run complete: err is an InterruptedError that names out as
// kept and out/partial as where the partial outputs are, stderr says it
// wrote there, and the complete run's files are unchanged. It returns
// out/partial.
func checkKeptComplete(t *testing.T, err error, out, stderr string, complete map[string]string) string {
	t.Helper()
	var ie *InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want an InterruptedError", err)
	}
	partial := filepath.Join(out, runfiles.PartialDir)
	if ie.Kept != out || ie.Partial != partial ||
		!strings.HasSuffix(err.Error(), "the outputs are partial and are in "+partial+" ("+out+" holds a complete earlier run, which was kept)") {
		t.Errorf("err = %v", err)
	}
	if want := "wrote " + filepath.Join(partial, runfiles.SummaryFile) + ", "; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	got := readDir(t, out)
	delete(got, runfiles.PartialDir)
	for name, data := range complete {
		if got[name] != data {
			t.Errorf("%s of the complete run changed", name)
		}
	}
	return partial
}
