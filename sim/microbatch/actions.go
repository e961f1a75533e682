package microbatch

import (
	"errors"
	"fmt"
	"math"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// Inject applies a now and records it (see Actions), as sim.Sim.Inject
// does for a Flink run: a failure of subtask a.Subtask of a.Vertex fails
// that task's running attempt (failTask: Spark runs it again, up to
// spark.task.maxFailures), or with a.Worker the executor that runs it
// (its partition mod the executors). It returns an error, changing
// nothing, for an unknown kind, vertex or subtask, a checkpoint (Spark
// writes them every checkpoint interval; none is triggered by hand), an
// executor already lost, or a job that has ended.
func (s *Sim) Inject(a sim.Action) error {
	now := s.eng.Now()
	a.At, a.AtS = now, math.Round(now.Seconds()*1e6)/1e6
	switch a.Kind {
	case sim.ActionFailure:
	case sim.ActionCheckpoint:
		return errors.New("a micro-batch job writes its state checkpoints every checkpoint_interval (ssc.checkpoint); none is triggered by hand")
	default:
		return fmt.Errorf("microbatch: unknown action %q (want %s)", a.Kind, sim.ActionFailure)
	}
	t, err := s.taskOf(a.Vertex, a.Subtask)
	if err != nil {
		return err
	}
	w := t.index % s.sc.Workers.Count
	switch {
	case s.rec.jobLost || s.rec.jobFailed:
		return errors.New("the job has ended: nothing left to fail")
	case a.Worker && s.rec.lostExec[w]:
		return fmt.Errorf("executor %d, which runs %s[%d], is lost already and not replaced yet", w, a.Vertex, a.Subtask)
	}
	s.actions = append(s.actions, a)
	s.events = append(s.events, sim.Event{Time: now, Type: sim.EventAction, Vertex: a.Vertex, Worker: -1, Message: a.String()})
	if a.Worker {
		s.executorLost(now, w)
	} else {
		s.failTask(now, t)
	}
	return nil
}

// Actions returns the actions injected so far, in order: what --replay
// reads back (Options.Actions).
func (s *Sim) Actions() []sim.Action { return append([]sim.Action(nil), s.actions...) }

// replayTimes fills in the times of opts.Actions (At from AtS when 0)
// and checks their order.
func replayTimes(actions []sim.Action) ([]sim.Action, error) {
	actions = append([]sim.Action(nil), actions...)
	for i := range actions {
		a := &actions[i]
		if a.At == 0 {
			a.At = des.FromSeconds(a.AtS)
		}
		if i > 0 && a.At < actions[i-1].At {
			return nil, fmt.Errorf("microbatch: action %d at %s comes before the one it follows (%s): actions must be in time order",
				i+1, sim.FormatTime(a.At), sim.FormatTime(actions[i-1].At))
		}
	}
	return actions, nil
}

// replayDue applies the next replayed action if it comes before the next
// event (next) and no later than t, after every event at its instant, as
// one injected live between two RunUntil calls; it reports whether it
// applied one.
func (s *Sim) replayDue(next, t des.Time) bool {
	k := s.nextAction
	if k >= len(s.opts.Actions) {
		return false
	}
	a := s.opts.Actions[k]
	if a.At >= next || a.At > t {
		return false
	}
	s.eng.RunUntil(a.At)
	s.nextAction++
	if err := s.Inject(a); err != nil {
		s.stopped = fmt.Errorf("replaying action %d (%s at %s): %w", k+1, a.Kind, sim.FormatTime(a.At), err)
	}
	return true
}
