package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Job is the run the live view shows.
type Job struct {
	// Label names the scenario in the header (a file or built-in name).
	Label string
	// Scenario is the scenario simulated, overrides applied; the view
	// reads its graph and never changes it.
	Scenario *scenario.Scenario
	// Start builds the simulation from the beginning with obs receiving
	// its samples and events; the view calls it once at the start and
	// again on every restart (r). The simulations it returns are used on
	// one goroutine only.
	Start func(obs sim.Observer) (*sim.Sim, error)
}

// Speeds are the speeds + and - step through, in simulated seconds per wall
// second; 0 is as fast as possible. A run may start at any speed from
// MinSpeed to MaxSpeed (--speed 3): + and - then go on from the nearest
// step above or below it.
var Speeds = []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 0}

// MinSpeed and MaxSpeed bound a finite speed.
const (
	MinSpeed = 0.1
	MaxSpeed = 1000
)

// clampSpeed returns the speed s within [MinSpeed, MaxSpeed], or 0 (as
// fast as possible) for 0, a negative speed or one above MaxSpeed.
func clampSpeed(s float64) float64 {
	if !(s > 0) || s > MaxSpeed {
		return 0
	}
	return max(s, MinSpeed)
}

// fasterSpeed returns the step of Speeds after s: the least step above it,
// or 0 (as fast as possible) after the last; 0 stays 0.
func fasterSpeed(s float64) float64 {
	if s == 0 {
		return 0
	}
	for _, v := range Speeds[:len(Speeds)-1] {
		if v > s*(1+1e-9) {
			return v
		}
	}
	return 0
}

// slowerSpeed returns the step of Speeds before s: the greatest step below
// it (the last finite step below as fast as possible), and the least one
// at the least.
func slowerSpeed(s float64) float64 {
	steps := Speeds[:len(Speeds)-1]
	if s == 0 {
		return steps[len(steps)-1]
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i] < s*(1-1e-9) {
			return steps[i]
		}
	}
	return steps[0]
}

// cmdKind is what a command asks of the engine.
type cmdKind int

const (
	cmdTogglePause cmdKind = iota // space
	cmdStep                       // s: pause, then advance one metrics interval
	cmdFaster                     // +
	cmdSlower                     // -
	cmdInject                     // f, F, c: sim.Inject(action)
	cmdRestart                    // r
	cmdAdvance                    // test mode: advance to `to`
	cmdQuit                       // stop the engine
)

// command is a request from the UI to the simulation's goroutine.
type command struct {
	kind   cmdKind
	action sim.Action // cmdInject
	to     des.Time   // cmdAdvance
}

// engineConfig tunes an engine.
type engineConfig struct {
	speed  float64 // initial speed (MinSpeed to MaxSpeed); 0 as fast as possible
	paused bool    // start paused
	// manual is the test mode: simulated time advances only by commands
	// (cmdAdvance, cmdStep), never by the wall clock, and every command is
	// followed by a snapshot, so that frames are reproducible.
	manual bool
	// minPublish is the least wall time between two snapshots (1/30 s:
	// at most 30 a second); 0 in the test mode.
	minPublish time.Duration
	// frame is how long the engine sleeps between steps at a finite speed.
	frame time.Duration
	// chunkWall is the wall time a step aims at as fast as possible: short
	// enough for keys to act at once, long enough to cost nothing.
	chunkWall time.Duration
	now       func() time.Time
}

func (c *engineConfig) defaults() {
	if c.frame <= 0 {
		c.frame = 10 * time.Millisecond
	}
	if c.chunkWall <= 0 {
		c.chunkWall = 10 * time.Millisecond
	}
	if c.now == nil {
		c.now = time.Now
	}
}

// engine owns the simulation and runs it on its own goroutine (run):
// the simulator is single-threaded, so nothing else touches it. It takes
// commands from the UI on cmds, applies them between steps, and hands the
// UI immutable snapshots on out, coalesced: out holds at most one, the
// latest, and a new one is made at most every minPublish.
type engine struct {
	job  Job
	cfg  engineConfig
	col  *collector
	cmds chan command
	out  chan *Snapshot
	done chan struct{}

	// owned by the run goroutine (and readable after done is closed)
	sim      *sim.Sim
	gen      int
	state    RunState
	spd      float64 // the speed; 0 as fast as possible
	stopErr  error
	interval des.Time
	warmup   des.Time
	chunk    des.Time  // simulated time of the next step as fast as possible
	wallMark time.Time // wall time that simulated time has caught up with
	dirty    bool      // something changed since the last snapshot
	lastPub  time.Time
	pubSim   des.Time // simulated time at the last snapshot
	// pubRunning says the run was running at the last snapshot (so the
	// simulated time since then measures the speed achieved)
	pubRunning bool
	wallRate   float64   // achieved simulated seconds per wall second
	published  int       // snapshots handed over
	finishedAt time.Time // wall time at which the run reached its end
}

// newEngine builds the first simulation of job (on the caller's
// goroutine, before run takes it over).
func newEngine(job Job, cfg engineConfig) (*engine, error) {
	cfg.defaults()
	p, err := plan.Compile(job.Scenario)
	if err != nil {
		return nil, err
	}
	// the resolved metrics interval and warmup (the plan's scenario has
	// its defaults), not the scenario's zeros
	g := graphOf(p)
	e := &engine{job: job, cfg: cfg, col: newCollector(g),
		cmds: make(chan command, 64), out: make(chan *Snapshot, 1), done: make(chan struct{}),
		spd: clampSpeed(cfg.speed), interval: g.plan.MetricsInterval(), warmup: g.plan.Scenario.Warmup}
	if cfg.paused {
		e.state = Paused
	}
	if err := e.start(); err != nil {
		return nil, err
	}
	return e, nil
}

// send hands the engine a command. It blocks only while 64 commands wait,
// which the engine takes between steps of a few milliseconds.
func (e *engine) send(c command) {
	select {
	case e.cmds <- c:
	case <-e.done:
	}
}

func (e *engine) snapshots() <-chan *Snapshot { return e.out }

// start (re)builds the simulation from the beginning.
func (e *engine) start() error {
	e.col.reset()
	s, err := e.job.Start(e.col)
	if err != nil {
		return err
	}
	e.sim, e.stopErr = s, nil
	e.chunk = min(des.Millisecond, e.interval)
	e.pubSim, e.pubRunning = 0, false
	e.dirty = true
	return nil
}

// speed returns the current speed (0: as fast as possible).
func (e *engine) speed() float64 { return e.spd }

// run is the simulation's goroutine: it returns on cmdQuit or when ctx is
// cancelled, and closes out and done.
func (e *engine) run(ctx context.Context) {
	defer close(e.done)
	defer close(e.out)
	e.wallMark = e.cfg.now()
	e.publish()
	if e.cfg.manual {
		for {
			select {
			case c := <-e.cmds:
				if !e.handle(ctx, c) {
					return
				}
				e.publish()
			case <-ctx.Done():
				return
			}
		}
	}
	for {
		for more := true; more; { // every waiting command first
			select {
			case c := <-e.cmds:
				if !e.handle(ctx, c) {
					return
				}
			default:
				more = false
			}
		}
		if ctx.Err() != nil {
			return
		}
		if e.state == Running {
			e.advance(ctx)
		}
		wait := time.Duration(-1) // until a command comes
		if e.state == Running {
			wait = e.cfg.frame
			if e.speed() == 0 {
				wait = 0
			}
		}
		if e.dirty {
			next := e.cfg.minPublish - e.cfg.now().Sub(e.lastPub)
			if next <= 0 {
				e.publish()
			} else if wait < 0 || next < wait {
				wait = next
			}
		}
		if wait == 0 {
			continue
		}
		var timer *time.Timer
		var tick <-chan time.Time
		if wait > 0 {
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

// advance runs one step: as fast as possible, a chunk of simulated time
// sized to take about chunkWall; otherwise the wall time since the last
// step times the speed, at most a chunk (a run that cannot keep up slows
// down rather than piling up a debt).
func (e *engine) advance(ctx context.Context) {
	wall := e.cfg.now()
	now := e.sim.Now()
	var step des.Time
	if sp := e.speed(); sp == 0 {
		step = e.chunk
	} else {
		step = min(des.Time(float64(wall.Sub(e.wallMark))*sp), e.chunk)
	}
	e.wallMark = wall
	// Stop at whole microseconds: an action injected here is recorded in
	// microseconds (time_s) and replays at the same instant.
	target := (now + step) / des.Microsecond * des.Microsecond
	if target <= now {
		return
	}
	e.runTo(ctx, target)
	took := e.cfg.now().Sub(wall)
	// Size the next chunk from this one's speed, growing at most 4x a step.
	if took <= 0 {
		e.chunk *= 4
	} else {
		e.chunk = min(des.Time(float64(target-now)*float64(e.cfg.chunkWall)/float64(took)), 4*e.chunk)
	}
	e.chunk = max(e.chunk, des.Microsecond)
}

// runTo advances the simulation to t and notes how the run stands.
func (e *engine) runTo(ctx context.Context, t des.Time) {
	if e.state == Finished || e.state == Stopped {
		return
	}
	err := e.sim.RunUntil(ctx, t)
	e.dirty = true
	switch {
	case err != nil:
		e.state, e.stopErr = Stopped, err
		e.col.log(LogLine{Time: e.sim.Now(), Type: LogError, Message: "run stopped: " + err.Error()})
	case e.sim.Now() >= e.sim.Duration():
		e.state, e.finishedAt = Finished, e.cfg.now()
	}
}

// handle applies a command; it returns false on cmdQuit.
func (e *engine) handle(ctx context.Context, c command) bool {
	e.dirty = true
	switch c.kind {
	case cmdQuit:
		return false
	case cmdTogglePause:
		switch e.state {
		case Running:
			e.state = Paused
		case Paused:
			e.state = Running
			e.wallMark = e.cfg.now()
		}
	case cmdStep:
		if e.state == Running {
			e.state = Paused
		}
		e.runTo(ctx, e.nextSample(e.sim.Now()))
	case cmdFaster:
		e.spd = fasterSpeed(e.spd)
	case cmdSlower:
		e.spd = slowerSpeed(e.spd)
	case cmdAdvance:
		e.runTo(ctx, c.to)
	case cmdRestart:
		if err := e.start(); err != nil {
			e.col.log(LogLine{Time: e.sim.Now(), Type: LogError, Message: "restart failed: " + err.Error()})
			break
		}
		e.gen++
		if e.state != Paused {
			e.state = Running
		}
		e.wallMark = e.cfg.now()
	case cmdInject:
		e.inject(ctx, c.action)
	}
	return true
}

// inject applies an action now, between two steps. A refused action (such
// as a checkpoint while one is in progress, or a failure of a job that
// failed for good) is reported in the event log; an applied one appears
// there as the simulator's action event, followed by what it causes.
func (e *engine) inject(ctx context.Context, a sim.Action) {
	what := describeAction(a)
	if e.state == Finished || e.state == Stopped {
		e.col.log(LogLine{Time: e.sim.Now(), Type: LogError, Vertex: a.Vertex,
			Message: fmt.Sprintf("%s: the run has %s (r restarts it)", what, e.state)})
		return
	}
	if err := e.sim.Inject(a); err != nil {
		e.col.log(LogLine{Time: e.sim.Now(), Type: LogError, Vertex: a.Vertex,
			Message: what + " refused (nothing applied or recorded): " + err.Error()})
	}
}

// describeAction names an action for the event log.
func describeAction(a sim.Action) string {
	switch {
	case a.Kind == sim.ActionFailure && a.Worker:
		return fmt.Sprintf("failure of the worker of %s[%d]", a.Vertex, a.Subtask)
	case a.Kind == sim.ActionFailure:
		return fmt.Sprintf("failure of %s[%d]", a.Vertex, a.Subtask)
	case a.Kind == sim.ActionCheckpoint:
		return "checkpoint"
	}
	return a.Kind
}

// nextSample returns the next instant after now at which the simulator
// takes a metrics sample: the next multiple of the interval, or the end of
// the warmup, or the end of the run, whichever comes first.
func (e *engine) nextSample(now des.Time) des.Time {
	next := (now/e.interval + 1) * e.interval
	if now < e.warmup && e.warmup < next {
		next = e.warmup
	}
	return min(next, e.sim.Duration())
}

// publish hands the UI a snapshot, replacing one it has not taken yet.
func (e *engine) publish() {
	wall := e.cfg.now()
	if !e.cfg.manual && e.pubRunning && e.state == Running {
		if dt := wall.Sub(e.lastPub); dt > 0 {
			r := (e.sim.Now() - e.pubSim).Seconds() / dt.Seconds()
			if e.wallRate == 0 {
				e.wallRate = r
			} else {
				e.wallRate = 0.7*e.wallRate + 0.3*r
			}
		}
	}
	// Delivery walks the records in flight: once per snapshot, at most
	// MaxSnapshotsPerSecond times a wall second
	s := e.col.snapshot(e.sim.Delivery(), e.sim.Recovery())
	s.Gen, s.Now, s.Duration, s.State = e.gen, e.sim.Now(), e.sim.Duration(), e.state
	s.Speed, s.WallSpeed = e.speed(), e.wallRate
	s.Watermarks = e.sim.Watermarks() // nil without event time
	if e.stopErr != nil {
		s.Err = e.stopErr.Error()
	}
	select {
	case <-e.out:
	default:
	}
	e.out <- s // never blocks: the engine is the only sender
	e.lastPub, e.pubSim, e.pubRunning, e.dirty = wall, e.sim.Now(), e.state == Running, false
	e.published++
}
