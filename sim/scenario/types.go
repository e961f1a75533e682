// Package scenario defines the YAML scenario format of dspalab: the types a
// scenario decodes into, strict decoding with file:line:col errors, defaults,
// validation of the job graph, and a JSON Schema of the format.
//
// A decoded Scenario is complete: every default is filled in and every value
// is in the simulator's units (des.Time for simulated time, records per
// simulated second for rates, bytes for sizes, bytes per simulated second for
// bandwidth), so the simulator never looks at strings.
package scenario

import "github.com/dspalab/dspalab/sim/des"

// Scenario is one simulated job and its cluster, as read from YAML.
type Scenario struct {
	// File is the name the scenario was parsed under (for messages).
	File string
	// Name is a short identifier, by default the base name of File
	// without its extension; Description is one line for listings (at
	// most MaxDescriptionLength characters). Both are printable text: no
	// control characters, line breaks or bidirectional controls.
	Name        string
	Description string
	// Seed seeds every random stream of the run (default 1).
	Seed uint64
	// Duration is the simulated time to run (required, > 0).
	Duration des.Time
	// Warmup is left out of summary statistics (default 0, < Duration).
	Warmup  des.Time
	Workers Workers
	// Network holds the defaults for every edge; Operator.Network and
	// Sink.Network hold the resolved settings of their input edges.
	Network   Network
	Sources   []Source
	Operators []Operator
	Sinks     []Sink
	Metrics   Metrics
	// Checkpoint configures periodic checkpoints; its zero value, like
	// the default, is mode none (no checkpoints).
	Checkpoint Checkpointing

	// positions maps the field paths of the YAML text ("sources[0].arrival.rate")
	// to where their values were given; see Pos. Nil for a Scenario built
	// in Go.
	positions map[string]position
}

// Workers are the TaskManagers of the simulated cluster. Subtask i of every
// vertex runs in slot i (Flink's default slot sharing), and slots fill worker
// 0 first, then worker 1, and so on; so the job needs max parallelism <=
// Count*Slots.
type Workers struct {
	Count int // default 1
	Slots int // per worker, default 4
}

// Capacity says whether an edge has credit-based flow control.
type Capacity string

// Capacities.
const (
	Bounded   Capacity = "bounded"   // credit-based flow control (default)
	Unbounded Capacity = "unbounded" // no flow control: queues grow without bound
)

// Network is the setting of Flink's network stack for an edge (the input
// gate of a vertex): https://nightlies.apache.org/flink/flink-docs-stable/docs/deployment/memory/network_mem_tuning/
type Network struct {
	BufferSize        int64    // bytes per network buffer, default 32 KiB
	BuffersPerChannel int      // exclusive buffers per input channel, default 2
	FloatingBuffers   int      // floating buffers per input gate, default 8
	BufferTimeout     des.Time // flush interval; 0 flushes after every record; default 100ms
	Latency           des.Time // one-way latency between workers, default 1ms
	Bandwidth         float64  // bytes per simulated second between workers, default 1 Gbit/s
	Capacity          Capacity // default Bounded
}

// Arrival processes of a source subtask.
const (
	ArrivalConstant = "constant" // evenly spaced records at Rate
	ArrivalPoisson  = "poisson"  // exponential inter-arrival times with mean 1/Rate
	ArrivalBursty   = "bursty"   // on/off (two-state MMPP): Poisson at Rate while on, OffRate while off
	ArrivalSchedule = "schedule" // piecewise constant rates, evenly spaced within each step
	ArrivalTrace    = "trace"    // replays a CSV trace or a data set at its own timestamps
)

// Arrival is the arrival process of each subtask of a source. Rates are per
// subtask, in records per simulated second.
type Arrival struct {
	Process string
	// Rate is the rate of constant and poisson, and the on-rate of bursty.
	Rate float64
	// OffRate is bursty's rate while off (default 0).
	OffRate float64
	// On and Off are bursty's mean on and off durations (exponentially
	// distributed), written on_time and off_time in YAML.
	On, Off des.Time
	// Schedule holds the steps of a schedule, by increasing At; the first
	// step starts at 0. A rate of 0 pauses the source.
	Schedule []RateStep
	// Trace says what a trace source replays (process trace). A Scenario
	// built in Go may leave it nil: the simulator only calls its
	// Options.OpenTrace, which then decides alone what is replayed.
	Trace *Trace
}

// RateStep is one step of a piecewise-constant schedule.
type RateStep struct {
	At   des.Time
	Rate float64 // records per simulated second
}

// Key distributions.
const (
	KeysUniform = "uniform"
	KeysZipf    = "zipf"
)

// Keys describes the record keys a source draws.
type Keys struct {
	Count        int     // number of distinct keys, default 1000
	Distribution string  // uniform (default) or zipf
	Exponent     float64 // zipf exponent s > 0, default 1 (key of rank r has weight 1/r^s)
}

// What a non-replayable source does when back-pressured.
const (
	OnBackpressureBlock  = "block"  // the producer waits (TCP back-pressure): nothing is lost
	OnBackpressureBuffer = "buffer" // arrivals continue into a bounded buffer; past it they are dropped
	OnBackpressureDrop   = "drop"   // arrivals while blocked are dropped
)

// Source is a source vertex.
type Source struct {
	Name        string
	Parallelism int // default 1
	Arrival     Arrival
	Keys        Keys
	RecordSize  int64 // bytes per record, default 100, at most MaxRecordSize
	// Replayable sources read a log (Kafka) by offset: under back-pressure
	// the log grows (consumer lag) and nothing is lost. Default true.
	Replayable bool
	// OnBackpressure applies to non-replayable sources (default block).
	OnBackpressure string
	// BufferLimit bounds the buffer of OnBackpressure "buffer", in records
	// (default 10000).
	BufferLimit int
	// MaxRate is the most records per simulated second one subtask can
	// read (fetch from its log or socket): reading a record takes 1/MaxRate
	// of busy time. 0 (the default) means reading costs nothing, so a
	// lagging replayable source catches up as fast as credit allows. A
	// source with MaxRate equal to its arrival rate is the saturated source
	// of the back-pressure lesson: behind a bottleneck of rate μ it is
	// back-pressured 1 − μ/MaxRate of the time.
	MaxRate float64
}

// Service-time distributions.
const (
	DistConstant    = "constant"
	DistExponential = "exponential"
	DistUniform     = "uniform"
	DistLognormal   = "lognormal"
)

// ServiceTime is the distribution of the time a subtask spends on one
// record.
type ServiceTime struct {
	Distribution string   // constant (default), exponential, uniform, lognormal
	Mean         des.Time // constant, exponential, lognormal; derived for uniform
	Min, Max     des.Time // uniform
	Stddev       des.Time // lognormal
}

// Partitionings of an edge (Flink's partitioners).
const (
	PartitionForward   = "forward"   // subtask i to subtask i; needs equal parallelism
	PartitionRebalance = "rebalance" // round-robin over all downstream subtasks
	PartitionHash      = "hash"      // by key group of the record key (keyBy)
	PartitionBroadcast = "broadcast" // every record to every downstream subtask
	PartitionRescale   = "rescale"   // round-robin over a local subset of downstream subtasks
)

// Operator is a processing vertex.
type Operator struct {
	Name string
	// Inputs names upstream vertices (`input:` gives one, `inputs:` several).
	Inputs []string
	// Partitioning of every input edge; default forward when parallelisms
	// are equal, rebalance otherwise (Flink's default).
	Partitioning string
	Parallelism  int // default 1
	// MaxParallelism is the number of key groups for hash partitioning;
	// default roundUpToPowerOfTwo(1.5*Parallelism), at least 128.
	MaxParallelism int
	ServiceTime    ServiceTime
	// Selectivity is output records per input record (default 1, at most
	// MaxSelectivity).
	Selectivity float64
	// Network is the resolved network setting of the input edges.
	Network Network
}

// Sink is a sink vertex: it takes records out of the job. Its service time
// defaults to 0 (records leave on arrival).
type Sink struct {
	Name           string
	Inputs         []string
	Partitioning   string
	Parallelism    int
	MaxParallelism int
	ServiceTime    ServiceTime
	Network        Network
}

// Metrics configures sampling.
type Metrics struct {
	Interval des.Time // default 1s, at least MinMetricsInterval
}

// Checkpoint modes.
const (
	CheckpointNone    = "none"    // no checkpoints (default)
	CheckpointAligned = "aligned" // asynchronous barrier snapshotting with alignment (Carbone et al. 2015)
)

// Checkpointing configures periodic checkpoints, as Flink's
// execution.checkpointing.* options:
// https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/fault-tolerance/checkpointing/
type Checkpointing struct {
	Mode          string   // none (default) or aligned
	Interval      des.Time // time between triggers (required unless mode none)
	Timeout       des.Time // a checkpoint not complete by then fails (default 10m)
	MinPause      des.Time // least time between the end of one checkpoint and the next trigger (default 0)
	MaxConcurrent int      // checkpoints in progress at once (default 1)
}
