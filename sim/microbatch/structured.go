package microbatch

import (
	"slices"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// pollingDelay is spark.sql.streaming.pollingDelay (plan.PollingDelay).
const pollingDelay = plan.PollingDelay

// structured is Structured Streaming's MicroBatchExecution: a trigger
// decides when the next micro-batch starts; each reads every offset
// available (the offset log), runs, writes its result to the sink by the
// output mode, and commits (the commit log). A micro-batch never queues
// behind another: a slow one delays the next trigger instead, so the
// scheduling delay is 0 and the batches grow.
type structured struct {
	s         *Sim
	trigger   string
	interval  des.Time
	watermark des.Time // the event-time watermark of the running batch (-1: none yet)
	maxEvent  des.Time // largest event time seen
	agg       *vert    // the aggregation (the first vertex with state), nil for a map-like query
	late      int64    // rows dropped by the watermark (numRowsDroppedByWatermark)
	sink      *vert    // the sink the aggregation writes to
	finished  bool     // available-now: done
	// held is append mode's records of the windows not written yet: their
	// arrival times by the window's end, for their latencies, which end
	// when the micro-batch that writes their window ends (nil in the other
	// modes, where a record's row is written by its own micro-batch)
	held map[des.Time][]des.Time
}

func newStructured(s *Sim) *structured {
	ss := &structured{s: s, trigger: s.sp.Trigger, interval: s.sp.TriggerInterval, watermark: -1}
	for _, vt := range s.verts {
		if vt.state != nil && ss.agg == nil {
			ss.agg = vt
		}
	}
	if ss.agg != nil {
		for _, e := range ss.agg.v.Outputs {
			if e.To.Kind == plan.Sink {
				ss.sink = s.verts[e.To.Index]
				break
			}
		}
	}
	s.interval = ss.interval
	if ss.agg != nil && s.sp.OutputMode == scenario.OutputAppend && s.sp.Window > 0 {
		ss.held = map[des.Time][]des.Time{}
	}
	return ss
}

// start schedules the first micro-batch: for processing-time and
// continuous at the first interval, for the default trigger after the
// polling delay, for available-now at the end of the warmup (the query is
// started on what arrived by then).
func (ss *structured) start() {
	switch ss.trigger {
	case scenario.TriggerProcessingTime, scenario.TriggerContinuous:
		ss.s.mustSchedule(ss.interval, ss.s.gen, 0)
	case scenario.TriggerAvailableNow:
		ss.s.mustSchedule(max(ss.s.sc.Warmup, pollingDelay), ss.s.gen, 0)
	default:
		ss.s.mustSchedule(pollingDelay, ss.s.gen, 0)
	}
}

// ended schedules the next trigger after the micro-batch that started at
// start and ended at now: for processing-time, ProcessingTimeExecutor's
// nextBatchTime of the trigger's start (the next multiple of the interval
// after start), or at once when the batch overran it (execute waits with
// waitTillTime(nextTriggerTimeMs), which returns at once when that time
// has passed: SPARK-20209, the next batch runs as soon as the slow one
// ends); at once for the default trigger when data is waiting (else after
// the polling delay), never again for available-now once it has read what
// it found. Continuous processing marks an epoch at every multiple of the
// interval after now.
func (ss *structured) ended(now, start des.Time) {
	s := ss.s
	if ss.agg != nil && ss.s.sp.Watermark > 0 && ss.maxEvent > 0 {
		ss.watermark = max(ss.watermark, ss.maxEvent-s.sp.Watermark)
	}
	switch ss.trigger {
	case scenario.TriggerProcessingTime:
		s.mustSchedule(max(start/ss.interval*ss.interval+ss.interval, now), s.gen, 1)
	case scenario.TriggerContinuous:
		s.mustSchedule(now/ss.interval*ss.interval+ss.interval, s.gen, 1)
	case scenario.TriggerAvailableNow:
		ss.finished = true
		s.events = append(s.events, sim.Event{Time: now, Type: EventQueryTerminated, Worker: -1,
			Message: "the available-now query has processed what was available at its start and terminates; what arrives since waits for its next start"})
	default:
		waiting := false
		for _, pt := range s.parts {
			pt.appendUntil(now)
			waiting = waiting || pt.appended > pt.offset
		}
		if waiting {
			s.mustSchedule(now, s.gen, 1)
		} else {
			s.mustSchedule(now+pollingDelay, s.gen, 1)
		}
	}
}

// trigger cuts and starts the micro-batch of time now (onBatchTime for
// structured streaming): every offset available, no rate limit.
func (ss *structured) triggerAt(now des.Time) {
	if ss.finished || ss.s.rec.driverDown {
		return // no driver: no trigger; the restart triggers again
	}
	s := ss.s
	b := s.cut(now, now, nil)
	if ss.trigger == scenario.TriggerContinuous {
		// continuous processing: records are processed as they arrive by
		// long-running tasks; the epoch is only a commit marker, so a
		// record's latency is its own processing, not the epoch
		b.continuous = true
		b.recLatency = s.sp.TaskOverhead
		for _, vt := range s.verts {
			if vt.v.Kind != plan.Source {
				b.recLatency += vt.service.Mean()
			}
		}
	}
	s.submit(b)
}

// touch updates the result table of the aggregation for a record of key
// with event time et (the arrival less the source's event_delay), which
// arrived at at: a row per key, or per (window, key) with a window; rows
// of windows the watermark has passed are late and dropped, as Spark
// drops them from a windowed aggregation. In append mode the record waits
// with its window (held) for the micro-batch that writes it.
func (ss *structured) touch(vt *vert, part int, key uint32, at, et des.Time) {
	s := ss.s
	vt.work[part] += s.sc.StateBackend.AccessTime
	ss.maxEvent = max(ss.maxEvent, et)
	row := uint64(key)
	end := des.Never
	if w := s.sp.Window; w > 0 {
		// the window's start is the event time floored to the window
		// size, before 0 too (Spark's TimeWindowing: lastStart =
		// timestamp - remainder, the remainder made non-negative); Go's
		// division truncates towards 0, which put an event time of -2s
		// into [0s, 10s)
		idx := et / w
		if et%w < 0 {
			idx--
		}
		end = (idx + 1) * w
		if ss.watermark >= 0 && end <= ss.watermark {
			ss.late++
			return // late: its window is final already
		}
		row |= uint64(idx) << 32
		if ss.held != nil {
			ss.held[end] = append(ss.held[end], at)
		}
	}
	vt.state[part][row] = end
	vt.updated[part][row] = struct{}{}
}

// emit writes the aggregation's result to its sink by the output mode:
// complete the whole table, update the rows changed by this trigger,
// append the rows of windows the watermark has passed (final: written
// once, then removed from the state store). With a watermark, update also
// removes state the watermark has passed; complete keeps every row, as
// Spark does (the whole table is its output). The rows are the
// sink's records of the batch (its cost, BatchInfo.RowsWritten).
func (ss *structured) emit(b *batch) {
	vt := ss.agg
	if vt == nil {
		b.info.RowsWritten = int64(len(b.arrivals))
		return
	}
	s := ss.s
	wm := ss.watermark
	var rows int64
	for i, m := range vt.state {
		var n int64
		switch s.sp.OutputMode {
		case scenario.OutputComplete:
			n = int64(len(m))
		case scenario.OutputUpdate:
			n = int64(len(vt.updated[i]))
		case scenario.OutputAppend:
			for row, end := range m {
				if wm >= 0 && end <= wm {
					n++
					delete(m, row)
				}
			}
		}
		if wm >= 0 && s.sp.OutputMode == scenario.OutputUpdate { // complete keeps the whole table
			for row, end := range m {
				if end <= wm {
					delete(m, row)
				}
			}
		}
		clear(vt.updated[i])
		rows += n
		if sk := ss.sink; sk != nil && n > 0 {
			sk.serveRows(i%sk.st.parts, n)
		}
	}
	b.info.RowsWritten = rows
	if ss.held != nil {
		// the windows this micro-batch writes, in order of their end
		// (none before the first watermark)
		b.appendMode = true
		var ends []des.Time
		for end := range ss.held {
			if wm >= 0 && end <= wm {
				ends = append(ends, end)
			}
		}
		slices.Sort(ends)
		for _, end := range ends {
			b.written = append(b.written, ss.held[end]...)
			delete(ss.held, end)
		}
	}
	if vt.v.State != nil {
		b.info.BytesWritten = rows * vt.v.State.BytesPerKey
	}
	if wm >= 0 {
		b.info.WatermarkS = wm.Seconds()
	}
}
