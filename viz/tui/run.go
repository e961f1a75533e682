package tui

import (
	"context"
	"errors"
	"fmt"
	"github.com/dspalab/dspalab/sim/des"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dspalab/dspalab/sim"
)

// MaxSnapshotsPerSecond bounds how often the engine hands the UI a
// snapshot, in wall time.
const MaxSnapshotsPerSecond = 30

// Options tune the live view.
type Options struct {
	// Speed is the starting speed in simulated seconds per wall second,
	// from MinSpeed to MaxSpeed (+ and - then step through Speeds); 0 runs
	// as fast as possible.
	Speed float64
	// Interrupt is called when the user presses ctrl+c in the view, which
	// then stops as SIGINT would stop the run: Interrupt should cancel
	// ctx (as the command's signal handler does), so that the caller sees
	// the interruption. Without it, Run cancels a context of its own.
	// q quits normally.
	Interrupt func()
	// Paused starts the view paused at time 0.
	Paused bool
	// ProgramOptions are passed to bubbletea (input, output, environment);
	// by default it uses the terminal.
	ProgramOptions []tea.ProgramOption
}

// Run shows the live view of job until the user quits (q) or interrupts
// it (ctrl+c), and returns the simulation where it stands, for its result
// and its recorded actions: finished, or partial when the user quit early.
// Its error is the one that stopped the simulation (a
// *sim.QueueLimitError, a trace failure), ctx's error when ctx was
// cancelled or the user pressed ctrl+c (then the simulation is stopped
// where it was, as interrupted), or the terminal's. The caller must make sure that the terminal is
// one: bubbletea opens /dev/tty when standard input is not a terminal.
func Run(ctx context.Context, job Job, opts Options) (*sim.Sim, error) {
	e, err := newEngine(job, engineConfig{speed: opts.Speed, paused: opts.Paused,
		minPublish: time.Second / MaxSnapshotsPerSecond})
	if err != nil {
		return nil, err
	}
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	go e.run(ectx)
	p := tea.NewProgram(newModel(job, e), append([]tea.ProgramOption{tea.WithContext(ctx)}, opts.ProgramOptions...)...)
	final, perr := p.Run()
	e.send(command{kind: cmdQuit})
	<-e.done // the engine no longer touches the simulation
	fm, ok := final.(model)
	return e.sim, endRun(ctx, ok && fm.interrupted, perr, opts.Interrupt, e.sim, e.stopErr)
}

// stoppable is what endRun needs of a simulation: sim.Sim and
// microbatch.Sim both are.
type stoppable interface {
	Now() des.Time
	Duration() des.Time
	RunUntil(context.Context, des.Time) error
}

// endRun returns the error of a live view that has ended: ctx's error when
// ctx was cancelled, the user pressed ctrl+c (interrupted) or the program
// caught SIGINT (perr is tea.ErrInterrupted: the signal that also cancels
// dspalab's context, whichever sees it first); then interrupt is called,
// as SIGINT is for dspalab run, and s learns of the interruption, so that
// its result says so (with ctx cancelled it fires no event). Otherwise the
// terminal's error (perr), or stopErr, the one that stopped the
// simulation. A run that had reached its end when it was interrupted is
// complete, as its result says: that is no interruption (nor is it for
// dspalab run, whose simulation is over by then), and endRun returns
// stopErr without calling interrupt.
func endRun(ctx context.Context, interrupted bool, perr error, interrupt func(), s stoppable, stopErr error) error {
	sigint := perr != nil && errors.Is(perr, tea.ErrInterrupted)
	if (interrupted || sigint || ctx.Err() != nil) && s.Now() >= s.Duration() {
		return stopErr
	}
	if (interrupted && perr == nil) || sigint {
		if interrupt != nil {
			interrupt()
		}
		if ctx.Err() == nil {
			var stop context.CancelFunc
			ctx, stop = context.WithCancel(ctx)
			stop()
		}
	}
	switch {
	case ctx.Err() != nil:
		s.RunUntil(ctx, s.Now())
		return ctx.Err()
	case perr != nil:
		return fmt.Errorf("tui: running the terminal UI: %w", perr)
	}
	return stopErr
}
