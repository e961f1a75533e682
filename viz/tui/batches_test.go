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

	"github.com/dspalab/dspalab/sim"
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
	m := newBatchModel(job, e, e.sim.Vertices())
	ctx, cancel := context.WithCancel(context.Background())
	go e.run(ctx)
	t.Cleanup(func() {
		e.send(command{kind: cmdQuit})
		<-e.done
		cancel()
	})
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

// f in the batch view fails the selected task (tab and → pick parse[1]
// of spark-unstable): injected at 0s, with no job running, it fails the
// task's attempt in batch 1's job, which takes 1.302s + 902ms (the task
// again: 2ms + 500 records x 1.8ms); c is refused, and the view says why.
func TestBatchViewInjectsFailure(t *testing.T) {
	frame, snap := batchFrame(t, "spark-unstable", 100, 32, []string{"tab", "right", "f", "c"}, 5*des.Second)
	if len(snap.Done) == 0 || snap.Done[0].FailedTasks != 1 || snap.Done[0].ProcessingMs != 2204 {
		t.Fatalf("batch 1: %+v", snap.Done)
	}
	injected := false
	for _, e := range snap.Events {
		injected = injected || e.Type == sim.EventAction && e.Message == "failure injected into parse[1]"
	}
	if !injected {
		t.Errorf("no action event in %+v", snap.Events)
	}
	if !strings.Contains(snap.Notice, "checkpoint refused (nothing applied or recorded): a micro-batch job writes its state checkpoints") ||
		!strings.Contains(frame, "checkpoint refused") || !strings.Contains(frame, "f/F fail parse[1]") {
		t.Errorf("notice %q; frame:\n%s", snap.Notice, frame)
	}
}

// While spark-recovery's driver is down (62.1s to 82.1s) the header says
// so: no batch runs, however the timeline looks.
func TestBatchViewDriverDown(t *testing.T) {
	frame, snap := batchFrame(t, "spark-recovery", 100, 32, nil, 70*des.Second)
	if len(snap.Rows) == 0 || snap.Rows[len(snap.Rows)-1].Status != "down" || !strings.Contains(frame, "the driver is down: no batch runs until it restarts") {
		t.Errorf("at 70s of spark-recovery; frame:\n%s", frame)
	}
	frame, _ = batchFrame(t, "spark-recovery", 100, 32, nil, 90*des.Second)
	if strings.Contains(frame, "the driver is down") {
		t.Errorf("at 90s, after the restart; frame:\n%s", frame)
	}
}
