package sim

import "github.com/dspalab/dspalab/sim/des"

// sinkWriter is the record processor of a sink task: it writes each record
// to the external system (sinkState) by the sink's delivery guarantee, as
// Flink's SinkWriter; a transactional one keeps its transactions until the
// checkpoint that closed them completes (Flink's TwoPhaseCommitSinkFunction:
// pre-commit at the barrier, commit on notifyCheckpointComplete).
type sinkWriter struct {
	t *subtask
	// open and pre-committed transactions, and the record slices of
	// committed ones for reuse
	txns    []txn
	txnPool [][]txnRec
	// instant: the sink serves a record in no time (its service time is
	// the constant 0, without keyed state or load shedding) and makes it
	// visible at once (at-least-once or idempotent, without
	// deduplication, a topic to write or event time): a record handed
	// over on a hop channel takes put, not handOver, serve and complete
	// (setInstant, when the job is built)
	instant bool
}

// instantSink returns t's sink writer when it is an instant sink (see
// sinkWriter.instant), else nil.
func (t *subtask) instantSink() *sinkWriter {
	if w, ok := t.proc.(*sinkWriter); ok && w.instant {
		return w
	}
	return nil
}

// setInstant decides instant, once the job is built (event time's
// histograms are made last).
func (w *sinkWriter) setInstant() {
	t := w.t
	v, k := t.v, t.v.sink
	w.instant = v.svc.kind == distConstant && v.svc.mean == 0 && t.keyed == nil && v.shed == nil &&
		(k.kind == deliveryAtLeastOnce || k.kind == deliveryIdempotent) && k.dedup == nil && k.topic == nil &&
		v.etLag == nil
}

// put takes record r, arriving on c now, into an instant sink that its
// gate found idle with nothing before r (direct): what handOver, serve
// and complete do with it, in the same order, in line and without their
// checks of what instant rules out, and without copying r into the
// record in hand (nothing reads it: the record leaves at the instant it
// comes). Only what does not apply is left out: the task stays idle
// (complete's setState changes nothing), and nothing becomes readable
// meanwhile, so handOver's loop would take nothing. Measured on
// BenchmarkTandemUnbounded (all its records reach the sink so): about 95
// Ir a record less than handOver's calls of serve and complete.
func (w *sinkWriter) put(now des.Time, c *channel, r *Record) {
	t := w.t
	t.arrive(now, 1)
	c.recv++
	t.recordIn(now, t.s.warmup)    // serve
	t.depart(now, t.s.warmup, now) // complete's served: no time inside
	t.s.delivered++
	t.v.observeLatency(now - r.Ingest)
	t.v.sink.makeVisible(r.Copy, r.ID)
	t.chainDone(now)
}

// run takes input records while the task is idle.
func (w *sinkWriter) run(now des.Time) { w.t.pull(now) }

// complete writes the record in hand: it makes it visible (at-least-once,
// at-most-once, idempotent) or adds it to the task's open transaction
// (transactional). The latency of a transactional sink is observed when
// its transaction commits.
func (w *sinkWriter) complete(now des.Time) {
	t := w.t
	t.served(now)
	t.s.delivered++
	r := &t.cur
	if t.v.etLag != nil { // a job with event time
		t.v.observeEventTimeLag(now, r)
	}
	k := t.v.sink
	switch {
	case k.kind == deliveryTransactional:
		w.addToTxn(r)
	case k.kind == deliveryAtMostOnce && w.skipsReplay(r):
	default: // visible now, in line: a call less a record
		lat := now - r.Ingest
		dup := false
		if k.dedup != nil {
			var extra des.Time
			extra, dup = k.dedup.filter(now, r, k.visible)
			lat += extra
		}
		if !dup { // MillWheel: a duplicate caught is not written
			t.v.observeLatency(lat)
			k.makeVisible(r.Copy, r.ID)
			if k.topic != nil {
				k.topic.append(now, t, r)
			}
		}
	}
	t.setState(now, stateIdle)
}

// written resumes the task; a sink writes to no partition, so it is never
// held by back-pressure.
func (w *sinkWriter) written(now des.Time) { w.t.resume(now) }

// txn is a transaction of a transactional sink subtask: records written
// but not visible until the checkpoint that closed it completes.
type txn struct {
	ckpt int64 // the checkpoint whose barrier closed it; 0 while open
	recs []txnRec
}

type txnRec struct {
	id     uint64
	copy   uint32
	key    uint32 // for a sink that writes a topic
	ingest des.Time
	et     des.Time // event time, for a sink that writes a topic
}

// addToTxn adds r to the task's open transaction (transactional).
func (w *sinkWriter) addToTxn(r *Record) {
	if len(w.txns) == 0 || w.txns[len(w.txns)-1].ckpt != 0 {
		w.txns = append(w.txns, txn{recs: w.freeTxn()})
	}
	open := &w.txns[len(w.txns)-1]
	open.recs = append(open.recs, txnRec{id: r.ID, copy: r.Copy, key: r.Key, ingest: r.Ingest, et: r.EventTime})
}

// skipsReplay reports whether an at-most-once sink skips r, a replay
// after a restart of a record at or before the position committed when
// the job failed (counted skipped, and lost when it was never written);
// otherwise it notes r's offset as written.
func (w *sinkWriter) skipsReplay(r *Record) bool {
	k := w.t.v.sink
	seq, off := originSeq(r.ID), int64(originOffset(r.ID))
	if seq >= len(k.written) {
		return false
	}
	if off <= k.skipTo[seq] {
		k.skipped++
		if !k.visible.Contains(r.Copy, r.ID) {
			k.lost++
			w.t.s.lost++
		}
		return true
	}
	k.written[seq] = max(k.written[seq], off)
	return false
}

// closeTxn closes the open transaction of a transactional sink at
// the barrier of checkpoint id (pre-commit).
func (w *sinkWriter) closeTxn(id int64) {
	if w.t.v.sink == nil || w.t.v.sink.kind != deliveryTransactional {
		return
	}
	if n := len(w.txns); n > 0 && w.txns[n-1].ckpt == 0 {
		w.txns[n-1].ckpt = id
		return
	}
	w.txns = append(w.txns, txn{ckpt: id}) // empty, so that commits stay in order
}

// freeTxn returns an empty record slice for a new transaction, reusing
// one of a committed transaction.
func (w *sinkWriter) freeTxn() []txnRec {
	if n := len(w.txnPool); n > 0 {
		rs := w.txnPool[n-1]
		w.txnPool = w.txnPool[:n-1]
		return rs
	}
	return nil
}

// commit makes visible the pre-committed transactions of checkpoints up to
// id (notifyCheckpointComplete); a transaction of a checkpoint that failed
// commits with the next one that completes.
func (w *sinkWriter) commit(now des.Time, id int64) {
	k := w.t.v.sink
	n := 0
	for n < len(w.txns) && w.txns[n].ckpt != 0 && w.txns[n].ckpt <= id {
		for _, r := range w.txns[n].recs {
			w.t.v.observeLatency(now - r.ingest)
			k.makeVisible(r.copy, r.id)
			if k.topic != nil {
				k.topic.append(now, w.t, &Record{ID: r.id, Copy: r.copy, EventTime: r.et, Ingest: r.ingest, Key: r.key})
			}
		}
		if cap(w.txns[n].recs) > 0 {
			w.txnPool = append(w.txnPool, w.txns[n].recs[:0])
		}
		n++
	}
	if n > 0 {
		w.txns = append(w.txns[:0], w.txns[n:]...)
	}
}

// transactions returns the open and pre-committed transactions (none
// when w is nil: not a sink).
func (w *sinkWriter) transactions() []txn {
	if w == nil {
		return nil
	}
	return w.txns
}

// uncommitted counts records in the open and pre-committed transactions.
func (w *sinkWriter) uncommitted() uint64 {
	var n uint64
	for _, x := range w.txns {
		n += uint64(len(x.recs))
	}
	return n
}
