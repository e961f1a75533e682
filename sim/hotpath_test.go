package sim

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// A job where no edge hashes and no operator keeps state reads no key, so
// its sources draw none: their key streams stay where they started. A job
// with a keyBy draws one key per record from that stream.
func TestKeysDrawnOnlyWhenRead(t *testing.T) {
	for _, c := range []struct {
		name string
		read bool
	}{{"tandem", false}, {"backpressure", false}, {"sensors-1000", true}} {
		sc := mustLoadBuiltin(t, c.name)
		sc.Duration, sc.Warmup = 30*des.Second, 0
		s, res := runSim(t, sc, Options{})
		if res.Summary.Totals.Delivered == 0 {
			t.Fatalf("%s: nothing delivered", c.name)
		}
		for _, src := range s.sources {
			moved := *src.keyPCG != src.initial.keyPCG
			if (src.keys != nil) != c.read || moved != c.read {
				t.Errorf("%s source %s/%d: key distribution set %v, key stream moved %v; want both %v",
					c.name, src.t.v.name, src.t.index, src.keys != nil, moved, c.read)
			}
		}
	}
}

// sampleHash folds every sample and event of a run into a hash.
type sampleHash struct{ h hash.Hash }

func (o sampleHash) Sample(s *Sample) { fmt.Fprintf(o.h, "%+v\n", *s) }
func (o sampleHash) Event(e Event)    { fmt.Fprintf(o.h, "%+v\n", e) }

// runHashed runs sc and returns a digest of its result, samples and events.
func runHashed(t *testing.T, sc *scenario.Scenario) string {
	t.Helper()
	o := sampleHash{sha256.New()}
	res, err := Run(context.Background(), sc, Options{Observer: o})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	o.h.Write(b)
	return fmt.Sprintf("%x", o.h.Sum(nil))
}

// The one-record hops (a record handed to an idle receiver without its
// queue, on an unbounded local channel without a buffer) change nothing
// a run shows: every built-in of this engine, with every edge flushed
// after each record (buffer_timeout: 0), bounded and unbounded, gives the
// same result, samples and events with the hops as through the queues.
func TestDirectHopsChangeNothing(t *testing.T) {
	t.Cleanup(func() { directHops = true })
	ran := 0
	for _, name := range scenarios.Names() {
		for _, capacity := range []scenario.Capacity{scenario.Bounded, scenario.Unbounded} {
			sc := mustLoadBuiltin(t, name)
			if sc.IsMicroBatch() || usesTrace(sc) {
				continue
			}
			sc.Duration = min(sc.Duration, 30*des.Second)
			sc.Warmup = min(sc.Warmup, sc.Duration/2)
			sc.Failures = slices.DeleteFunc(sc.Failures, func(f scenario.Failure) bool { return f.At >= sc.Duration })
			for i := range sc.Operators {
				sc.Operators[i].Network.BufferTimeout, sc.Operators[i].Network.Capacity = 0, capacity
			}
			for i := range sc.Sinks {
				sc.Sinks[i].Network.BufferTimeout, sc.Sinks[i].Network.Capacity = 0, capacity
			}
			directHops = true
			with := runHashed(t, sc)
			directHops = false
			without := runHashed(t, sc)
			if with != without {
				t.Errorf("%s (%s, buffer_timeout 0): the run with one-record hops differs from the run through the queues", name, capacity)
			}
			ran++
		}
	}
	if ran < 20 {
		t.Fatalf("compared %d runs, want at least 20", ran)
	}
}

// usesTrace reports whether a source of sc replays a trace (it needs an
// opener).
func usesTrace(sc *scenario.Scenario) bool {
	for _, s := range sc.Sources {
		if s.Arrival.Process == scenario.ArrivalTrace {
			return true
		}
	}
	return false
}

// In the tandem, flushed after every record, the sink (no service time)
// is idle whenever a record reaches it: every record is handed to it
// directly and its channel's queue is never used, bounded or unbounded.
// The busy stages queue some.
func TestDirectHopsTaken(t *testing.T) {
	for _, capacity := range []scenario.Capacity{scenario.Bounded, scenario.Unbounded} {
		sc := mustLoadBuiltin(t, "tandem")
		sc.Duration = 60 * des.Second
		for i := range sc.Operators {
			sc.Operators[i].Network.Capacity = capacity
		}
		sc.Sinks[0].Network.Capacity = capacity
		s, res := runSim(t, sc, Options{})
		if res.Summary.Totals.Delivered < 4000 {
			t.Fatalf("%s: %d delivered, want about 4800", capacity, res.Summary.Totals.Delivered)
		}
		queued := func(v *vertex) bool { return v.subtasks[0].gate.chans[0].queue.buf != nil }
		if sink := s.vertices[len(s.vertices)-1]; queued(sink) {
			t.Errorf("%s: the sink's channel queued a buffer; want every record handed over directly", capacity)
		}
		if stage1 := s.vertices[1]; !queued(stage1) {
			t.Errorf("%s: stage1's channel never queued; at ρ = 0.8 records must wait", capacity)
		}
	}
}
