package sim

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Joins of two keyed inputs in event time
// (https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/datastream/operators/joining/).
// A record's input is told by where it comes from: the input whose
// upstream holds its origin (a source, or a window operator for its
// results); a record whose origin reaches both inputs counts as left.
//
// A tumbling window join is, as Flink builds JoinedStreams, a window
// operator over the union of both inputs whose window function pairs
// them up (a coGroup): newWindowJoin makes a windowOperator that keeps
// every record (process) and, at each firing, emits every pair of a left
// and a right record of the key and window.

// newWindowJoin returns the window operator of a tumbling window join.
func newWindowJoin(t *subtask, j *scenario.Join, recBytes int64, stats *windowStats, sides []int8) *windowOperator {
	w := newWindowOperator(t, &scenario.Window{Kind: scenario.WindowTumbling, Size: j.Size, Function: scenario.FunctionProcess}, recBytes, 0, stats)
	w.sides = sides
	return w
}

// joinSides returns the input (0 left, 1 right) of a record of join
// vertex v by the id space (origin) of the record: the sources by their
// seq, then the window operators' results (Sim.recSize).
func (s *Sim) joinSides(v *vertex) []int8 {
	left := map[*vertex]bool{}
	var mark func(u *vertex)
	mark = func(u *vertex) {
		if left[u] {
			return
		}
		left[u] = true
		for _, e := range u.inputs {
			mark(e.from)
		}
	}
	if len(v.inputs) > 0 {
		mark(v.inputs[0].from)
	}
	sides := make([]int8, len(s.recSize))
	for _, src := range s.sources {
		if !left[src.t.v] {
			sides[src.seq] = 1
		}
	}
	for _, t := range s.subtasks {
		if w := t.windowOp(); w != nil && !left[t.v] {
			sides[w.seq] = 1
		}
	}
	return sides
}

// intervalJoin is the record processor of an interval join, as Flink's
// IntervalJoinOperator: each input's records are buffered per key; a
// left record at t is joined with the buffered right records of its key
// at t − before to t + after, a right record at t' with the left ones at
// t' − after to t' + before, as they come; a record older than the input
// watermark is late and dropped (numLateRecordsDropped); a left record is
// cleared once the watermark passes t + after, a right one once it passes
// t' + before (its cleanup timers). It emits through the window
// operator's writer, and counts with its statistics.
type intervalJoin struct {
	*windowOperator
	before, after des.Time
	buf           [2]map[uint32][]joinEntry // buffered records per input and key
	snapBuf       map[int64][2]map[uint32][]joinEntry
}

// joinEntry is a buffered record of an interval join: its event time,
// and the operator's generation when it was buffered (incremental
// checkpoints upload the records buffered since the last snapshot).
type joinEntry struct {
	ts  des.Time
	gen uint32
}

func newIntervalJoin(t *subtask, j *scenario.Join, recBytes int64, stats *windowStats, sides []int8) *intervalJoin {
	w := newWindowOperator(t, &scenario.Window{Kind: scenario.WindowGlobal, Count: 1}, recBytes, 0, stats)
	w.sides = sides
	w.event = true
	return &intervalJoin{windowOperator: w, before: j.Before, after: j.After,
		buf: [2]map[uint32][]joinEntry{{}, {}}}
}

// freshJoin drops the buffers of an older epoch (a failover).
func (j *intervalJoin) freshJoin() {
	if j.epoch != j.t.s.epoch {
		j.fresh()
		clear(j.buf[0])
		clear(j.buf[1])
	}
}

// complete joins the record in hand with the other input's buffer.
func (j *intervalJoin) complete(now des.Time) {
	t := j.t
	j.freshJoin()
	r, ts := j.take(now)
	if wm := j.currentWatermark(); wm != minWatermark && ts < wm {
		j.stats.lateDropped++ // IntervalJoinOperator.isLate
		j.write(now)
		return
	}
	side := j.sideOf(r)
	lo, hi := ts-j.before, ts+j.after // the right records a left one at ts joins
	if side == 1 {
		lo, hi = ts-j.after, ts+j.before
	}
	buf := j.buf[1-side][r.Key]
	t.s.didWork(len(buf)) // each buffered record of the other side is compared
	for _, e := range buf {
		x := e.ts
		if x < lo || x > hi {
			continue
		}
		l, rt := ts, x
		if side == 1 {
			l, rt = x, ts
		}
		pr := hashedRecord(j.seq, mix64(t.v.salt^uint64(r.Key)<<20^mix64(uint64(l))^mix64(uint64(rt)+0x51ed)))
		pr.EventTime, pr.Ingest, pr.Key = max(l, rt), r.Ingest, r.Key
		t.pend = append(t.pend, pr)
		j.stats.firings++
		j.stats.pairs++
	}
	j.buf[side][r.Key] = append(j.buf[side][r.Key], joinEntry{ts: ts, gen: j.gen})
	j.grow(now, j.recBytes)
	cleanup := ts + j.after // a left record: no right one past ts + after joins it
	if side == 1 {
		cleanup = ts + j.before
	}
	j.timers.push(timer{at: cleanup, key: r.Key, ns: des.Time(side)<<62 | (ts & (1<<62 - 1))})
	j.write(now)
}

// processWatermark clears the records the watermark has passed and
// forwards it.
func (j *intervalJoin) processWatermark(now, wm des.Time) {
	j.freshJoin()
	for j.timers.len() > 0 && j.timers.peek().at <= wm {
		x := j.timers.pop()
		side := int(x.ns >> 62 & 1)
		ts := x.ns & (1<<62 - 1)
		if ts&(1<<61) != 0 {
			ts |= -1 << 62 // a negative event time
		}
		b := j.buf[side][x.key]
		for i, y := range b {
			if y.ts == ts {
				b = append(b[:i], b[i+1:]...)
				j.grow(now, -j.recBytes)
				break
			}
		}
		if len(b) == 0 {
			delete(j.buf[side], x.key)
		} else {
			j.buf[side][x.key] = b
		}
	}
	j.pendWM, j.hasWM = wm, true
	j.write(now)
}

// capture keeps a copy of the buffers for checkpoint id.
func (j *intervalJoin) capture(id int64) {
	j.freshJoin()
	var written int64
	for s := range j.buf {
		for _, b := range j.buf[s] {
			for _, e := range b {
				if e.gen == j.gen {
					written++
				}
			}
		}
	}
	j.windowOperator.capture(id)
	j.t.keyed.extraDelta += written * j.recBytes // the records buffered since the last snapshot and still held
	if j.snapBuf == nil {
		j.snapBuf = map[int64][2]map[uint32][]joinEntry{}
	}
	for old := range j.snapBuf {
		if _, kept := j.snaps[old]; !kept {
			delete(j.snapBuf, old)
		}
	}
	var c [2]map[uint32][]joinEntry
	for s := range c {
		c[s] = make(map[uint32][]joinEntry, len(j.buf[s]))
		for k, v := range j.buf[s] {
			c[s][k] = append([]joinEntry(nil), v...)
		}
	}
	j.snapBuf[id] = c
}

// restore brings the buffers back from checkpoint ck (empty without
// one).
func (j *intervalJoin) restore(now des.Time, ck *checkpoint) {
	j.freshJoin()
	j.windowOperator.restore(now, ck) // timers and state bytes
	clear(j.buf[0])
	clear(j.buf[1])
	if ck == nil {
		return
	}
	c, ok := j.snapBuf[ck.id]
	if !ok {
		return
	}
	for s := range c {
		for k, v := range c[s] {
			j.buf[s][k] = append([]joinEntry(nil), v...)
		}
	}
}

// windowed is a record processor with windows: a window operator, a
// window join or an interval join.
type windowed interface {
	windowOp() *windowOperator
	capture(id int64)
	restore(now des.Time, ck *checkpoint)
}

func (w *windowOperator) windowOp() *windowOperator { return w }

// windowOp returns t's window operator (that of its join), or nil.
func (t *subtask) windowOp() *windowOperator {
	if w, ok := t.proc.(windowed); ok {
		return w.windowOp()
	}
	return nil
}
