package sim

import (
	"math/rand/v2"
	"strconv"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// source is the state of a source subtask.
//
// A replayable source, or a non-replayable one that blocks, is paced by its
// arrival process: record k+1 is read one inter-arrival gap after record k
// was written, so while the source is back-pressured its arrival process is
// held back (a saturated source of rate λ behind a bottleneck of rate μ is
// back-pressured 1 − μ/λ of the time). A replayable source reads a log that
// keeps growing at the arrival rate meanwhile: the difference is its
// consumer lag, and nothing is lost. A non-replayable source that buffers or
// drops receives records at their arrival times whatever happens downstream;
// it holds up to buffer_limit of them (1 for drop), and drops the rest.
type source struct {
	t          *subtask
	replayable bool
	paced      bool
	gen        *arrivalGen // arrival (virtual) times of the records read
	log        *arrivalGen // replayable: appends to the log in real time
	nextAppend des.Time
	appended   uint64
	keys       *keyDist
	keyRng     *rand.Rand
	size       int32

	offset des.Time // paced: total time the arrival process was held back
	vt     des.Time // paced: arrival time of the record in hand or next

	fifo  ring[des.Time] // queued arrival times (buffer and drop modes)
	limit int

	read, dropped uint64
	ended         bool
}

func newSource(t *subtask, sc *scenario.Source, keys *keyDist, seed uint64) *source {
	base := "source/" + sc.Name + "/" + strconv.Itoa(t.index)
	src := &source{
		t:          t,
		replayable: sc.Replayable,
		paced:      sc.Replayable || sc.OnBackpressure == scenario.OnBackpressureBlock || sc.OnBackpressure == "",
		gen:        newArrivalGen(sc.Arrival, des.Stream(seed, base+"/arrivals")),
		keys:       keys,
		keyRng:     des.Stream(seed, base+"/keys"),
		size:       int32(sc.RecordSize),
		limit:      sc.BufferLimit,
	}
	if sc.OnBackpressure == scenario.OnBackpressureDrop {
		src.limit = 1
	}
	if src.limit < 1 {
		src.limit = 1
	}
	if src.replayable {
		src.log = newArrivalGen(sc.Arrival, des.Stream(seed, base+"/arrivals"))
		src.nextAppend = src.log.next()
	}
	return src
}

// start schedules the first arrival.
func (src *source) start() {
	src.schedule(src.gen.next())
}

func (src *source) schedule(vt des.Time) {
	if vt == des.Never {
		src.ended = true
		return
	}
	src.vt = vt
	at := vt
	if src.paced {
		at += src.offset
	}
	src.t.s.eng.Schedule(at, src.t, evArrive)
}

// arrive handles the arrival of the next record.
func (src *source) arrive(now des.Time) {
	t := src.t
	if src.paced {
		et := now
		if src.replayable {
			et = src.vt // the time it was appended to the log
		}
		t.pend = append(t.pend, src.newRecord(now, et))
		if !t.emit(now) {
			t.setState(now, stateBP)
			return
		}
		src.emitted(now)
		return
	}
	if t.state == stateBP { // blocked: hold the arrival if there is room
		if src.fifo.len()+1 < src.limit {
			src.fifo.push(now)
		} else {
			src.dropped++
		}
	} else {
		src.fifo.push(now)
	}
	src.schedule(src.gen.next())
	if t.state != stateBP {
		src.drain(now)
	}
}

// emitted follows a successful write of the record in hand.
func (src *source) emitted(now des.Time) {
	src.read++
	t := src.t
	if src.paced {
		t.setState(now, stateIdle)
		src.offset = now - src.vt // held back by the time it waited
		src.schedule(src.gen.next())
		return
	}
	t.setState(now, stateIdle)
	src.drain(now)
}

// drain writes queued arrivals until the queue is empty or the output
// blocks (buffer and drop modes).
func (src *source) drain(now des.Time) {
	t := src.t
	for src.fifo.len() > 0 {
		et := src.fifo.pop()
		t.pend = append(t.pend, src.newRecord(now, et))
		if !t.emit(now) {
			t.setState(now, stateBP)
			return
		}
		src.read++
	}
}

func (src *source) newRecord(now, eventTime des.Time) Record {
	return Record{
		ID:        src.t.s.newID(),
		EventTime: eventTime,
		Ingest:    now,
		Key:       src.keys.sample(src.keyRng),
		Size:      src.size,
	}
}

// lag returns the consumer lag of a replayable source at now, in records:
// appended to the log by now and not yet read.
func (src *source) lag(now des.Time) uint64 {
	if !src.replayable {
		return 0
	}
	for src.nextAppend <= now {
		src.appended++
		src.nextAppend = src.log.next()
	}
	if src.appended < src.read {
		return 0
	}
	return src.appended - src.read
}

// queued returns the records a source holds in memory (buffer and drop).
func (src *source) queued() int { return src.fifo.len() }
