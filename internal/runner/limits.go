package runner

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Default limits. They keep a typo (a rate of 1e9/s, a duration of 30d)
// from tying up a machine for hours; each has a flag that raises it.
const (
	DefaultMaxSubtasks = 4096
	DefaultMaxDuration = 7 * 24 * des.Hour
	DefaultMaxEvents   = 5e9
	// DefaultMaxSweepEvents bounds a sweep's estimated events over all
	// its runs (dspalab sweep --max-sweep-events): ten runs at the limit
	// of one, a few hours on two cores.
	DefaultMaxSweepEvents = 5e10
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

// Estimate is what CheckLimits measures of a scenario: plan.Estimate,
// where the estimates are computed (Plan.Estimate).
type Estimate = plan.Estimate

// Measure estimates the size of a run of sc: the estimate of its compiled
// plan (plan.Compile, Plan.Estimate), with the trace sources counted as
// emitting nothing (their rates are known only from their data: see
// measure). A scenario that does not compile (an input that names no
// vertex, a cycle: one that fails validation) measures as its duration
// alone.
func Measure(sc *scenario.Scenario) Estimate { return measure(sc, nil) }

// measure is Measure with the mean rates of the trace sources, in records
// per simulated second over all their subtasks, where they are known (the
// registry's rows and time span of a data set; 0 or absent: unknown, left
// out).
func measure(sc *scenario.Scenario, traceRates map[string]float64) Estimate {
	p, err := plan.Compile(sc)
	if err != nil {
		return Estimate{Duration: sc.Duration}
	}
	return p.Estimate(traceRates)
}

// runBudget is the simulator's running memory budget of a run with
// estimate e under l (sim.Options.MaxMemory): what --max-memory leaves
// beside the up-front estimate, and at least an eighth of it, so that
// what the run accumulates (checkpoints in flight and what they persist,
// the failover log) and the job's structures together stay near it.
func runBudget(l Limits, e Estimate) int64 {
	m := l.withDefaults().MaxMemory
	return max(m-e.Memory, m/8)
}

// byteSize formats an estimated byte count for messages with
// scenario.FormatByteSize ("4.56GiB", "1MiB"), capped at the largest int64.
func byteSize(b float64) string {
	return scenario.FormatByteSize(int64(min(b, math.MaxInt64)))
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
	e.CapQueued(l.MaxQueued) // a micro-batch run stops past it
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
			label, Sci(e.EventRate, 1), explain(e), Sci(l.MaxEventRate, -1), advice(e)))
	}
	if e.Events > l.MaxEvents {
		errs = append(errs, fmt.Errorf("scenario %q: about %s events (%s, over %s) exceed the limit of %s; shorten duration, %s, or raise --max-events",
			label, Sci(e.Events, 1), explain(e), sim.FormatTime(e.Duration), Sci(l.MaxEvents, -1), advice(e)))
	}
	if e.Memory > l.MaxMemory {
		parts, remedy := memoryParts(e)
		when := "before any record"
		if e.MicroBatch {
			when = "by the end of the run" // the state and the queued batches grow with the records
		}
		errs = append(errs, fmt.Errorf("scenario %q: about %s of memory %s (%s) exceeds the limit of %s; %s, or raise --max-memory",
			label, byteSize(float64(e.Memory)), when, parts, byteSize(float64(l.MaxMemory)), remedy))
	}
	if l.WritesOutputs && e.Rows > l.MaxRows && e.MicroBatch {
		errs = append(errs, fmt.Errorf("scenario %q: about %s rows of timeseries.csv (one every %s over %s, some %s) exceed the limit of %s; lengthen metrics.interval, shorten the duration, or raise --max-rows",
			label, Sci(e.Rows, 1), sim.FormatTime(e.MetricsInterval), sim.FormatTime(e.Duration), byteSize(e.Rows*100), Sci(l.MaxRows, -1)))
	} else if l.WritesOutputs && e.Rows > l.MaxRows {
		errs = append(errs, fmt.Errorf("scenario %q: about %s rows of timeseries.csv (%d subtasks and vertices every %s over %s, some %s) exceed the limit of %s; lengthen metrics.interval, shorten the duration, or raise --max-rows",
			label, Sci(e.Rows, 1), e.Subtasks+e.Vertices, sim.FormatTime(e.MetricsInterval), sim.FormatTime(e.Duration),
			byteSize(e.Rows*100), Sci(l.MaxRows, -1)))
	}
	if l.WritesOutputs && e.CheckpointRows > l.MaxRows {
		errs = append(errs, fmt.Errorf("scenario %q: about %s rows of checkpoint_subtasks.csv (%d subtasks every %s over %s, some %s) exceed the limit of %s; lengthen checkpoint.interval, shorten the duration, or raise --max-rows",
			label, Sci(e.CheckpointRows, 1), e.Subtasks, sim.FormatTime(sc.Checkpoint.Interval), sim.FormatTime(e.Duration),
			byteSize(e.CheckpointRows*80), Sci(l.MaxRows, -1)))
	}
	if l.WritesOutputs && e.PartitionRows > l.MaxRows {
		errs = append(errs, fmt.Errorf("scenario %q: about %s rows of partitions.csv (%s every %s over %s, some %s) exceed the limit of %s; lengthen metrics.interval, shorten the duration, or raise --max-rows",
			label, Sci(e.PartitionRows, 1), plural.Count(int64(e.PartitionRows/math.Ceil(float64(e.Duration)/float64(e.MetricsInterval))), "partition-reader pair"), sim.FormatTime(e.MetricsInterval), sim.FormatTime(e.Duration),
			byteSize(e.PartitionRows*40), Sci(l.MaxRows, -1)))
	}
	return errors.Join(errs...)
}

// memoryParts says what the memory estimate e counts, for messages
// ("16000000 channels, 10000000 zipf keys, 8000 subtasks, 1.25GiB of key
// sets: 1200 of 1MiB, ..."), leaving out what it holds none of, and what
// to lower: the remedies of the parts that hold a quarter of the memory
// or more, the largest first, each naming the scenario's field. Counts
// use plural.Count and sizes byteSize, the one formatter of each.
func memoryParts(e Estimate) (parts, remedy string) {
	type part struct {
		bytes        int64
		text, remedy string
	}
	var ps []part
	add := func(bytes int64, text, remedy string) {
		if bytes > 0 {
			ps = append(ps, part{bytes, text, remedy})
		}
	}
	add(e.Channels*plan.BytesPerChannel, plural.Count(e.Channels, "channel"), "lower the parallelism of all-to-all edges")
	add(e.ZipfKeys*plan.BytesPerZipfKey, plural.Count(e.ZipfKeys, "zipf key"), "lower the zipf key counts")
	add(int64(e.Subtasks)*plan.BytesPerSubtask, plural.Count(e.Subtasks, "subtask"), "lower the parallelism")
	if w := int64(e.Workers) * plan.BytesPerWorker; w >= e.Memory/100 {
		add(w, plural.Count(e.Workers, "worker"), "lower workers.count")
	}
	add(e.StateBytes, fmt.Sprintf("%s of state stores: about %s rows (keys, or windows and keys)", byteSize(float64(e.StateBytes)), Sci(e.StateRows, 1)),
		"lower the key count (sources[].keys.count) or shorten the duration (the state holds every key seen)")
	add(e.QueueBytes, queueText(e), "lower the rates or shorten the duration, or lower --max-queued (a job whose processing time passes spark.batch_interval queues its batches)")
	add(e.BatchBytes, fmt.Sprintf("%s for the rows of %s and %s kept for batches.csv and timeseries.csv", byteSize(float64(e.BatchBytes)), plural.Count(int64(e.Batches), "batch"), plural.Count(int64(e.Rows), "metrics sample")),
		"lengthen spark.batch_interval (or spark.trigger_interval) or metrics.interval, or shorten the duration")
	add(e.TaskSlotBytes, fmt.Sprintf("%s for %s of the stages", byteSize(float64(e.TaskSlotBytes)), plural.Count(e.TaskSlots, "task partition")),
		"lower the parallelism, or lengthen spark.block_interval (a receiver's stage has a partition per block)")
	add(e.KeySetBytes, fmt.Sprintf("%s of keyed state: %s of %s", byteSize(float64(e.KeySetBytes)), plural.Count(e.KeySets, "key set"), plural.Count(e.KeyedSubtasks, "keyed subtask")),
		"lower the key count or the parallelism of keyed operators (or checkpoint.max_concurrent)")
	add(e.WindowBytes, fmt.Sprintf("%s for about %s open windows at once (one state per key and window)", byteSize(float64(e.WindowBytes)), Sci(e.WindowStates, 1)),
		"shorten the windows (operators[].window.size, gap, allowed_lateness, or operators[].join.size), lower the key count or the bound of the watermarks")
	add(e.JoinBytes, fmt.Sprintf("%s for about %s records the interval joins buffer (each until the watermark passes it plus the join's bound)", byteSize(float64(e.JoinBytes)), Sci(e.JoinRecords, 1)),
		"narrow the interval joins (operators[].join.before, operators[].join.after), lower the rates (sources[].arrival.rate) or the bound of the watermarks")
	add(e.CheckpointBytes, fmt.Sprintf("%s for up to %s in flight", byteSize(float64(e.CheckpointBytes)), plural.Count(e.CheckpointsInFlight, "checkpoint")),
		"lower checkpoint.max_concurrent or checkpoint.timeout, or lengthen checkpoint.interval")
	add(e.GraphBytes, fmt.Sprintf("%s for streaming graphs of up to %s and %s", byteSize(float64(e.GraphBytes)), plural.Count(e.GraphEdges, "edge"), plural.Count(e.GraphVertices, "vertex")),
		"lower the edge stream's rate or duration, or set its edges.max_edges")
	add(e.TopicBytes, fmt.Sprintf("%s for the readers' offsets and summary rows of %s", byteSize(float64(e.TopicBytes)), plural.Count(e.TopicPartitions, "topic partition")),
		"lower topics[].partitions")
	add(e.MessageBytes, fmt.Sprintf("%s for the queues' messages: up to %s ready and %s unacknowledged", byteSize(float64(e.MessageBytes)), Sci(e.ReadyMessages, 1), Sci(e.UnackedMessages, 1)),
		"lower the producers' rate (sources[].arrival.rate of a writes: {queue}) or shorten the duration (a queue holds every message not yet delivered), or lower queues[].visibility_timeout")
	add(e.BloomBytes, fmt.Sprintf("%s for Bloom filters of %s (two generations per sink)", byteSize(float64(e.BloomBytes)), plural.Count(e.BloomBits, "bit")),
		"lower sinks[].dedup.bloom_bits")
	add(e.FailoverBytes, fmt.Sprintf("%s for about %s %s", byteSize(float64(e.FailoverBytes)), Sci(e.Failovers, 1), plural.For(int64(math.Round(e.Failovers)), "failover")), "lengthen the failures' mtbf")
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.text
	}
	big := slices.Clone(ps)
	slices.SortStableFunc(big, func(a, b part) int { return cmp.Compare(b.bytes, a.bytes) })
	var remedies []string
	for i, p := range big {
		if i == 0 || p.bytes >= e.Memory/4 {
			remedies = append(remedies, p.remedy)
		}
	}
	return strings.Join(texts, ", "), strings.Join(remedies, "; ")
}

// queueText says what the queued batches of a micro-batch estimate hold:
// the records of the whole run, or those --max-queued lets queue.
func queueText(e Estimate) string {
	by := "every one that reaches a sink over the run"
	if e.QueueCap > 0 && e.BatchRecords > 0 && e.QueuedRecords == float64(e.QueueCap)+2*e.BatchRecords {
		by = fmt.Sprintf("--max-queued %s, the batch past it and the one running", Sci(float64(e.QueueCap), -1))
	}
	return fmt.Sprintf("%s for up to %s records in queued batches (%s)", byteSize(float64(e.QueueBytes)), Sci(e.QueuedRecords, 1), by)
}

// rowsMatter reports whether the metrics rows are a tenth of the events or
// more, and so worth naming in a message.
func rowsMatter(e Estimate) bool { return e.MetricsRows >= 0.1*e.EventRate }

// explain says where the estimated event rate comes from, for messages:
// "records through 5 vertices: 1.0e8/s offered by the sources, 5.0e8/s
// handled in all", then what multiplies the records, if anything, and the
// metrics rows when they matter.
func explain(e Estimate) string {
	s := fmt.Sprintf("records through %d vertices: %s/s offered by the sources, %s/s handled in all",
		e.Vertices, Sci(e.Offered, 1), Sci(e.Records, 1))
	if by := multipliers(e); by != "" {
		s += fmt.Sprintf(", multiplied by %s: %s/s into %q", by, Sci(e.BusiestRate, 1), e.Busiest)
	}
	if rowsMatter(e) {
		s += fmt.Sprintf("; plus %s metrics rows/s", Sci(e.MetricsRows, 1))
	}
	if e.CheckpointEvents >= 0.1*e.EventRate {
		s += fmt.Sprintf("; plus %s checkpoint events/s (a barrier on each of %d channels and a snapshot of each of %d subtasks every %s)",
			Sci(e.CheckpointEvents, 1), e.Channels, e.Subtasks, sim.FormatTime(max(e.CheckpointEvery, des.Nanosecond)))
	}
	if e.FailoverEvents >= 0.1*e.EventRate {
		s += fmt.Sprintf("; plus %s failover events/s (about %s failovers, each restarting %d subtasks and %d channels)",
			Sci(e.FailoverEvents, 1), Sci(e.Failovers, 1), e.Subtasks, e.Channels)
	}
	if e.GCEvents >= 0.1*e.EventRate {
		s += fmt.Sprintf("; plus %s garbage-collection pauses/s of %d workers", Sci(e.GCEvents, 1), e.Workers)
	}
	if e.WindowWork >= 0.1*e.EventRate {
		s += fmt.Sprintf("; plus %s window and join updates/s (records added to each of their windows, compared with an interval join's buffer)", Sci(e.WindowWork, 1))
	}
	return s
}

// multipliers names what multiplies records on the way: "selectivity",
// "broadcast", both, or "".
func multipliers(e Estimate) string {
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
func advice(e Estimate) string {
	s := "lower the rates"
	switch {
	case e.BySelectivity && e.ByBroadcast:
		s = "lower the rates, the selectivity or the parallelism behind broadcast"
	case e.BySelectivity:
		s = "lower the rates or the selectivity"
	case e.ByBroadcast:
		s = "lower the rates or the parallelism behind broadcast"
	}
	if rowsMatter(e) {
		s = "lengthen metrics.interval, " + s
	}
	if e.CheckpointEvents >= 0.1*e.EventRate {
		s = "lengthen checkpoint.interval, " + s
	}
	if e.FailoverEvents >= 0.1*e.EventRate {
		s = "lengthen the failures' mtbf, " + s
	}
	if e.GCEvents >= 0.1*e.EventRate {
		s = "lengthen state_backend.gc_interval or lower workers.count, " + s
	}
	if e.WindowWork >= 0.1*e.EventRate {
		s = "lengthen the sliding windows' slide or narrow the interval joins, " + s
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
