package sim

import (
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
)

// TestFloatingBuffersPerInputGate: a union of two sources behind a slow
// operator, each input edge one channel with 2 exclusive buffers, and 8
// floating buffers per gate (Flink's SingleInputGateFactory gives every
// input gate a pool of its own). Under back-pressure every input holds its
// 2 exclusive buffers and all 8 floating ones of its gate: 10 per input,
// 20 queued in all. With one floating pool per task it was 2+2+8 = 12.
func TestFloatingBuffersPerInputGate(t *testing.T) {
	sc := mustParse(t, `
name: union-floating
duration: 10s
warmup: 1s
network: {buffers_per_channel: 2, floating_buffers: 8, buffer_size: 1KiB, buffer_timeout: 1ms}
sources:
  - {name: a, arrival: {process: constant, rate: 10000/s}}
  - {name: b, arrival: {process: constant, rate: 10000/s}}
operators:
  - {name: u, inputs: [a, b], service_time: {distribution: constant, mean: 10ms}}
sinks:
  - {name: out, input: u}
`)
	p, err := plan.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Vertex("u").GateCapacity(0); got != 2*(2+8) {
		t.Errorf("plan: GateCapacity of u = %d, want 2 inputs × (2 exclusive + 8 floating) = 20", got)
	}
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var u *subtask
	for _, v := range s.vertices {
		if v.pv.Name == "u" {
			u = v.subtasks[0]
		}
	}
	if u == nil || len(u.gate.gates) != 2 {
		t.Fatalf("u has no subtask or not 2 single input gates")
	}
	most, least, bad := 0, 1<<30, false
	for at := 2 * des.Second; at <= 10*des.Second; at += 7 * des.Millisecond {
		if err := s.RunUntil(t.Context(), at); err != nil {
			t.Fatal(err)
		}
		q := u.gate.queuedBufs
		most, least = max(most, q), min(least, q)
		for gi, g := range u.gate.gates {
			held, queued := 0, 0
			for _, c := range g.chans {
				held += c.floating
				queued += c.queue.len()
			}
			if (held+g.floating.available != 8 || queued > 2+8) && !bad {
				bad = true
				t.Errorf("at %s gate %d: %d floating held + %d free (want 8 in all), %d buffers queued (want at most 10)",
					FormatTime(at), gi, held, g.floating.available, queued)
			}
		}
	}
	// the operator takes a buffer's last record and frees it, and its
	// sender (a local channel: no latency) refills it in the same instant
	if most != 20 || least != 20 {
		t.Errorf("buffers queued at u's input under back-pressure: %d to %d, want 20 at every instant sampled", least, most)
	}
}
