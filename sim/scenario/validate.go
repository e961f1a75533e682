package scenario

import (
	"container/heap"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
)

// MaxRate is the largest rate a source subtask may have, in records per
// simulated second: one record per nanosecond, the resolution of des.Time.
const MaxRate = 1e9

// MaxNameLength is the longest vertex name, in bytes.
const MaxNameLength = 64

// MaxDescriptionLength is the longest description of a scenario, in
// characters: one line of a listing.
const MaxDescriptionLength = 200

// MinMetricsInterval is the shortest metrics.interval: every interval
// writes a row per subtask and per vertex, so a 1ns interval would write
// rows faster than the records they measure.
const MinMetricsInterval = des.Millisecond

// MinCheckpointInterval is the shortest checkpoint interval, as in Flink
// (execution.checkpointing.interval must be at least 10ms).
const MinCheckpointInterval = 10 * des.Millisecond

// MaxRecordSize is the largest record_size, in bytes (the simulator keeps
// record sizes in 32 bits).
const MaxRecordSize = 1 << 30

// MaxZipfKeys is the most distinct keys of a zipf distribution: drawing
// keys takes a table of 8 bytes per key (80 MB at the limit).
const MaxZipfKeys = 10_000_000

// MaxSelectivity is the largest selectivity of an operator: each input
// record emits that many output records, so a larger one floods the job.
const MaxSelectivity = 1000

// MaxBytesPerKey is the largest keyed state per key, in bytes: with at most
// 2^31 keys, state sizes stay within 64 bits.
const MaxBytesPerKey = 1 << 30

// MinGCInterval is the shortest state_backend.gc_interval (other than 0,
// off): each interval pauses every worker.
const MinGCInterval = 10 * des.Millisecond

// MinMTBF is the shortest mean time between random failures: failures more
// often than that would keep the job restarting and the simulator busy
// with nothing else.
const MinMTBF = des.Second

// MaxSlowdownFactor is the largest factor of a slowdown, so that slowed
// service times stay within des.Time.
const MaxSlowdownFactor = 1e6

// reName is what a vertex name may look like: it appears in metric files,
// command-line flags and "a -> b" messages.
var reName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// Pos returns the 1-based line and column where the field path (in YAML
// names, e.g. "operators[1].service_time.mean") was given in the file the
// scenario was parsed from. For a field that was not given (a default) it
// returns the position of the nearest enclosing field that was, and 0, 0
// when there is none (a Scenario built in Go).
func (s *Scenario) Pos(path string) (line, col int) {
	if s == nil || s.positions == nil {
		return 0, 0
	}
	p, _ := strictyaml.Lookup(s.positions, path)
	return p.Line, p.Col
}

// given reports whether the field path was written in the YAML text.
func (s *Scenario) given(path string) bool {
	_, ok := s.positions[path]
	return ok
}

// Errorf returns an Error located at the field path (see Pos), for problems
// found after parsing, such as a scenario that exceeds a runtime limit:
// s.Errorf("sources[0].arrival.rate", "needs %d events, the limit is %d", n, max).
func (s *Scenario) Errorf(path, format string, args ...any) *Error {
	e := &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
	if s != nil {
		e.File = s.File
		e.Line, e.Col = s.Pos(path)
	}
	return e
}

// Validate checks a complete Scenario, such as one built in Go or changed
// after Parse: value ranges, enum values, and the job graph (unique names,
// inputs that exist and are not sinks, no cycles, forward edges between
// equal parallelisms, at least one source and one sink, enough slots), and
// the targets of failures. It fills no defaults. It returns nil or an
// ErrorList located with Pos.
//
// In a Scenario built in Go, the fields of fault tolerance may be left
// zero: a zero value that is not meaningful stands for the default (see
// WithDefaults), so Validate accepts it. A zero value that was written in
// the YAML text is checked as written (memory: 0 is an error).
func (s *Scenario) Validate() error {
	return finish(s.validate(nil))
}

// WithDefaults returns a copy of s in which the zero values that a Scenario
// built in Go may leave in the fields of fault tolerance hold their
// defaults, as Parse fills them:
//
//   - Workers.Memory 0 is 1 GiB, Workers.HeartbeatTimeout 0 is 50s;
//   - a zero Checkpoint is DefaultCheckpointing(); Mode "" is none; a zero
//     Checkpoint.Storage is DefaultCheckpointStorage(), and a
//     Storage.Bandwidth of 0 is 100 MiB/s;
//   - a zero StateBackend is DefaultStateBackend(); Type "" is heap;
//   - a zero Restart is DefaultRestart(); Type "" is fixed-delay;
//   - HighAvailability.Type "" is none (with LeaderElection 10s if 0);
//   - Sink.Delivery "" is at-least-once; Failure.Factor 0 is 10;
//   - Metrics.Interval 0 is 1s (Validate still refuses it: a metrics
//     interval is not a field of fault tolerance, but a Scenario compiled
//     without validation, as the run's up-front estimates are, samples
//     every second).
//
// Every other zero means what it says: Checkpoint.TolerableFailures 0
// tolerates no failed checkpoint (Flink's default; the format's default is
// -1, no limit), StateBackend.AccessTime 0 makes state access free,
// Restart.Attempts 0 never restarts, CheckpointStorage.Latency 0 has no
// latency. The result of Parse is returned unchanged (as an equal copy);
// s itself is not modified, and slices are copied only where a value
// changes.
func (s *Scenario) WithDefaults() *Scenario {
	c := *s
	if c.Workers.Memory == 0 {
		c.Workers.Memory = defaultWorkerMemory
	}
	if c.Workers.HeartbeatTimeout == 0 {
		c.Workers.HeartbeatTimeout = defaultHeartbeat
	}
	if c.Metrics.Interval == 0 {
		c.Metrics.Interval = defaultMetricInterval
	}
	if c.Checkpoint == (Checkpointing{}) {
		c.Checkpoint = DefaultCheckpointing()
	}
	if c.Checkpoint.Mode == "" {
		c.Checkpoint.Mode = CheckpointNone
	}
	c.Checkpoint.Storage = storageDefaults(c.Checkpoint.Storage)
	c.StateBackend = backendDefaults(c.StateBackend)
	c.Restart = restartDefaults(c.Restart)
	c.HighAvailability = haDefaults(c.HighAvailability)
	cloned := false
	for i, sk := range c.Sinks {
		if sk.Delivery == "" {
			if !cloned {
				c.Sinks, cloned = slices.Clone(c.Sinks), true
			}
			c.Sinks[i].Delivery = DeliveryAtLeastOnce
		}
	}
	cloned = false
	for i, f := range c.Failures {
		if f.Factor == 0 {
			if !cloned {
				c.Failures, cloned = slices.Clone(c.Failures), true
			}
			c.Failures[i].Factor = defaultSlowdownFactor
		}
	}
	return &c
}

func storageDefaults(st CheckpointStorage) CheckpointStorage {
	if st == (CheckpointStorage{}) {
		return DefaultCheckpointStorage()
	}
	if st.Bandwidth == 0 {
		st.Bandwidth = defaultStorageBW
	}
	return st
}

func backendDefaults(b StateBackend) StateBackend {
	if b == (StateBackend{}) {
		return DefaultStateBackend()
	}
	if b.Type == "" {
		b.Type = BackendHeap
	}
	return b
}

func restartDefaults(r RestartStrategy) RestartStrategy {
	if r == (RestartStrategy{}) {
		return DefaultRestart()
	}
	if r.Type == "" {
		r.Type = RestartFixedDelay
	}
	return r
}

func haDefaults(h HighAvailability) HighAvailability {
	if h.Type == "" {
		h.Type = HANone
		if h.LeaderElection == 0 {
			h.LeaderElection = defaultLeaderElection
		}
	}
	return h
}

// checker collects validation errors, skipping fields that already have a
// decoding error.
type checker struct {
	s *Scenario
	// bad holds the paths the decoder reported; their values are not
	// checked again, nor those of the fields inside them.
	bad map[string]bool
	// reported holds the paths validation reported, one error each.
	reported map[string]bool
	errs     ErrorList
	// suggestions bounds how many did-you-mean searches over vertex names
	// validation makes, so a huge file with many dangling inputs stays fast.
	suggestions int
	// parallelism of the first vertex of each name, and the names in
	// declaration order, for failures; nil until needed.
	parallelism map[string]int
	names       []string
}

// suggestName returns the vertex name nearest to name, within budget.
func (c *checker) suggestName(name string, names []string) string {
	if c.suggestions >= maxErrors || len(names) > 10000 {
		return ""
	}
	c.suggestions++
	return suggest(name, names)
}

// isBad reports whether the decoder reported path or a field around it.
func (c *checker) isBad(path string) bool {
	for p := path; ; p = strictyaml.Parent(p) {
		if c.bad[p] {
			return true
		}
		if p == "" {
			return false
		}
	}
}

func (c *checker) errorf(path, format string, args ...any) {
	if c.isBad(path) || c.reported[path] {
		return
	}
	c.errs = append(c.errs, c.s.Errorf(path, format, args...))
	c.reported[path] = true
}

func (c *checker) positiveDuration(path string, t des.Time) {
	if t <= 0 {
		c.errorf(path, "must be greater than 0, got %s", FormatDuration(t))
	}
}

func (c *checker) nonNegativeDuration(path string, t des.Time) {
	if t < 0 {
		c.errorf(path, "must not be negative, got %s", FormatDuration(t))
	}
}

func (c *checker) atLeast(path string, v, min int) {
	if v < min {
		c.errorf(path, "must be at least %d, got %d", min, v)
	}
}

func (c *checker) rate(path string, r float64, zeroOK bool) {
	switch {
	case math.IsNaN(r) || r < 0 || r == 0 && !zeroOK:
		if zeroOK {
			c.errorf(path, "must not be negative, got %s", FormatRate(r))
		} else {
			c.errorf(path, "must be greater than 0, got %s", FormatRate(r))
		}
	case r > MaxRate:
		c.errorf(path, "must be at most %s per subtask (one record per nanosecond), got %s", FormatRate(MaxRate), FormatRate(r))
	}
}

// enum checks that v is one of valid, suggesting the nearest.
func (c *checker) enum(path, what, v string, valid []string) bool {
	if contains(valid, v) {
		return true
	}
	if s := suggest(v, valid); s != "" {
		c.errorf(path, "unknown %s %s; did you mean %q?", what, quote(v), s)
	} else {
		c.errorf(path, "unknown %s %s; expected %s", what, quote(v), orList(valid))
	}
	return false
}

// validate returns the errors of s; bad holds paths already reported by
// the decoder.
func (s *Scenario) validate(bad map[string]bool) ErrorList {
	c := &checker{s: s, bad: bad, reported: map[string]bool{}}
	c.text("name", s.Name, 0)
	c.text("description", s.Description, MaxDescriptionLength)
	c.positiveDuration("duration", s.Duration)
	c.nonNegativeDuration("warmup", s.Warmup)
	if s.Duration > 0 && s.Warmup > 0 && s.Warmup >= s.Duration && !c.isBad("duration") {
		c.errorf("warmup", "must be shorter than duration (%s), got %s", FormatDuration(s.Duration), FormatDuration(s.Warmup))
	}
	c.atLeast("workers.count", s.Workers.Count, 1)
	c.atLeast("workers.slots", s.Workers.Slots, 1)
	c.positiveSize("workers.memory", s.Workers.Memory)
	c.positiveDefaultDuration("workers.heartbeat_timeout", s.Workers.HeartbeatTimeout)
	c.network("network", s.Network, nil)
	if s.Metrics.Interval < MinMetricsInterval {
		c.errorf("metrics.interval", "must be at least %s (each interval writes a metrics row per subtask), got %s",
			FormatDuration(MinMetricsInterval), FormatDuration(s.Metrics.Interval))
	}
	backend := c.stateBackend("state_backend", s.StateBackend)
	mode := c.checkpoint("checkpoint", s.Checkpoint, backend)
	c.restart("restart", s.Restart)
	c.highAvailability("high_availability", s.HighAvailability)
	for i, src := range s.Sources {
		c.source(strictyaml.Index("sources", i), src)
	}
	for i, op := range s.Operators {
		p := strictyaml.Index("operators", i)
		c.vertex(p, op.Name, op.Parallelism, op.MaxParallelism, op.Partitioning, op.Network)
		c.serviceTime(p+".service_time", op.ServiceTime)
		switch sel := op.Selectivity; {
		case sel < 0 || math.IsNaN(sel):
			c.errorf(p+".selectivity", "must be a number of at least 0 (output records per input record), got %s", formatFloat(sel))
		case sel > MaxSelectivity:
			c.errorf(p+".selectivity", "must be at most %d (each input record emits that many output records), got %s",
				MaxSelectivity, formatFloat(sel))
		}
		if op.State != nil {
			c.keyedState(p, op)
		}
	}
	for i, sk := range s.Sinks {
		p := strictyaml.Index("sinks", i)
		c.vertex(p, sk.Name, sk.Parallelism, sk.MaxParallelism, sk.Partitioning, sk.Network)
		c.serviceTime(p+".service_time", sk.ServiceTime)
		c.delivery(p+".delivery", sk.Delivery, mode)
	}
	c.graph()
	for i, f := range s.Failures {
		c.failure(strictyaml.Index("failures", i), f)
	}
	return c.errs
}

// network checks a network setting; for an edge's setting, base is the
// scenario's, and only fields that differ from it are checked (the others
// are reported there).
func (c *checker) network(path string, n Network, base *Network) {
	differs := func(f func(Network) any) bool { return base == nil || f(n) != f(*base) }
	if differs(func(n Network) any { return n.BufferSize }) && n.BufferSize <= 0 {
		c.errorf(path+".buffer_size", "must be greater than 0, got %s", FormatByteSize(n.BufferSize))
	}
	if differs(func(n Network) any { return n.BuffersPerChannel }) {
		c.atLeast(path+".buffers_per_channel", n.BuffersPerChannel, 1)
	}
	if differs(func(n Network) any { return n.FloatingBuffers }) {
		c.atLeast(path+".floating_buffers", n.FloatingBuffers, 0)
	}
	if differs(func(n Network) any { return n.BufferTimeout }) {
		c.nonNegativeDuration(path+".buffer_timeout", n.BufferTimeout)
	}
	if differs(func(n Network) any { return n.Latency }) {
		c.nonNegativeDuration(path+".latency", n.Latency)
	}
	if differs(func(n Network) any { return n.Bandwidth }) && !(n.Bandwidth > 0 && !math.IsInf(n.Bandwidth, 0)) {
		c.errorf(path+".bandwidth", "must be greater than 0, got %s", FormatBandwidth(n.Bandwidth))
	}
	if differs(func(n Network) any { return n.Capacity }) {
		c.enum(path+".capacity", "capacity", string(n.Capacity), capacities)
	}
}

// orDefault returns v, or deflt when v is "" and was not written in the
// YAML text (a Scenario built in Go): an empty string written is checked
// as written.
func (c *checker) orDefault(path, v, deflt string) string {
	if v == "" && !c.s.given(path) {
		return deflt
	}
	return v
}

// shown is how a value of an enum field appears in a message: with "(the
// default)" when it was not written.
func (c *checker) shown(path, v string) string {
	if c.s.given(path) {
		return v
	}
	return v + " (the default)"
}

// positiveSize checks a size that must be greater than 0, where 0 not
// written stands for the default.
func (c *checker) positiveSize(path string, n int64) {
	if n < 0 || n == 0 && c.s.given(path) {
		c.errorf(path, "must be greater than 0, got %s", FormatByteSize(n))
	}
}

// positiveDefaultDuration checks a duration that must be greater than 0,
// where 0 not written stands for the default.
func (c *checker) positiveDefaultDuration(path string, t des.Time) {
	if t < 0 || t == 0 && c.s.given(path) {
		c.positiveDuration(path, t)
	}
}

// checkpoint checks a checkpoint setting and returns its mode ("" if
// invalid). Mode "" (a Checkpointing built in Go and left zero) is mode
// none; with mode none the other fields are not used, so not checked.
// backend is the state backend's type ("" if invalid).
func (c *checker) checkpoint(p string, cp Checkpointing, backend string) string {
	mode := c.orDefault(p+".mode", cp.Mode, CheckpointNone)
	if !c.enum(p+".mode", "mode", mode, checkpointModes) {
		return ""
	}
	if mode == CheckpointNone {
		return mode
	}
	if cp.Interval > 0 && cp.Interval < MinCheckpointInterval {
		c.errorf(p+".interval", "must be at least %s (Flink's minimum checkpoint interval), got %s",
			FormatDuration(MinCheckpointInterval), FormatDuration(cp.Interval))
	} else {
		c.positiveDuration(p+".interval", cp.Interval)
	}
	c.positiveDuration(p+".timeout", cp.Timeout)
	c.nonNegativeDuration(p+".min_pause", cp.MinPause)
	if mode != CheckpointStopTheWorld { // one at a time by its nature
		c.atLeast(p+".max_concurrent", cp.MaxConcurrent, 1)
	}
	if cp.TolerableFailures < -1 {
		c.errorf(p+".tolerable_failures", "must be at least -1 (-1 for no limit), got %d", cp.TolerableFailures)
	}
	if mode == CheckpointUnaligned {
		c.nonNegativeDuration(p+".aligned_timeout", cp.AlignedTimeout)
	}
	st, sp := cp.Storage, p+".storage"
	if bw := st.Bandwidth; bw < 0 || math.IsNaN(bw) || math.IsInf(bw, 0) || bw == 0 && c.s.given(sp+".bandwidth") {
		c.errorf(sp+".bandwidth", "must be greater than 0, got %s", FormatBandwidth(bw))
	}
	c.nonNegativeDuration(sp+".latency", st.Latency)
	if cp.Incremental && backend != "" && backend != BackendRocksDB {
		c.errorf(p+".incremental", "incremental checkpoints need state_backend type rocksdb (heap state is snapshotted in full), got %s",
			c.shown("state_backend.type", backend))
	}
	return mode
}

// stateBackend checks the state backend and returns its type ("" if
// invalid). A zero StateBackend is DefaultStateBackend(); Type "" is heap.
func (c *checker) stateBackend(p string, b StateBackend) string {
	if b == (StateBackend{}) && !c.s.given(p) {
		b = DefaultStateBackend()
	}
	typ := c.orDefault(p+".type", b.Type, BackendHeap)
	if !c.enum(p+".type", "type", typ, backends) {
		return ""
	}
	c.nonNegativeDuration(p+".access_time", b.AccessTime)
	if typ == BackendHeap {
		if b.GCInterval > 0 && b.GCInterval < MinGCInterval {
			c.errorf(p+".gc_interval", "must be 0 (off) or at least %s (each interval pauses every worker), got %s",
				FormatDuration(MinGCInterval), FormatDuration(b.GCInterval))
		} else {
			c.nonNegativeDuration(p+".gc_interval", b.GCInterval)
		}
		c.nonNegativeDuration(p+".gc_pause_per_gib", b.GCPausePerGiB)
	}
	return typ
}

// restart checks the restart strategy: the fields of its type. A zero
// RestartStrategy is DefaultRestart(); Type "" is fixed-delay.
func (c *checker) restart(p string, r RestartStrategy) {
	if r == (RestartStrategy{}) && !c.s.given(p) {
		r = DefaultRestart()
	}
	typ := c.orDefault(p+".type", r.Type, RestartFixedDelay)
	if !c.enum(p+".type", "type", typ, restartTypes) {
		return
	}
	attempts := func() {
		if r.Attempts < -1 {
			c.errorf(p+".attempts", "must be at least -1 (-1 for no limit), got %d", r.Attempts)
		}
	}
	switch typ {
	case RestartFixedDelay:
		attempts()
		c.nonNegativeDuration(p+".delay", r.Delay)
	case RestartExponentialDelay:
		attempts()
		c.positiveDuration(p+".initial_backoff", r.InitialBackoff)
		if r.MaxBackoff < r.InitialBackoff && r.InitialBackoff > 0 && !c.isBad(p+".initial_backoff") {
			c.errorf(p+".max_backoff", "must not be less than initial_backoff (%s), got %s",
				FormatDuration(r.InitialBackoff), FormatDuration(r.MaxBackoff))
		} else {
			c.positiveDuration(p+".max_backoff", r.MaxBackoff)
		}
		if !(r.Multiplier >= 1) || math.IsInf(r.Multiplier, 0) {
			c.errorf(p+".multiplier", "must be a number of at least 1 (each backoff is the previous one times multiplier), got %s", formatFloat(r.Multiplier))
		}
		if !(r.Jitter >= 0 && r.Jitter < 1) {
			c.errorf(p+".jitter", "must be at least 0 and less than 1 (a fraction of the backoff), got %s", formatFloat(r.Jitter))
		}
		c.positiveDuration(p+".reset_threshold", r.ResetThreshold)
	case RestartFailureRate:
		c.nonNegativeDuration(p+".delay", r.Delay)
		c.atLeast(p+".max_failures_per_interval", r.MaxFailuresPerInterval, 1)
		c.positiveDuration(p+".failure_rate_interval", r.FailureRateInterval)
	}
}

// highAvailability checks the JobManager's high availability; Type "" is
// none.
func (c *checker) highAvailability(p string, h HighAvailability) {
	typ := c.orDefault(p+".type", h.Type, HANone)
	if c.enum(p+".type", "type", typ, haTypes) && typ == HAZooKeeper {
		c.nonNegativeDuration(p+".leader_election", h.LeaderElection)
	}
}

// keyedState checks the keyed state of the operator at path p.
func (c *checker) keyedState(p string, op Operator) {
	sp := p + ".state"
	switch n := op.State.BytesPerKey; {
	case n <= 0:
		c.errorf(sp+".bytes_per_key", "must be greater than 0, got %s", FormatByteSize(n))
	case n > MaxBytesPerKey:
		c.errorf(sp+".bytes_per_key", "must be at most %s, got %s", FormatByteSize(MaxBytesPerKey), FormatByteSize(n))
	}
	if op.Partitioning != PartitionHash && contains(partitionings, op.Partitioning) && !c.isBad(p+".partitioning") {
		c.errorf(sp, "keyed state needs keyBy (partitioning: hash), but the partitioning is %s",
			c.shown(p+".partitioning", op.Partitioning))
	}
}

// delivery checks the delivery guarantee of a sink; mode is the
// checkpoint mode ("" if invalid). Delivery "" is at-least-once.
func (c *checker) delivery(path, v, mode string) {
	v = c.orDefault(path, v, DeliveryAtLeastOnce)
	norm := strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(strings.TrimSpace(v)))
	if norm == "exactly-once" || norm == "exactlyonce" {
		c.errorf(path, "unknown delivery %s; did you mean %q? (the two-phase-commit sink that Flink calls exactly-once; %s also gives exactly-once results)",
			quote(v), DeliveryTransactional, DeliveryIdempotent)
		return
	}
	if c.enum(path, "delivery", v, deliveries) && v == DeliveryTransactional && mode == CheckpointNone {
		c.errorf(path, "transactional needs checkpoints: its output becomes visible when the checkpoint that covers it completes, but checkpoint.mode is %s",
			c.shown("checkpoint.mode", mode))
	}
}

// failure checks one failure: its kind, its time, and that what it
// targets exists.
func (c *checker) failure(p string, f Failure) {
	s := c.s
	if !c.enum(p+".kind", "kind", f.Kind, failureKinds) {
		return
	}
	mp := p + ".mtbf"
	random := f.MTBF > 0 && contains(randomFailureKinds, f.Kind)
	switch {
	case f.MTBF < 0 || f.MTBF == 0 && s.given(mp):
		c.errorf(mp, "must be greater than 0, got %s", FormatDuration(f.MTBF))
		return
	case f.MTBF > 0 && !random:
		c.errorf(mp, "%q applies only to kind %s, not %s", "mtbf", orList(randomFailureKinds), f.Kind)
	case random && f.MTBF < MinMTBF:
		c.errorf(mp, "must be at least %s (failures more often than that would only keep the job restarting), got %s",
			FormatDuration(MinMTBF), FormatDuration(f.MTBF))
		return
	case random:
		return // the target is drawn at random
	}
	ap := p + ".at"
	switch {
	case f.At < 0:
		c.nonNegativeDuration(ap, f.At)
	case s.Duration > 0 && f.At >= s.Duration && !c.isBad("duration"):
		c.errorf(ap, "must be before the end of the run (duration %s), got %s", FormatDuration(s.Duration), FormatDuration(f.At))
	}
	switch f.Kind {
	case FailureTask:
		c.failedSubtask(p, f)
	case FailureWorker:
		c.failedWorker(p, f)
	case FailureSlowdown:
		if f.Vertex != "" {
			c.failedSubtask(p, f)
		} else {
			c.failedWorker(p, f)
		}
		fp := p + ".factor"
		switch x := f.Factor; {
		case x == 0 && !s.given(fp):
		case !(x > 1):
			c.errorf(fp, "must be a number greater than 1 (service times are multiplied by it), got %s", formatFloat(x))
		case x > MaxSlowdownFactor:
			c.errorf(fp, "must be at most %s, got %s", formatFloat(MaxSlowdownFactor), formatFloat(x))
		}
	case FailureNetworkPartition:
		c.failedWorker(p, f)
	}
	switch f.Kind {
	case FailureSlowdown, FailureNetworkPartition, FailureStorageOutage:
		c.positiveDuration(p+".duration", f.Duration)
	}
}

// failedSubtask checks the vertex and subtask of a failure.
func (c *checker) failedSubtask(p string, f Failure) {
	vp := p + ".vertex"
	if f.Vertex == "" {
		c.errorf(vp, "must name the vertex whose subtask fails")
		return
	}
	if c.parallelism == nil {
		c.parallelism = map[string]int{}
		for _, v := range c.s.vertices() {
			if _, dup := c.parallelism[v.name]; !dup && v.name != "" {
				c.parallelism[v.name] = v.parallelism
				c.names = append(c.names, v.name)
			}
		}
	}
	par, ok := c.parallelism[f.Vertex]
	if !ok {
		msg := fmt.Sprintf("unknown vertex %s", quote(f.Vertex))
		if sug := c.suggestName(f.Vertex, c.names); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		} else if len(c.names) > 0 && len(c.names) <= 10 {
			shown := make([]string, len(c.names))
			for i, name := range c.names {
				shown[i] = displayName(name)
			}
			msg += "; vertices are " + strings.Join(shown, ", ")
		}
		c.errorf(vp, "%s", msg)
		return
	}
	if par >= 1 && (f.Subtask < 0 || f.Subtask >= par) {
		c.errorf(p+".subtask", "%s, got %d", rangeText(par, fmt.Sprintf("%s has parallelism %d", quote(f.Vertex), par)), f.Subtask)
	}
}

// failedWorker checks the worker of a failure.
func (c *checker) failedWorker(p string, f Failure) {
	n := c.s.Workers.Count
	if n >= 1 && (f.Worker < 0 || f.Worker >= n) && !c.isBad("workers.count") {
		c.errorf(p+".worker", "%s, got %d", rangeText(n, fmt.Sprintf("workers.count is %d", n)), f.Worker)
	}
}

// rangeText says that an index must be in [0, n).
func rangeText(n int, why string) string {
	if n == 1 {
		return fmt.Sprintf("must be 0 (%s)", why)
	}
	return fmt.Sprintf("must be from 0 to %d (%s)", n-1, why)
}

func (c *checker) name(path, name string) {
	switch {
	case name == "":
		c.errorf(path, "must not be empty")
	case len(name) > MaxNameLength:
		c.errorf(path, "must be at most %d characters long, got %d", MaxNameLength, len(name))
	case !reName.MatchString(name) && reName.MatchString("_"+name):
		c.errorf(path, "must not start with - or . (it would read as a flag or a hidden file), got %s", quote(name))
	case !reName.MatchString(name):
		c.errorf(path, "expected a name of ASCII letters, digits, _, - and . such as parse_2, got %s", quote(name))
	}
}

// text checks a one-line label (the scenario's name or description): no
// control characters, line breaks or bidirectional controls, and at most
// maxLen characters (0: no limit).
func (c *checker) text(path, s string, maxLen int) {
	if !utf8.ValidString(s) {
		c.errorf(path, "must be one line of printable text (found bytes that are not UTF-8)")
		return
	}
	for _, r := range s {
		if what := badTextRune(r); what != "" {
			c.errorf(path, "must be one line of printable text (found %s U+%04X)", what, r)
			return
		}
	}
	if n := utf8.RuneCountInString(s); maxLen > 0 && n > maxLen {
		c.errorf(path, "must be at most %d characters long (one line of a listing), got %d", maxLen, n)
	}
}

// badTextRune says what r is if a name or description may not hold it:
// "a control character" (newline, tab, ESC, ...), "a line separator",
// "a paragraph separator" or "a bidirectional control character" (which
// reorders the text a terminal shows); "" if r is fine.
func badTextRune(r rune) string {
	switch {
	case unicode.IsControl(r):
		return "a control character"
	case r == '\u2028':
		return "a line separator"
	case r == '\u2029':
		return "a paragraph separator"
	case r == '\u061C' || r == '\u200E' || r == '\u200F' || r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069':
		return "a bidirectional control character"
	}
	return ""
}

func (c *checker) source(p string, src Source) {
	c.name(p+".name", src.Name)
	c.atLeast(p+".parallelism", src.Parallelism, 1)
	a, ap := src.Arrival, p+".arrival"
	if c.enum(ap+".process", "process", a.Process, processes) {
		switch a.Process {
		case ArrivalConstant, ArrivalPoisson:
			c.rate(ap+".rate", a.Rate, false)
		case ArrivalBursty:
			c.rate(ap+".rate", a.Rate, false)
			c.rate(ap+".off_rate", a.OffRate, true)
			c.positiveDuration(ap+".on_time", a.On)
			c.positiveDuration(ap+".off_time", a.Off)
		case ArrivalSchedule:
			c.schedule(ap+".schedule", a.Schedule)
		case ArrivalTrace:
			c.trace(ap+".trace", a.Trace)
		}
	}
	k, kp := src.Keys, p+".keys"
	c.atLeast(kp+".count", k.Count, 1)
	if c.enum(kp+".distribution", "distribution", k.Distribution, keyDists) && k.Distribution == KeysZipf {
		if !(k.Exponent > 0) || math.IsInf(k.Exponent, 0) {
			c.errorf(kp+".exponent", "must be greater than 0, got %s", formatFloat(k.Exponent))
		}
		if k.Count > MaxZipfKeys {
			c.errorf(kp+".count", "must be at most %d for zipf (the simulator keeps a table of every key's share), got %d", MaxZipfKeys, k.Count)
		}
	}
	switch {
	case src.RecordSize <= 0:
		c.errorf(p+".record_size", "must be greater than 0, got %s", FormatByteSize(src.RecordSize))
	case src.RecordSize > MaxRecordSize:
		c.errorf(p+".record_size", "must be at most %s, got %s", FormatByteSize(MaxRecordSize), FormatByteSize(src.RecordSize))
	}
	switch mp := p + ".max_rate"; {
	case src.MaxRate == 0 && c.s.given(mp):
		c.errorf(mp, "must be greater than 0 (leave max_rate out for no limit), got %s", FormatRate(src.MaxRate))
	case src.MaxRate != 0:
		c.rate(mp, src.MaxRate, false)
	}
	if !src.Replayable {
		c.enum(p+".on_backpressure", "on_backpressure", src.OnBackpressure, onBackpressures)
		if src.OnBackpressure == OnBackpressureBuffer {
			c.atLeast(p+".buffer_limit", src.BufferLimit, 1)
		}
	}
}

func (c *checker) schedule(p string, steps []RateStep) {
	if len(steps) == 0 {
		c.errorf(p, "needs at least one step such as {at: 0s, rate: 100/s}")
		return
	}
	for i, st := range steps {
		sp := strictyaml.Index(p, i)
		if c.isBad(sp) {
			continue
		}
		switch {
		case i == 0 && st.At != 0:
			c.errorf(sp+".at", "the first step must be at 0s, got %s", FormatDuration(st.At))
		case i > 0 && !c.isBad(strictyaml.Index(p, i-1)+".at") && st.At <= steps[i-1].At:
			c.errorf(sp+".at", "steps must be in increasing order of at, but %s is not after %s",
				FormatDuration(st.At), FormatDuration(steps[i-1].At))
		}
		c.rate(sp+".rate", st.Rate, true)
	}
}

func (c *checker) serviceTime(p string, st ServiceTime) {
	if !c.enum(p+".distribution", "distribution", st.Distribution, distributions) {
		return
	}
	switch st.Distribution {
	case DistConstant:
		c.nonNegativeDuration(p+".mean", st.Mean)
	case DistExponential:
		c.positiveDuration(p+".mean", st.Mean)
	case DistUniform:
		c.nonNegativeDuration(p+".min", st.Min)
		c.nonNegativeDuration(p+".max", st.Max)
		if st.Min > st.Max && !c.isBad(p+".min") {
			c.errorf(p+".max", "must not be less than min (%s), got %s", FormatDuration(st.Min), FormatDuration(st.Max))
		}
	case DistLognormal:
		c.positiveDuration(p+".mean", st.Mean)
		c.positiveDuration(p+".stddev", st.Stddev)
	}
}

// vertex checks what operators and sinks share, except the graph.
func (c *checker) vertex(p, name string, par, maxPar int, partitioning string, n Network) {
	c.name(p+".name", name)
	c.atLeast(p+".parallelism", par, 1)
	switch {
	case maxPar < 1:
		c.atLeast(p+".max_parallelism", maxPar, 1)
	case maxPar > MaxMaxParallelism:
		c.errorf(p+".max_parallelism", "must be at most %d, got %d", MaxMaxParallelism, maxPar)
	case par > maxPar && !c.isBad(p+".max_parallelism"):
		if c.s.given(p + ".max_parallelism") {
			c.errorf(p+".max_parallelism", "must not be less than parallelism (%d), got %d", par, maxPar)
		} else {
			c.errorf(p+".parallelism", "must be at most %d, the largest max parallelism", maxPar)
		}
	}
	c.enum(p+".partitioning", "partitioning", partitioning, partitionings)
	c.network(p+".network", n, &c.s.Network)
}

// vertex is a source, operator or sink, as the graph checks see it.
type vertex struct {
	kind         string // "sources", "operators" or "sinks"
	index        int    // in its list
	name         string
	parallelism  int
	inputs       []string
	partitioning string
}

func (v *vertex) path() string { return strictyaml.Index(v.kind, v.index) }

// vertices lists the vertices of s: sources, operators, then sinks, each in
// declaration order.
func (s *Scenario) vertices() []*vertex {
	var vs []*vertex
	for i, x := range s.Sources {
		vs = append(vs, &vertex{kind: "sources", index: i, name: x.Name, parallelism: x.Parallelism})
	}
	for i, x := range s.Operators {
		vs = append(vs, &vertex{kind: "operators", index: i, name: x.Name, parallelism: x.Parallelism,
			inputs: x.Inputs, partitioning: x.Partitioning})
	}
	for i, x := range s.Sinks {
		vs = append(vs, &vertex{kind: "sinks", index: i, name: x.Name, parallelism: x.Parallelism,
			inputs: x.Inputs, partitioning: x.Partitioning})
	}
	return vs
}

// inputPath is the path of input j of v: "operators[0].input" when the
// scenario gave one input with input:, else "operators[0].inputs[j]".
func (c *checker) inputPath(v *vertex, j int) string {
	if one := v.path() + ".input"; c.s.given(one) || c.bad[one] {
		return one
	}
	return strictyaml.Index(v.path()+".inputs", j)
}

// edges returns, for each vertex index, the indices of its valid inputs
// (existing, not sinks), using the first vertex of each name.
func edges(vs []*vertex) (byName map[string]int, in [][]int) {
	byName = map[string]int{}
	for i, v := range vs {
		if _, dup := byName[v.name]; !dup && v.name != "" {
			byName[v.name] = i
		}
	}
	in = make([][]int, len(vs))
	for i, v := range vs {
		for _, name := range v.inputs {
			if u, ok := byName[name]; ok && vs[u].kind != "sinks" {
				in[i] = append(in[i], u)
			}
		}
	}
	return byName, in
}

// graph checks the job graph.
func (c *checker) graph() {
	s := c.s
	vs := s.vertices()
	byName, in := edges(vs)
	var names, shown []string
	unnamed := false // a vertex whose name is unknown: a dangling input may be meant for it
	for i, v := range vs {
		if v.name == "" {
			unnamed = true
			continue
		}
		if first := byName[v.name]; first != i {
			line, _ := s.Pos(vs[first].path() + ".name")
			c.errorf(v.path()+".name", "duplicate vertex name %s; first declared at line %d", quote(v.name), line)
			continue
		}
		names = append(names, v.name)
		shown = append(shown, displayName(v.name))
	}
	for _, v := range vs {
		for j, name := range v.inputs {
			u, ok := byName[name]
			switch {
			case !ok && unnamed:
			case !ok:
				msg := fmt.Sprintf("unknown vertex %s", quote(name))
				if sug := c.suggestName(name, names); sug != "" {
					msg += fmt.Sprintf("; did you mean %q?", sug)
				} else if len(names) > 0 && len(names) <= 10 {
					msg += "; vertices are " + strings.Join(shown, ", ")
				}
				c.errorf(c.inputPath(v, j), "%s", msg)
			case vs[u].kind == "sinks":
				c.errorf(c.inputPath(v, j), "%s is a sink; a sink has no output to read from", quote(name))
			}
		}
	}
	c.cycles(vs, in)
	for i, v := range vs {
		if v.partitioning != PartitionForward {
			continue
		}
		for _, u := range in[i] {
			if w := vs[u]; w.parallelism != v.parallelism && w.parallelism > 0 && v.parallelism > 0 {
				c.errorf(v.path()+".partitioning",
					"forward needs equal parallelism, but %s has %d and %s has %d; use rebalance, rescale or hash",
					quote(w.name), w.parallelism, quote(v.name), v.parallelism)
				break
			}
		}
	}
	if len(s.Sources) == 0 {
		c.errorf("sources", "the job has no source; add one under sources")
	}
	if len(s.Sinks) == 0 {
		c.errorf("sinks", "the job has no sink; add one under sinks")
	}
	if s.Workers.Count >= 1 && s.Workers.Slots >= 1 {
		slots := int64(s.Workers.Count) * int64(s.Workers.Slots)
		var top *vertex
		for _, v := range vs {
			if int64(v.parallelism) > slots && (top == nil || v.parallelism > top.parallelism) {
				top = v
			}
		}
		if top != nil && !c.isBad("workers") {
			c.errorf(top.path()+".parallelism", "needs %d slots, the cluster has %d (workers.count %d x workers.slots %d)",
				top.parallelism, slots, s.Workers.Count, s.Workers.Slots)
		}
	}
}

// cycles reports each cycle of the job graph once per strongly connected
// component, as "a -> b -> a" starting at its first-declared vertex.
func (c *checker) cycles(vs []*vertex, in [][]int) {
	out := make([][]int, len(vs))
	for v, us := range in {
		for _, u := range us {
			out[u] = append(out[u], v)
		}
	}
	for _, comp := range sccs(out) {
		start := comp[0]
		for _, v := range comp {
			start = min(start, v)
		}
		member := map[int]bool{}
		for _, v := range comp {
			member[v] = true
		}
		if len(comp) == 1 && !slices.Contains(out[start], start) {
			continue
		}
		// Shortest path from start back to start, inside the component.
		prev := map[int]int{}
		queue := []int{start}
		found := -1
		for len(queue) > 0 && found < 0 {
			u := queue[0]
			queue = queue[1:]
			for _, w := range out[u] {
				if w == start {
					found = u
					break
				}
				if _, seen := prev[w]; !seen && member[w] {
					prev[w] = u
					queue = append(queue, w)
				}
			}
		}
		if found < 0 {
			continue
		}
		chain := []int{start}
		for u := found; u != start; u = prev[u] {
			chain = append(chain, u)
		}
		chain = append(chain, start)
		// chain is start <- found <- ... <- start; reverse to follow edges.
		for i, j := 1, len(chain)-2; i < j; i, j = i+1, j-1 {
			chain[i], chain[j] = chain[j], chain[i]
		}
		names := make([]string, len(chain))
		for i, v := range chain {
			names[i] = displayName(vs[v].name)
		}
		closing := 0
		for j, name := range vs[start].inputs {
			if name == vs[found].name {
				closing = j
				break
			}
		}
		c.errorf(c.inputPath(vs[start], closing), "cycle in the job graph: %s", strings.Join(names, " -> "))
	}
}

// sccs returns the strongly connected components of the graph given by
// adjacency lists (Tarjan's algorithm, iterative).
func sccs(out [][]int) [][]int {
	n := len(out)
	idx := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range idx {
		idx[i] = -1
	}
	var comps [][]int
	var st []int
	next := 0
	type frame struct{ v, i int }
	for root := 0; root < n; root++ {
		if idx[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		idx[root], low[root] = next, next
		next++
		st = append(st, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.i < len(out[f.v]) {
				w := out[f.v][f.i]
				f.i++
				if idx[w] < 0 {
					idx[w], low[w] = next, next
					next++
					st = append(st, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], idx[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == idx[v] {
				var comp []int
				for {
					w := st[len(st)-1]
					st = st[:len(st)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

// Parallelisms returns the parallelism of every vertex, by name.
func (s *Scenario) Parallelisms() map[string]int {
	par := make(map[string]int, len(s.Sources)+len(s.Operators)+len(s.Sinks))
	for _, v := range s.Sources {
		par[v.Name] = v.Parallelism
	}
	for _, v := range s.Operators {
		par[v.Name] = v.Parallelism
	}
	for _, v := range s.Sinks {
		par[v.Name] = v.Parallelism
	}
	return par
}

// Topo returns the names of the vertices in a topological order of the job
// graph: every vertex after its inputs, sources first, ties broken by
// declaration order (sources, then operators, then sinks, each as listed),
// so the order is deterministic. Vertices on a cycle (only in a Scenario
// that fails Validate) come last, in declaration order.
func (s *Scenario) Topo() []string {
	vs := s.vertices()
	_, in := edges(vs)
	indeg := make([]int, len(vs))
	out := make([][]int, len(vs))
	for v, us := range in {
		indeg[v] = len(us)
		for _, u := range us {
			out[u] = append(out[u], v)
		}
	}
	ready := &intHeap{}
	for v := range vs {
		if indeg[v] == 0 {
			heap.Push(ready, v)
		}
	}
	order := make([]string, 0, len(vs))
	done := make([]bool, len(vs))
	for ready.Len() > 0 {
		u := heap.Pop(ready).(int)
		done[u] = true
		order = append(order, vs[u].name)
		for _, v := range out[u] {
			if indeg[v]--; indeg[v] == 0 {
				heap.Push(ready, v)
			}
		}
	}
	for v, ok := range done {
		if !ok {
			order = append(order, vs[v].name)
		}
	}
	return order
}

// intHeap is a min-heap of vertex indices (container/heap.Interface).
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
