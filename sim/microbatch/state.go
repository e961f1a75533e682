package microbatch

import (
	"fmt"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// touch updates the state of vt's partition part for a record of key
// (event time et) in the batch of time now.
//
// updateStateByKey (StateDStream) cogroups the batch with the whole
// previous state RDD and calls the update function for every key, so its
// cost is per key held (stateCost); mapWithState (MapWithStateRDD) calls
// the mapping function only for the keys of the batch's records, so its
// cost is per record, here.
func (s *Sim) touch(vt *vert, part int, key uint32, et, now des.Time) {
	row := uint64(key)
	if s.ss != nil {
		s.ss.touch(vt, part, key, et)
		return
	}
	if s.sp.StateOperation == scenario.StateMapWithState {
		vt.work[part] += s.sc.StateBackend.AccessTime
	}
	vt.state[part][row] = now
}

// stateCost is the state cost of vt's partition i in the batch computed:
// updateStateByKey touches every key it holds; mapWithState only scans its
// state on a checkpoint batch, where it removes the keys idle past the
// timeout (MapWithStateRDD's full scan, doFullScan on checkpoint).
func (s *Sim) stateCost(vt *vert, i int) des.Time {
	if s.ss != nil {
		return 0
	}
	n := int64(len(vt.state[i]))
	if s.sp.StateOperation == scenario.StateUpdateStateByKey {
		return des.Time(n) * s.sc.StateBackend.AccessTime
	}
	if !s.ckpt.due(s.cutTime) {
		return 0
	}
	if t := s.sp.StateTimeout; t > 0 {
		for k, last := range vt.state[i] {
			if s.cutTime-last >= t {
				delete(vt.state[i], k)
			}
		}
	}
	return des.Time(n) * s.sc.StateBackend.AccessTime
}

// stateKeys and stateBytes are the state held over all stateful vertices.
func (s *Sim) stateKeys() (keys, bytes int64) {
	for _, vt := range s.verts {
		for _, m := range vt.state {
			keys += int64(len(m))
			bytes += int64(len(m)) * vt.v.State.BytesPerKey
		}
	}
	return keys, bytes
}

// ckptState is ssc.checkpoint: metadata (the DStream graph and the
// pending batches) every batch, the state RDDs every interval.
type ckptState struct {
	interval des.Time // 0: checkpointing off
	lineage  int      // batches since the last state checkpoint
}

// due reports whether the batch of time t checkpoints its state: Spark's
// DStream.checkpoint condition, (time - zeroTime) isMultipleOf
// checkpointDuration.
func (c *ckptState) due(t des.Time) bool {
	return c.interval > 0 && t > 0 && t%c.interval == 0
}

// checkpoint adds the state checkpoint of a checkpoint batch to its job
// (the RDD checkpoint is a job after the batch's output operation: the
// state bytes at CheckpointBandwidth) and truncates the lineage; other
// batches lengthen it.
func (s *Sim) checkpoint(b *batch) des.Time {
	c := &s.ckpt
	if c.interval == 0 {
		return 0
	}
	c.lineage++
	b.info.Lineage = c.lineage
	if !c.due(b.info.time) {
		return 0
	}
	_, bytes := s.stateKeys()
	c.lineage = 0
	b.info.Lineage = 0
	b.info.CheckpointBytes = bytes
	s.events = append(s.events, sim.Event{Time: s.eng.Now(), Type: EventCheckpoint, Worker: -1,
		Message: fmt.Sprintf("batch %s checkpoints %s of state; lineage truncated", sim.FormatTime(b.info.time), scenario.FormatByteSize(bytes))})
	return des.FromSeconds(float64(bytes) / s.sp.CheckpointBandwidth)
}
