package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/sim/scenario"
)

func newSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the scenario format",
		Long: `Print the JSON Schema of the scenario format, for completion and checks
in editors. In VS Code with the YAML extension (redhat.vscode-yaml):

  dspalab schema > dspalab.schema.json

then put this first line in a scenario:

  # yaml-language-server: $schema=./dspalab.schema.json

or map files to it in .vscode/settings.json:

  "yaml.schemas": {"./dspalab.schema.json": ["scenarios/*.yaml"]}`,
		Args: usage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := cmd.OutOrStdout().Write(scenario.JSONSchema()); err != nil {
				return fmt.Errorf("printing the schema: %w", err)
			}
			return nil
		},
	}
}
