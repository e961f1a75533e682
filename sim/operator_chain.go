package sim

import (
	"fmt"
	"strings"

	"github.com/dspalab/dspalab/sim/des"
)

// chainLink is a subtask's place in an operator chain (plan.Task): the
// vertices of a chain run their subtask i in one thread, as Flink's
// OperatorChain calls the next operator's processElement from the
// previous one's output (ChainingOutput), with no record writer, buffer
// or channel between them. The chain's head takes records from its input
// gate (or its source); each chained operator is handed its input record
// by the operator before it and serves it while the head waits (state
// stateChained), so the task is busy for the sum of the service times of
// the chained operators on a record and its outputs.
type chainLink struct {
	in      *partition // the chained edge into the subtask; nil for a chain's head
	holding bool       // serving a record handed over by in's owner
}

// heads reports whether t heads its task (it is not chained to an input).
func (t *subtask) heads() bool { return t.chain.in == nil }

// taskSubtasks returns the subtasks that run in t's task, the head first:
// subtask t.index of every vertex of its chain (one for an unchained
// vertex). They are one Flink task (StreamTask with its OperatorChain):
// one thread, so a failure or a slowdown of any of them is the task's.
func (t *subtask) taskSubtasks() []*subtask {
	pt := t.v.pv.Task
	out := make([]*subtask, len(pt.Vertices))
	for k, pv := range pt.Vertices {
		out[k] = t.s.vertices[pv.Index].subtasks[t.index]
	}
	return out
}

// taskText names t's task subtask as Flink's web UI names a chain:
// "aggregate -> out[0]", "aggregate[0]" for an unchained vertex.
func (t *subtask) taskText() string { return fmt.Sprintf("%s[%d]", t.v.pv.Task.Name, t.index) }

// taskFailure is the failure of the task that runs t (Flink's
// Task.failExternally, or an exception out of any operator of its chain:
// the task fails as a whole, every operator of the chain with it).
func taskFailure(t *subtask) failureCause {
	text := "task " + t.taskText() + " failed"
	if t.v.pv.Task.Chained() {
		text += " in " + t.v.name // which operator of the chain threw
	}
	head := t.taskSubtasks()[0]
	return failureCause{kind: causeTask, t: head, worker: head.worker, text: text}
}

// accept hands r to t, a chained operator, in its predecessor's thread:
// t serves it at once. It reports whether t is done with r (its outputs
// written); if not, t wakes its predecessor up (chainDone) when it is.
func (t *subtask) accept(now des.Time, r *Record) bool {
	t.cur = *r
	t.curArrived = now
	t.arrive(now, 1)
	t.serve(now)
	if t.state == stateIdle {
		return true
	}
	t.chain.holding = true
	return false
}

// chainDone resumes t's predecessor in the chain once t, idle again, is
// done with the record it was handed.
func (t *subtask) chainDone(now des.Time) {
	if t.chain.holding && t.state == stateIdle {
		t.chainResume(now)
	}
}

// chainResume resumes t's predecessor (chainDone, kept small enough to
// be inlined after every record).
func (t *subtask) chainResume(now des.Time) {
	t.chain.holding = false
	t.chain.in.owner.unblock(now, t.chain.in)
}

// blockedState is the state of a task whose record writer has stopped:
// back-pressured on a partition with no buffer, or waiting for a chained
// operator that serves the record it was handed.
func (t *subtask) blockedState() int {
	if t.blockedOn != nil && t.blockedOn.next != nil {
		return stateChained
	}
	return stateBP
}

// held reports whether t holds output its record writer has not written
// yet (back-pressured, or in a chained operator).
func (t *subtask) held() bool { return t.state == stateBP || t.state == stateChained }

// chainedBarrier takes checkpoint id's barrier into chained operator t at
// once, in its predecessor's thread: t snapshots and forwards it, as
// Flink's task snapshots all operators of its chain together.
func (t *subtask) chainedBarrier(now des.Time, id int64, ck *checkpoint) int64 {
	t.s.ckpt.started(now, t, id)
	t.snapshot(now, ck, t.forwardBarrier(now, id, ck))
	return 0
}

// taskTimes returns the busy, idle and back-pressured time of the task
// that t runs in (t's subtask index of it), in the current metrics
// interval or, with win, inside the window: its operators' busy and
// back-pressured times summed (one thread runs them one after another),
// idle the head's idle time less its down time (see setDown).
func (s *Sim) taskTimes(t *subtask, win bool) (busy, idle, bp des.Time) {
	pt := t.v.pv.Task
	for k, pv := range pt.Vertices {
		m := s.vertices[pv.Index].subtasks[t.index]
		a, down := &m.iv, m.ivDown
		if win {
			a, down = &m.win, m.winDown
		}
		busy += a[stateBusy]
		bp += a[stateBP]
		if k == 0 {
			idle = max(a[stateIdle]-down, 0)
		}
	}
	return busy, idle, bp
}

// taskSummaries returns the tasks of the plan with their figures, from
// the summaries of their vertices (vs, in the order of the plan's
// vertices): busy, idle, back-pressured and down time as the head shows
// them (every vertex of a chain shows its task's), in of the head, out of
// the vertices with an edge out of the task (plan.Vertex.Exits), for the
// task and for each of its subtasks.
func (s *Sim) taskSummaries(vs []VertexSummary) []TaskSummary {
	out := make([]TaskSummary, 0, len(s.plan.Tasks))
	for _, pt := range s.plan.Tasks {
		h := &vs[pt.Head().Index]
		ts := TaskSummary{Name: pt.Name, Kind: pt.Kind().String(), Parallelism: h.Parallelism, Figures: h.Figures,
			Subtasks: make([]SubtaskFigures, len(h.Subtasks))}
		ts.OutRate = 0 // the task's: of the edges that leave it
		for i := range h.Subtasks {
			ts.Subtasks[i] = h.Subtasks[i].SubtaskFigures
			ts.Subtasks[i].OutRate = 0
		}
		for _, pv := range pt.Vertices {
			ts.Vertices = append(ts.Vertices, pv.Name)
			if !pv.Exits() {
				continue
			}
			v := &vs[pv.Index]
			ts.leaves = true
			ts.OutRate += v.OutRate
			for i := range ts.Subtasks {
				ts.Subtasks[i].OutRate = round6(ts.Subtasks[i].OutRate + v.Subtasks[i].OutRate)
			}
		}
		ts.OutRate = round6(ts.OutRate)
		out = append(out, ts)
	}
	return out
}

// tableRows returns the rows of the human table: one per task, as Flink's
// web UI shows a job vertex. A task of one vertex is that vertex; a chain
// is a row named after it ("enrich -> out") with its task's figures and
// kind (TaskSummary.Kind): the head's input rate, the outputs that leave
// the task ("-" when none does: a sink's kind), and the latency of its
// last vertex.
func tableRows(s *Summary) []tableRow {
	row := func(v VertexSummary) tableRow {
		return tableRow{VertexSummary: v, noIn: v.Kind == KindSource, noOut: v.Kind == KindSink}
	}
	var rows []tableRow
	if len(s.Tasks) == 0 { // a summary written before tasks
		for _, v := range s.Vertices {
			rows = append(rows, row(v))
		}
		return rows
	}
	byName := make(map[string]*VertexSummary, len(s.Vertices))
	for i := range s.Vertices {
		byName[s.Vertices[i].Name] = &s.Vertices[i]
	}
	for _, t := range s.Tasks {
		h, last := byName[t.Vertices[0]], byName[t.Vertices[len(t.Vertices)-1]]
		if h == nil || last == nil {
			continue
		}
		if len(t.Vertices) == 1 {
			rows = append(rows, row(*h))
			continue
		}
		r := row(*h)
		r.Name, r.InRate, r.OutRate = t.Name, t.InRate, t.OutRate
		r.LatencyP50, r.LatencyP99 = last.LatencyP50, last.LatencyP99
		if t.Kind != "" { // a summary written before kinds keeps the head's
			r.Kind = t.Kind
		}
		// a source whose records all end in chained sinks writes to no
		// edge either (leaves is not in summary.json: read back, a rate
		// of 0 says so)
		r.noOut = r.Kind == KindSink || (r.Kind == KindSource && !t.leaves && t.OutRate == 0)
		if r.noIn && r.noOut {
			// no edge into or out of the task (a source chained
			// through to a sink): its rates are its vertices'
			for _, name := range t.Vertices {
				if v := byName[name]; v != nil {
					r.through = append(r.through, *v)
				}
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// chainNote says, for a bottleneck v (vertex vx) that runs in an operator
// chain, that its busy time is its task's: the work of all the chain's
// operators in one thread, so the slow one may be another; chain: false
// on the chained operators (Flink's disableChaining) gives each a task and
// a busy time of its own. It returns "" for a vertex that is not chained.
func chainNote(vx *vertex, v VertexSummary) string {
	pt := vx.pv.Task
	if !pt.Chained() {
		return ""
	}
	var all, rest []string
	for k, pv := range pt.Vertices {
		all = append(all, pv.Name)
		if k > 0 {
			rest = append(rest, pv.Name)
		}
	}
	return fmt.Sprintf("%s runs chained in the task %s, one thread: busy %s is the work of %s together; chain: false on %s gives each its own task and busy time, to see which is slow",
		v.Name, pt.Name, pct(v.Busy), andList(all), andList(rest))
}

// tableRow is a row of the human table: a vertex or a task, with "-" for
// a rate it has no edge for.
type tableRow struct {
	VertexSummary
	noIn, noOut bool
	// through: the vertices of a task with no edge in or out (a source
	// chained through to a sink), whose rates the table says on a line
	// of its own (throughText)
	through []VertexSummary
}

// throughText says the rates of the vertices of task row r, which has
// none of its own (no edge enters or leaves it), as Flink's web UI shows
// a chained task's operators' numRecordsIn and numRecordsOut: "s -> op -> o
// is one task, chained from its source to its sink, so no record enters
// or leaves it on an edge: s emits 100/s, op takes 100/s, o takes 99.9/s".
func throughText(r tableRow) string {
	var parts []string
	for _, v := range r.through {
		switch v.Kind {
		case KindSource:
			parts = append(parts, fmt.Sprintf("%s emits %s/s", v.Name, rate(v.OutRate)))
		default:
			parts = append(parts, fmt.Sprintf("%s takes %s/s", v.Name, rate(v.InRate)))
		}
	}
	return fmt.Sprintf("%s is one task, chained from its source to its sink, so no record enters or leaves it on an edge: %s", r.Name, strings.Join(parts, ", "))
}

// chainBackpressure gives every vertex of a chain its task's
// back-pressured time per output edge (VertexSummary.BackpressuredOn, and
// onNoFailure without the waits for a lost worker): the task waits on the
// edges out of it, whichever of its operators holds the output, so the
// diagnosis follows them from any vertex of the chain.
func (s *Sim) chainBackpressure(vs []VertexSummary, onNoFailure map[string]map[string]float64) {
	for _, pt := range s.plan.Tasks {
		if !pt.Chained() {
			continue
		}
		var on, noFail map[string]float64
		for _, pv := range pt.Vertices {
			for to, r := range vs[pv.Index].BackpressuredOn {
				if on == nil {
					on = map[string]float64{}
				}
				on[to] = max(on[to], r)
			}
			for to, r := range onNoFailure[pv.Name] {
				if noFail == nil {
					noFail = map[string]float64{}
				}
				noFail[to] = max(noFail[to], r)
			}
		}
		for _, pv := range pt.Vertices {
			vs[pv.Index].BackpressuredOn = on
			onNoFailure[pv.Name] = noFail
		}
	}
}
