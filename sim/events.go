package sim

import (
	"fmt"

	"github.com/dspalab/dspalab/sim/des"
)

// Event types in events.jsonl.
const (
	EventRunStarted    = "run_started"
	EventWarmupEnded   = "warmup_ended"
	EventStatusChanged = "backpressure_status_changed"
	EventRunFinished   = "run_finished"
	EventRunStopped    = "run_stopped" // interrupted: the outputs are partial
	EventAction        = "action"      // injected by hand (or replayed)
)

// Event is something that happened in a run, at simulated time Time.
type Event struct {
	Time    des.Time
	Type    string
	Vertex  string // for vertex events
	From    string // status change: old status
	To      string // status change: new status
	Message string // one line for people
	// Checkpoint is the checkpoint id of checkpoint events.
	Checkpoint int64
	// Worker is the worker of a failure event (-1 for none, e.g. the
	// JobManager); 0 in other events, where it means nothing.
	Worker int
}

// statusMessage is the message of a back-pressure status change of a
// vertex whose total row is r, with down of its n subtasks not running
// at the end of the interval: a vertex with subtasks down says DOWN first
// (as its row's status and the live view do), whatever its back-pressure.
func statusMessage(vertex string, r Row, down, n int) string {
	switch {
	case down > 0 && down == n && r.Status != StatusOK:
		// back-pressured in the interval until its subtasks stopped: the
		// status changes to what they measured before (a to: HIGH with
		// "not back-pressured" contradicted itself)
		return fmt.Sprintf("%s is %s, then DOWN (all %d subtasks): back-pressured %.0f ms/s, busy %.0f ms/s until its subtasks stopped",
			vertex, r.Status, n, r.Backpressured, r.Busy)
	case down > 0 && down == n:
		return fmt.Sprintf("%s is DOWN (all %d subtasks): not running, not back-pressured", vertex, n)
	case down > 0:
		return fmt.Sprintf("%s is DOWN (%d of %d subtasks), the rest %s: back-pressured %.0f ms/s, busy %.0f ms/s",
			vertex, down, n, r.Status, r.Backpressured, r.Busy)
	}
	if r.Subtask < 0 && r.Busy+r.Backpressured > 1000.5 { // maxima of different subtasks
		return fmt.Sprintf("%s is %s: its most back-pressured subtask waits %.0f ms/s for buffers; its busiest works %.0f ms/s",
			vertex, r.Status, r.Backpressured, r.Busy)
	}
	return fmt.Sprintf("%s is %s: back-pressured %.0f ms/s, busy %.0f ms/s", vertex, r.Status, r.Backpressured, r.Busy)
}
