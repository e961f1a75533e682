package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
