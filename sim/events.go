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

func statusMessage(vertex string, r Row) string {
	if r.Subtask < 0 && r.Busy+r.Backpressured > 1000.5 { // maxima of different subtasks
		return fmt.Sprintf("%s is %s: its most back-pressured subtask waits %.0f ms/s for buffers; its busiest works %.0f ms/s",
			vertex, r.Status, r.Backpressured, r.Busy)
	}
	return fmt.Sprintf("%s is %s: back-pressured %.0f ms/s, busy %.0f ms/s", vertex, r.Status, r.Backpressured, r.Busy)
}
