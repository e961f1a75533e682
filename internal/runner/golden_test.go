package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
)

// updateGolden rewrites testdata/golden from the current code:
//
//	go test ./internal/runner -run TestBuiltinGolden -update-golden
//
// A commit that changes a golden file says why in its message; a
// restructuring keeps them byte-identical.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden from this run")

// goldenDigested are the output files kept as SHA-256 digests, being large;
// the others are kept whole, so that a change to them reads as a diff.
var goldenDigested = map[string]bool{"timeseries.csv": true, "checkpoint_subtasks.csv": true, "partitions.csv": true}

// TestBuiltinGolden runs every built-in scenario with its own seed and
// compares what it prints and every output file with testdata/golden/NAME:
// the table (table.txt), summary.json, events.jsonl and checkpoints.csv
// whole, timeseries.csv and checkpoint_subtasks.csv by SHA-256
// (digests.txt). It is the guard of the model: the same scenario and seed
// give byte-identical outputs, and a change to the numbers is deliberate.
func TestBuiltinGolden(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			var stdout bytes.Buffer
			if err := Run(context.Background(), Options{Scenario: name, OutDir: out, Stdout: &stdout}); err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{"table.txt": stdout.Bytes()}
			var digests strings.Builder
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(out, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if goldenDigested[e.Name()] {
					sum := sha256.Sum256(b)
					fmt.Fprintf(&digests, "%s  %s\n", hex.EncodeToString(sum[:]), e.Name())
					continue
				}
				got[e.Name()] = b
			}
			got["digests.txt"] = []byte(digests.String())
			dir := filepath.Join("testdata", "golden", name)
			if *updateGolden {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(dir, 0o777); err != nil {
					t.Fatal(err)
				}
				for f, b := range got {
					if err := os.WriteFile(filepath.Join(dir, f), b, 0o666); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want, err := os.ReadDir(dir)
			if err != nil {
				t.Fatalf("%v (run with -update-golden to create it)", err)
			}
			for _, e := range want {
				if _, ok := got[e.Name()]; !ok {
					t.Errorf("%s: the run no longer writes %s", name, e.Name())
				}
			}
			for f, b := range got {
				w, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Errorf("%s: %s is new: %v", name, f, err)
					continue
				}
				if !bytes.Equal(b, w) {
					t.Errorf("%s: %s differs from %s (%d bytes, golden %d): %s",
						name, f, filepath.Join(dir, f), len(b), len(w), firstDiff(b, w))
				}
			}
		})
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  got:  %.200s\n  want: %.200s", i+1, gl, wl)
		}
	}
	return "same lines"
}

// TestChainingOffIsToday runs every built-in scenario with chaining: false
// and compares each output with its SHA-256 from before operator chaining
// (testdata/unchained.sha256): turning chaining off gives the model as it
// was, byte for byte, but for summary.json's new "tasks" list and each
// vertex's "task" name, which are left out.
func TestChainingOffIsToday(t *testing.T) {
	taskFields := regexp.MustCompile(`(?m)^ *"task": .*\n|(?ms)^  "tasks": \[\n.*?^  \],\n`)
	b, err := os.ReadFile(filepath.Join("testdata", "unchained.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && !strings.HasPrefix(line, "#") {
			if want[f[0]] == nil {
				want[f[0]] = map[string]string{}
			}
			want[f[0]][f[1]] = f[2]
		}
	}
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text, err := scenarios.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(text, []byte("\nengine: spark-streaming")) || bytes.Contains(text, []byte("\nengine: structured-streaming")) {
				t.Skip("chaining is Flink's")
			}
			if addedAfterChaining[name] {
				t.Skip("added after operator chaining: there are no outputs from before it")
			}
			dir := t.TempDir()
			file := filepath.Join(dir, name+".yaml")
			if !bytes.Contains(text, []byte("\nchaining: false")) {
				text = append(text, "\nchaining: false\n"...)
			}
			if err := os.WriteFile(file, text, 0o666); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			var stdout bytes.Buffer
			if err := Run(context.Background(), Options{Scenario: file, OutDir: out, Stdout: &stdout}); err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{"table.txt": stdout.Bytes()}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if got[e.Name()], err = os.ReadFile(filepath.Join(out, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
			if len(want[name]) == 0 {
				t.Fatalf("%s: not in testdata/unchained.sha256", name)
			}
			got["summary.json"] = taskFields.ReplaceAll(got["summary.json"], nil)
			for f, h := range want[name] {
				sum := sha256.Sum256(got[f])
				if hex.EncodeToString(sum[:]) != h {
					t.Errorf("%s with chaining: false: %s differs from before chaining (sha256 %x)", name, f, sum)
				}
			}
		})
	}
}

// addedAfterChaining are the built-ins added after operator chaining
// (b829db5), which TestChainingOffIsToday has no outputs of.
var addedAfterChaining = map[string]bool{
	"same-workload-flink": true, "retention-loss": true, "millwheel-vs-barriers": true, "pubsub": true, "exactly-once-topic": true,
	// event time (issue 14)
	"idle-source": true, "session-windows": true, "trace-event-counts": true,
	"watermark-bound": true, "window-functions": true, "window-join": true,
	"backpressure-watermarks": true,
	// load shedding and the message queue (issue 15)
	"shedding-p99": true, "queue-vs-log": true,
	"consumer-group-rebalance": true,
}
