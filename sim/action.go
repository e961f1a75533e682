package sim

import (
	"errors"
	"fmt"

	"github.com/dspalab/dspalab/sim/des"
)

// Kinds of actions a person injects into a running simulation (the live
// view's keys), recorded with their simulated times so that a run can be
// replayed exactly (Options.Actions).
const (
	// ActionFailure fails a subtask (Subtask >= 0) or the worker of
	// subtask 0 of Vertex (Worker true).
	ActionFailure = "failure"
	// ActionCheckpoint triggers a checkpoint now.
	ActionCheckpoint = "checkpoint"
)

// ErrNotModelled is returned for an action of a mechanism the simulator
// does not model yet.
var ErrNotModelled = errors.New("not simulated yet")

// Action is something done to a run from outside, at simulated time At.
type Action struct {
	At      des.Time `json:"-"`
	AtS     float64  `json:"time_s"` // At in simulated seconds (JSON)
	Kind    string   `json:"action"`
	Vertex  string   `json:"vertex,omitempty"`
	Subtask int      `json:"subtask"`
	Worker  bool     `json:"worker,omitempty"` // fail the whole worker
}

// Inject applies a now and records it (see Actions). It returns an error,
// changing nothing, for an unknown kind, vertex or subtask, or
// ErrNotModelled for a mechanism that is not simulated yet.
func (s *Sim) Inject(a Action) error {
	a.At, a.AtS = s.eng.Now(), round6(s.eng.Now().Seconds())
	if err := s.check(a); err != nil {
		return err
	}
	// the action is logged before what it causes
	s.actions = append(s.actions, a)
	s.emit(Event{Type: EventAction, Vertex: a.Vertex, Message: a.String()})
	return s.apply(a)
}

// check returns why a cannot be applied now, or nil.
func (s *Sim) check(a Action) error {
	switch a.Kind {
	case ActionFailure:
		if _, err := s.subtaskOf(a.Vertex, a.Subtask); err != nil {
			return err
		}
		switch s.fo.state {
		case JobFailed, JobLost:
			return fmt.Errorf("the job has ended (%s): nothing left to fail", s.fo.state)
		}
		return nil
	case ActionCheckpoint:
		switch {
		case s.ckpt == nil:
			return fmt.Errorf("checkpointing is off in this scenario (add checkpoint: {mode: aligned, interval: ...})")
		case s.ckpt.suspended:
			return errors.New("the job is not running (it failed or is restarting)")
		case len(s.ckpt.pending) >= max(s.ckpt.cfg.MaxConcurrent, 1):
			return errors.New("a checkpoint is already in progress (max_concurrent)")
		}
		return nil
	}
	return fmt.Errorf("sim: unknown action %q (want %s or %s)", a.Kind, ActionFailure, ActionCheckpoint)
}

// Actions returns the actions injected so far, in order: what --replay
// reads back.
func (s *Sim) Actions() []Action { return append([]Action(nil), s.actions...) }

// String describes a for the event log.
func (a Action) String() string {
	switch a.Kind {
	case ActionFailure:
		if a.Worker {
			return fmt.Sprintf("failure injected into the worker that runs %s[%d]", a.Vertex, a.Subtask)
		}
		return fmt.Sprintf("failure injected into %s[%d]", a.Vertex, a.Subtask)
	case ActionCheckpoint:
		return "checkpoint triggered by hand"
	}
	return a.Kind
}

// apply checks and carries out an action at the current time.
func (s *Sim) apply(a Action) error {
	switch a.Kind {
	case ActionFailure:
		t, err := s.subtaskOf(a.Vertex, a.Subtask)
		if err != nil {
			return err
		}
		return s.fail(t, a.Worker)
	case ActionCheckpoint:
		return s.triggerCheckpoint()
	}
	return fmt.Errorf("sim: unknown action %q (want %s or %s)", a.Kind, ActionFailure, ActionCheckpoint)
}

func (s *Sim) subtaskOf(vertex string, i int) (*subtask, error) {
	for _, v := range s.vertices {
		if v.name == vertex {
			if i < 0 || i >= len(v.subtasks) {
				return nil, fmt.Errorf("sim: %s has subtasks 0..%d, not %d", vertex, len(v.subtasks)-1, i)
			}
			return v.subtasks[i], nil
		}
	}
	return nil, fmt.Errorf("sim: no vertex %q", vertex)
}

// fail injects a failure of subtask t's task (every operator chained
// with it), or of its whole worker, now.
func (s *Sim) fail(t *subtask, worker bool) error {
	if worker {
		s.fo.fail(s.eng.Now(), failureCause{kind: causeWorker, worker: t.worker,
			text: fmt.Sprintf("worker %d (running %s) failed", t.worker, t.taskText())})
		return nil
	}
	s.fo.fail(s.eng.Now(), taskFailure(t))
	return nil
}
