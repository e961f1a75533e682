package runner

import (
	"fmt"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// splitStop returns actions without a final stop, and the time to run
// until: the stop's, or duration.
func splitStop(actions []sim.Action, duration des.Time) ([]sim.Action, des.Time) {
	if n := len(actions); n > 0 && actions[n-1].Kind == runfiles.ActionStop {
		a := actions[n-1]
		at := a.At
		if at == 0 {
			at = des.FromSeconds(a.AtS)
		}
		return actions[:n-1], min(at, duration)
	}
	return actions, duration
}

// CheckActions checks actions read by runfiles.ReadActions against the scenario
// they are to be replayed in: each must come no later than the end of the
// run, and a failure must name a vertex of the job and one of its
// subtasks.
func CheckActions(sc *scenario.Scenario, actions []sim.Action) error {
	job, err := plan.Compile(sc)
	if err != nil {
		return err
	}
	var prev des.Time
	for i, a := range actions {
		at := a.At
		if at == 0 {
			at = des.FromSeconds(a.AtS)
		}
		what := fmt.Sprintf("replayed action %d (%s at %s)", i+1, a.Kind, sim.FormatTime(at))
		if a.Kind == runfiles.ActionStop && i != len(actions)-1 {
			return fmt.Errorf("%s: a stop must be the last action", what)
		}
		if at > sc.Duration {
			return fmt.Errorf("%s comes after the end of the run at %s", what, sim.FormatTime(sc.Duration))
		}
		if at < prev {
			return fmt.Errorf("%s comes before the action it follows (at %s): actions must be in time order", what, sim.FormatTime(prev))
		}
		prev = at
		if a.Vertex == "" {
			continue
		}
		v := job.Vertex(a.Vertex)
		switch {
		case v == nil:
			hint := ""
			if near := scenario.Nearest(a.Vertex, job.Names()); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			return fmt.Errorf("%s: the job has no vertex %q%s", what, a.Vertex, hint)
		case a.Subtask >= v.Parallelism:
			return fmt.Errorf("%s: %s has subtasks 0..%d, not %d", what, a.Vertex, v.Parallelism-1, a.Subtask)
		}
	}
	return nil
}
