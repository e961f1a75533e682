package grading

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/exercises"
)

// traced writes an exercise whose source replays rides.csv of its folder,
// and whose trace file and malformed-line policy a submission may change.
// It returns the exercise and its starter.
func traced(t *testing.T) (*exercises.Exercise, string) {
	dir := filepath.Join(t.TempDir(), "pack", "traced")
	starter := `name: traced
description: Rides replayed from rides.csv.
duration: 10s
sources:
  - name: src
    arrival:
      process: trace
      trace:
        file: rides.csv
        columns: [t, driver]
        time_column: t
        time_unit: s
        key_column: driver
        malformed: skip
operators:
  - name: work
    input: src
    service_time: {distribution: constant, mean: 1ms}
sinks:
  - name: out
    input: work
`
	var rides strings.Builder
	for i := range 50 {
		fmt.Fprintf(&rides, "%d,%d\n", i/5, i%7)
	}
	files := map[string]string{
		"exercise.yaml": `id: traced
title: Replay the rides
topics: [traces]
goals: [Replay a file]
starter: starter.yaml
editable:
  - sources[src].arrival.trace.file
  - sources[src].arrival.trace.malformed
seeds: [1]
checks:
  - id: all
    metric: vertices[out].records_in
    op: ">="
    value: 50
    points: 1
`,
		"starter.yaml":  starter,
		"solution.yaml": "# SECRET: the instructor's solution, line one\n" + starter,
		"README.md":     "# Rides\n",
		"rides.csv":     rides.String(),
		"more.csv":      rides.String(),
		"bad.csv":       "when,who\n",
	}
	for name, data := range files {
		write(t, filepath.Join(dir, name), data)
	}
	p, err := exercises.OpenDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Get("traced")
	if err != nil {
		t.Fatal(err)
	}
	return e, starter
}

// TestTraceFiles (F12): a submission may replay only the data files of
// the exercise's folder (.csv, .csv.gz), never its other files (the
// solution, exercise.yaml) nor anything outside it through a link; no
// message names an absolute path or quotes another file.
func TestTraceFiles(t *testing.T) {
	e, starter := traced(t)
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.csv")
	write(t, outside, "SECRET-OUTSIDE,1\n")
	if err := os.Symlink(outside, filepath.Join(e.BaseDir(), "linked.csv")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, malformed, want string }{
		{"solution.yaml", "strict", "not a data file of the exercise"},
		{"solution.yaml", "skip", "not a data file of the exercise"},
		{"exercise.yaml", "strict", "not a data file of the exercise"},
		{"linked.csv", "strict", "linked.csv"},
		{"missing.csv", "strict", "the exercise has no data file missing.csv"},
		// the exercise's data, malformed: named as the submission wrote it
		{"bad.csv", "strict", "line 1 of bad.csv, in the trace of source src, is malformed"},
	} {
		sub := strings.NewReplacer("file: rides.csv", "file: "+c.file, "malformed: skip", "malformed: "+c.malformed).Replace(starter)
		r, err := g.GradeYAML(context.Background(), "x", ScenarioFile, []byte(sub), nil)
		if err != nil {
			t.Fatal(err)
		}
		all := string(r.JSON()) + string(r.Markdown(e))
		if r.Score != 0 || !strings.Contains(all, c.want) {
			t.Errorf("file %s (%s): %s points, want 0 and %q:\n%s", c.file, c.malformed, points(r.Score), c.want, all)
		}
		for _, leak := range []string{"SECRET", e.BaseDir(), outside, string(filepath.Separator) + "tmp"} {
			if strings.Contains(all, leak) {
				t.Errorf("file %s (%s): the feedback shows %q:\n%s", c.file, c.malformed, leak, all)
			}
		}
	}
	for _, file := range []string{"rides.csv", "more.csv"} {
		r, err := g.GradeYAML(context.Background(), "x", ScenarioFile, []byte(strings.Replace(starter, "file: rides.csv", "file: "+file, 1)), nil)
		if err != nil || r.Score != 1 {
			t.Errorf("file %s: %v, %s", file, err, r.JSON())
		}
	}
}
