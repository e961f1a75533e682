package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/exercises/render"
	"github.com/dspalab/dspalab/grading"
	"github.com/dspalab/dspalab/internal/runner"
)

const exerciseExitHelp = `Exit status:
  0    success (for check: full marks; with --classroom: graded, whatever
       the score, since the reporter fails the run below full marks)
  1    not full marks (check without --classroom), an invalid or unknown
       exercise, nothing to check, a file that could not be written or
       would be overwritten
  2    usage error (unknown command or flag, bad flag value, missing argument)
  130  interrupted (Ctrl-C or SIGTERM)`

func newExerciseCmd() *cobra.Command {
	var pack string
	cmd := &cobra.Command{
		Use:   "exercise",
		Short: "List, read, start and check exercises",
		Long: `Exercises ask you to change a scenario so that it meets checks on its
metrics (and sometimes to answer questions about what you see). Each has
instructions, a starter scenario, the fields you may change and limits
such as a budget of parallelism.

  dspalab exercise list                 the built-in exercises
  dspalab exercise show bottleneck      the instructions
  dspalab exercise start bottleneck     copy the starter into ./bottleneck
  dspalab exercise check bottleneck     run it on the grading seeds and see the points

With --pack DIR the exercises come from an instructor's pack: a directory
with one folder per exercise.

` + exerciseExitHelp,
		Args: usage(unknownCommand),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&pack, "pack", "", "read the exercises from the pack in `DIR` instead of the built-in ones")
	cmd.AddCommand(newExerciseListCmd(&pack), newExerciseShowCmd(&pack), newExerciseStartCmd(&pack),
		newExerciseCheckCmd(&pack), newExerciseValidateCmd(&pack))
	return cmd
}

// openPack loads the pack in dir, or the built-in pack for "".
func openPack(dir string) (*exercises.Pack, error) {
	if dir == "" {
		p, err := exercises.Builtin()
		if err != nil {
			return nil, fmt.Errorf("the built-in exercises are broken (a bug; please report it):\n%w", err)
		}
		return p, nil
	}
	return exercises.OpenDir(dir)
}

// exerciseIDs completes exercise ids of the pack.
func exerciseIDs(pack *string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		p, err := openPack(*pack)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return p.IDs(), cobra.ShellCompDirectiveNoFileComp
	}
}

func newExerciseListCmd(pack *string) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the exercises: id, title and topics",
		Example: "  dspalab exercise list\n  dspalab exercise list --pack course/exercises",
		Args:    usage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := openPack(*pack)
			if err != nil {
				return err
			}
			if len(p.Exercises()) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "the pack %s has no exercises (folders holding exercise.yaml)\n", p.Name)
				return nil
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 8, 2, ' ', 0)
			for _, e := range p.Exercises() {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", e.ID, e.Title, strings.Join(e.Topics, ", "))
			}
			return tw.Flush()
		},
	}
}

func newExerciseShowCmd(pack *string) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print the instructions of an exercise",
		Long: `Print the instructions of an exercise (its README.md), styled for the
terminal; piped or with NO_COLOR set, as plain Markdown.`,
		Example:           "  dspalab exercise show bottleneck\n  dspalab exercise show bottleneck | less",
		Args:              needArgs(1, 1, "an exercise id", "dspalab exercise list lists them"),
		ValidArgsFunction: exerciseIDs(pack),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := openPack(*pack)
			if err != nil {
				return err
			}
			e, err := p.Get(args[0])
			if err != nil {
				return err
			}
			md, err := e.README()
			if err != nil {
				return err
			}
			start := "dspalab exercise start " + e.ID
			if *pack != "" {
				start += " --pack " + *pack
			}
			md = append(md, fmt.Sprintf("\n---\n\nStart with `%s`; check your work with `dspalab exercise check %s`.\n", start, e.ID)...)
			out := cmd.OutOrStdout()
			opts := render.Options{Styled: isTerminal(out) && os.Getenv("NO_COLOR") == "", Width: termWidth(out)}
			return render.Markdown(out, md, opts)
		},
	}
}

// termWidth returns the width of the terminal w, at most 100 columns
// (80 when unknown).
func termWidth(w io.Writer) int {
	if c, ok := w.(*checkedWriter); ok {
		w = c.w
	}
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return min(width, 100)
		}
	}
	return 80
}

func newExerciseStartCmd(pack *string) *cobra.Command {
	return &cobra.Command{
		Use:   "start ID [DIR]",
		Short: "Copy an exercise's starter, instructions and answer sheet into DIR",
		Long: `Copy what you need for an exercise into DIR (default: ./ID, created if
missing): scenario.yaml (the starter scenario: edit it), README.md (the
instructions), answers.yaml (when the exercise asks questions) and
.dspalab-exercise (which tells 'dspalab exercise check' the exercise). It
never overwrites anything: if one of these files exists, it writes none.

` + exerciseExitHelp,
		Example: `  dspalab exercise start bottleneck            # into ./bottleneck
  dspalab exercise start bottleneck lab1/       # into ./lab1
  dspalab exercise start keep-up --pack course/exercises`,
		Args:              usage(cobra.RangeArgs(1, 2)),
		ValidArgsFunction: exerciseIDs(pack),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := openPack(*pack)
			if err != nil {
				return err
			}
			e, err := p.Get(args[0])
			if err != nil {
				return err
			}
			dir := e.ID
			if len(args) == 2 {
				dir = args[1]
			}
			written, err := exercises.Start(e, dir)
			if err != nil {
				return err
			}
			var names []string
			for _, w := range written {
				if filepath.Base(w) != exercises.MarkerFile {
					names = append(names, w)
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s\nnext: read %s, edit %s, then run: dspalab exercise check %s\n",
				strings.Join(names, ", "), filepath.Join(dir, exercises.StartReadme), filepath.Join(dir, exercises.StartScenario), dir)
			return nil
		},
	}
}

func newExerciseCheckCmd(pack *string) *cobra.Command {
	var (
		id        string
		asJSON    bool
		classroom bool
	)
	cmd := &cobra.Command{
		Use:   "check [DIR]",
		Short: "Grade your work on an exercise: each check with its points and the total",
		Long: `Grade DIR (default: the current directory), as 'dspalab exercise start'
made it: its scenario.yaml runs on the exercise's grading seeds (an
instructor grades on more), and each check and question is printed with
PASS or FAIL, its points and feedback, then the total. DIR may also be a
single scenario .yaml file (its questions then go unanswered).

The exercise is the one named in DIR/.dspalab-exercise (written by start),
or --exercise ID (or the directory of an exercise, holding exercise.yaml).

--json prints the grade as JSON instead. --classroom is for GitHub
Classroom's autograding: it prints the JSON that its reporter reads and,
when $GITHUB_OUTPUT is set, appends it base64-encoded as the step output
named result (the human-readable grade goes to stderr). Like GitHub's own
graders it exits 0 once it has graded, whatever the score, so that the
reporter step runs and records partial credit; the reporter then fails
the run below full marks. In the autograding workflow:

  - name: dspalab
    id: dspalab
    run: dspalab exercise check --classroom
  - name: Autograding Reporter
    uses: classroom-resources/autograding-grading-reporter@v1
    env:
      DSPALAB_RESULTS: "${{ steps.dspalab.outputs.result }}"
    with:
      runners: dspalab

` + exerciseExitHelp,
		Example: `  dspalab exercise check                      # in the directory start made
  dspalab exercise check bottleneck
  dspalab exercise check my.yaml --exercise bottleneck
  dspalab exercise check --json > grade.json`,
		Args: usage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && classroom {
				return usagef("--json and --classroom are two formats: give one")
			}
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			fi, err := os.Stat(path)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && len(args) == 1 {
					return checkWhat(path, *pack)
				}
				return fmt.Errorf("nothing to check: %w", err)
			}
			dir := path // where the marker is
			if !fi.IsDir() {
				dir = filepath.Dir(path)
				if filepath.Base(path) == exercises.StartScenario {
					path = dir // the directory start made: with its answers
				}
			}
			packDir := *pack
			if id == "" {
				m, err := exercises.ReadMarker(dir)
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						return usagef("%s has no %s (written by dspalab exercise start): name the exercise with --exercise ID", dir, exercises.MarkerFile)
					}
					return err
				}
				id = m.Exercise
				if packDir == "" {
					packDir = m.Pack
				}
			}
			e, err := gradeExercise(id, packDir)
			if err != nil {
				return err
			}
			g, err := grading.New(e, grading.Options{})
			if err != nil {
				return err
			}
			sub := grading.Submission{ID: grading.SubmissionID(absPath(path)), Path: path}
			r, err := g.Grade(cmd.Context(), sub)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, w := range r.Warnings { // as dspalab run prints them
				if _, err := fmt.Fprintln(cmd.ErrOrStderr(), w); err != nil {
					return fmt.Errorf("printing the warnings: %w", err)
				}
			}
			switch {
			case asJSON:
				_, err = out.Write(r.JSON())
			case classroom:
				c := grading.Classroom(r)
				if err := r.WriteText(cmd.ErrOrStderr(), e); err != nil {
					return err
				}
				if path := os.Getenv("GITHUB_OUTPUT"); path != "" {
					if err := c.WriteGitHubOutput(path); err != nil {
						return err
					}
				}
				_, err = fmt.Fprintf(out, "%s\n", c.JSON())
			default:
				err = r.WriteText(out, e)
			}
			if err != nil {
				return fmt.Errorf("printing the grade: %w", err)
			}
			if !r.Full() && !classroom {
				// --classroom exits 0 once graded: the reporter step must
				// run to record partial credit, and fails the run itself
				return runner.ErrReported
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "exercise", "", "grade for the exercise `ID` or the exercise in a directory (default: the one in DIR/.dspalab-exercise)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the grade as JSON")
	cmd.Flags().BoolVar(&classroom, "classroom", false, "print GitHub Classroom's autograding result (and write it to $GITHUB_OUTPUT); exit 0 whatever the score")
	return cmd
}

// absPath returns p made absolute, or p.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func newExerciseValidateCmd(pack *string) *cobra.Command {
	return &cobra.Command{
		Use:   "validate [ID...]",
		Short: "Check a pack: every exercise loads, its starter falls short, its solution scores full marks",
		Long: `Check the exercises of a pack (all, or those named) for an instructor:
each exercise.yaml, starter and solution must be valid (problems are
printed as file:line:col), and then each is graded on its grading seeds
and hidden seeds: the starter must score less than full marks and
solution.yaml (if there is one) full marks, its questions answered right;
every wrong*.yaml is graded too, and its score shown.

` + exerciseExitHelp,
		Example: "  dspalab exercise validate --pack course/exercises\n  dspalab exercise validate bottleneck",
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := openPack(*pack)
			if err != nil {
				return err
			}
			list := p.Exercises()
			if len(args) > 0 {
				list = nil
				for _, id := range args {
					e, err := p.Get(id)
					if err != nil {
						return err
					}
					list = append(list, e)
				}
			}
			out := cmd.OutOrStdout()
			failed := false
			for _, e := range list {
				lines, ok, err := grading.ValidateExercise(cmd.Context(), e)
				if err != nil {
					return err
				}
				failed = failed || !ok
				for _, l := range lines {
					fmt.Fprintf(out, "%s: %s\n", e.ID, l)
				}
			}
			if failed {
				return runner.ErrReported
			}
			return nil
		},
	}
}

// checkWhat is the error of exercise check ARG where ARG does not exist:
// when it is the id of an exercise (of --pack or the built-in ones), the
// user meant the exercise, and is told to name a directory (., when the
// current one is a copy of that exercise, which start made).
func checkWhat(arg, pack string) error {
	msg := fmt.Sprintf("nothing to check: there is no file or directory %s", arg)
	if strings.ContainsAny(arg, `/\`) || filepath.Ext(arg) != "" {
		return errors.New(msg)
	}
	if _, err := gradeExercise(arg, pack); err != nil {
		return errors.New(msg)
	}
	msg += fmt.Sprintf("; %s is the id of an exercise, and check takes your copy of it (the directory dspalab exercise start made, or a .yaml)", arg)
	if m, err := exercises.ReadMarker("."); err == nil && m.Exercise == arg {
		return errors.New(msg + ": this directory is one, check it with dspalab exercise check (or check .)")
	}
	return errors.New(msg + fmt.Sprintf(": run dspalab exercise check in it, or name it (with --exercise %s if it has no %s)", arg, exercises.MarkerFile))
}
