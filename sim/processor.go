package sim

import "github.com/dspalab/dspalab/sim/des"

// processor is a task's record processor: what a source reader, an
// operator function or a sink writer does with records, behind one small
// interface, so that a new vertex kind (a window operator, a broker
// partition) is a new type, not new fields of the task. It follows the
// split of Flink's StreamTask into its input (StreamTaskSourceInput for a
// source, StreamTaskNetworkInput over the input gate otherwise) and its
// operator: the task owns the parts every kind shares (input gate,
// record writer, barrier handler, time accounting, keyed state) and calls
// its processor at three points.
type processor interface {
	// run lets the task work at now until it has to wait: a source reads
	// and writes its next records; an operator or a sink takes input
	// records from its gate and serves them.
	run(now des.Time)
	// complete ends the service of the task's record in hand: an
	// operator writes its outputs (the task is back-pressured when they
	// wait for a buffer), a sink makes it visible. A source serves no
	// input record and is never called.
	complete(now des.Time)
	// written resumes the task once the record writer has written what
	// back-pressure held back.
	written(now des.Time)
}

// operatorFunction is the record processor of an operator: each input
// record becomes selectivity output records on average (decided by a hash
// of its id, so a replay gives the same outputs), written to every output
// edge (Flink's user function in a OneInputStreamOperator).
type operatorFunction struct {
	t *subtask
}

// run takes input records while the task is idle.
func (f *operatorFunction) run(now des.Time) { f.t.pull(now) }

// complete writes the outputs of the record in hand.
func (f *operatorFunction) complete(now des.Time) {
	t := f.t
	t.served(now)
	v := t.v
	v.observeLatency(now - t.cur.Ingest)
	var written bool
	if v.selectivity == 1 {
		written = t.emitOne(now, &t.cur) // the record itself
	} else {
		f.outputs()
		written = t.emit(now)
	}
	st := stateIdle
	if !written {
		st = t.blockedState() // the outputs wait for a buffer, or for a chained operator
	}
	t.setState(now, st)
}

// outputs adds the outputs of the record in hand to the pending records
// of an operator whose selectivity is not 1: none, or one and copies.
func (f *operatorFunction) outputs() {
	t, v := f.t, f.t.v
	r := &t.cur
	n := outputs(r.ID^uint64(r.Copy)<<40, v.salt, v.selectivity)
	for i := 0; i < n; i++ {
		out := t.pending()
		*out = *r
		if i > 0 {
			out.Copy = copyClass(r.Copy, v.salt+uint64(i))
		}
	}
}

// pending adds a record to the pending records of t's writer and returns
// it, to be written in place: append(pend, r) would copy r twice.
func (t *subtask) pending() *Record {
	w := &t.recordWriter
	n := len(w.pend)
	if n < cap(w.pend) {
		w.pend = w.pend[:n+1]
	} else {
		w.pend = append(w.pend, Record{})
	}
	return &w.pend[n]
}

// written goes on with the next input record.
func (f *operatorFunction) written(now des.Time) { f.t.resume(now) }

// run reads and writes records while they are available and the output
// takes them (the source reader's part of processor).
func (src *source) run(now des.Time) { src.advance(now) }

// complete is never called: a source serves no input record.
func (src *source) complete(des.Time) {}

// written goes on after the record in hand was written.
func (src *source) written(now des.Time) { src.unblocked(now) }
