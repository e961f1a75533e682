package sim

import (
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// timerOperator is the record processor of a keyed process function with
// a timer per key, as Flink's KeyedProcessFunction over the
// InternalTimerService (the timeout pattern of Flink's "Process Function"
// page): each record sets its key's last time (its event time, or the
// clock at its service) and registers a timer delay after it; a timer
// whose key got a newer record since is skipped (onTimer's check
// "timestamp == lastModified + delay"); one that fires emits a record for
// its key and clears the key's state. Event-time timers fire as the
// watermark passes them, processing-time ones on the clock. It writes and
// counts through the window operator's parts (firings are its timers that
// fired).
type timerOperator struct {
	*windowOperator
	delay   des.Time
	last    map[uint32]lastTime // each key with a timer
	snapLst map[int64]map[uint32]lastTime
}

// lastTime is a key's state: its last time, and the operator's
// generation when it was last written (incremental checkpoints upload
// the keys written since the last snapshot).
type lastTime struct {
	at  des.Time
	gen uint32
}

func newTimerOperator(t *subtask, tm *scenario.Timer, stats *windowStats) *timerOperator {
	w := newWindowOperator(t, &scenario.Window{Kind: scenario.WindowGlobal, Count: 1, Time: tm.Time}, 0, 0, stats)
	w.event = tm.Time != scenario.TimeProcessing
	o := &timerOperator{windowOperator: w, delay: tm.Delay, last: map[uint32]lastTime{}}
	w.timerFn = o.onTimer
	return o
}

// freshTimers drops the keys of an older epoch (a failover).
func (o *timerOperator) freshTimers() {
	if o.epoch != o.t.s.epoch {
		o.fresh()
		clear(o.last)
	}
}

// complete sets the timer of the record in hand's key.
func (o *timerOperator) complete(now des.Time) {
	o.freshTimers()
	r, ts := o.take(now)
	if _, ok := o.last[r.Key]; !ok {
		o.grow(now, o.accBytes)
	}
	o.last[r.Key] = lastTime{at: ts, gen: o.gen}
	o.timers.push(timer{at: ts + o.delay, key: r.Key})
	if !o.event {
		o.armProcessing(ts + o.delay)
	}
	o.write(now)
}

// onTimer fires the timer x if its key got no newer record.
func (o *timerOperator) onTimer(now des.Time, x timer) {
	last, ok := o.last[x.key]
	if !ok || last.at+o.delay != x.at {
		return
	}
	delete(o.last, x.key)
	o.grow(now, -o.accBytes)
	t := o.t
	r := hashedRecord(o.seq, mix64(t.v.salt^uint64(x.key)<<20^mix64(uint64(x.at))))
	r.EventTime, r.Ingest, r.Key = x.at, now, x.key
	t.pend = append(t.pend, r)
	o.stats.firings++
	o.stats.fireDelay.Add(max(now-x.at, 0))
}

// processWatermark fires the event-time timers the watermark passed and
// forwards it.
func (o *timerOperator) processWatermark(now, wm des.Time) {
	o.freshTimers()
	o.windowOperator.processWatermark(now, wm)
}

// capture keeps a copy of the keys' last times for checkpoint id.
func (o *timerOperator) capture(id int64) {
	o.freshTimers()
	var written int64
	for _, l := range o.last {
		if l.gen == o.gen {
			written++
		}
	}
	o.windowOperator.capture(id)
	o.t.keyed.extraDelta += written * o.accBytes // the keys' value state put since the last snapshot
	if o.snapLst == nil {
		o.snapLst = map[int64]map[uint32]lastTime{}
	}
	for old := range o.snapLst {
		if _, kept := o.snaps[old]; !kept {
			delete(o.snapLst, old)
		}
	}
	c := make(map[uint32]lastTime, len(o.last))
	for k, v := range o.last {
		c[k] = v
	}
	o.snapLst[id] = c
}

// restore brings the keys back from checkpoint ck (none without one).
func (o *timerOperator) restore(now des.Time, ck *checkpoint) {
	o.freshTimers()
	o.windowOperator.restore(now, ck)
	clear(o.last)
	if ck == nil {
		return
	}
	for k, v := range o.snapLst[ck.id] {
		o.last[k] = v
	}
}
