package des

import (
	"cmp"
	"math"
	"slices"
	"testing"
)

type recorder struct {
	got []int64
	at  []Time
}

func (r *recorder) HandleEvent(now Time, arg int64) {
	r.got = append(r.got, arg)
	r.at = append(r.at, now)
}

func TestOrderByTimeThenSequence(t *testing.T) {
	var e Engine
	r := &recorder{}
	e.After(30, r, 3)
	e.After(10, r, 1)
	e.After(20, r, 2)
	e.After(10, r, 11) // same time as 1, scheduled later: fires after it
	e.After(0, r, 0)
	for e.Step() {
	}
	want := []int64{0, 1, 11, 2, 3}
	wantAt := []Time{0, 10, 10, 20, 30}
	for i := range want {
		if r.got[i] != want[i] || r.at[i] != wantAt[i] {
			t.Fatalf("event %d: got arg %d at %d, want %d at %d (all %v at %v)", i, r.got[i], r.at[i], want[i], wantAt[i], r.got, r.at)
		}
	}
	if e.Fired() != 5 || e.Pending() != 0 {
		t.Fatalf("fired %d pending %d, want 5 and 0", e.Fired(), e.Pending())
	}
}

// An event scheduled for the current instant fires after events already
// due at that instant (they were scheduled earlier), preserving (time, seq).
func TestNowQueueAfterEarlierEventsAtSameTime(t *testing.T) {
	var e Engine
	r := &recorder{}
	var h HandlerFunc = func(now Time, arg int64) {
		r.HandleEvent(now, arg)
		if arg == 1 {
			e.After(0, r, 100) // now-queue
		}
	}
	e.After(5, h, 1)
	e.After(5, r, 2)
	e.After(5, r, 3)
	for e.Step() {
	}
	want := []int64{1, 2, 3, 100}
	for i := range want {
		if r.got[i] != want[i] {
			t.Fatalf("got %v, want %v", r.got, want)
		}
	}
}

func TestCancel(t *testing.T) {
	var e Engine
	r := &recorder{}
	a := e.After(10, r, 1)
	b := e.After(20, r, 2)
	c := e.After(0, r, 3) // in the now-queue
	d := e.After(30, r, 4)
	if !e.Cancel(b) || !e.Cancel(c) {
		t.Fatal("cancel of pending events reported false")
	}
	if e.Cancel(b) {
		t.Fatal("second cancel reported true")
	}
	if e.Cancel(0) {
		t.Fatal("cancel of the zero id reported true")
	}
	for e.Step() {
	}
	if len(r.got) != 2 || r.got[0] != 1 || r.got[1] != 4 {
		t.Fatalf("got %v, want [1 4]", r.got)
	}
	if e.Cancel(a) || e.Cancel(d) {
		t.Fatal("cancel of fired events reported true")
	}
	// a reused slot must not be cancellable through the old id
	n := e.After(5, r, 5)
	if e.Cancel(a) {
		t.Fatal("stale id cancelled a new event")
	}
	if !e.Cancel(n) {
		t.Fatal("new event not cancellable")
	}
}

func TestRunUntilAndSchedulePast(t *testing.T) {
	var e Engine
	r := &recorder{}
	for i := int64(1); i <= 10; i++ {
		e.After(Time(i)*Second, r, i)
	}
	if !e.RunUntil(5 * Second) {
		t.Fatal("RunUntil did not reach its time")
	}
	if len(r.got) != 5 || e.Now() != 5*Second {
		t.Fatalf("after RunUntil(5s): %d events, now %v; want 5 events at 5s", len(r.got), e.Now())
	}
	if _, err := e.Schedule(Second, r, 0); err != ErrPast {
		t.Fatalf("Schedule in the past: err %v, want ErrPast", err)
	}
	e.RunUntil(100 * Second)
	if len(r.got) != 10 || e.Now() != 100*Second {
		t.Fatalf("got %d events, now %v", len(r.got), e.Now())
	}
}

func TestStop(t *testing.T) {
	var e Engine
	n := 0
	var h HandlerFunc
	h = func(now Time, arg int64) {
		n++
		if n == 3 {
			e.Stop()
		}
		e.After(Second, h, 0)
	}
	e.After(0, h, 0)
	if e.RunUntil(Hour) {
		t.Fatal("RunUntil reported reaching its time after Stop")
	}
	if n != 3 || e.Now() != 2*Second {
		t.Fatalf("n=%d now=%v, want 3 at 2s", n, e.Now())
	}
}

// StepsUntil returns after the event whose handler called Stop, with Now
// at that event; a Stop before the call does not count, and the next call
// goes on from there.
func TestStepsUntilStop(t *testing.T) {
	var e Engine
	n := 0
	var h HandlerFunc
	h = func(now Time, arg int64) {
		n++
		if n == 3 {
			e.Stop()
		}
		e.After(Second, h, 0)
	}
	e.After(0, h, 0)
	if k := e.StepsUntil(Hour, 100); k != 3 || n != 3 || e.Now() != 2*Second {
		t.Fatalf("fired %d (n=%d) now=%v, want 3 at 2s", k, n, e.Now())
	}
	e.Stop() // outside a call: ignored
	if k := e.StepsUntil(Hour, 4); k != 4 || n != 7 || e.Now() != 6*Second {
		t.Fatalf("fired %d (n=%d) now=%v, want 4 more to 6s", k, n, e.Now())
	}
	// by t: the events at 7s and 8s, then none left by 8.5s; Now stays at
	// the last event's time (StepUntil's, not RunUntil's)
	if k := e.StepsUntil(8*Second+Second/2, 100); k != 2 || n != 9 || e.Now() != 8*Second {
		t.Fatalf("fired %d (n=%d) now=%v, want 2 more to 8s", k, n, e.Now())
	}
	if k := e.StepsUntil(20*Second, 0); k != 0 || n != 9 {
		t.Fatalf("n=0 fired %d (n=%d), want none", k, n)
	}
}

// A batch cut short by n can leave events of Now's instant in the FIFO;
// a later call with a time before Now fires none of them, one with Now
// fires them.
func TestStepsUntilBeforeNow(t *testing.T) {
	var e Engine
	r := &recorder{}
	e.After(10, HandlerFunc(func(now Time, arg int64) {
		r.HandleEvent(now, arg)
		e.After(0, r, 1)
		e.After(0, r, 2)
	}), 0)
	if k := e.StepsUntil(10, 2); k != 2 || !slices.Equal(r.got, []int64{0, 1}) {
		t.Fatalf("fired %d: %v, want 2: [0 1]", k, r.got)
	}
	if k := e.StepsUntil(9, 5); k != 0 || len(r.got) != 2 {
		t.Fatalf("before Now: fired %d: %v, want none", k, r.got)
	}
	if k := e.StepsUntil(10, 5); k != 1 || !slices.Equal(r.got, []int64{0, 1, 2}) || e.Now() != 10 {
		t.Fatalf("at Now: fired %d: %v now %v, want 1: [0 1 2] at 10", k, r.got, e.Now())
	}
}

// StepsUntil in batches of every size fires the same events, at the same
// times, in the same order and with the same counts as StepUntil one by
// one: handlers schedule successors at the current instant (the FIFO) and
// later, and cancel pending events (dropped when they come first).
func TestStepsUntilAgainstStepUntil(t *testing.T) {
	type fired struct {
		at  Time
		arg int64
	}
	run := func(batch func(e *Engine, t Time, n uint64) uint64, sizes []uint64) ([]fired, []uint64) {
		var e Engine
		rng := Stream(3, "steps-test")
		var got []fired
		var ids []EventID
		var h HandlerFunc
		h = func(now Time, arg int64) {
			got = append(got, fired{now, arg})
			switch rng.IntN(4) {
			case 0:
				ids = append(ids, e.After(0, h, arg+1)) // this instant
			case 1:
				ids = append(ids, e.After(Time(rng.IntN(50)), h, arg+1))
				if e.Pending() < 200 {
					ids = append(ids, e.After(Time(rng.IntN(50)), h, arg+2))
				}
			case 2:
				if k := rng.IntN(len(ids)); rng.IntN(2) == 0 {
					e.Cancel(ids[k])
				}
				ids = append(ids, e.After(Time(1+rng.IntN(50)), h, arg+1))
			default:
				ids = append(ids, e.After(Time(1+rng.IntN(50)), h, arg+1))
			}
		}
		for i := int64(0); i < 40; i++ {
			ids = append(ids, e.After(Time(rng.IntN(100)), h, i*1000))
		}
		var counts []uint64
		for i, t := 0, Time(0); t < 20000; i++ {
			t += Time(i%37) * 3
			counts = append(counts, batch(&e, t, sizes[i%len(sizes)]))
		}
		return got, counts
	}
	one := func(e *Engine, t Time, n uint64) uint64 {
		var k uint64
		for k < n && e.StepUntil(t) {
			k++
		}
		return k
	}
	sizes := []uint64{1, 7, 0, 64, 3, 1 << 20}
	want, wantCounts := run(one, sizes)
	got, gotCounts := run((*Engine).StepsUntil, sizes)
	if len(want) < 10000 {
		t.Fatalf("the reference fired only %d events", len(want))
	}
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("event %d: got arg %d at %d, want %d at %d", i, got[i].arg, got[i].at, want[i].arg, want[i].at)
			}
		}
		t.Fatalf("fired %d events, want %d", len(got), len(want))
	}
	if !slices.Equal(gotCounts, wantCounts) {
		t.Fatalf("batch counts differ: got %v, want %v", gotCounts[:20], wantCounts[:20])
	}
}

// Random schedules and cancels against a reference: the engine must fire
// exactly the uncancelled events in (time, seq) order.
func TestHeapAgainstReference(t *testing.T) {
	var e Engine
	rng := Stream(7, "heap-test")
	type ev struct {
		at  Time
		seq int64
	}
	var ids []EventID
	var evs []ev
	cancelled := map[int64]bool{}
	r := &recorder{}
	for i := int64(0); i < 20000; i++ {
		at := Time(rng.IntN(1000))
		ids = append(ids, e.After(at, r, i))
		evs = append(evs, ev{at, i})
		if rng.IntN(4) == 0 {
			k := rng.IntN(len(ids))
			if e.Cancel(ids[k]) {
				cancelled[int64(k)] = true
			}
		}
	}
	for e.Step() {
	}
	var want []int64
	for t0 := Time(0); t0 < 1000; t0++ {
		for _, x := range evs {
			if x.at == t0 && !cancelled[x.seq] {
				want = append(want, x.seq)
			}
		}
	}
	if len(want) != len(r.got) {
		t.Fatalf("fired %d events, want %d", len(r.got), len(want))
	}
	for i := range want {
		if want[i] != r.got[i] {
			t.Fatalf("event %d: got %d want %d", i, r.got[i], want[i])
		}
	}
}

func TestSteadyStateAllocatesNothing(t *testing.T) {
	var e Engine
	var h HandlerFunc
	h = func(now Time, arg int64) { e.After(Time(arg%7+1), h, arg+1) }
	for i := int64(0); i < 64; i++ {
		e.After(Time(i), h, i)
	}
	e.RunUntil(10000) // warm the slab
	allocs := testing.AllocsPerRun(100, func() { e.RunUntil(e.Now() + 1000) })
	if allocs != 0 {
		t.Fatalf("steady state allocates %v times per run, want 0", allocs)
	}
}

func TestStreamsDeterministicAndIndependent(t *testing.T) {
	a1, a2 := Stream(1, "source/a/0"), Stream(1, "source/a/0")
	b := Stream(1, "source/b/0")
	c := Stream(2, "source/a/0")
	same, diffB, diffC := true, 0, 0
	for i := 0; i < 100; i++ {
		x, y := a1.Uint64(), a2.Uint64()
		if x != y {
			same = false
		}
		if b.Uint64() != x {
			diffB++
		}
		if c.Uint64() != x {
			diffC++
		}
	}
	if !same || diffB != 100 || diffC != 100 {
		t.Fatalf("same=%v diffB=%d diffC=%d", same, diffB, diffC)
	}
	// a fixed value pins the stream across releases: outputs stay byte-identical
	if got := Stream(1, "x").Uint64(); got != Stream(1, "x").Uint64() {
		t.Fatal("not deterministic")
	}
}

func TestFromSeconds(t *testing.T) {
	cases := []struct {
		s    float64
		want Time
	}{{1, Second}, {0.025, 25 * Millisecond}, {-1, 0}, {1e300, Never}, {1e-9, 1}}
	for _, c := range cases {
		if got := FromSeconds(c.s); got != c.want {
			t.Errorf("FromSeconds(%v) = %d, want %d", c.s, got, c.want)
		}
	}
}

func BenchmarkEngineHold(b *testing.B) {
	// the classic "hold" model: a queue of 1000 pending events, each firing
	// schedules one more at a random offset
	var e Engine
	rng := Stream(1, "bench")
	var h HandlerFunc
	h = func(now Time, arg int64) { e.After(Time(rng.IntN(1000000)), h, 0) }
	for i := 0; i < 1000; i++ {
		e.After(Time(rng.IntN(1000000)), h, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// A cancelled event stays queued until it comes first (lazy cancel); it
// must not make RunUntil fire a later event, nor NextTime report its time.
func TestCancelledFrontIsSkipped(t *testing.T) {
	var e Engine
	r := &recorder{}
	a := e.After(10, r, 1)
	e.After(20, r, 2)
	now := e.After(0, r, 3) // in the now-queue
	e.Cancel(a)
	e.Cancel(now)
	if got := e.NextTime(); got != 20 {
		t.Fatalf("NextTime = %d, want 20 (the cancelled events at 0 and 10 skipped)", got)
	}
	if e.Pending() != 1 {
		t.Fatalf("Pending = %d, want 1", e.Pending())
	}
	if !e.RunUntil(15) || len(r.got) != 0 || e.Now() != 15 {
		t.Fatalf("RunUntil(15) fired %v, now %d; want nothing fired, now 15", r.got, e.Now())
	}
	e.RunUntil(30)
	if len(r.got) != 1 || r.got[0] != 2 || e.Pending() != 0 {
		t.Fatalf("fired %v, pending %d; want [2] and 0", r.got, e.Pending())
	}
}

// An event of the current instant waits in the FIFO, not the heap: it can
// be cancelled until it fires, and its id stays dead once the FIFO has
// moved on (even after the FIFO's slice was reused).
func TestCancelNowEvents(t *testing.T) {
	var e Engine
	r := &recorder{}
	a := e.After(0, r, 1)
	b := e.After(0, r, 2)
	e.Step() // fires a
	if e.Cancel(a) {
		t.Fatal("cancel of a fired FIFO event reported true")
	}
	if !e.Cancel(b) || e.Cancel(b) {
		t.Fatal("cancel of a waiting FIFO event: want true once")
	}
	if e.Pending() != 0 || e.Step() {
		t.Fatalf("pending %d after cancelling the last event, want 0 and no step", e.Pending())
	}
	c := e.After(0, r, 3) // reuses the FIFO's slice
	if e.Cancel(b) || e.Cancel(a) {
		t.Fatal("a stale FIFO id cancelled a new event")
	}
	e.Step()
	if e.Cancel(c) || len(r.got) != 2 || r.got[1] != 3 {
		t.Fatalf("fired %v, want [1 3]", r.got)
	}
}

// Handlers that schedule and cancel while they fire (the fired event's
// heap entry is replaced by the first event its handler schedules, see
// Engine.top) against a reference: the engine must fire exactly the
// uncancelled events in (time, seq) order, report Pending and NextTime as
// the reference does, and StepUntil must stop at its bound.
func TestHoldAgainstReference(t *testing.T) {
	type ref struct {
		at   Time
		id   EventID
		dead bool
	}
	var e Engine
	rng := Stream(11, "hold-test")
	var evs []ref // by seq
	var fired []int64
	live := 0
	pending := func() (n int, next Time) {
		next = Never
		for _, x := range evs {
			if !x.dead {
				n++
				next = min(next, x.at)
			}
		}
		return n, next
	}
	var h HandlerFunc
	schedule := func(d Duration) {
		live++
		evs = append(evs, ref{at: e.Now() + d})
		evs[len(evs)-1].id = e.After(d, h, int64(len(evs)-1))
	}
	h = func(now Time, arg int64) {
		fired = append(fired, arg)
		evs[arg].dead = true
		live--
		for k := rng.IntN(4); k > 0 && len(evs) < 20000; k-- {
			d := Duration(0)
			if rng.IntN(3) > 0 {
				d = Duration(rng.IntN(50))
			}
			schedule(d)
		}
		if rng.IntN(5) == 0 {
			k := rng.IntN(len(evs))
			if got, want := e.Cancel(evs[k].id), !evs[k].dead; got != want {
				t.Fatalf("Cancel of event %d reported %v, want %v", k, got, want)
			}
			if !evs[k].dead {
				live--
			}
			evs[k].dead = true
		}
		if e.Pending() != live {
			t.Fatalf("Pending = %d in a handler, want %d", e.Pending(), live)
		}
	}
	for i := 0; i < 8; i++ {
		schedule(Duration(rng.IntN(50)))
	}
	for bound := Time(0); ; bound += 37 {
		for e.StepUntil(bound) {
		}
		n, next := pending()
		if n == 0 {
			break
		}
		if next <= bound || e.NextTime() != next || e.Pending() != n {
			t.Fatalf("at bound %d: NextTime %d Pending %d, want the next at %d (> bound), %d pending", bound, e.NextTime(), e.Pending(), next, n)
		}
	}
	// reference order: by time, then by seq (the order of scheduling)
	was := make([]bool, len(evs))
	for _, i := range fired {
		was[i] = true
	}
	var want []int64
	for i := range evs {
		if was[i] {
			want = append(want, int64(i))
		}
	}
	slices.SortStableFunc(want, func(a, b int64) int { return cmp.Compare(evs[a].at, evs[b].at) })
	if len(fired) < 1000 {
		t.Fatalf("only %d events fired", len(fired))
	}
	for i := range want {
		if want[i] != fired[i] {
			t.Fatalf("event %d: fired %d, want %d", i, fired[i], want[i])
		}
	}
}

// A queue that grows past sortedMax and shrinks below sortedMin again and
// again (handlers schedule two successors on average, then half of one)
// switches between a sorted array and a heap; the order stays (time,
// scheduling order) through every switch, with cancels and events of the
// current instant in between.
func TestSortedAndHeapAgainstReference(t *testing.T) {
	type ref struct {
		at   Time
		id   EventID
		dead bool
	}
	var e Engine
	rng := Stream(13, "sorted-heap-test")
	var evs []ref // by seq
	var fired []int64
	var h HandlerFunc
	schedule := func(d Duration) {
		evs = append(evs, ref{at: e.Now() + d})
		evs[len(evs)-1].id = e.After(d, h, int64(len(evs)-1))
	}
	grow := true
	toHeap, toSorted := 0, 0
	h = func(now Time, arg int64) {
		fired = append(fired, arg)
		evs[arg].dead = true
		switch n := e.Pending(); {
		case grow && n > 3*sortedMax:
			grow = false
		case !grow && n < sortedMin/2:
			grow = true
		}
		k := rng.IntN(2) // 0 or 1 successors
		if grow {
			k = 1 + rng.IntN(3) // 1 to 3
		}
		for ; k > 0 && len(evs) < 50000; k-- {
			d := Duration(0)
			if rng.IntN(4) > 0 {
				d = Duration(rng.IntN(100))
			}
			schedule(d)
		}
		if rng.IntN(6) == 0 {
			k := rng.IntN(len(evs))
			if got, want := e.Cancel(evs[k].id), !evs[k].dead; got != want {
				t.Fatalf("Cancel of event %d reported %v, want %v", k, got, want)
			}
			evs[k].dead = true
		}
	}
	for i := 0; i < 4; i++ {
		schedule(Duration(rng.IntN(100)))
	}
	unsorted := e.unsorted
	for e.Step() {
		if e.unsorted != unsorted {
			if e.unsorted {
				toHeap++
			} else {
				toSorted++
			}
			unsorted = e.unsorted
		}
	}
	if toHeap < 10 || toSorted < 10 {
		t.Fatalf("the queue became a heap %d times and sorted %d times, want at least 10 each", toHeap, toSorted)
	}
	was := make([]bool, len(evs))
	for _, i := range fired {
		was[i] = true
	}
	var want []int64
	for i := range evs {
		if was[i] {
			want = append(want, int64(i))
		} else if !evs[i].dead {
			t.Fatalf("event %d neither fired nor cancelled", i)
		}
	}
	slices.SortStableFunc(want, func(a, b int64) int { return cmp.Compare(evs[a].at, evs[b].at) })
	for i := range want {
		if want[i] != fired[i] {
			t.Fatalf("event %d: fired %d, want %d", i, fired[i], want[i])
		}
	}
}

// When the 32 bits of the sequence numbers run out, the queued entries are
// numbered again in their order (renumber): the order stays (time,
// scheduling order) through it, in a sorted queue and in a heap, with the
// fired root in place (Engine.top), cancels and events of the current
// instant. The test makes the numbers run out again and again by moving
// the last one up to the end of its range (a jump up keeps the order too:
// a new entry's number stays above every queued one's).
func TestRenumberKeepsOrder(t *testing.T) {
	for _, queued := range []int{4, 3 * sortedMax} {
		type ref struct {
			at   Time
			id   EventID
			dead bool
		}
		var e Engine
		rng := Stream(17, "renumber-test")
		var evs []ref // by seq
		var fired []int64
		var h HandlerFunc
		schedule := func(d Duration) {
			evs = append(evs, ref{at: e.Now() + d})
			evs[len(evs)-1].id = e.After(d, h, int64(len(evs)-1))
		}
		renumbered := 0
		h = func(now Time, arg int64) {
			fired = append(fired, arg)
			evs[arg].dead = true
			if rng.IntN(4) == 0 && e.seq < math.MaxUint32-3 {
				e.seq = math.MaxUint32 - uint32(rng.IntN(3))
			}
			for k := 1 + rng.IntN(2); k > 0 && len(evs) < 20000; k-- {
				if e.seq == math.MaxUint32 {
					renumbered++
				}
				d := Duration(0)
				if rng.IntN(4) > 0 {
					d = Duration(rng.IntN(20)) // many at one time
				}
				schedule(d)
				if e.Pending() < queued {
					k++
				}
			}
			if rng.IntN(6) == 0 {
				k := rng.IntN(len(evs))
				if got, want := e.Cancel(evs[k].id), !evs[k].dead; got != want {
					t.Fatalf("Cancel of event %d reported %v, want %v", k, got, want)
				}
				evs[k].dead = true
			}
		}
		for i := 0; i < queued; i++ {
			schedule(Duration(rng.IntN(20)))
		}
		for e.Step() {
		}
		if renumbered < 100 {
			t.Fatalf("queue of %d: renumbered %d times, want at least 100", queued, renumbered)
		}
		was := make([]bool, len(evs))
		for _, i := range fired {
			was[i] = true
		}
		var want []int64
		for i := range evs {
			if was[i] {
				want = append(want, int64(i))
			} else if !evs[i].dead {
				t.Fatalf("queue of %d: event %d neither fired nor cancelled", queued, i)
			}
		}
		slices.SortStableFunc(want, func(a, b int64) int { return cmp.Compare(evs[a].at, evs[b].at) })
		for i := range want {
			if want[i] != fired[i] {
				t.Fatalf("queue of %d: event %d: fired %d, want %d", queued, i, fired[i], want[i])
			}
		}
	}
}

// A cancelled heap event keeps its node until its entry comes first (the
// entry names its node by slot alone): events scheduled meanwhile take
// other nodes, the cancelled event's id stays dead, and the node is reused
// (with a new id) only after the entry is dropped.
func TestCancelledNodeHeldUntilDropped(t *testing.T) {
	var e Engine
	r := &recorder{}
	a := e.After(10, r, 1)
	e.Cancel(a)
	b := e.After(20, r, 2)
	if uint32(b) == uint32(a) {
		t.Fatal("an event took the node of a cancelled event still queued")
	}
	if e.Cancel(a) || e.Pending() != 1 {
		t.Fatalf("cancelled id cancellable again, or Pending %d (want 1)", e.Pending())
	}
	if !e.Step() || !slices.Equal(r.got, []int64{2}) || e.Now() != 20 {
		t.Fatalf("fired %v at %v, want [2] at 20", r.got, e.Now())
	}
	c := e.After(5, r, 3) // both nodes are free now
	if c == a || c == b || e.Cancel(a) || e.Cancel(b) {
		t.Fatal("a stale id matched a reused node")
	}
	if len(e.nodes) != 2 {
		t.Fatalf("%d nodes, want 2 (the dropped entry's node freed)", len(e.nodes))
	}
}

// StepsUntil with a count that overflows Fired's range fires every event
// due by t.
func TestStepsUntilUnbounded(t *testing.T) {
	var e Engine
	r := &recorder{}
	for i := int64(1); i <= 5; i++ {
		e.After(Time(i), r, i)
	}
	e.Step()
	if k := e.StepsUntil(4, math.MaxUint64); k != 3 || e.Now() != 4 || e.Fired() != 4 {
		t.Fatalf("fired %d, now %v, Fired %d; want 3 to 4, 4 in all", k, e.Now(), e.Fired())
	}
}

// Post fires as Schedule at Now does: behind the heap's events already
// due now, in one FIFO order with the events scheduled at Now (before and
// after it), with the same Pending and Fired counts; a posted event has
// no EventID, yet it takes its place in the FIFO, so the ids of the
// events scheduled at Now around it still cancel exactly those.
func TestPostAgainstScheduleAtNow(t *testing.T) {
	type fired struct {
		at  Time
		arg int64
	}
	// run: handlers that fan out at the current instant (by post or
	// schedule, by the choice of the same stream) and later; every fourth
	// event scheduled at Now is cancelled at once
	run := func(post bool) (got []fired, pending []int, cancelled int) {
		var e Engine
		rng := Stream(5, "post-test")
		var h HandlerFunc
		n := int64(100)
		h = func(now Time, arg int64) {
			got = append(got, fired{now, arg})
			pending = append(pending, e.Pending())
			for k := 1 + rng.IntN(2); k > 0 && now < 2000 && e.Pending() < 100; k-- {
				n++
				switch rng.IntN(3) {
				case 0:
					if post {
						e.Post(h, n)
					} else {
						e.Schedule(now, h, n)
					}
				case 1:
					id, _ := e.Schedule(now, h, n)
					if rng.IntN(4) == 0 && e.Cancel(id) {
						cancelled++
					}
				default:
					e.After(Time(1+rng.IntN(20)), h, n)
				}
			}
		}
		for i := int64(1); i <= 30; i++ {
			e.After(Time(rng.IntN(40)), h, i)
		}
		for e.StepsUntil(Never, 7) > 0 {
		}
		if e.Pending() != 0 || e.Fired() != uint64(len(got)) {
			t.Fatalf("post=%v: pending %d, fired %d, want 0 and %d", post, e.Pending(), e.Fired(), len(got))
		}
		return got, pending, cancelled
	}
	want, wantPending, wantCancelled := run(false)
	got, gotPending, gotCancelled := run(true)
	if len(want) < 1000 || wantCancelled == 0 {
		t.Fatalf("the reference fired only %d events, cancelled %d", len(want), wantCancelled)
	}
	if !slices.Equal(got, want) || !slices.Equal(gotPending, wantPending) || gotCancelled != wantCancelled {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] || gotPending[i] != wantPending[i] {
				t.Fatalf("event %d: posted: arg %d at %d pending %d; scheduled: arg %d at %d pending %d",
					i, got[i].arg, got[i].at, gotPending[i], want[i].arg, want[i].at, wantPending[i])
			}
		}
		t.Fatalf("posted fired %d events (%d cancelled), scheduled %d (%d)", len(got), gotCancelled, len(want), wantCancelled)
	}
}

// A posted event waits behind the heap's events of its instant and the
// FIFO's events scheduled before it, and counts as pending until it
// fires.
func TestPostOrder(t *testing.T) {
	var e Engine
	r := &recorder{}
	var h HandlerFunc = func(now Time, arg int64) {
		r.HandleEvent(now, arg)
		if arg == 1 {
			e.Schedule(now, r, 10)
			e.Post(r, 11)
			e.After(0, r, 12)
			e.Post(r, 13)
			if e.Pending() != 6 { // 2, 3 and the four of this instant
				t.Errorf("pending %d after posting, want 6", e.Pending())
			}
		}
	}
	e.After(5, h, 1)
	e.After(5, r, 2)
	e.After(6, r, 3)
	e.Post(r, 0) // at 0, before everything
	for e.Step() {
	}
	want := []int64{0, 1, 2, 10, 11, 12, 13, 3}
	wantAt := []Time{0, 5, 5, 5, 5, 5, 5, 6}
	if !slices.Equal(r.got, want) || !slices.Equal(r.at, wantAt) || e.Fired() != 8 || e.Pending() != 0 {
		t.Fatalf("fired %v at %v (fired %d, pending %d), want %v at %v (8, 0)", r.got, r.at, e.Fired(), e.Pending(), want, wantAt)
	}
}

// StepsUntil fires a run of the current instant's events in one inner
// loop: a Stop from one of them ends the batch after it, a cancelled one
// is skipped (and no longer pending), and the bound n cuts the run.
func TestStepsUntilNowRun(t *testing.T) {
	var e Engine
	r := &recorder{}
	var ids []EventID
	var h HandlerFunc = func(now Time, arg int64) {
		r.HandleEvent(now, arg)
		switch arg {
		case 1:
			e.Cancel(ids[1]) // arg 3, behind it in the FIFO
		case 2:
			e.Stop()
		}
	}
	e.After(10, HandlerFunc(func(now Time, arg int64) {
		r.HandleEvent(now, arg)
		for i := int64(1); i <= 6; i++ {
			id := e.After(0, h, i)
			if i == 1 || i == 3 {
				ids = append(ids, id)
			}
		}
	}), 0)
	if k := e.StepsUntil(Never, 100); k != 3 || !slices.Equal(r.got, []int64{0, 1, 2}) || e.Pending() != 3 {
		t.Fatalf("fired %d: %v, pending %d; want 3: [0 1 2], 3 (Stop after 2, 3 cancelled)", k, r.got, e.Pending())
	}
	if k := e.StepsUntil(Never, 2); k != 2 || !slices.Equal(r.got, []int64{0, 1, 2, 4, 5}) || e.Pending() != 1 {
		t.Fatalf("fired %d: %v, pending %d; want 2: [0 1 2 4 5], 1", k, r.got, e.Pending())
	}
	if k := e.StepsUntil(Never, 100); k != 1 || e.Pending() != 0 || e.Fired() != 6 || r.at[5] != 10 {
		t.Fatalf("fired %d, pending %d, fired in all %d; want 1, 0, 6", k, e.Pending(), e.Fired())
	}
}
