package microbatch

import (
	"fmt"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// taskRef names one task of a job: stage index and partition.
type taskRef struct{ stage, index int }

// taskOf returns the task that runs subtask i of vertex name in every
// job: the stage of the vertex and the partition i (a receiver's first
// block with input_stream receiver). It returns an error naming the
// tasks there are for a vertex or subtask the job does not have.
func (s *Sim) taskOf(name string, i int) (taskRef, error) {
	v := s.plan.Vertex(name)
	if v == nil {
		hint := ""
		if near := scenario.Nearest(name, s.plan.Names()); near != "" {
			hint = fmt.Sprintf("; did you mean %q?", near)
		}
		return taskRef{}, fmt.Errorf("the job has no vertex %q%s", name, hint)
	}
	st := s.verts[v.Index].st
	n, blocks := s.subtasks(st)
	if i < 0 || i >= n {
		return taskRef{}, fmt.Errorf("%s runs in stage %d (%s), whose jobs have tasks 0..%d (one per partition), not %d", name, st.Index, stageName(st), n-1, i)
	}
	return taskRef{stage: st.Index, index: i * blocks}, nil
}

// subtasks returns the subtasks a failure may name in stage st (its
// partitions; with input_stream receiver, of a stage without a shuffle,
// the receivers) and the tasks of each (a receiver's blocks).
func (s *Sim) subtasks(st *stage) (n, blocks int) {
	n, blocks = st.parts, 1
	if !st.Shuffle && s.receiverMode() {
		blocks = s.blocksPerBatch()
		n /= blocks
	}
	return n, blocks
}

// VertexTasks is a vertex of the job and the subtasks of it a failure
// may name (Inject's sim.Action.Subtask): its stage's tasks.
type VertexTasks struct {
	Vertex   string
	Subtasks int
}

// Vertices lists the job's vertices in plan order, with the subtasks of
// each a failure may name (the live view's selection).
func (s *Sim) Vertices() []VertexTasks {
	out := make([]VertexTasks, 0, len(s.plan.Vertices))
	for _, v := range s.plan.Vertices {
		n, _ := s.subtasks(s.verts[v.Index].st)
		out = append(out, VertexTasks{Vertex: v.Name, Subtasks: n})
	}
	return out
}

// stageName names a stage by its vertices: "parse -> enrich".
func stageName(st *stage) string {
	names := make([]string, len(st.Vertices))
	for k, v := range st.Vertices {
		names[k] = v.Name
	}
	return strings.Join(names, " -> ")
}

// failTask fails the running attempt of task t, as an exception in the
// task does: TaskSetManager.handleFailedTask counts the failure of that
// task in the job (numFailures) and adds it back to the pending tasks, so
// it runs again from its lineage (its whole duration again) unless it
// has failed spark.task.maxFailures times, which aborts the job. With no
// job running, the task's attempt in the next job fails.
func (s *Sim) failTask(now des.Time, t taskRef) {
	if s.rec.driverDown {
		s.events = append(s.events, sim.Event{Time: now, Type: sim.EventFailure, Worker: -1,
			Message: fmt.Sprintf("task %d of stage %d failed; no job runs (the driver is down or the job has stopped)", t.index, t.stage)})
		return
	}
	b := s.running
	if b == nil {
		s.rec.pendingTasks = append(s.rec.pendingTasks, t)
		return
	}
	s.retryTask(now, b, t)
}

// retryTask fails the attempt of task t in the running job b at now.
func (s *Sim) retryTask(now des.Time, b *batch, t taskRef) {
	s.rec.failures++
	if b.failed == nil {
		b.failed = map[taskRef]int{}
	}
	b.failed[t]++
	n := b.failed[t]
	b.info.FailedTasks++
	st := s.stages[t.stage]
	if n >= s.sp.TaskMaxFailures {
		s.abortJob(now, b, st, t.index, n)
		return
	}
	d := b.tasks[t.stage][t.index]
	b.info.RecomputeMs += d.Seconds() * 1000
	s.reschedule(b, b.info.start+b.proc+d)
	b.info.ProcessingMs = b.proc.Seconds() * 1000
	s.events = append(s.events, sim.Event{Time: now, Type: sim.EventFailure, Worker: t.index % s.sc.Workers.Count,
		Message: fmt.Sprintf("task %d of stage %d (%s) failed in the job of batch %s (attempt %d; spark.task.maxFailures %d): it runs again from its lineage, %s more processing time",
			t.index, st.Index, stageName(st), sim.FormatTime(b.info.time), n, s.sp.TaskMaxFailures, sim.FormatTime(d))})
}

// reschedule moves the end of the running job b to end.
func (s *Sim) reschedule(b *batch, end des.Time) {
	s.eng.Cancel(s.endEv)
	b.proc = end - b.info.start
	id, err := s.eng.Schedule(end, s.done, 0)
	if err != nil && s.stopped == nil {
		s.stopped = fmt.Errorf("microbatch: %w", err)
	}
	s.endEv = id
}

// abortJob aborts the running job b, whose task i of stage st failed n
// times (TaskSetManager.abort: "Task i in stage s failed n times;
// aborting job"). The batch completes failed, writing nothing: Spark
// Streaming's JobScheduler reports the error to the StreamingContext,
// whose awaitTermination throws it, and a streaming query terminates
// with a StreamingQueryException; either way the application stops: no
// batch is generated any more, and the source lag grows.
func (s *Sim) abortJob(now des.Time, b *batch, st *stage, i, n int) {
	s.eng.Cancel(s.endEv)
	s.running = nil
	s.rec.jobFailed, s.rec.driverDown, s.rec.stoppedAt = true, true, now
	b.info.end = now
	b.proc = now - b.info.start
	b.info.ProcessingMs = b.proc.Seconds() * 1000
	b.info.RecomputeMs = min(b.info.RecomputeMs, b.info.ProcessingMs) // what ran of the attempts planned
	b.info.aborted = true
	b.info.TotalDelayMs = (now - b.info.time).Seconds() * 1000
	s.batches = append(s.batches, b.info)
	s.ivBatch = append(s.ivBatch, len(s.batches)-1)
	queued := len(s.queue)
	s.queue, s.queuedN = nil, 0
	what := "the StreamingContext stops (JobScheduler reports the error to awaitTermination)"
	if s.ss != nil {
		what = "the query terminates (StreamingQueryException)"
	}
	s.events = append(s.events, sim.Event{Time: now, Type: sim.EventJobFailed, Worker: -1,
		Message: fmt.Sprintf("task %d in stage %d (%s) failed %s (spark.task.maxFailures): the job of batch %s is aborted and writes nothing; %s, dropping %s queued, and nothing reads the sources any more",
			i, st.Index, stageName(st), plural.Count(n, "time"), sim.FormatTime(b.info.time), what, plural.Count(queued, "batch"))})
}
