package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dspalab/dspalab/datasets"
	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

// traces are the trace sources of a run: what each replays (resolved
// before the run) and the readers the simulator opened, for their
// statistics after the run and to close them.
type traces struct {
	sc      *scenario.Scenario
	replays map[string]*datasets.Replay
	mu      sync.Mutex // runs in parallel may share the opener
	readers map[string][]*datasets.Reader
}

// scenarioDir is the directory a scenario's file traces are relative to:
// the scenario file's, or "" (the current directory) for a built-in.
func scenarioDir(label string) string {
	if fi, err := os.Stat(label); err == nil && fi.Mode().IsRegular() {
		return filepath.Dir(label)
	}
	return ""
}

// resolveTraces finds what the trace sources of sc replay (see
// datasets.Resolve): data sets from the cache or the embedded offline
// sample, files relative to the scenario file. It returns nil when sc has
// no trace source; problems come as a scenario.ErrorList located in the
// scenario file.
func resolveTraces(label string, sc *scenario.Scenario) (*traces, error) {
	return resolve(label, sc, false)
}

// checkTraces checks the names of sc's traces (data sets, parts, columns,
// codes) against the registry, not the data: for validate.
func checkTraces(label string, sc *scenario.Scenario) error {
	_, err := resolve(label, sc, true)
	return err
}

func resolve(label string, sc *scenario.Scenario, noData bool) (*traces, error) {
	if !hasTraceSource(sc) {
		return nil, nil
	}
	env, err := TraceEnv{}.env(label)
	if err != nil {
		return nil, err
	}
	env.NoData = noData
	return resolveIn(sc, env)
}

// resolveIn resolves the trace sources of sc in env (see datasets.Resolve).
func resolveIn(sc *scenario.Scenario, env datasets.Env) (*traces, error) {
	replays, err := datasets.Resolve(sc, env)
	if err != nil {
		return nil, err
	}
	return &traces{sc: sc, replays: replays, readers: map[string][]*datasets.Reader{}}, nil
}

// opener is the sim.TraceOpener of the run: a fresh reader of the
// source's trace, subtask's share.
func (t *traces) opener() sim.TraceOpener {
	if t == nil {
		return nil
	}
	return func(source string, subtask, parallelism int) (sim.Trace, error) {
		rp, ok := t.replays[source]
		if !ok {
			return nil, fmt.Errorf("source %s has no trace to replay", source)
		}
		r := datasets.NewReader(&rp.Spec, subtask, parallelism)
		t.mu.Lock()
		t.readers[source] = append(t.readers[source], r)
		t.mu.Unlock()
		return r, nil
	}
}

// rates returns the mean records per simulated second of each trace
// source whose rows and span are known (the registry's), for the limits
// estimate.
func (t *traces) rates() map[string]float64 {
	if t == nil {
		return nil
	}
	r := map[string]float64{}
	for name, rp := range t.replays {
		r[name] = rp.Rate()
	}
	return r
}

// describe writes, for each trace source, what it replays and from where
// (the cache, the embedded offline sample or a file), and which ones the
// up-front limits count no record of, because their rate is unknown.
func (t *traces) describe(w io.Writer, label string) error {
	if t == nil {
		return nil
	}
	var b strings.Builder
	for _, s := range t.sc.Sources {
		rp, ok := t.replays[s.Name]
		if !ok {
			continue
		}
		if rp.From != "" {
			fmt.Fprintf(&b, "%s: source %s replays %s from %s\n", label, s.Name, rp.What, rp.From)
		} else {
			fmt.Fprintf(&b, "%s: source %s replays %s\n", label, s.Name, rp.What)
		}
		if rp.Hint != "" {
			fmt.Fprintf(&b, "%s: (%s)\n", label, rp.Hint)
		}
		if rp.Rate() == 0 {
			fmt.Fprintf(&b, "%s: the up-front limits (--max-events, --max-memory) count no record of source %s: the rate of its trace is not known before it is read; --max-queued still bounds the run\n", label, s.Name)
		}
		if end, ok := t.knownEnd(s.Name); ok {
			fmt.Fprintf(&b, "%s: warning: %s\n", label, t.endMessage(s.Name, end, rp.Extent))
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("printing the traces: %w", err)
	}
	return nil
}

// report writes, for each trace source, what its readers read: the rows,
// the records replayed and the rows skipped, by reason; then warnings
// about what reading the whole trace showed: a trace with no rows or no
// records, one that ended early (when its end was not known before the
// run), rows that differ from the registry's.
func (t *traces) report(w io.Writer, label string) error {
	if t == nil {
		return nil
	}
	var b strings.Builder
	var warnings []string
	for _, s := range t.sc.Sources {
		st, ok := t.stats(s.Name)
		if !ok {
			continue
		}
		rp := t.replays[s.Name]
		fmt.Fprintf(&b, "trace of %s: %s read, %s", s.Name, plural.Count(st.Lines, "row"), plural.Count(st.Records, "record"))
		var skipped []string
		add := func(n int64, what string) {
			if n > 0 {
				skipped = append(skipped, fmt.Sprintf("%d %s", n, what))
			}
		}
		add(st.BeforeWindow, "before the trace window")
		add(st.AfterWindow, "after the trace window")
		add(st.Filtered, "filtered out")
		if rp.Spec.Key >= 0 {
			add(st.NoKey, "without a "+rp.Spec.Columns[rp.Spec.Key])
		}
		if st.Malformed > 0 {
			skipped = append(skipped, fmt.Sprintf("%d malformed (the first: %s)", st.Malformed, st.FirstMalformed))
		}
		if len(skipped) > 0 {
			b.WriteString("; skipped: " + strings.Join(skipped, ", "))
		}
		if st.OutOfOrder > 0 {
			fmt.Fprintf(&b, "; %s out of timestamp order", plural.Count(st.OutOfOrder, "row"))
		}
		b.WriteString("\n")
		if !st.EOF {
			continue // stopped early: the counts are not the whole trace's
		}
		switch {
		case st.Lines == 0:
			warnings = append(warnings, fmt.Sprintf("the trace of source %s has no rows: %s is empty", s.Name, rp.What))
		case st.Records == 0:
			warnings = append(warnings, fmt.Sprintf("the trace of source %s has no records: all %s were skipped", s.Name, plural.Count(st.Lines, "row")))
		}
		if rp.Lines > 0 && st.Lines != rp.Lines {
			warnings = append(warnings, fmt.Sprintf("the trace of source %s has %s, but the %s registry declares %d for %s (the limits estimate used the declared rows): correct the registry",
				s.Name, plural.Count(st.Lines, "row"), rp.Registry, rp.Lines, rp.What))
		}
		if _, known := t.knownEnd(s.Name); !known && st.Records > 0 && t.endsEarly(st.End) {
			warnings = append(warnings, t.endMessage(s.Name, st.End, ""))
		}
	}
	for _, m := range warnings {
		fmt.Fprintf(&b, "%s: warning: %s\n", label, m)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("printing the trace statistics: %w", err)
	}
	return nil
}

// close closes every reader.
func (t *traces) close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, rs := range t.readers {
		for _, r := range rs {
			r.Close()
		}
	}
}

// TraceStoppedError is returned by Run when a trace could not be read (a
// malformed line in strict mode, a truncated file): the run stopped there,
// and its outputs (written and printed) are partial.
//
// A source reads one record ahead, so the simulator meets a bad line when
// the source has written the record before it, and stops there: the
// message names the file and line.
type TraceStoppedError struct {
	Err *sim.TraceError
}

func (e *TraceStoppedError) Error() string {
	var me *datasets.MalformedError
	if errors.As(e.Err.Err, &me) {
		return fmt.Sprintf("run stopped at %s simulated: line %d of %s, in the trace of source %s, is malformed: %s (malformed: strict; skip would skip and count it); "+
			"the source reads one record ahead, so the run stopped when it wrote the record before that line; the outputs are partial",
			sim.FormatTime(e.Err.At), me.Line, me.File, e.Err.Source, me.Msg)
	}
	return fmt.Sprintf("run stopped at %s simulated: reading the trace of source %s (subtask %d): %v; the outputs are partial",
		sim.FormatTime(e.Err.At), e.Err.Source, e.Err.Subtask, e.Err.Err)
}

func (e *TraceStoppedError) Unwrap() error { return e.Err }
