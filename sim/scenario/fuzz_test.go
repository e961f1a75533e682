package scenario_test

import (
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
	})
}
