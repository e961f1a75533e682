package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dspalab/dspalab/internal/plural"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// CompareOptions configure Compare.
type CompareOptions struct {
	// Scenarios are two (or more) files or built-in names, run in turn:
	// typically one workload on engine flink and on a micro-batch engine.
	Scenarios []string
	// Seed and Duration, if non-nil, replace each scenario's own.
	Seed     *uint64
	Duration *des.Time
	// JSON prints the figures as a JSON list instead of the table.
	JSON   bool
	Limits Limits
	Stdout io.Writer
	// Report, if non-nil, is called with the figures once they are
	// printed (dspalab compare --report writes the HTML page with it).
	Report func(all []Figures) error
}

// Figures are what Compare sets side by side, in the same terms for
// every engine: the sinks' record latency (from entry into the job),
// throughput, and what failures cost.
type Figures struct {
	Scenario string `json:"scenario"`
	// Engine is the scenario's engine, or "consumer groups" for a run
	// without a Flink job (producers and consumer groups only).
	Engine string `json:"engine"`
	// Model says how the engine runs the job: "pipelined", or the batch
	// interval or trigger.
	Model string `json:"model"`
	// InputRate and OutputRate are records per simulated second into the
	// job and out of it over the statistics window.
	InputRate  float64 `json:"input_rate_rps"`
	OutputRate float64 `json:"output_rate_rps"`
	// SourceLag is the records that had arrived and that no source had
	// read at the end (Flink: the sources' lag; Spark: records arrived and
	// not yet in a batch): a job whose input rate falls short of its
	// arrivals ends with a lag that keeps growing.
	SourceLag uint64 `json:"source_lag_records"`
	// InFlight and BatchesQueued are what waits inside the job at the
	// end: Flink's records in flight (in buffers and input queues), Spark's
	// batches waiting or running; a job that falls behind piles up one or
	// the other.
	InFlight      uint64 `json:"records_in_flight,omitempty"`
	BatchesQueued int    `json:"batches_queued,omitempty"`
	// Latency of the records at the sinks over the window, ms (-1 when
	// no record reached a sink).
	LatencyMean float64 `json:"latency_mean_ms"`
	LatencyP50  float64 `json:"latency_p50_ms"`
	LatencyP99  float64 `json:"latency_p99_ms"`
	LatencyMax  float64 `json:"latency_max_ms"`
	Delivered   uint64  `json:"records_delivered"`
	Duplicated  uint64  `json:"records_duplicated"`
	Lost        uint64  `json:"records_lost"`
	// Failures counts the job's failures, or the consumer members'
	// failures of a run of consumer groups (engine "consumer groups").
	Failures int `json:"failures"`
	// JobState is the job's state at the end, empty for consumer groups.
	JobState string `json:"job_state"`
	// DowntimeS is the time the job did not run after failures (Flink's
	// downtime; the driver's downtime on Spark), simulated seconds; -1
	// for consumer groups (a failed member stalls its partitions only:
	// the diagnosis says for how long).
	DowntimeS float64 `json:"downtime_s"`
	Diagnosis string  `json:"diagnosis"`
}

// Compare runs each of opts.Scenarios on its own engine and prints their
// Figures side by side (or as JSON). It returns the first error of
// loading or running one; nothing is printed then.
func Compare(ctx context.Context, opts CompareOptions) error {
	if len(opts.Scenarios) < 2 {
		return &OptionError{errors.New("compare needs two scenarios (or more), such as same-workload-flink same-workload-spark")}
	}
	var all []Figures
	for _, arg := range opts.Scenarios {
		sc, label, err := Load(arg)
		if err != nil {
			return err
		}
		if _, err := applyOverrides(label, sc, Options{Seed: opts.Seed, Duration: opts.Duration}); err != nil {
			return err
		}
		f, err := figures(ctx, sc, label, opts.Limits)
		if err != nil {
			return err
		}
		all = append(all, f)
	}
	w := orDiscard(opts.Stdout)
	var err error
	if opts.JSON {
		var b []byte
		if b, err = json.MarshalIndent(all, "", "  "); err == nil {
			_, err = w.Write(append(b, '\n'))
		}
	} else {
		err = writeComparison(w, all)
	}
	if err == nil && opts.Report != nil {
		err = opts.Report(all)
	}
	return err
}

// figures runs sc to its end on its engine, prepared as run prepares it
// (Prepare: its traces resolved, the limits checked).
func figures(ctx context.Context, sc *scenario.Scenario, label string, limits Limits) (Figures, error) {
	f := Figures{Scenario: label, Engine: sc.Engine, LatencyMean: -1, LatencyP50: -1, LatencyP99: -1, LatencyMax: -1, JobState: "running"}
	prep, err := Prepare(sc, Setup{Label: label, Limits: limits})
	if err != nil {
		return f, err
	}
	defer prep.Close()
	if err := prep.CheckLimits(limits); err != nil {
		return f, err
	}
	if sc.IsMicroBatch() {
		s, err := microbatch.New(sc, prep.MicroBatchOptions())
		if err != nil {
			return f, err
		}
		if err := s.RunUntil(ctx, sc.Duration); err != nil {
			return f, fmt.Errorf("simulating %s: %w", label, err)
		}
		sum := s.Result().Summary
		f.Model = "batch interval " + sim.FormatTime(des.FromSeconds(sum.BatchIntervalS))
		if sum.Engine == scenario.EngineStructuredStreaming {
			f.Model = "trigger " + sum.Trigger
			if sum.BatchIntervalS > 0 {
				f.Model += " every " + sim.FormatTime(des.FromSeconds(sum.BatchIntervalS))
			}
		}
		f.InputRate = sum.Streaming.InputRate
		if span := sum.Window.ToS - sum.Window.FromS; span > 0 {
			var out int64
			// what reached the sinks inside the window: a batch delivers
			// when its processing ends, a total delay after its batch
			// time (a job that falls behind delivers seconds later)
			for _, b := range s.Result().Batches {
				if end := b.EndS(); end > sum.Window.FromS && end <= sum.Window.ToS { // sim.InWindow
					out += b.Delivered
				}
			}
			f.OutputRate = round1(float64(out) / span)
		}
		if l := sum.Latency; l.Count > 0 {
			f.LatencyMean, f.LatencyP50, f.LatencyP99, f.LatencyMax = *l.MeanMs, *l.P50Ms, *l.P99Ms, *l.MaxMs
		}
		f.Delivered, f.Duplicated, f.Lost = sum.Totals.Delivered, sum.Totals.Duplicated, sum.Totals.Lost
		f.SourceLag, f.BatchesQueued = sum.Totals.SourceLag, sum.Totals.Queued
		if r := sum.Recovery; r != nil {
			f.Failures, f.JobState, f.DowntimeS = r.Failures, r.JobState, r.DowntimeS
		}
		f.Diagnosis = sum.Diagnosis.Message
		return f, nil
	}
	s, err := sim.New(sc, prep.Options(nil, nil))
	if err == nil {
		err = s.RunUntil(ctx, prep.Until())
	}
	if err != nil {
		return f, fmt.Errorf("simulating %s: %w", label, err)
	}
	sum := s.Result().Summary
	if sum.ConsumersOnly() {
		consumerFigures(&f, &sum)
		return f, nil
	}
	f.Model = "pipelined"
	for _, v := range sum.Vertices {
		switch v.Kind {
		case sim.KindSource:
			f.InputRate += v.OutRate
		case sim.KindSink:
			f.OutputRate += v.InRate
			if v.LatencyP50 != nil && f.LatencyP50 < 0 { // the first sink's, as the table's first row
				f.LatencyMean, f.LatencyP50, f.LatencyP99, f.LatencyMax = *v.LatencyMean, *v.LatencyP50, *v.LatencyP99, *v.LatencyMax
			}
		}
	}
	f.InputRate, f.OutputRate = round1(f.InputRate), round1(f.OutputRate)
	f.SourceLag, f.InFlight = sum.Totals.SourceLag, sum.Totals.InFlight
	if d := sum.Delivery; d != nil {
		f.Delivered, f.Duplicated, f.Lost = d.Delivered, d.Duplicated, d.Lost
	}
	if r := sum.Recovery; r != nil {
		f.Failures, f.JobState, f.DowntimeS = r.Failures, r.JobState, r.DowntimeS
	}
	f.Diagnosis = sum.Diagnosis.Message
	return f, nil
}

// consumerGroups is the engine of Figures of a run without a Flink job:
// producers and Kafka-like consumer groups only.
const consumerGroups = "consumer groups"

// consumerFigures fills f with the figures of a run without a Flink job,
// its consumer groups summed: what they processed (the records into
// them and out of them, as a job's are; a duplicate is processed again;
// delivered counts distinct records, as a job's delivery does),
// their lag, and what a member's failure cost in duplicates and in
// records skipped by auto.offset.reset (lost). Consumers measure no
// latency, hold nothing in flight for the table and have no job state
// or downtime of a job: those cells are "-".
func consumerFigures(f *Figures, sum *sim.Summary) {
	f.Engine = consumerGroups
	var names []string
	for _, g := range sum.ConsumerGroups {
		names = append(names, g.Name+" ("+plural.Count(len(g.Members), "member")+", topic "+g.Topic+")")
		f.InputRate += g.ProcessedRate
		f.SourceLag += g.Lag
		f.Delivered += g.Processed - g.Duplicates // distinct, as a job's delivered
		f.Duplicated += g.Duplicates
		f.Lost += g.SkippedByReset
		for _, m := range g.Members {
			if m.State == "failed" { // removed by a rebalance or not yet
				f.Failures++
			}
		}
	}
	f.Model = strings.Join(names, ", ")
	f.InputRate = round1(f.InputRate)
	f.OutputRate = f.InputRate
	f.JobState, f.DowntimeS = "", -1
	f.Diagnosis = sum.Diagnosis.Message
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// ComparisonRows returns the comparison as the table prints it: a row
// per figure, its name first, then a cell per run (the first row names
// the runs, after an empty name).
func ComparisonRows(all []Figures) [][]string {
	ms := func(x float64) string {
		if x < 0 {
			return "-"
		}
		return sim.FormatTime(des.FromSeconds(x / 1000))
	}
	rows := []struct {
		name string
		cell func(f Figures) string
	}{
		{"", func(f Figures) string { return f.Scenario }},
		{"engine", func(f Figures) string { return f.Engine }},
		{"model", func(f Figures) string { return f.Model }},
		{"input records/s", func(f Figures) string { return strconv.FormatFloat(f.InputRate, 'f', 1, 64) }},
		{"output records/s", func(f Figures) string { return strconv.FormatFloat(f.OutputRate, 'f', 1, 64) }},
		{"source lag", func(f Figures) string { return plural.Count(int64(f.SourceLag), "record") }},
		{"queued at the end", func(f Figures) string {
			if f.Engine == consumerGroups {
				return "-"
			}
			if scenario.MicroBatchEngine(f.Engine) {
				return plural.Count(int64(f.BatchesQueued), "batch")
			}
			return plural.Count(int64(f.InFlight), "record") + " in flight"
		}},
		{"latency mean", func(f Figures) string { return ms(f.LatencyMean) }},
		{"latency p50", func(f Figures) string { return ms(f.LatencyP50) }},
		{"latency p99", func(f Figures) string { return ms(f.LatencyP99) }},
		{"latency max", func(f Figures) string { return ms(f.LatencyMax) }},
		{"delivered", func(f Figures) string { return strconv.FormatUint(f.Delivered, 10) }},
		{"duplicated", func(f Figures) string { return strconv.FormatUint(f.Duplicated, 10) }},
		{"lost", func(f Figures) string { return strconv.FormatUint(f.Lost, 10) }},
		{"failures", func(f Figures) string { return strconv.Itoa(f.Failures) }},
		{"downtime", func(f Figures) string { return ms(f.DowntimeS * 1000) }},
		{"job", func(f Figures) string { return cmp.Or(f.JobState, "-") }},
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = []string{r.name}
		for _, f := range all {
			out[i] = append(out[i], r.cell(f))
		}
	}
	return out
}

// writeComparison writes the figures as a table, one column per run.
func writeComparison(w io.Writer, all []Figures) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 8, 3, ' ', 0)
	for _, cells := range ComparisonRows(all) {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range all {
		fmt.Fprintf(ew, "\n%s: %s", f.Scenario, f.Diagnosis)
	}
	fmt.Fprintln(ew)
	return ew.err
}
