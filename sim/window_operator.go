package sim

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/scenario"
)

// windowOperator is the record processor of a window operator, as Flink's
// WindowOperator
// (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/windows/):
//
//   - the assigner puts each record into windows by its event time (or,
//     in processing time, by the clock at its service): tumbling,
//     sliding (size/slide windows), session (merged per key, as
//     MergingWindowSet) or one global window per key;
//   - a window whose end plus allowed lateness the watermark has passed
//     is late: a record that falls only into late windows is dropped and
//     counted (numLateRecordsDropped), or, with a late output
//     (sideOutputLateData), sent to that side output and not counted
//     (WindowOperator.processElement: sideOutput(element) if
//     lateDataOutputTag != null, else numLateRecordsDropped.inc());
//   - the EventTimeTrigger registers a timer at the window's
//     maxTimestamp (end − 1) and fires when the watermark reaches it; a
//     record for a window the watermark has passed but within the
//     allowed lateness fires it again at once (a late firing, which
//     updates the result); a cleanup timer at maxTimestamp + allowed
//     lateness clears the window's state (WindowOperator.registerCleanupTimer);
//   - processing-time windows fire on the clock (ProcessingTimeTrigger); a
//     global window fires and purges every count records of a key
//     (PurgingTrigger of a CountTrigger, countWindow).
//
// An aggregate window function keeps one accumulator per key and window
// (accumulator_size); a process function keeps every record
// (record_size each) and a firing costs service_time per record kept.
// Each firing emits one result record per key and window, whose id is
// derived from (operator, key, window, firing), so delivery accounting
// sees duplicated and lost results. The result's event time is the
// window's maxTimestamp, as Flink's windowed stream stamps it. The
// window state counts in the task's keyed state (state_bytes, snapshot
// sizes, heap memory).
type windowOperator struct {
	t        *subtask
	kind     windowKind
	event    bool // event time (else processing time)
	process  bool // full window function
	size     des.Time
	slide    des.Time
	gap      des.Time
	count    int64
	lateness des.Time
	lateOut  bool // late records go to the late side output (window.late_output)
	accBytes int64
	recBytes int64
	seq      int // the result records' id space (Sim.recSize)

	windows  map[winID]*winState
	free     []*winState           // states of purged windows, for reuse
	sessions map[uint32][]des.Time // session windows: the starts of each key's open windows
	timers   timerQueue            // event-time timers, or processing-time ones
	armedAt  des.Time              // processing time: when the timer event is due (0: none)
	procDue  bool                  // processing-time timers due while the task was not idle
	epoch    uint32
	gen      uint32 // snapshots captured: a timer's key or a join's record written since the last one has this generation

	pendWM   des.Time // a watermark to forward once the results it fired are written
	hasWM    bool
	firing   bool // busy with a firing's cost
	fireCost des.Time

	stats *windowStats
	snaps map[int64]*windowSnap // by checkpoint id: the pending ones and the latest completed
	// timerFn handles a timer in place of onTimer (timer_operator.go)
	timerFn func(now des.Time, x timer)
	// sides is the input (0 left, 1 right) of a join's record by the id
	// space of its origin (join_operator.go); nil for a window
	sides []int8
}

// windowSnap is a window operator's windows as a checkpoint captured
// them (Flink snapshots the window state and the timers with the keyed
// state backend).
type windowSnap struct {
	windows  map[winID]winState
	sessions map[uint32][]des.Time
	timers   []timer
	bytes    int64
}

// winID names a window of a key: its start (for a global window, 0).
type winID struct {
	key   uint32
	start des.Time
}

// winState is the state of one key's window.
type winState struct {
	end     des.Time // exclusive; maxTimestamp is end − 1
	records int64    // records in the window
	ingest  des.Time // the latest entry into the job of a record in it (the result's latency)
	firings uint32
	bytes   int64    // state held
	fired   bool     // fired on time (a later firing is late)
	side    [2]int64 // a window join: the records of each input
	delta   int64    // bytes written since the last snapshot (incremental): the accumulator, or the records appended
}

// windowStats are a window vertex's metrics, shared by its subtasks.
type windowStats struct {
	lateDropped uint64             // numLateRecordsDropped
	lateSide    uint64             // late records sent to the late side output instead
	firings     uint64             // results emitted
	lateFirings uint64             // of them, late firings (allowed lateness)
	fireDelay   *metrics.Histogram // processing time of a firing − the window's end
	perWindow   *metrics.Histogram // records per window at its first firing (counts as nanoseconds)
	maxState    int64              // the largest window state of a subtask seen, bytes
	pairs       uint64             // joins: the pairs emitted
	records     uint64             // records taken in
	emitted     uint64             // result records written
	// onFire, if set (tests), sees every firing: the key, the window's
	// start, the firing (0 on time, then late ones) and the records in it
	onFire func(key uint32, start des.Time, firing uint32, records int64)
}

// windowKind is a window operator's assigner, resolved from its name when
// the job is built, so that a record's assignment compares no strings;
// a tumbling window is a sliding one whose slide is its size.
type windowKind uint8

const (
	windowSliding windowKind = iota
	windowTumbling
	windowSession
	windowGlobal
)

func newWindowOperator(t *subtask, w *scenario.Window, recBytes int64, seq int, stats *windowStats) *windowOperator {
	o := &windowOperator{t: t, event: w.Time != scenario.TimeProcessing && w.Kind != scenario.WindowGlobal,
		process: w.Function == scenario.FunctionProcess, size: w.Size, slide: w.Slide, gap: w.Gap, count: int64(w.Count),
		lateness: w.AllowedLateness, lateOut: w.LateOutput != "", accBytes: w.AccumulatorSize, recBytes: recBytes, seq: seq,
		windows: map[winID]*winState{}, epoch: t.s.epoch, stats: stats}
	switch w.Kind {
	case scenario.WindowTumbling:
		o.kind = windowTumbling
	case scenario.WindowSession:
		o.kind = windowSession
	case scenario.WindowGlobal:
		o.kind = windowGlobal
	}
	if o.kind == windowTumbling {
		o.slide = o.size
	}
	if o.accBytes <= 0 {
		o.accBytes = 64
	}
	if o.kind == windowSession {
		o.sessions = map[uint32][]des.Time{}
		o.timers.deletable()
	}
	return o
}

func newWindowStats() *windowStats {
	return &windowStats{fireDelay: metrics.NewHistogram(), perWindow: metrics.NewHistogram()}
}

// fresh drops the windows of an older epoch (a failover: the restarted
// task rebuilds them from the records replayed).
func (w *windowOperator) fresh() {
	if w.epoch == w.t.s.epoch {
		return
	}
	w.epoch = w.t.s.epoch
	clear(w.windows)
	if w.sessions != nil {
		clear(w.sessions)
	}
	w.timers.reset()
	w.armedAt, w.procDue, w.hasWM, w.firing = 0, false, false, false
}

// stateBytes returns the window state held.
func (w *windowOperator) stateBytes() int64 {
	if w.t.keyed == nil {
		return 0
	}
	return w.t.keyed.extra
}

// grow adds n bytes of window state to the task's keyed state (and, on
// the heap backend, to its worker's heap).
func (w *windowOperator) grow(now des.Time, n int64) {
	k := w.t.keyed
	k.extra += n
	if k.backend == scenario.BackendHeap {
		w.t.s.workers[w.t.worker].grow(now, n)
	}
	w.stats.maxState = max(w.stats.maxState, k.extra)
}

// run takes input records while the task is idle.
func (w *windowOperator) run(now des.Time) { w.t.pull(now) }

// complete assigns the record in hand to its windows.
func (w *windowOperator) complete(now des.Time) {
	if w.firing {
		w.firing = false
		w.write(now)
		return
	}
	w.fresh()
	r, ts := w.take(now)
	switch w.kind {
	case windowGlobal:
		w.addGlobal(now, r)
	case windowSession:
		w.addSession(now, r, ts)
	default:
		w.addSliding(now, r, ts)
	}
	w.afterFirings(now)
}

// currentWatermark is the task's input watermark (event time).
func (w *windowOperator) currentWatermark() des.Time {
	if w.t.wm == nil {
		return minWatermark
	}
	w.t.wm.fresh(w.t.s.epoch) // a restarted task starts without a watermark
	return w.t.wm.in
}

// late reports whether window [.., end) is past its allowed lateness
// (WindowOperator.isWindowLate: maxTimestamp + allowedLateness <=
// currentWatermark).
func (w *windowOperator) late(end des.Time) bool {
	return w.event && end-1+w.lateness <= w.currentWatermark()
}

// addSliding puts r into every tumbling or sliding window of ts
// (SlidingEventTimeWindows.assignWindows: starts from
// TimeWindow.getWindowStartWithOffset down, every slide, while the window
// still holds ts).
func (w *windowOperator) addSliding(now des.Time, r *Record, ts des.Time) {
	last := ts - mod(ts, w.slide)
	added := false
	for start := last; start > ts-w.size; start -= w.slide {
		end := start + w.size
		if w.late(end) {
			continue
		}
		added = true
		w.add(now, winID{r.Key, start}, end, r)
	}
	if !added {
		w.lateRecord(r)
	}
}

// lateRecord handles a record that falls only into late windows: it is
// sent to the late side output if there is one, else dropped and
// counted (WindowOperator.processElement).
func (w *windowOperator) lateRecord(r *Record) {
	if !w.lateOut {
		w.stats.lateDropped++
		return
	}
	w.stats.lateSide++
	x := *r
	x.late = true
	w.t.pend = append(w.t.pend, x)
}

// addSession puts r into its session window [ts, ts+gap), merged with
// every window of its key it overlaps (MergingWindowSet).
func (w *windowOperator) addSession(now des.Time, r *Record, ts des.Time) {
	start, end := ts, ts+w.gap
	starts := w.sessions[r.Key]
	var merged *winState
	keep := starts[:0]
	for _, s := range starts {
		st := w.windows[winID{r.Key, s}]
		if st == nil || !(s < end && start < st.end) {
			if st != nil {
				keep = append(keep, s)
			}
			continue
		}
		// merge st into the new window; its timers go
		// (WindowOperator's MergeFunction: triggerContext.clear and
		// deleteCleanupTimer of each merged window)
		start, end = min(start, s), max(end, st.end)
		w.unregister(winID{r.Key, s}, st)
		delete(w.windows, winID{r.Key, s})
		if merged == nil {
			merged = st
			continue
		}
		merged.records += st.records
		merged.bytes += st.bytes
		// the merge writes the state window (WindowOperator's
		// mergeNamespaces): an accumulator merged into it, or a
		// buffer's records appended to it
		if w.process {
			merged.delta += st.bytes
		} else {
			merged.delta = w.accBytes
		}
		merged.ingest = max(merged.ingest, st.ingest)
		merged.firings = max(merged.firings, st.firings)
	}
	if w.late(end) {
		if merged != nil { // the windows merged with a late one stay as they were: put them back
			merged.end = max(merged.end, end)
			w.windows[winID{r.Key, start}] = merged
			w.register(winID{r.Key, start}, merged)
			keep = append(keep, start)
		}
		w.sessions[r.Key] = keep
		w.lateRecord(r)
		return
	}
	id := winID{r.Key, start}
	if merged != nil {
		merged.end = end
		w.windows[id] = merged
		w.register(id, merged)
	}
	w.sessions[r.Key] = append(keep, start)
	w.add(now, id, end, r)
}

// addGlobal counts r into its key's global window and fires and purges
// it every count records.
func (w *windowOperator) addGlobal(now des.Time, r *Record) {
	id := winID{r.Key, 0}
	st := w.add(now, id, des.Never, r)
	if st.records >= w.count {
		w.fire(now, id, st)
		// PurgingTrigger: the contents go, the key's firing count stays
		// (the next result's identity)
		w.grow(now, -st.bytes)
		st.records, st.bytes, st.fired, st.delta = 0, 0, false, 0
		if !w.process {
			st.bytes = w.accBytes
			w.grow(now, w.accBytes)
		}
	}
}

// add puts r into window id (ending at end), making its state (and its
// timers) if it is new; a window whose trigger time the watermark has
// passed fires again at once (EventTimeTrigger.onElement: a late firing).
func (w *windowOperator) add(now des.Time, id winID, end des.Time, r *Record) *winState {
	w.t.s.didWork(1)
	st := w.windows[id]
	if st == nil {
		if n := len(w.free); n > 0 {
			st = w.free[n-1]
			w.free = w.free[:n-1]
			*st = winState{end: end}
		} else {
			st = &winState{end: end}
		}
		w.windows[id] = st
		if !w.process {
			st.bytes = w.accBytes
			w.grow(now, w.accBytes)
		}
		if w.kind != windowGlobal {
			w.register(id, st)
		}
	}
	st.records++
	if w.process {
		st.delta += w.recBytes // appended to the window's list state
	} else {
		st.delta = w.accBytes // the accumulator put: RocksDB flushes its latest value
	}
	if w.sides != nil {
		st.side[w.sideOf(r)]++
	}
	st.ingest = max(st.ingest, r.Ingest)
	if w.process {
		st.bytes += w.recBytes
		w.grow(now, w.recBytes)
	}
	if w.event && st.end-1 <= w.currentWatermark() {
		w.fire(now, id, st) // late, within the allowed lateness
	}
	return st
}

// register sets the trigger's timer of window st (at its maxTimestamp)
// and, with allowed lateness, its cleanup timer.
func (w *windowOperator) register(id winID, st *winState) {
	w.timers.push(timer{at: st.end - 1, key: id.key, ns: id.start})
	if w.lateness > 0 {
		w.timers.push(timer{at: st.end - 1 + w.lateness, key: id.key, ns: id.start})
	}
	if !w.event {
		w.armProcessing(st.end - 1)
	}
}

// unregister deletes the timers register set for window st (merged into
// another).
func (w *windowOperator) unregister(id winID, st *winState) {
	w.timers.remove(timer{at: st.end - 1, key: id.key, ns: id.start})
	if w.lateness > 0 {
		w.timers.remove(timer{at: st.end - 1 + w.lateness, key: id.key, ns: id.start})
	}
}

// fire emits the result of window id: one record whose id is derived
// from (operator, key, window, firing).
func (w *windowOperator) fire(now des.Time, id winID, st *winState) {
	t := w.t
	firing := st.firings
	st.firings++
	off, ext := w.resultOffset(id, firing)
	et := st.end - 1
	if w.kind == windowGlobal {
		et = t.cur.EventTime
	}
	if w.sides == nil {
		r := resultRecord(w.seq, off, ext)
		r.EventTime, r.Ingest, r.Key = et, st.ingest, id.key
		t.pend = append(t.pend, r)
		t.s.didWork(1)
	} else {
		t.s.didWork(int(st.side[0] * st.side[1]))
		// a window join (Flink's JoinedStreams: a coGroup over the
		// window): every pair of a left and a right record, the pair's
		// index hashed into the window's identity
		h := uint64(ext)<<offsetBits | off
		for i := int64(0); i < st.side[0]*st.side[1]; i++ {
			r := hashedRecord(w.seq, h^mix64(uint64(i+1)))
			r.EventTime, r.Ingest, r.Key = et, st.ingest, id.key
			t.pend = append(t.pend, r)
		}
	}
	if w.process {
		w.fireCost += des.Time(st.records) * t.v.svc.mean
	}
	s := w.stats
	s.firings++
	if s.onFire != nil {
		s.onFire(id.key, id.start, firing, st.records)
	}
	if w.sides != nil {
		s.pairs += uint64(st.side[0] * st.side[1])
	}
	if st.fired {
		s.lateFirings++
	} else {
		st.fired = true
		if w.kind != windowGlobal {
			// max: a processing-time window fires at its last instant,
			// end − 1ns (ProcessingTimeTrigger's timer at
			// window.maxTimestamp()), so on time, not 1ns early
			s.fireDelay.Add(max(now-st.end, 0))
		}
		s.perWindow.Add(des.Time(st.records))
	}
}

// purge clears the state of window id.
func (w *windowOperator) purge(now des.Time, id winID, st *winState) {
	delete(w.windows, id)
	w.grow(now, -st.bytes)
	w.free = append(w.free, st)
}

// onTimer handles a timer: the trigger's fires the window, the cleanup
// timer (the same one without allowed lateness) clears it; a timer of a
// window that no longer ends there is skipped.
func (w *windowOperator) onTimer(now des.Time, x timer) {
	id := winID{x.key, x.ns}
	st := w.windows[id]
	if st == nil {
		return
	}
	if x.at == st.end-1 {
		w.fire(now, id, st)
	}
	if x.at == st.end-1+w.lateness {
		w.purge(now, id, st)
		if w.sessions != nil {
			starts := w.sessions[id.key]
			for i, s := range starts {
				if s == id.start {
					w.sessions[id.key] = append(starts[:i], starts[i+1:]...)
					break
				}
			}
			if len(w.sessions[id.key]) == 0 {
				delete(w.sessions, id.key)
			}
		}
	}
}

// processWatermark fires the event-time timers the watermark has reached
// (InternalTimerServiceImpl.advanceWatermark), in time order, and
// forwards the watermark once their results are written.
func (w *windowOperator) processWatermark(now, wm des.Time) {
	w.fresh()
	if w.event {
		for w.timers.len() > 0 && w.timers.peek().at <= wm {
			w.handleTimer(now, w.timers.pop())
		}
	}
	w.pendWM, w.hasWM = wm, true
	w.afterFirings(now)
}

// afterFirings writes the results fired, after the firing's cost (a
// process function reads every record of the window), then forwards a
// pending watermark; the task is idle again when all is written.
func (w *windowOperator) afterFirings(now des.Time) {
	t := w.t
	if w.fireCost > 0 {
		d := w.fireCost
		w.fireCost = 0
		if t.slow > 1 {
			d = des.Time(float64(d)*t.slow + 0.5)
		}
		w.firing = true
		t.setState(now, stateBusy)
		t.after(d, (*serviceDone)(t))
		return
	}
	w.write(now)
}

// write writes the results in hand; blocked, the task is back-pressured
// until written resumes it.
func (w *windowOperator) write(now des.Time) {
	t := w.t
	for _, r := range t.pend[t.pi:] {
		t.v.observeLatency(now - r.Ingest)
		if !r.late {
			w.stats.emitted++
		}
	}
	if !t.emit(now) {
		t.setState(now, t.blockedState())
		return
	}
	w.written0(now)
}

// written0 forwards the pending watermark and makes the task idle.
func (w *windowOperator) written0(now des.Time) {
	t := w.t
	if w.hasWM {
		w.hasWM = false
		t.emitWatermarkEvent(now, event{kind: watermarkEvent, watermark: w.pendWM})
	}
	t.setState(now, stateIdle)
	if w.procDue {
		w.procDue = false
		w.fireProcessing(now)
	}
}

// written goes on once the results held back are written.
func (w *windowOperator) written(now des.Time) {
	w.written0(now)
	if w.t.state == stateIdle {
		w.t.pull(now)
	}
}

// armProcessing schedules the processing-time timer event for at, unless
// one is due no later.
func (w *windowOperator) armProcessing(at des.Time) {
	now := w.t.s.eng.Now()
	if w.armedAt > now && w.armedAt <= at {
		return
	}
	w.armedAt = max(at, now)
	w.t.at(w.armedAt, (*processingTimer)(w))
}

// fireProcessing fires the processing-time timers due by now.
func (w *windowOperator) fireProcessing(now des.Time) {
	w.fresh()
	for w.timers.len() > 0 && w.timers.peek().at <= now {
		w.handleTimer(now, w.timers.pop())
	}
	if w.timers.len() > 0 {
		w.armProcessing(w.timers.peek().at)
	}
	w.afterFirings(now)
}

// processingTimer fires a window operator's processing-time timers
// (ProcessingTimeTrigger), when the task is idle; otherwise once it is.
type processingTimer windowOperator

// HandleEvent fires the processing-time timers due.
func (e *processingTimer) HandleEvent(now des.Time, epoch int64) {
	w := (*windowOperator)(e)
	t := w.t
	if !t.runs(now, epoch, e) {
		return
	}
	if now == w.armedAt {
		w.armedAt = 0
	}
	if t.state != stateIdle || t.holding() {
		w.procDue = true
		return
	}
	w.fireProcessing(now)
	if t.state == stateIdle {
		t.pull(now)
	}
}

// mod is x mod m in [0, m) (TimeWindow.getWindowStartWithOffset for
// negative timestamps too).
func mod(x, m des.Time) des.Time {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}

// capture keeps a copy of the windows and timers for checkpoint id, and
// drops the copies of checkpoints older than the latest completed one.
func (w *windowOperator) capture(id int64) {
	w.fresh()
	if w.snaps == nil {
		w.snaps = map[int64]*windowSnap{}
	}
	var latest int64
	if c := w.t.s.ckpt; c != nil && c.latest != nil {
		latest = c.latest.id
	}
	for old := range w.snaps {
		if old < latest {
			delete(w.snaps, old)
		}
	}
	sn := &windowSnap{windows: make(map[winID]winState, len(w.windows)), timers: append([]timer(nil), w.timers.h...), bytes: w.stateBytes()}
	var delta int64
	for id, st := range w.windows {
		delta += st.delta
		st.delta = 0
		sn.windows[id] = *st
	}
	// the windows written since the last snapshot and still held: what
	// an incremental one uploads (a purged window's tombstone counts
	// nothing)
	w.t.keyed.extraDelta = delta
	if w.sessions != nil {
		sn.sessions = make(map[uint32][]des.Time, len(w.sessions))
		for k, v := range w.sessions {
			sn.sessions[k] = append([]des.Time(nil), v...)
		}
	}
	w.snaps[id] = sn
	w.gen++ // the next delta starts
}

// restore brings the windows back from checkpoint ck (empty without one),
// after a failover.
func (w *windowOperator) restore(now des.Time, ck *checkpoint) {
	w.fresh()
	clear(w.windows)
	if w.sessions != nil {
		clear(w.sessions)
	}
	w.timers.reset()
	var sn *windowSnap
	if ck != nil {
		sn = w.snaps[ck.id]
	}
	for id := range w.snaps {
		if ck == nil || id != ck.id {
			delete(w.snaps, id) // pending ones were aborted by the failover
		}
	}
	if sn == nil {
		return
	}
	for id, st := range sn.windows {
		x := st
		w.windows[id] = &x
	}
	for k, v := range sn.sessions {
		w.sessions[k] = append([]des.Time(nil), v...)
	}
	w.timers.load(sn.timers)
	w.t.keyed.extra, w.t.keyed.extraDelta = 0, 0
	w.grow(now, sn.bytes)
	if !w.event && w.timers.len() > 0 {
		w.armedAt = 0
		w.armProcessing(w.timers.peek().at)
	}
}

// sideOf returns the input (0 left, 1 right) of a join's record r.
func (w *windowOperator) sideOf(r *Record) int8 {
	if o := originSeq(r.ID); o < len(w.sides) {
		return w.sides[o]
	}
	return 0
}

// resultOffset returns the identity of window id's result of the given
// firing, (operator subtask, key, window, firing), as the offset of its id
// and the bits above it (see resultRecord). An on-time firing of a key
// below 2^20 has the window's index (start / slide, start / gap for a
// session, whose starts of one key are more than a gap apart; the firing
// for a global window) in the high 20 bits of the offset and the key in
// the low 20, and the index's bits above its low 20 in ext (0 for the
// first 2^20 windows), so that a sink's set of visible results holds
// about two bytes a result (a roaring bitmap of near-dense ids); a late
// firing or a larger key takes a hash of them all (hashedResult).
func (w *windowOperator) resultOffset(id winID, firing uint32) (off uint64, ext uint32) {
	var wi int64
	switch w.kind {
	case windowGlobal:
		wi, firing = int64(firing), 0
	case windowSession:
		wi = floorDiv(id.start, w.gap)
	default:
		wi = floorDiv(id.start, w.slide)
	}
	if firing == 0 && id.key < 1<<20 {
		return uint64(wi)&(1<<20-1)<<20 | uint64(id.key), uint32(uint64(wi) >> 20)
	}
	return hashedResult(mix64(w.t.v.salt ^ uint64(id.key)<<20 ^ mix64(uint64(id.start)) ^ uint64(firing)*0x9e3779b97f4a7c15))
}

// floorDiv is x / m rounded down (m > 0).
func floorDiv(x, m des.Time) int64 {
	q := x / m
	if x%m < 0 {
		q--
	}
	return int64(q)
}

// handleTimer hands timer x to the operator's timer function.
func (w *windowOperator) handleTimer(now des.Time, x timer) {
	if w.timerFn != nil {
		w.timerFn(now, x)
		return
	}
	w.onTimer(now, x)
}

// take ends the service of the record in hand, counts it, and returns it
// with its time: its event time, or now in processing time.
func (w *windowOperator) take(now des.Time) (*Record, des.Time) {
	t := w.t
	t.served(now)
	w.stats.records++
	if !w.event {
		return &t.cur, now
	}
	return &t.cur, t.cur.EventTime
}
