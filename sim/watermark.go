package sim

import (
	"math"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Event time and watermarks, as Flink's DataStream API has them
// (https://nightlies.apache.org/flink/flink-docs-stable/docs/concepts/time/):
//
//   - a source record's event time is its arrival less a delay drawn per
//     record (eventDelay), so records arrive out of event-time order;
//   - each source subtask runs a watermark generator (Flink's
//     WatermarkStrategy with BoundedOutOfOrdernessWatermarks and
//     WatermarksWithIdleness), called on every record it writes and every
//     auto_watermark_interval; a topic reader runs one per partition it
//     owns and gives out their minimum (watermarkGenerator);
//   - a watermark is an event in the network buffers, as a barrier is: it
//     finishes the partly filled buffer it follows, goes to every output
//     channel behind the data already written (under back-pressure it
//     waits behind them) and needs credit (broadcastEvent);
//   - a task's input watermark is the minimum over its input channels
//     that are not idle (watermarkValve, Flink's StatusWatermarkValve);
//     when it advances, the task processes it (a window fires) and
//     forwards it.

// minWatermark is Long.MIN_VALUE, the watermark before any (Flink's
// Watermark.UNINITIALIZED).
const minWatermark = des.Time(math.MinInt64)

// eventDelay draws the delay between a record's event time and its
// arrival (scenario.EventDelay), decided by a hash of the record id so
// that a replayed record has the event time it had the first time and no
// random stream needs rewinding.
type eventDelay struct {
	kind           delayKind
	mean, min, max float64 // nanoseconds
	sd             float64
	pa, pb         float64 // normal: Φ((0−mean)/sd) and Φ((max−mean)/sd)
	salt           uint64
}

// delayKind is an event delay's distribution, resolved from its name when
// the job is built, so that a record's draw compares no strings.
type delayKind uint8

const (
	delayConstant delayKind = iota
	delayUniform
	delayExponential
	delayNormal
)

func newEventDelay(d *scenario.EventDelay, salt uint64) *eventDelay {
	e := &eventDelay{mean: float64(d.Mean), min: float64(d.Min), max: float64(d.Max),
		sd: float64(d.Stddev), salt: mix64(salt ^ 0x5be0cd19137e2179)}
	switch d.Distribution {
	case scenario.DelayUniform:
		e.kind = delayUniform
	case scenario.DelayExponential:
		e.kind = delayExponential
	case scenario.DelayNormal:
		e.kind = delayNormal
	}
	if e.kind == delayNormal {
		e.pa, e.pb = normalCDF((0-e.mean)/e.sd), normalCDF((e.max-e.mean)/e.sd)
	}
	return e
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// draw returns the delay of the record with id: constant mean, uniform
// in [min, max], exponential with mean (inverse CDF −mean·ln(1−u)), or a
// normal truncated to [0, max] by its inverse CDF (exact, no rejection).
func (d *eventDelay) draw(id uint64) des.Time {
	u := unitFloat(mix64(id ^ d.salt))
	var x float64
	switch d.kind {
	case delayUniform:
		x = d.min + u*(d.max-d.min)
	case delayExponential:
		x = -d.mean * math.Log1p(-u)
	case delayNormal:
		p := d.pa + u*(d.pb-d.pa)
		x = d.mean + d.sd*math.Sqrt2*math.Erfinv(2*p-1)
		x = min(max(x, 0), d.max)
	default:
		x = d.mean
	}
	return des.Time(x + 0.5)
}

// watermarkGenerator is the watermark generation of one source subtask,
// as Flink's SourceOperator runs it (ProgressiveTimestampsAndWatermarks
// with SplitLocalOutputs): every split the subtask reads (a partition a
// topic reader owns; one split for any other source) has a generator of
// its own (splitWatermark: BoundedOutOfOrdernessWatermarks, the largest
// event time seen minus B minus 1, emitted periodically, monotonous is
// B = 0, or a punctuated generator that emits the same value on every
// record, wrapped in WatermarksWithIdleness and its IdlenessTimer). A
// WatermarkOutputMultiplexer (flink-core) combines them: the subtask's
// watermark is the minimum over the splits that are not idle
// (CombinedWatermarkStatus), so one slow or silent partition holds it
// back unless idleness marks it idle, and the subtask is idle when every
// split is. A record's watermark goes to the multiplexer at once (its
// immediate output), a periodic one when every split has emitted
// (deferred outputs, then onPeriodicEmit). Behind it a
// WatermarkToDataOutput emits only advancing watermarks and the
// IDLE/ACTIVE status changes.
type watermarkGenerator struct {
	t          *subtask
	punctuated bool
	monotonous bool // forMonotonousTimestamps: bound 0, no field to raise
	bound      des.Time
	interval   des.Time
	idleness   des.Time
	splits     []splitWatermark
	combined   des.Time // CombinedWatermarkStatus.combinedWatermark
	// WatermarkToDataOutput
	maxOut  des.Time
	outIdle bool
	epoch   uint32
	// for the diagnosis: when the last record came, and how far each
	// record's event time was behind the largest of its split seen
	// before it
	lastEvent des.Time
	behind    *metrics.Histogram
}

// splitWatermark is one split's generator with its IdlenessTimer and
// the multiplexer's PartialWatermark of it.
type splitWatermark struct {
	maxTS des.Time // the largest event time seen (Long.MIN_VALUE + B + 1 before any)
	// IdlenessTimer: counter counts records, lastCounter is its value at
	// the last check; the countdown started at inactiveSince (timing).
	counter, lastCounter uint64
	inactiveSince        des.Time
	timing               bool
	// PartialWatermark
	wm   des.Time
	idle bool
}

// newWatermarkGenerator returns the generator of source subtask t with
// splits splits (at least one).
func newWatermarkGenerator(t *subtask, w *scenario.Watermarks, splits int) *watermarkGenerator {
	g := &watermarkGenerator{t: t, punctuated: w.Strategy == scenario.WatermarksPunctuated, interval: w.AutoWatermarkInterval, idleness: w.Idleness,
		behind: metrics.NewHistogram(), splits: make([]splitWatermark, max(splits, 1))}
	if g.monotonous = w.Strategy == scenario.WatermarksMonotonous; !g.monotonous {
		g.bound = w.BoundedOutOfOrderness
	}
	if g.interval <= 0 {
		g.interval = 200 * des.Millisecond
	}
	g.reset()
	return g
}

// reset starts the generator afresh (a restarted task: Flink does not
// checkpoint watermarks).
func (g *watermarkGenerator) reset() {
	for i := range g.splits {
		g.splits[i] = splitWatermark{maxTS: minWatermark + g.bound + 1, wm: minWatermark}
	}
	g.combined = minWatermark
	g.maxOut, g.outIdle = minWatermark, false
	g.epoch = g.t.s.epoch
}

// start schedules the first periodic emission, one interval after the
// start (Flink registers the timer when the source opens).
func (g *watermarkGenerator) start() {
	g.t.s.eng.Schedule(g.interval, (*watermarkTick)(g), 0)
}

// onEvent takes the event time of a record the source wrote from split
// i (SourceOutputWithWatermarks.collect).
func (g *watermarkGenerator) onEvent(now des.Time, i int, et des.Time) {
	if g.epoch != g.t.s.epoch {
		g.reset()
	}
	s := &g.splits[i]
	if top := s.maxTS; top > minWatermark+g.bound+1 && top > et {
		g.behind.Add(top - et)
	} else {
		g.behind.Add(0)
	}
	g.lastEvent = now
	s.maxTS = max(s.maxTS, et)
	s.counter++
	if g.punctuated && s.set(s.maxTS-g.bound-1) && s.wm > g.combined {
		g.update(now) // the immediate output
	}
}

// onPeriodicEmit is each split's WatermarksWithIdleness.onPeriodicEmit
// into its deferred output (idle once its IdlenessTimer says so, else
// the wrapped generator's periodic watermark), then the multiplexer's
// onPeriodicEmit.
func (g *watermarkGenerator) onPeriodicEmit(now des.Time) {
	for i := range g.splits {
		s := &g.splits[i]
		switch {
		case g.idleness > 0 && s.checkIfIdle(now, g.idleness):
			s.idle = true
		case !g.punctuated:
			s.set(s.maxTS - g.bound - 1)
		}
	}
	g.update(now)
}

// set is PartialWatermark.setWatermark: it clears the idle flag and
// reports whether wm advanced the split's watermark.
func (s *splitWatermark) set(wm des.Time) bool {
	s.idle = false
	if wm > s.wm {
		s.wm = wm
		return true
	}
	return false
}

// checkIfIdle is Flink's IdlenessTimer.checkIfIdle: the countdown starts
// at the first check that saw no record since the previous one, and the
// split is idle at the first check strictly more than idleness later.
func (s *splitWatermark) checkIfIdle(now, idleness des.Time) bool {
	if s.counter != s.lastCounter {
		s.lastCounter = s.counter
		s.timing = false
		return false
	}
	if !s.timing {
		s.timing, s.inactiveSince = true, now
		return false
	}
	return now-s.inactiveSince > idleness
}

// update is WatermarkOutputMultiplexer.updateCombinedWatermark: the
// minimum over the splits that are not idle goes out if it advanced the
// combined watermark; with every split idle the output is marked idle.
func (g *watermarkGenerator) update(now des.Time) {
	lo, allIdle := des.Time(math.MaxInt64), true
	for i := range g.splits {
		if s := &g.splits[i]; !s.idle {
			lo, allIdle = min(lo, s.wm), false
		}
	}
	switch {
	case !allIdle && lo > g.combined:
		g.combined = lo
		g.output(now, lo)
	case allIdle && !g.outIdle:
		g.outIdle = true
		g.t.emitWatermarkEvent(now, event{kind: watermarkStatusEvent, idle: true})
	}
}

// output is WatermarkToDataOutput.emitWatermark: only a watermark past
// the last one goes out, after an ACTIVE status if the output was idle.
func (g *watermarkGenerator) output(now, wm des.Time) {
	if wm <= g.maxOut {
		return
	}
	g.maxOut = wm
	if g.outIdle {
		g.outIdle = false
		g.t.emitWatermarkEvent(now, event{kind: watermarkStatusEvent})
	}
	g.t.emitWatermarkEvent(now, event{kind: watermarkEvent, watermark: wm})
}

// watermarkTick is the periodic emission of a source subtask's watermark
// generator (Flink's processing-time timer every
// pipeline.auto-watermark-interval). It runs through failovers (the
// generator starts afresh in a new epoch) and skips its emission while
// the subtask is down or its worker paused.
type watermarkTick watermarkGenerator

// HandleEvent emits the periodic watermark and schedules the next.
func (e *watermarkTick) HandleEvent(now des.Time, _ int64) {
	g := (*watermarkGenerator)(e)
	t := g.t
	t.s.eng.Schedule(now+g.interval, e, 0)
	if t.down || t.s.workers[t.worker].pausedUntil > now {
		return
	}
	if g.epoch != t.s.epoch {
		g.reset()
	}
	g.onPeriodicEmit(now)
}

// taskWatermarks is a task's event-time progress: its current input and
// output watermarks (Flink's currentInputWatermark and
// currentOutputWatermark metrics) and the watermark events it holds back
// while its record writer holds records not yet written (they must not
// overtake them).
type taskWatermarks struct {
	in, out  des.Time
	idleOut  bool
	deferred []event
	gen      *watermarkGenerator // a source's generator; nil otherwise
	epoch    uint32
}

func newTaskWatermarks(epoch uint32) *taskWatermarks {
	return &taskWatermarks{in: minWatermark, out: minWatermark, epoch: epoch}
}

// fresh resets w after a failover: the new channels start without
// watermarks.
func (w *taskWatermarks) fresh(epoch uint32) {
	if w.epoch != epoch {
		w.in, w.out, w.idleOut, w.deferred, w.epoch = minWatermark, minWatermark, false, w.deferred[:0], epoch
	}
}

// emitWatermarkEvent sends a watermark or watermark status downstream, or
// holds it back while the task holds records it has not written.
func (t *subtask) emitWatermarkEvent(now des.Time, ev event) {
	w := t.wm
	w.fresh(t.s.epoch)
	if t.holding() || len(w.deferred) > 0 {
		w.deferred = append(w.deferred, ev)
		return
	}
	t.broadcastEvent(now, ev)
}

// holding reports whether t's record writer holds records it has not
// written (back-pressured, or handed to a chained operator that is not
// done with them): a watermark event must wait behind them.
func (t *subtask) holding() bool { return t.pi < len(t.pend) }

// flushWatermarks sends the watermark events held back, once the record
// writer has written what it held.
func (t *subtask) flushWatermarks(now des.Time) {
	w := t.wm
	if w == nil {
		return
	}
	w.fresh(t.s.epoch)
	for len(w.deferred) > 0 && !t.holding() {
		ev := w.deferred[0]
		w.deferred = append(w.deferred[:0], w.deferred[1:]...)
		t.broadcastEvent(now, ev)
	}
}

// broadcastEvent writes a watermark event into every output channel, as
// Flink's RecordWriter.broadcastEvent: each channel's partly filled
// buffer is finished first, and the event follows it in the backlog and
// needs credit, as an aligned barrier does. A chained operator takes it
// at once, in this thread.
func (t *subtask) broadcastEvent(now des.Time, ev event) {
	w := t.wm
	if ev.kind == watermarkEvent {
		if ev.watermark <= w.out {
			return
		}
		w.out = ev.watermark
	} else {
		if ev.idle == w.idleOut {
			return
		}
		w.idleOut = ev.idle
	}
	for _, p := range t.outs {
		if p.next != nil {
			p.next.inputEvent(now, nil, ev)
			continue
		}
		for _, c := range p.chans {
			b := t.s.newBuffer()
			b.dataType, b.event = eventBuffer, ev
			p.addEvent(now, c, b)
		}
	}
}

// inputEvent takes a watermark event that came on input channel c (nil
// for a chained operator, which has one input): through the valve, then
// processed when the input watermark advances, and forwarded.
func (t *subtask) inputEvent(now des.Time, c *channel, ev event) {
	if t.wm == nil {
		t.wm = newTaskWatermarks(t.s.epoch)
	}
	t.wm.fresh(t.s.epoch)
	if c == nil {
		if ev.kind == watermarkEvent {
			t.processWatermark(now, ev.watermark)
		} else {
			t.emitWatermarkEvent(now, ev)
		}
		return
	}
	g := t.gate
	if g.valve == nil {
		g.valve = newWatermarkValve(g.chans)
	}
	wm, status, out := g.valve.input(c, ev)
	switch out {
	case valveWatermark:
		t.processWatermark(now, wm)
	case valveStatus:
		t.emitWatermarkEvent(now, event{kind: watermarkStatusEvent, idle: status})
	case valveBoth: // the last channel went idle: its watermark goes first
		t.processWatermark(now, wm)
		t.emitWatermarkEvent(now, event{kind: watermarkStatusEvent, idle: status})
	}
}

// watermarkProcessor is a record processor that acts on watermarks (a
// window operator fires its windows); it forwards the watermark itself,
// after the results it emits.
type watermarkProcessor interface {
	processWatermark(now, wm des.Time)
}

// processWatermark advances t's input watermark to wm (Flink's
// AbstractStreamOperator.processWatermark): a window operator fires; any
// other task forwards it at once (a sink only records it).
func (t *subtask) processWatermark(now, wm des.Time) {
	t.wm.in = wm
	if p, ok := t.proc.(watermarkProcessor); ok {
		p.processWatermark(now, wm)
		return
	}
	if len(t.outs) > 0 {
		t.emitWatermarkEvent(now, event{kind: watermarkEvent, watermark: wm})
	}
}

// What a valve's input gives out.
const (
	valveNothing = iota
	valveWatermark
	valveStatus
	valveBoth
)

// watermarkValve is Flink's StatusWatermarkValve over a task's input
// channels: the input watermark is the minimum over the aligned channels
// (active, and caught up with the last output); an idle channel does not
// hold it back; when every channel is idle the valve flushes the largest
// watermark of all and goes idle itself.
type watermarkValve struct {
	chans   []*channel
	wm      []des.Time
	active  []bool
	aligned []bool
	last    des.Time // lastOutputWatermark
	idle    bool     // lastOutputWatermarkStatus is IDLE
	out     des.Time // the watermark to give out (input's result)
}

func newWatermarkValve(chans []*channel) *watermarkValve {
	v := &watermarkValve{chans: chans, wm: make([]des.Time, len(chans)), active: make([]bool, len(chans)),
		aligned: make([]bool, len(chans)), last: minWatermark}
	for i := range chans {
		v.wm[i], v.active[i], v.aligned[i] = minWatermark, true, true
	}
	return v
}

// input feeds event ev of channel c into the valve and says what it
// gives out: a new input watermark, a new status (idle true), or both.
func (v *watermarkValve) input(c *channel, ev event) (wm des.Time, idle bool, out int) {
	i := 0
	for i < len(v.chans) && v.chans[i] != c {
		i++
	}
	if i == len(v.chans) {
		return 0, false, valveNothing
	}
	if ev.kind == watermarkEvent {
		if v.idle || !v.active[i] || ev.watermark <= v.wm[i] {
			return 0, false, valveNothing
		}
		v.wm[i] = ev.watermark
		if !v.aligned[i] && ev.watermark >= v.last {
			v.aligned[i] = true
		}
		if v.newMin() {
			return v.last, false, valveWatermark
		}
		return 0, false, valveNothing
	}
	switch {
	case ev.idle && v.active[i]:
		v.active[i], v.aligned[i] = false, false
		anyActive := false
		for _, a := range v.active {
			anyActive = anyActive || a
		}
		if !anyActive {
			flushed := false
			if v.wm[i] == v.last {
				hi := minWatermark
				for _, w := range v.wm {
					hi = max(hi, w)
				}
				if hi > v.last {
					v.last, flushed = hi, true
				}
			}
			v.idle = true
			if flushed {
				return v.last, true, valveBoth
			}
			return 0, true, valveStatus
		}
		if v.wm[i] == v.last && v.newMin() {
			return v.last, false, valveWatermark
		}
	case !ev.idle && !v.active[i]:
		v.active[i] = true
		if v.wm[i] >= v.last {
			v.aligned[i] = true
		}
		if v.idle {
			v.idle = false
			return 0, false, valveStatus
		}
	}
	return 0, false, valveNothing
}

// newMin advances the output to the minimum over the aligned channels if
// that is past it, and reports whether it did.
func (v *watermarkValve) newMin() bool {
	lo, any := des.Time(math.MaxInt64), false
	for j, a := range v.aligned {
		if a {
			lo, any = min(lo, v.wm[j]), true
		}
	}
	if any && lo > v.last {
		v.last = lo
		return true
	}
	return false
}

// seen reports whether any split has had a record since the generator
// started afresh.
func (g *watermarkGenerator) seen() bool {
	for i := range g.splits {
		if g.splits[i].counter > 0 {
			return true
		}
	}
	return false
}
