package sim

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"testing"
	"unsafe"

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
		queued := func(v *vertex) bool { c := v.subtasks[0].gate.chans[0]; return c.queue.buf != nil || c.hq.buf != nil }
		if sink := s.vertices[len(s.vertices)-1]; queued(sink) {
			t.Errorf("%s: the sink's channel queued a buffer; want every record handed over directly", capacity)
		}
		if stage1 := s.vertices[1]; !queued(stage1) {
			t.Errorf("%s: stage1's channel never queued; at ρ = 0.8 records must wait", capacity)
		}
		// an unbounded channel keeps no segment open after a record went
		// through its queue, so the next record can hop again; a bounded
		// one writes on into its open segment
		for _, v := range s.vertices[:len(s.vertices)-1] {
			c := v.subtasks[0].outs[0].chans[0]
			if open := c.cur != nil; open != (capacity == scenario.Bounded) {
				t.Errorf("%s: %s's channel holds an open segment %v, want %v", capacity, v.name, open, capacity == scenario.Bounded)
			}
		}
	}
}

// skipPast counts a constant rate's arrivals in closed form: the same
// calls, arrival and state as calling next until an arrival comes after
// now, for rates that divide a second evenly and rates that do not.
func TestSkipPastIsStepping(t *testing.T) {
	rng := des.Stream(3, "skip")
	for _, rate := range []float64{100, 3, 7, 1e5, 73129.5, 333333.3, 0.3} {
		a := scenario.Arrival{Process: scenario.ArrivalConstant, Rate: rate}
		fast, slow := newArrivalGen(a, nil), newArrivalGen(a, nil)
		at := fast.next()
		slow.next()
		now := des.Time(0)
		for i := 0; i < 200; i++ {
			now += des.Time(rng.Int64N(int64(50 * des.Millisecond)))
			if at > now {
				continue
			}
			n, got, ok := fast.skipPast(now)
			var want des.Time
			var calls uint64
			for want = at; want <= now; want = slow.next() {
				calls++
			}
			if !ok || n != calls || got != want || fast.k != slow.k || fast.t != slow.t {
				t.Fatalf("rate %v, now %d: skipPast = %d calls to %d (k %v), stepping %d calls to %d (k %v)",
					rate, now, n, got, fast.k, calls, want, slow.k)
			}
			at = got
		}
	}
	if _, _, ok := newArrivalGen(scenario.Arrival{Process: scenario.ArrivalPoisson, Rate: 5}, des.StreamRand(1, "p")).skipPast(des.Second); ok {
		t.Fatal("skipPast of a poisson process reported ok")
	}
}

// The lag of a replayable source, with the log caught up from the reader
// and counted in closed form, is the count of the log's arrivals by now
// less the records read: against a copy of the arrival process stepped
// one arrival at a time, every second of a back-pressured run (constant
// arrivals, the log far ahead) and of an unbounded one (poisson, the log
// behind the reader but for the records in hand).
func TestLagCatchUp(t *testing.T) {
	for _, name := range []string{"backpressure", "tandem", "sensors-1000"} {
		sc := mustLoadBuiltin(t, name)
		sc.Duration, sc.Warmup = 60*des.Second, 0
		s, err := New(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		src := s.sources[0]
		ref := newArrivalGen(sc.Sources[0].Arrival, des.StreamRand(sc.Seed, "source/"+sc.Sources[0].Name+"/0/arrivals"))
		var appended uint64
		next := ref.next()
		caught := false
		for now := des.Second / 2; now <= sc.Duration; now += des.Second { // between the samples, which take the lag too
			if err := s.RunUntil(context.Background(), now); err != nil {
				t.Fatal(err)
			}
			for next <= now {
				appended++
				next = ref.next()
			}
			pos := src.next
			if src.inHand() {
				pos--
			}
			want := uint64(0)
			if appended > pos {
				want = appended - pos
			}
			before := src.appended
			if got := src.lag(now); got != want {
				t.Fatalf("%s at %s: lag %d, want %d", name, FormatTime(now), got, want)
			}
			caught = caught || src.appended-before > 1
		}
		if !caught {
			t.Errorf("%s: the lag never moved more than one arrival at once", name)
		}
	}
}

// A Record is copied into and out of every buffer: its size is the cost
// of a hop and the memory of every record in flight (recordBytes).
func TestRecordSize(t *testing.T) {
	if got := unsafe.Sizeof(Record{}); got != 40 {
		t.Errorf("a Record is %d bytes, want 40 (ID, Copy, EventTime, Ingest, Key, late)", got)
	}
}
