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
var goldenDigested = map[string]bool{"timeseries.csv": true, "checkpoint_subtasks.csv": true}

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
