package runner

import (
	"github.com/dspalab/dspalab/datasets"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Setup says how Prepare readies one run of a scenario: where its trace
// sources read, what bounds the simulator, which actions it replays. It
// holds plain values, so that a run prepared in another process (a
// grading child) is prepared alike.
type Setup struct {
	// Label is the scenario's label (see Resolve): file traces are
	// relative to its file's directory unless Traces.BaseDir is set.
	Label string
	// Traces says where trace sources read; the zero value reads as
	// `dspalab run` does.
	Traces TraceEnv
	// Limits bound the run: MaxQueued is handed to the simulator
	// (DefaultMaxQueued when 0). The up-front limits are checked apart
	// (Prepared.CheckLimits, CheckLimits).
	Limits Limits
	// Actions are replayed at their simulated times; a final runfiles.ActionStop
	// ends the run there (Prepared.Until). Prepare checks them against
	// the scenario (CheckActions).
	Actions []sim.Action
}

// TraceEnv says where the trace sources of a run read their data.
type TraceEnv struct {
	// Offline replays data sets from the built-in registry's embedded
	// offline samples only, never the user's registry or cache, so that
	// every machine replays alike (grading). Otherwise the user's
	// registry and cache serve them, as for `dspalab run`.
	Offline bool
	// BaseDir is the directory trace files are relative to; "" means the
	// scenario file's (the current directory for a built-in).
	BaseDir string
	// Open, if set, opens every trace instead of the resolved data (a
	// test's stand-in); nothing is resolved then.
	Open sim.TraceOpener
}

// env returns the datasets environment of e for the scenario labelled
// label: the registry and cache to read, the directory of trace files.
func (e TraceEnv) env(label string) (datasets.Env, error) {
	base := e.BaseDir
	if base == "" {
		base = scenarioDir(label)
	}
	if e.Offline {
		return datasets.Env{Registry: datasets.Builtin(), Cache: datasets.Cache{}, BaseDir: base}, nil
	}
	reg, err := datasets.LoadRegistry("")
	if err != nil {
		return datasets.Env{}, err
	}
	cache, err := datasets.DefaultCache()
	if err != nil {
		cache = datasets.Cache{} // no cache: data sets come from their samples
	}
	return datasets.Env{Registry: reg, Cache: cache, BaseDir: base}, nil
}

// Prepared is a run ready to simulate: its traces resolved, its actions
// checked. Options builds its sim.Options; Close closes the trace files
// the simulator opened.
type Prepared struct {
	label     string
	sc        *scenario.Scenario
	traces    *traces    // nil without trace sources
	edges     *edgeFiles // nil without edge files
	open      sim.TraceOpener
	maxQueued int64
	maxMemory int64 // the simulator's running budget (sim.Options.MaxMemory)
	actions   []sim.Action
	until     des.Time
}

// Prepare readies a run of sc (with its overrides applied, parsed under
// s.Label): it resolves the trace sources (datasets.Resolve, in
// s.Traces), and checks s.Actions against sc. It is the one place that
// assembles a run's sim.Options (Prepared.Options), for run, watch,
// sweep and grading alike. Errors: a scenario.ErrorList located in the
// scenario file for traces that cannot be resolved or actions the
// scenario refuses.
func Prepare(sc *scenario.Scenario, s Setup) (*Prepared, error) {
	p := &Prepared{label: s.Label, sc: sc, maxQueued: s.Limits.withDefaults().MaxQueued, open: s.Traces.Open}
	if p.open == nil && hasTraceSource(sc) {
		env, err := s.Traces.env(s.Label)
		if err != nil {
			return nil, err
		}
		if p.traces, err = resolveIn(sc, env); err != nil {
			return nil, err
		}
		p.open = p.traces.opener()
	}
	if err := CheckActions(sc, s.Actions); err != nil {
		p.Close()
		return nil, err
	}
	if hasEdgeFile(sc) {
		base := s.Traces.BaseDir
		if base == "" {
			base = scenarioDir(s.Label)
		}
		p.edges = &edgeFiles{base: base}
	}
	p.actions, p.until = splitStop(s.Actions, sc.Duration)
	p.maxMemory = runBudget(s.Limits, measure(sc, p.traces.rates()))
	return p, nil
}

// Inputs are the files the run reads (ScenarioInputs): the scenario
// file, its traces and edge-list files.
func (p *Prepared) Inputs() []string {
	base := ""
	if p.edges != nil {
		base = p.edges.base
	}
	return inputsOf(p.label, p.sc, p.traces, base)
}

// Options returns the sim.Options of the run: the trace opener, the queue
// limit, the actions, obs (nil for none) receiving samples, events and
// checkpoints, with an EventTraceEnded event added where a trace source's
// input ends early, and progress (nil for none) called every so many
// kernel events. Each call gives a fresh observer state: one call per
// simulation started.
func (p *Prepared) Options(obs sim.Observer, progress func(des.Time, uint64)) sim.Options {
	return sim.Options{
		MaxQueued: p.maxQueued,
		MaxMemory: p.maxMemory,
		Actions:   p.actions,
		OpenTrace: p.open,
		OpenEdges: p.openEdges(),
		Observer:  p.traces.observe(obs),
		Progress:  progress,
	}
}

// MicroBatchOptions returns the microbatch.Options of a run of a
// micro-batch engine: the trace opener, the queue limit and the actions
// to replay (without a final stop: run to Until).
func (p *Prepared) MicroBatchOptions() microbatch.Options {
	return microbatch.Options{MaxQueued: p.maxQueued, OpenTrace: p.open, Actions: p.actions}
}

// Until is the simulated time to run to: the scenario's duration, or the
// time of a final runfiles.ActionStop among the actions.
func (p *Prepared) Until() des.Time { return p.until }

// CheckLimits checks the run against l before it starts (see
// CheckLimits), with the rates of its traces where the registry knows
// them.
func (p *Prepared) CheckLimits(l Limits) error {
	return checkLimits(p.label, p.sc, l, p.traces.rates())
}

// Close closes the trace files the simulator opened. It is safe to call
// on a nil *Prepared and more than once.
func (p *Prepared) Close() {
	if p != nil {
		p.traces.close()
		p.edges.close()
	}
}

// openEdges returns the opener of the run's edge files, nil without.
func (p *Prepared) openEdges() sim.EdgeOpener {
	if p.edges == nil {
		return nil
	}
	return p.edges.opener()
}

// hasTraceSource reports whether a source of sc replays a trace.
func hasTraceSource(sc *scenario.Scenario) bool {
	for _, s := range sc.Sources {
		if s.Arrival.Process == scenario.ArrivalTrace {
			return true
		}
	}
	return false
}
