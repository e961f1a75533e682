package main

import (
	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/scenarios"
)

func newScenariosCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the built-in scenarios",
		Long: `List the built-in scenarios: each name with its description. Run one with
'dspalab run NAME'; print its YAML, whose opening comment says what to look
at, with 'dspalab scenarios show NAME'.`,
		Args: usage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runner.ListScenarios(cmd.OutOrStdout())
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "show NAME",
		Short:   "Print the YAML of a built-in scenario",
		Example: "  dspalab scenarios show backpressure > my.yaml   # a starting point for your own",
		Args:    needArgs(1, 1, "the name of a built-in scenario", "dspalab scenarios lists them"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return scenarios.Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runner.ShowScenario(cmd.OutOrStdout(), args[0])
		},
	})
	return cmd
}
