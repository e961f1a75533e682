package scenario_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// FuzzParse checks that Parse never panics, returns either a Scenario or an
// error, and that what it accepts is complete and valid. The seed corpus is
// in testdata/fuzz/FuzzParse, so this runs as an ordinary test too. What
// Parse accepts compiles (sim/plan) into vertices in topological order.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Parse("fuzz.yaml", data)
		if err != nil {
			if s != nil {
				t.Fatalf("Parse returned a Scenario and an error: %v", err)
			}
			list, ok := err.(scenario.ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("error %T is not a non-empty ErrorList: %v", err, err)
			}
			for i, e := range list {
				if e.File != "fuzz.yaml" || e.Line < 1 || e.Col < 1 || e.Msg == "" || strings.Contains(e.Error(), "\n") {
					t.Fatalf("error without a position or message, or with a newline: %#v", e)
				}
				if i > 0 && (list[i-1].Line > e.Line || list[i-1].Line == e.Line && list[i-1].Col > e.Col) {
					t.Fatalf("errors not sorted: %v before %v", list[i-1], e)
				}
			}
			return
		}
		if s == nil || s.Duration <= 0 || len(s.Sources) == 0 || len(s.Sinks) == 0 {
			t.Fatalf("accepted an incomplete scenario: %+v", s)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate rejects: %v", err)
		}
		if d := s.WithDefaults(); !reflect.DeepEqual(d, s) {
			t.Fatalf("WithDefaults changed a parsed scenario:\n%+v\n%+v", d, s)
		}
		n := len(s.Sources) + len(s.Operators) + len(s.Sinks)
		p, err := plan.Compile(s)
		if err != nil {
			t.Fatalf("a valid scenario does not compile: %v", err)
		}
		order := p.Names()
		if len(order) != n {
			t.Fatalf("the plan has %d vertices, want %d", len(order), n)
		}
		at := map[string]int{}
		for i, name := range order {
			at[name] = i
		}
		for _, op := range s.Operators {
			for _, in := range op.Inputs {
				if at[in] >= at[op.Name] {
					t.Fatalf("the plan puts %s before its input %s: %v", op.Name, in, order)
				}
			}
		}
		// the up-front estimate of any accepted scenario, however large its
		// counts, checkpoint settings, key spaces and failures, is finite,
		// not negative, and counts at least the structures it names
		e := p.Estimate(nil)
		for name, x := range map[string]float64{"events": e.Events, "event rate": e.EventRate, "checkpoint events": e.CheckpointEvents,
			"failover events": e.FailoverEvents, "failovers": e.Failovers, "memory": float64(e.Memory)} {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				t.Fatalf("estimate: %s = %v", name, x)
			}
		}
		if e.Workers < s.Workers.Count || e.Memory < e.KeySetBytes || e.Memory < e.CheckpointBytes || e.Memory < int64(e.Workers)*plan.BytesPerWorker ||
			e.CheckpointsInFlight > int64(max(s.Checkpoint.MaxConcurrent, 1)) {
			t.Fatalf("estimate %+v of workers %+v, checkpoint %+v", e, s.Workers, s.Checkpoint)
		}
	})
}
