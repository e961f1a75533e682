package runner

import (
	"fmt"

	"github.com/dspalab/dspalab/datasets"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// EventTraceEnded is the type of the event Run adds to events.jsonl when
// the input of a trace source ends well before the run does (see
// endsEarly): from then on the statistics see no input from it. Vertex is
// the source.
const EventTraceEnded = "trace_ended"

// TraceSources describes, one string per trace source of sc (parsed under
// label, with its overrides applied) in the order of the sources, which
// data the source replays and from where, as Run would resolve it:
//
//	tasks: clusterdata-2011-2/task_events part 1 (embedded offline sample)
//	tasks: clusterdata-2011-2/task_events parts 0-2 (cache)
//	rides: course/rides part 0 (offline sample /home/ana/course/rides-sample.csv)
//	s: file data.csv (file /home/ana/sub/data.csv)
//
// so that a record of runs (a sweep's) says whether they saw a sample, the
// cached parts or a file. It returns nil for a scenario without trace
// sources, and the error of Run for traces that cannot be resolved.
func TraceSources(label string, sc *scenario.Scenario) ([]string, error) {
	t, err := resolveTraces(label, sc)
	if err != nil || t == nil {
		return nil, err
	}
	var out []string
	for _, s := range sc.Sources {
		if rp, ok := t.replays[s.Name]; ok {
			out = append(out, fmt.Sprintf("%s: %s (%s)", s.Name, rp.What, rp.Origin))
		}
	}
	return out, nil
}

// stats returns the counts of the reader of source that got furthest:
// every reader reads the whole trace, so that one (a replayable source's
// log) has the counts of the run.
func (t *traces) stats(source string) (datasets.TraceStats, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rs := t.readers[source]
	if len(rs) == 0 {
		return datasets.TraceStats{}, false
	}
	st := rs[0].Stats()
	for _, r := range rs[1:] {
		if s := r.Stats(); s.Lines > st.Lines || s.EOF && !st.EOF {
			st = s
		}
	}
	return st, true
}

// knownEnd returns when the input of source's trace ends, when it is known
// before the run (the registry's span of a sample or of cached parts) and
// ends early.
func (t *traces) knownEnd(source string) (des.Time, bool) {
	rp, ok := t.replays[source]
	if !ok || rp.Span <= 0 {
		return 0, false
	}
	end := rp.Span
	return end, t.endsEarly(end)
}

// endsEarly reports whether a trace whose input ends at end leaves the
// run idle long enough to matter: more than a metrics interval and more
// than a twentieth of the duration (the 30 s sample in a 30 s run does
// not; in an 84 s run it does).
func (t *traces) endsEarly(end des.Time) bool {
	idle := t.sc.Duration - end
	return idle > t.sc.Metrics.Interval && idle > t.sc.Duration/20
}

// endMessage says that source's trace ends at end, with what the data
// holds (extent) if known.
func (t *traces) endMessage(source string, end des.Time, extent string) string {
	at := sim.FormatTime(roundEnd(end))
	m := fmt.Sprintf("the trace of source %s ends at %s of %s simulated", source, at, sim.FormatTime(t.sc.Duration))
	if extent != "" {
		m += " (" + extent + ")"
	}
	return m + ": statistics after " + at + " see no input"
}

// observe returns obs with an EventTraceEnded event added for each trace
// source whose input ends early (known before the run, or learnt when its
// reader reached the end of the trace), before the first sample or event
// at or after its end. Each call has its own state: a fresh run.
func (t *traces) observe(obs sim.Observer) sim.Observer {
	if t == nil || obs == nil {
		return obs
	}
	return &endObserver{t: t, obs: obs, done: map[string]bool{}}
}

type endObserver struct {
	t    *traces
	obs  sim.Observer
	done map[string]bool // sources whose end was reported (or that do not end early)
}

// flush adds the events of the trace ends at or before now.
func (o *endObserver) flush(now des.Time) {
	for _, s := range o.t.sc.Sources {
		if o.done[s.Name] {
			continue
		}
		rp, ok := o.t.replays[s.Name]
		if !ok {
			o.done[s.Name] = true
			continue
		}
		end, early := o.t.knownEnd(s.Name)
		extent := rp.Extent
		if rp.Span <= 0 {
			st, ok := o.t.stats(s.Name)
			if !ok || !st.EOF {
				continue // not known yet
			}
			end, early, extent = st.End, st.Records > 0 && o.t.endsEarly(st.End), ""
		}
		if !early {
			o.done[s.Name] = true
			continue
		}
		if end > now {
			continue
		}
		o.done[s.Name] = true
		o.obs.Event(sim.Event{Time: end, Type: EventTraceEnded, Vertex: s.Name, Message: o.t.endMessage(s.Name, end, extent)})
	}
}

func (o *endObserver) Sample(s *sim.Sample) {
	o.flush(s.Time)
	o.obs.Sample(s)
}

func (o *endObserver) Event(e sim.Event) {
	o.flush(e.Time)
	o.obs.Event(e)
}

// Checkpoint hands c on when the observer wrapped takes checkpoints.
func (o *endObserver) Checkpoint(c *sim.CheckpointStats) {
	if co, ok := o.obs.(sim.CheckpointObserver); ok {
		co.Checkpoint(c)
	}
}

// roundEnd rounds the end of a trace for people: to the second from 10s
// on (the 29.994s of the offline sample is 30s), else to 100ms.
func roundEnd(end des.Time) des.Time {
	if end >= 10*des.Second {
		return (end + des.Second/2) / des.Second * des.Second
	}
	return (end + 50*des.Millisecond) / (100 * des.Millisecond) * (100 * des.Millisecond)
}
