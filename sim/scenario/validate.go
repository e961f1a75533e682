package scenario

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

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

// validate returns the errors of s; bad holds paths already reported by
// the decoder. The checks of single fields come from the description
// (check.go); what follows relates fields to each other.
func (s *Scenario) validate(bad map[string]bool) ErrorList {
	s = s.zeroDefaults(fillZero)
	c := &checker{s: s, bad: bad, reported: map[string]bool{}}
	c.fields(topMapping, reflect.ValueOf(s).Elem(), "", reflect.Value{})
	c.validateSpark()
	if s.Duration > 0 && s.Warmup > 0 && s.Warmup >= s.Duration && !c.isBad(kDuration) {
		c.errorf(kWarmup, "must be shorter than duration (%s), got %s", FormatDuration(s.Duration), FormatDuration(s.Warmup))
	}
	cp := s.Checkpoint
	if cp.Mode != CheckpointNone && cp.Incremental && s.StateBackend.Type != BackendRocksDB && contains(backendMapping.Field(kType).values(), s.StateBackend.Type) {
		c.errorf(kCheckpoint+"."+kIncremental, "incremental checkpoints need state_backend type rocksdb (heap state is snapshotted in full), got %s",
			c.shown(kStateBackend+"."+kType, s.StateBackend.Type))
	}
	if r := s.Restart; r.Type == RestartExponentialDelay && r.MaxBackoff < r.InitialBackoff && r.InitialBackoff > 0 && !c.isBad(kRestart+"."+kInitialBackoff) {
		c.errorf(kRestart+"."+kMaxBackoff, "must not be less than initial_backoff (%s), got %s",
			FormatDuration(r.InitialBackoff), FormatDuration(r.MaxBackoff))
	}
	for i, src := range s.Sources {
		p := strictyaml.Index(kSources, i)
		if a := src.Arrival; a.Process == ArrivalSchedule {
			c.schedule(p+"."+kArrival+"."+kSchedule, a.Schedule)
		} else if a.Process == ArrivalTrace {
			c.trace(p+"."+kArrival+"."+kTrace, a.Trace)
		}
		if k := src.Keys; k.Distribution == KeysZipf && k.Count > MaxZipfKeys && src.Arrival.Process != ArrivalTrace {
			c.errorf(p+"."+kKeys+"."+kCount, "must be at most %d for zipf (the simulator keeps a table of every key's share), got %d", MaxZipfKeys, k.Count)
		}
		c.eventTime(p, src)
	}
	c.topics()
	c.shedding()
	c.queues()
	c.consumerGroups()
	par := s.Parallelisms()
	for i, op := range s.Operators {
		p := strictyaml.Index(kOperators, i)
		c.vertex(p, op.Parallelism, op.MaxParallelism, op.ServiceTime)
		if op.State != nil && op.Partitioning != PartitionHash && !c.isBad(p+"."+kPartitioning) {
			if op.Partitioning == "" {
				c.errorf(p+"."+kState, "keyed state needs keyBy (partitioning: hash), but the partitioning is %s", inputDefaults(op.Inputs, op.Parallelism, par))
			} else if contains(partitionings(), op.Partitioning) {
				c.errorf(p+"."+kState, "keyed state needs keyBy (partitioning: hash), but the partitioning is %s", c.shown(p+"."+kPartitioning, op.Partitioning))
			}
		}
		if op.Window != nil {
			c.window(p, op, par)
		}
		if op.Join != nil {
			c.join(p, op, par)
		}
		if op.Timer != nil && op.Partitioning != PartitionHash && !c.isBad(p+"."+kPartitioning) {
			got := c.shown(p+"."+kPartitioning, op.Partitioning)
			if op.Partitioning == "" {
				got = inputDefaults(op.Inputs, op.Parallelism, par)
			}
			c.errorf(p+"."+kTimer, "timers are per key: they need keyBy (partitioning: hash), but the partitioning is %s", got)
		}
		if op.Timer != nil && (op.Window != nil || op.Join != nil) {
			c.errorf(p+"."+kTimer, "an operator is a window, a join or a timer, one of them")
		}
	}
	for i, sk := range s.Sinks {
		p := strictyaml.Index(kSinks, i)
		c.vertex(p, sk.Parallelism, sk.MaxParallelism, sk.ServiceTime)
		if sk.Delivery == DeliveryTransactional && cp.Mode == CheckpointNone {
			c.errorf(p+"."+kDelivery, "transactional needs checkpoints: its output becomes visible when the checkpoint that covers it completes, but checkpoint.mode is %s",
				c.shown(kCheckpoint+"."+kMode, cp.Mode))
		}
	}
	c.graph()
	c.streamingGraphs()
	for i, f := range s.Failures {
		c.failure(strictyaml.Index(kFailures, i), f)
	}
	return c.errs
}

func partitionings() []string { return operatorMapping.Field(kPartitioning).values() }

// shown is how a value of an enum field appears in a message: with "(the
// default)" when it was not written.
// inputDefaults says which partitioning the input edges of a vertex of
// parallelism p get when it names none (DefaultPartitioning per edge):
// "forward (the default)", or "forward and rebalance (the defaults of its
// inputs)" when its inputs differ.
func inputDefaults(inputs []string, p int, par map[string]int) string {
	var names []string
	for _, in := range inputs {
		if d := DefaultPartitioning(par[in], p); !slices.Contains(names, d) {
			names = append(names, d)
		}
	}
	if len(names) == 1 {
		return names[0] + " (the default)"
	}
	return strings.Join(names, " and ") + " (the defaults of its inputs)"
}

func (c *checker) shown(path, v string) string {
	if c.s.given(path) {
		return v
	}
	return v + " (the default)"
}

func (c *checker) schedule(p string, steps []RateStep) {
	if len(steps) == 0 {
		c.errorf(p, "needs at least one step such as {at: 0s, rate: 100/s}")
		return
	}
	for i, st := range steps {
		sp := strictyaml.Index(p, i)
		switch {
		case c.isBad(sp):
		case i == 0 && st.At != 0:
			c.errorf(sp+"."+kAt, "the first step must be at 0s, got %s", FormatDuration(st.At))
		case i > 0 && !c.isBad(strictyaml.Index(p, i-1)+"."+kAt) && st.At <= steps[i-1].At:
			c.errorf(sp+"."+kAt, "steps must be in increasing order of at, but %s is not after %s",
				FormatDuration(st.At), FormatDuration(steps[i-1].At))
		}
	}
}

// vertex checks what relates the fields of an operator or a sink.
func (c *checker) vertex(p string, par, maxPar int, st ServiceTime) {
	if par > maxPar && maxPar >= 1 && maxPar <= MaxMaxParallelism && !c.isBad(p+"."+kMaxParallelism) {
		if c.s.given(p + "." + kMaxParallelism) {
			c.errorf(p+"."+kMaxParallelism, "must not be less than parallelism (%d), got %d", par, maxPar)
		} else {
			c.errorf(p+"."+kParallelism, "must be at most %d, the largest max parallelism", maxPar)
		}
	}
	sp := p + "." + kServiceTime
	switch {
	case st.Distribution == DistUniform && st.Min > st.Max && st.Max >= 0 && !c.isBad(sp+"."+kMin):
		c.errorf(sp+"."+kMax, "must not be less than min (%s), got %s", FormatDuration(st.Min), FormatDuration(st.Max))
	case (st.Distribution == DistExponential || st.Distribution == DistLognormal) && st.Mean <= 0:
		c.errorf(sp+"."+kMean, "must be greater than 0, got %s", FormatDuration(st.Mean))
	}
}

// inputPath is the path of input j of v: "operators[0].input" when the
// scenario gave one input with input:, else "operators[0].inputs[j]".
func (c *checker) inputPath(v *vertex, j int) string {
	if one := v.path() + "." + kInput; c.s.given(one) || c.bad[one] {
		return one
	}
	return strictyaml.Index(v.path()+"."+kInputs, j)
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
			line, _ := s.Pos(vs[first].path() + "." + kName)
			c.errorf(v.path()+"."+kName, "duplicate vertex name %s; first declared at line %d", quote(v.name), line)
			continue
		}
		names = append(names, v.name)
		shown = append(shown, displayName(v.name))
	}
	for _, v := range vs {
		if v.lateOutput == "" {
			continue
		}
		if first, ok := byName[v.lateOutput]; ok && (vs[first] != v || v.lateOutput == v.name) {
			line, _ := s.Pos(vs[first].path() + "." + kName)
			c.errorf(v.path()+"."+kWindow+"."+kLateOutput, "%s is already the name of a vertex (line %d) or of another late output; a late output needs a name of its own", quote(v.lateOutput), line)
			continue
		}
		names = append(names, v.lateOutput)
		shown = append(shown, displayName(v.lateOutput))
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
			case vs[u].kind == kSinks:
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
				c.errorf(v.path()+"."+kPartitioning,
					"forward needs equal parallelism, but %s has %d and %s has %d; use rebalance, rescale or hash",
					quote(w.name), w.parallelism, quote(v.name), v.parallelism)
				break
			}
		}
	}
	if len(s.Sources) == 0 {
		c.errorf(kSources, "the job has no source; add one under sources")
	}
	if len(s.Sinks) == 0 && len(s.ConsumerGroups) == 0 {
		c.errorf(kSinks, "the job has no sink; add one under sinks")
	}
	// a micro-batch job runs its partitions' tasks in waves on the
	// executor cores: any parallelism fits
	if s.Workers.Count >= 1 && s.Workers.Slots >= 1 && !s.IsMicroBatch() {
		slots := int64(s.Workers.Count) * int64(s.Workers.Slots)
		var top *vertex
		for _, v := range vs {
			if int64(v.parallelism) > slots && (top == nil || v.parallelism > top.parallelism) {
				top = v
			}
		}
		if top != nil && !c.isBad(kWorkers) {
			c.errorf(top.path()+"."+kParallelism, "needs %d slots, the cluster has %d (workers.count %d x workers.slots %d)",
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

// failure checks what a failure relates to: its time within the run, and
// that what it targets exists.
func (c *checker) failure(p string, f Failure) {
	s := c.s
	if !contains(failureMapping.Field(kKind).values(), f.Kind) || c.isBad(p+"."+kMTBF) {
		return
	}
	if only := failureMapping.Field(kMTBF).Only; f.MTBF > 0 && !only.holds(f.Kind) {
		c.errorf(p+"."+kMTBF, "%s", only.notApplies(kMTBF, f.Kind))
	}
	if f.MTBF > 0 || c.s.given(p+"."+kMTBF) {
		return // random (mtbf: 0s too, refused as a field): the target is drawn at random
	}
	if s.Duration > 0 && f.At >= s.Duration && !c.isBad(kDuration) {
		c.errorf(p+"."+kAt, "must be before the end of the run (duration %s), got %s", FormatDuration(s.Duration), FormatDuration(f.At))
	}
	switch f.Kind {
	case FailureTask:
		c.failedSubtask(p, f)
	case FailureWorker, FailureNetworkPartition:
		c.failedWorker(p, f)
	case FailureConsumer:
		c.failedMember(p, f)
	case FailureSlowdown:
		if f.Vertex != "" {
			c.failedSubtask(p, f)
		} else {
			c.failedWorker(p, f)
		}
	}
}

// failedSubtask checks the vertex and subtask of a failure.
func (c *checker) failedSubtask(p string, f Failure) {
	vp := p + "." + kVertex
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
		c.errorf(p+"."+kSubtask, "%s, got %d", rangeText(par, fmt.Sprintf("%s has parallelism %d", quote(f.Vertex), par)), f.Subtask)
	}
}

// failedWorker checks the worker of a failure.
func (c *checker) failedWorker(p string, f Failure) {
	n := c.s.Workers.Count
	if n >= 1 && (f.Worker < 0 || f.Worker >= n) && !c.isBad(kWorkers+"."+kCount) {
		c.errorf(p+"."+kWorker, "%s, got %d", rangeText(n, fmt.Sprintf("workers.count is %d", n)), f.Worker)
	}
}

// eventTime checks the event-time settings of source src at path p
// against each other.
func (c *checker) eventTime(p string, src Source) {
	if d := src.EventDelay; d != nil && d.Distribution == DelayUniform && d.Max > 0 && d.Max < d.Min && !c.isBad(p+"."+kEventDelay+"."+kMin) {
		c.errorf(p+"."+kEventDelay+"."+kMax, "must not be less than min (%s), got %s", FormatDuration(d.Min), FormatDuration(d.Max))
	}
	if w := src.Watermarks; w != nil && w.Idleness > 0 && w.AutoWatermarkInterval > 0 && w.Idleness < w.AutoWatermarkInterval {
		c.errorf(p+"."+kWatermarks+"."+kIdleness, "must be at least auto_watermark_interval (%s): idleness is checked at every watermark emission, got %s",
			FormatDuration(w.AutoWatermarkInterval), FormatDuration(w.Idleness))
	}
}

// window checks the window of operator op at path p against its other
// fields: Flink requires keyBy before window() (windowAll is the
// non-keyed form, at parallelism 1), a slide of at most the size, and
// allowed lateness only in event time.
func (c *checker) window(p string, op Operator, par map[string]int) {
	w := op.Window
	wp := p + "." + kWindow
	if op.Partitioning != PartitionHash && op.Parallelism > 1 && !c.isBad(p+"."+kPartitioning) {
		got := c.shown(p+"."+kPartitioning, op.Partitioning)
		if op.Partitioning == "" {
			got = inputDefaults(op.Inputs, op.Parallelism, par)
		}
		c.errorf(wp, "a keyed window needs keyBy (partitioning: hash), but the partitioning is %s; a window without keyBy (windowAll) runs at parallelism 1", got)
	}
	if w.Kind == WindowSliding && w.Slide > w.Size && w.Size > 0 && !c.isBad(wp+"."+kSize) {
		c.errorf(wp+"."+kSlide, "must not be larger than size (%s), got %s", FormatDuration(w.Size), FormatDuration(w.Slide))
	}
	if w.Time == TimeProcessing && w.AllowedLateness > 0 {
		c.errorf(wp+"."+kAllowedLateness, "applies to event-time windows only (no record is late in processing time), but time is processing")
	}
	if w.Kind == WindowGlobal && w.AllowedLateness > 0 {
		c.errorf(wp+"."+kAllowedLateness, "applies to event-time windows only, but a global window fires by count")
	}
	if w.LateOutput != "" && w.Time == TimeProcessing {
		c.errorf(wp+"."+kLateOutput, "applies to event-time windows only (no record is late in processing time), but time is processing")
	}
	if w.LateOutput != "" && w.Kind == WindowGlobal {
		c.errorf(wp+"."+kLateOutput, "applies to event-time windows only, but a global window fires by count")
	}
}

// join checks the join of operator op at path p: two inputs, both keyed
// (Flink joins KeyedStreams: where() and equalTo() are keyBy), and not a
// window at the same time.
func (c *checker) join(p string, op Operator, par map[string]int) {
	jp := p + "." + kJoin
	if len(op.Inputs) != 2 {
		c.errorf(jp, "a join needs two inputs (inputs: [left, right]), got %d", len(op.Inputs))
	}
	if op.Partitioning != PartitionHash && !c.isBad(p+"."+kPartitioning) {
		got := c.shown(p+"."+kPartitioning, op.Partitioning)
		if op.Partitioning == "" {
			got = inputDefaults(op.Inputs, op.Parallelism, par)
		}
		c.errorf(jp, "a join needs both inputs keyed (partitioning: hash), but the partitioning is %s", got)
	}
	if op.Window != nil {
		c.errorf(jp, "an operator is a window or a join, not both")
	}
}
