package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/viz/tui"
)

// newWatchCmd is `dspalab watch`: `dspalab run --tui` under its own name.
func newWatchCmd() *cobra.Command {
	cmd := newRunCmd()
	cmd.Use = "watch [SCENARIO]"
	cmd.Short = "Run a scenario live in the terminal: pause, step, speed up, inject failures"
	cmd.Long = `Run a scenario live in a terminal UI, the way Flink's web UI shows a real
job, but slowed down, paused and poked at will: the job graph, one row per
task (an operator chain such as 'enrich -> out' is one, its operators
listed under it), with its rates, input-buffer occupancy and back-pressure
status (OK green, LOW yellow, HIGH red), the busy, back-pressured and idle
time of the selected vertex's subtasks, charts of throughput and p99 latency over the
last minute of simulated time, source lag, checkpoints, delivery counters
and the event log. A scenario of Spark's engines (engine: spark-streaming
or structured-streaming) shows its batch timeline instead: a cell per
batch (done, done after waiting, running, queued), the scheduling and
total delay per batch, the PID rate against the input rate, and the
active and completed batches as Spark's streaming UI lists them.

SCENARIO is a YAML file or the name of a built-in scenario (see 'dspalab
scenarios'); without it, the course's back-pressure example (` + scenarios.Default + `) runs.
It takes the flags of 'dspalab run'; 'dspalab run --tui' is the same command.

Keys:
  space      pause or resume
  s          step one metrics interval (and pause)
  + / -      faster / slower, in steps (simulated seconds per wall second:
             0.1, 0.2, 0.5, 1, 2, 5 ... 1000, max)
  up/down, tab, shift+tab
             select a vertex: its subtasks show below the graph
  left/right select a subtask (both wrap around, as up/down do)
  f / F      inject a failure into the selected subtask / its worker
  c          trigger a checkpoint now
  r          restart from the beginning
  ?          help (? or esc closes it; while it is open, other keys do not act)
  q          quit: the summary of the run so far is printed (and written
             with --out), as 'dspalab run' prints it; exit status 0
  ctrl+c     interrupt, as in 'dspalab run': the same, marked interrupted,
             and the exit status is 130

The actions injected (f, F, c) are recorded with their simulated times;
with --out DIR they are written to DIR/actions.jsonl beside the other
outputs, and 'dspalab run --replay DIR/actions.jsonl' runs the same run
again without the view, failures and recoveries included. A failure
injected with f fails that task (noticed at once), with F its worker
(noticed after workers.heartbeat_timeout); the job then restarts by its
restart strategy from its latest completed checkpoint. c needs a
checkpoint block in the scenario; the simulator refuses an action it
cannot apply (c without checkpoints, f once the job has failed for good),
and the view says so in its event log. A micro-batch run (engine
spark-streaming or structured-streaming) shows its batch timeline: tab
and the arrows select the task f fails (Spark runs the attempt again, up
to spark.task_max_failures), F fails its executor, and c is refused;
its actions are recorded and replayed the same way.

It needs a terminal: keys are read from standard input, and the view is
drawn on standard output or, when that is redirected, on standard error
(so 'dspalab watch --json > summary.json' works). With standard input
redirected, or both outputs, it refuses (exit status 2); use 'dspalab run'
there. A scenario that does not exist or is invalid is reported first.

` + exitCodesHelp
	cmd.Example = `  dspalab watch                            # the back-pressure example at 1x
  dspalab watch hot-key --speed 10         # ten simulated seconds a second
  dspalab watch my.yaml --speed max --out results/
  dspalab run --replay results/actions.jsonl my.yaml`
	cmd.Flags().Set("tui", "true")
	cmd.Flags().MarkHidden("tui")
	return cmd
}

// liveFlags are the flags of the live view: --tui, --speed and --replay.
type liveFlags struct {
	tui    bool
	speed  float64
	replay string
}

func (l *liveFlags) flags(cmd *cobra.Command) {
	l.speed = 1
	f := cmd.Flags()
	f.BoolVar(&l.tui, "tui", false, "show the run live in a terminal UI (as dspalab watch)")
	f.Var(speedValue{&l.speed}, "speed", "speed of the live view at the start: simulated seconds per wall second, 0.1 to 1000, or max")
	f.StringVar(&l.replay, "replay", "", "replay the actions (failures, checkpoints) recorded in `FILE`, an actions.jsonl")
}

// apply sets the live view and the replayed actions of opts.
func (l *liveFlags) apply(cmd *cobra.Command, args []string, opts *runner.Options) error {
	if cmd.Flags().Changed("replay") && l.replay == "" {
		return usagef("--replay needs a file name, got an empty string")
	}
	if l.tui {
		// The view reads keys from standard input and draws on standard
		// output, or on standard error when the output is redirected (so
		// that --json > summary.json works as in dspalab run).
		var screen io.Writer
		switch {
		case isTerminal(cmd.OutOrStdout()):
		case isTerminal(cmd.ErrOrStderr()):
			screen = terminalFile(cmd.ErrOrStderr())
		}
		if !isTerminal(cmd.InOrStdin()) || (screen == nil && !isTerminal(cmd.OutOrStdout())) {
			// a scenario that does not exist or is invalid says so first:
			// that is what to mend, terminal or not
			arg := scenarios.Default
			if len(args) > 0 {
				arg = args[0]
			}
			if _, _, err := runner.Load(arg); err != nil {
				return err
			}
			name := "watch"
			if cmd.Name() == "run" {
				name = "run --tui"
			}
			return usagef("%s needs a terminal, and standard input or output is not one; for a run without the live view, use 'dspalab run%s'",
				name, strings.Join(append([]string{""}, args...), " "))
		}
		var progOpts []tea.ProgramOption
		if screen != nil {
			progOpts = append(progOpts, tea.WithOutput(screen))
		}
		opts.Progress = false
		speed := l.speed
		// ctrl+c in the view interrupts the run as SIGINT does: the view
		// cancels the command's context, so that the run ends as
		// interrupted (exit status 130), not quit (q, exit status 0)
		parent := cmd.Context()
		if parent == nil {
			parent = context.Background()
		}
		ctx, interrupt := context.WithCancel(parent)
		cmd.SetContext(ctx)
		opts.Live = func(ctx context.Context, r runner.LiveRun) (*sim.Sim, error) {
			return tui.Run(ctx, tui.Job{Label: r.Label, Scenario: r.Scenario, Start: r.Start},
				tui.Options{Speed: speed, Interrupt: interrupt, ProgramOptions: progOpts})
		}
		opts.LiveBatches = func(ctx context.Context, r runner.LiveBatchRun) (*microbatch.Sim, error) {
			return tui.RunBatches(ctx, tui.BatchJob{Label: r.Label, Scenario: r.Scenario, Start: r.Start},
				tui.Options{Speed: speed, Interrupt: interrupt, ProgramOptions: progOpts})
		}
	} else if cmd.Flags().Changed("speed") {
		return usagef("--speed sets the speed of the live view: use it with --tui or dspalab watch")
	}
	if l.replay != "" {
		f, err := regfile.Open(l.replay)
		if err != nil {
			return fmt.Errorf("reading actions to replay: %w", err)
		}
		defer f.Close()
		if opts.Actions, err = runfiles.ReadActions(f, l.replay); err != nil {
			return err
		}
		opts.Inputs = append(opts.Inputs, l.replay)
	}
	return nil
}

// speedValue is --speed: simulated seconds per wall second from 0.1 to
// 1000, any value (the view starts at it; + and - then step through
// tui.Speeds), or "max" (stored as 0): as fast as possible.
type speedValue struct{ s *float64 }

func (v speedValue) String() string {
	if v.s == nil {
		return ""
	}
	if *v.s == 0 {
		return "max"
	}
	return strconv.FormatFloat(*v.s, 'f', -1, 64)
}

func (v speedValue) Set(s string) error {
	if strings.EqualFold(s, "max") {
		*v.s = 0
		return nil
	}
	x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(s, "x"), "×"), 64)
	if err != nil || !(x >= tui.MinSpeed && x <= tui.MaxSpeed) {
		return &flagValueError{fmt.Sprintf("--speed must be a number of simulated seconds per wall second from 0.1 to 1000, or max; got %q", s)}
	}
	*v.s = x
	return nil
}

func (speedValue) Type() string { return "speed" }
