package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
)

const exitCodesHelp = `Exit status:
  0    success
  1    invalid scenario, a run refused or stopped by a limit, a failed run,
       or output that could not be written
  2    usage error (unknown command or flag, bad flag value, missing argument)
  130  interrupted (Ctrl-C or SIGTERM); the outputs written are partial`

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "dspalab",
		Short: "A discrete-event simulator of Flink-like stream processing, for teaching",
		Long: `dspalab simulates distributed stream processing as Apache Flink does it:
sources with arrival processes, operators with service times, sinks, and
the network between them with Flink's credit-based flow control, so that
back-pressure arises, travels upstream and can be measured as Flink's web UI
shows it (busy, idle and back-pressured time; OK, LOW and HIGH).

A scenario is a short YAML file describing a job and its cluster; a few are
built in (dspalab scenarios). The same scenario and seed always give the
same results.

Examples:
  dspalab run                          # the course's back-pressure example
  dspalab run hot-key --out out/       # a built-in scenario, files in out/
  dspalab run my.yaml --duration 30s   # your own scenario, shortened
  dspalab validate my.yaml             # check a scenario, errors as file:line:col
  dspalab scenarios                    # list the built-in scenarios
  dspalab scenarios show mm1 > mm1.yaml
  dspalab schema > dspalab.schema.json # JSON Schema for editor completion
  dspalab watch exactly-once           # a live view: f fails a subtask
  dspalab exercise start bottleneck    # an exercise: starter, instructions
  dspalab exercise check bottleneck    # ... and its grade
  dspalab grade --exercise bottleneck submissions/   # grade a class

` + exitCodesHelp,
		Version:                    version,
		SuggestionsMinimumDistance: 2,
		SilenceUsage:               true,
		SilenceErrors:              true,
		Args:                       usage(unknownCommand),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newRunCmd(), newCompareCmd(), newValidateCmd(), newSchemaCmd(), newScenariosCmd())
	root.AddCommand(newDatasetsCmd())
	root.AddCommand(newSweepCmd())
	root.AddCommand(newWatchCmd())
	root.AddCommand(newPlotCmd())
	root.AddCommand(newReportCmd())
	root.AddCommand(newExerciseCmd(), newGradeCmd(), newGradeWorkerCmd())
	return root
}

// unknownCommand refuses arguments to the root command, with cobra's
// suggestions.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return fmt.Errorf("%s", msg)
}

// flagError turns pflag's errors into usage errors: a value error that
// says it all (*flagValueError) as it is, an unknown long flag with the
// nearest flag name, any other as pflag words it.
func flagError(cmd *cobra.Command, err error) error {
	var fve *flagValueError
	if errors.As(err, &fve) {
		return &usageError{fve}
	}
	// pflag's *NotExistError, without importing pflag
	var ne interface {
		GetSpecifiedName() string
		GetSpecifiedShortnames() string
	}
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" && strings.HasPrefix(err.Error(), "unknown flag: ") {
		name, _, _ := strings.Cut(ne.GetSpecifiedName(), "=")
		if others := commandsWithFlag(cmd.Root(), name, cmd); len(others) > 0 {
			return &usageError{fmt.Errorf("%w: it is a flag of %s, not of %s", err, strings.Join(others, " and "), cmd.CommandPath())}
		}
		if s := nearestFlag(cmd, ne.GetSpecifiedName()); s != "" {
			return &usageError{fmt.Errorf("%w; did you mean --%s?", err, s)}
		}
	}
	return &usageError{err}
}

// commandsWithFlag lists the commands under root, other than not, that
// have a flag of that name (dspalab sweep for --set typed to run), so that
// a flag given to the wrong command is named as another's instead of
// matched to this one's nearest.
func commandsWithFlag(root *cobra.Command, name string, not *cobra.Command) []string {
	var found []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != not && !c.Hidden && c.LocalFlags().Lookup(name) != nil {
			found = append(found, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	if name != "" {
		walk(root)
	}
	return found
}

// nearestFlag returns the name of cmd's flag nearest to typed (which
// lacks the dashes), or "" when none is close: the only one that starts
// with what was typed (of 3 letters or more), else the first nearest within
// a Levenshtein distance of max(2, a third of its length), else the longest
// that what was typed starts with ("output" for out).
func nearestFlag(cmd *cobra.Command, typed string) string {
	typed, _, _ = strings.Cut(typed, "=")
	word := strings.ToLower(typed)
	if word == "" {
		return ""
	}
	names := flagNames(cmd)
	var prefixed []string
	for _, n := range names {
		if len(word) >= 3 && strings.HasPrefix(n, word) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	best, bestDist := "", 0
	for _, n := range names {
		d := levenshtein.ComputeDistance(word, n)
		if best == "" || d < bestDist {
			best, bestDist = n, d
		}
	}
	if bestDist <= max(2, len(word)/3) {
		return best
	}
	longest := ""
	for _, n := range names {
		if len(n) >= 3 && len(n) > len(longest) && strings.HasPrefix(word, n) {
			longest = n
		}
	}
	return longest
}

// flagNames returns the names of the flags cmd accepts and shows in its
// help, sorted. They are read from the usage lines ("  -o, --out DIR
// ..."), not by visiting the flag set, so that pflag stays an indirect
// dependency.
func flagNames(cmd *cobra.Command) []string {
	var names []string
	for line := range strings.Lines(cmd.Flags().FlagUsages()) {
		fields := strings.Fields(line)
		for _, f := range fields[:min(2, len(fields))] {
			if name, ok := strings.CutPrefix(f, "--"); ok && name != "" {
				names = append(names, name)
				break
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
