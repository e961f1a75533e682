package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// ActionStop, the last line of the actions of a live run quit before its
// end, is where it stopped: a replay stops there too, and its outputs are
// the live run's, partial as they were. Its time_s is exact to the
// nanosecond.
const ActionStop = "stop"

// splitStop returns actions without a final stop, and the time to run
// until: the stop's, or duration.
func splitStop(actions []sim.Action, duration des.Time) ([]sim.Action, des.Time) {
	if n := len(actions); n > 0 && actions[n-1].Kind == ActionStop {
		a := actions[n-1]
		at := a.At
		if at == 0 {
			at = des.FromSeconds(a.AtS)
		}
		return actions[:n-1], min(at, duration)
	}
	return actions, duration
}

// maxActionLine bounds one line of an actions file (an action is about 80
// bytes).
const maxActionLine = 64 << 10

// ReadActions reads an actions file (actions.jsonl, as a live run writes
// it with --out): one JSON sim.Action a line, such as
//
//	{"time_s":12.5,"action":"failure","vertex":"parse","subtask":0}
//	{"time_s":20,"action":"failure","vertex":"parse","subtask":1,"worker":true}
//	{"time_s":30,"action":"checkpoint","subtask":0}
//
// ("worker": true fails the worker that runs the subtask). Blank lines are skipped. It returns a non-nil slice (empty for an empty
// file), or an error "name:line: message" for a line that is not an action:
// bad JSON, an unknown field, an unknown action, a negative or missing
// time or subtask.
func ReadActions(r io.Reader, name string) ([]sim.Action, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxActionLine)
	actions := []sim.Action{}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		a, err := parseAction(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		actions = append(actions, a)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes: is this an actions file?", name, line+1, maxActionLine)
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return actions, nil
}

// parseAction decodes one line of an actions file strictly.
func parseAction(text []byte) (sim.Action, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(text, &raw); err != nil {
		return sim.Action{}, fmt.Errorf("not a JSON object: %v", err)
	}
	for _, k := range []string{"time_s", "action"} {
		if _, ok := raw[k]; !ok {
			return sim.Action{}, fmt.Errorf("missing %q", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var a sim.Action
	if err := dec.Decode(&a); err != nil {
		return sim.Action{}, fmt.Errorf("not an action: %v", err)
	}
	switch {
	case a.Kind != sim.ActionFailure && a.Kind != sim.ActionCheckpoint && a.Kind != ActionStop:
		return a, fmt.Errorf("unknown action %q (want %s, %s or %s)", a.Kind, sim.ActionFailure, sim.ActionCheckpoint, ActionStop)
	case math.IsNaN(a.AtS) || a.AtS < 0:
		return a, fmt.Errorf("time_s must be a number of simulated seconds >= 0, got %v", a.AtS)
	case a.Subtask < 0:
		return a, fmt.Errorf("subtask must be >= 0, got %d", a.Subtask)
	case a.Kind == sim.ActionFailure && a.Vertex == "":
		return a, errors.New("a failure needs a vertex")
	}
	a.At = des.FromSeconds(a.AtS)
	return a, nil
}

// CheckActions checks actions read by ReadActions against the scenario
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
		if a.Kind == ActionStop && i != len(actions)-1 {
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

// WriteActions writes actions as ReadActions reads them: one JSON object a
// line.
func WriteActions(w io.Writer, actions []sim.Action) error {
	var b bytes.Buffer
	for _, a := range actions {
		line, err := json.Marshal(a)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}
