package scenario

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

func mustParse(t *testing.T, file, text string) *Scenario {
	t.Helper()
	s, err := Parse(file, []byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// withoutPositions returns a copy of s that compares equal to a Scenario
// built in Go.
func withoutPositions(s *Scenario) Scenario {
	c := *s
	c.positions = nil
	return c
}

// The example of DESIGN.md §6 parses to exactly this Scenario.
func TestParseDesignExample(t *testing.T) {
	data, err := os.ReadFile("testdata/backpressure.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("backpressure.yaml", data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	net := Network{
		BufferSize: 32768, BuffersPerChannel: 2, FloatingBuffers: 8,
		BufferTimeout: 100 * des.Millisecond, Latency: des.Millisecond, Bandwidth: 125e6, Capacity: Bounded,
	}
	want := Scenario{
		File:        "backpressure.yaml",
		Name:        "backpressure",
		Description: "A 100 rec/s source into operators that serve 40 and 10 rec/s.",
		Seed:        1,
		Duration:    120 * des.Second,
		Warmup:      10 * des.Second,
		Engine:      EngineFlink,
		Spark: Spark{JobOverhead: 10 * des.Millisecond, TaskOverhead: 2 * des.Millisecond, ShuffleBandwidth: 125e6,
			Input: InputDirect, MinRatePerPartition: 1, BlockInterval: 200 * des.Millisecond, WALBandwidth: 100 << 20,
			PIDProportional: 1, PIDIntegral: 0.2, PIDMinRate: 100, StateOperation: StateUpdateStateByKey,
			CheckpointBandwidth: 100 << 20, ExecutorRestart: 10 * des.Second, DriverRestart: 30 * des.Second, TaskMaxFailures: 4,
			Trigger: TriggerDefault, OutputMode: OutputUpdate},
		Chaining: true,
		Workers:  Workers{Count: 2, Slots: 4, Memory: 1 << 30, HeartbeatTimeout: 50 * des.Second},
		Network:  net,
		Sources: []Source{{
			Name: "sensors", Parallelism: 1,
			Arrival:    Arrival{Process: ArrivalConstant, Rate: 100},
			Keys:       Keys{Count: 1000, Distribution: KeysUniform, Exponent: 1},
			RecordSize: 100, Replayable: true, OnBackpressure: OnBackpressureBlock, BufferLimit: 10000,
		}},
		Operators: []Operator{
			{
				Name: "parse", Inputs: []string{"sensors"}, Partitioning: PartitionRebalance,
				Parallelism: 1, MaxParallelism: 128,
				ServiceTime: ServiceTime{Distribution: DistConstant, Mean: 25 * des.Millisecond},
				Selectivity: 1, Network: net, Chain: true,
			},
			{
				Name: "enrich", Inputs: []string{"parse"}, Partitioning: PartitionHash,
				Parallelism: 1, MaxParallelism: 128,
				ServiceTime: ServiceTime{Distribution: DistConstant, Mean: 100 * des.Millisecond},
				Selectivity: 1, Network: net, Chain: true,
			},
		},
		Sinks: []Sink{{
			Name: "out", Inputs: []string{"enrich"}, Partitioning: "",
			Parallelism: 1, MaxParallelism: 128,
			ServiceTime: ServiceTime{Distribution: DistConstant}, Network: net, Delivery: DeliveryAtLeastOnce, Chain: true,
		}},
		Metrics: Metrics{Interval: des.Second},
		Checkpoint: Checkpointing{Mode: CheckpointNone, Timeout: 10 * des.Minute, MaxConcurrent: 1, TolerableFailures: -1,
			Storage: CheckpointStorage{Bandwidth: 100 << 20, Latency: 10 * des.Millisecond}},
		StateBackend: StateBackend{Type: BackendHeap, AccessTime: 100 * des.Nanosecond},
		Restart: RestartStrategy{Type: RestartFixedDelay, Attempts: -1, Delay: des.Second, InitialBackoff: des.Second,
			MaxBackoff: des.Minute, Multiplier: 2, Jitter: 0.1, ResetThreshold: des.Hour,
			MaxFailuresPerInterval: 1, FailureRateInterval: des.Minute},
		HighAvailability: HighAvailability{Type: HANone, LeaderElection: 10 * des.Second},
	}
	if got := withoutPositions(s); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate of a parsed scenario: %v", err)
	}
}

const minimal = `duration: 1m
sources:
  - name: src
    parallelism: 2
    arrival: {process: poisson, rate: 6000/min}
operators:
  - name: same
    input: src
    parallelism: 2
    service_time: {distribution: exponential, mean: 5ms}
  - name: wider
    input: same
    parallelism: 3
    service_time: {distribution: uniform, min: 1ms, max: 4ms}
    network: {latency: 5ms}
sinks:
  - name: out
    inputs: [same, wider]
    parallelism: 2
`

func TestDefaults(t *testing.T) {
	s := mustParse(t, "min.yaml", minimal)
	net := DefaultNetwork()
	if s.Seed != 1 || s.Warmup != 0 || s.Workers != (Workers{1, 4, 1 << 30, 50 * des.Second}) || s.Network != net || s.Metrics.Interval != des.Second {
		t.Errorf("scenario defaults: seed %d warmup %v workers %+v network %+v metrics %+v",
			s.Seed, s.Warmup, s.Workers, s.Network, s.Metrics)
	}
	if net.BufferSize != 32<<10 || net.BuffersPerChannel != 2 || net.FloatingBuffers != 8 ||
		net.BufferTimeout != 100*des.Millisecond || net.Latency != des.Millisecond || net.Bandwidth != 1e9/8 || net.Capacity != Bounded {
		t.Errorf("DefaultNetwork = %+v", net)
	}
	if want := (Checkpointing{Mode: CheckpointNone, Timeout: 10 * des.Minute, MinPause: 0, MaxConcurrent: 1, TolerableFailures: -1,
		Storage: CheckpointStorage{Bandwidth: 104857600, Latency: 10 * des.Millisecond}}); s.Checkpoint != want || DefaultCheckpointing() != want {
		t.Errorf("checkpoint = %+v, DefaultCheckpointing = %+v, want %+v", s.Checkpoint, DefaultCheckpointing(), want)
	}
	src := s.Sources[0]
	wantSrc := Source{
		Name: "src", Parallelism: 2, Arrival: Arrival{Process: ArrivalPoisson, Rate: 100},
		Keys: Keys{Count: 1000, Distribution: KeysUniform, Exponent: 1}, RecordSize: 100,
		Replayable: true, OnBackpressure: OnBackpressureBlock, BufferLimit: 10000,
	}
	if !reflect.DeepEqual(src, wantSrc) {
		t.Errorf("source = %+v, want %+v", src, wantSrc)
	}
	same, wider := s.Operators[0], s.Operators[1]
	// an unnamed partitioning stays unnamed: the plan resolves it per edge
	// with DefaultPartitioning (sim/plan's tests check the edges)
	if same.Partitioning != "" || wider.Partitioning != "" || s.Sinks[0].Partitioning != "" {
		t.Errorf("default partitionings: %q, %q, %q, want them left to the plan", same.Partitioning, wider.Partitioning, s.Sinks[0].Partitioning)
	}
	if DefaultPartitioning(2, 2) != PartitionForward || DefaultPartitioning(2, 3) != PartitionRebalance {
		t.Errorf("DefaultPartitioning(2, 2) = %s, (2, 3) = %s", DefaultPartitioning(2, 2), DefaultPartitioning(2, 3))
	}
	if same.Selectivity != 1 || same.MaxParallelism != 128 || same.Network != net {
		t.Errorf("operator defaults: %+v", same)
	}
	if want := (ServiceTime{Distribution: DistUniform, Min: des.Millisecond, Max: 4 * des.Millisecond, Mean: 2500 * des.Microsecond}); wider.ServiceTime != want {
		t.Errorf("uniform service time = %+v, want %+v", wider.ServiceTime, want)
	}
	wantNet := net
	wantNet.Latency = 5 * des.Millisecond
	if wider.Network != wantNet {
		t.Errorf("overridden network = %+v, want %+v", wider.Network, wantNet)
	}
	if sk := s.Sinks[0]; sk.ServiceTime != (ServiceTime{Distribution: DistConstant}) || sk.MaxParallelism != 128 || sk.Network != net {
		t.Errorf("sink defaults: %+v", sk)
	}
}

// A vertex's network overrides only the fields it gives; the others come
// from the scenario's network, itself defaults plus what it gives.
func TestNetworkInheritance(t *testing.T) {
	s := mustParse(t, "n.yaml", `duration: 10s
network: {bandwidth: 100Mbit/s, capacity: unbounded}
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
    network: {buffer_size: 4KiB, buffer_timeout: 0}
`)
	want := DefaultNetwork()
	want.Bandwidth = 12.5e6
	want.Capacity = Unbounded
	if s.Network != want {
		t.Errorf("scenario network = %+v, want %+v", s.Network, want)
	}
	want.BufferSize = 4096
	want.BufferTimeout = 0
	if s.Sinks[0].Network != want {
		t.Errorf("sink network = %+v, want %+v", s.Sinks[0].Network, want)
	}
}

func TestDefaultMaxParallelism(t *testing.T) {
	for p, want := range map[int]int{1: 128, 85: 128, 86: 256, 100: 256, 171: 256, 172: 512, 1000: 2048, 21845: 32768, 30000: 32768} {
		if got := DefaultMaxParallelism(p); got != want {
			t.Errorf("DefaultMaxParallelism(%d) = %d, want %d", p, got, want)
		}
	}
}

func TestPos(t *testing.T) {
	s := mustParse(t, "min.yaml", minimal)
	cases := []struct {
		path      string
		line, col int
	}{
		{"", 1, 1},
		{"duration", 1, 11},
		{"sources[0].arrival.rate", 5, 39},
		{"operators[1].service_time.min", 14, 48},
		{"operators[1].network.latency", 15, 24},
		{"sinks[0].inputs[1]", 18, 20},
		{"operators[0].selectivity", 7, 5}, // a default: the operator's position
		{"operators[1].network.bandwidth", 15, 14},
		{"workers.count", 1, 1},
	}
	for _, c := range cases {
		if line, col := s.Pos(c.path); line != c.line || col != c.col {
			t.Errorf("Pos(%q) = %d:%d, want %d:%d", c.path, line, col, c.line, c.col)
		}
	}
	e := s.Errorf("sources[0].arrival.rate", "needs %d events, the limit is %d", 10, 5)
	if got, want := e.Error(), "min.yaml:5:39: sources[0].arrival.rate: needs 10 events, the limit is 5"; got != want {
		t.Errorf("Errorf = %q, want %q", got, want)
	}
	var built Scenario
	if line, col := built.Pos("duration"); line != 0 || col != 0 {
		t.Errorf("Pos of a built scenario = %d:%d", line, col)
	}
}

// Anchors under x- keys, aliases and merge keys work like in any YAML tool.
func TestAnchorsAndMerge(t *testing.T) {
	s := mustParse(t, "m.yaml", `duration: 10s
x-fast: &fast {distribution: constant, mean: 1ms}
x-op: &op
  parallelism: 2
  service_time: *fast
sources:
  - name: src
    parallelism: 2
    arrival: {process: constant, rate: 10/s}
operators:
  - <<: *op
    name: a
    input: src
  - <<: [*op, {selectivity: 0.5}]
    name: b
    input: a
    parallelism: 1
sinks:
  - name: out
    input: b
`)
	a, b := s.Operators[0], s.Operators[1]
	if a.Parallelism != 2 || a.ServiceTime.Mean != des.Millisecond || a.Partitioning != "" {
		t.Errorf("a = %+v", a)
	}
	if b.Parallelism != 1 || b.Selectivity != 0.5 || b.ServiceTime.Mean != des.Millisecond || b.Partitioning != "" {
		t.Errorf("b = %+v", b)
	}
}

// Merge keys can make a small file expand exponentially ("billion laughs");
// Parse stops with an error instead of hanging.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("x-0: &m0 {name: x}\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "x-%d: &m%d {<<: [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*m%d", i-1)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("duration: 10s\nsources:\n  - <<: *m12\n")
	// (a blow-up would show as a hang, caught by go test's timeout; no
	// wall-clock assertion here: these machines are noisy)
	_, err := Parse("bomb.yaml", []byte(b.String()))
	want := "bomb.yaml:1:11: the document expands to too many nodes (aliases that refer to aliases?)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}

	// A mapping that merges itself.
	_, err = Parse("self.yaml", []byte("duration: 10s\nx-a: &a {<<: *a}\nsources:\n  - <<: *a\n"))
	if err == nil || !strings.Contains(err.Error(), "self.yaml:2:6: sources[0]: << merges a mapping into itself") {
		t.Errorf("self merge: %v", err)
	}

	// An alias inside its own anchor (a cyclic node tree).
	_, err = Parse("cyc.yaml", []byte("duration: 10s\nsources: &s [*s]\n"))
	if err == nil || !strings.Contains(err.Error(), "cyc.yaml:2:10: sources[0]: expected a mapping, got a list") {
		t.Errorf("cyclic alias: %v", err)
	}
}

func TestErrorFormat(t *testing.T) {
	cases := []struct {
		e    Error
		want string
	}{
		{Error{File: "a.yaml", Line: 12, Col: 5, Path: "operators[1].service_time.mean", Msg: "bad"}, "a.yaml:12:5: operators[1].service_time.mean: bad"},
		{Error{File: "a.yaml", Line: 1, Col: 1, Msg: "empty"}, "a.yaml:1:1: empty"},
		{Error{Path: "sources", Msg: "none"}, "sources: none"},
		{Error{File: "a.yaml", Path: "x", Msg: "m"}, "a.yaml: x: m"},
		{Error{File: "a.yaml", Line: 3, Msg: "m"}, "a.yaml:3: m"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.e, got, c.want)
		}
	}
	_, err := Parse("x.yaml", []byte("duration: 1s\n"))
	var e *Error
	if !errors.As(err, &e) || e.File != "x.yaml" || e.Line != 1 || e.Path != "sources" {
		t.Errorf("errors.As: %v, %+v", err, e)
	}
}

// Every error of a file comes back at once, sorted by position.
func TestErrorsTogetherAndSorted(t *testing.T) {
	for _, c := range errorCases {
		_, err := Parse("t.yaml", []byte(c.yaml))
		if err == nil {
			continue
		}
		list := err.(ErrorList)
		for i := 1; i < len(list); i++ {
			a, b := list[i-1], list[i]
			if a.Line > b.Line || a.Line == b.Line && a.Col > b.Col {
				t.Errorf("%s: errors not sorted: %v before %v", c.name, a, b)
			}
		}
	}
	var b strings.Builder
	b.WriteString("duration: 10s\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "zz%d: 1\n", i)
	}
	_, err := Parse("many.yaml", []byte(b.String()))
	list, _ := err.(ErrorList)
	if len(list) != maxErrors+1 || list[maxErrors].Msg != "too many errors; 52 more not shown" {
		t.Errorf("got %d errors, last %v", len(list), list[len(list)-1])
	}
}

// Validate checks a Scenario built in Go; its errors have paths but no
// positions.
func TestValidateBuilt(t *testing.T) {
	s := &Scenario{
		Duration: 10 * des.Second,
		Workers:  Workers{Count: 1, Slots: 4},
		Network:  DefaultNetwork(),
		Metrics:  Metrics{Interval: des.Second},
		Sources: []Source{{Name: "src", Parallelism: 1, Arrival: Arrival{Process: ArrivalConstant, Rate: 10},
			Keys: Keys{Count: 10, Distribution: KeysUniform, Exponent: 1}, RecordSize: 100, Replayable: true}},
		Sinks: []Sink{{Name: "out", Inputs: []string{"src"}, Partitioning: PartitionForward, Parallelism: 1,
			MaxParallelism: 128, ServiceTime: ServiceTime{Distribution: DistConstant}, Network: DefaultNetwork()}},
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("valid scenario: %v", err)
	}
	s.Sinks[0].Parallelism = 2
	s.Sinks[0].Inputs = []string{"src", "nope"}
	s.Sources[0].Arrival.Rate = 0
	want := "sources[0].arrival.rate: must be greater than 0, got 0/s\n" +
		"sinks[0].inputs[1]: unknown vertex \"nope\"; vertices are src, out\n" +
		"sinks[0].partitioning: forward needs equal parallelism, but \"src\" has 1 and \"out\" has 2; use rebalance, rescale or hash"
	if err := s.Validate(); err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

// Parse never panics and never returns both a Scenario and an error, on
// inputs near the valid ones.
func TestParseMutations(t *testing.T) {
	base := []byte(minimal)
	for i := range base {
		for _, f := range []func([]byte) []byte{
			func(b []byte) []byte { return append(append([]byte{}, b[:i]...), b[i+1:]...) },
			func(b []byte) []byte { c := append([]byte{}, b...); c[i] = ':'; return c },
			func(b []byte) []byte { c := append([]byte{}, b...); c[i] = '\t'; return c },
			func(b []byte) []byte { return append([]byte{}, b[:i]...) },
		} {
			data := f(base)
			s, err := Parse("m.yaml", data)
			if (s == nil) == (err == nil) {
				t.Fatalf("Parse(%q) = %v, %v", data, s, err)
			}
		}
	}
}

// testdata/valid/features.yaml uses every feature of the format.
func TestParseFeatures(t *testing.T) {
	data, err := os.ReadFile("testdata/valid/features.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := mustParse(t, "features.yaml", string(data))
	if s.Seed != 42 || s.Duration != 10*des.Minute || s.Network.FloatingBuffers != 0 || s.Network.Latency != 500*des.Microsecond || s.Network.Bandwidth != 1.25e9 {
		t.Errorf("scenario: %+v", s)
	}
	if got := s.Sources[2]; !reflect.DeepEqual(got.Arrival, Arrival{Process: ArrivalBursty, Rate: 500, OffRate: 10, On: 2 * des.Second, Off: 8 * des.Second}) ||
		got.Replayable || got.OnBackpressure != OnBackpressureBuffer || got.BufferLimit != 500 {
		t.Errorf("bursts = %+v", got)
	}
	if got, want := s.Sources[3].Arrival.Schedule, []RateStep{{0, 0}, {des.Minute, 100}, {5 * des.Minute, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("schedule = %v, want %v", got, want)
	}
	if got := s.Sources[0]; got.MaxRate != 150 || got.RecordSize != 1000 {
		t.Errorf("steady = %+v", got)
	}
	if got := s.Sources[1].Keys; got != (Keys{Count: 100000, Distribution: KeysZipf, Exponent: 1.2}) {
		t.Errorf("zipf keys = %+v", got)
	}
	if got := s.Operators[0].ServiceTime; got != (ServiceTime{Distribution: DistExponential, Mean: 2 * des.Millisecond}) {
		t.Errorf("aliased service time = %+v", got)
	}
	if got := s.Operators[2]; got.MaxParallelism != 256 || got.Network.BufferTimeout != 0 || got.Network.Capacity != Unbounded || got.Network.BufferSize != 64<<10 {
		t.Errorf("count = %+v", got)
	}
	if got := s.Operators[3]; got.Partitioning != PartitionBroadcast || got.Selectivity != 2.5 || got.ServiceTime != (ServiceTime{Distribution: DistConstant, Mean: 100 * des.Microsecond}) {
		t.Errorf("rules = %+v", got)
	}
	// alerts names no partitioning: the plan gives its edge from rules
	// (parallelism 3 into 1) rebalance.
	if got := s.Sinks[1]; got.Partitioning != "" || !reflect.DeepEqual(got.Inputs, []string{"rules"}) || got.Parallelism != 1 {
		t.Errorf("alerts = %+v", got)
	}
	if got, want := s.Checkpoint, (Checkpointing{Mode: CheckpointAligned, Interval: 10 * des.Second, Timeout: 90 * des.Second,
		MinPause: 500 * des.Millisecond, MaxConcurrent: 2, TolerableFailures: 3, Incremental: true,
		Storage: CheckpointStorage{Bandwidth: 1e9 / 8, Latency: 5 * des.Millisecond}}); got != want {
		t.Errorf("checkpoint = %+v, want %+v", got, want)
	}
	if got := s.Workers; got != (Workers{Count: 3, Slots: 4, Memory: 2 << 30, HeartbeatTimeout: 10 * des.Second}) {
		t.Errorf("workers = %+v", got)
	}
	if got := s.Operators[2].State; got == nil || *got != (KeyedState{BytesPerKey: 1024}) {
		t.Errorf("count state = %+v", got)
	}
	if s.Operators[0].State != nil {
		t.Errorf("parse state = %+v, want nil (stateless)", s.Operators[0].State)
	}
	if s.Sinks[0].Delivery != DeliveryTransactional || s.Sinks[1].Delivery != DeliveryIdempotent {
		t.Errorf("deliveries %q, %q", s.Sinks[0].Delivery, s.Sinks[1].Delivery)
	}
	if got, want := s.StateBackend, (StateBackend{Type: BackendRocksDB, AccessTime: 2 * des.Microsecond}); got != want {
		t.Errorf("state backend = %+v, want %+v", got, want)
	}
	wantRestart := DefaultRestart()
	wantRestart.Type, wantRestart.Attempts = RestartExponentialDelay, 10
	wantRestart.InitialBackoff, wantRestart.MaxBackoff = 500*des.Millisecond, 30*des.Second
	wantRestart.Multiplier, wantRestart.Jitter, wantRestart.ResetThreshold = 1.5, 0, 10*des.Minute
	if s.Restart != wantRestart {
		t.Errorf("restart = %+v, want %+v", s.Restart, wantRestart)
	}
	if got := s.HighAvailability; got != (HighAvailability{Type: HAZooKeeper, LeaderElection: 5 * des.Second}) {
		t.Errorf("high availability = %+v", got)
	}
	wantFailures := []Failure{
		{Kind: FailureTask, At: 30 * des.Second, Vertex: "count", Subtask: 11, Factor: 10},
		{Kind: FailureWorker, At: 45 * des.Second, Worker: 2, Factor: 10},
		{Kind: FailureJobManager, At: des.Minute, Factor: 10},
		{Kind: FailureSlowdown, At: 20 * des.Second, Vertex: "union", Subtask: 3, Duration: 30 * des.Second, Factor: 4},
		{Kind: FailureSlowdown, At: 90 * des.Second, Worker: 1, Duration: 10 * des.Second, Factor: 10},
		{Kind: FailureNetworkPartition, At: 50 * des.Second, Worker: 1, Duration: 10 * des.Second, Factor: 10},
		{Kind: FailureStorageOutage, At: 40 * des.Second, Duration: 2 * des.Minute, Factor: 10},
		{Kind: FailureTask, At: 0, Vertex: "steady", Factor: 10},
		{Kind: FailureWorker, MTBF: 10 * des.Minute, Factor: 10},
		{Kind: FailureTask, MTBF: des.Hour, Factor: 10},
		{Kind: FailureJobManager, MTBF: 2 * des.Hour, Factor: 10},
	}
	if !reflect.DeepEqual(s.Failures, wantFailures) {
		t.Errorf("failures =\n%+v\nwant\n%+v", s.Failures, wantFailures)
	}
	if l, c := s.Pos("failures[3].factor"); l != 100 || c != 66 {
		t.Errorf("Pos(failures[3].factor) = %d:%d, want 100:66", l, c)
	}
	if got := s.WithDefaults(); !reflect.DeepEqual(got, s) {
		t.Errorf("WithDefaults changed a parsed scenario:\n%+v\n%+v", got, s)
	}
}

// testdata/valid/recovery.yaml holds the variants features.yaml cannot.
func TestParseRecovery(t *testing.T) {
	data, err := os.ReadFile("testdata/valid/recovery.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := mustParse(t, "recovery.yaml", string(data))
	if got, want := s.Checkpoint, (Checkpointing{Mode: CheckpointUnaligned, Interval: 5 * des.Second, Timeout: 10 * des.Minute,
		MaxConcurrent: 1, TolerableFailures: -1, AlignedTimeout: des.Second,
		Storage: CheckpointStorage{Bandwidth: 50 << 20, Latency: 10 * des.Millisecond}}); got != want {
		t.Errorf("checkpoint = %+v, want %+v", got, want)
	}
	if got, want := s.StateBackend, (StateBackend{Type: BackendHeap, AccessTime: 100 * des.Nanosecond,
		GCInterval: 30 * des.Second, GCPausePerGiB: 250 * des.Millisecond}); got != want {
		t.Errorf("state backend = %+v, want %+v", got, want)
	}
	wantRestart := DefaultRestart()
	wantRestart.Type, wantRestart.Delay = RestartFailureRate, 5*des.Second
	wantRestart.MaxFailuresPerInterval, wantRestart.FailureRateInterval = 3, 5*des.Minute
	if s.Restart != wantRestart {
		t.Errorf("restart = %+v, want %+v", s.Restart, wantRestart)
	}
	if s.HighAvailability != DefaultHighAvailability() {
		t.Errorf("high availability = %+v", s.HighAvailability)
	}
	if s.Sinks[0].Delivery != DeliveryAtMostOnce || s.Sinks[1].Delivery != DeliveryAtLeastOnce {
		t.Errorf("deliveries %q, %q", s.Sinks[0].Delivery, s.Sinks[1].Delivery)
	}
	want := []Failure{
		{Kind: FailureSlowdown, At: des.Minute, Vertex: "sessions", Subtask: 1, Duration: 20 * des.Second, Factor: 10},
		{Kind: FailureWorker, At: 2 * des.Minute, Worker: 1, Factor: 10},
		{Kind: FailureNetworkPartition, At: 3 * des.Minute, Duration: 5 * des.Second, Factor: 10},
	}
	if !reflect.DeepEqual(s.Failures, want) {
		t.Errorf("failures = %+v, want %+v", s.Failures, want)
	}
}

// The settings of fault tolerance that a scenario leaves out take their
// defaults, and those of a given block that are left out too.
func TestFaultToleranceDefaults(t *testing.T) {
	s := mustParse(t, "min.yaml", minimal)
	if s.Workers.Memory != 1<<30 || s.Workers.HeartbeatTimeout != 50*des.Second || DefaultWorkers() != s.Workers {
		t.Errorf("workers = %+v, DefaultWorkers = %+v", s.Workers, DefaultWorkers())
	}
	if want := (StateBackend{Type: BackendHeap, AccessTime: 100 * des.Nanosecond}); s.StateBackend != want || DefaultStateBackend() != want {
		t.Errorf("state backend = %+v, DefaultStateBackend = %+v, want %+v", s.StateBackend, DefaultStateBackend(), want)
	}
	wantRestart := RestartStrategy{Type: RestartFixedDelay, Attempts: -1, Delay: des.Second, InitialBackoff: des.Second,
		MaxBackoff: des.Minute, Multiplier: 2, Jitter: 0.1, ResetThreshold: des.Hour, MaxFailuresPerInterval: 1, FailureRateInterval: des.Minute}
	if s.Restart != wantRestart || DefaultRestart() != wantRestart {
		t.Errorf("restart = %+v, DefaultRestart = %+v, want %+v", s.Restart, DefaultRestart(), wantRestart)
	}
	if want := (HighAvailability{Type: HANone, LeaderElection: 10 * des.Second}); s.HighAvailability != want || DefaultHighAvailability() != want {
		t.Errorf("high availability = %+v, want %+v", s.HighAvailability, want)
	}
	if want := (CheckpointStorage{Bandwidth: 100 * 1024 * 1024, Latency: 10 * des.Millisecond}); s.Checkpoint.Storage != want || DefaultCheckpointStorage() != want {
		t.Errorf("storage = %+v, want %+v", s.Checkpoint.Storage, want)
	}
	if s.Checkpoint.TolerableFailures != -1 || s.Checkpoint.Incremental || s.Checkpoint.AlignedTimeout != 0 {
		t.Errorf("checkpoint = %+v", s.Checkpoint)
	}
	if s.Failures != nil || s.Operators[0].State != nil || s.Sinks[0].Delivery != DeliveryAtLeastOnce {
		t.Errorf("failures %v, state %v, delivery %q", s.Failures, s.Operators[0].State, s.Sinks[0].Delivery)
	}
	if DefaultAccessTime(BackendRocksDB) != 5*des.Microsecond || DefaultAccessTime("other") != 0 {
		t.Errorf("DefaultAccessTime(rocksdb) = %v", DefaultAccessTime(BackendRocksDB))
	}

	const base = "duration: 2m\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}]\n"
	for _, c := range []struct {
		yaml  string
		check func(*Scenario) bool
	}{
		{"state_backend: {type: rocksdb}\n", func(s *Scenario) bool {
			return s.StateBackend == StateBackend{Type: BackendRocksDB, AccessTime: 5 * des.Microsecond}
		}},
		{"state_backend: {gc_interval: 10s}\n", func(s *Scenario) bool {
			return s.StateBackend == StateBackend{Type: BackendHeap, AccessTime: 100, GCInterval: 10 * des.Second, GCPausePerGiB: 100 * des.Millisecond}
		}},
		{"state_backend: {type: heap, gc_interval: 0s, access_time: 0}\n", func(s *Scenario) bool {
			return s.StateBackend == StateBackend{Type: BackendHeap}
		}},
		{"workers: {heartbeat_timeout: 10s}\n", func(s *Scenario) bool {
			return s.Workers == Workers{Count: 1, Slots: 4, Memory: 1 << 30, HeartbeatTimeout: 10 * des.Second}
		}},
		{"restart: {type: none}\n", func(s *Scenario) bool {
			r := DefaultRestart()
			r.Type = RestartNone
			return s.Restart == r
		}},
		{"restart: {type: exponential-delay, max_backoff: 5m}\n", func(s *Scenario) bool {
			r := DefaultRestart()
			r.Type, r.MaxBackoff = RestartExponentialDelay, 5*des.Minute
			return s.Restart == r
		}},
		{"restart: {attempts: 3}\n", func(s *Scenario) bool {
			r := DefaultRestart()
			r.Attempts = 3
			return s.Restart == r
		}},
		{"high_availability: {type: zookeeper}\n", func(s *Scenario) bool {
			return s.HighAvailability == HighAvailability{Type: HAZooKeeper, LeaderElection: 10 * des.Second}
		}},
		{"high_availability: {type: zookeeper, leader_election: 0s}\n", func(s *Scenario) bool {
			return s.HighAvailability == HighAvailability{Type: HAZooKeeper}
		}},
		{"failures:\n", func(s *Scenario) bool { return s.Failures == nil }},
		{"failures:\n  - {kind: slowdown, at: 1s, duration: 2s}\n  - {kind: task, at: 1s, vertex: k}\n", func(s *Scenario) bool {
			return reflect.DeepEqual(s.Failures, []Failure{
				{Kind: FailureSlowdown, At: des.Second, Duration: 2 * des.Second, Factor: 10},
				{Kind: FailureTask, At: des.Second, Vertex: "k", Factor: 10},
			})
		}},
	} {
		s, err := Parse("d.yaml", []byte(base+c.yaml))
		if err != nil {
			t.Errorf("%q: %v", c.yaml, err)
			continue
		}
		if !c.check(s) {
			t.Errorf("%q: workers %+v, state backend %+v, restart %+v, high availability %+v, failures %+v",
				c.yaml, s.Workers, s.StateBackend, s.Restart, s.HighAvailability, s.Failures)
		}
		if got := s.WithDefaults(); !reflect.DeepEqual(got, s) {
			t.Errorf("%q: WithDefaults changed a parsed scenario", c.yaml)
		}
	}
}

// A Scenario built in Go may leave the settings of fault tolerance zero:
// Validate accepts it, and WithDefaults gives what Parse would have filled
// in, without changing the original.
func TestWithDefaults(t *testing.T) {
	parsed := mustParse(t, "ok.yaml", "duration: 10s\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}, {name: k2, input: s}]\n")
	b := withoutPositions(parsed)
	b.File = ""
	b.Workers = Workers{Count: 1, Slots: 4}
	b.Checkpoint = Checkpointing{}
	b.StateBackend = StateBackend{}
	b.Restart = RestartStrategy{}
	b.HighAvailability = HighAvailability{}
	b.Sinks = slices.Clone(parsed.Sinks)
	b.Sinks[0].Delivery = ""
	b.Sinks[1].Delivery = DeliveryIdempotent
	b.Failures = []Failure{{Kind: FailureSlowdown, At: des.Second, Duration: des.Second}, {Kind: FailureWorker, MTBF: des.Hour, Factor: 3}}
	if err := b.Validate(); err != nil {
		t.Fatalf("Validate of zero settings: %v", err)
	}
	got := b.WithDefaults()
	if got.Workers != DefaultWorkers() || got.Checkpoint != DefaultCheckpointing() || got.StateBackend != DefaultStateBackend() ||
		got.Restart != DefaultRestart() || got.HighAvailability != DefaultHighAvailability() {
		t.Errorf("WithDefaults = %+v", got)
	}
	if got.Sinks[0].Delivery != DeliveryAtLeastOnce || got.Sinks[1].Delivery != DeliveryIdempotent ||
		got.Failures[0].Factor != 10 || got.Failures[1].Factor != 3 {
		t.Errorf("WithDefaults: sinks %+v, failures %+v", got.Sinks, got.Failures)
	}
	if b.Sinks[0].Delivery != "" || b.Failures[0].Factor != 0 || b.Workers.Memory != 0 {
		t.Errorf("WithDefaults changed the original")
	}
	if err := got.Validate(); err != nil {
		t.Errorf("Validate of WithDefaults: %v", err)
	}

	// Partly given settings keep what they give; only the marker zeros
	// are replaced.
	b.Checkpoint = Checkpointing{Mode: CheckpointAligned, Interval: des.Second, Timeout: des.Minute, MaxConcurrent: 1,
		Storage: CheckpointStorage{Latency: des.Millisecond}}
	b.StateBackend = StateBackend{GCInterval: des.Second}
	b.Restart = RestartStrategy{Attempts: 2}
	b.HighAvailability = HighAvailability{Type: HAZooKeeper}
	if err := b.Validate(); err != nil {
		t.Fatalf("Validate of partial settings: %v", err)
	}
	got = b.WithDefaults()
	if got.Checkpoint.Storage != (CheckpointStorage{Bandwidth: 100 << 20, Latency: des.Millisecond}) || got.Checkpoint.TolerableFailures != 0 {
		t.Errorf("checkpoint = %+v", got.Checkpoint)
	}
	if got.StateBackend != (StateBackend{Type: BackendHeap, GCInterval: des.Second}) {
		t.Errorf("state backend = %+v", got.StateBackend)
	}
	if got.Restart != (RestartStrategy{Type: RestartFixedDelay, Attempts: 2}) {
		t.Errorf("restart = %+v", got.Restart)
	}
	if got.HighAvailability != (HighAvailability{Type: HAZooKeeper}) {
		t.Errorf("high availability = %+v", got.HighAvailability)
	}
}

// Validate checks the settings of fault tolerance of a Scenario built in
// Go; its errors have paths but no positions.
func TestValidateBuiltFaultTolerance(t *testing.T) {
	parsed := mustParse(t, "ok.yaml", "duration: 1m\nworkers: {count: 2}\nsources: [{name: s, parallelism: 2, arrival: {process: constant, rate: 1/s}}]\n"+
		"operators: [{name: o, input: s, partitioning: hash, parallelism: 2, service_time: {mean: 1ms}}]\nsinks: [{name: k, input: o}]\n")
	for _, c := range []struct {
		change func(*Scenario)
		want   string
	}{
		{func(s *Scenario) { s.Workers.Memory, s.Workers.HeartbeatTimeout = -1, -1 },
			"workers.memory: must be greater than 0, got -1B\nworkers.heartbeat_timeout: must be greater than 0, got -1ns"},
		{func(s *Scenario) { s.StateBackend.Type = "memory" },
			`state_backend.type: unknown type "memory"; expected heap or rocksdb`},
		{func(s *Scenario) {
			s.StateBackend = StateBackend{Type: BackendHeap, AccessTime: -1, GCInterval: des.Millisecond, GCPausePerGiB: -1}
		}, "state_backend.access_time: must not be negative, got -1ns\n" +
			"state_backend.gc_interval: must be 0 (off) or at least 10ms (each interval pauses every worker), got 1ms\n" +
			"state_backend.gc_pause_per_gib: must not be negative, got -1ns"},
		{func(s *Scenario) { s.StateBackend = StateBackend{Type: BackendRocksDB, GCInterval: -1} }, ""}, // not used by rocksdb
		{func(s *Scenario) { s.Restart = RestartStrategy{Type: RestartExponentialDelay} },
			"restart.initial_backoff: must be greater than 0, got 0s\n" +
				"restart.max_backoff: must be greater than 0, got 0s\n" +
				"restart.multiplier: must be at least 1 (each backoff is the previous one times multiplier), got 0\n" +
				"restart.reset_threshold: must be greater than 0, got 0s"},
		{func(s *Scenario) { s.Restart = RestartStrategy{Type: RestartFailureRate, Delay: -1} },
			"restart.delay: must not be negative, got -1ns\n" +
				"restart.max_failures_per_interval: must be at least 1, got 0\n" +
				"restart.failure_rate_interval: must be greater than 0, got 0s"},
		{func(s *Scenario) { s.Restart = RestartStrategy{Type: RestartNone, Attempts: -5} }, ""},
		{func(s *Scenario) { s.Restart.Jitter = math.NaN(); s.Restart.Type = RestartExponentialDelay },
			"restart.jitter: must be at least 0 and less than 1 (a fraction of the backoff), got NaN"},
		{func(s *Scenario) { s.HighAvailability = HighAvailability{Type: HAZooKeeper, LeaderElection: -1} },
			"high_availability.leader_election: must not be negative, got -1ns"},
		{func(s *Scenario) { s.HighAvailability = HighAvailability{Type: "Zookeeper"} },
			`high_availability.type: unknown type "Zookeeper"; did you mean "zookeeper"?`},
		{func(s *Scenario) { s.Operators[0].State = &KeyedState{} },
			"operators[0].state.bytes_per_key: must be greater than 0, got 0B"},
		{func(s *Scenario) {
			s.Operators[0].State = &KeyedState{BytesPerKey: 8}
			s.Operators[0].Partitioning = PartitionRebalance
		}, "operators[0].state: keyed state needs keyBy (partitioning: hash), but the partitioning is rebalance (the default)"},
		{func(s *Scenario) { s.Sinks[0].Delivery = "Exactly Once" },
			`sinks[0].delivery: unknown delivery "Exactly Once"; did you mean "transactional"? (the two-phase-commit sink that Flink calls exactly-once; idempotent also gives exactly-once results)`},
		{func(s *Scenario) { s.Sinks[0].Delivery = DeliveryTransactional; s.Checkpoint = Checkpointing{} },
			"sinks[0].delivery: transactional needs checkpoints: its output becomes visible when the checkpoint that covers it completes, but checkpoint.mode is none (the default)"},
		{func(s *Scenario) {
			s.Checkpoint = Checkpointing{Mode: CheckpointAligned, Interval: des.Second, Timeout: des.Minute, MaxConcurrent: 1, Incremental: true}
			s.StateBackend = StateBackend{Type: BackendRocksDB}
			s.Sinks[0].Delivery = DeliveryTransactional
		}, ""},
		{func(s *Scenario) {
			s.Failures = []Failure{
				{},
				{Kind: FailureTask, At: des.Minute},
				{Kind: FailureTask, At: -1, Vertex: "oo", Subtask: 5},
				{Kind: FailureTask, Vertex: "o", Subtask: 2},
				{Kind: FailureWorker, Worker: 2},
				{Kind: FailureSlowdown, Worker: -1, Factor: 0.5},
				{Kind: FailureSlowdown, Vertex: "s", Subtask: -1, Duration: 1, Factor: 2e6},
				{Kind: FailureNetworkPartition, MTBF: des.Hour, Worker: 1, Duration: 1},
				{Kind: FailureStorageOutage},
				{Kind: FailureWorker, MTBF: -1},
				{Kind: FailureJobManager, MTBF: des.Millisecond},
				{Kind: FailureTask, MTBF: des.Hour, Vertex: "nope", Worker: 99}, // random: the target is drawn
				{Kind: FailureSlowdown, Duration: 1},                            // worker 0, factor 10
			}
		}, `failures[0].kind: unknown kind ""; expected task, worker, jobmanager, slowdown, network-partition, storage-outage or consumer` + "\n" +
			"failures[1].at: must be before the end of the run (duration 60s), got 60s\n" +
			"failures[1].vertex: must name the vertex whose subtask fails\n" +
			"failures[2].at: must not be negative, got -1ns\n" +
			`failures[2].vertex: unknown vertex "oo"; vertices are s, o, k` + "\n" +
			`failures[3].subtask: must be from 0 to 1 ("o" has parallelism 2), got 2` + "\n" +
			"failures[4].worker: must be from 0 to 1 (workers.count is 2), got 2\n" +
			"failures[5].worker: must be from 0 to 1 (workers.count is 2), got -1\n" +
			"failures[5].duration: must be greater than 0, got 0s\n" +
			"failures[5].factor: must be greater than 1 (service times are multiplied by it), got 0.5\n" +
			`failures[6].subtask: must be from 0 to 1 ("s" has parallelism 2), got -1` + "\n" +
			"failures[6].factor: must be at most 1e6, got 2e6\n" +
			`failures[7].mtbf: "mtbf" applies only to kind task, worker or jobmanager, not network-partition` + "\n" +
			"failures[8].duration: must be greater than 0, got 0s\n" +
			"failures[9].mtbf: must be greater than 0, got -1ns\n" +
			"failures[10].mtbf: must be at least 1s (failures more often than that would only keep the job restarting), got 1ms"},
	} {
		b := withoutPositions(parsed)
		b.File = ""
		b.Operators = slices.Clone(parsed.Operators)
		b.Sinks = slices.Clone(parsed.Sinks)
		c.change(&b)
		err := b.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("unexpected error:\n%v", err)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("got:\n%v\nwant:\n%s", err, c.want)
		}
	}
}

// A large file, valid or full of dangling inputs, parses in well under a
// second per thousand vertices (no quadratic did-you-mean searches).
func TestLargeScenario(t *testing.T) {
	for _, dangling := range []bool{false, true} {
		var b strings.Builder
		b.WriteString("duration: 10s\nsources:\n  - name: s0\n    arrival: {process: constant, rate: 1/s}\noperators:\n")
		const n = 20000
		for i := 1; i <= n; i++ {
			in := fmt.Sprintf("o%d", i-1)
			switch {
			case dangling:
				in = fmt.Sprintf("zz%d", i)
			case i == 1:
				in = "s0"
			}
			fmt.Fprintf(&b, "  - name: o%d\n    input: %s\n    service_time: {mean: 1ms}\n", i, in)
		}
		fmt.Fprintf(&b, "sinks:\n  - name: out\n    input: o%d\n", n)
		s, err := Parse("big.yaml", []byte(b.String()))
		if dangling {
			list, _ := err.(ErrorList)
			if len(list) != maxErrors+1 || list[0].Error() != `big.yaml:7:12: operators[0].input: unknown vertex "zz1"` {
				t.Errorf("dangling: %d errors, first %v", len(list), list[0])
			}
		} else if err != nil || len(s.Operators) != n {
			t.Errorf("valid: %v", err)
		}
	}
}

// A vertex with no path to a sink is allowed (its output is discarded).
func TestDeadEndIsFine(t *testing.T) {
	s := mustParse(t, "dead.yaml", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: nowhere
    input: src
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: src
`)
	if s == nil || len(s.Operators) != 1 {
		t.Errorf("dead end: %+v", s)
	}
}

// A scenario without a name is named after its file, without the
// extension; the name is only a label, so any file name gives one, less
// the characters a name may not hold.
func TestDefaultName(t *testing.T) {
	body := "duration: 10s\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}]\n"
	for file, want := range map[string]string{
		"runs/my-job.yaml":       "my-job",
		"my-job.yml":             "my-job",
		"/abs/dir/v2.final.yaml": "v2.final",
		"backpressure":           "backpressure", // a built-in's label
		".hidden":                ".hidden",
		"Ünïcode datei.yaml":     "Ünïcode datei",
		"esc\x1b[31m\n.yaml":     "esc[31m",
		"bad\xffbyte.yaml":       "bad\uFFFDbyte",
		`C:\\runs\\windows.yaml`: "windows",
		"":                       "",
	} {
		s, err := Parse(file, []byte(body))
		if err != nil {
			t.Errorf("%q: %v", file, err)
			continue
		}
		if s.Name != want {
			t.Errorf("%q: name %q, want %q", file, s.Name, want)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%q: Validate: %v", file, err)
		}
	}
	for text, want := range map[string]string{
		"name: given\n": "given",
		"name: ''\n":    "file",
	} {
		if s := mustParse(t, "dir/file.yaml", text+body); s.Name != want {
			t.Errorf("%q: name %q, want %q", text, s.Name, want)
		}
	}
}

// Validate checks max_rate, the name and the description of a Scenario
// built in Go; a MaxRate of 0 means no limit.
func TestValidateBuiltNewChecks(t *testing.T) {
	s := mustParse(t, "ok.yaml", "duration: 10s\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}]\n")
	b := withoutPositions(s)
	b.File = ""
	if err := b.Validate(); err != nil {
		t.Fatalf("valid: %v", err)
	}
	b.Description = "one\ntwo"
	b.Name = "x\u2028y"
	b.Sources = []Source{s.Sources[0]}
	b.Sources[0].MaxRate = -1
	b.Operators = []Operator{{Name: "op", Inputs: []string{"s"}, Partitioning: PartitionForward, Parallelism: 1, MaxParallelism: 128,
		ServiceTime: ServiceTime{Distribution: DistConstant}, Selectivity: math.Inf(1), Network: DefaultNetwork()}}
	b.Metrics.Interval = 0
	want := "name: must be one line of printable text (found a line separator U+2028)\n" +
		"description: must be one line of printable text (found a control character U+000A)\n" +
		"sources[0].max_rate: must be greater than 0 (leave max_rate out for no limit), got -1/s\n" +
		"operators[0].selectivity: must be a finite number, got +Inf\n" +
		"metrics.interval: must be at least 1ms (each interval writes a metrics row per subtask), got 0s"
	if err := b.Validate(); err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
	b.Description = string([]byte{'a', 0xff})
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "description: must be one line of printable text (found bytes that are not UTF-8)") {
		t.Errorf("invalid UTF-8: %v", err)
	}
}

// A checkpoint block fills the defaults of the fields it leaves out, and
// keeps where each field was given.
func TestCheckpointDecode(t *testing.T) {
	const base = "duration: 1m\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}]\n"
	def := DefaultCheckpointing()
	with := func(f func(*Checkpointing)) Checkpointing {
		c := def
		f(&c)
		return c
	}
	for _, c := range []struct {
		yaml string
		want Checkpointing
	}{
		{"", def},
		{"checkpoint:\n", def},
		{"checkpoint: {}\n", def},
		{"checkpoint: {mode: none}\n", def},
		{"checkpoint: {mode: aligned, interval: 10s}\n",
			with(func(c *Checkpointing) { c.Mode, c.Interval = CheckpointAligned, 10*des.Second })},
		{"checkpoint: {mode: aligned, interval: 10s, timeout: 1m, min_pause: 0s, max_concurrent: 1}\n",
			with(func(c *Checkpointing) { c.Mode, c.Interval, c.Timeout = CheckpointAligned, 10*des.Second, des.Minute })},
		{"x-ckpt: &ckpt {mode: aligned, interval: 2s, max_concurrent: 3}\ncheckpoint: {<<: *ckpt, min_pause: 250ms, interval: 1500ms}\n",
			with(func(c *Checkpointing) {
				c.Mode, c.Interval, c.MinPause, c.MaxConcurrent = CheckpointAligned, 1500*des.Millisecond, 250*des.Millisecond, 3
			})},
		{"checkpoint: {mode: stop-the-world, interval: 1m, tolerable_failures: 0, storage: {latency: 0}}\n",
			with(func(c *Checkpointing) {
				c.Mode, c.Interval, c.TolerableFailures, c.Storage.Latency = CheckpointStopTheWorld, des.Minute, 0, 0
			})},
		{"checkpoint: {mode: unaligned, interval: 5s, aligned_timeout: 200ms, storage: {bandwidth: 1Gbit/s}}\n",
			with(func(c *Checkpointing) {
				c.Mode, c.Interval, c.AlignedTimeout, c.Storage.Bandwidth = CheckpointUnaligned, 5*des.Second, 200*des.Millisecond, 125e6
			})},
		{"state_backend: {type: rocksdb}\ncheckpoint: {mode: aligned, interval: 10s, incremental: true}\n",
			with(func(c *Checkpointing) { c.Mode, c.Interval, c.Incremental = CheckpointAligned, 10*des.Second, true })},
	} {
		s, err := Parse("c.yaml", []byte(base+c.yaml))
		if err != nil {
			t.Errorf("%q: %v", c.yaml, err)
			continue
		}
		if s.Checkpoint != c.want {
			t.Errorf("%q: got %+v, want %+v", c.yaml, s.Checkpoint, c.want)
		}
	}
	s := mustParse(t, "c.yaml", base+"checkpoint:\n  mode: aligned\n  interval: 10s\n")
	if l, c := s.Pos("checkpoint.interval"); l != 6 || c != 13 {
		t.Errorf("Pos(checkpoint.interval) = %d:%d, want 6:13", l, c)
	}
	if l, c := s.Pos("checkpoint.timeout"); l != 5 || c != 3 {
		t.Errorf("Pos(checkpoint.timeout) = %d:%d, want 5:3 (the mapping, a default)", l, c)
	}
}

// Validate checks the checkpoint setting of a Scenario built in Go: a zero
// Checkpointing is mode none, and with mode none the other fields are not
// used, so not checked.
func TestValidateBuiltCheckpoint(t *testing.T) {
	s := mustParse(t, "ok.yaml", "duration: 10s\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}]\n")
	b := withoutPositions(s)
	b.File = ""
	for _, cp := range []Checkpointing{
		{},
		{Mode: CheckpointNone, Interval: -1, Timeout: -1, MinPause: -1, MaxConcurrent: -1},
		{Mode: CheckpointAligned, Interval: des.Second, Timeout: des.Minute, MaxConcurrent: 1},
		{Mode: CheckpointAligned, Interval: MinCheckpointInterval, Timeout: 1, MaxConcurrent: 100},
		// stop-the-world takes one checkpoint at a time: max_concurrent is not used
		{Mode: CheckpointStopTheWorld, Interval: des.Second, Timeout: des.Minute},
		{Mode: CheckpointUnaligned, Interval: des.Second, Timeout: des.Minute, MaxConcurrent: 1, TolerableFailures: -1, AlignedTimeout: des.Second,
			Storage: CheckpointStorage{Latency: des.Millisecond}},
	} {
		b.Checkpoint = cp
		if err := b.Validate(); err != nil {
			t.Errorf("%+v: %v", cp, err)
		}
	}
	for _, c := range []struct {
		cp   Checkpointing
		want string
	}{
		{Checkpointing{Mode: CheckpointAligned},
			"checkpoint.interval: must be greater than 0, got 0s\n" +
				"checkpoint.timeout: must be greater than 0, got 0s\n" +
				"checkpoint.max_concurrent: must be at least 1, got 0"},
		{Checkpointing{Mode: CheckpointAligned, Interval: des.Second, Timeout: des.Minute, MinPause: -des.Millisecond, MaxConcurrent: 1},
			"checkpoint.min_pause: must not be negative, got -1ms"},
		{Checkpointing{Mode: CheckpointUnaligned, Interval: des.Second, Timeout: des.Minute, MaxConcurrent: 1, AlignedTimeout: -1},
			"checkpoint.aligned_timeout: must not be negative, got -1ns"},
		{Checkpointing{Mode: CheckpointStopTheWorld, Interval: des.Second, Timeout: des.Minute, TolerableFailures: -2,
			Storage: CheckpointStorage{Bandwidth: -1, Latency: -1}},
			"checkpoint.tolerable_failures: must be at least -1 (-1 for no limit), got -2\n" +
				"checkpoint.storage.bandwidth: must be greater than 0, got -1B/s\n" +
				"checkpoint.storage.latency: must not be negative, got -1ns"},
		{Checkpointing{Mode: CheckpointAligned, Interval: des.Second, Timeout: des.Minute, MaxConcurrent: 1, Incremental: true},
			"checkpoint.incremental: incremental checkpoints need state_backend type rocksdb (heap state is snapshotted in full), got heap (the default)"},
		{Checkpointing{Mode: "Stop-The-World"},
			`checkpoint.mode: unknown mode "Stop-The-World"; did you mean "stop-the-world"?`},
		{Checkpointing{Mode: "Aligned"},
			`checkpoint.mode: unknown mode "Aligned"; did you mean "aligned"?`},
		{Checkpointing{Mode: "periodic"},
			`checkpoint.mode: unknown mode "periodic"; expected none, stop-the-world, aligned or unaligned`},
	} {
		b.Checkpoint = c.cp
		if err := b.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: got:\n%v\nwant:\n%s", c.cp, err, c.want)
		}
	}
}

func TestParallelisms(t *testing.T) {
	s := mustParse(t, "p.yaml", "duration: 10s\nworkers: {count: 1, slots: 4}\nsources: [{name: s, parallelism: 2, arrival: {process: constant, rate: 1/s}}]\noperators: [{name: o, input: s, parallelism: 3, service_time: {mean: 1ms}}]\nsinks: [{name: k, input: o}]\n")
	got := s.Parallelisms()
	if len(got) != 3 || got["s"] != 2 || got["o"] != 3 || got["k"] != 1 {
		t.Errorf("Parallelisms = %v, want s:2 o:3 k:1", got)
	}
}

// A fault-tolerance field at the wrong level says where it belongs;
// Flink-ish or natural names suggest ours.
func TestMisplacedFieldsSayWhereTheyBelong(t *testing.T) {
	_, err := Parse("mis.yaml", []byte(`name: x
duration: 10s
delivery: transactional
sources: [{name: s, arrival: {process: constant, rate: 1/s}}]
sinks: [{name: out, input: s, guarantee: at-least-once}]
failures: [{type: task, time: 5s, operator: s}]
checkpoint: {mode: aligned, interval: 1s, restart: {type: none}}
`))
	want := []string{
		`mis.yaml:3:1: delivery: unknown field "delivery" here; it belongs in sinks[].delivery`,
		`mis.yaml:5:31: sinks[0].guarantee: unknown field "guarantee"; did you mean "delivery"?`,
		`mis.yaml:6:13: failures[0].type: unknown field "type"; did you mean "kind"?`,
		`mis.yaml:6:25: failures[0].time: unknown field "time"; did you mean "at"?`,
		`mis.yaml:6:35: failures[0].operator: unknown field "operator"; did you mean "vertex"?`,
		`mis.yaml:7:43: checkpoint.restart: unknown field "restart" here; it belongs at the top level of the scenario`,
	}
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
}
