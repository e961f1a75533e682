package sim

import (
	"context"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// TestWatermarksView checks what Sim.Watermarks says of idleJob (see
// TestIdlenessAdvancesWatermark): without idleness, at 20s, u's input
// watermark is b's, 10s − 1ns, and u's channel from b holds it (a's does
// not: it is at a's watermark, near 20s); b read nothing since its last
// record at 10s and is not idle. With idleness 2s, at 20s b is idle, u's
// channel from b is marked idle and a's holds the watermark. A job
// without event time has none.
func TestWatermarksView(t *testing.T) {
	ctx := context.Background()
	find := func(ws []VertexWatermarks, name string) VertexWatermarks {
		for _, w := range ws {
			if w.Vertex == name {
				return w
			}
		}
		t.Fatalf("no vertex %s in %+v", name, ws)
		return VertexWatermarks{}
	}
	stuck := 10*des.Second - 1
	s := idleJob(t, "")
	if err := s.RunUntil(ctx, 20*des.Second); err != nil {
		t.Fatal(err)
	}
	ws := s.Watermarks()
	if len(ws) != 4 {
		t.Fatalf("%d vertices, want 4", len(ws))
	}
	b := find(ws, "b").Subtasks[0]
	if b.Input != stuck || b.Output != stuck || b.Idle || b.LastRecord != 10*des.Second-100*des.Millisecond && b.LastRecord != 10*des.Second {
		t.Errorf("b = %+v, want watermark %d, not idle, last record at 9.9s or 10s", b, stuck)
	}
	u := find(ws, "u").Subtasks[0]
	if u.Input != stuck || len(u.Inputs) != 2 {
		t.Fatalf("u = %+v, want input watermark %d from 2 channels", u, stuck)
	}
	for _, in := range u.Inputs {
		switch in.From {
		case "b":
			if !in.Holding || in.Idle || in.Watermark != stuck || in.Chained {
				t.Errorf("u's channel from b = %+v, want holding at %d", in, stuck)
			}
		case "a":
			if in.Holding || in.Idle || in.Watermark < 19700*des.Millisecond-1 {
				t.Errorf("u's channel from a = %+v, want active, not holding, near 20s", in)
			}
		}
	}
	out := find(ws, "out")
	if out.Subtasks[0].Input != stuck || out.Subtasks[0].Output != NoWatermark || len(out.Subtasks[0].Inputs) != 1 ||
		out.Subtasks[0].Inputs[0].From != "u" || !out.Subtasks[0].Inputs[0].Holding {
		t.Errorf("out = %+v, want u's watermark, held by u, no output watermark", out.Subtasks[0])
	}
	if out.Windowed || find(ws, "a").Subtasks[0].Inputs != nil {
		t.Error("a sink is not windowed, a source has no inputs")
	}

	s = idleJob(t, ", idleness: 2s")
	if err := s.RunUntil(ctx, 20*des.Second); err != nil {
		t.Fatal(err)
	}
	ws = s.Watermarks()
	if b := find(ws, "b").Subtasks[0]; !b.Idle {
		t.Errorf("with idleness: b = %+v, want idle", b)
	}
	u = find(ws, "u").Subtasks[0]
	for _, in := range u.Inputs {
		if want := in.From == "b"; in.Idle != want || in.Holding == want {
			t.Errorf("with idleness: u's channel from %s = %+v, want idle %v, holding %v", in.From, in, want, !want)
		}
	}
	if u.Input < 19700*des.Millisecond-1 {
		t.Errorf("with idleness: u's watermark %s, want a's, near 20s", FormatTime(u.Input))
	}

	plain := mustParse(t, `
name: plain
duration: 5s
sources:
  - {name: a, arrival: {process: constant, rate: 10/s}}
sinks:
  - {name: out, input: a}
`)
	p, err := New(plain, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ws := p.Watermarks(); ws != nil {
		t.Errorf("a job without event time has watermarks %+v", ws)
	}
}
