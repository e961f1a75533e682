package plan

import (
	"math"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Rough memory costs of the job's structures, measured on the simulator
// (a 2048 x 2048 all-to-all edge takes about 1.2 GB).
const (
	bytesPerChannel = 300
	bytesPerZipfKey = 8
	bytesPerSubtask = 2048
)

// Estimate is what a run of a plan will cost, measured before it starts
// (see Plan.Estimate). Rates are means in records (or rows) per simulated
// second.
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
	// Channels are the subtask-to-subtask channels of all edges
	// (Edge.Channels); ZipfKeys the keys of all zipf key tables.
	Channels, ZipfKeys int64
	// Memory is the estimated bytes of the job's structures before any
	// record: channels (about 300 bytes each), zipf key tables (8 bytes a
	// key) and subtasks (about 2 KiB each).
	Memory int64
	// Rows is the number of rows of timeseries.csv: one per subtask and
	// per vertex at every metrics sample.
	Rows float64
	// CheckpointRows is the most rows of checkpoint_subtasks.csv: one per
	// subtask and checkpoint, a checkpoint every checkpoint.interval (0
	// without checkpointing).
	CheckpointRows float64
}

// Estimate measures the size of a run of p by following the records
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
// estimate is an upper bound of a run's records. A trace source's rate is
// known only from its data: traceRates holds the mean rates of the trace
// sources, in records per simulated second over all their subtasks, by
// source name, where they are known (0 or absent: unknown, counted as
// emitting nothing). Rates stay finite: an absurd rate is capped at the
// largest float64, so that a later selectivity of 0 gives 0, not NaN.
func (p *Plan) Estimate(traceRates map[string]float64) Estimate {
	sc := p.Scenario
	e := Estimate{Duration: sc.Duration, Vertices: len(p.Vertices), Subtasks: p.Subtasks()}
	out := make([]float64, len(p.Vertices)) // records per second a vertex emits
	for _, v := range p.Vertices {
		if v.Kind != Source {
			continue
		}
		if v.Source.Keys.Distribution == scenario.KeysZipf {
			e.ZipfKeys += int64(v.Source.Keys.Count)
		}
		r := finite(meanRate(v.Source.Arrival, sc.Duration) * float64(v.Parallelism))
		if v.Source.Arrival.Process == scenario.ArrivalTrace {
			r = finite(traceRates[v.Name])
		}
		out[v.Index] = r
		e.Offered = finite(e.Offered + r)
	}
	e.Records = e.Offered
	for _, v := range p.Vertices {
		if v.Kind == Source {
			continue
		}
		var in float64
		broadcast := false
		for _, ed := range v.Inputs {
			in = finite(in + out[ed.From.Index])
			e.Channels += ed.Channels()
			broadcast = ed.Partitioning == scenario.PartitionBroadcast
		}
		if broadcast {
			e.ByBroadcast = e.ByBroadcast || (in > 0 && v.Parallelism > 1)
			in *= float64(v.Parallelism)
		}
		in = finite(in)
		if v.Emits() {
			e.BySelectivity = e.BySelectivity || (in > 0 && v.Selectivity > 1)
			out[v.Index] = finite(in * v.Selectivity)
		}
		e.Records = finite(e.Records + in)
		if e.Busiest == "" || in > e.BusiestRate {
			e.Busiest, e.BusiestRate = v.Name, in
		}
	}
	interval := p.MetricsInterval()
	e.MetricsRows = float64(e.Subtasks+e.Vertices) / interval.Seconds()
	e.Rows = float64(e.Subtasks+e.Vertices) * math.Ceil(float64(sc.Duration)/float64(interval))
	if ck := sc.Checkpoint; p.Checkpointing() && ck.Interval > 0 {
		e.CheckpointRows = float64(e.Subtasks) * math.Floor(float64(sc.Duration)/float64(ck.Interval))
	}
	e.Memory = e.Channels*bytesPerChannel + e.ZipfKeys*bytesPerZipfKey + int64(e.Subtasks)*bytesPerSubtask
	e.EventRate = finite(e.Records + e.MetricsRows)
	e.Events = finite(e.EventRate * sc.Duration.Seconds())
	return e
}

// finite caps x at the largest float64, so that absurd rates (a long chain
// of selective operators) stay comparable and a later selectivity of 0
// gives 0, not NaN.
func finite(x float64) float64 { return min(x, math.MaxFloat64) }

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
