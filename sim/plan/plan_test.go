package plan

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

func parse(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func compile(t *testing.T, sc *scenario.Scenario) *Plan {
	t.Helper()
	p, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Key groups follow Flink's KeyGroupRangeAssignment: p = 3 gets the
// default max parallelism 128, and its subtasks own 43, 43 and 42 key
// groups, each key group the subtask whose range holds it.
func TestKeyGroups(t *testing.T) {
	p := compile(t, parse(t, `duration: 1s
sources: [{name: src, arrival: {process: constant, rate: 1/s}}]
operators:
  - {name: count, input: src, partitioning: hash, parallelism: 3, service_time: {mean: 1ms}}
  - {name: wide, input: count, partitioning: hash, parallelism: 200, service_time: {mean: 1ms}}
sinks: [{name: out, input: wide, partitioning: hash, parallelism: 3, max_parallelism: 7}]
workers: {count: 50, slots: 4}
`))
	e := p.Vertex("count").Inputs[0]
	if e.MaxParallelism != 128 {
		t.Fatalf("max parallelism %d, want 128", e.MaxParallelism)
	}
	var sizes []int
	for d := range 3 {
		start, end := e.KeyGroups(d)
		sizes = append(sizes, end-start)
		for kg := start; kg < end; kg++ {
			if got := e.KeyGroupOwner(kg); got != d {
				t.Errorf("key group %d: owner %d, want %d (range [%d, %d))", kg, got, d, start, end)
			}
		}
	}
	if !reflect.DeepEqual(sizes, []int{43, 43, 42}) {
		t.Errorf("key groups per subtask %v, want [43 43 42]", sizes)
	}
	if got := p.Vertex("wide").Inputs[0].MaxParallelism; got != 512 {
		t.Errorf("p = 200: max parallelism %d, want roundUpToPowerOfTwo(300) = 512", got)
	}
	out := p.Vertex("out").Inputs[0]
	var starts []int
	for d := range 3 {
		s, end := out.KeyGroups(d)
		starts = append(starts, s)
		for kg := s; kg < end; kg++ {
			if got := out.KeyGroupOwner(kg); got != d {
				t.Errorf("max_parallelism 7: key group %d: owner %d, want %d", kg, got, d)
			}
		}
	}
	if out.MaxParallelism != 7 || !reflect.DeepEqual(starts, []int{0, 3, 5}) {
		t.Errorf("max_parallelism 7: got %d key groups starting at %v, want 7 starting at [0 3 5]", out.MaxParallelism, starts)
	}
}

// A scenario built in Go may name no partitioning or max parallelism: the
// plan resolves them as Flink does.
func TestDefaultsOfAnEdge(t *testing.T) {
	sc := &scenario.Scenario{Name: "go", Duration: des.Second, Network: scenario.DefaultNetwork(),
		Sources: []scenario.Source{{Name: "a", Parallelism: 2}, {Name: "b", Parallelism: 3}},
		Operators: []scenario.Operator{{Name: "j", Inputs: []string{"a", "b"}, Parallelism: 2, Selectivity: 1,
			Network: scenario.DefaultNetwork()}},
		Sinks: []scenario.Sink{{Name: "out", Inputs: []string{"j"}, Parallelism: 2, MaxParallelism: 1}},
	}
	p := compile(t, sc)
	j := p.Vertex("j")
	if got := []string{j.Inputs[0].Partitioning, j.Inputs[1].Partitioning}; !reflect.DeepEqual(got, []string{"forward", "rebalance"}) {
		t.Errorf("default partitionings %v, want forward from the equal parallelism, rebalance from the other", got)
	}
	if e := p.Vertex("out").Inputs[0]; e.Partitioning != "forward" || e.MaxParallelism != 128 {
		t.Errorf("out: %s, max parallelism %d; want forward, 128 (1 is below the parallelism)", e.Partitioning, e.MaxParallelism)
	}
	if scenario.DefaultPartitioning(4, 4) != scenario.PartitionForward || scenario.DefaultPartitioning(4, 5) != scenario.PartitionRebalance {
		t.Error("DefaultPartitioning")
	}
	if sc.Workers.HeartbeatTimeout != 0 || p.Scenario.Workers.HeartbeatTimeout != 50*des.Second || p.Scenario.Workers.Memory != 1<<30 ||
		p.MetricsInterval() != des.Second || p.Scenario.Checkpoint.Storage.Bandwidth != 100<<20 {
		t.Errorf("the plan's scenario has the defaults, the compiled one is unchanged: %+v, %+v", p.Scenario.Workers, sc.Workers)
	}
	if p.Checkpointing() {
		t.Error("a zero Checkpoint takes checkpoints")
	}
	if p.Vertex("a").Kind != Source || j.Kind != Operator || p.Vertex("out").Kind != Sink || Sink.String() != "sink" {
		t.Error("kinds")
	}
}

// Channels: pointwise for forward and rescale, all-to-all otherwise,
// and each input gate (one per input edge) of a receiver holds
// buffers_per_channel per channel plus its own floating_buffers.
func TestChannels(t *testing.T) {
	p := compile(t, parse(t, `duration: 1s
workers: {count: 2, slots: 6}
network: {buffers_per_channel: 2, floating_buffers: 8}
sources:
  - {name: six, parallelism: 6, arrival: {process: constant, rate: 1/s}}
  - {name: two, parallelism: 2, arrival: {process: constant, rate: 1/s}}
operators:
  - {name: down, input: six, partitioning: rescale, parallelism: 2, service_time: {mean: 1ms}}
  - {name: up, input: two, partitioning: rescale, parallelism: 6, service_time: {mean: 1ms}}
  - {name: same, input: up, parallelism: 6, service_time: {mean: 1ms}}
  - {name: keyed, inputs: [down, same], partitioning: hash, parallelism: 4, service_time: {mean: 1ms}}
sinks:
  - {name: out, input: keyed, partitioning: broadcast, parallelism: 3, network: {capacity: unbounded}}
`))
	type want struct {
		part      string
		pointwise bool
		channels  int64
		targets   [][]int // of each sender
		into      []int   // channels into each receiver
	}
	for _, tc := range []struct {
		to   string
		in   int
		want want
	}{
		{"down", 0, want{"rescale", true, 6, [][]int{{0}, {0}, {0}, {1}, {1}, {1}}, []int{3, 3}}},
		{"up", 0, want{"rescale", true, 6, [][]int{{0, 1, 2}, {3, 4, 5}}, []int{1, 1, 1, 1, 1, 1}}},
		{"same", 0, want{"forward", true, 6, [][]int{{0}, {1}, {2}, {3}, {4}, {5}}, []int{1, 1, 1, 1, 1, 1}}},
		{"keyed", 0, want{"hash", false, 8, [][]int{{0, 1, 2, 3}, {0, 1, 2, 3}}, []int{2, 2, 2, 2}}},
		{"keyed", 1, want{"hash", false, 24, nil, []int{6, 6, 6, 6}}},
		{"out", 0, want{"broadcast", false, 12, nil, []int{4, 4, 4}}},
	} {
		e := p.Vertex(tc.to).Inputs[tc.in]
		got := want{part: e.Partitioning, pointwise: e.Pointwise(), channels: e.Channels()}
		total := 0
		for u := range e.From.Parallelism {
			if tc.want.targets != nil {
				got.targets = append(got.targets, e.Targets(u))
			}
			total += len(e.Targets(u))
		}
		for d := range e.To.Parallelism {
			got.into = append(got.into, e.ChannelsInto(d))
		}
		if !reflect.DeepEqual(got, tc.want) || int64(total) != e.Channels() {
			t.Errorf("%s -> %s: got %+v (%d targets in all), want %+v", e.From.Name, tc.to, got, total, tc.want)
		}
	}
	if got := p.Vertex("keyed").GateCapacity(0); got != (2*2+8)+(6*2+8) {
		t.Errorf("gates of keyed[0]: %d buffers, want (2 x 2 + 8) from down + (6 x 2 + 8) from same = 32", got)
	}
	if got := p.Vertex("same").GateCapacity(0); got != 0 || !p.Vertex("same").Inputs[0].Chained {
		t.Errorf("same is chained to up: no input gate, got %d buffers", got)
	}
	if got := p.Vertex("down").GateCapacity(1); got != 3*2+8 {
		t.Errorf("gate of down[1]: %d buffers, want 3 x 2 + 8 = 14", got)
	}
	if !p.Vertex("out").Unbounded() || p.Vertex("keyed").Unbounded() || p.Vertex("six").GateCapacity(0) != 0 {
		t.Error("capacity: unbounded on out only; a source has no gate")
	}
	if p.Worker(5) != 0 || p.Worker(6) != 1 || p.Workers() != 2 || p.Subtasks() != 6+2+2+6+6+4+3 {
		t.Errorf("placement: worker(5) %d, worker(6) %d, %d workers, %d subtasks", p.Worker(5), p.Worker(6), p.Workers(), p.Subtasks())
	}
}

// The order is topological, sources first, ties by declaration order (the
// order scenario.Topo gave the simulator before the plan).
func TestOrder(t *testing.T) {
	sc := parse(t, `duration: 1s
sources:
  - {name: clicks, arrival: {process: constant, rate: 1/s}}
  - {name: views, arrival: {process: constant, rate: 1/s}}
operators:
  - {name: enrich, input: join, service_time: {mean: 1ms}}
  - {name: join, inputs: [filter, views], service_time: {mean: 1ms}}
  - {name: filter, input: clicks, service_time: {mean: 1ms}}
  - {name: audit, input: clicks, service_time: {mean: 1ms}}
sinks: [{name: out, input: enrich}, {name: log, input: audit}]
`)
	p := compile(t, sc)
	// Kahn's algorithm taking the ready vertex declared first: filter
	// (operator 2) makes join ready, which goes before audit (operator 3)
	// as it is declared before it, and so does enrich after it.
	want := []string{"clicks", "views", "filter", "join", "enrich", "audit", "out", "log"}
	if got := p.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	for i, v := range p.Vertices {
		if v.Index != i {
			t.Errorf("%s: index %d at %d", v.Name, v.Index, i)
		}
		for _, e := range v.Inputs {
			if e.From.Index >= i {
				t.Errorf("%s comes before its input %s", v.Name, e.From.Name)
			}
		}
	}
	if got := len(p.Edges); got != 7 {
		t.Errorf("%d edges, want 7", got)
	}
	sc.Operators[2].Inputs = []string{"enrich"}
	if _, err := Compile(sc); !errors.Is(err, ErrCycle) {
		t.Errorf("a cycle: %v", err)
	}
	sc.Operators[2].Inputs = []string{"clicks"}
	sc.Operators[2].Parallelism = 2
	sc.Operators[2].Partitioning = scenario.PartitionForward
	if _, err := Compile(sc); err == nil || !strings.Contains(err.Error(), "forward edge clicks -> filter needs equal parallelism (1 != 2)") {
		t.Errorf("forward between unequal parallelisms: %v", err)
	}
	sc.Operators[2].Inputs = []string{"nowhere"}
	if _, err := Compile(sc); err == nil || !strings.Contains(err.Error(), `"filter" reads unknown vertex "nowhere"`) {
		t.Errorf("an unknown input: %v", err)
	}
}

// The estimates of the built-in scenarios (testdata/estimates.golden,
// written by internal/runner.Measure at commit 50d6faa, then with the
// workers, key sets, checkpoints in flight, failovers and their events
// added; go test -run TestBuiltinEstimates -update-estimates rewrites it).
func TestBuiltinEstimates(t *testing.T) {
	want, err := os.ReadFile("testdata/estimates.golden")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range scenarios.Names() {
		data, err := scenarios.Get(n)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Parse(n+".yaml", data)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %+v\n", n, compile(t, sc).Estimate(nil))
	}
	if *updateEstimates {
		if err := os.WriteFile("testdata/estimates.golden", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := b.String(); got != string(want) {
		t.Errorf("estimates:\n%s\nwant:\n%s", got, want)
	}
}

var updateEstimates = flag.Bool("update-estimates", false, "rewrite testdata/estimates.golden")

// The estimate follows the records: selectivity and broadcast multiply
// them, the channels count as the network edges have them (a chained edge
// has none), the checkpoint rows come every interval.
func TestEstimate(t *testing.T) {
	const job = `duration: 100s
workers: {count: 2, slots: 4}
sources:
  - {name: src, parallelism: 2, arrival: {process: bursty, rate: 100/s, off_rate: 20/s, on_time: 1s, off_time: 3s}, keys: {count: 50, distribution: zipf}}
operators:
  - {name: flat, input: src, parallelism: 2, selectivity: 2.5, service_time: {mean: 1ms}}
  - {name: rules, input: flat, partitioning: broadcast, parallelism: 3, service_time: {mean: 1ms}}
sinks: [{name: out, input: rules, parallelism: 1}]
metrics: {interval: 500ms}
checkpoint: {mode: aligned, interval: 30s}
`
	// src 2 x (100/4 + 20 x 3/4) = 80; flat receives 80 and emits 200;
	// rules receives 200 x 3 = 600; out 600. src -> flat is forward at
	// equal parallelism, so flat is chained to src (one task "src ->
	// flat"): no channel; then 2x3 + 3x1 = 9 channels. One checkpoint in
	// flight (max_concurrent 1) and the latest: 2 x (1 KiB + 8 subtasks x
	// 224 B); its events every 30s: barriers on the 9 channels (2 events
	// each) and 3 per subtask.
	for _, tc := range []struct {
		name     string
		yaml     string
		channels int64
	}{
		{"chained", job, 9},
		// chaining: false: src -> flat is a network edge of 2 channels
		{"chaining off", job + "chaining: false\n", 11},
	} {
		p := compile(t, parse(t, tc.yaml))
		e := p.Estimate(nil)
		ch := float64(tc.channels)
		ckEvents := (ch*2 + 8*3) / 30.0
		want := Estimate{Subtasks: 8, Vertices: 4, Duration: 100 * des.Second, Offered: 80, Records: 80 + 80 + 600 + 600,
			Busiest: "rules", BusiestRate: 600, BySelectivity: true, ByBroadcast: true, MetricsRows: 24, MetricsInterval: 500 * des.Millisecond, CheckpointEvents: ckEvents, CheckpointEvery: 30 * des.Second,
			EventRate: 1384 + ckEvents, Events: (1384 + ckEvents) * 100, Channels: tc.channels, ZipfKeys: 50, Workers: 2,
			CheckpointsInFlight: 1, CheckpointBytes: 2 * (1024 + 8*224),
			Memory: tc.channels*300 + 50*8 + 8*2048 + 2*80 + 2*(1024+8*224), Rows: 2400, CheckpointRows: 8 * 3}
		if e != want {
			t.Errorf("%s: Estimate =\n%+v\nwant\n%+v", tc.name, e, want)
		}
		if !p.Checkpointing() {
			t.Error("mode aligned takes checkpoints")
		}
	}
	// exact figures of the chained job: 9 channels of 300 bytes, not 11
	e := compile(t, parse(t, job)).Estimate(nil)
	if e.Channels != 9 || e.Memory != 2700+400+16384+160+5632 || e.CheckpointEvents != 1.4 {
		t.Errorf("chained: %d channels, memory %d, %v checkpoint events/s; want 9, 25276, 1.4", e.Channels, e.Memory, e.CheckpointEvents)
	}
}

// Every structure whose size the scenario sets is in the estimate (issue
// 13): workers (F2), checkpoints in flight (F3), key sets (F4), and the
// events of checkpoints (F5) and of failures.
func TestEstimateBounds(t *testing.T) {
	est := func(yaml string) Estimate { t.Helper(); return compile(t, parse(t, yaml)).Estimate(nil) }
	job := `sources: [{name: s, parallelism: 2, arrival: {process: constant, rate: 500/s}, keys: {count: 1000}}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 2, service_time: {mean: 1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 2}]
`
	// F2: a billion workers of a billion slots: 80 bytes each
	e := est("duration: 120s\nworkers: {count: 1000000000, slots: 1000000000}\n" + job)
	if e.Workers != 1e9 || e.Memory < 80e9 {
		t.Errorf("F2: %d workers, memory %d", e.Workers, e.Memory)
	}
	// F3: unaligned checkpoints every 10ms that never finish (1B/s), a
	// million at once allowed: 12,000 can be triggered in 120s
	e = est("duration: 120s\nworkers: {count: 2, slots: 1}\n" + job +
		"checkpoint: {mode: unaligned, interval: 10ms, max_concurrent: 1000000, timeout: 100h, storage: {bandwidth: 1B/s}}\n")
	// key space 1000 keys: 64 + 16 x 8 bytes a set; 2 keyed subtasks hold
	// their keys and 12,001 + 1 copies
	if e.CheckpointsInFlight != 12001 || e.CheckpointBytes != 12002*(1024+6*224) || e.KeySets != 2*12003 || e.KeySetBytes != 2*12003*(64+128) {
		t.Errorf("F3: %d in flight, %d bytes; %d key sets, %d bytes", e.CheckpointsInFlight, e.CheckpointBytes, e.KeySets, e.KeySetBytes)
	}
	// the same for a week: a million in flight, not 60 million
	e = est("duration: 168h\nworkers: {count: 2, slots: 1}\n" + job +
		"checkpoint: {mode: unaligned, interval: 10ms, max_concurrent: 1000000, timeout: 100h, storage: {bandwidth: 1B/s}}\n")
	if e.CheckpointsInFlight != 1e6 || e.Memory < 1e6*(1024+6*224) {
		t.Errorf("F3 over a week: %d in flight, memory %d", e.CheckpointsInFlight, e.Memory)
	}
	// F4: 4000 keyed subtasks in a key space of 8,388,608 keys hold a
	// bitset of 1 MiB each; with rocksdb, incremental checkpoints and one
	// in flight, four: keys, changed keys, in flight, latest
	keyed := `duration: 60s
workers: {count: 1000, slots: 4}
sources: [{name: s, parallelism: 4, arrival: {process: constant, rate: 100/s}, keys: {count: 8388608}}]
operators: [{name: a, input: s, partitioning: hash, parallelism: 4000, service_time: {mean: 1ms}, state: {bytes_per_key: 1KiB}}]
sinks: [{name: out, input: a, parallelism: 4}]
`
	e = est(keyed)
	if e.KeyedSubtasks != 4000 || e.KeySets != 4000 || e.KeySetBytes != 4000*(64+1<<20) {
		t.Errorf("F4: %d keyed subtasks, %d key sets, %d bytes", e.KeyedSubtasks, e.KeySets, e.KeySetBytes)
	}
	e = est(keyed + "state_backend: {type: rocksdb}\ncheckpoint: {mode: aligned, interval: 10s, incremental: true}\n")
	if e.KeySets != 4*4000 || e.KeySetBytes != 4*4000*(64+1<<20) || e.Memory < 16e9 {
		t.Errorf("F4 rocksdb incremental: %d key sets, %d bytes, memory %d", e.KeySets, e.KeySetBytes, e.Memory)
	}
	// F5: 4090 subtasks with aligned checkpoints every 10ms: 2045 x 2045
	// channels take a barrier 100 times a second
	e = est(`duration: 168h
workers: {count: 1023, slots: 4}
sources: [{name: s, parallelism: 2045, arrival: {process: constant, rate: 1/s}}]
sinks: [{name: out, input: s, partitioning: rebalance, parallelism: 2045}]
checkpoint: {mode: aligned, interval: 10ms}
`)
	if want := 100 * (2045.0*2045*2 + 4090*3); e.CheckpointEvents != want || e.EventRate < want {
		t.Errorf("F5: %v checkpoint events/s, want %v; event rate %v", e.CheckpointEvents, want, e.EventRate)
	}
	// random worker failures: workers x duration / mtbf, each restarting
	// every subtask and rewiring every channel: the 2 x 2 of s -> a (a ->
	// out is chained and has none)
	e = est("duration: 100s\nworkers: {count: 100, slots: 1}\n" + job + "failures: [{kind: worker, mtbf: 10s}, {kind: task, at: 5s, vertex: a, subtask: 0}]\n")
	if e.Failovers != 100*100/10+1 || e.FailoverBytes != 1001*512 || e.FailoverEvents != (100/10.0+1/100.0)*(4*1+6*4) {
		t.Errorf("failovers: %v, %d bytes, %v events/s", e.Failovers, e.FailoverBytes, e.FailoverEvents)
	}
}

// Targets are as the simulator has always connected channels: forward
// one to one, rescale Flink's pointwise subsets, all-to-all otherwise.
func TestTargets(t *testing.T) {
	cases := []struct {
		part       string
		ui, pu, pd int
		want       []int
	}{
		{scenario.PartitionForward, 2, 4, 4, []int{2}},
		{scenario.PartitionRebalance, 0, 2, 3, []int{0, 1, 2}},
		{scenario.PartitionHash, 1, 2, 3, []int{0, 1, 2}},
		{scenario.PartitionBroadcast, 0, 1, 2, []int{0, 1}},
		{scenario.PartitionRescale, 0, 2, 4, []int{0, 1}},
		{scenario.PartitionRescale, 1, 2, 4, []int{2, 3}},
		{scenario.PartitionRescale, 0, 4, 2, []int{0}},
		{scenario.PartitionRescale, 1, 4, 2, []int{0}},
		{scenario.PartitionRescale, 3, 4, 2, []int{1}},
		{scenario.PartitionRescale, 2, 3, 2, []int{1}},
	}
	for _, c := range cases {
		e := &Edge{From: &Vertex{Parallelism: c.pu}, To: &Vertex{Parallelism: c.pd}, Partitioning: c.part}
		if got := e.Targets(c.ui); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %d of %d->%d: %v, want %v", c.part, c.ui, c.pu, c.pd, got, c.want)
		}
	}
}

// TestDefaultPartitioningPerEdge: a file that names no partitioning for a
// join gets Flink's default per input edge (forward from the input of
// equal parallelism, rebalance from the other), as a scenario built in Go
// does; Parse once chose one partitioning for the whole vertex (rebalance
// for both), a second rule beside the plan's. A keyed join without keyBy
// is refused naming both defaults.
func TestDefaultPartitioningPerEdge(t *testing.T) {
	const join = `name: j
duration: 1s
sources:
  - {name: a, parallelism: 2, arrival: {process: constant, rate: 10/s}}
  - {name: b, parallelism: 3, arrival: {process: constant, rate: 10/s}}
operators:
  - {name: j, inputs: [a, b], parallelism: 2, service_time: {mean: 1ms}}
sinks:
  - {name: out, input: j, parallelism: 2}
`
	p := compile(t, parse(t, join))
	j := p.Vertex("j")
	if got := []string{j.Inputs[0].Partitioning, j.Inputs[1].Partitioning}; !reflect.DeepEqual(got, []string{"forward", "rebalance"}) {
		t.Errorf("the join's input edges: %v, want [forward rebalance]", got)
	}
	if got := p.Vertex("out").Inputs[0].Partitioning; got != "forward" {
		t.Errorf("j -> out: %s, want forward", got)
	}
	keyed := strings.Replace(join, "service_time: {mean: 1ms}}", "service_time: {mean: 1ms}, state: {bytes_per_key: 8B}}", 1)
	_, err := scenario.Parse("t.yaml", []byte(keyed))
	want := "operators[0].state: keyed state needs keyBy (partitioning: hash), but the partitioning is forward and rebalance (the defaults of its inputs)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a keyed join without keyBy: %v, want %q", err, want)
	}
}

// Operator chaining follows Flink's StreamingJobGraphGenerator.isChainable:
// a forward edge of equal parallelism into a vertex with one input is
// chained (a source chains to its successor); hash, rebalance, a second
// input, chaining: false on the job or chain: false on a vertex end a
// chain. The tasks are named as Flink's web UI names them.
func TestChains(t *testing.T) {
	const job = `duration: 1s
CHAINING
sources:
  - {name: src, parallelism: 2, arrival: {process: constant, rate: 1/s}}
  - {name: other, parallelism: 2, arrival: {process: constant, rate: 1/s}}
operators:
  - {name: parse, input: src, parallelism: 2, service_time: {mean: 1ms}}
  - {name: enrich, input: parse, parallelism: 2, service_time: {mean: 1ms}CHAIN}
  - {name: count, input: enrich, partitioning: hash, parallelism: 2, service_time: {mean: 1ms}}
  - {name: join, inputs: [count, other], parallelism: 2, service_time: {mean: 1ms}}
sinks:
  - {name: out, input: count, parallelism: 2}
  - {name: log, input: count, parallelism: 2}
  - {name: joined, input: join, parallelism: 2}
`
	tasks := func(chaining, chain string) []string {
		text := strings.NewReplacer("CHAINING", chaining, "CHAIN", chain).Replace(job)
		var names []string
		for _, tk := range compile(t, parse(t, text)).Tasks {
			names = append(names, tk.Name)
		}
		return names
	}
	for _, c := range []struct {
		chaining, chain string
		want            []string
	}{
		{"", "", []string{"src -> parse -> enrich", "other", "count -> (out, log)", "join -> joined"}},
		{"chaining: false", "", []string{"src", "other", "parse", "enrich", "count", "join", "out", "log", "joined"}},
		{"", ", chain: false", []string{"src -> parse", "other", "enrich", "count -> (out, log)", "join -> joined"}},
	} {
		if got := tasks(c.chaining, c.chain); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q %q: tasks %q, want %q", c.chaining, c.chain, got, c.want)
		}
	}
	p := compile(t, parse(t, strings.NewReplacer("CHAINING", "", "CHAIN", "").Replace(job)))
	for _, e := range p.Edges {
		want := map[string]bool{"src>parse": true, "parse>enrich": true, "count>out": true, "count>log": true, "join>joined": true}[e.From.Name+">"+e.To.Name]
		if e.Chained != want {
			t.Errorf("edge %s -> %s chained %v, want %v", e.From.Name, e.To.Name, e.Chained, want)
		}
	}
	if v := p.Vertex("enrich"); v.Task != p.Vertex("src").Task || v.Task.Head() != p.Vertex("src") || !v.Task.Chained() {
		t.Errorf("enrich runs in task %q, want src's", v.Task.Name)
	}
	// one node per task: a source's kind, a sink's when no edge leaves
	// (join -> joined), an operator's when one does (count into join)
	var kinds []Kind
	for _, tk := range p.Tasks {
		kinds = append(kinds, tk.Kind())
	}
	if want := []Kind{Source, Source, Operator, Sink}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("task kinds %v, want %v", kinds, want)
	}
	for name, want := range map[string]bool{"src": false, "parse": false, "enrich": true, "count": true, "out": false, "join": false} {
		if got := p.Vertex(name).Exits(); got != want {
			t.Errorf("%s exits its task: %v, want %v", name, got, want)
		}
	}
}

// TestLateOutputEdge: a sink that reads a window's late_output gets an
// edge of its own from the window operator, marked with the side
// output's name and never chained (even forward at equal parallelism,
// where the main output's edge to the other sink is chained).
func TestLateOutputEdge(t *testing.T) {
	p := compile(t, parse(t, `duration: 10s
sources:
  - {name: src, parallelism: 2, arrival: {process: constant, rate: 10/s}, watermarks: {strategy: punctuated}}
operators:
  - {name: win, input: src, parallelism: 2, partitioning: hash, service_time: {mean: 1ms}, window: {kind: tumbling, size: 1s, late_output: late}}
sinks:
  - {name: out, input: win, parallelism: 2}
  - {name: late-sink, input: late, parallelism: 2}
`))
	win := p.Vertex("win")
	if len(win.Outputs) != 2 {
		t.Fatalf("win has %d output edges, want 2", len(win.Outputs))
	}
	for _, e := range win.Outputs {
		switch e.To.Name {
		case "out":
			if e.LateOutput != "" || !e.Chained {
				t.Errorf("win -> out: late output %q, chained %v; want \"\", true", e.LateOutput, e.Chained)
			}
		case "late-sink":
			if e.LateOutput != "late" || e.Chained || e.Partitioning != scenario.PartitionForward {
				t.Errorf("win -> late-sink: late output %q, chained %v, %s; want \"late\", false, forward", e.LateOutput, e.Chained, e.Partitioning)
			}
		default:
			t.Errorf("unexpected edge win -> %s", e.To.Name)
		}
	}
}

// The estimate counts the work of window and join operators as events:
// a record added to each of its size/slide sliding windows, a record of an
// interval join compared with the other input's records of its key; the
// join's pairs are its output records.
func TestEstimateWindowWork(t *testing.T) {
	slide := `duration: 30s
sources:
  - name: readings
    arrival: {process: constant, rate: 2000/s}
    keys: {count: 1000}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 100ms}
operators:
  - {name: agg, input: readings, partitioning: hash, service_time: {mean: 20us}, window: {kind: sliding, size: 30000s, slide: 5s, function: aggregate}}
sinks: [{name: out, input: agg}]
`
	e := compile(t, parse(t, slide)).Estimate(nil)
	// 2000 records/s, each into 30000/5 = 6000 windows
	if e.WindowWork != 2000*6000 || e.EventRate < 12e6 {
		t.Errorf("sliding window: work %v/s, events %v/s; want 12e6 work, at least 12e6 events", e.WindowWork, e.EventRate)
	}
	join := `duration: 30s
sources:
  - {name: impressions, arrival: {process: constant, rate: 200/s}, keys: {count: 1}, watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms}}
  - {name: clicks, arrival: {process: constant, rate: 200/s}, keys: {count: 1}, watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 500ms}}
operators:
  - {name: interval_join, inputs: [impressions, clicks], partitioning: hash, service_time: {mean: 1us}, join: {kind: interval, before: 0s, after: 3s}}
sinks: [{name: out, input: interval_join}]
`
	e = compile(t, parse(t, join)).Estimate(nil)
	// pairs: 200 x 200 x 3 s over 1 key = 120,000/s (a run makes 3.37M
	// in 30 s, 112,000/s); the sink receives them all
	if e.JoinPairs != 120000 || e.Records < 120000 || e.WindowWork < 120000 {
		t.Errorf("interval join: %v pairs/s, %v records/s, work %v/s; want 120000 pairs, at least as many records and work", e.JoinPairs, e.Records, e.WindowWork)
	}
}
