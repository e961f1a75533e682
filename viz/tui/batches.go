package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// BatchJob is a run of a micro-batch engine (engine: spark-streaming or
// structured-streaming) for the live view's batch timeline.
type BatchJob struct {
	// Label names the scenario in the header.
	Label string
	// Scenario is the scenario simulated, overrides applied; read only.
	Scenario *scenario.Scenario
	// Start builds the simulation from the beginning; the view calls it
	// at the start and on every restart (r), and uses what it returns on
	// one goroutine only.
	Start func() (*microbatch.Sim, error)
}

// batchHistory is how many completed batches, metrics samples and events
// a snapshot of a micro-batch run carries: the widest timeline drawn.
const batchHistory = 240

// BatchSnapshot is what the batch timeline draws: immutable, made by the
// engine's goroutine (microbatch.Sim.Timeline copies what it needs).
type BatchSnapshot struct {
	Gen   int // restarts so far
	State RunState
	Speed float64 // simulated seconds per wall second; 0 as fast as possible
	*microbatch.Timeline
	Err string // why the run stopped, "" if it did not
	// Notice says why the last action was refused ("" if it was not).
	Notice string
}

// batchEngine owns a micro-batch simulation on its own goroutine, as
// engine does a Flink one: it takes commands between steps and hands
// the UI coalesced immutable snapshots (at most one waiting, the latest).
// The micro-batch simulation has no observer: a snapshot reads its
// timeline (microbatch.Sim.Timeline) between two steps.
type batchEngine struct {
	job  BatchJob
	cfg  engineConfig
	cmds chan command
	out  chan *BatchSnapshot
	done chan struct{}

	// owned by the run goroutine (and readable after done is closed)
	sim      *microbatch.Sim
	gen      int
	state    RunState
	spd      float64
	stopErr  error
	notice   string   // why the last action was refused
	interval des.Time // the step of s: the metrics interval
	wallMark time.Time
	lastPub  time.Time
	dirty    bool
}

func newBatchEngine(job BatchJob, cfg engineConfig) (*batchEngine, error) {
	cfg.defaults()
	e := &batchEngine{job: job, cfg: cfg, cmds: make(chan command, 64),
		out: make(chan *BatchSnapshot, 1), done: make(chan struct{}), spd: clampSpeed(cfg.speed)}
	if cfg.paused {
		e.state = Paused
	}
	if err := e.start(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *batchEngine) start() error {
	s, err := e.job.Start()
	if err != nil {
		return err
	}
	e.sim, e.stopErr, e.notice, e.dirty = s, nil, "", true
	e.interval = s.MetricsInterval()
	return nil
}

func (e *batchEngine) send(c command) {
	select {
	case e.cmds <- c:
	case <-e.done:
	}
}

func (e *batchEngine) batchSnapshots() <-chan *BatchSnapshot { return e.out }

// run is the simulation's goroutine; it returns on cmdQuit or when ctx
// is cancelled, and closes out and done.
func (e *batchEngine) run(ctx context.Context) {
	defer close(e.done)
	defer close(e.out)
	e.wallMark = e.cfg.now()
	e.publish()
	for {
		wait := time.Duration(-1)
		if !e.cfg.manual && e.state == Running {
			e.advance(ctx)
			if wait = e.cfg.frame; e.spd == 0 {
				wait = 0
			}
		}
		if e.dirty {
			if next := e.cfg.minPublish - e.cfg.now().Sub(e.lastPub); e.cfg.manual || next <= 0 {
				e.publish()
			} else if wait < 0 || next < wait {
				wait = next
			}
		}
		var timer *time.Timer
		var tick <-chan time.Time
		if wait >= 0 {
			timer = time.NewTimer(wait)
			tick = timer.C
		}
		select {
		case c := <-e.cmds:
			if !e.handle(ctx, c) {
				return
			}
		case <-tick:
		case <-ctx.Done():
			return
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// advance runs one step of wall time × speed (as fast as possible: a
// metrics interval), at most a metrics interval, so that keys act soon.
func (e *batchEngine) advance(ctx context.Context) {
	wall := e.cfg.now()
	step := e.interval
	if e.spd > 0 {
		step = min(des.Time(float64(wall.Sub(e.wallMark))*e.spd), e.interval)
	}
	e.wallMark = wall
	if step > 0 {
		e.runTo(ctx, e.sim.Now()+step)
	}
}

func (e *batchEngine) runTo(ctx context.Context, t des.Time) {
	if e.state == Finished || e.state == Stopped {
		return
	}
	err := e.sim.RunUntil(ctx, t)
	e.dirty = true
	switch {
	case err != nil:
		e.state, e.stopErr = Stopped, err
	case e.sim.Now() >= e.sim.Duration():
		e.state = Finished
	}
}

// handle applies a command; it returns false on cmdQuit.
func (e *batchEngine) handle(ctx context.Context, c command) bool {
	e.dirty = true
	switch c.kind {
	case cmdQuit:
		return false
	case cmdTogglePause:
		switch e.state {
		case Running:
			e.state = Paused
		case Paused:
			e.state, e.wallMark = Running, e.cfg.now()
		}
	case cmdStep:
		if e.state == Running {
			e.state = Paused
		}
		e.runTo(ctx, min((e.sim.Now()/e.interval+1)*e.interval, e.sim.Duration()))
	case cmdFaster:
		e.spd = fasterSpeed(e.spd)
	case cmdSlower:
		e.spd = slowerSpeed(e.spd)
	case cmdAdvance:
		e.runTo(ctx, c.to)
	case cmdInject:
		e.inject(c.action)
	case cmdRestart:
		if err := e.start(); err != nil {
			e.state, e.stopErr = Stopped, fmt.Errorf("restart failed: %w", err)
			break
		}
		e.gen++
		if e.state != Paused {
			e.state = Running
		}
		e.wallMark = e.cfg.now()
	}
	return true
}

// inject applies an action now, between two steps, as engine.inject
// does: an applied one appears in the events (the action, then what it
// causes), a refused one in the notice.
func (e *batchEngine) inject(a sim.Action) {
	e.notice = ""
	what := describeAction(a)
	if e.state == Finished || e.state == Stopped {
		e.notice = fmt.Sprintf("%s: the run has %s (r restarts it)", what, e.state)
		return
	}
	if err := e.sim.Inject(a); err != nil {
		e.notice = what + " refused (nothing applied or recorded): " + err.Error()
	}
}

// publish hands the UI a snapshot, replacing one it has not taken yet.
func (e *batchEngine) publish() {
	s := &BatchSnapshot{Gen: e.gen, State: e.state, Speed: e.spd, Timeline: e.sim.Timeline(batchHistory), Notice: e.notice}
	if e.stopErr != nil {
		s.Err = e.stopErr.Error()
	}
	select {
	case <-e.out:
	default:
	}
	e.out <- s
	e.lastPub, e.dirty = e.cfg.now(), false
}

// RunBatches shows the live view of a micro-batch job (the batch
// timeline and the PID rate) until the user quits or interrupts it, and
// returns the simulation where it stands, as Run does for a Flink job.
func RunBatches(ctx context.Context, job BatchJob, opts Options) (*microbatch.Sim, error) {
	e, err := newBatchEngine(job, engineConfig{speed: opts.Speed, paused: opts.Paused,
		minPublish: time.Second / MaxSnapshotsPerSecond})
	if err != nil {
		return nil, err
	}
	m := newBatchModel(job, e, e.sim.Vertices()) // before the engine's goroutine owns the simulation
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	go e.run(ectx)
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts.ProgramOptions...)...)
	final, perr := p.Run()
	e.send(command{kind: cmdQuit})
	<-e.done
	fm, ok := final.(batchModel)
	return e.sim, endRun(ctx, ok && fm.interrupted, perr, opts.Interrupt, e.sim, e.stopErr)
}
