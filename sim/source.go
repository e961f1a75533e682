package sim

import (
	"fmt"
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// How a source subtask gets its records.
const (
	srcLog    = iota // replayable: reads a log that grows at the arrival times
	srcPaced         // non-replayable, blocks: the producer waits while the source is blocked
	srcQueued        // non-replayable, buffers or drops: arrivals come regardless
)

// source is the state of a source subtask.
//
// A replayable source reads a log (Kafka) that grows at the arrival times
// whatever happens downstream: when the source is back-pressured the log
// runs ahead of it (consumer lag) and nothing is lost; when the pressure
// goes, the source reads the backlog as fast as credit and its read rate
// allow. A non-replayable source that blocks holds its producer back (TCP
// back-pressure): the next record comes one inter-arrival gap after the
// last one was written. One that buffers or drops receives records at their
// arrival times regardless; it holds up to buffer_limit of them (1 for drop)
// and drops the rest.
//
// Reading a record takes 1/max_rate of busy time when max_rate is set, so
// a saturated source (one that always has records to read) of rate λ
// behind a bottleneck of rate μ is busy μ/λ and back-pressured 1 − μ/λ of
// the time. Waiting for records to arrive is idle time.
type source struct {
	t     *subtask
	seq   int // sequence number among all source subtasks (record ids)
	mode  int
	gen   arrivals    // times of the records to read
	agen  *arrivalGen // gen, when generated (not a trace, topic, queue or edge stream): draw calls it directly
	log   arrivals    // srcLog: appends to the log, for the lag
	trace *traceGen   // gen, when the source replays a trace (event time and key)
	// topic is gen when the source reads a topic (topic.go), retain its
	// retention cursor; lostRetention counts the records retention
	// deleted before the source read them
	topic, retain *topicReader
	// qr is gen when the source consumes a queue (queue_source.go)
	qr            *queueReader
	lostRetention uint64
	keys          *keyDist  // nil when nothing reads keys (keysRead): none is drawn
	keyPCG        *des.Rand // the key stream; its state is a value (rewinding)
	genPCG        *des.Rand // gen's stream when generated (rewinding)
	logPCG        *des.Rand // log's stream when generated (lag: catching up with gen)
	size          int32
	readCost      des.Time
	reopen        func() (arrivals, error) // a fresh gen (trace rewinding)

	vt      des.Time // srcLog, srcPaced: time of the next record (log or producer time)
	ended   bool     // the arrival process has no more records
	offset  des.Time // srcPaced: how long the producer has been held back in all
	taken   des.Time // time of the record in hand
	armed   bool     // a recordDue is scheduled
	fetchng bool     // reading a record (busy)

	fifo      ring[des.Time] // srcQueued: arrival times held
	fifoEvent ring[des.Time] // srcQueued trace: their event times
	fifoKey   ring[uint32]   // srcQueued trace: their keys
	limit     int

	nextAppend des.Time
	appended   uint64
	dropped    uint64
	nextArr    des.Time // srcQueued: time of the next arrival scheduled

	// Offsets: next is the offset of the next record to emit (a
	// replayable source rewinds it); accepted, of srcQueued, the offset
	// the next arrival taken into the buffer gets. maxOffset is one past
	// the highest offset ever emitted (distinct records emitted);
	// replayed counts emissions below it; emits counts all emissions.
	next, accepted      uint64
	maxOffset, replayed uint64
	emits               uint64
	initial             sourceSnap // the position at the start (a rewind without checkpoint)

	pendingBarriers []int64  // checkpoints triggered, whose barriers go out once the record in hand is written
	keyBefore       des.Rand // the key stream before the last key was drawn

	delay *eventDelay // out-of-orderness of a generated source (event_delay); nil: none
	// beforeZero counts the records read whose event time event_delay
	// put before 0 (a delay longer than the time they arrived at),
	// replays included, for the event-time diagnosis
	beforeZero uint64
	wmGen      *watermarkGenerator // watermark generation (watermarks); nil: none
	et         des.Time            // event time of the record in hand (wmGen)
	split      int                 // its split: the index of its partition among the owned ones (0 but for a topic reader)

	// plain: a generated source that reads a log or paces its producer
	// (not srcQueued), without event delays, watermarks or shedding,
	// whose records are its offsets with a drawn key or none (no trace,
	// topic or queue): emitNext and advance skip the rest
	plain bool
}

// sourceSnap is a source subtask's checkpointed position: its offset
// and, to re-read the log from there, the state of its arrival process
// and key stream.
type sourceSnap struct {
	next    uint64
	vt      des.Time
	ended   bool
	gen     arrivalGen
	genPCG  des.Rand
	keyPCG  des.Rand
	traceAt uint64     // records of a trace read by then
	topic   *topicSnap // a topic's read cursor: the offsets it commits
	// a queue consumer's channel, and when it polled the last message
	// it emitted (the deliveries the checkpoint acknowledges)
	queueChan int
	queueAt   des.Time
}

// arrivals is an arrival process: generated (arrivalGen) or replayed
// (traceGen).
type arrivals interface {
	next() des.Time
}

func newSource(t *subtask, sc *scenario.Source, keys *keyDist, seed uint64, open TraceOpener) (*source, error) {
	base := "source/" + sc.Name + "/" + strconv.Itoa(t.index)
	src := &source{
		t:      t,
		keys:   keys,
		keyPCG: des.StreamRand(seed, base+"/keys"),
		size:   int32(sc.RecordSize),
		limit:  max(sc.BufferLimit, 1),
	}
	src.keyBefore = *src.keyPCG
	arr := func() (arrivals, error) {
		if sc.ReadsQueue() {
			return newQueueReader(t.s.broker(t.s.plan.QueueOf(t.v.pv)), src), nil
		}
		if sc.ReadsTopic() {
			tp := t.s.plan.TopicOf(t.v.pv)
			var log *topicLog
			if tp.Stored() {
				log = t.s.topicLog(tp)
			}
			return newTopicReader(tp, t.index, t.v.parallelism, seed, t.s.duration, t.s.topicKeys(tp), log), nil
		}
		if sc.Arrival.Process != scenario.ArrivalTrace {
			pcg := des.StreamRand(seed, base+"/arrivals")
			if src.genPCG == nil {
				src.genPCG = pcg
			} else if src.logPCG == nil {
				src.logPCG = pcg
			}
			if sc.Edges != nil { // an edge stream: as many records as edges
				return t.s.edgeArrivals(t, newArrivalGen(sc.Arrival, pcg)), nil
			}
			return newArrivalGen(sc.Arrival, pcg), nil
		}
		if open == nil {
			return nil, fmt.Errorf("sim: source %s replays a trace, but no trace opener was given (Options.OpenTrace)", sc.Name)
		}
		tr, err := open(sc.Name, t.index, sc.Parallelism)
		if err != nil {
			return nil, fmt.Errorf("sim: opening the trace of source %s: %w", sc.Name, err)
		}
		return &traceGen{tr: tr}, nil
	}
	var err error
	if src.gen, err = arr(); err != nil {
		return nil, err
	}
	src.agen, _ = src.gen.(*arrivalGen)
	src.trace, _ = src.gen.(*traceGen)
	src.qr, _ = src.gen.(*queueReader)
	if src.topic, _ = src.gen.(*topicReader); src.topic != nil {
		if l := src.topic.log; l != nil {
			l.readers = append(l.readers, src)
		} else {
			src.retain = newTopicReader(src.topic.topic, t.index, t.v.parallelism, seed, t.s.duration, t.s.topicKeys(src.topic.topic), nil)
			src.retain.next()
		}
	}
	if src.trace != nil {
		src.reopen = arr
	}
	switch {
	case sc.Replayable || sc.ReadsTopic() || sc.ReadsQueue():
		src.mode = srcLog
		if src.topic != nil || src.qr != nil {
			break // a topic's log end is the topic's (topic.go)
		}
		if src.log, err = arr(); err != nil {
			return nil, err
		}
		src.nextAppend = src.log.next()
	case sc.OnBackpressure == scenario.OnBackpressureBuffer:
		src.mode = srcQueued
	case sc.OnBackpressure == scenario.OnBackpressureDrop:
		src.mode, src.limit = srcQueued, 1
	default:
		src.mode = srcPaced
	}
	if sc.MaxRate > 0 {
		src.readCost = des.FromSeconds(1 / sc.MaxRate)
	}
	if sc.EventDelay != nil && src.trace == nil {
		src.delay = newEventDelay(sc.EventDelay, t.v.salt)
	}
	src.plain = src.mode != srcQueued && src.trace == nil && src.topic == nil && src.qr == nil && src.delay == nil &&
		sc.Watermarks == nil && t.v.shed == nil
	if sc.Watermarks != nil {
		t.wm = newTaskWatermarks(t.s.epoch)
		splits := 1
		if src.topic != nil {
			splits = src.topic.nOwned
		}
		src.wmGen = newWatermarkGenerator(t, sc.Watermarks, splits)
		t.wm.gen = src.wmGen
	}
	return src, nil
}

// keysRead reports whether anything in the job of p reads record keys:
// an operator with keyed state, a window operator or a join (its windows
// and buffers are per key), a hash-partitioned edge (keyBy) into more
// than one subtask (into one, every key group is that subtask's), a sink
// that writes a topic (its partitioner) or semantic load shedding (a
// predicate on the key). A new reader of Record.Key must be named here.
// Without either, a generated source draws no keys (its records carry key
// 0): the keys come from a stream of their own ("source/NAME/i/keys"), so
// not drawing them changes no other draw, and nothing else looks at a key.
func keysRead(p *plan.Plan) bool {
	if p.Stateful() {
		return true
	}
	for _, v := range p.Vertices {
		if v.Window != nil || v.Join != nil || v.Timer != nil {
			return true
		}
		if sh := v.LoadShedding(); v.Writes != nil || (sh != nil && sh.Mode == scenario.SheddingSemantic) {
			return true // a Kafka sink's partitioner, a shedding predicate on the key
		}
		for _, e := range v.Inputs {
			if e.Partitioning == scenario.PartitionHash && v.Parallelism > 1 {
				return true
			}
		}
	}
	return false
}

// traceErr returns the error that ended the source's trace, if any.
func (src *source) traceErr() error {
	for _, g := range []arrivals{src.gen, src.log} {
		if tg, ok := g.(*traceGen); ok && tg.err != nil {
			return &TraceError{Source: src.t.v.name, Subtask: src.t.index, At: src.t.s.eng.Now(), Err: tg.err}
		}
	}
	return nil
}

// start schedules the first arrival (and watermark emission).
func (src *source) start() {
	if src.wmGen != nil {
		src.wmGen.start()
	}
	if src.mode == srcQueued {
		src.scheduleArrival()
		return
	}
	src.draw()
	if !src.ended {
		src.armed = true
		src.t.at(src.vt+src.offset, (*recordDue)(src))
	}
}

// draw takes the time of the next record from the arrival process. A
// trace that fails stops the run after the current event.
func (src *source) draw() {
	if g := src.agen; g != nil {
		src.vt = g.next()
		src.ended = src.vt == des.Never
		return
	}
	src.vt = src.gen.next()
	src.ended = src.vt == des.Never
	if src.ended && src.trace != nil && src.t.s.stopped == nil {
		if err := src.traceErr(); err != nil {
			src.t.s.stop(err)
		}
	}
}

// available returns when the next record can be read, or false when none
// is coming (or, for srcQueued, none is held).
func (src *source) available(now des.Time) (des.Time, bool) {
	switch src.mode {
	case srcQueued:
		return now, src.fifo.len() > 0
	case srcPaced:
		return src.vt + src.offset, !src.ended
	default:
		if src.topic != nil {
			src.expire(now)
		}
		src.pollQueue(now)
		return src.vt, !src.ended
	}
}

// advance reads and writes records while they are available and the
// output takes them; it leaves the subtask idle (waiting for a record),
// busy (reading one) or back-pressured (holding one). A stop-the-world
// checkpoint holds it idle; a failed or paused subtask does nothing.
func (src *source) advance(now des.Time) {
	t := src.t
	if t.down || (t.s.pauses && t.paused(now)) {
		return
	}
	for !src.fetchng && !t.held() {
		at, ok := src.vt+src.offset, !src.ended // available of a plain source, in line (offset is 0 but for srcPaced)
		if !src.plain {
			at, ok = src.available(now)
		}
		if !ok || t.s.halted {
			t.setState(now, stateIdle)
			return
		}
		if at > now {
			t.setState(now, stateIdle)
			if !src.armed {
				src.armed = true
				t.after(at-now, (*recordDue)(src)) // at, in the future: Schedule's look at the past is not needed
			}
			return
		}
		if src.readCost > 0 {
			t.setState(now, stateBusy)
			src.fetchng = true
			t.after(src.readCost, (*recordFetched)(src))
			return
		}
		if !src.emitNext(now) {
			return
		}
	}
}

// emitNext takes the next record and writes it; false when blocked.
func (src *source) emitNext(now des.Time) bool {
	t := src.t
	var et des.Time
	switch src.mode {
	case srcQueued:
		et = src.fifo.pop()
		if src.trace != nil {
			et = src.fifoEvent.pop()
		}
	case srcPaced:
		et = now // produced when the producer could go on
		src.taken = src.vt
	default:
		et = src.vt // appended to the log then
		src.taken = src.vt
	}
	var key uint32
	id := sourceID(src.seq, src.next)
	if src.plain {
		if src.keys != nil {
			key = src.drawKey()
		}
	} else {
		et, key, id = src.describe(et, id)
	}
	src.et = et
	src.next++
	if !src.plain {
		r := t.pending()
		*r = Record{
			ID:        id,
			EventTime: et,
			Ingest:    now,
			Key:       key,
		}
		if src.topic != nil && src.topic.log != nil {
			*r = src.topic.rec // a stored topic's record keeps its id and first ingestion
		}
		if t.v.shed != nil && src.sheds(now, r) {
			t.pend = t.pend[:len(t.pend)-1]
			return true
		}
		if !t.emit(now) {
			t.setState(now, t.blockedState())
			return false
		}
		src.emitted(now)
		return true
	}
	// a plain source's record is written by emitOne, straight from r
	// (pending only when no buffer takes it)
	r := Record{ID: id, EventTime: et, Ingest: now, Key: key}
	if !t.emitOne(now, &r) {
		t.setState(now, t.blockedState())
		return false
	}
	// emitted of a plain source, in line: no queue, no watermarks
	src.emits++
	if src.next > src.maxOffset {
		src.maxOffset = src.next
	} else {
		src.replayed++ // read again after a rewind
	}
	t.setState(now, stateIdle)
	if src.mode == srcPaced {
		src.offset = max(src.offset, now-src.readCost-src.taken) // see emitted
	}
	if g := src.agen; g != nil { // draw, in line
		src.vt = g.next()
		src.ended = src.vt == des.Never
	} else {
		src.draw()
	}
	return true
}

// drawKey draws the key of the record to emit, keeping the key stream's
// state before the draw (keyBefore) for a checkpoint.
func (src *source) drawKey() uint32 {
	src.keyBefore = *src.keyPCG
	return src.keys.sample(src.keyPCG)
}

// describe returns the event time, key and id of the record to emit,
// from the source's arrival time et and its offset's id, for a source
// that is not plain: from its trace, topic or queue, less its event delay;
// and takes the split of a topic's record for its watermarks.
func (src *source) describe(et des.Time, id uint64) (des.Time, uint32, uint64) {
	var key uint32
	switch {
	case src.trace != nil && src.mode == srcQueued:
		key = src.fifoKey.pop()
	case src.trace != nil:
		et, key = src.trace.eventTime, src.trace.key
	case src.topic != nil:
		et, key = src.topic.sent, src.topic.key
	case src.qr != nil:
		et, key = src.qr.cur.Body.sent, src.qr.cur.Body.key
	case src.keys != nil:
		key = src.drawKey()
	}
	if src.qr != nil {
		id = sourceID(src.qr.b.seq, src.qr.cur.ID) // a message's id: a redelivery is the same record
	}
	if src.delay != nil {
		if et -= src.delay.draw(id); et < 0 {
			src.beforeZero++
		}
	}
	if src.topic != nil && src.wmGen != nil {
		src.split = src.topic.split(src.topic.part)
	}
	return et, key, id
}

// emitted follows the write of the record in hand.
func (src *source) emitted(now des.Time) {
	src.emits++
	if src.qr != nil {
		src.maxOffset = src.next // a queue's consumer never rewinds
		if src.qr.emittedMsg() {
			src.replayed++ // a redelivery of a message emitted before
		}
	} else if src.next > src.maxOffset {
		src.maxOffset = src.next
	} else {
		src.replayed++ // read again after a rewind
	}
	src.t.setState(now, stateIdle)
	switch src.mode {
	case srcPaced:
		// the producer is held while the record it produced waits to be
		// taken (TCP back-pressure): by a reader busy with the previous
		// record, or by a reader holding this one in hand; the next gap
		// starts when it was taken. Reading overlaps the producer's gap.
		src.offset = max(src.offset, now-src.readCost-src.taken)
		src.draw()
	case srcLog:
		src.draw()
	}
	if src.wmGen != nil {
		src.wmGen.onEvent(now, src.split, src.et)
	}
}

// ready handles recordDue: a record is due.
func (src *source) ready(now des.Time) {
	src.armed = false
	src.advance(now)
}

// fetched handles recordFetched: the record being read can be written.
func (src *source) fetched(now des.Time) {
	src.fetchng = false
	if src.emitNext(now) {
		src.advance(now)
	}
}

// arrive handles socketArrival of a source that buffers or drops. While the
// subtask is down (failed, the job restarting) nobody reads the socket:
// the arrival is dropped.
func (src *source) arrive(now des.Time) {
	held := src.fifo.len()
	if src.t.held() {
		held++ // the record in hand
	}
	if held < src.limit && !src.t.down {
		src.fifo.push(now)
		src.accepted++
		if src.trace != nil {
			src.fifoEvent.push(src.trace.eventTime)
			src.fifoKey.push(src.trace.key)
		}
	} else {
		src.dropped++
	}
	src.scheduleArrival()
	src.advance(now)
}

// scheduleArrival schedules the next arrival of a source that buffers or
// drops; a trace that fails stops the run after the current event.
func (src *source) scheduleArrival() {
	at := src.gen.next()
	src.nextArr = at
	if at != des.Never {
		src.t.at(at, (*socketArrival)(src))
		return
	}
	if src.trace != nil && src.t.s.stopped == nil {
		if err := src.traceErr(); err != nil {
			src.t.s.stop(err)
		}
	}
}

// unblocked resumes the source after its record in hand was written; the
// checkpoint barriers triggered meanwhile go out first.
func (src *source) unblocked(now des.Time) {
	src.emitted(now)
	if len(src.pendingBarriers) > 0 {
		src.emitBarriers(now)
	}
	src.advance(now)
}

// lag returns the consumer lag of a replayable source at now, in records:
// appended to the log by now and not yet read.
func (src *source) lag(now des.Time) uint64 {
	if src.mode != srcLog {
		return 0
	}
	if src.topic != nil {
		return src.topicLag(now)
	}
	if src.qr != nil {
		return src.qr.lag()
	}
	if src.nextAppend <= now {
		src.catchUp(now)
	}
	for src.nextAppend <= now {
		src.appended++
		src.nextAppend = src.log.next()
	}
	pos := src.next // the offset of the next record to write
	if src.inHand() {
		pos-- // the record in hand is not written yet
	}
	if src.appended < pos {
		return 0
	}
	return src.appended - pos
}

// catchUp moves the log (lag's copy of the arrival process) past now
// without drawing each arrival, where the result is known: the log and gen
// are the same process (same stream, same parameters), so when the source
// has read every record appended by now and the next one comes later, the
// log stands where gen stands (next records appended, the next at vt);
// and a constant rate's arrivals are counted in closed form (skipPast).
func (src *source) catchUp(now des.Time) {
	lg, ok := src.log.(*arrivalGen)
	if !ok || src.logPCG == nil {
		return
	}
	if gg, ok := src.gen.(*arrivalGen); ok && src.genPCG != nil && !src.ended && !src.inHand() && !src.fetchng &&
		src.vt > now && src.appended < src.next {
		r := lg.r
		*lg = *gg
		lg.r = r
		*src.logPCG = *src.genPCG
		src.appended, src.nextAppend = src.next, src.vt
		return
	}
	if n, at, ok := lg.skipPast(now); ok {
		src.appended += n
		src.nextAppend = at
	}
}

// inHand reports whether the source holds a record taken but not yet
// written (back-pressured, or stopped by a failure of its worker).
func (src *source) inHand() bool { return len(src.t.pend) > src.t.pi }

// queued returns the records a source holds in memory (buffer and drop).
func (src *source) queued() int { return src.fifo.len() }

// snapshot returns the source's position for a checkpoint: the offset of
// the next record to emit (its record in hand, if any, is not emitted
// yet) and what is needed to read on from there.
func (src *source) snapshot() sourceSnap {
	sn := sourceSnap{next: src.next, vt: src.vt, ended: src.ended, keyPCG: *src.keyPCG}
	if src.t.held() && src.mode != srcQueued {
		// a record in hand (an unaligned barrier passed a back-pressured
		// source) is not written yet: it comes after the barrier, and a
		// restored source reads it again
		sn.next--
		sn.vt, sn.keyPCG = src.taken, src.keyBefore
	}
	gen := src.gen
	if e, ok := gen.(*edgeArrivals); ok {
		gen = e.gen // an edge stream's times (its edges are by offset)
	}
	if g, ok := gen.(*arrivalGen); ok {
		sn.gen = *g
		if src.genPCG != nil {
			sn.genPCG = *src.genPCG
		}
	}
	if src.trace != nil {
		sn.traceAt = src.trace.n
	}
	if src.topic != nil {
		sn.topic = src.topic.snapshot()
	}
	if r := src.qr; r != nil {
		sn.queueChan, sn.queueAt = r.c, r.emittedAt
	}
	return sn
}

// rewind sets a replayable source back to a checkpointed position (or,
// without a checkpoint, to its start): it re-reads the log from there and
// emits the same records (ids, keys and event times) again.
func (src *source) rewind(sn *sourceSnap) error {
	if src.qr != nil {
		src.qr.reopen() // a new channel: nothing is rewound, the broker redelivers
		return nil
	}
	src.next, src.vt, src.ended = sn.next, sn.vt, sn.ended
	*src.keyPCG = sn.keyPCG
	switch g := src.gen.(type) {
	case *arrivalGen:
		*g = sn.gen
		*src.genPCG = sn.genPCG
	case *edgeArrivals:
		g.rewind(sn)
	case *traceGen:
		fresh, err := src.reopen()
		if err != nil {
			return err
		}
		tg := fresh.(*traceGen)
		for tg.n < sn.traceAt && tg.next() != des.Never {
		}
		src.gen, src.trace = tg, tg
	case *topicReader:
		g.restore(sn.topic)
		if g.log != nil && src.ended {
			src.draw() // a stored topic may have grown since the snapshot
		}
	}
	return nil
}
