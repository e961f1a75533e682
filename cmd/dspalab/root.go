package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

const exitCodesHelp = `Exit status:
  0    success
  1    invalid scenario, a run refused by a limit, or a failed run
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(newRunCmd(), newValidateCmd(), newSchemaCmd(), newScenariosCmd())
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
