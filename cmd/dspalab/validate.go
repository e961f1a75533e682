package main

import (
	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/scenarios"
)

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check scenario files without running them",
		Long: `Check scenario files (or built-in scenario names) without running them.

Each valid one prints "FILE: ok" on stdout. Every problem of the others is
printed on stderr as "file:line:col: field.path: message", the format of
compilers, so editors and terminals can jump to it: unknown fields (with the
nearest valid name), wrong types, bad units, out-of-range values, and job
graph errors (dangling inputs, cycles, forward edges between different
parallelisms).

Exit status: 0 when all are valid, 1 otherwise, 2 without arguments.`,
		Example: `  dspalab validate my.yaml
  dspalab validate exercises/*.yaml backpressure`,
		Args: usage(cobra.MinimumNArgs(1)),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return scenarios.Names(), cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runner.Validate(cmd.OutOrStdout(), cmd.ErrOrStderr(), args)
		},
	}
}
