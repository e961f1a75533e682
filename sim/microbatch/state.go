package microbatch

import (
	"fmt"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// touch updates the state of vt's partition part for a record of key
// (event time et) in the batch of time now.
//
// updateStateByKey (StateDStream.computeUsingPreviousRDD) cogroups the
// batch with the whole previous state RDD and calls the update function
// once for every key, held or new, with the sequence of the batch's
// values for it: its cost is the operator's service time per record and
// state access per key held (stateCost), and its output a row per key
// (emitState); mapWithState (MapWithStateRDD) calls the mapping function
// only for the batch's records, so its state cost is per record, here,
// and its output a record per record.
func (s *Sim) touch(vt *vert, part int, key uint32, at, et, now des.Time) {
	row := uint64(key)
	if s.ss != nil {
		s.ss.touch(vt, part, key, at, et)
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
	return des.FromSeconds(float64(bytes) / s.sp.CheckpointBandwidth)
}

// checkpointWritten notes the state checkpoint of batch b, whose job ended
// now: the RDD checkpoint is written by the end of the job (a job after
// the batch's output operation), so a batch cut and not completed, or
// aborted, wrote none.
func (s *Sim) checkpointWritten(now des.Time, b *batch) {
	if s.ckpt.interval == 0 || b.info.Lineage != 0 {
		return
	}
	s.events = append(s.events, sim.Event{Time: now, Type: EventCheckpoint, Worker: -1,
		Message: fmt.Sprintf("batch %s checkpoints %s of state; lineage truncated", sim.FormatTime(b.info.time), scenario.FormatByteSize(b.info.CheckpointBytes))})
}

// emitState sends the output of updateStateByKey downstream: the new
// state RDD, one (key, state) row per key held, every batch (StateDStream
// is a DStream[(K, S)]), whether the batch brought a record of the key or
// not. The rows carry no latency of their own (the batch's records
// delivered their latency at the state: push); their rows_written and
// bytes_written (bytes_per_key each) are counted where they reach a sink.
func (s *Sim) emitState(b *batch) {
	for _, vt := range s.verts {
		if vt.state == nil {
			continue
		}
		for i, m := range vt.state {
			s.forwardRows(b, vt, i, int64(len(m)), m, vt.v.State.BytesPerKey)
		}
	}
}

// forwardRows hands n rows of vt's partition part along vt's output
// edges, as push hands a record: a narrow dependency keeps the partition,
// a hash edge sends each row by its key (keys, the rows' keys, when they
// come from a state; spread evenly otherwise), broadcast to every
// partition, rebalance round-robin. A vertex that receives rows costs its
// service time per row and forwards them by its selectivity; a sink
// counts them written. Rows are counted, not drawn one by one, in
// partition order, so that a run stays deterministic whatever the order
// of the state's map.
func (s *Sim) forwardRows(b *batch, vt *vert, part int, n int64, keys map[uint64]des.Time, size int64) {
	if n <= 0 {
		return
	}
	for ei, e := range vt.v.Outputs {
		to := s.verts[e.To.Index]
		parts := to.st.parts
		switch {
		case to.st == vt.st:
			s.takeRows(b, to, part, n, size)
		case e.Partitioning == scenario.PartitionHash:
			cnt := make([]int64, parts)
			if keys != nil {
				for row := range keys {
					cnt[int(uint32(row))%parts]++ // HashPartitioner, as push
				}
			} else {
				for q := range cnt {
					cnt[q] = n / int64(parts)
					if int64(q) < n%int64(parts) {
						cnt[q]++
					}
				}
			}
			for q, c := range cnt {
				to.st.read[q] += c * size
				s.takeRows(b, to, q, c, size)
			}
		case e.Partitioning == scenario.PartitionBroadcast:
			for q := range parts {
				to.st.read[q] += n * size
				s.takeRows(b, to, q, n, size)
			}
		default: // round-robin from where this partition's position stands
			r := &vt.rr[part*len(vt.v.Outputs)+ei]
			for k := range int64(parts) {
				q := (*r + int(k)) % parts
				c := n / int64(parts)
				if k < n%int64(parts) {
					c++
				}
				to.st.read[q] += c * size
				s.takeRows(b, to, q, c, size)
			}
			*r += int(n % int64(parts))
		}
	}
}

// takeRows is a vertex's partition part receiving n rows (forwardRows):
// their service time, then a sink writes them, another vertex forwards
// them by its selectivity. Its own state, if any, is not updated by rows
// (a state behind updateStateByKey's is not modelled).
func (s *Sim) takeRows(b *batch, vt *vert, part int, n, size int64) {
	if n <= 0 {
		return
	}
	vt.serveRows(part, n)
	if vt.v.Kind == plan.Sink {
		b.info.RowsWritten += n
		b.info.BytesWritten += n * size
		return
	}
	vt.acc += vt.v.Selectivity * float64(n)
	k := int64(vt.acc)
	vt.acc -= float64(k)
	vt.out += k
	s.forwardRows(b, vt, part, k, nil, size)
}

// serveRows counts n rows into vt's partition part, with their service
// time (one draw per row in turn when it is random).
func (vt *vert) serveRows(part int, n int64) {
	vt.in[part] += n
	vt.total += n
	if vt.service.Constant() {
		vt.work[part] += des.Time(n) * vt.service.Mean()
	} else {
		for range n {
			vt.work[part] += vt.service.Sample(vt.rng)
		}
	}
}
