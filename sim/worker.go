package sim

import (
	"fmt"

	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// gcMinPause is the shortest garbage-collection pause.
const gcMinPause = des.Millisecond

// worker is a TaskManager: its heap (keyed state of the heap backend) and
// garbage-collection pauses.
type worker struct {
	index       int
	memory      int64
	heap        int64
	pausedUntil des.Time
	oomArmed    bool
	gcInterval  des.Time
	gcPerGiB    des.Time
	s           *Sim
}

// grow adds n bytes of heap state; past the worker's memory it fails the
// worker (java.lang.OutOfMemoryError: Java heap space), after the current
// event.
func (w *worker) grow(now des.Time, n int64) {
	s := w.s
	w.heap += n
	if w.heap > w.memory && !w.oomArmed && s.fo != nil {
		w.oomArmed = true
		epoch := s.epoch
		s.fo.later(now, func(now des.Time) {
			if s.epoch != epoch || w.heap <= w.memory {
				return // a failover in between emptied the heap
			}
			s.fo.fail(now, failureCause{kind: causeOOM, worker: w.index,
				text: fmt.Sprintf("worker %d ran out of memory: %d bytes (%s) of heap state exceed its memory of %d bytes (%s) (java.lang.OutOfMemoryError: Java heap space); the rocksdb state backend keeps state on disk",
					w.index, w.heap, scenario.FormatByteSize(w.heap), w.memory, scenario.FormatByteSize(w.memory))})
		})
	}
}

// HandleEvent starts a garbage-collection pause of the worker: its
// subtasks stop for gcPerGiB per GiB of heap state (at least 1ms).
func (w *worker) HandleEvent(now des.Time, _ int64) {
	pause := max(gcMinPause, des.Time(float64(w.gcPerGiB)*float64(w.heap)/(1<<30)))
	w.pausedUntil = now + pause
	if now+w.gcInterval <= w.s.duration {
		w.s.eng.After(w.gcInterval, w, 0)
	}
}
