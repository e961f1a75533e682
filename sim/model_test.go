package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Key groups as Flink assigns them: ranges of key groups per subtask, and
// every key in [0, max parallelism).
func TestKeyGroups(t *testing.T) {
	// key group ranges: with max parallelism 128 and p = 3, subtasks own
	// 43, 43 and 42 key groups (DESIGN.md "Job graph")
	own := make([]int, 3)
	for kg := 0; kg < 128; kg++ {
		own[kg*3/128]++
	}
	if own[0] != 43 || own[1] != 43 || own[2] != 42 {
		t.Fatalf("key groups per subtask %v, want [43 43 42]", own)
	}
	if murmurHash(math.MinInt32) < 0 {
		t.Fatal("murmurHash must be non-negative")
	}
	// every key lands in [0, maxParallelism)
	for k := uint32(0); k < 10000; k++ {
		if g := keyGroup(k, 128); g < 0 || g >= 128 {
			t.Fatalf("key %d -> key group %d", k, g)
		}
	}
}

// A hash edge's key table holds what choose would otherwise compute per
// record: key group = murmurHash(key) mod max parallelism, owner = key
// group × parallelism / max parallelism; the keys past the table are
// hashed, into the same owners. The writer's channelFor looks the first
// keyChanKeys keys up in line, in the partition's channel table, and
// leaves the others to choose.
func TestKeyOwners(t *testing.T) {
	for _, c := range []struct{ keys, p, m int }{{1000, 4, 128}, {1000, 1, 128}, {5000, 170, 256}, {1 << 17, 3, 32768}} {
		own := keyOwners(c.keys, c.p, c.m)
		if want := min(c.keys, keyOwnerKeys); len(own) != want {
			t.Fatalf("%+v: table of %d keys, want %d", c, len(own), want)
		}
		chans := make([]*channel, c.p)
		for i := range chans {
			chans[i] = &channel{}
		}
		e := &edge{part: partHash, maxParallelism: c.m, keyOwner: own}
		p := &partition{edge: e, chans: chans, path: writePathOf(e, len(chans))}
		if p.path == pathHash {
			p.keyChans = keyChannels(chans, own)
			if want := min(c.keys, keyChanKeys); len(p.keyChans) != want {
				t.Fatalf("%+v: channel table of %d keys, want %d", c, len(p.keyChans), want)
			}
		} else {
			p.one = chans[0]
		}
		counts := make([]int, c.p)
		for k := 0; k < c.keys; k++ {
			kg := keyGroup(uint32(k), c.m)
			want := kg * c.p / c.m
			if k < len(own) && int(own[k]) != want {
				t.Fatalf("%+v: key %d owned by %d, want %d (key group %d)", c, k, own[k], want, kg)
			}
			if got := p.choose(&Record{Key: uint32(k)}); got != chans[want] {
				t.Fatalf("%+v: key %d chose another channel than %d", c, k, want)
			}
			// the writer's pick: channelFor in line, choose for the rest
			got := p.channelFor(&Record{Key: uint32(k)})
			if inLine := k < keyChanKeys || c.p == 1; (got != nil) != inLine {
				t.Fatalf("%+v: key %d decided in line %v, want %v", c, k, got != nil, inLine)
			}
			if got != nil && got != chans[want] {
				t.Fatalf("%+v: key %d went to another channel than %d", c, k, want)
			}
			counts[want]++
		}
		for i, n := range counts {
			if n == 0 {
				t.Errorf("%+v: receiver %d owns none of %d keys", c, i, c.keys)
			}
		}
	}
}

// The channel targets of an edge are tested in sim/plan (TestTargets).

func TestDefaultMaxParallelism(t *testing.T) {
	if scenario.DefaultMaxParallelism(3) != 128 || scenario.DefaultMaxParallelism(200) != 512 || scenario.DefaultMaxParallelism(100000) != 32768 {
		t.Error("default max parallelism differs from Flink's")
	}
}

func TestArrivalProcessCounts(t *testing.T) {
	count := func(a scenario.Arrival, until des.Time) int {
		g := newArrivalGen(a, des.StreamRand(1, "test"))
		n := 0
		for g.next() <= until {
			n++
		}
		return n
	}
	if n := count(scenario.Arrival{Process: scenario.ArrivalConstant, Rate: 100}, 10*des.Second); n != 1000 {
		t.Errorf("constant 100/s over 10s: %d records, want 1000", n)
	}
	// 3/s does not divide a second into whole nanoseconds: no drift
	if n := count(scenario.Arrival{Process: scenario.ArrivalConstant, Rate: 3}, 1000*des.Second); n != 3000 {
		t.Errorf("constant 3/s over 1000s: %d records, want 3000", n)
	}
	sched := scenario.Arrival{Process: scenario.ArrivalSchedule, Schedule: []scenario.RateStep{
		{At: 0, Rate: 10}, {At: 10 * des.Second, Rate: 0}, {At: 20 * des.Second, Rate: 100}}}
	if n := count(sched, 30*des.Second); n != 100+0+1000 {
		t.Errorf("schedule 10/s, 0/s, 100/s over 10s each: %d records, want 1100", n)
	}
	end := scenario.Arrival{Process: scenario.ArrivalSchedule, Schedule: []scenario.RateStep{{At: 0, Rate: 5}, {At: 2 * des.Second, Rate: 0}}}
	if n := count(end, des.Hour); n != 10 {
		t.Errorf("schedule ending in rate 0: %d records, want 10", n)
	}
	// Poisson: mean count λT, standard deviation sqrt(λT)
	if n := count(scenario.Arrival{Process: scenario.ArrivalPoisson, Rate: 1000}, 100*des.Second); math.Abs(float64(n)-1e5) > 4*math.Sqrt(1e5) {
		t.Errorf("poisson 1000/s over 100s: %d records, want 100000 ± 4σ", n)
	}
	// bursty on/off with equal mean durations: the long-run rate is the
	// mean of the two rates
	b := scenario.Arrival{Process: scenario.ArrivalBursty, Rate: 1000, OffRate: 0, On: des.Second, Off: des.Second}
	if n := count(b, 10000*des.Second); math.Abs(float64(n)/10000-500) > 15 {
		t.Errorf("bursty 1000/s on, 0 off, 1s/1s: %.1f records/s, want 500 ± 15", float64(n)/10000)
	}
}

func TestZipfShares(t *testing.T) {
	d := newKeyDist(scenario.Keys{Count: 1000, Distribution: scenario.KeysZipf, Exponent: 1.5})
	h := 0.0
	for k := 1; k <= 1000; k++ {
		h += math.Pow(float64(k), -1.5)
	}
	if math.Abs(d.cdf[0]-1/h) > 1e-12 {
		t.Fatalf("share of key 0 = %v, want %v", d.cdf[0], 1/h)
	}
	r := des.StreamRand(1, "zipf")
	hits := 0
	const n = 200000
	for i := 0; i < n; i++ {
		if d.sample(r) == 0 {
			hits++
		}
	}
	p := 1 / h
	if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(hits)-n*p) > 4*sd {
		t.Fatalf("key 0 drawn %d times of %d, want %.0f ± 4σ", hits, n, n*p)
	}
}

func TestServiceDistributionMeans(t *testing.T) {
	r := des.StreamRand(3, "svc")
	for _, st := range []scenario.ServiceTime{
		{Distribution: scenario.DistConstant, Mean: 5 * des.Millisecond},
		{Distribution: scenario.DistExponential, Mean: 5 * des.Millisecond},
		{Distribution: scenario.DistUniform, Min: 2 * des.Millisecond, Max: 8 * des.Millisecond, Mean: 5 * des.Millisecond},
		{Distribution: scenario.DistLognormal, Mean: 5 * des.Millisecond, Stddev: 2 * des.Millisecond},
	} {
		d := newServiceDist(st)
		sum, sum2 := 0.0, 0.0
		const n = 200000
		for i := 0; i < n; i++ {
			x := float64(d.sample(r)) / 1e6
			sum += x
			sum2 += x * x
		}
		mean := sum / n
		if math.Abs(mean-5) > 0.05 {
			t.Errorf("%s: mean %.3fms, want 5ms", st.Distribution, mean)
		}
		if st.Distribution == scenario.DistLognormal {
			if sd := math.Sqrt(sum2/n - mean*mean); math.Abs(sd-2) > 0.05 {
				t.Errorf("lognormal: stddev %.3fms, want 2ms", sd)
			}
		}
	}
}

// A slow link is a bottleneck too: 100-byte records over 800 kbit/s carry
// at most 1000 records/s, so a 2000/s source is back-pressured half the time.
func TestBandwidthLimitsThroughput(t *testing.T) {
	yaml := `
name: slow-link
duration: 60s
warmup: 10s
workers: {count: 2, slots: 1}
network: {buffer_timeout: 10ms, latency: 1ms, bandwidth: 800kbit/s}
sources:
  - {name: src, parallelism: 2, arrival: {process: constant, rate: RATE}, max_rate: RATE, keys: {count: 10}}
sinks:
  - {name: out, input: src, partitioning: rebalance, parallelism: 1}
`
	// one sink subtask on worker 0 reads both sources: source 1 sits on worker 1
	run := func(rate string) Summary {
		s, err := New(mustParse(t, strings.ReplaceAll(yaml, "RATE", rate)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.RunUntil(t.Context(), 60*des.Second)
		return s.Result().Summary
	}
	sum := run("1000/s")
	src := sum.Vertices[0]
	remote, local := src.Subtasks[1], src.Subtasks[0]
	if math.Abs(remote.OutRate-1000) > 10 || remote.Status != StatusOK {
		t.Errorf("remote source: %.1f records/s (%s), want 1000 over a 100 kB/s link, OK", remote.OutRate, remote.Status)
	}
	if math.Abs(local.OutRate-1000) > 1 {
		t.Errorf("local source: %.1f records/s, want 1000", local.OutRate)
	}
	// now 1000/s more on the remote link than it carries
	remote = run("2000/s").Vertices[0].Subtasks[1]
	if math.Abs(remote.OutRate-1000) > 20 || math.Abs(remote.Backpressured-0.5) > 0.03 {
		t.Errorf("remote source behind a saturated link: %.1f records/s, back-pressured %.3f; want 1000 and 0.5", remote.OutRate, remote.Backpressured)
	}
}

func mustParse(t *testing.T, yaml string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(t.Name()+".yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Broadcast sends every record to every receiving subtask; a selectivity
// of 2.5 emits 2 or 3 records per input, decided by a hash of the record
// id (so that a replayed record is multiplied the same way): 2500 ± a
// binomial spread, and exactly what outputs() says for the 1000 ids.
func TestBroadcastAndSelectivity(t *testing.T) {
	// exactly 1000 records: 100/s for 10s, then nothing
	sc := mustParse(t, `
name: fanout
duration: 10500ms
network: {capacity: unbounded}
sources:
  - name: src
    arrival: {process: schedule, schedule: [{at: 0s, rate: 100/s}, {at: 10s, rate: 0/s}]}
    keys: {count: 10}
operators:
  - {name: split, input: src, service_time: {mean: 1ms}, selectivity: 2.5}
sinks:
  - {name: out, input: split, partitioning: broadcast, parallelism: 3}
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.RunUntil(t.Context(), sc.Duration)
	sum := s.Result().Summary
	want := 0
	for off := uint64(0); off < 1000; off++ {
		want += outputs(sourceID(0, off), s.vertices[1].salt, 2.5)
	}
	if math.Abs(float64(want)-2500) > 3*math.Sqrt(1000*0.25) {
		t.Errorf("outputs() gives %d records for 1000 inputs at selectivity 2.5, want 2500 ± 47", want)
	}
	if got := sum.Vertices[1].RecordsOut; got != uint64(want) {
		t.Errorf("split wrote %d records for 1000 inputs at selectivity 2.5, want %d", got, want)
	}
	for _, st := range sum.Vertices[2].Subtasks {
		if st.RecordsIn != uint64(want) {
			t.Errorf("broadcast receiver %d read %d records, want %d", st.Index, st.RecordsIn, want)
		}
	}
	d := sum.Delivery
	if sum.Totals.Delivered != 3*uint64(want) || d.Delivered != 3*uint64(want) || d.Duplicated != 0 {
		t.Errorf("delivered %d (%d distinct, %d duplicated), want 3 × %d distinct: broadcast copies have ids of their own", sum.Totals.Delivered, d.Delivered, d.Duplicated, want)
	}
}

// A non-replayable source that drops loses what arrives while it is
// blocked; one that blocks loses nothing and has no lag.
func TestNonReplayableSources(t *testing.T) {
	mk := func(mode string) *Summary {
		limit := ""
		if mode == scenario.OnBackpressureBuffer {
			limit = "\n    buffer_limit: 50"
		}
		sc := mustParse(t, `
name: socket
duration: 100s
warmup: 10s
sources:
  - name: socket
    arrival: {process: constant, rate: 100/s}
    replayable: false
    on_backpressure: `+mode+limit+`
operators:
  - {name: slow, input: socket, service_time: {mean: 20ms}}
sinks:
  - {name: out, input: slow}
`)
		s, err := New(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.RunUntil(t.Context(), sc.Duration)
		return &s.Result().Summary
	}
	block := mk(scenario.OnBackpressureBlock)
	if block.Totals.Dropped != 0 || block.Totals.SourceLag != 0 {
		t.Errorf("block: dropped %d lag %d, want 0 and 0", block.Totals.Dropped, block.Totals.SourceLag)
	}
	for _, mode := range []string{scenario.OnBackpressureDrop, scenario.OnBackpressureBuffer} {
		s := mk(mode)
		src := s.Vertices[0]
		// 10000 arrivals: each was emitted, dropped, or is still held (the
		// record in hand, and up to 49 more in a buffer of 50)
		held := uint64(1)
		if mode == scenario.OnBackpressureBuffer {
			held = 50
		}
		if got := src.RecordsOut + src.Dropped; got < 10000-held || got > 10000 {
			t.Errorf("%s: emitted %d + dropped %d = %d, want 10000 arrivals less at most %d held", mode, src.RecordsOut, src.Dropped, got, held)
		}
		if src.Dropped < 3000 {
			t.Errorf("%s: dropped %d of 10000 offered at twice the capacity, want thousands", mode, src.Dropped)
		}
	}
}

func TestFormatTime(t *testing.T) {
	for _, c := range []struct {
		t    des.Time
		want string
	}{
		{120 * des.Second, "120s"}, {13881500 * des.Microsecond, "13.882s"}, {2 * des.Millisecond, "2ms"}, {250 * des.Microsecond, "250µs"}, {1500 * des.Microsecond, "1.5ms"}, {des.Never, "2562047h47m16.8s"},
		{0, "0s"}, {200 * des.Hour, "200h"}, {4*des.Hour + 4*des.Minute + 19735*des.Millisecond, "4h4m19.7s"},
		{1000 * des.Second, "16m40s"}, {100000 * des.Second, "27h46m40s"},
	} {
		if got := FormatTime(c.t); got != c.want {
			t.Errorf("FormatTime(%v) = %q, want %q", int64(c.t), got, c.want)
		}
	}
}

// Absurdly slow processes saturate at des.Never instead of wrapping time.
func TestAddNsSaturates(t *testing.T) {
	if got := addNs(des.Second, 1e300); got != des.Never {
		t.Errorf("addNs(1s, 1e300) = %d, want Never", got)
	}
	if got := addNs(des.Never-10, 20); got != des.Never {
		t.Errorf("addNs near Never = %d, want Never", got)
	}
	if got := addNs(des.Second, math.NaN()); got != des.Never {
		t.Errorf("addNs(NaN) = %d, want Never", got)
	}
	if got := addNs(des.Second, 1.4); got != des.Second+1 {
		t.Errorf("addNs(1s, 1.4) = %d", got)
	}
	g := newArrivalGen(scenario.Arrival{Process: scenario.ArrivalPoisson, Rate: 1e-300}, des.StreamRand(1, "slow"))
	if at := g.next(); at != des.Never {
		t.Errorf("poisson at 1e-300/s: first arrival %d, want Never", at)
	}
}

// A replayed action applies at its time, after the events of that instant
// (the metrics sample at 5s has been taken), as a live injection does.
func TestReplayedActionTiming(t *testing.T) {
	sc := mustParse(t, `
name: replay
duration: 10s
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`)
	var samples, samplesAtFailure int
	var failedAt des.Time = -1
	obs := &countingObserver{onSample: func(*Sample) { samples++ }, onEvent: func(e Event) {
		if e.Type == EventFailure {
			failedAt, samplesAtFailure = e.Time, samples
		}
	}}
	s, err := New(sc, Options{Observer: obs, Actions: []Action{{AtS: 5, Kind: ActionFailure, Vertex: "src"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err = s.RunUntil(t.Context(), sc.Duration); err != nil {
		t.Fatal(err)
	}
	if failedAt != 5*des.Second || samplesAtFailure != 5 {
		t.Errorf("failed at %v after %d samples, want 5s after the 5th sample", failedAt, samplesAtFailure)
	}
	if _, err := New(sc, Options{Actions: []Action{{AtS: 5, Kind: ActionCheckpoint}, {AtS: 4, Kind: ActionCheckpoint}}}); err == nil {
		t.Error("actions out of time order must be refused")
	}
	if err := s.Inject(Action{Kind: "explode"}); err == nil || !strings.Contains(err.Error(), `unknown action "explode"`) {
		t.Errorf("unknown action: err = %v", err)
	}
}

type countingObserver struct {
	onSample func(*Sample)
	onEvent  func(Event)
}

func (o *countingObserver) Sample(s *Sample) { o.onSample(s) }
func (o *countingObserver) Event(e Event) {
	if o.onEvent != nil {
		o.onEvent(e)
	}
}

// All channels from one worker to another share one connection (Flink's
// PartitionRequestClientFactory: one client per remote TaskManager), so
// together they carry at most its bandwidth, in each direction: 8 × 8
// subtasks on two workers of 4 slots have 16 channels each way, and at
// 8 Mbit/s (1 MB/s, 10,000 records of 100 bytes a second) they carry
// 1 MB/s each way, not 16 × 1 MB/s as 16 links of their own would.
func TestChannelsShareTheirWorkersConnection(t *testing.T) {
	sc := mustParse(t, `
name: shared-link
duration: 20s
warmup: 5s
workers: {count: 2, slots: 4}
network: {buffer_timeout: 10ms, latency: 1ms, bandwidth: 8Mbps}
sources:
  - {name: src, parallelism: 8, arrival: {process: constant, rate: 200000/s}, max_rate: 200000/s, keys: {count: 1000}}
sinks:
  - {name: out, input: src, partitioning: rebalance, parallelism: 8, service_time: {distribution: constant, mean: 1us}}
`)
	s, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.RunUntil(t.Context(), 20*des.Second)
	var bytes [2][2]float64 // by sending and receiving worker
	chans := [2][2]int{}
	for _, st := range s.vertices[0].subtasks {
		for _, p := range st.outs {
			for _, c := range p.chans {
				bytes[c.from.worker][c.to.worker] += float64(c.recv * 100)
				chans[c.from.worker][c.to.worker]++
			}
		}
	}
	for _, d := range [][2]int{{0, 1}, {1, 0}} {
		if n := chans[d[0]][d[1]]; n != 16 {
			t.Fatalf("worker %d -> %d: %d channels, want 16", d[0], d[1], n)
		}
		// the link is busy from its first buffer (after the first buffer
		// timeout) to the end: 20s at 1 MB/s, a little less
		rate := bytes[d[0]][d[1]] / 20
		if rate > 1e6 || rate < 0.99e6 {
			t.Errorf("worker %d -> %d: 16 channels carried %.0f B/s together, want at most and about the link's 1e6 B/s", d[0], d[1], rate)
		}
	}
}

// A constant rate (and a schedule of one step from 0) takes next's
// arrivalConstant path: the same times, bit for bit, as the general
// steps' path it short-cuts, including a last step of rate 0.
func TestArrivalConstantIsSteps(t *testing.T) {
	for _, a := range []scenario.Arrival{
		{Process: scenario.ArrivalConstant, Rate: 3},
		{Process: scenario.ArrivalConstant, Rate: 7.3e5},
		{Process: scenario.ArrivalConstant, Rate: 1e-3},
		{Process: scenario.ArrivalConstant, Rate: 0},
		{Process: scenario.ArrivalSchedule, Schedule: []scenario.RateStep{{At: 0, Rate: 333}}},
	} {
		fast := newArrivalGen(a, des.StreamRand(1, "fast"))
		steps := newArrivalGen(a, des.StreamRand(1, "steps"))
		if fast.kind != arrivalConstant {
			t.Fatalf("%+v: kind %d, want arrivalConstant", a, fast.kind)
		}
		steps.kind = arrivalSteps
		for i := range 100000 {
			if f, s := fast.next(), steps.next(); f != s {
				t.Fatalf("%+v: arrival %d at %d, the steps' path gives %d", a, i, f, s)
			}
		}
	}
	g := newArrivalGen(scenario.Arrival{Process: scenario.ArrivalSchedule,
		Schedule: []scenario.RateStep{{At: 0, Rate: 1}, {At: des.Second, Rate: 2}}}, des.StreamRand(1, "x"))
	if g.kind != arrivalSteps {
		t.Errorf("a schedule of two steps: kind %d, want arrivalSteps", g.kind)
	}
}
