package scenario

import (
	"path/filepath"
	"reflect"
	"strings"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
)

// Defaults are applied here and nowhere else: the constant ones from the
// description (fields.go) by fillDefaults, the ones computed from other
// fields (max parallelism, state access time, partitioning, ...) by
// deriveDefaults. Parse uses both; WithDefaults and validation fill the
// zero values a Scenario built in Go may leave.

// fill says which defaults fillDefaults sets.
type fill int

const (
	fillAll      fill = iota // every field with a default (a new, zero item)
	fillZero                 // ZeroDefault fields and mappings left zero
	fillZeroMore             // fillZero, and FillZero fields left zero
)

// fillDefaults sets the defaults of mp in the struct v. With fillAll it
// sets every constant default (nested mappings too, not list items); with
// fillZero only the zero values that stand for a default in a Scenario
// built in Go, skipping paths given in the YAML text (given may be nil).
// It copies a slice before changing an item, so a shared one is left
// alone.
func fillDefaults(mp *Mapping, v reflect.Value, given func(string) bool) {
	fillAt(mp, v, "", fillAll, given)
}

func fillAt(mp *Mapping, v reflect.Value, path string, mode fill, given func(string) bool) {
	isGiven := func(p string) bool { return given != nil && given(p) }
	for _, f := range mp.Fields {
		if f.Go == "" {
			continue
		}
		p := strictyaml.Join(path, f.Name)
		fv := v.FieldByName(f.Go)
		switch {
		case f.Kind == KindMapping && fv.Kind() == reflect.Struct:
			sub := mode
			if mode != fillAll && f.Sub.ZeroDefault && fv.IsZero() && !isGiven(p) {
				sub = fillAll
			}
			fillAt(f.Sub, fv, p, sub, given)
		case f.Kind == KindMapping && fv.Kind() == reflect.Pointer:
			if mode != fillAll && !fv.IsNil() {
				fillAt(f.Sub, fv.Elem(), p, mode, given)
			}
		case f.Kind == KindList && f.Sub != nil:
			if mode == fillAll {
				continue
			}
			var cloned reflect.Value
			for i := range fv.Len() {
				item := reflect.New(fv.Type().Elem()).Elem()
				item.Set(fv.Index(i))
				fillAt(f.Sub, item, strictyaml.Index(p, i), mode, given)
				if !reflect.DeepEqual(item.Interface(), fv.Index(i).Interface()) {
					if !cloned.IsValid() {
						cloned = reflect.MakeSlice(fv.Type(), fv.Len(), fv.Len())
						reflect.Copy(cloned, fv)
						fv.Set(cloned)
					}
					fv.Index(i).Set(item)
				}
			}
		case f.Default == nil:
		case mode == fillAll:
			fv.Set(f.goValue(fv.Type()))
		case (f.ZeroDefault || f.FillZero && mode == fillZeroMore) && mode != fillAll && fv.IsZero() && !isGiven(p):
			fv.Set(f.goValue(fv.Type()))
		}
	}
}

// deriveDefaults sets the defaults that depend on other fields, for the
// fields not given: the scenario's name from its file, max parallelism
// from parallelism, the mean of a uniform service time, the state access
// time of the backend type, the GC pause once GC is on, and the
// partitioning from the parallelisms of the inputs.
func deriveDefaults(s *Scenario, given func(string) bool) {
	if s.Name == "" {
		s.Name = nameFromFile(s.File)
	}
	b := &s.StateBackend
	if !given(kStateBackend + "." + kAccessTime) {
		b.AccessTime = DefaultAccessTime(b.Type)
	}
	if !given(kStateBackend+"."+kGCPausePerGiB) && b.GCInterval > 0 {
		b.GCPausePerGiB = defaultGCPausePerGiB
	}
	vertex := func(path string, p int, maxPar *int, st *ServiceTime) {
		if !given(path + "." + kMaxParallelism) {
			*maxPar = DefaultMaxParallelism(p)
		}
		if st.Distribution == DistUniform {
			st.Mean = st.Min/2 + st.Max/2 + (st.Min%2+st.Max%2)/2
		}
	}
	for i := range s.Operators {
		op := &s.Operators[i]
		vertex(strictyaml.Index(kOperators, i), op.Parallelism, &op.MaxParallelism, &op.ServiceTime)
	}
	for i := range s.Sinks {
		sk := &s.Sinks[i]
		vertex(strictyaml.Index(kSinks, i), sk.Parallelism, &sk.MaxParallelism, &sk.ServiceTime)
	}
}

// DefaultPartitioning is the partitioning of an edge from up to down
// subtasks whose vertex names none: forward when the parallelisms are
// equal, else rebalance, as Flink's StreamGraph.addEdgeInternal chooses
// for an edge without a partitioner (ForwardPartitioner, else
// RebalancePartitioner). It is decided per edge: a vertex with several
// inputs may read one forward and another rebalanced. A vertex that names
// no partitioning keeps it empty after Parse; the compiled plan
// (sim/plan) resolves every edge with this rule, the one place it lives.
func DefaultPartitioning(up, down int) string {
	if up == down {
		return PartitionForward
	}
	return PartitionRebalance
}

// Parallelisms returns the parallelism of every vertex, by name (the first
// vertex of a name), and of every late side output (its window
// operator's).
func (s *Scenario) Parallelisms() map[string]int {
	par := make(map[string]int, len(s.Sources)+len(s.Operators)+len(s.Sinks))
	vs := s.vertices()
	for _, v := range vs {
		if _, dup := par[v.name]; !dup {
			par[v.name] = v.parallelism
		}
	}
	for _, v := range vs {
		if _, dup := par[v.lateOutput]; !dup && v.lateOutput != "" {
			par[v.lateOutput] = v.parallelism
		}
	}
	return par
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

// WithDefaults returns a copy of s in which the zero values that a Scenario
// built in Go may leave hold their defaults, as Parse fills them: the
// fields marked ZeroDefault or FillZero in the description (fields.go),
// and the mappings marked ZeroDefault when they are zero as a whole.
// Today these are:
//
//   - Workers.Memory 0 is 1 GiB, Workers.HeartbeatTimeout 0 is 50s;
//   - a zero Checkpoint is DefaultCheckpointing(); Mode "" is none; a zero
//     Checkpoint.Storage is DefaultCheckpointStorage(), and a
//     Storage.Bandwidth of 0 is 100 MiB/s;
//   - a zero StateBackend is DefaultStateBackend(); Type "" is heap;
//   - a zero Restart is DefaultRestart(); Type "" is fixed-delay;
//   - HighAvailability.Type "" is none, LeaderElection 0 is 10s;
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
// latency. A zero written in the YAML text is kept. The result of Parse is
// returned unchanged (as an equal copy); s itself is not modified, and
// slices are copied only where a value changes.
func (s *Scenario) WithDefaults() *Scenario { return s.zeroDefaults(fillZeroMore) }

func (s *Scenario) zeroDefaults(mode fill) *Scenario {
	c := *s
	fillAt(topMapping, reflect.ValueOf(&c).Elem(), "", mode, c.given)
	if s.StateBackend == (StateBackend{}) && !c.given(kStateBackend) {
		c.StateBackend.AccessTime = DefaultAccessTime(c.StateBackend.Type)
	}
	return &c
}

// given reports whether the field path was written in the YAML text.
func (s *Scenario) given(path string) bool {
	_, ok := s.positions[path]
	return ok
}

// defaultsOf returns the defaults of the struct type T described by mp.
func defaultsOf[T any](mp *Mapping) T {
	var v T
	fillDefaults(mp, reflect.ValueOf(&v).Elem(), nil)
	return v
}

// DefaultWorkers returns the cluster of a scenario that says nothing: one
// worker with 4 slots, 1 GiB of memory for heap state and Flink's
// heartbeat timeout of 50s.
func DefaultWorkers() Workers { return defaultsOf[Workers](workersMapping) }

// DefaultNetwork returns the network setting an edge has when the scenario
// says nothing: 32 KiB buffers, 2 exclusive buffers per channel, 8 floating
// buffers per gate, 100 ms buffer timeout, 1 ms latency, 1 Gbit/s
// (125e6 bytes per simulated second), bounded (credit-based flow control),
// as Flink's defaults.
func DefaultNetwork() Network { return defaultsOf[Network](networkMapping) }

// DefaultCheckpointing returns the checkpoint setting of a scenario that
// says nothing: mode none, with the defaults the other fields take when a
// mode is given (timeout 10m, min_pause 0, max_concurrent 1, as Flink's;
// tolerable_failures -1, no limit, where Flink's default is 0; not
// incremental; aligned_timeout 0; DefaultCheckpointStorage).
func DefaultCheckpointing() Checkpointing { return defaultsOf[Checkpointing](checkpointMapping) }

// DefaultCheckpointStorage returns the checkpoint storage of a scenario
// that says nothing: 100 MiB/s (104857600 bytes per simulated second) and
// 10ms per upload or download.
func DefaultCheckpointStorage() CheckpointStorage {
	return defaultsOf[CheckpointStorage](storageMapping)
}

// DefaultStateBackend returns the state backend of a scenario that says
// nothing: heap, 100ns per state access, no garbage-collection pauses.
func DefaultStateBackend() StateBackend {
	b := defaultsOf[StateBackend](backendMapping)
	b.AccessTime = DefaultAccessTime(b.Type)
	return b
}

// Derived defaults, the Flink values they follow.
const (
	defaultHeapAccess    = 100 * des.Nanosecond
	defaultRocksDBAccess = 5 * des.Microsecond
	defaultGCPausePerGiB = 100 * des.Millisecond
)

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
func DefaultRestart() RestartStrategy { return defaultsOf[RestartStrategy](restartMapping) }

// DefaultHighAvailability returns the JobManager high availability of a
// scenario that says nothing: none, with the leader election time that
// zookeeper takes by default (10s).
func DefaultHighAvailability() HighAvailability { return defaultsOf[HighAvailability](haMapping) }

// Bounds of the max parallelism (number of key groups) of a vertex, as in
// Flink's KeyGroupRangeAssignment: the default max parallelism is at least
// MinDefaultMaxParallelism, and no max parallelism exceeds
// MaxMaxParallelism.
const (
	MinDefaultMaxParallelism = 128
	MaxMaxParallelism        = 1 << 15
)

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
