package scenario

import (
	"errors"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
)

// Allowed fields of each mapping of the format, in the order of the
// documentation. The JSON Schema (schema.go) has the same keys; a test
// checks that they agree.
var (
	topFields         = []string{"name", "description", "seed", "duration", "warmup", "workers", "network", "sources", "operators", "sinks", "metrics", "checkpoint", "state_backend", "restart", "high_availability", "failures"}
	workersFields     = []string{"count", "slots", "memory", "heartbeat_timeout"}
	networkFields     = []string{"buffer_size", "buffers_per_channel", "floating_buffers", "buffer_timeout", "latency", "bandwidth", "capacity"}
	sourceFields      = []string{"name", "parallelism", "arrival", "keys", "record_size", "max_rate", "replayable", "on_backpressure", "buffer_limit"}
	arrivalFields     = []string{"process", "rate", "off_rate", "on_time", "off_time", "schedule", "trace"}
	stepFields        = []string{"at", "rate"}
	keysFields        = []string{"count", "distribution", "exponent"}
	operatorFields    = []string{"name", "input", "inputs", "partitioning", "parallelism", "max_parallelism", "service_time", "selectivity", "state", "network"}
	keyedStateFields  = []string{"bytes_per_key"}
	sinkFields        = []string{"name", "input", "inputs", "partitioning", "parallelism", "max_parallelism", "service_time", "delivery", "network"}
	serviceTimeFields = []string{"distribution", "mean", "min", "max", "stddev"}
	metricsFields     = []string{"interval"}
	checkpointFields  = []string{"mode", "interval", "timeout", "min_pause", "max_concurrent", "tolerable_failures", "incremental", "aligned_timeout", "storage"}
	storageFields     = []string{"bandwidth", "latency"}
	backendFields     = []string{"type", "access_time", "gc_interval", "gc_pause_per_gib"}
	restartFields     = []string{"type", "attempts", "delay", "initial_backoff", "max_backoff", "multiplier", "jitter", "reset_threshold", "max_failures_per_interval", "failure_rate_interval"}
	haFields          = []string{"type", "leader_election"}
	failureFields     = []string{"kind", "at", "mtbf", "vertex", "subtask", "worker", "duration", "factor"}
)

// renamedFields maps old or likely spellings of a field, in lower case with
// dashes as underscores, to the field meant, for the did-you-mean of an
// unknown field where edit distance finds nothing (it applies only where
// the field meant is valid). Bursty's on_time and off_time were on and off,
// which YAML 1.1 tools such as PyYAML read as the booleans true and false.
// The others are Flink's names of the settings.
var renamedFields = map[string]string{
	"on":                           "on_time",
	"off":                          "off_time",
	"restart_strategy":             "restart",
	"ha":                           "high_availability",
	"backend":                      "state_backend",
	"heartbeat":                    "heartbeat_timeout",
	"tolerable_failed_checkpoints": "tolerable_failures",
	"aligned_checkpoint_timeout":   "aligned_timeout",
	"backoff_multiplier":           "multiplier",
	"jitter_factor":                "jitter",
	"reset_backoff_threshold":      "reset_threshold",
	"guarantee":                    "delivery",
	"delivery_guarantee":           "delivery",
	"type":                         "kind",
	"time":                         "at",
	"operator":                     "vertex",
}

// fieldHome says where a field that is unknown at one place belongs, for
// the fault-tolerance fields people put at the wrong level ("": at the top
// level).
var fieldHome = map[string]string{
	"delivery":           "sinks[].delivery",
	"heartbeat_timeout":  "workers.heartbeat_timeout",
	"memory":             "workers.memory",
	"incremental":        "checkpoint.incremental",
	"tolerable_failures": "checkpoint.tolerable_failures",
	"aligned_timeout":    "checkpoint.aligned_timeout",
	"storage":            "checkpoint.storage",
	"restart":            "",
	"failures":           "",
	"state_backend":      "",
	"high_availability":  "",
	"checkpoint":         "",
	"state":              "operators[].state",
	"bytes_per_key":      "operators[].state.bytes_per_key",
	"access_time":        "state_backend.access_time",
	"leader_election":    "high_availability.leader_election",
	"mtbf":               "failures[].mtbf",
	"replayable":         "sources[].replayable",
	"max_rate":           "sources[].max_rate",
}

// Valid values of the enum fields.
var (
	processes       = []string{ArrivalConstant, ArrivalPoisson, ArrivalBursty, ArrivalSchedule, ArrivalTrace}
	keyDists        = []string{KeysUniform, KeysZipf}
	onBackpressures = []string{OnBackpressureBlock, OnBackpressureBuffer, OnBackpressureDrop}
	distributions   = []string{DistConstant, DistExponential, DistUniform, DistLognormal}
	partitionings   = []string{PartitionForward, PartitionRebalance, PartitionHash, PartitionBroadcast, PartitionRescale}
	capacities      = []string{string(Bounded), string(Unbounded)}
	checkpointModes = []string{CheckpointNone, CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned}
	backends        = []string{BackendHeap, BackendRocksDB}
	restartTypes    = []string{RestartNone, RestartFixedDelay, RestartExponentialDelay, RestartFailureRate}
	haTypes         = []string{HANone, HAZooKeeper}
	deliveries      = []string{DeliveryAtLeastOnce, DeliveryAtMostOnce, DeliveryIdempotent, DeliveryTransactional}
	failureKinds    = []string{FailureTask, FailureWorker, FailureJobManager, FailureSlowdown, FailureNetworkPartition, FailureStorageOutage}
)

// Which variants each variant-specific field applies to.
var (
	arrivalApplies = map[string][]string{
		"rate":     {ArrivalConstant, ArrivalPoisson, ArrivalBursty},
		"off_rate": {ArrivalBursty},
		"on_time":  {ArrivalBursty},
		"off_time": {ArrivalBursty},
		"schedule": {ArrivalSchedule},
		"trace":    {ArrivalTrace},
	}
	arrivalRequires = map[string][]string{
		ArrivalConstant: {"rate"},
		ArrivalPoisson:  {"rate"},
		ArrivalBursty:   {"rate", "on_time", "off_time"},
		ArrivalSchedule: {"schedule"},
		ArrivalTrace:    {"trace"},
	}
	serviceApplies = map[string][]string{
		"mean":   {DistConstant, DistExponential, DistLognormal},
		"min":    {DistUniform},
		"max":    {DistUniform},
		"stddev": {DistLognormal},
	}
	serviceRequires = map[string][]string{
		DistConstant:    {"mean"},
		DistExponential: {"mean"},
		DistUniform:     {"min", "max"},
		DistLognormal:   {"mean", "stddev"},
	}
	checkpointApplies = map[string][]string{
		"interval":           {CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned},
		"timeout":            {CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned},
		"min_pause":          {CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned},
		"max_concurrent":     {CheckpointAligned, CheckpointUnaligned},
		"tolerable_failures": {CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned},
		"incremental":        {CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned},
		"aligned_timeout":    {CheckpointUnaligned},
		"storage":            {CheckpointStopTheWorld, CheckpointAligned, CheckpointUnaligned},
	}
	checkpointRequires = map[string][]string{
		CheckpointStopTheWorld: {"interval"},
		CheckpointAligned:      {"interval"},
		CheckpointUnaligned:    {"interval"},
	}
	backendApplies = map[string][]string{
		"gc_interval":      {BackendHeap},
		"gc_pause_per_gib": {BackendHeap},
	}
	restartApplies = map[string][]string{
		"attempts":                  {RestartFixedDelay, RestartExponentialDelay},
		"delay":                     {RestartFixedDelay, RestartFailureRate},
		"initial_backoff":           {RestartExponentialDelay},
		"max_backoff":               {RestartExponentialDelay},
		"multiplier":                {RestartExponentialDelay},
		"jitter":                    {RestartExponentialDelay},
		"reset_threshold":           {RestartExponentialDelay},
		"max_failures_per_interval": {RestartFailureRate},
		"failure_rate_interval":     {RestartFailureRate},
	}
	haApplies = map[string][]string{
		"leader_election": {HAZooKeeper},
	}
	failureApplies = map[string][]string{
		"mtbf":     randomFailureKinds,
		"vertex":   {FailureTask, FailureSlowdown},
		"subtask":  {FailureTask, FailureSlowdown},
		"worker":   {FailureWorker, FailureSlowdown, FailureNetworkPartition},
		"duration": {FailureSlowdown, FailureNetworkPartition, FailureStorageOutage},
		"factor":   {FailureSlowdown},
	}
	failureRequires = map[string][]string{
		FailureSlowdown:         {"duration"},
		FailureNetworkPartition: {"duration"},
		FailureStorageOutage:    {"duration"},
	}
	// randomFailureKinds are the kinds that may be random (mtbf).
	randomFailureKinds = []string{FailureTask, FailureWorker, FailureJobManager}
	// targetFields are the fields of a failure that pick what fails; a
	// random failure (mtbf) picks at random instead.
	targetFields = []string{"vertex", "subtask", "worker"}
)

// Defaults of the format.
const (
	defaultSeed           = 1
	defaultWorkerCount    = 1
	defaultWorkerSlots    = 4
	defaultParallelism    = 1
	defaultKeyCount       = 1000
	defaultZipfExponent   = 1.0
	defaultRecordSize     = 100 // bytes
	defaultBufferLimit    = 10000
	defaultSelectivity    = 1.0
	defaultMetricInterval = des.Second
	defaultCkptTimeout    = 10 * des.Minute // Flink's execution.checkpointing.timeout
	defaultMaxConcurrent  = 1               // Flink's execution.checkpointing.max-concurrent-checkpoints
	defaultTolerable      = -1              // no limit (Flink's default is 0)
	defaultWorkerMemory   = 1 << 30         // bytes
	defaultHeartbeat      = 50 * des.Second // Flink's heartbeat.timeout
	defaultStorageBW      = 100 << 20       // bytes per simulated second
	defaultStorageLatency = 10 * des.Millisecond
	defaultHeapAccess     = 100 * des.Nanosecond
	defaultRocksDBAccess  = 5 * des.Microsecond
	defaultGCPausePerGiB  = 100 * des.Millisecond
	defaultRestartDelay   = des.Second // Flink's restart-strategy.fixed-delay.delay
	defaultInitialBackoff = des.Second // Flink's restart-strategy.exponential-delay.initial-backoff
	defaultMaxBackoff     = des.Minute // Flink's restart-strategy.exponential-delay.max-backoff
	defaultMultiplier     = 2.0        // Flink's restart-strategy.exponential-delay.backoff-multiplier
	defaultJitter         = 0.1        // Flink's restart-strategy.exponential-delay.jitter-factor
	defaultResetThreshold = des.Hour   // Flink's restart-strategy.exponential-delay.reset-backoff-threshold
	defaultFailureRateMax = 1          // Flink's restart-strategy.failure-rate.max-failures-per-interval
	defaultFailureRateIvl = des.Minute // Flink's restart-strategy.failure-rate.failure-rate-interval
	defaultLeaderElection = 10 * des.Second
	defaultSlowdownFactor = 10.0
)

// DefaultWorkers returns the cluster of a scenario that says nothing: one
// worker with 4 slots, 1 GiB of memory for heap state and Flink's
// heartbeat timeout of 50s.
func DefaultWorkers() Workers {
	return Workers{Count: defaultWorkerCount, Slots: defaultWorkerSlots, Memory: defaultWorkerMemory, HeartbeatTimeout: defaultHeartbeat}
}

// DefaultCheckpointing returns the checkpoint setting of a scenario that
// says nothing: mode none, with the defaults the other fields take when a
// mode is given (timeout 10m, min_pause 0, max_concurrent 1, as Flink's;
// tolerable_failures -1, no limit, where Flink's default is 0; not
// incremental; aligned_timeout 0; DefaultCheckpointStorage).
func DefaultCheckpointing() Checkpointing {
	return Checkpointing{Mode: CheckpointNone, Timeout: defaultCkptTimeout, MaxConcurrent: defaultMaxConcurrent,
		TolerableFailures: defaultTolerable, Storage: DefaultCheckpointStorage()}
}

// DefaultCheckpointStorage returns the checkpoint storage of a scenario
// that says nothing: 100 MiB/s (104857600 bytes per simulated second) and
// 10ms per upload or download.
func DefaultCheckpointStorage() CheckpointStorage {
	return CheckpointStorage{Bandwidth: defaultStorageBW, Latency: defaultStorageLatency}
}

// DefaultStateBackend returns the state backend of a scenario that says
// nothing: heap, 100ns per state access, no garbage-collection pauses.
func DefaultStateBackend() StateBackend {
	return StateBackend{Type: BackendHeap, AccessTime: DefaultAccessTime(BackendHeap)}
}

// DefaultAccessTime returns the default time of one state access of a
// state backend type: 100ns for heap, 5µs for rocksdb; 0 for anything else.
func DefaultAccessTime(backend string) des.Time {
	switch backend {
	case BackendHeap:
		return defaultHeapAccess
	case BackendRocksDB:
		return defaultRocksDBAccess
	}
	return 0
}

// DefaultRestart returns the restart strategy of a scenario that says
// nothing: fixed-delay with no limit on attempts and 1s delay, and the
// defaults of every other strategy's fields filled in too (as Flink's:
// exponential-delay from 1s, ×2 up to 1m, jitter 0.1, reset after 1h;
// failure-rate of at most 1 failure per 1m).
func DefaultRestart() RestartStrategy {
	return RestartStrategy{
		Type:                   RestartFixedDelay,
		Attempts:               -1,
		Delay:                  defaultRestartDelay,
		InitialBackoff:         defaultInitialBackoff,
		MaxBackoff:             defaultMaxBackoff,
		Multiplier:             defaultMultiplier,
		Jitter:                 defaultJitter,
		ResetThreshold:         defaultResetThreshold,
		MaxFailuresPerInterval: defaultFailureRateMax,
		FailureRateInterval:    defaultFailureRateIvl,
	}
}

// DefaultHighAvailability returns the JobManager high availability of a
// scenario that says nothing: none, with the leader election time that
// zookeeper takes by default (10s).
func DefaultHighAvailability() HighAvailability {
	return HighAvailability{Type: HANone, LeaderElection: defaultLeaderElection}
}

// Bounds of the max parallelism (number of key groups) of a vertex, as in
// Flink's KeyGroupRangeAssignment: the default max parallelism is at least
// MinDefaultMaxParallelism, and no max parallelism exceeds
// MaxMaxParallelism.
const (
	MinDefaultMaxParallelism = 128
	MaxMaxParallelism        = 1 << 15
)

// DefaultNetwork returns the network setting an edge has when the scenario
// says nothing: 32 KiB buffers, 2 exclusive buffers per channel, 8 floating
// buffers per gate, 100 ms buffer timeout, 1 ms latency, 1 Gbit/s
// (125e6 bytes per simulated second), bounded (credit-based flow control),
// as Flink's defaults.
func DefaultNetwork() Network {
	return Network{
		BufferSize:        32 << 10,
		BuffersPerChannel: 2,
		FloatingBuffers:   8,
		BufferTimeout:     100 * des.Millisecond,
		Latency:           des.Millisecond,
		Bandwidth:         1e9 / 8,
		Capacity:          Bounded,
	}
}

// DefaultMaxParallelism returns Flink's default max parallelism (number of
// key groups) of a vertex with the given parallelism:
// roundUpToPowerOfTwo(p + p/2) clamped to [128, 32768].
func DefaultMaxParallelism(parallelism int) int {
	v := parallelism + parallelism/2
	if v <= MinDefaultMaxParallelism {
		return MinDefaultMaxParallelism
	}
	if v >= MaxMaxParallelism {
		return MaxMaxParallelism
	}
	p := 1
	for p < v {
		p <<= 1
	}
	return p
}

// Parse decodes the YAML scenario data, read from the named file (the name
// is used only in messages), fills every default and validates the result.
//
// On success the Scenario is complete (see the package doc). Otherwise Parse
// returns a nil Scenario and an ErrorList holding every problem found in
// the file, each located as file:line:col with its field path, sorted by
// position: syntax errors, unknown fields (with the nearest valid name),
// wrong types, bad unit strings, unknown enum values, missing required
// fields, fields that do not apply to the variant given (restart fields of
// another strategy, failure fields of another kind), out-of-range values,
// job-graph errors (duplicate names, dangling inputs, cycles, forward edges
// between different parallelisms, more parallelism than slots, keyed state
// without keyBy) and failures of vertices, subtasks or workers that do not
// exist. Parse never panics.
func Parse(file string, data []byte) (*Scenario, error) {
	root, errs := parseYAML(file, data)
	if errs != nil {
		return nil, errs
	}
	d := &decoder{file: file}
	d.Walker = strictyaml.NewWalker(root, 100000, d.add)
	s, err := d.decodeAll(root)
	if err != nil {
		return nil, err
	}
	d.errs = append(d.errs, s.validate(d.Bad)...)
	if err := finish(d.errs); err != nil {
		return nil, err
	}
	return s, nil
}

// parseYAML reads the single YAML document of data into a node tree, with
// syntax errors at the offending token (strictyaml.Document).
func parseYAML(file string, data []byte) (*yaml.Node, ErrorList) {
	root, err := strictyaml.Document(data)
	var se *strictyaml.SyntaxError
	switch {
	case err == nil:
		return root, nil
	case errors.As(err, &se) && se.Msg == strictyaml.ErrSecond:
		return nil, ErrorList{{File: file, Line: se.Line, Col: se.Col,
			Msg: "a scenario file holds one YAML document, found a second one (remove the ---)"}}
	case errors.As(err, &se):
		return nil, ErrorList{{File: file, Line: se.Line, Col: se.Col, Msg: "invalid YAML: " + se.Msg}}
	}
	return nil, ErrorList{{File: file, Line: 1, Col: 1,
		Msg: "the scenario is empty; it needs at least duration, sources and sinks"}}
}

// decoder walks a yaml.Node tree, collecting every error. It checks keys
// itself, because yaml's KnownFields is lost inside Node.Decode. Its Walker
// resolves aliases against a node budget (aliases can make a small file
// expand to a huge tree, "billion laughs"), records errors, the paths of
// fields that already have an error (or are missing), so validation does
// not report them again, and where each field path was given.
type decoder struct {
	strictyaml.Walker
	file string
	errs ErrorList
}

// add records an error of the file (the Walker's sink).
func (d *decoder) add(line, col int, path, msg string) {
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Col: col, Path: path, Msg: msg})
}

// decodeAll decodes the root mapping; it turns an exhausted budget into a
// single error.
func (d *decoder) decodeAll(root *yaml.Node) (*Scenario, error) {
	var s *Scenario
	if b := d.Walk(func() { s = d.scenario(root) }); b != nil {
		return nil, ErrorList{{File: d.file, Line: b.Line, Col: b.Col, Msg: b.Error()}}
	}
	return s, nil
}

// describe says what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case strictyaml.IsNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!int", "!!float", "!!bool":
		return shorten(n.Value)
	default:
		return quote(n.Value)
	}
}

// quote quotes a user's string for a message, shortening a long one.
func quote(s string) string { return strconv.Quote(shorten(s)) }

func shorten(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

// reInteger is a decimal integer, which YAML tags !!float when it does not
// fit in 64 bits.
var reInteger = regexp.MustCompile(`^[-+]?[0-9]+$`)

var reSimpleKey = regexp.MustCompile(`^[A-Za-z0-9_-]{1,60}$`)

// keySegment is how a key the user wrote appears in a path: as is when it
// is a plain word, else quoted (no newlines or huge keys in messages).
func keySegment(name string) string {
	if reSimpleKey.MatchString(name) {
		return name
	}
	return quote(name)
}

// displayName is how a vertex name appears in a list or a cycle: as is
// when it is a valid name, else quoted.
func displayName(name string) string {
	if len(name) <= MaxNameLength && reName.MatchString(name) {
		return name
	}
	return quote(name)
}

// field is one key of a mapping and its (unresolved) value.
type field struct {
	key, val *yaml.Node
}

// mapping is a decoded YAML mapping: its known fields by name.
type mapping struct {
	path   string
	node   *yaml.Node
	fields map[string]field
	// suggested holds the valid keys suggested for unknown ones, so a
	// misspelt required field is reported once.
	suggested map[string]bool
}

func (m *mapping) has(key string) bool {
	if m == nil {
		return false
	}
	_, ok := m.fields[key]
	return ok
}

// mappingOpts tunes the key check of one kind of mapping.
type mappingOpts struct {
	// special gives the message for a known mistake, by key.
	special map[string]string
	// extensions allows keys starting with "x-", ignored (a place for
	// YAML anchors).
	extensions bool
}

// mapping decodes n as a mapping with the allowed keys, reporting unknown
// and duplicate keys and following merge keys (<<). A null node is an empty
// mapping; any other non-mapping is an error and gives nil.
func (d *decoder) mapping(n *yaml.Node, path string, allowed []string, opts mappingOpts) *mapping {
	n = d.Resolve(n)
	d.SetPos(path, n)
	m := &mapping{path: path, node: n, fields: map[string]field{}}
	if strictyaml.IsNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping, got %s", describe(n))
		return nil
	}
	d.collect(n, m, allowed, opts, map[*yaml.Node]bool{})
	return m
}

// collect adds the keys of mapping node n to m: its own keys, then those of
// merged mappings that are not already there.
func (d *decoder) collect(n *yaml.Node, m *mapping, allowed []string, opts mappingOpts, merging map[*yaml.Node]bool) {
	merging[n] = true
	defer delete(merging, n)
	own := map[string]*yaml.Node{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.Resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.Report(k, m.path, "expected a field name, got %s", describe(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		name := k.Value
		if first, ok := own[name]; ok {
			d.Errorf(k, strictyaml.Join(m.path, keySegment(name)), "duplicate field %s; first given at line %d", quote(name), first.Line)
			continue
		}
		own[name] = k
		if opts.extensions && strings.HasPrefix(name, "x-") {
			continue
		}
		if !contains(allowed, name) {
			if sug := d.unknownField(k, m.path, name, allowed, opts); sug != "" {
				if m.suggested == nil {
					m.suggested = map[string]bool{}
				}
				m.suggested[sug] = true
			}
			continue
		}
		m.fields[name] = field{key: k, val: v}
	}
	for _, mv := range merges {
		src := d.Resolve(mv)
		var list []*yaml.Node
		switch src.Kind {
		case yaml.MappingNode:
			list = []*yaml.Node{src}
		case yaml.SequenceNode:
			for _, item := range src.Content {
				list = append(list, d.Resolve(item))
			}
		}
		if len(list) == 0 {
			d.Errorf(src, m.path, "<< expects a mapping or a list of mappings, got %s", describe(src))
			continue
		}
		for _, item := range list {
			if item.Kind != yaml.MappingNode {
				d.Errorf(item, m.path, "<< expects a mapping or a list of mappings, got %s", describe(item))
				continue
			}
			if merging[item] {
				d.Errorf(item, m.path, "<< merges a mapping into itself")
				continue
			}
			sub := &mapping{path: m.path, node: item, fields: map[string]field{}}
			d.collect(item, sub, allowed, opts, merging)
			for name, f := range sub.fields {
				if _, ok := m.fields[name]; !ok {
					m.fields[name] = f
				}
			}
			for name := range sub.suggested {
				if m.suggested == nil {
					m.suggested = map[string]bool{}
				}
				m.suggested[name] = true
			}
		}
	}
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// unknownField reports a key that the mapping does not have, suggesting the
// nearest valid one, which it returns ("" if none).
func (d *decoder) unknownField(k *yaml.Node, path, name string, allowed []string, opts mappingOpts) string {
	p := strictyaml.Join(path, keySegment(name))
	if msg, ok := opts.special[name]; ok {
		d.Errorf(k, p, "%s", msg)
		return ""
	}
	s := suggest(name, allowed)
	if r, ok := renamedFields[strings.ReplaceAll(strings.ToLower(name), "-", "_")]; ok && s == "" && contains(allowed, r) {
		s = r
	}
	if s != "" {
		d.Errorf(k, p, "unknown field %s; did you mean %q?", quote(name), s)
		return s
	}
	if home, ok := fieldHome[strings.ToLower(name)]; ok {
		where := "at the top level of the scenario"
		if home != "" {
			where = "in " + home
		}
		d.Errorf(k, p, "unknown field %s here; it belongs %s (valid fields here are %s)", quote(name), where, strings.Join(allowed, ", "))
		return ""
	}
	d.Errorf(k, p, "unknown field %s; valid fields are %s", quote(name), strings.Join(allowed, ", "))
	return ""
}

// suggest returns the option nearest to word by edit distance (ignoring
// case), or "" if none is near enough to be a likely typo.
func suggest(word string, options []string) string { return Nearest(word, options) }

// Nearest returns the option nearest to word by edit distance (ignoring
// case), or "" if none is near enough to be a likely typo: the did-you-mean
// of every dspalab message (field names, vertices, metrics, parameters).
func Nearest(word string, options []string) string {
	n := utf8.RuneCountInString(word)
	if n == 0 || n > 100 {
		return ""
	}
	limit := max(2, n/3)
	if n <= 3 {
		limit = 1
	}
	w := strings.ToLower(word)
	best, bestDist := "", math.MaxInt
	for _, o := range options {
		m := utf8.RuneCountInString(o)
		if m-n > limit || n-m > limit {
			continue // the distance is at least the difference in length
		}
		dist := levenshtein.ComputeDistance(w, strings.ToLower(o))
		if dist < bestDist {
			best, bestDist = o, dist
		}
	}
	if bestDist > limit || bestDist >= utf8.RuneCountInString(best) {
		return ""
	}
	return best
}

// value returns the resolved value of key in m and its path; nil if the
// key is absent.
func (d *decoder) value(m *mapping, key string) (*yaml.Node, string) {
	if m == nil {
		return nil, ""
	}
	f, ok := m.fields[key]
	if !ok {
		return nil, strictyaml.Join(m.path, key)
	}
	p := strictyaml.Join(m.path, key)
	v := d.Resolve(f.val)
	d.SetPos(p, v)
	return v, p
}

// missing reports a required field that m does not have, unless an unknown
// key was already reported as its likely misspelling.
func (d *decoder) missing(m *mapping, key, extra string) {
	d.Bad[strictyaml.Join(m.path, key)] = true
	if m.suggested[key] {
		return
	}
	d.Report(m.node, m.path, "missing required field %q%s", key, extra)
}

// scalar returns the scalar value of key, reporting a non-scalar or null
// value as "expect, got ...". ok is false when absent or wrong.
func (d *decoder) scalar(m *mapping, key, expect string) (v *yaml.Node, path string, ok bool) {
	v, path = d.value(m, key)
	if v == nil {
		return nil, path, false
	}
	if v.Kind != yaml.ScalarNode || strictyaml.IsNull(v) {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return v, path, false
	}
	return v, path, true
}

// str decodes a string field; any scalar is taken as its text.
func (d *decoder) str(m *mapping, key string, out *string) bool {
	v, _, ok := d.scalar(m, key, "expected a string")
	if ok {
		*out = v.Value
	}
	return ok
}

// integer decodes a whole-number field that fits in 32 bits.
func (d *decoder) integer(m *mapping, key string, out *int) bool {
	const expect = "expected a whole number"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	if t := v.ShortTag(); t != "!!int" && !(t == "!!float" && reInteger.MatchString(v.Value)) {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return false
	}
	var i int64
	if err := v.Decode(&i); err != nil || i > math.MaxInt32 || i < math.MinInt32 {
		if strings.HasPrefix(v.Value, "-") {
			d.Errorf(v, path, "%s, got %s, which is too small (at least %d)", expect, describe(v), math.MinInt32)
		} else {
			d.Errorf(v, path, "%s, got %s, which is too large (at most %d)", expect, describe(v), math.MaxInt32)
		}
		return false
	}
	*out = int(i)
	return true
}

// seed decodes the seed, an unsigned 64-bit number.
func (d *decoder) seed(m *mapping, key string, out *uint64) {
	const expect = "expected a whole number from 0 to 18446744073709551615"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return
	}
	var u uint64
	if v.ShortTag() != "!!int" || v.Decode(&u) != nil {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return
	}
	*out = u
}

// float decodes a finite number.
func (d *decoder) float(m *mapping, key string, out *float64) bool {
	const expect = "expected a number"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	var f float64
	if t := v.ShortTag(); t != "!!int" && t != "!!float" || v.Decode(&f) != nil {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		d.Errorf(v, path, "expected a finite number, got %s", describe(v))
		return false
	}
	*out = f
	return true
}

// boolean decodes true or false.
func (d *decoder) boolean(m *mapping, key string, out *bool) bool {
	const expect = "expected true or false"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	var b bool
	if v.ShortTag() != "!!bool" || v.Decode(&b) != nil {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return false
	}
	*out = b
	return true
}

// unit decodes a unit string with parse; expect is parse's message prefix
// for non-scalars.
func unit[T any](d *decoder, m *mapping, key, expect string, parse func(string) (T, error), out *T) bool {
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	x, err := parse(v.Value)
	if err != nil {
		d.Errorf(v, path, "%s", err.Error())
		return false
	}
	*out = x
	return true
}

func (d *decoder) duration(m *mapping, key string, out *des.Time) bool {
	return unit(d, m, key, expectDuration, ParseDuration, out)
}

func (d *decoder) rate(m *mapping, key string, out *float64) bool {
	return unit(d, m, key, expectRate, ParseRate, out)
}

func (d *decoder) size(m *mapping, key string, out *int64) bool {
	return unit(d, m, key, expectSize, ParseByteSize, out)
}

func (d *decoder) bandwidth(m *mapping, key string, out *float64) bool {
	return unit(d, m, key, expectBandwidth, ParseBandwidth, out)
}

// list decodes a sequence field; a null value is an empty list.
func (d *decoder) list(m *mapping, key, expect string) ([]*yaml.Node, string) {
	v, path := d.value(m, key)
	if v == nil || strictyaml.IsNull(v) {
		return nil, path
	}
	if v.Kind != yaml.SequenceNode {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return nil, path
	}
	return v.Content, path
}

// sub decodes a nested mapping field; absent gives an empty mapping at the
// parent's position.
func (d *decoder) sub(m *mapping, key string, allowed []string) *mapping {
	if m == nil {
		return nil
	}
	f, ok := m.fields[key]
	if !ok {
		return &mapping{path: strictyaml.Join(m.path, key), node: m.node, fields: map[string]field{}}
	}
	return d.mapping(f.val, strictyaml.Join(m.path, key), allowed, mappingOpts{})
}

// checkVariant reports fields given in m that do not apply to the variant
// (named by the enum field kind, e.g. "process"), and required ones that
// are missing.
func (d *decoder) checkVariant(m *mapping, kind, variant string, applies, requires map[string][]string) {
	d.checkVariantAs(m, kind, variant, variant, applies, requires)
}

// checkVariantAs is checkVariant with the variant shown as label in
// messages.
func (d *decoder) checkVariantAs(m *mapping, kind, variant, label string, applies, requires map[string][]string) {
	if m == nil {
		return
	}
	for _, key := range sortedKeys(applies) {
		f, ok := m.fields[key]
		if !ok || contains(applies[key], variant) || d.Bad[strictyaml.Join(m.path, key)] {
			continue
		}
		d.Errorf(f.key, strictyaml.Join(m.path, key), "%q applies only to %s %s, not %s",
			key, kind, orList(applies[key]), label)
	}
	for _, key := range requires[variant] {
		if !m.has(key) {
			d.missing(m, key, " for "+kind+" "+variant)
		}
	}
}

func sortedKeys(m map[string][]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// scenario decodes the root mapping.
func (d *decoder) scenario(root *yaml.Node) *Scenario {
	s := &Scenario{
		File:             d.file,
		Seed:             defaultSeed,
		Workers:          DefaultWorkers(),
		Network:          DefaultNetwork(),
		Metrics:          Metrics{Interval: defaultMetricInterval},
		Checkpoint:       DefaultCheckpointing(),
		StateBackend:     DefaultStateBackend(),
		Restart:          DefaultRestart(),
		HighAvailability: DefaultHighAvailability(),
	}
	s.positions = d.Pos
	root = d.Resolve(root)
	if root.Kind != yaml.MappingNode {
		d.Errorf(root, "", "expected a mapping with fields such as duration, sources and sinks at the top level, got %s", describe(root))
		return s
	}
	m := d.mapping(root, "", topFields, mappingOpts{extensions: true})
	d.str(m, "name", &s.Name)
	if s.Name == "" && !d.Bad["name"] {
		s.Name = nameFromFile(d.file)
	}
	d.str(m, "description", &s.Description)
	d.seed(m, "seed", &s.Seed)
	if !m.has("duration") {
		d.missing(m, "duration", "")
	}
	d.duration(m, "duration", &s.Duration)
	d.duration(m, "warmup", &s.Warmup)
	if w := d.sub(m, "workers", workersFields); w != nil {
		d.integer(w, "count", &s.Workers.Count)
		d.integer(w, "slots", &s.Workers.Slots)
		d.size(w, "memory", &s.Workers.Memory)
		d.duration(w, "heartbeat_timeout", &s.Workers.HeartbeatTimeout)
	}
	if n := d.sub(m, "network", networkFields); n != nil {
		d.network(n, &s.Network)
	}
	if mm := d.sub(m, "metrics", metricsFields); mm != nil {
		d.duration(mm, "interval", &s.Metrics.Interval)
	}
	if cm := d.sub(m, "checkpoint", checkpointFields); cm != nil {
		d.checkpoint(cm, &s.Checkpoint)
	}
	if bm := d.sub(m, "state_backend", backendFields); bm != nil {
		d.stateBackend(bm, &s.StateBackend)
	}
	if rm := d.sub(m, "restart", restartFields); rm != nil {
		d.restart(rm, &s.Restart)
	}
	if hm := d.sub(m, "high_availability", haFields); hm != nil {
		d.highAvailability(hm, &s.HighAvailability)
	}
	items, path := d.list(m, "sources", "expected a list of sources")
	for i, item := range items {
		s.Sources = append(s.Sources, d.source(item, strictyaml.Index(path, i)))
	}
	items, path = d.list(m, "operators", "expected a list of operators")
	for i, item := range items {
		s.Operators = append(s.Operators, d.operator(item, strictyaml.Index(path, i), s.Network))
	}
	items, path = d.list(m, "sinks", "expected a list of sinks")
	for i, item := range items {
		s.Sinks = append(s.Sinks, d.sink(item, strictyaml.Index(path, i), s.Network))
	}
	items, path = d.list(m, "failures", "expected a list of failures such as [{kind: worker, at: 30s, worker: 1}]")
	for i, item := range items {
		s.Failures = append(s.Failures, d.failure(item, strictyaml.Index(path, i)))
	}
	d.defaultPartitionings(s)
	return s
}

// nameFromFile is the name of a scenario that gives none: the base name of
// its file without the extension ("runs/my-job.yaml" is "my-job"), without
// the characters a name may not hold (see badTextRune). It is only a label,
// so it need not be a valid vertex name.
func nameFromFile(file string) string {
	base := filepath.Base(strings.ReplaceAll(file, "\\", "/"))
	if base == "." || base == "/" {
		return ""
	}
	if ext := filepath.Ext(base); ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	base = strings.ToValidUTF8(base, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if badTextRune(r) != "" {
			return -1
		}
		return r
	}, base)
}

// network applies the fields given in m to out.
func (d *decoder) network(m *mapping, out *Network) {
	d.size(m, "buffer_size", &out.BufferSize)
	d.integer(m, "buffers_per_channel", &out.BuffersPerChannel)
	d.integer(m, "floating_buffers", &out.FloatingBuffers)
	d.duration(m, "buffer_timeout", &out.BufferTimeout)
	d.duration(m, "latency", &out.Latency)
	d.bandwidth(m, "bandwidth", &out.Bandwidth)
	var c string
	if d.str(m, "capacity", &c) {
		out.Capacity = Capacity(c)
	}
}

// checkpoint applies the fields given in m to out. The fields other than
// mode apply only to a checkpoint mode: with mode none, given or by
// default, they are errors, as a variant's fields are.
func (d *decoder) checkpoint(m *mapping, out *Checkpointing) {
	d.str(m, "mode", &out.Mode)
	d.duration(m, "interval", &out.Interval)
	d.duration(m, "timeout", &out.Timeout)
	d.duration(m, "min_pause", &out.MinPause)
	d.integer(m, "max_concurrent", &out.MaxConcurrent)
	d.integer(m, "tolerable_failures", &out.TolerableFailures)
	d.boolean(m, "incremental", &out.Incremental)
	d.duration(m, "aligned_timeout", &out.AlignedTimeout)
	if sm := d.sub(m, "storage", storageFields); sm != nil {
		d.bandwidth(sm, "bandwidth", &out.Storage.Bandwidth)
		d.duration(sm, "latency", &out.Storage.Latency)
	}
	d.defaultVariant(m, "mode", out.Mode, CheckpointNone, checkpointModes, checkpointApplies, checkpointRequires)
}

// defaultVariant checks the variant-specific fields of m against its
// variant, the enum field kind: against deflt when kind is absent (unless
// a misspelling of it was reported), else against the value given when it
// is valid (an invalid one is reported by validation).
func (d *decoder) defaultVariant(m *mapping, kind, value, deflt string, values []string, applies, requires map[string][]string) {
	switch {
	case !m.has(kind):
		if !m.suggested[kind] {
			d.checkVariantAs(m, kind, deflt, deflt+" (the default)", applies, nil)
		}
	case contains(values, value) && !d.Bad[strictyaml.Join(m.path, kind)]:
		d.checkVariant(m, kind, value, applies, requires)
	}
}

// stateBackend applies the fields given in m to out. access_time defaults
// by type, and gc_pause_per_gib to 100ms once gc_interval is on.
func (d *decoder) stateBackend(m *mapping, out *StateBackend) {
	d.str(m, "type", &out.Type)
	d.duration(m, "access_time", &out.AccessTime)
	d.duration(m, "gc_interval", &out.GCInterval)
	d.duration(m, "gc_pause_per_gib", &out.GCPausePerGiB)
	d.defaultVariant(m, "type", out.Type, BackendHeap, backends, backendApplies, nil)
	if !m.has("access_time") {
		out.AccessTime = DefaultAccessTime(out.Type)
	}
	gcBad := d.Bad[strictyaml.Join(m.path, "gc_pause_per_gib")] || d.Bad[strictyaml.Join(m.path, "gc_interval")]
	switch {
	case m.has("gc_pause_per_gib") && !m.has("gc_interval") && !gcBad && !m.suggested["gc_interval"]:
		d.Errorf(m.fields["gc_pause_per_gib"].key, strictyaml.Join(m.path, "gc_pause_per_gib"),
			"%q needs gc_interval: garbage collection is off without it", "gc_pause_per_gib")
	case !m.has("gc_pause_per_gib") && out.GCInterval > 0:
		out.GCPausePerGiB = defaultGCPausePerGiB
	}
}

// restart applies the fields given in m to out (which holds every
// default): the fields of other strategies than its type are errors.
func (d *decoder) restart(m *mapping, out *RestartStrategy) {
	d.str(m, "type", &out.Type)
	d.integer(m, "attempts", &out.Attempts)
	d.duration(m, "delay", &out.Delay)
	d.duration(m, "initial_backoff", &out.InitialBackoff)
	d.duration(m, "max_backoff", &out.MaxBackoff)
	d.float(m, "multiplier", &out.Multiplier)
	d.float(m, "jitter", &out.Jitter)
	d.duration(m, "reset_threshold", &out.ResetThreshold)
	d.integer(m, "max_failures_per_interval", &out.MaxFailuresPerInterval)
	d.duration(m, "failure_rate_interval", &out.FailureRateInterval)
	d.defaultVariant(m, "type", out.Type, RestartFixedDelay, restartTypes, restartApplies, nil)
}

// highAvailability applies the fields given in m to out.
func (d *decoder) highAvailability(m *mapping, out *HighAvailability) {
	d.str(m, "type", &out.Type)
	d.duration(m, "leader_election", &out.LeaderElection)
	d.defaultVariant(m, "type", out.Type, HANone, haTypes, haApplies, nil)
}

// failure decodes one scripted (at) or random (mtbf) failure.
func (d *decoder) failure(n *yaml.Node, path string) Failure {
	f := Failure{Factor: defaultSlowdownFactor}
	m := d.mapping(n, path, failureFields, mappingOpts{})
	if m == nil {
		d.Bad[path] = true
		return f
	}
	if !m.has("kind") {
		d.missing(m, "kind", "")
	}
	d.str(m, "kind", &f.Kind)
	d.duration(m, "at", &f.At)
	d.duration(m, "mtbf", &f.MTBF)
	d.str(m, "vertex", &f.Vertex)
	d.integer(m, "subtask", &f.Subtask)
	d.integer(m, "worker", &f.Worker)
	d.duration(m, "duration", &f.Duration)
	d.float(m, "factor", &f.Factor)
	if !contains(failureKinds, f.Kind) || d.Bad[strictyaml.Join(path, "kind")] {
		return f // an unknown kind is reported by validation
	}
	d.checkVariant(m, "kind", f.Kind, failureApplies, failureRequires)
	keyErr := func(key, format string, args ...any) {
		if p := strictyaml.Join(path, key); !d.Bad[p] {
			d.Errorf(m.fields[key].key, p, format, args...)
		}
	}
	random := m.has("mtbf")
	switch {
	case random && m.has("at"):
		keyErr("mtbf", "give either at (one failure at that time) or mtbf (random failures), not both")
	case !random && !m.has("at") && contains(randomFailureKinds, f.Kind):
		d.missing(m, "at", ` (or "mtbf" for random failures)`)
	case !random && !m.has("at"):
		d.missing(m, "at", "")
	}
	if random && contains(randomFailureKinds, f.Kind) {
		for _, key := range targetFields {
			if m.has(key) {
				keyErr(key, "%q does not apply to random failures (mtbf): they strike every worker at random times", key)
			}
		}
		return f
	}
	switch {
	case f.Kind == FailureTask && !m.has("vertex"):
		d.missing(m, "vertex", " for kind task")
	case m.has("vertex") && m.has("worker"):
		keyErr("worker", "give either vertex (one of its subtasks slows down) or worker (all its subtasks do), not both")
	case m.has("subtask") && !m.has("vertex") && !m.suggested["vertex"]:
		keyErr("subtask", "%q needs vertex: it picks a subtask of that vertex", "subtask")
	}
	return f
}

var noInputs = map[string]string{
	"input":  "a source has no input; it reads records from outside the job",
	"inputs": "a source has no input; it reads records from outside the job",
}

// source decodes one source, filling defaults.
func (d *decoder) source(n *yaml.Node, path string) Source {
	src := Source{
		Parallelism:    defaultParallelism,
		Keys:           Keys{Count: defaultKeyCount, Distribution: KeysUniform, Exponent: defaultZipfExponent},
		RecordSize:     defaultRecordSize,
		Replayable:     true,
		OnBackpressure: OnBackpressureBlock,
		BufferLimit:    defaultBufferLimit,
	}
	m := d.mapping(n, path, sourceFields, mappingOpts{special: noInputs})
	if m == nil {
		d.Bad[path] = true
		return src
	}
	d.vertexName(m, &src.Name)
	d.integer(m, "parallelism", &src.Parallelism)
	if !m.has("arrival") {
		d.missing(m, "arrival", "")
	} else if a := d.sub(m, "arrival", arrivalFields); a != nil {
		src.Arrival = d.arrival(a)
	}
	if src.Arrival.Process == ArrivalTrace && m.has("keys") {
		d.Errorf(m.fields["keys"].key, strictyaml.Join(path, "keys"),
			"%q does not apply to process trace: a trace source takes its keys from the trace's key_column", "keys")
	} else if k := d.sub(m, "keys", keysFields); k != nil {
		d.integer(k, "count", &src.Keys.Count)
		d.str(k, "distribution", &src.Keys.Distribution)
		d.float(k, "exponent", &src.Keys.Exponent)
		if contains(keyDists, src.Keys.Distribution) {
			d.checkVariant(k, "distribution", src.Keys.Distribution, map[string][]string{"exponent": {KeysZipf}}, nil)
		}
	}
	d.size(m, "record_size", &src.RecordSize)
	d.rate(m, "max_rate", &src.MaxRate)
	d.boolean(m, "replayable", &src.Replayable)
	if d.str(m, "on_backpressure", &src.OnBackpressure) && src.Replayable {
		d.Errorf(m.fields["on_backpressure"].key, strictyaml.Join(path, "on_backpressure"),
			"%q applies only to sources with replayable: false (a replayable source turns back-pressure into lag)", "on_backpressure")
	}
	if d.integer(m, "buffer_limit", &src.BufferLimit) && !d.Bad[strictyaml.Join(path, "on_backpressure")] &&
		contains(onBackpressures, src.OnBackpressure) && src.OnBackpressure != OnBackpressureBuffer {
		d.Errorf(m.fields["buffer_limit"].key, strictyaml.Join(path, "buffer_limit"),
			"%q applies only to on_backpressure: buffer, not %s", "buffer_limit", src.OnBackpressure)
	}
	return src
}

// vertexName decodes the required name of a vertex.
func (d *decoder) vertexName(m *mapping, out *string) {
	if !m.has("name") {
		d.missing(m, "name", "")
		return
	}
	d.str(m, "name", out)
}

// arrival decodes an arrival process.
func (d *decoder) arrival(m *mapping) Arrival {
	var a Arrival
	if !m.has("process") {
		d.missing(m, "process", "")
	}
	d.str(m, "process", &a.Process)
	d.rate(m, "rate", &a.Rate)
	d.rate(m, "off_rate", &a.OffRate)
	d.duration(m, "on_time", &a.On)
	d.duration(m, "off_time", &a.Off)
	items, path := d.list(m, "schedule", "expected a list of steps such as [{at: 0s, rate: 100/s}, {at: 60s, rate: 200/s}]")
	for i, item := range items {
		p := strictyaml.Index(path, i)
		var step RateStep
		if sm := d.mapping(item, p, stepFields, mappingOpts{}); sm != nil {
			for _, key := range stepFields {
				if !sm.has(key) {
					d.missing(sm, key, "")
				}
			}
			d.duration(sm, "at", &step.At)
			d.rate(sm, "rate", &step.Rate)
		} else {
			d.Bad[p] = true
		}
		a.Schedule = append(a.Schedule, step)
	}
	if m.has("trace") {
		a.Trace = d.trace(d.sub(m, "trace", traceFields))
	}
	if contains(processes, a.Process) {
		d.checkVariant(m, "process", a.Process, arrivalApplies, arrivalRequires)
	}
	return a
}

// serviceTime decodes a service-time distribution (default constant).
func (d *decoder) serviceTime(m *mapping) ServiceTime {
	st := ServiceTime{Distribution: DistConstant}
	d.str(m, "distribution", &st.Distribution)
	d.duration(m, "mean", &st.Mean)
	d.duration(m, "min", &st.Min)
	d.duration(m, "max", &st.Max)
	d.duration(m, "stddev", &st.Stddev)
	if contains(distributions, st.Distribution) {
		d.checkVariant(m, "distribution", st.Distribution, serviceApplies, serviceRequires)
	}
	if st.Distribution == DistUniform {
		st.Mean = st.Min/2 + st.Max/2 + (st.Min%2+st.Max%2)/2
	}
	return st
}

// inputs decodes input (one name) or inputs (a list of names).
func (d *decoder) inputs(m *mapping) []string {
	hasOne, hasMany := m.has("input"), m.has("inputs")
	switch {
	case hasOne && hasMany:
		d.Errorf(m.fields["inputs"].key, strictyaml.Join(m.path, "inputs"), "give either input or inputs, not both")
	case !hasOne && !hasMany:
		d.missing(m, "input", " (or \"inputs\" for several)")
		return nil
	}
	if hasOne {
		v, path := d.value(m, "input")
		if v.Kind == yaml.SequenceNode {
			d.Errorf(v, path, "expected one vertex name, got a list; use inputs: [a, b] for several")
			return nil
		}
		var name string
		if !d.str(m, "input", &name) {
			return nil
		}
		return []string{name}
	}
	items, path := d.list(m, "inputs", "expected a list of vertex names such as [a, b]")
	if len(items) == 0 && !d.Bad[path] {
		d.Errorf(d.Resolve(m.fields["inputs"].val), path, "expected at least one vertex name")
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for i, item := range items {
		p := strictyaml.Index(path, i)
		v := d.Resolve(item)
		d.SetPos(p, v)
		if v.Kind != yaml.ScalarNode || strictyaml.IsNull(v) {
			d.Errorf(v, p, "expected a vertex name, got %s", describe(v))
			continue
		}
		if seen[v.Value] {
			d.Errorf(v, p, "%s is listed twice", quote(v.Value))
			continue
		}
		seen[v.Value] = true
		names = append(names, v.Value)
	}
	return names
}

// operator decodes one operator; base is the scenario's network setting.
func (d *decoder) operator(n *yaml.Node, path string, base Network) Operator {
	op := Operator{Parallelism: defaultParallelism, Selectivity: defaultSelectivity, Network: base,
		ServiceTime: ServiceTime{Distribution: DistConstant}}
	m := d.mapping(n, path, operatorFields, mappingOpts{})
	if m == nil {
		d.Bad[path] = true
		op.MaxParallelism = DefaultMaxParallelism(op.Parallelism)
		return op
	}
	d.vertexName(m, &op.Name)
	op.Inputs = d.inputs(m)
	d.str(m, "partitioning", &op.Partitioning)
	d.integer(m, "parallelism", &op.Parallelism)
	op.MaxParallelism = DefaultMaxParallelism(op.Parallelism)
	d.integer(m, "max_parallelism", &op.MaxParallelism)
	if !m.has("service_time") {
		d.missing(m, "service_time", "")
	} else if st := d.sub(m, "service_time", serviceTimeFields); st != nil {
		op.ServiceTime = d.serviceTime(st)
	}
	d.float(m, "selectivity", &op.Selectivity)
	if m.has("state") {
		op.State = &KeyedState{}
		if sm := d.sub(m, "state", keyedStateFields); sm != nil {
			if !sm.has("bytes_per_key") {
				d.missing(sm, "bytes_per_key", "")
			}
			d.size(sm, "bytes_per_key", &op.State.BytesPerKey)
		}
	}
	if nm := d.sub(m, "network", networkFields); nm != nil {
		d.network(nm, &op.Network)
	}
	return op
}

// sink decodes one sink; base is the scenario's network setting.
func (d *decoder) sink(n *yaml.Node, path string, base Network) Sink {
	sk := Sink{Parallelism: defaultParallelism, Network: base, ServiceTime: ServiceTime{Distribution: DistConstant},
		Delivery: DeliveryAtLeastOnce}
	m := d.mapping(n, path, sinkFields, mappingOpts{special: map[string]string{
		"selectivity": "a sink has no output, so no selectivity",
	}})
	if m == nil {
		d.Bad[path] = true
		sk.MaxParallelism = DefaultMaxParallelism(sk.Parallelism)
		return sk
	}
	d.vertexName(m, &sk.Name)
	sk.Inputs = d.inputs(m)
	d.str(m, "partitioning", &sk.Partitioning)
	d.integer(m, "parallelism", &sk.Parallelism)
	sk.MaxParallelism = DefaultMaxParallelism(sk.Parallelism)
	d.integer(m, "max_parallelism", &sk.MaxParallelism)
	if m.has("service_time") {
		if st := d.sub(m, "service_time", serviceTimeFields); st != nil {
			sk.ServiceTime = d.serviceTime(st)
		}
	}
	d.str(m, "delivery", &sk.Delivery)
	if nm := d.sub(m, "network", networkFields); nm != nil {
		d.network(nm, &sk.Network)
	}
	return sk
}

// defaultPartitionings sets the partitioning of vertices that give none:
// forward when every input has the vertex's parallelism, else rebalance
// (Flink's default).
func (d *decoder) defaultPartitionings(s *Scenario) {
	par := map[string]int{}
	for _, v := range s.vertices() {
		if _, dup := par[v.name]; !dup {
			par[v.name] = v.parallelism
		}
	}
	choose := func(inputs []string, p int) string {
		for _, in := range inputs {
			if q, ok := par[in]; !ok || q != p {
				return PartitionRebalance
			}
		}
		return PartitionForward
	}
	given := func(path string) bool {
		_, ok := d.Pos[strictyaml.Join(path, "partitioning")]
		return ok
	}
	for i := range s.Operators {
		if op := &s.Operators[i]; !given(strictyaml.Index("operators", i)) {
			op.Partitioning = choose(op.Inputs, op.Parallelism)
		}
	}
	for i := range s.Sinks {
		if sk := &s.Sinks[i]; !given(strictyaml.Index("sinks", i)) {
			sk.Partitioning = choose(sk.Inputs, sk.Parallelism)
		}
	}
}
