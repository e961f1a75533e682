package microbatch

import (
	"slices"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
)

// Timeline is a copy of where a micro-batch run stands, for a live view:
// the batches waiting for their job, the one running and the last ones
// done, with the rate controller's rate, the latest metrics samples and
// events. Nothing in it is shared with the simulation, so it may be read
// on another goroutine while the simulation goes on (Spark's streaming UI
// shows the same: its "Active Batches" and "Completed Batches" tables and
// the input rate).
type Timeline struct {
	Now, Duration des.Time
	// Interval is the batch interval (the trigger interval of structured
	// streaming; 0: as fast as possible).
	Interval des.Time
	// Queued are the batches cut and waiting for their job, in batch
	// order; Running is the batch whose job runs (nil: none).
	Queued  []ActiveBatch
	Running *ActiveBatch
	// Done are the last batches completed, in batch order (at most the n
	// of Sim.Timeline); Completed counts all of them.
	Done      []BatchInfo
	Completed int
	// Rate is the rate controller's latest rate (PIDRateEstimator),
	// records/s over all partitions; -1 without back-pressure or before
	// the first estimate.
	Rate float64
	// Rows are the last metrics samples (at most n); Events the last n
	// events.
	Rows   []TimeseriesRow
	Events []sim.Event
}

// ActiveBatch is a batch that has not completed: cut at Time with
// Records, its job taking Processing (computed when it was cut); Start
// is when its job started (-1: waiting).
type ActiveBatch struct {
	Batch      int64
	Time       des.Time
	Records    int64
	Processing des.Time
	Start      des.Time
}

// Duration returns the scenario's duration, where RunUntil stops.
func (s *Sim) Duration() des.Time { return s.sc.Duration }

// MetricsInterval returns the simulated time between two metrics samples,
// as the plan resolves metrics.interval (its one place).
func (s *Sim) MetricsInterval() des.Time { return s.plan.MetricsInterval() }

// Timeline returns a copy of where the run stands, with the last n
// completed batches, metrics samples and events. It changes nothing in
// the simulation.
func (s *Sim) Timeline(n int) *Timeline {
	t := &Timeline{Now: s.eng.Now(), Duration: s.sc.Duration, Interval: s.interval,
		Completed: len(s.batches), Rate: -1,
		Done:   slices.Clone(s.batches[max(len(s.batches)-n, 0):]),
		Rows:   slices.Clone(s.tsRows[max(len(s.tsRows)-n, 0):]),
		Events: slices.Clone(s.events[max(len(s.events)-n, 0):])}
	if s.pid != nil && s.rate > 0 {
		t.Rate = s.rate
	}
	for _, b := range s.queue {
		t.Queued = append(t.Queued, active(b, -1))
	}
	if b := s.running; b != nil {
		a := active(b, b.info.start)
		t.Running = &a
	}
	return t
}

func active(b *batch, start des.Time) ActiveBatch {
	return ActiveBatch{Batch: b.info.Batch, Time: b.info.time, Records: b.info.Records, Processing: b.proc, Start: start}
}
