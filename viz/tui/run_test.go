package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dspalab/dspalab/sim/des"
)

// TestRunQuitAndInterrupt checks how the view ends: q quits (no error,
// the run stopped where it stood), while ctrl+c is an interrupt as SIGINT
// is for dspalab run: Run calls Options.Interrupt and returns the
// context's error, and the simulation says it was interrupted.
func TestRunQuitAndInterrupt(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		interrupt   bool
	}{
		{"q", "q", false},
		{"ctrl+c", "\x03", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			called := false
			s, err := Run(ctx, testJob(builtin(t, "backpressure")), Options{Speed: 1, Paused: true,
				Interrupt: func() { called = true; cancel() },
				ProgramOptions: []tea.ProgramOption{tea.WithInput(strings.NewReader(tc.input)), tea.WithOutput(io.Discard),
					tea.WithWindowSize(80, 24)}})
			if s == nil {
				t.Fatalf("no simulation (error %v)", err)
			}
			reason := s.Result().Summary.PartialReason
			if !tc.interrupt {
				if err != nil || called || !strings.HasPrefix(reason, "stopped") {
					t.Errorf("q: error %v, Interrupt called %v, partial reason %q", err, called, reason)
				}
				return
			}
			if !errors.Is(err, context.Canceled) || !called || !strings.HasPrefix(reason, "interrupted") {
				t.Errorf("ctrl+c: error %v, Interrupt called %v, partial reason %q", err, called, reason)
			}
		})
	}
	// without Interrupt, ctrl+c still stops the run as interrupted
	s, err := Run(context.Background(), testJob(builtin(t, "backpressure")), Options{Paused: true, Speed: 1,
		ProgramOptions: []tea.ProgramOption{tea.WithInput(strings.NewReader("\x03")), tea.WithOutput(io.Discard)}})
	if !errors.Is(err, context.Canceled) || s == nil || !strings.HasPrefix(s.Result().Summary.PartialReason, "interrupted") {
		t.Errorf("ctrl+c without Interrupt: %v", err)
	}
}

// fakeRun is a stoppable at now of dur that records whether it learnt of
// an interruption (RunUntil with a cancelled context).
type fakeRun struct {
	now, dur    des.Time
	interrupted bool
}

func (f *fakeRun) Now() des.Time      { return f.now }
func (f *fakeRun) Duration() des.Time { return f.dur }
func (f *fakeRun) RunUntil(ctx context.Context, _ des.Time) error {
	f.interrupted = ctx.Err() != nil
	return ctx.Err()
}

// TestEndRunAfterTheEnd: ctrl+c, SIGINT caught by the program or a
// cancelled context after the run reached its end leaves a complete run
// (no error, no interruption), as dspalab run does; before the end, each
// is an interruption.
func TestEndRunAfterTheEnd(t *testing.T) {
	sigint := fmt.Errorf("%w: %w", tea.ErrProgramKilled, tea.ErrInterrupted)
	boom := errors.New("boom")
	for _, tc := range []struct {
		name        string
		now         des.Time
		ctrlC       bool
		cancelled   bool
		perr        error
		stopErr     error
		want        error
		interrupted bool
	}{
		{"ctrl+c after the end", 600 * des.Second, true, false, nil, nil, nil, false},
		{"cancelled after the end", 600 * des.Second, false, true, sigint, nil, nil, false},
		{"SIGINT after the end", 600 * des.Second, false, false, sigint, nil, nil, false},
		{"ctrl+c after a stop", 600 * des.Second, true, false, nil, boom, boom, false},
		{"q after the end", 600 * des.Second, false, false, nil, nil, nil, false},
		{"ctrl+c before the end", 300 * des.Second, true, false, nil, nil, context.Canceled, true},
		{"SIGINT before the end", 300 * des.Second, false, false, sigint, nil, context.Canceled, true},
		{"cancelled before the end", 300 * des.Second, false, true, nil, nil, context.Canceled, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			called := false
			f := &fakeRun{now: tc.now, dur: 600 * des.Second}
			err := endRun(ctx, tc.ctrlC, tc.perr, func() { called = true }, f, tc.stopErr)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if f.interrupted != tc.interrupted || (called != (tc.interrupted && !tc.cancelled)) {
				t.Errorf("simulation interrupted %v, interrupt called %v; want interrupted %v", f.interrupted, called, tc.interrupted)
			}
		})
	}
}
