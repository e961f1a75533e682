package sweep

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dspalab/dspalab/internal/runfiles"
)

// TestMergeMemoryBounded (issue 13 F17): merge copies the rows of the
// shards one at a time, so its heap does not grow with the runs. Two
// shards of a tiny sweep are blown up to 8000 rows of 4 KiB each (31 MiB
// of CSV); the merged sweep.csv is every row in run order, and the live
// heap, sampled while merge runs, never grows by more than 24 MiB (holding
// the rows, as merge did before, takes more than 31 MiB).
func TestMergeMemoryBounded(t *testing.T) {
	const runs, pad = 8000, 4096
	var dirs []string
	for i := range 2 {
		o := Options{Scenario: tiny, Params: tinyParams(), Seeds: 1, Version: "test", OutDir: t.TempDir(), Shard: Shard{Index: i, Count: 2}}
		if err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		recs := readCSV(t, filepath.Join(o.OutDir, runfiles.SweepFile))
		header, row := recs[0], recs[1]
		f, err := os.Create(filepath.Join(o.OutDir, runfiles.SweepFile))
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		w := csv.NewWriter(bw)
		w.Write(header)
		last := len(row) - 1
		row[last] = strings.Repeat("x", pad)
		for r := i; r < runs; r += 2 {
			row[0] = strconv.Itoa(r)
			w.Write(row)
		}
		w.Flush()
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		mpath := filepath.Join(o.OutDir, runfiles.SweepManifestFile)
		data, _ := os.ReadFile(mpath)
		var m Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		m.Runs, m.ShardRuns, m.CompletedRuns = runs, runs/2, runs/2
		data, _ = json.Marshal(&m)
		os.WriteFile(mpath, data, 0o666)
		dirs = append(dirs, o.OutDir)
	}

	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 { metrics.Read(sample); return int64(sample[0].Value.Uint64()) }
	runtime.GC()
	base := heap()
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			peak.Store(max(peak.Load(), heap()))
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	out := t.TempDir()
	err := Merge(MergeOptions{Dirs: dirs, OutDir: out})
	close(done)
	<-stopped
	peak.Store(max(peak.Load(), heap()))
	if err != nil {
		t.Fatal(err)
	}
	grew := peak.Load() - base
	t.Logf("heap grew by %.1f MiB", float64(grew)/(1<<20))
	if grew > 24<<20 {
		t.Errorf("merging %d rows of %d bytes grew the heap by %.1f MiB, want at most 24 MiB", runs, pad, float64(grew)/(1<<20))
	}
	recs := readCSV(t, filepath.Join(out, runfiles.SweepFile))
	if len(recs) != runs+1 {
		t.Fatalf("merged %d rows, want %d", len(recs)-1, runs)
	}
	for r, rec := range recs[1:] {
		if rec[0] != strconv.Itoa(r) || len(rec[len(rec)-1]) != pad {
			t.Fatalf("merged row %d is run %s", r, rec[0])
		}
	}
}

// TestMergeRefusesBadRows: a shard's rows must be its runs in order, each
// once, as many as its sweep.json says; merge names the file and line of
// the first that is not, and writes nothing.
func TestMergeRefusesBadRows(t *testing.T) {
	var dirs []string
	for i := range 2 {
		o := Options{Scenario: tiny, Params: tinyParams(), Seeds: 2, Version: "test", OutDir: t.TempDir(), Shard: Shard{Index: i, Count: 2}}
		if err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, o.OutDir)
	}
	csv1 := filepath.Join(dirs[1], runfiles.SweepFile)
	orig, err := os.ReadFile(csv1)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(orig), "\n") // header, runs 1 3 5 7, ""
	for name, c := range map[string]struct{ text, want string }{
		"swapped":   {lines[0] + lines[2] + lines[1] + lines[3] + lines[4], csv1 + `:2: run "3" where run 1 was due`},
		"twice":     {lines[0] + lines[1] + lines[1] + lines[3] + lines[4], csv1 + `:3: run "1" where run 3 was due`},
		"short":     {lines[0] + lines[1] + lines[2] + lines[3], csv1 + " has 3 runs, its sweep.json says 4"},
		"past":      {lines[0] + lines[1] + lines[2] + lines[3] + lines[4] + strings.Replace(lines[4], "7,", "9,", 1), csv1 + `:6: run "9" is past the 8 runs of the sweep`},
		"not sweep": {"a,b\n", csv1 + ` is not a sweep's CSV`},
	} {
		if err := os.WriteFile(csv1, []byte(c.text), 0o666); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		err := Merge(MergeOptions{Dirs: dirs, OutDir: out})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			t.Errorf("%s: merge wrote %v", name, entries)
		}
	}
}
