package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/grading"
	"github.com/dspalab/dspalab/internal/runfiles"
)

// gradeOptions are the flags of grade.
type gradeOptions struct {
	exercise  string
	pack      string
	outDir    string
	jobs      int
	classroom bool
	outSet    bool // --out given
	maxMemory int64
	timeout   time.Duration
}

func newGradeCmd() *cobra.Command {
	opts := gradeOptions{maxMemory: grading.DefaultWorkerMemory, timeout: grading.DefaultWorkerTimeout}
	cmd := &cobra.Command{
		Use:   "grade --exercise ID|EXERCISE_DIR [--out DIR] SUBMISSION...",
		Short: "Grade students' submissions of an exercise: grades.csv, feedback and a class summary",
		Long: `Grade submissions of an exercise, in parallel (--jobs, default: all cores),
on its grading seeds and hidden seeds, with a progress bar on a terminal.

--exercise names a built-in exercise (or one of --pack DIR), or is the
directory of an exercise (holding exercise.yaml). A SUBMISSION is a
directory holding scenario.yaml (and answers.yaml, if the exercise asks
questions) or a scenario .yaml file; a directory holding neither, such as
a folder of the class's submissions, is expanded to its sub-directories
and .yaml files, one submission each, named after them. Ids are unique
without regard to case: names that clash (alice, Alice) each get a
suffix of their own (alice--2bd806c9).

DIR (default: grades) receives, all at once when the batch is graded
(written aside first, then moved in; if that fails, or on Ctrl-C, the
previous grades in DIR are kept, whole):
  grades.csv           one row per submission: id, source (the folder or
                       file graded), score, max, then the points of each
                       check and question
  feedback/ID.md       the feedback for the student, and feedback/ID.json
  summary.md           the class summary, with histogram.png of the scores

The previous grades' outputs are replaced whole (feedback/ too); other
files of DIR are left alone, and a file in feedback/ that is not the
feedback of a submission of the previous grades.csv (a rubric of your
own) is refused before anything is written, never deleted.

Each submission's simulations run in a process of their own, under
--max-memory and --timeout: a submission that crashes the simulator, runs
out of memory or out of time gets 0 on its checks, with the reason, and
the batch goes on. --max-memory also bounds the estimated memory of the
job's structures (over it the submission is refused before it runs) and,
at an eighth of it, what a run accumulates (checkpoints in flight, network
buffers: past it the run is stopped). A submission that cannot be read (over 1 MiB, not a
regular file, a symbolic link, whether given on the command line or found
in a folder; inside a submission's folder a link is followed only while
it stays inside), is not valid YAML or not a valid scenario, changes a field
the exercise does not let it change, goes over a limit (total parallelism,
the event budget of a run) or fails to run gets 0 on the checks it
affects, with the reason in its feedback and in summary.md; it never
stops the others. Each file costs only what depends on it: questions are
graded from answers.yaml even when the scenario is not (but for those
about the submission's own run), and an answers.yaml that cannot be read
costs the questions only. The same submission always gets the same
grade.

--classroom grades one submission for GitHub Classroom's autograding: it
prints the JSON that its reporter reads (and appends it, base64-encoded,
as the step output named result when $GITHUB_OUTPUT is set) and the
human-readable grade on stderr. Like GitHub's own graders it exits 0 once
it has graded, whatever the score, so that the reporter step runs and
records partial credit; the reporter fails the run below full marks (see
'dspalab exercise check --help' for the workflow steps). It writes the
files only with --out.

` + exerciseExitHelp,
		Example: `  dspalab grade --exercise bottleneck submissions/
  dspalab grade --exercise course/exercises/keep-up --out grades/keep-up submissions/*
  dspalab grade --pack course/exercises --exercise keep-up alice.yaml bob/
  dspalab grade --exercise bottleneck --max-memory 1GiB --timeout 2m submissions/
  dspalab grade --exercise course/exercises/keep-up --classroom .`,
		Args: usage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.outSet = cmd.Flags().Changed("out")
			return runGrade(cmd, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.exercise, "exercise", "", "the exercise: a built-in `ID` (or one of --pack), or an exercise's directory")
	f.StringVar(&opts.pack, "pack", "", "look the exercise ID up in the pack in `DIR`")
	f.StringVarP(&opts.outDir, "out", "o", "grades", "write grades.csv, feedback/, summary.md and histogram.png into `DIR` (created if missing)")
	f.IntVarP(&opts.jobs, "jobs", "j", 0, "grade `N` submissions at once (default: GOMAXPROCS)")
	f.BoolVar(&opts.classroom, "classroom", false, "grade one submission for GitHub Classroom: its result JSON on stdout (and $GITHUB_OUTPUT); exit 0 whatever the score")
	f.Var(bytesValue{&opts.maxMemory}, "max-memory", "the memory one submission's simulations may use, e.g. 1GiB; past it the submission gets 0")
	f.DurationVar(&opts.timeout, "timeout", opts.timeout, "the wall-clock time one submission's simulations (all seeds) may take, e.g. 2m; past it the submission gets 0")
	return cmd
}

// runGrade grades the submissions args with opts.
func runGrade(cmd *cobra.Command, opts gradeOptions, args []string) error {
	if opts.exercise == "" {
		return usagef("--exercise ID|EXERCISE_DIR is required: the exercise to grade")
	}
	if opts.jobs < 0 {
		return usagef("--jobs must be at least 1, got %d", opts.jobs)
	}
	if opts.timeout <= 0 {
		return usagef("--timeout must be positive, got %s", opts.timeout)
	}
	if opts.outDir == "" && (!opts.classroom || opts.outSet) {
		return usagef("--out needs a directory name, got an empty string")
	}
	e, err := gradeExercise(opts.exercise, opts.pack)
	if err != nil {
		return err
	}
	skip := "" // the reports of an earlier grade into --out are no submission
	if !opts.classroom || opts.outSet {
		skip = opts.outDir
	}
	subs, err := grading.CollectSkipping(args, skip)
	if err != nil {
		return err
	}
	if opts.classroom && len(subs) != 1 {
		return usagef("--classroom grades one submission; got %d (%s)", len(subs), strings.Join(subPaths(subs, 5), ", "))
	}
	worker, err := grading.WorkerCommand()
	if err != nil {
		return err
	}
	g, err := grading.New(e, grading.Options{Hidden: true, ShowTruth: true,
		Isolate: &grading.Isolation{Command: worker, MaxMemory: opts.maxMemory, Timeout: opts.timeout}})
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	batch := grading.BatchOptions{Jobs: opts.jobs}
	if isTerminal(stderr) && !opts.classroom {
		batch.Progress = stderr
	}
	writes := !opts.classroom || opts.outSet
	if writes {
		// one grade at a time into a directory: a second is refused at once
		lock, err := runfiles.Lock(opts.outDir)
		if err != nil {
			return err
		}
		defer lock.Close()
		// what WriteReports would refuse, refused before the batch
		// runs, not after it
		if err := grading.CheckOutputDir(opts.outDir); err != nil {
			return err
		}
	}
	results, err := g.GradeAll(cmd.Context(), subs, batch)
	if err != nil {
		var ie *grading.InterruptedError
		if errors.As(err, &ie) && writes {
			return fmt.Errorf("%w; nothing was written to %s", err, opts.outDir)
		}
		return err
	}
	if writes {
		if _, err := g.WriteReports(opts.outDir, results); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	if opts.classroom {
		r := results[0]
		if err := r.WriteText(stderr, e); err != nil {
			return err
		}
		c := grading.Classroom(r)
		if path := os.Getenv("GITHUB_OUTPUT"); path != "" {
			if err := c.WriteGitHubOutput(path); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(out, "%s\n", c.JSON()); err != nil {
			return fmt.Errorf("printing the result: %w", err)
		}
		// exit 0 whatever the score: the reporter step must run to
		// record partial credit, and fails the run itself
		return nil
	}
	return printGradeSummary(out, e, results, opts.outDir)
}

// newGradeWorkerCmd is the hidden command that grade runs, once per
// submission, in a process of its own (grading.Isolation): the request
// on stdin, the summaries as JSON on stdout.
func newGradeWorkerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    grading.WorkerCommandName,
		Short:  "Simulate one submission for grade, in a process of its own (internal)",
		Hidden: true,
		Args:   usage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return grading.ServeWorker(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
}

// gradeExercise finds the exercise of --exercise: with --pack, an id in
// that pack (a folder of the same name in the current directory does not
// hide it); without, an exercise's directory (holding exercise.yaml), else
// a built-in id.
func gradeExercise(arg, pack string) (*exercises.Exercise, error) {
	fi, err := os.Stat(arg)
	isDir := err == nil && fi.IsDir()
	if pack != "" {
		p, err := openPack(pack)
		if err != nil {
			return nil, err
		}
		e, err := p.Get(arg)
		if err == nil {
			return e, nil
		}
		if _, serr := os.Stat(filepath.Join(arg, exercises.ExerciseFile)); isDir && serr == nil {
			return nil, usagef("%v; %s here is an exercise's directory: give it without --pack", err, arg)
		}
		return nil, err
	}
	if isDir {
		if _, err := os.Stat(filepath.Join(arg, exercises.ExerciseFile)); err == nil {
			return exercises.OpenExerciseDir(arg)
		}
	}
	p, err := openPack(pack)
	if err != nil {
		return nil, err
	}
	e, err := p.Get(arg)
	if err != nil && isDir {
		return nil, fmt.Errorf("%s has no %s: --exercise takes an exercise's directory, or an id (with --pack DIR for a pack of your own)", arg, exercises.ExerciseFile)
	}
	return e, err
}

// subPaths lists at most n submission paths.
func subPaths(subs []grading.Submission, n int) []string {
	var out []string
	for i, s := range subs {
		if i == n {
			out = append(out, "...")
			break
		}
		out = append(out, s.Path)
	}
	return out
}

// printGradeSummary prints a line on the class and the files written.
func printGradeSummary(w io.Writer, e *exercises.Exercise, rs []*grading.Result, dir string) error {
	var sum float64
	full, bad := 0, 0
	for _, r := range rs {
		sum += r.Score
		if r.Full() {
			full++
		}
		if len(r.Problems) > 0 {
			bad++
		}
	}
	mean := 0.0
	if len(rs) > 0 {
		mean = sum / float64(len(rs))
	}
	s := "s"
	if len(rs) == 1 {
		s = ""
	}
	_, err := fmt.Fprintf(w, "graded %d submission%s of %s: mean %s of %s points, %d with full marks, %d with problems (see %s)\nwrote %s, %s, %s, %s\n",
		len(rs), s, e.ID, exercises.FormatNumber(mean), exercises.FormatNumber(e.MaxPoints()), full, bad,
		filepath.Join(dir, grading.SummaryFile),
		filepath.Join(dir, grading.GradesFile), filepath.Join(dir, grading.FeedbackDir)+string(filepath.Separator),
		filepath.Join(dir, grading.SummaryFile), filepath.Join(dir, grading.HistogramFile))
	if err != nil {
		return fmt.Errorf("printing the summary: %w", err)
	}
	return nil
}
