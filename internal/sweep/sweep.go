// Package sweep runs parameter sweeps: a scenario run over the cartesian
// product of values of some of its settings and of several seeds, in
// parallel, one row of summary metrics per run in sweep.csv (`dspalab
// sweep`). A sweep can be split into deterministic shards that run on
// different machines and are joined again by Merge (`dspalab sweep
// merge`): the merged files are byte for byte those of the whole sweep run
// on one machine.
//
// Any value of a scenario can be swept by its path (see Document.Set); the
// scenario is edited as YAML and parsed again by scenario.Parse, so units,
// defaults and validation apply to every point as to a file.
package sweep

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/microbatch"
	jobplan "github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Options configure Run.
type Options struct {
	// Scenario is a file or the name of a built-in scenario, as
	// runner.Resolve finds it.
	Scenario string
	// Params are the swept settings; none runs the scenario as it is.
	Params []Param
	// Seeds is the number of seeds per combination of values (default
	// 1): the scenario's seed, the next one, and so on.
	Seeds int
	// Shard selects the runs of one shard; the zero Shard runs all.
	Shard Shard
	// Workers is the number of runs simulated at once; 0 means
	// runtime.GOMAXPROCS(0), all cores.
	Workers int
	// OutDir receives sweep.csv and sweep.json (created if missing).
	OutDir string
	// Limits apply to every run, as to `dspalab run`.
	Limits runner.Limits
	// MaxEvents bounds the estimated events of all the shard's runs
	// together (runner.Measure of each); 0 means
	// runner.DefaultMaxSweepEvents.
	MaxEvents float64
	// OpenTrace opens the traces of trace sources (see sim.Options).
	OpenTrace sim.TraceOpener
	// Version is the dspalab version, recorded in sweep.json: Merge
	// refuses shards of different versions.
	Version string
	// Stderr receives the progress bar and the closing line; nil
	// discards.
	Stderr io.Writer
	// Progress draws a progress bar on Stderr; set it only when Stderr
	// is a terminal.
	Progress bool
}

// Manifest is sweep.json: what a sweep (or one shard of it) ran.
type Manifest struct {
	// Scenario is the scenario as named on the command line; its YAML
	// has the SHA-256 ScenarioSHA256 (hex), so that Merge joins only
	// shards of the same scenario.
	Scenario       string  `json:"scenario"`
	ScenarioSHA256 string  `json:"scenario_sha256"`
	Parameters     []Param `json:"parameters"`
	Seeds          int     `json:"seeds"`
	FirstSeed      uint64  `json:"first_seed"`
	// Runs counts the runs of the whole sweep; ShardRuns those of this
	// shard (Shard, "I/N"), CompletedRuns those that sweep.csv holds.
	Runs          int    `json:"runs"`
	Shard         string `json:"shard"`
	ShardRuns     int    `json:"shard_runs"`
	CompletedRuns int    `json:"completed_runs"`
	// Partial is true when the sweep was interrupted: sweep.csv lacks
	// some of the shard's runs.
	Partial bool `json:"partial"`
	// PartialRuns are the numbers of the runs that were stopped before
	// their end by a limit (--max-queued): their rows say partial=true.
	// Empty, not null, when there are none.
	PartialRuns []int  `json:"partial_runs"`
	Version     string `json:"dspalab_version"`
	// Data says what each trace source replays (runner.TraceSources):
	// an embedded sample, cached parts or a file; Merge joins only shards
	// that replayed the same data. Absent without trace sources.
	Data []string `json:"data,omitempty"`
}

// InterruptedError is returned by Run when its context was cancelled. The
// runs completed are written (sweep.json says partial). For the command's
// exit status it counts as a *runner.InterruptedError (exit status 130).
type InterruptedError struct {
	Done, Total int
	Err         error
	// CSV is the file the completed runs were written to; Kept, if
	// set, is the complete sweep.csv of an earlier sweep that was left
	// as it was (CSV is then sweep.partial.csv next to it).
	CSV, Kept string
	// Checking is true when the sweep was interrupted while it checked
	// its combinations, before any run: nothing was written.
	Checking bool
}

func (e *InterruptedError) Error() string {
	if e.Checking {
		return fmt.Sprintf("sweep interrupted while it checked its combinations, before any of its %s; nothing was written", plural.Count(e.Total, "run"))
	}
	msg := fmt.Sprintf("sweep interrupted after %d of %s", e.Done, plural.Count(e.Total, "run"))
	switch {
	case e.Kept != "":
		return msg + fmt.Sprintf("; %s holds those, marked partial (%s, of an earlier complete sweep, was kept)", e.CSV, e.Kept)
	case e.CSV != "":
		return msg + fmt.Sprintf("; %s holds those, marked partial", e.CSV)
	}
	return msg + "; the outputs hold those and are marked partial"
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// PartialRunsError is returned by Run and Merge when runs of the sweep
// were stopped before their end by a limit (--max-queued): the outputs are
// written, those runs' rows say partial=true and sweep.json lists them in
// partial_runs. It gives exit status 1.
type PartialRunsError struct {
	// Runs describe the partial runs: "run 1 (path=value, seed 2)".
	Runs  []string
	Total int
}

func (e *PartialRunsError) Error() string {
	list := e.Runs
	more := ""
	if len(list) > maxListed {
		list, more = list[:maxListed], fmt.Sprintf(" and %d more", len(e.Runs)-maxListed)
	}
	if len(e.Runs) == 1 {
		return fmt.Sprintf("1 of %s was stopped early by a limit (--max-queued) and is partial: %s; its row in %s says partial=true and %s lists it in partial_runs",
			plural.Count(e.Total, "run"), list[0], runfiles.SweepFile, runfiles.SweepManifestFile)
	}
	return fmt.Sprintf("%d of %d runs were stopped early by a limit (--max-queued) and are partial: %s%s; their rows in %s say partial=true and %s lists them in partial_runs",
		len(e.Runs), e.Total, strings.Join(list, ", "), more, runfiles.SweepFile, runfiles.SweepManifestFile)
}

// maxListed bounds the runs a message names.
const maxListed = 10

// partialRuns returns the numbers of the rows whose partial column is
// "true", with a description of each ("run 1 (path=value, seed 2)").
func partialRuns(header []string, rows [][]string) ([]int, []string) {
	pc := slices.Index(header, runfiles.SweepPartialColumn)
	sc := slices.Index(header, runfiles.SweepSeedColumn)
	runs, descs := []int{}, []string(nil)
	if pc < 0 || sc < 0 {
		return runs, nil
	}
	for _, row := range rows {
		if pc >= len(row) || row[pc] != "true" {
			continue
		}
		n, _ := strconv.Atoi(row[0])
		runs = append(runs, n)
		var parts []string
		for c := 1; c < sc; c++ {
			parts = append(parts, header[c]+"="+row[c])
		}
		parts = append(parts, "seed "+row[sc])
		descs = append(descs, fmt.Sprintf("run %d (%s)", n, strings.Join(parts, ", ")))
	}
	return runs, descs
}

// As lets errors.As find a *runner.InterruptedError, so that
// runner.ExitCode gives the exit status of an interrupted command.
func (e *InterruptedError) As(target any) bool {
	if t, ok := target.(**runner.InterruptedError); ok {
		*t = &runner.InterruptedError{Err: e.Err}
		return true
	}
	return false
}

// keepParsed is the number of combinations up to which a plan keeps their
// parsed scenarios (some 80MB at most) rather than parse each run's again
// (about a millisecond, as much as a short run); a variable for the tests.
var keepParsed = 4096

// scenario returns a copy of combination c's scenario for a run of its
// own (the seed differs).
func (p *plan) scenario(c int) (*scenario.Scenario, error) {
	if sc := p.parsed[c]; sc != nil {
		cp := *sc
		return &cp, nil
	}
	// newPlan checked this combination: Apply parses the same text again
	return Apply(p.doc, p.label, p.grid.Params, p.grid.Combination(c))
}

// planProgressFrom is the number of combinations from which checking them
// (about a millisecond each) shows a progress bar of its own.
const planProgressFrom = 1000

// newBar is a progress bar of n steps on w, as the sweep's bars look.
func newBar(n int, w io.Writer, desc string) *progressbar.ProgressBar {
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// plan is a checked sweep: every run's scenario is valid and within the
// limits.
type plan struct {
	label string
	grid  *Grid
	// parsed are the combinations' scenarios, by combination, while
	// there are at most keepParsed of them; past that a run applies its
	// combination to doc, the scenario's YAML, again (newPlan checked
	// them all): a parsed scenario takes some 20KB (its fields'
	// positions), gigabytes for a sweep of a million runs
	parsed   map[int]*scenario.Scenario
	doc      *Document
	runs     []int    // the shard's runs, in order
	inputs   []string // the files the runs read (runner.ScenarioInputs), for runner.CheckNotInput
	header   []string
	metrics  []string
	manifest Manifest
	micro    bool // the scenario runs on a micro-batch engine (sim/microbatch)
	// events are the estimated events of the shard's runs in all
	// (runner.Measure of each run's combination)
	events float64
	// warnings are the combinations' scenario.Warnings, one a line, as
	// "LABEL with PATH=VALUE: PATH: warning: ..." (the --set's line is
	// not in the file, as Apply's errors say).
	warnings []string
}

// newPlan checks a sweep before anything runs: the scenario, the parameters,
// every combination of values the shard needs (a value the format
// refuses, a change to the vertices' names) and the limits of every run.
// Errors: the scenario.ErrorList of an invalid scenario file, unwrapped; a
// *runner.OptionError for a bad --set, --seeds or --shard; other errors
// for an unknown scenario or a run over a limit.
func newPlan(ctx context.Context, opts Options, stderr io.Writer) (*plan, error) {
	label, data, err := runner.Resolve(opts.Scenario)
	if err != nil {
		return nil, err
	}
	base, err := scenario.Parse(label, data)
	if err != nil {
		return nil, err
	}
	doc, err := ReadDocument(data)
	if err != nil {
		return nil, err
	}
	seeds := max(opts.Seeds, 1)
	grid, err := NewGrid(opts.Params, seeds, base.Seed)
	if err != nil {
		return nil, &runner.OptionError{Err: err}
	}
	shard := opts.Shard.norm()
	p := &plan{label: label, grid: grid, doc: doc, parsed: map[int]*scenario.Scenario{}}
	names, err := columnNames(base)
	if err != nil {
		return nil, err
	}
	var bar *progressbar.ProgressBar
	if opts.Progress && grid.Combinations() >= planProgressFrom {
		bar = newBar(grid.Combinations(), stderr, fmt.Sprintf("checking the combinations of %s", label))
		defer bar.Clear()
	}
	last, events := -1, 0.0 // the runs of a combination are consecutive (Grid.Run)
	for i := range grid.Runs() {
		if !shard.Has(i) {
			continue
		}
		p.runs = append(p.runs, i)
		c, _ := grid.Run(i)
		if c == last {
			p.events += events
			continue
		}
		if err := ctx.Err(); err != nil && c > 0 && c%planProgressFrom == 0 {
			// a long check stops at Ctrl-C (a short one goes on to
			// write its runs so far, none, marked partial)
			return nil, &InterruptedError{Err: err, Total: grid.Runs(), Checking: true}
		}
		if bar != nil {
			bar.Set(c + 1)
		}
		last = c
		vals := grid.Combination(c)
		sc, err := Apply(doc, label, grid.Params, vals)
		if err != nil {
			return nil, &runner.OptionError{Err: err}
		}
		got, err := columnNames(sc)
		if err != nil {
			return nil, &runner.OptionError{Err: err}
		}
		if !sameSet(got["vertices"], names["vertices"]) {
			return nil, &runner.OptionError{Err: fmt.Errorf("with %s the job's vertices are %s instead of %s; a sweep keeps the vertices (their names are columns of %s)",
				grid.describe(vals), strings.Join(got["vertices"], ", "), strings.Join(names["vertices"], ", "), runfiles.SweepFile)}
		}
		if !sameSet(got["consumer_groups"], names["consumer_groups"]) {
			return nil, &runner.OptionError{Err: fmt.Errorf("with %s the consumer groups are %s instead of %s; a sweep keeps the consumer groups (their names are columns of %s)",
				grid.describe(vals), strings.Join(got["consumer_groups"], ", "), strings.Join(names["consumer_groups"], ", "), runfiles.SweepFile)}
		}
		if sc.IsMicroBatch() != base.IsMicroBatch() || sc.IsMicroBatch() && sc.Engine != base.Engine {
			return nil, &runner.OptionError{Err: fmt.Errorf("with %s the job runs on engine %s instead of %s; a sweep keeps the engine (its summary's fields are the columns of %s)",
				grid.describe(vals), sc.Engine, base.Engine, runfiles.SweepFile)}
		}
		if err := runner.CheckLimits(label+" with "+grid.describe(vals), sc, opts.Limits); err != nil {
			return nil, err
		}
		for _, w := range sc.Warnings() {
			p.warnings = append(p.warnings, fmt.Sprintf("%s with %s: %s: %s", label, grid.describe(vals), w.Path, w.Msg))
		}
		for _, in := range runner.ScenarioInputs(label, sc) {
			if !slices.Contains(p.inputs, in) {
				p.inputs = append(p.inputs, in)
			}
		}
		if grid.Combinations() <= keepParsed {
			p.parsed[c] = sc
		}
		events = runner.Measure(sc).Events
		p.events += events
	}
	if limit := cmp.Or(opts.MaxEvents, runner.DefaultMaxSweepEvents); p.events > limit {
		return nil, fmt.Errorf("sweep of %s: %s, about %s events in all (%s a run on average), exceed the limit of %s for a sweep; fewer values or seeds, a shorter duration, lower rates, --shard I/N over several machines, or raise --max-sweep-events",
			label, plural.Count(len(p.runs), "run"), runner.Sci(p.events, 1), runner.Sci(p.events/float64(len(p.runs)), 1), runner.Sci(limit, -1))
	}
	p.metrics = metricColumns(names)
	if base.IsMicroBatch() {
		p.micro = true
		p.metrics = metricColumnsOf(reflect.TypeFor[microbatch.Summary](), nil)
	}
	p.header = append(p.header, runfiles.SweepRunColumn)
	for _, prm := range grid.Params {
		p.header = append(p.header, prm.Path)
	}
	p.header = append(p.header, runfiles.SweepSeedColumn)
	p.header = append(p.header, p.metrics...)
	sum := sha256.Sum256(data)
	params := grid.Params
	if params == nil {
		params = []Param{}
	}
	traceData, err := runner.TraceSources(label, base)
	if err != nil {
		return nil, err
	}
	p.manifest = Manifest{
		Scenario: label, ScenarioSHA256: hex.EncodeToString(sum[:]),
		Parameters: params, Seeds: seeds, FirstSeed: base.Seed,
		Runs: grid.Runs(), Shard: shard.String(), ShardRuns: len(p.runs),
		Version: opts.Version, Data: traceData,
	}
	return p, nil
}

// columnNames returns the names of the vertices of sc in the order of its
// job graph (plan.Compile) and of its consumer groups, in the order of the
// metric columns.
func columnNames(sc *scenario.Scenario) (listNames, error) {
	p, err := jobplan.Compile(sc)
	if err != nil {
		return nil, err
	}
	return namesOf(p), nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Run runs the sweep of opts (its shard, if one is given) and writes
// OutDir/sweep.csv and OutDir/sweep.json. It checks every run before
// starting any (see newPlan for the errors), then simulates them on
// Options.Workers goroutines, each with its own simulator. A run stopped by
// Limits.MaxQueued gives a row marked partial, as `dspalab run` would; the
// files are written, sweep.json lists such runs in partial_runs, and Run
// returns a *PartialRunsError naming them. When ctx is cancelled the runs
// in progress stop, the completed ones are written (to sweep.partial.csv
// and sweep.partial.json when OutDir holds a complete sweep, which is
// kept), and Run returns an *InterruptedError.
func Run(ctx context.Context, opts Options) error {
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	p, err := newPlan(ctx, opts, stderr)
	if err != nil {
		return err
	}
	for _, w := range p.warnings {
		fmt.Fprintln(stderr, w)
	}
	if err := runner.CheckNotInput(runner.SweepOutputs(opts.OutDir), p.inputs); err != nil {
		return err
	}
	out, err := openOutputs(opts.OutDir)
	if err != nil {
		return err
	}
	defer out.close()
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(p.runs)))

	var bar *progressbar.ProgressBar
	if opts.Progress {
		bar = newBar(len(p.runs), stderr, fmt.Sprintf("sweep %s", p.label))
	}
	start := time.Now()
	rows, err := newRowSpool(p.header)
	if err != nil {
		return err
	}
	defer rows.close()
	done, runErr := p.execute(ctx, opts, workers, rows, func() {
		if bar != nil {
			bar.Add(1)
		}
	})
	if bar != nil {
		bar.Finish()
		bar.Clear()
	}
	if runErr != nil && ctx.Err() == nil {
		return runErr
	}
	m := p.manifest
	m.CompletedRuns = done
	m.Partial = done < len(p.runs)
	var descs []string
	m.PartialRuns, descs = rows.partial, rows.descs
	csvName, manifestName, kept := runfiles.SweepFile, runfiles.SweepManifestFile, ""
	if m.Partial && out.holdsComplete() {
		// never replace a complete sweep with a partial one
		csvName, manifestName, kept = runfiles.SweepPartialFile, runfiles.SweepPartialManifestFile, out.path(runfiles.SweepFile)
	}
	if err := out.commit(csvName, manifestName, rows, &m); err != nil {
		return err
	}
	elapsed := time.Since(start)
	shard := ""
	if m.Shard != "0/1" {
		shard = fmt.Sprintf(" (shard %s of a sweep of %d)", m.Shard, m.Runs)
	}
	count := plural.Count(done, "run")
	if m.Partial {
		count = fmt.Sprintf("%d of %s", done, plural.Count(len(p.runs), "run"))
	}
	fmt.Fprintf(stderr, "wrote %s, %s: %s%s on %s in %s\n",
		out.path(csvName), out.path(manifestName), count, shard, plural.Count(workers, "worker"), elapsed.Round(time.Millisecond))
	if m.Partial {
		return &InterruptedError{Done: done, Total: len(p.runs), Err: ctx.Err(), CSV: out.path(csvName), Kept: kept}
	}
	if len(descs) > 0 {
		return &PartialRunsError{Runs: descs, Total: len(p.runs)}
	}
	return nil
}

// execute simulates the plan's runs on a pool of workers. It puts the CSV
// rows of the completed runs into rows, in run order, handing out no run
// more than 4 per worker ahead of the first one whose row is not yet
// written (so that rows waiting for an earlier one stay few), and returns
// how many completed and the first error of a run that gave no result
// (which cancels the others) or of the spool.
func (p *plan) execute(ctx context.Context, opts Options, workers int, rows *rowSpool, tick func()) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ahead := make(chan struct{}, 4*workers+4) // a token per run handed out and not yet written
	jobs := make(chan int)
	type result struct {
		k   int
		row []string
		err error
	}
	results := make(chan result)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := range jobs {
				row, err := p.simulate(ctx, opts, p.runs[k])
				results <- result{k, row, err}
			}
		})
	}
	go func() {
		defer close(jobs)
		for k := range p.runs {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- k:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	var firstErr error
	done := 0
	for r := range results {
		if r.err != nil && firstErr == nil && ctx.Err() == nil {
			firstErr = r.err
			cancel()
		}
		if r.row != nil {
			done++
			tick()
		}
		before := rows.next
		if err := rows.put(r.k, r.row); err != nil && firstErr == nil {
			firstErr = err
			cancel()
		}
		for range rows.next - before {
			<-ahead
		}
	}
	if err := rows.finish(); err != nil && firstErr == nil {
		firstErr = err
	}
	return done, firstErr
}

// simulate runs run i and returns its CSV row; nil and no error when ctx
// was cancelled before the run finished.
func (p *plan) simulate(ctx context.Context, opts Options, i int) ([]string, error) {
	if ctx.Err() != nil {
		return nil, nil
	}
	c, seed := p.grid.Run(i)
	sc, err := p.scenario(c)
	if err != nil {
		return nil, fmt.Errorf("sweep: run %d: %w", i, err)
	}
	sc.Seed = seed
	// this combination's trace settings (the sweep may vary them)
	prep, err := runner.Prepare(sc, runner.Setup{Label: p.label, Limits: opts.Limits, Traces: runner.TraceEnv{Open: opts.OpenTrace}})
	if err != nil {
		return nil, fmt.Errorf("sweep: run %d: %w", i, err)
	}
	defer prep.Close()
	if p.micro {
		return p.simulateMicroBatch(ctx, prep, i, c, sc)
	}
	res, err := sim.Run(ctx, sc, prep.Options(nil, nil))
	var qe *sim.QueueLimitError
	switch {
	case ctx.Err() != nil:
		return nil, nil
	case res == nil && err == nil:
		return nil, fmt.Errorf("sweep: run %d: the simulator returned no result", i)
	case res == nil:
		return nil, fmt.Errorf("sweep: run %d (%s, seed %d): %w", i, p.grid.describe(p.grid.Combination(c)), seed, err)
	case err != nil && !errors.As(err, &qe) && !res.Summary.Partial:
		return nil, fmt.Errorf("sweep: run %d (%s, seed %d): %w", i, p.grid.describe(p.grid.Combination(c)), seed, err)
	}
	return p.row(i, c, seed, flatten(&res.Summary)), nil
}

// simulateMicroBatch is simulate for a scenario of Spark's engines
// (sim/microbatch), prepared as a Flink run is (its traces opened); a run
// stopped by --max-queued gives a partial row.
func (p *plan) simulateMicroBatch(ctx context.Context, prep *runner.Prepared, i, c int, sc *scenario.Scenario) ([]string, error) {
	s, err := microbatch.New(sc, prep.MicroBatchOptions())
	if err != nil {
		return nil, fmt.Errorf("sweep: run %d (%s, seed %d): %w", i, p.grid.describe(p.grid.Combination(c)), sc.Seed, err)
	}
	err = s.RunUntil(ctx, sc.Duration)
	var qe *microbatch.QueueLimitError
	switch {
	case ctx.Err() != nil:
		return nil, nil
	case err != nil && !errors.As(err, &qe):
		return nil, fmt.Errorf("sweep: run %d (%s, seed %d): %w", i, p.grid.describe(p.grid.Combination(c)), sc.Seed, err)
	}
	res := s.Result()
	return p.row(i, c, sc.Seed, flattenAny(&res.Summary)), nil
}

// row is the CSV row of run i (combination c, seed) with the metric cells.
func (p *plan) row(i, c int, seed uint64, cells map[string]string) []string {
	row := make([]string, 0, len(p.header))
	row = append(row, strconv.Itoa(i))
	row = append(row, p.grid.Combination(c)...)
	row = append(row, strconv.FormatUint(seed, 10))
	for _, m := range p.metrics {
		row = append(row, cells[m])
	}
	return row
}
