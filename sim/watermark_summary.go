package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/metrics"
	"github.com/dspalab/dspalab/sim/scenario"
)

// EventTimeSummary is a run's event-time progress (summary.json
// "event_time"), present when a source generates watermarks or an
// operator is a window: per vertex, Flink's watermark metrics and the
// window operators' figures.
type EventTimeSummary struct {
	Vertices []VertexEventTime `json:"vertices"`
	// Diagnosis says in sentences what holds event time back: an idle
	// source subtask that stalls the watermark, late records and the bound
	// that would keep them, watermarks delayed by back-pressure (the
	// table's "event time:" lines).
	Diagnosis []string `json:"diagnosis"`
}

// VertexEventTime is the event-time progress of one vertex at the end of
// the run. Watermarks are in seconds of event time (the simulated clock
// the sources stamp); a vertex that has seen no watermark has null.
type VertexEventTime struct {
	Name string `json:"name"`
	// CurrentInputWatermarkS and CurrentOutputWatermarkS are Flink's
	// currentInputWatermark and currentOutputWatermark: the least over
	// the vertex's subtasks (sources: the watermark they generated).
	CurrentInputWatermarkS  *float64 `json:"current_input_watermark_s"`
	CurrentOutputWatermarkS *float64 `json:"current_output_watermark_s"`
	// WatermarkLagS is processing time − CurrentInputWatermarkS (sources:
	// − the output watermark) at the end of the run.
	WatermarkLagS *float64 `json:"watermark_lag_s"`
	// Window operators: records dropped as late (numLateRecordsDropped),
	// results emitted (firings, of which late firings within the allowed
	// lateness), the delay of a window's first firing after its end
	// (processing time of the firing − window end, ms), the records of a
	// window at its first firing, and the window state held at the end
	// (bytes, summed over the subtasks) and the most one subtask held at
	// once. The counters are over the whole run, the warmup included.
	NumLateRecordsDropped *uint64 `json:"num_late_records_dropped,omitempty"`
	// LateRecordsSideOutput is the late records a window with a
	// late_output sent there instead of dropping them (Flink counts them
	// in numRecordsOut only); absent without a late output.
	LateRecordsSideOutput *uint64 `json:"late_records_side_output,omitempty"`
	JoinedPairs           *uint64 `json:"joined_pairs,omitempty"` // joins: the pairs emitted
	Firings               *uint64 `json:"firings,omitempty"`
	LateFirings           *uint64 `json:"late_firings,omitempty"`
	// FiringDelay* are a window's first firing less its end (when the
	// firing starts, not when a process function's results leave);
	// RecordsPerWindowMean the records in a window at that firing.
	FiringDelayMeanMs    *float64 `json:"firing_delay_mean_ms,omitempty"`
	FiringDelayP50Ms     *float64 `json:"firing_delay_p50_ms,omitempty"`
	FiringDelayP90Ms     *float64 `json:"firing_delay_p90_ms,omitempty"`
	FiringDelayP99Ms     *float64 `json:"firing_delay_p99_ms,omitempty"`
	RecordsPerWindowMean *float64 `json:"records_per_window_mean,omitempty"`
	WindowStateBytes     *int64   `json:"window_state_bytes,omitempty"`
	MaxWindowStateBytes  *int64   `json:"max_window_state_bytes,omitempty"`
	// Sinks: event-time lag of the records written (processing time −
	// event time), after the warmup, ms.
	EventTimeLagP50Ms *float64 `json:"event_time_lag_p50_ms,omitempty"`
	EventTimeLagP99Ms *float64 `json:"event_time_lag_p99_ms,omitempty"`
	// EventTimeLagCDF is the distribution of that lag: its quantiles at
	// the probabilities EventTimeLagProbabilities (0 is the least, 1 the
	// largest, exact; the others within 1%), for dspalab plot
	// --event-time-lag.
	EventTimeLagCDF []LagQuantile `json:"event_time_lag_cdf,omitempty"`
}

// LagQuantile is one point of a lag distribution: the fraction P of the
// records whose lag was at most Ms milliseconds.
type LagQuantile struct {
	P  float64 `json:"p"`
	Ms float64 `json:"ms"`
}

// EventTimeLagProbabilities are the probabilities at which summary.json
// gives the sinks' event-time lag distribution (EventTimeLagCDF).
var EventTimeLagProbabilities = []float64{0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5,
	0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 0.999, 1}

// eventTimeOn reports whether the job has event time: a source with
// watermarks or a window operator.
func (s *Sim) eventTimeOn() bool {
	for _, v := range s.plan.Vertices {
		if v.Window != nil || v.Join != nil || v.Timer != nil || v.Source != nil && v.Source.Watermarks != nil {
			return true
		}
	}
	return false
}

// eventTimeSummary returns the event-time summary at now, or nil for a
// job without event time.
func (s *Sim) eventTimeSummary(now des.Time) *EventTimeSummary {
	if !s.eventTimeOn() {
		return nil
	}
	es := &EventTimeSummary{Vertices: []VertexEventTime{}}
	for _, v := range s.vertices {
		ve := VertexEventTime{Name: v.name}
		in, out, seen := s.watermarksOf(v)
		if seen && in != minWatermark {
			ve.CurrentInputWatermarkS = ptr(in.Seconds())
			ve.WatermarkLagS = ptr(round6((now - in).Seconds()))
		}
		if seen && out != minWatermark && v.kind != KindSink {
			ve.CurrentOutputWatermarkS = ptr(out.Seconds())
		}
		if w := v.win; w != nil {
			ve.NumLateRecordsDropped, ve.Firings, ve.LateFirings = ptr(w.lateDropped), ptr(w.firings), ptr(w.lateFirings)
			if v.pv.Window != nil && v.pv.Window.LateOutput != "" {
				ve.LateRecordsSideOutput = ptr(w.lateSide)
			}
			if v.pv.Join != nil {
				ve.JoinedPairs = ptr(w.pairs)
			}
			if h := w.fireDelay; h.Count() > 0 {
				ve.FiringDelayMeanMs = ptr(round6(h.Mean() / 1e6))
				ve.FiringDelayP50Ms = ptr(h.Quantile(0.50).Milliseconds())
				ve.FiringDelayP90Ms = ptr(h.Quantile(0.90).Milliseconds())
				ve.FiringDelayP99Ms = ptr(h.Quantile(0.99).Milliseconds())
			}
			if h := w.perWindow; h.Count() > 0 {
				ve.RecordsPerWindowMean = ptr(round6(h.Mean()))
			}
			var held int64
			for _, t := range v.subtasks {
				if wo := t.windowOp(); wo != nil {
					held += wo.stateBytes()
				}
			}
			ve.WindowStateBytes, ve.MaxWindowStateBytes = ptr(held), ptr(w.maxState)
		}
		if h := v.etLag; h != nil && h.Count() > 0 {
			ve.EventTimeLagP50Ms = ptr(h.Quantile(0.50).Milliseconds())
			ve.EventTimeLagP99Ms = ptr(h.Quantile(0.99).Milliseconds())
			for _, p := range EventTimeLagProbabilities {
				ve.EventTimeLagCDF = append(ve.EventTimeLagCDF, LagQuantile{P: p, Ms: h.Quantile(p).Milliseconds()})
			}
		}
		es.Vertices = append(es.Vertices, ve)
	}
	es.Diagnosis = s.eventTimeDiagnosis(now)
	return es
}

// eventTimeDiagnosis explains what held event time back, in sentences:
//   - a source subtask with watermarks that has read no record for ten
//     watermark intervals (and one second) or more and is not marked idle
//     holds back the watermark of every vertex downstream whose input
//     watermark is its output watermark;
//   - a window operator that dropped more than 0.5% of its records as late:
//     the bound that would have kept 99% of them (the p99 of how far a
//     record's event time was behind the largest one its source had seen,
//     over the sources with watermarks);
//   - a window or join whose input watermark trailed the least source
//     watermark by over a second on average over the samples (after the
//     warmup) while a vertex upstream was back-pressured: the watermarks
//     queued behind the data.
func (s *Sim) eventTimeDiagnosis(now des.Time) []string {
	out := []string{}
	for _, src := range s.sources {
		g := src.wmGen
		if g == nil || g.outIdle || g.epoch != s.epoch {
			continue
		}
		quiet := now - g.lastEvent
		if quiet < max(10*g.interval, des.Second) || g.maxOut == minWatermark {
			continue
		}
		for _, v := range s.vertices {
			if v.pv.Window == nil && v.pv.Join == nil || !s.downstreamOf(v, src.t.v) {
				continue
			}
			held := false
			for _, t := range v.subtasks {
				held = held || t.wm != nil && t.wm.epoch == s.epoch && t.wm.in == g.maxOut
			}
			if !held {
				continue
			}
			if s.movingInput(v, g) {
				out = append(out, fmt.Sprintf("the watermark of %s is held back by source %s, subtask %d, idle for %s (no record since %s); set watermarks.idleness so that an idle subtask stops holding it back",
					v.name, src.t.v.name, src.t.index, FormatTime(quiet), FormatTime(g.lastEvent)))
			} else {
				out = append(out, fmt.Sprintf("the watermark of %s has not advanced for %s: source %s, subtask %d, read no record since %s, and no other input moves event time on (it advances with the data)",
					v.name, FormatTime(quiet), src.t.v.name, src.t.index, FormatTime(g.lastEvent)))
			}
		}
	}
	var results uint64
	windows := false
	for _, v := range s.vertices {
		if v.win != nil {
			results += v.win.emitted
		}
		windows = windows || v.pv.Window != nil && v.pv.Window.Kind != scenario.WindowGlobal
	}
	if results > 0 {
		out = append(out, fmt.Sprintf("windows and joins emitted %s; the records and delivery lines count these results at the sinks, while the records the sources emitted end in windows",
			plural.Count(int64(results), "result")))
	}
	if windows {
		var before uint64
		var names []string
		for _, src := range s.sources {
			if src.beforeZero > 0 {
				before += src.beforeZero
				if !slices.Contains(names, src.t.v.name) {
					names = append(names, src.t.v.name)
				}
			}
		}
		if before > 0 {
			out = append(out, fmt.Sprintf("%s from %s had an event time before 0 (its event_delay longer than its arrival time): these fall in windows that start before 0, which fire too",
				plural.Count(int64(before), "record"), andList(names)))
		}
	}
	var behind *metrics.Histogram
	bound := des.Time(-1)
	monotonous := true // every source's watermarks: nothing to raise
	for _, src := range s.sources {
		if g := src.wmGen; g != nil {
			if behind == nil {
				behind = metrics.NewHistogram()
			}
			behind.Merge(g.behind)
			bound = max(bound, g.bound)
			monotonous = monotonous && g.monotonous
		}
	}
	for _, v := range s.vertices {
		w := v.win
		if w == nil {
			continue
		}
		in := w.records
		if wc := v.pv.Window; wc != nil && wc.Kind != scenario.WindowGlobal && wc.Time != scenario.TimeProcessing && in > 0 && w.firings == 0 {
			// the records are in windows, not lost: nothing says so
			// in the records and delivery lines, which count results
			wm := "it has no watermark yet"
			if at, _, seen := s.watermarksOf(v); seen && at != minWatermark {
				wm = "its input watermark is at " + FormatTime(at)
			}
			out = append(out, fmt.Sprintf("no window of %s fired by the end: a window fires once the watermark passes its end, and %s; the %s it took in wait in its windows",
				v.name, wm, plural.Count(int64(in), "record")))
		}
		if in > 0 && float64(w.lateDropped) > 0.005*float64(in) && behind != nil && behind.Count() > 0 && monotonous {
			out = append(out, fmt.Sprintf("%.1f%% of the records into %s were late (numLateRecordsDropped %d of %d): monotonous watermarks allow no disorder; use strategy: bounded_out_of_orderness with bounded_out_of_orderness past the p99 out-of-orderness (%s), or allow lateness (window.allowed_lateness)",
				100*float64(w.lateDropped)/float64(in), v.name, w.lateDropped, in, FormatTime(behind.Quantile(0.99))))
		} else if in > 0 && float64(w.lateDropped) > 0.005*float64(in) && behind != nil && behind.Count() > 0 {
			// the p99 out-of-orderness bounds what is needed: a record
			// behind the watermark is late only when its window has
			// fired, so less may do, and every window fires as much later
			out = append(out, fmt.Sprintf("%.1f%% of the records into %s were late (numLateRecordsDropped %d of %d): raise bounded_out_of_orderness (now %s; at the p99 out-of-orderness, %s, at most 1%% of the records fall behind the watermark, and less may do, since a record behind it is late only once its window has fired; every window fires that much later) or allow lateness (window.allowed_lateness)",
				100*float64(w.lateDropped)/float64(in), v.name, w.lateDropped, in, FormatTime(bound), FormatTime(behind.Quantile(0.99))))
		}
		if v.wmBehindN > 0 && v.bpUpstream {
			if d := des.Time(v.wmBehind / float64(v.wmBehindN)); d > des.Second {
				out = append(out, fmt.Sprintf("back-pressure delayed the watermarks of %s by %s on average: its input watermark trailed its sources' by that much, the watermarks queued behind the data in the buffers",
					v.name, FormatTime(d)))
			}
		}
	}
	return out
}

// watermarksOf returns v's current input and output watermarks, the least
// over its subtasks (a source's input is its output); seen is false while
// a subtask has none of this epoch.
func (s *Sim) watermarksOf(v *vertex) (in, out des.Time, seen bool) {
	for i, t := range v.subtasks {
		if t.wm == nil || t.wm.epoch != s.epoch {
			return 0, 0, false
		}
		ti, to := t.wm.in, t.wm.out
		if v.kind == KindSource {
			ti = to
		}
		if i == 0 || ti < in {
			in = ti
		}
		if i == 0 || to < out {
			out = to
		}
		seen = true
	}
	return in, out, seen
}

// downstreamOf reports whether v is downstream of u.
func (s *Sim) downstreamOf(v, u *vertex) bool {
	for _, e := range v.inputs {
		if e.from == u || s.downstreamOf(e.from, u) {
			return true
		}
	}
	return false
}

func ptr[T any](x T) *T { return &x }

// observeEventTimeLag records the event-time lag of a record a sink of v
// writes at now (after the warmup).
func (v *vertex) observeEventTimeLag(now des.Time, r *Record) {
	if v.etLag == nil {
		return
	}
	lag := max(now-r.EventTime, 0)
	v.ivEtLag.Add(lag)
	if now > v.s.warmup {
		v.etLag.Add(lag)
	}
}

// newEventTimeLag gives the sinks of a job with event time their lag
// histograms, and its samples their event-time columns.
func (s *Sim) newEventTimeLag() {
	if !s.eventTimeOn() {
		return
	}
	s.sample.EventTime = true
	for _, v := range s.vertices {
		if v.kind == KindSink {
			v.etLag, v.ivEtLag = metrics.NewHistogram(), metrics.NewHistogram()
		}
	}
}

// RowEventTime is the event-time part of a row of timeseries.csv (see
// EventTimeColumns): watermarks in event-time nanoseconds, minWatermark
// (math.MinInt64) before the first; a vertex row has its subtasks' least.
type RowEventTime struct {
	InputWatermark, OutputWatermark des.Time
	// WatermarkLag is the row's time − InputWatermark (0 before any).
	WatermarkLag des.Time
	// LateDropped is numLateRecordsDropped so far (window operators).
	LateDropped uint64
	// LagP50 and LagP99 are the event-time lag of the records sinks wrote
	// in the interval, in milliseconds (vertex rows of sinks; NaN when
	// none).
	LagP50, LagP99 float64
}

// appendCSV appends the EventTimeColumns of e to rec.
func (e *RowEventTime) appendCSV(rec []string, kind string) []string {
	wm := func(x des.Time) string {
		if x == minWatermark {
			return ""
		}
		return num(x.Seconds())
	}
	in, lag := wm(e.InputWatermark), ""
	if in != "" {
		lag = num(e.WatermarkLag.Seconds())
	}
	late, p50, p99 := "", "", ""
	if kind == KindOperator {
		late = strconv.FormatUint(e.LateDropped, 10)
	}
	if kind == KindSink {
		p50, p99 = num(e.LagP50), num(e.LagP99)
	}
	return append(rec, in, wm(e.OutputWatermark), lag, late, p50, p99)
}

// sampleEventTime fills in the event-time part of the rows of smp (in
// the order takeSample made them: each vertex's subtasks, then the
// vertex) and starts the sinks' next interval.
func (s *Sim) sampleEventTime(smp *Sample, now des.Time) {
	i := 0
	nan := math.NaN()
	for _, v := range s.vertices {
		vr := RowEventTime{InputWatermark: des.Time(math.MaxInt64), OutputWatermark: des.Time(math.MaxInt64), LagP50: nan, LagP99: nan}
		for _, t := range v.subtasks {
			r := RowEventTime{InputWatermark: minWatermark, OutputWatermark: minWatermark, LagP50: nan, LagP99: nan}
			if t.wm != nil && t.wm.epoch == s.epoch {
				r.InputWatermark, r.OutputWatermark = t.wm.in, t.wm.out
				if v.kind == KindSource {
					r.InputWatermark = t.wm.out
				}
			}
			if v.kind == KindSink {
				r.OutputWatermark = minWatermark
			}
			if r.InputWatermark != minWatermark {
				r.WatermarkLag = now - r.InputWatermark
			}
			vr.InputWatermark = min(vr.InputWatermark, r.InputWatermark)
			vr.OutputWatermark = min(vr.OutputWatermark, r.OutputWatermark)
			smp.Rows[i].EventTime = r
			i++
		}
		if vr.InputWatermark != minWatermark {
			vr.WatermarkLag = now - vr.InputWatermark
		}
		if v.win != nil {
			vr.LateDropped = v.win.lateDropped
			if srcWM := s.leastSourceWatermark(); now > s.warmup && srcWM != minWatermark && vr.InputWatermark != minWatermark {
				v.wmBehind += float64(max(srcWM-vr.InputWatermark, 0))
				v.wmBehindN++
			}
			for _, e := range v.inputs {
				v.bpUpstream = v.bpUpstream || s.backpressuredUpstream(e.from, smp)
			}
		}
		if h := v.ivEtLag; h != nil {
			if h.Count() > 0 {
				vr.LagP50, vr.LagP99 = h.Quantile(0.50).Milliseconds(), h.Quantile(0.99).Milliseconds()
			}
			h.Reset()
		}
		smp.Rows[i].EventTime = vr
		i++
	}
}

// leastSourceWatermark returns the least output watermark of the source
// subtasks with watermarks that are not idle (minWatermark without any).
func (s *Sim) leastSourceWatermark() des.Time {
	lo := des.Time(math.MaxInt64)
	for _, src := range s.sources {
		if g := src.wmGen; g != nil && !g.outIdle && g.epoch == s.epoch {
			lo = min(lo, g.maxOut)
		}
	}
	if lo == math.MaxInt64 {
		return minWatermark
	}
	return lo
}

// backpressuredUpstream reports whether u or a vertex upstream of it is
// back-pressured beyond OK in sample smp (its vertex row).
func (s *Sim) backpressuredUpstream(u *vertex, smp *Sample) bool {
	for _, r := range smp.Rows {
		if r.Vertex == u.name && r.Subtask < 0 && Status(r.Backpressured/1000) != StatusOK {
			return true
		}
	}
	for _, e := range u.inputs {
		if s.backpressuredUpstream(e.from, smp) {
			return true
		}
	}
	return false
}

// movingInput reports whether vertex v has an input upstream other than
// generator g whose watermark is past g's: with idleness, g's subtask
// would stop holding v back.
func (s *Sim) movingInput(v *vertex, g *watermarkGenerator) bool {
	for _, src := range s.sources {
		if o := src.wmGen; o != nil && o != g && o.maxOut > g.maxOut && s.downstreamOf(v, src.t.v) {
			return true
		}
	}
	return false
}
