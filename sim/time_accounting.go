package sim

import "github.com/dspalab/dspalab/sim/des"

// Task states, as Flink accounts task time.
const (
	stateIdle = iota // no input to process (or, for a source, no record yet)
	stateBusy        // processing a record
	stateBP          // holding output that no buffer can take: back-pressured
	// stateChained: a chain's task waiting for the chained operator it
	// handed a record to; the chained operator's own state says what
	// the thread does (see operator_chain.go)
	stateChained
)

// timeAccounting is a task's time accounting: every simulated nanosecond
// is busy, idle or back-pressured, as Flink's TaskIOMetricGroup measures
// busyTimeMsPerSecond, idleTimeMsPerSecond and
// backPressuredTimeMsPerSecond (they sum to 1000 per subtask), over the
// current metrics interval and over the statistics window.
type timeAccounting struct {
	warmup    des.Time // the window starts then
	bpSettled des.Time // of win[stateBP], what settleBP has charged to edges
	state     int
	since     des.Time
	iv        [4]des.Time // time per state in the current metrics interval
	win       [4]des.Time // time per state inside the statistics window
	bpOut     []des.Time  // back-pressured time inside the window, per output edge
	// back-pressured time inside the window spent waiting for subtasks of
	// a failed worker not noticed yet (left out of the diagnosis), in all
	// and per output edge (also in bpOut)
	winBPDown des.Time
	bpOutDown []des.Time
	// time down (not running) in the current metrics interval and inside
	// the window, since downAt while down; the states above go on as
	// idle meanwhile, and the samples take it out of idle (sample.go)
	ivDown, winDown, downAt des.Time
}

// account moves the time since the last change into the interval and
// window accumulators of the current state (the window starts after
// warmup). It is the hot path (every change of state); the back-pressured
// time of the window is charged to output edges by settleBP.
func (a *timeAccounting) account(now des.Time) {
	since := a.since
	if now <= since {
		return
	}
	a.since = now
	st := a.state & 3 // a state: no bounds check
	a.iv[st] += now - since
	if w := a.warmup; now > w {
		a.win[st] += now - max(since, w)
	}
}

// settleBP charges the back-pressured time of the window not charged yet
// to the output edge the writer is blocked on (blockedOn, the partition
// with no buffer, at edge index edge), and to winBPDown too when its
// receivers are down. It runs whenever what the task waits for changes
// (unblocked, reset, a receiver lost) and before the time is read, so
// that each stretch goes to the edge it was spent waiting on.
func (a *timeAccounting) settleBP(blockedOn *partition, edge int) {
	d := a.win[stateBP] - a.bpSettled
	if d == 0 {
		return
	}
	a.bpSettled = a.win[stateBP]
	if blockedOn == nil {
		return
	}
	a.bpOut[edge] += d
	if blockedOn.intoDown {
		a.winBPDown += d // waiting for a failed worker's subtasks
		a.bpOutDown[edge] += d
	}
}

// execution is what holds a task apart from its records: a failure, a
// straggler's slowdown, a pause of its worker, the synchronous part of a
// snapshot.
type execution struct {
	down        bool    // failed, or the job is restarting (Flink's execution is not RUNNING)
	heldCur     bool    // down with its record in service (a lost worker)
	slow        float64 // service times multiply by it (a straggler), when above 1
	resumeArmed bool    // a pauseEnded is scheduled
	gcBusy      bool    // busy only because of a pause
	syncBusy    bool    // busy only with a snapshot's synchronous part
}

// ioMetrics counts a task's records in and out (Flink's numRecordsIn and
// numRecordsOut) in all, and integrates the records inside the task for
// Little's law (L = λW). A record counts once: the counts of the current
// metrics interval are the totals less those at its start (ivIn), the
// window's the totals less those of the warmup (winIn).
type ioMetrics struct {
	totIn, totOut uint64
	// the totals when the current metrics interval started (resetIv)
	ivBaseIn, ivBaseOut uint64
	// records counted at or before the warmup's end: not in the window
	preIn, preOut uint64

	// Little's law: records inside the task (input queue and service)
	inSys    int64
	lastN    des.Time
	area     float64 // record-nanoseconds inside the window
	sojourn  float64 // nanoseconds, departures inside the window
	departed uint64  // departures inside the window
}

// InWindow reports whether a record at t counts in the statistics
// window that opens at from (the warmup) and closes at the run's end:
// from < t, so that records at a constant rate r count r x (end - from)
// (a record of the window's first instant belongs to the warmup). Both
// engines count the records into and out of a job by it: the Flink
// engine's numRecordsIn/numRecordsOut, the micro-batch engine's records
// received, over the same window (Summary.Window).
func InWindow(t, from des.Time) bool { return t > from }

// recordIn counts a record taken from the input at now.
func (m *ioMetrics) recordIn(now, warmup des.Time) {
	m.totIn++
	if !InWindow(now, warmup) {
		m.preIn++
	}
}

// recordOut counts a record written to every output at now.
func (m *ioMetrics) recordOut(now, warmup des.Time) {
	m.totOut++
	if !InWindow(now, warmup) {
		m.preOut++
	}
}

// ivIn and ivOut return the records in and out in the current metrics
// interval.
func (m *ioMetrics) ivIn() uint64  { return m.totIn - m.ivBaseIn }
func (m *ioMetrics) ivOut() uint64 { return m.totOut - m.ivBaseOut }

// winIn and winOut return the records in and out inside the statistics
// window.
func (m *ioMetrics) winIn() uint64  { return m.totIn - m.preIn }
func (m *ioMetrics) winOut() uint64 { return m.totOut - m.preOut }

// resetIv starts a new metrics interval of the counts.
func (m *ioMetrics) resetIv() { m.ivBaseIn, m.ivBaseOut = m.totIn, m.totOut }

// arrive counts n records entering the task's input queue.
func (m *ioMetrics) arrive(now, warmup des.Time, n int) {
	m.touchN(now, warmup)
	m.inSys += int64(n)
}

// depart counts the record that arrived at arrived leaving the task now.
func (m *ioMetrics) depart(now, warmup, arrived des.Time) {
	if now != m.lastN { // else nothing to integrate since (a sink that serves a record the instant it comes)
		m.touchN(now, warmup)
	}
	m.inSys--
	if now > warmup {
		m.sojourn += float64(now - arrived)
		m.departed++
	}
}

// touchN integrates the number of records inside the task over the
// window up to now.
func (m *ioMetrics) touchN(now, warmup des.Time) {
	if now > warmup && m.inSys > 0 {
		m.area += float64(m.inSys) * float64(now-max(m.lastN, warmup))
	}
	m.lastN = now
}
