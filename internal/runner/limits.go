package runner

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Default limits. They keep a typo (a rate of 1e9/s, a duration of 30d)
// from tying up a machine for hours; each has a flag that raises it.
const (
	DefaultMaxSubtasks = 4096
	DefaultMaxDuration = 7 * 24 * des.Hour
	DefaultMaxEvents   = 5e9
	// DefaultMaxEventRate is in events per simulated second: at about 10
	// million events per wall second, one simulated second then takes up to
	// ten wall seconds.
	DefaultMaxEventRate = 1e8
	// DefaultMaxQueued is in records: at about 100 bytes a queued record,
	// some 2 GB of memory.
	DefaultMaxQueued = 2e7
	// DefaultMaxMemory is in bytes: the estimated memory of the job's
	// structures (channels, zipf key tables, subtasks), before any record.
	DefaultMaxMemory = 4 << 30
	// DefaultMaxRows is the most rows of timeseries.csv a run with --out
	// may write: at about 100 bytes a row, some 2 GB.
	DefaultMaxRows = 2e7
)

// Rough memory costs of the job's structures, measured on the simulator
// (a 2048 x 2048 all-to-all edge takes about 1.2 GB).
const (
	bytesPerChannel = 300
	bytesPerZipfKey = 8
	bytesPerSubtask = 2048
)

// Limits bound what Run agrees to simulate: a scenario over any of the
// first four is refused before the run starts; MaxQueued stops a run that
// goes over it. A zero field means its default.
type Limits struct {
	// MaxSubtasks bounds the total number of subtasks over all vertices
	// (--max-subtasks).
	MaxSubtasks int
	// MaxDuration bounds the simulated duration (--max-duration).
	MaxDuration des.Time
	// MaxEvents bounds the estimated number of events of the run:
	// Estimate.EventRate times the duration in simulated seconds
	// (--max-events).
	MaxEvents float64
	// MaxEventRate bounds the estimated events per simulated second,
	// Estimate.EventRate (--max-event-rate).
	MaxEventRate float64
	// MaxQueued bounds the records queued in the input queues of all
	// subtasks at run time (--max-queued): past it the simulator stops
	// and Run returns a *QueuedError with the partial results. Without
	// flow control (capacity: unbounded) an overloaded operator's queue
	// grows without bound, and memory with it.
	MaxQueued int64
	// MaxMemory bounds Estimate.Memory, in bytes (--max-memory).
	MaxMemory int64
	// MaxRows bounds Estimate.Rows when the run writes its outputs
	// (WritesOutputs; --max-rows).
	MaxRows float64
	// WritesOutputs says the run writes timeseries.csv (--out), so that
	// MaxRows applies.
	WritesOutputs bool
}

// withDefaults fills the zero fields of l.
func (l Limits) withDefaults() Limits {
	if l.MaxSubtasks <= 0 {
		l.MaxSubtasks = DefaultMaxSubtasks
	}
	if l.MaxDuration <= 0 {
		l.MaxDuration = DefaultMaxDuration
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = DefaultMaxEvents
	}
	if l.MaxEventRate <= 0 {
		l.MaxEventRate = DefaultMaxEventRate
	}
	if l.MaxQueued <= 0 {
		l.MaxQueued = DefaultMaxQueued
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	return l
}

// Estimate is what CheckLimits measures of a scenario. Rates are means in
// records (or rows) per simulated second.
type Estimate struct {
	Subtasks int      // subtasks over all vertices
	Vertices int      // sources, operators and sinks
	Duration des.Time // simulated duration
	// Offered is the records per second all sources emit.
	Offered float64
	// Records is Offered plus the records per second every operator and
	// sink receives: each record counted once at its source and once at
	// every vertex it reaches, after selectivity and broadcast.
	Records float64
	// Busiest is the operator or sink that receives the most records per
	// second (the first in topological order on a tie; "" without any),
	// and BusiestRate that rate.
	Busiest     string
	BusiestRate float64
	// BySelectivity and ByBroadcast report that records are multiplied on
	// the way: an operator with selectivity over 1, or a broadcast edge
	// into more than one subtask, receives records.
	BySelectivity, ByBroadcast bool
	// MetricsRows is the rows per second of the metrics samples:
	// (Subtasks + Vertices) / metrics.interval.
	MetricsRows float64
	// EventRate is Records + MetricsRows, events per simulated second.
	EventRate float64
	// Events is EventRate times the duration in simulated seconds.
	Events float64
	// Channels are the subtask-to-subtask channels of all edges; ZipfKeys
	// the keys of all zipf key tables.
	Channels, ZipfKeys int64
	// Memory is the estimated bytes of the job's structures before any
	// record: channels, zipf key tables and subtasks.
	Memory int64
	// Rows is the number of rows of timeseries.csv: one per subtask and
	// per vertex at every metrics sample.
	Rows float64
	// CheckpointRows is the most rows of checkpoint_subtasks.csv: one per
	// subtask and checkpoint, a checkpoint every checkpoint.interval (0
	// without checkpointing).
	CheckpointRows float64
}

// Measure estimates the size of a run of sc by following the records
// through the job graph, in topological order:
//   - a source emits its mean rate per subtask times its parallelism: Rate
//     for constant and poisson, the on/off mix for bursty, and the
//     time-weighted mean of the steps over the duration for schedule;
//   - an operator or sink receives the sum of what its inputs emit, times
//     its parallelism on a broadcast edge (every subtask gets every
//     record);
//   - an operator emits what it receives times its selectivity; a sink
//     emits nothing.
//
// It ignores back-pressure (a bottleneck slows what passes it), so the
// estimate is an upper bound of a run's records. A trace source counts as
// emitting nothing here: its rate is known only from the data set (see
// measure).
func Measure(sc *scenario.Scenario) Estimate { return measure(sc, nil) }

// measure is Measure with the mean rates of the trace sources, in records
// per simulated second over all their subtasks, where they are known (the
// registry's rows and time span of a data set; 0 or absent: unknown, left
// out).
func measure(sc *scenario.Scenario, traceRates map[string]float64) Estimate {
	e := Estimate{Duration: sc.Duration}
	par := sc.Parallelisms()
	for _, s := range sc.Sources {
		if s.Keys.Distribution == scenario.KeysZipf {
			e.ZipfKeys += int64(s.Keys.Count)
		}
	}
	out := map[string]float64{}   // records per second a vertex emits
	recv := map[string]receiver{} // operators and sinks by name
	for _, s := range sc.Sources {
		e.Subtasks += s.Parallelism
		r := finite(meanRate(s.Arrival, sc.Duration) * float64(s.Parallelism))
		if s.Arrival.Process == scenario.ArrivalTrace {
			r = finite(traceRates[s.Name])
		}
		out[s.Name] = r
		e.Offered = finite(e.Offered + r)
	}
	for _, o := range sc.Operators {
		e.Subtasks += o.Parallelism
		recv[o.Name] = receiver{o.Inputs, o.Partitioning, o.Parallelism, o.Selectivity}
	}
	for _, s := range sc.Sinks {
		e.Subtasks += s.Parallelism
		recv[s.Name] = receiver{s.Inputs, s.Partitioning, s.Parallelism, 0}
	}
	e.Vertices = len(sc.Sources) + len(sc.Operators) + len(sc.Sinks)
	e.Records = e.Offered
	for _, name := range sc.Topo() {
		v, ok := recv[name]
		if !ok {
			continue // a source
		}
		var in float64
		for _, u := range v.inputs {
			in = finite(in + out[u])
			e.Channels += channels(v.partitioning, par[u], v.parallelism)
		}
		if v.partitioning == scenario.PartitionBroadcast {
			e.ByBroadcast = e.ByBroadcast || (in > 0 && v.parallelism > 1)
			in *= float64(v.parallelism)
		}
		in = finite(in)
		e.BySelectivity = e.BySelectivity || (in > 0 && v.selectivity > 1)
		e.Records = finite(e.Records + in)
		if e.Busiest == "" || in > e.BusiestRate {
			e.Busiest, e.BusiestRate = name, in
		}
		out[name] = finite(in * v.selectivity)
	}
	interval := sc.Metrics.Interval
	if interval <= 0 {
		interval = des.Second // the simulator's default
	}
	e.MetricsRows = float64(e.Subtasks+e.Vertices) / interval.Seconds()
	e.Rows = float64(e.Subtasks+e.Vertices) * math.Ceil(float64(sc.Duration)/float64(interval))
	if ck := sc.Checkpoint; checkpointing(sc) && ck.Interval > 0 {
		e.CheckpointRows = float64(e.Subtasks) * math.Floor(float64(sc.Duration)/float64(ck.Interval))
	}
	e.Memory = e.Channels*bytesPerChannel + e.ZipfKeys*bytesPerZipfKey + int64(e.Subtasks)*bytesPerSubtask
	e.EventRate = finite(e.Records + e.MetricsRows)
	e.Events = finite(e.EventRate * sc.Duration.Seconds())
	return e
}

// gigabytes formats a byte count for messages in GiB: "1.3GiB", "4GiB".
func gigabytes(b float64) string {
	return strconv.FormatFloat(math.Round(b/(1<<30)*100)/100, 'f', -1, 64) + "GiB"
}

// channels counts the channels of an edge from pu to pd subtasks.
func channels(partitioning string, pu, pd int) int64 {
	switch partitioning {
	case scenario.PartitionForward:
		return int64(pd)
	case scenario.PartitionRescale:
		return int64(max(pu, pd))
	}
	if partitioning == "" && pu == pd { // the default is forward then
		return int64(pd)
	}
	return int64(pu) * int64(pd)
}

// finite caps x at the largest float64, so that absurd rates (a long chain
// of selective operators) stay comparable and a later selectivity of 0
// gives 0, not NaN.
func finite(x float64) float64 { return min(x, math.MaxFloat64) }

// receiver is what Measure needs of an operator or a sink.
type receiver struct {
	inputs       []string
	partitioning string
	parallelism  int
	selectivity  float64 // 0 for a sink
}

// meanRate is the mean arrival rate of one source subtask over [0, d], in
// records per simulated second.
func meanRate(a scenario.Arrival, d des.Time) float64 {
	switch a.Process {
	case scenario.ArrivalBursty:
		if a.On+a.Off <= 0 {
			return a.Rate
		}
		on := float64(a.On) / float64(a.On+a.Off)
		return a.Rate*on + a.OffRate*(1-on)
	case scenario.ArrivalSchedule:
		if d <= 0 || len(a.Schedule) == 0 {
			return 0
		}
		var sum float64 // records
		for i, st := range a.Schedule {
			end := d
			if i+1 < len(a.Schedule) {
				end = min(a.Schedule[i+1].At, d)
			}
			if end > st.At {
				sum += st.Rate * (end - st.At).Seconds()
			}
		}
		return sum / d.Seconds()
	default:
		return a.Rate
	}
}

// CheckLimits refuses a scenario over any limit of l (zero fields meaning
// the defaults), with one message per limit exceeded, each naming the
// limit and the flag that raises it, and saying where the estimate comes
// from, for example:
//
//	scenario "x.yaml": about 6.0e10 events (records through 5 vertices: 1.0e8/s offered by the sources, 5.0e8/s handled in all, over 120s) exceed the limit of 5e9; shorten duration, lower the rates, or raise --max-events
//
// label names the scenario in the messages. Several messages are joined
// with errors.Join.
func CheckLimits(label string, sc *scenario.Scenario, l Limits) error {
	return checkLimits(label, sc, l, nil)
}

// checkLimits is CheckLimits with the rates of the trace sources (see
// measure).
func checkLimits(label string, sc *scenario.Scenario, l Limits, traceRates map[string]float64) error {
	l = l.withDefaults()
	e := measure(sc, traceRates)
	var errs []error
	if e.Subtasks > l.MaxSubtasks {
		errs = append(errs, fmt.Errorf("scenario %q: %d subtasks exceed the limit of %d; lower the parallelism or raise --max-subtasks",
			label, e.Subtasks, l.MaxSubtasks))
	}
	if e.Duration > l.MaxDuration {
		errs = append(errs, fmt.Errorf("scenario %q: a duration of %s exceeds the limit of %s; shorten it (--duration) or raise --max-duration",
			label, sim.FormatTime(e.Duration), sim.FormatTime(l.MaxDuration)))
	}
	if e.EventRate > l.MaxEventRate {
		errs = append(errs, fmt.Errorf("scenario %q: about %s events per simulated second (%s) exceed the limit of %s; %s, or raise --max-event-rate",
			label, Sci(e.EventRate, 1), e.explain(), Sci(l.MaxEventRate, -1), e.advice()))
	}
	if e.Events > l.MaxEvents {
		errs = append(errs, fmt.Errorf("scenario %q: about %s events (%s, over %s) exceed the limit of %s; shorten duration, %s, or raise --max-events",
			label, Sci(e.Events, 1), e.explain(), sim.FormatTime(e.Duration), Sci(l.MaxEvents, -1), e.advice()))
	}
	if e.Memory > l.MaxMemory {
		errs = append(errs, fmt.Errorf("scenario %q: about %s of memory before any record (%d channels, %d zipf keys, %d subtasks) exceeds the limit of %s; lower the parallelism of all-to-all edges or the zipf key counts, or raise --max-memory",
			label, gigabytes(float64(e.Memory)), e.Channels, e.ZipfKeys, e.Subtasks, gigabytes(float64(l.MaxMemory))))
	}
	if l.WritesOutputs && e.Rows > l.MaxRows {
		errs = append(errs, fmt.Errorf("scenario %q: about %s rows of timeseries.csv (%d subtasks and vertices every %s over %s, some %s) exceed the limit of %s; lengthen metrics.interval, shorten the duration, or raise --max-rows",
			label, Sci(e.Rows, 1), e.Subtasks+e.Vertices, sim.FormatTime(max(sc.Metrics.Interval, des.Millisecond)), sim.FormatTime(e.Duration),
			gigabytes(e.Rows*100), Sci(l.MaxRows, -1)))
	}
	if l.WritesOutputs && e.CheckpointRows > l.MaxRows {
		errs = append(errs, fmt.Errorf("scenario %q: about %s rows of checkpoint_subtasks.csv (%d subtasks every %s over %s, some %s) exceed the limit of %s; lengthen checkpoint.interval, shorten the duration, or raise --max-rows",
			label, Sci(e.CheckpointRows, 1), e.Subtasks, sim.FormatTime(sc.Checkpoint.Interval), sim.FormatTime(e.Duration),
			gigabytes(e.CheckpointRows*80), Sci(l.MaxRows, -1)))
	}
	return errors.Join(errs...)
}

// rowsMatter reports whether the metrics rows are a tenth of the events or
// more, and so worth naming in a message.
func (e Estimate) rowsMatter() bool { return e.MetricsRows >= 0.1*e.EventRate }

// explain says where the estimated event rate comes from, for messages:
// "records through 5 vertices: 1.0e8/s offered by the sources, 5.0e8/s
// handled in all", then what multiplies the records, if anything, and the
// metrics rows when they matter.
func (e Estimate) explain() string {
	s := fmt.Sprintf("records through %d vertices: %s/s offered by the sources, %s/s handled in all",
		e.Vertices, Sci(e.Offered, 1), Sci(e.Records, 1))
	if by := e.multipliers(); by != "" {
		s += fmt.Sprintf(", multiplied by %s: %s/s into %q", by, Sci(e.BusiestRate, 1), e.Busiest)
	}
	if e.rowsMatter() {
		s += fmt.Sprintf("; plus %s metrics rows/s", Sci(e.MetricsRows, 1))
	}
	return s
}

// multipliers names what multiplies records on the way: "selectivity",
// "broadcast", both, or "".
func (e Estimate) multipliers() string {
	switch {
	case e.BySelectivity && e.ByBroadcast:
		return "selectivity and broadcast"
	case e.BySelectivity:
		return "selectivity"
	case e.ByBroadcast:
		return "broadcast"
	}
	return ""
}

// advice says what to change in the scenario to lower the event rate.
func (e Estimate) advice() string {
	s := "lower the rates"
	switch {
	case e.BySelectivity && e.ByBroadcast:
		s = "lower the rates, the selectivity or the parallelism behind broadcast"
	case e.BySelectivity:
		s = "lower the rates or the selectivity"
	case e.ByBroadcast:
		s = "lower the rates or the parallelism behind broadcast"
	}
	if e.rowsMatter() {
		s = "lengthen metrics.interval, " + s
	}
	return s
}

// Sci formats a count for messages: plainly below 100,000, rounded to one
// decimal ("4096", "2.5"), else in scientific notation without a plus sign or leading zeros
// in the exponent, with prec decimals (-1: as few as needed), e.g.
// Sci(1.234e10, 1) = "1.2e10", Sci(5e9, -1) = "5e9".
func Sci(x float64, prec int) string {
	if math.Abs(x) < 1e5 {
		return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'e', prec, 64)
	mant, exp, _ := strings.Cut(s, "e")
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "e" + exp
}
