package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
)

// batchFrame runs the batch view of the built-in name in the test mode:
// it presses keys, advances to simulated time to and returns the last
// frame (colours stripped), checking its size.
func batchFrame(t *testing.T, name string, w, h int, keys []string, to des.Time) (string, *BatchSnapshot) {
	t.Helper()
	sc := builtin(t, name)
	job := BatchJob{Label: name, Scenario: sc, Start: func() (*microbatch.Sim, error) { return microbatch.New(sc, microbatch.Options{}) }}
	e, err := newBatchEngine(job, engineConfig{manual: true, speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go e.run(ctx)
	t.Cleanup(func() {
		e.send(command{kind: cmdQuit})
		<-e.done
		cancel()
	})
	m := newBatchModel(job, e)
	m.quitWhen = func(s *BatchSnapshot) bool { return s.Now >= to || s.State == Stopped }
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	for _, k := range keys {
		tm.Send(press(k))
	}
	tm.Send(advanceMsg{to})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(batchModel)
	if _, err := io.ReadAll(tm.FinalOutput(t)); err != nil {
		t.Fatal(err)
	}
	view := fm.View()
	lines := strings.Split(view.Content, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("line %d is %d wide, more than %d", i+1, ansi.StringWidth(l), w)
		}
	}
	return ansi.Strip(view.Content) + "\n", fm.snap
}

// TestGoldenBatches compares frames of the batch timeline with
// testdata/TestGoldenBatches/*.golden (go test -update rewrites them):
// spark-unstable, whose batches queue (processing time 1.3s per batch
// of 1s), and spark-backpressure, whose PID rate converges after the
// burst; and the help, which names the panes.
func TestGoldenBatches(t *testing.T) {
	for _, tc := range []struct {
		name, scenario string
		w, h           int
		keys           []string
		to             des.Time
	}{
		{"unstable_20s_100x32", "spark-unstable", 100, 32, nil, 20 * des.Second},
		{"backpressure_60s_100x32", "spark-backpressure", 100, 32, nil, 60 * des.Second},
		{"help_10s_80x24", "spark-unstable", 80, 24, []string{"?"}, 10 * des.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := batchFrame(t, tc.scenario, tc.w, tc.h, tc.keys, tc.to)
			golden.RequireEqual(t, got)
		})
	}
}

// TestBatchTimeline checks the snapshot against the run itself: at 20s
// of spark-unstable the queue holds the batches cut and not done, the
// same as a run without the view.
func TestBatchTimeline(t *testing.T) {
	_, snap := batchFrame(t, "spark-unstable", 100, 32, nil, 20*des.Second)
	sc := builtin(t, "spark-unstable")
	s, err := microbatch.New(sc, microbatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), 20*des.Second); err != nil {
		t.Fatal(err)
	}
	want := s.Timeline(batchHistory)
	cut := int(20 * des.Second / sc.Spark.BatchInterval) // batches cut by 20s
	running := 0
	if want.Running != nil {
		running = 1
	}
	if got := want.Completed + len(want.Queued) + running; got != cut {
		t.Errorf("done + queued + running = %d, want the %d batches cut by 20s", got, cut)
	}
	if len(want.Queued) == 0 {
		t.Error("no batch queued at 20s of spark-unstable")
	}
	if snap.Completed != want.Completed || len(snap.Queued) != len(want.Queued) || snap.Now != want.Now {
		t.Errorf("the view's snapshot: %d done, %d queued at %v; the run: %d, %d at %v", snap.Completed, len(snap.Queued), snap.Now, want.Completed, len(want.Queued), want.Now)
	}
}
