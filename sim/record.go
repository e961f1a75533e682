package sim

import (
	"math"
	"sort"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Record is one record in flight. Only records in flight exist in memory:
// they live in network buffers and are copied, never allocated one by one,
// so a Record is kept small (40 bytes, TestRecordSize): its size in bytes
// is its source's record_size (Sim.sizeOf).
type Record struct {
	// ID is the id of the source record it comes from (see sourceID): the
	// same when replayed. Copy is 0 for the source record and the records
	// it becomes one to one; a copy (a flatMap's second and later
	// outputs, a fan-out's or a broadcast's other copies) has a nonzero
	// class derived from its path, the same whenever the record is
	// replayed. A result an operator makes (a window's, a join's, a
	// timer's) keeps in Copy the bits of its identity above its id's 40
	// (resultRecord). (ID, Copy) tells records apart (delivery
	// accounting).
	ID        uint64
	Copy      uint32
	EventTime des.Time // when the record happened (its arrival at the source)
	Ingest    des.Time // when the source emitted it into the job
	Key       uint32   // key id in [0, keys.count); 0 when nothing reads keys (keysRead)
	// late marks a record a window operator sends to its late side
	// output: the record writer writes it to the side output's edges
	// only, and clears the mark there (in the struct's padding: no bytes
	// added)
	late bool
}

// buffer is one network buffer and what it carries, as Flink's Buffer
// with its Buffer.DataType: records (a data buffer) or one event (a
// checkpoint barrier today; watermarks and end-of-partition next), so
// that a receiver reads buffers and events in one order, as Flink's
// BufferOrEvent. Buffers are pooled (Sim.newBuffer): an event costs no
// allocation.
type buffer struct {
	recs     []Record
	bytes    int64
	next     int      // read position at the receiver
	arrived  des.Time // when it reached the receiver
	backlog  int      // sender backlog announced with it (credit-based flow control)
	dataType dataType
	event    event // the event of an event buffer
	// slice: records taken from a buffer still being written (Flink's
	// BufferConsumer.build of an unfinished BufferBuilder); it returns
	// no buffer to the sender's pool when it arrives
	slice bool
}

// dataType is what a buffer carries (Flink's Buffer.DataType).
type dataType uint8

const (
	// dataBuffer holds records (DATA_BUFFER).
	dataBuffer dataType = iota
	// eventBuffer holds an event that keeps its place among the data
	// (EVENT_BUFFER): it needs credit like a data buffer, but takes no
	// buffer of the sender's pool.
	eventBuffer
	// priorityEventBuffer holds an event that overtakes the buffered data
	// (PRIORITIZED_EVENT_BUFFER: an unaligned checkpoint barrier); it
	// needs no credit.
	priorityEventBuffer
)

// eventKind is the kind of an event carried in a buffer.
type eventKind uint8

const (
	noEvent eventKind = iota
	// checkpointBarrier is Flink's CheckpointBarrier.
	checkpointBarrier
	// watermarkEvent is Flink's Watermark: event time has advanced to
	// event.watermark on this channel (watermark.go).
	watermarkEvent
	// watermarkStatusEvent is Flink's WatermarkStatus: the channel goes
	// idle (event.idle) or active again.
	watermarkStatusEvent
)

// event is an event carried in a buffer, inline (no allocation).
type event struct {
	kind       eventKind
	idle       bool     // watermarkStatusEvent: IDLE (true) or ACTIVE
	checkpoint int64    // checkpointBarrier: the checkpoint's id
	watermark  des.Time // watermarkEvent: its timestamp
}

// isWatermark reports whether b carries a watermark or a watermark
// status.
func (b *buffer) isWatermark() bool {
	return b.event.kind == watermarkEvent || b.event.kind == watermarkStatusEvent
}

// isBuffer reports whether b holds records (Flink's Buffer.isBuffer).
func (b *buffer) isBuffer() bool { return b.dataType == dataBuffer }

// barrierID returns the checkpoint id of a barrier, 0 for anything else.
func (b *buffer) barrierID() int64 {
	if b.event.kind == checkpointBarrier {
		return b.event.checkpoint
	}
	return 0
}

// setBarrier turns the empty buffer b into the barrier of checkpoint id,
// in the data's order.
func (b *buffer) setBarrier(id int64) {
	b.dataType, b.event = eventBuffer, event{kind: checkpointBarrier, checkpoint: id}
}

// serviceDist draws service times of one vertex.
type serviceDist struct {
	kind     distKind
	mean     des.Time
	min, max des.Time
	mu, sig  float64 // lognormal parameters of the underlying normal (ln ns)
}

// distKind is a service-time distribution, resolved from its name when
// the job is built, so that drawing compares no strings.
type distKind uint8

const (
	distConstant distKind = iota
	distExponential
	distUniform
	distLognormal
)

func newServiceDist(st scenario.ServiceTime) serviceDist {
	d := serviceDist{mean: st.Mean, min: st.Min, max: st.Max}
	switch st.Distribution {
	case scenario.DistExponential:
		d.kind = distExponential
	case scenario.DistUniform:
		d.kind = distUniform
	case scenario.DistLognormal:
		d.kind = distLognormal
	}
	if d.kind == distLognormal && st.Mean > 0 {
		m, s := float64(st.Mean), float64(st.Stddev)
		d.sig = math.Sqrt(math.Log1p(s * s / (m * m)))
		d.mu = math.Log(m) - d.sig*d.sig/2
	}
	return d
}

// sample draws one service time; constant draws nothing from r.
func (d *serviceDist) sample(r *des.Rand) des.Time {
	switch d.kind {
	case distExponential:
		return d.exponential(r)
	case distUniform:
		return d.min + des.Time(r.Float64()*float64(d.max-d.min)+0.5)
	case distLognormal:
		if d.mean == 0 {
			return 0
		}
		return des.Time(math.Round(math.Exp(d.mu + d.sig*r.NormFloat64())))
	default:
		return d.mean
	}
}

// exponential draws an exponential service time (sample of
// distExponential, small enough to be inlined where the kind is known).
func (d *serviceDist) exponential(r *des.Rand) des.Time {
	return des.Time(r.ExpFloat64()*float64(d.mean) + 0.5)
}

// keyDist draws record keys: uniform over count keys, or Zipf with weight
// 1/(rank+1)^s for the key of rank rank (key ids are ranks: key 0 is hottest).
type keyDist struct {
	count int
	cdf   []float64 // zipf only
}

func newKeyDist(k scenario.Keys) keyDist {
	d := keyDist{count: k.Count} // Validate: count >= 1, and a zipf exponent > 0
	if k.Distribution == scenario.KeysZipf {
		s := k.Exponent
		d.cdf = make([]float64, d.count)
		sum := 0.0
		for i := range d.cdf {
			sum += math.Pow(float64(i+1), -s)
			d.cdf[i] = sum
		}
		for i := range d.cdf {
			d.cdf[i] /= sum
		}
	}
	return d
}

func (d *keyDist) sample(r *des.Rand) uint32 {
	if d.cdf == nil {
		return uint32(r.IntN(d.count))
	}
	u := r.Float64()
	return uint32(sort.SearchFloat64s(d.cdf, u))
}

// arrivalGen generates the arrival times of one source subtask on its own
// clock, starting at 0. Constant and schedule arrivals are computed from
// the cumulative rate, so they do not drift; poisson and bursty draw
// exponential gaps.
type arrivalGen struct {
	kind arrivalKind
	r    *des.Rand
	t    des.Time
	// schedule (constant is a one-step schedule)
	at   []des.Time
	rate []float64
	cum  []float64 // arrivals expected before step j starts
	k    float64   // arrivals so far
	// poisson and bursty
	onRate, offRate float64
	onMean, offMean float64 // seconds
	meanGap         float64 // poisson: mean gap in nanoseconds
	on              bool
	stateEnd        des.Time
}

// arrivalKind is how an arrivalGen draws, resolved from the process's
// name when the job is built.
type arrivalKind uint8

const (
	arrivalSteps   arrivalKind = iota // constant and schedule: from the cumulative rate
	arrivalPoisson                    // exponential gaps
	arrivalBursty                     // on/off
	// arrivalConstant: a constant rate, or a schedule of one step from
	// 0 (arrivalSteps with at = {0}, cum = {0})
	arrivalConstant
)

func newArrivalGen(a scenario.Arrival, r *des.Rand) *arrivalGen {
	g := &arrivalGen{r: r}
	switch a.Process {
	case scenario.ArrivalPoisson:
		g.kind = arrivalPoisson
		g.onRate = a.Rate
		if a.Rate > 0 {
			g.meanGap = float64(des.Second) / a.Rate
		}
	case scenario.ArrivalBursty:
		g.kind = arrivalBursty
		g.onRate, g.offRate = a.Rate, a.OffRate
		g.onMean, g.offMean = a.On.Seconds(), a.Off.Seconds()
		g.on = true
		g.stateEnd = des.FromSeconds(r.ExpFloat64() * g.onMean)
	case scenario.ArrivalSchedule:
		for _, s := range a.Schedule {
			g.at = append(g.at, s.At)
			g.rate = append(g.rate, s.Rate)
		}
	default: // constant
		g.at, g.rate = []des.Time{0}, []float64{a.Rate}
	}
	if len(g.at) > 0 {
		g.cum = make([]float64, len(g.at))
		for j := 1; j < len(g.at); j++ {
			g.cum[j] = g.cum[j-1] + g.rate[j-1]*(g.at[j]-g.at[j-1]).Seconds()
		}
		if len(g.at) == 1 && g.at[0] == 0 {
			g.kind = arrivalConstant
		}
	}
	return g
}

// next advances to and returns the next arrival time, or des.Never when the
// process has ended (a last step of rate 0). A poisson process and a
// constant rate (one step from 0, arrivalConstant) take the short paths
// first; they compute what the general ones would, bit for bit.
func (g *arrivalGen) next() des.Time {
	switch g.kind {
	case arrivalPoisson:
		if g.onRate <= 0 {
			return des.Never
		}
		g.t = addNs(g.t, g.r.ExpFloat64()*g.meanGap)
		return g.t
	case arrivalConstant:
		// the steps' path with j = 0, at[0] = 0 and cum[0] = 0 (so
		// target-cum[0] is target)
		rate := g.rate[0]
		if rate <= 0 {
			return des.Never
		}
		target := g.k + 1
		g.k = target
		g.t = max(addNs(0, target/rate*float64(des.Second)), g.t)
		return g.t
	case arrivalBursty:
		return g.nextBursty()
	default:
		target := g.k + 1
		j := len(g.at) - 1
		for j > 0 && g.cum[j] >= target {
			j--
		}
		if g.rate[j] <= 0 { // a last step of rate 0: the source has ended
			return des.Never
		}
		g.k = target
		t := addNs(g.at[j], (target-g.cum[j])/g.rate[j]*float64(des.Second))
		if t < g.t {
			t = g.t
		}
		g.t = t
		return t
	}
}

// nextBursty is next of an on/off process.
func (g *arrivalGen) nextBursty() des.Time {
	for {
		rate := g.offRate
		if g.on {
			rate = g.onRate
		}
		cand := des.Never
		if rate > 0 {
			cand = addNs(g.t, g.r.ExpFloat64()/rate*float64(des.Second))
		}
		if cand < g.stateEnd {
			g.t = cand
			return g.t
		}
		g.t = g.stateEnd
		g.on = !g.on
		mean := g.offMean
		if g.on {
			mean = g.onMean
		}
		g.stateEnd = addNs(g.t, g.r.ExpFloat64()*mean*float64(des.Second))
	}
}

// skipPast advances a constant-rate process (one step of a positive rate)
// to its first arrival after now, as calling next until one comes after
// now would, and returns how many calls that takes and the arrival it
// stops at: the k-th arrival is at addNs(0, k/rate·1s), non-decreasing in
// k, so the count follows from now·rate and a check of its neighbours. It
// reports false (and does nothing) for any other process.
func (g *arrivalGen) skipPast(now des.Time) (calls uint64, at des.Time, ok bool) {
	if g.kind != arrivalConstant || !(g.rate[0] > 0) || g.k >= 1<<52 { // arrivalConstant: at = {0}, cum = {0}
		return 0, 0, false
	}
	rate := g.rate[0]
	f := func(k float64) des.Time { return max(addNs(0, k/rate*float64(des.Second)), g.t) }
	// the first k > g.k with f(k) > now
	k := max(math.Floor(float64(now)*rate/float64(des.Second))+1, g.k+1)
	for k-1 > g.k && f(k-1) > now {
		k--
	}
	for f(k) <= now {
		k++
	}
	calls = uint64(k - g.k)
	g.t, g.k = f(k), k
	return calls, g.t, true
}

// addNs returns t plus ns nanoseconds, rounded, saturating at des.Never
// (absurdly slow rates must not wrap simulated time around).
func addNs(t des.Time, ns float64) des.Time {
	if !(ns < float64(des.Never-t)) { // also catches NaN and +Inf
		return des.Never
	}
	if ns < 0 {
		return t
	}
	return t + des.Time(ns+0.5)
}
