package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
)

// A scenario of a micro-batch engine runs on sim/microbatch: its table,
// its files (batches.csv beside summary.json, timeseries.csv and
// events.jsonl, listed in run.json), --json, and no live view.
func TestRunMicroBatch(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), Options{Scenario: "spark-unstable", OutDir: out, Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "\n  falls behind: processing time 1.302s > batch interval 1s") {
		t.Errorf("table:\n%s", stdout.String())
	}
	m, err := os.ReadFile(filepath.Join(out, runfiles.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var man runfiles.Manifest
	if err := json.Unmarshal(m, &man); err != nil || !slices.Equal(man.Files, runfiles.MicroBatchNames(false)) || man.Partial {
		t.Fatalf("manifest %s (%v)", m, err)
	}
	b, err := os.ReadFile(filepath.Join(out, runfiles.BatchesFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != strings.Join(microbatch.BatchColumns, ",") || len(lines) != 1+45 || !strings.HasPrefix(lines[2], "2,2,1000,,302,1302,1604,") {
		t.Errorf("batches.csv: %d lines, %q, %q", len(lines), lines[0], lines[2])
	}
	if !strings.HasSuffix(strings.TrimSpace(stderr.String()), filepath.Join(out, runfiles.BatchesFile)) {
		t.Errorf("stderr %q", stderr.String())
	}

	stdout.Reset()
	if err := Run(context.Background(), Options{Scenario: "spark-unstable", JSON: true, Stdout: &stdout}); err != nil {
		t.Fatal(err)
	}
	var sum microbatch.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || sum.Engine != "spark-streaming" || sum.Streaming.SchedulingDelayGrowthMs != 302 {
		t.Errorf("json: %v %+v", err, sum.Streaming)
	}

	err = Run(context.Background(), Options{Scenario: "spark-unstable", Live: func(context.Context, LiveRun) (*sim.Sim, error) { return nil, nil }})
	var oe *OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "this live view shows Flink runs only") {
		t.Errorf("live: %v", err)
	}

	// the batch view drives the run: the first start is the simulation
	// built by Run, a restart another; quit at 20s, the summary is the
	// partial run's (20 batches cut, 14 done: 302ms more per batch)
	starts := 0
	stdout.Reset()
	err = Run(context.Background(), Options{Scenario: "spark-unstable", JSON: true, Stdout: &stdout,
		LiveBatches: func(ctx context.Context, r LiveBatchRun) (*microbatch.Sim, error) {
			var s *microbatch.Sim
			for range 2 { // start, restart
				var err error
				if s, err = r.Start(); err != nil {
					return nil, err
				}
				starts++
				if err := s.RunUntil(ctx, 20*des.Second); err != nil {
					return s, err
				}
			}
			return s, nil
		}})
	if err != nil || starts != 2 {
		t.Fatalf("live batches: %v, %d starts", err, starts)
	}
	sum = microbatch.Summary{}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || !sum.Partial || sum.SimulatedS != 20 || sum.Totals.Batches != 14 {
		t.Errorf("live batches json: %v partial %v at %vs, %d batches", err, sum.Partial, sum.SimulatedS, sum.Totals.Batches)
	}
	// replayed actions: a failure of parse[1] at 5.5s (batch 4's job,
	// 4.906s..6.208s: 1.302s plus the task again, 2ms + 500 x 1.8ms),
	// then a stop at 12s; actions.jsonl holds them again
	rdir := t.TempDir()
	acts := []sim.Action{{AtS: 5.5, Kind: sim.ActionFailure, Vertex: "parse", Subtask: 1}, {AtS: 12, Kind: runfiles.ActionStop}}
	stdout.Reset()
	if err := Run(context.Background(), Options{Scenario: "spark-unstable", JSON: true, Stdout: &stdout, OutDir: rdir, Actions: acts}); err != nil {
		t.Fatal(err)
	}
	sum = microbatch.Summary{}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || !sum.Partial || sum.SimulatedS != 12 || sum.Recovery == nil || sum.Recovery.FailedTasks != 1 || sum.Recovery.RecomputeS != 0.902 {
		t.Errorf("replay json: %v partial %v at %vs, recovery %+v", err, sum.Partial, sum.SimulatedS, sum.Recovery)
	}
	f, err := os.Open(filepath.Join(rdir, runfiles.ActionsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := runfiles.ReadActions(f, runfiles.ActionsFile)
	if err != nil || len(back) != 2 || back[0].Vertex != "parse" || back[0].AtS != 5.5 || back[1].Kind != runfiles.ActionStop || back[1].AtS != 12 {
		t.Errorf("actions.jsonl: %v %+v", err, back)
	}
	err = Run(context.Background(), Options{Scenario: "spark-unstable", Actions: []sim.Action{{AtS: 1, Kind: sim.ActionCheckpoint}}})
	if err == nil || !strings.Contains(err.Error(), "replaying action 1 (checkpoint at 1s): a micro-batch job writes its state checkpoints every checkpoint_interval") {
		t.Errorf("replayed checkpoint: %v", err)
	}
}
