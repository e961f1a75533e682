package runfiles

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
)

// ActionStop, the last line of the actions of a live run quit before its
// end, is where it stopped: a replay stops there too, and its outputs are
// the live run's, partial as they were. Its time_s is exact to the
// nanosecond.
const ActionStop = "stop"

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
