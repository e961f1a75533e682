package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/sim/scenario"
)

// schemaOptions are the flags of dspalab schema.
type schemaOptions struct {
	reference bool
}

func newSchemaCmd() *cobra.Command {
	var o schemaOptions
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the scenario format",
		Long: `Print the JSON Schema of the scenario format, for completion and checks
in editors. Every field has its documentation there: what it is, its unit,
its default, its bounds, the values it takes with a line on each, the
variant it applies to (fields of process bursty, of checkpoint mode
unaligned, of one failure kind) and the Flink setting it stands for. The
schema, the checks of 'dspalab validate' and the field reference of the
authoring guide come from one description of the format, so they agree.

With --reference, print that field reference in Markdown instead: a table
per block of the format (workers, network, sources[], checkpoint, ...).

In VS Code with the YAML extension (redhat.vscode-yaml):

  dspalab schema > dspalab.schema.json

then put this first line in a scenario:

  # yaml-language-server: $schema=./dspalab.schema.json

or map files to it in .vscode/settings.json:

  "yaml.schemas": {"./dspalab.schema.json": ["scenarios/*.yaml"]}`,
		Example: `  dspalab schema > dspalab.schema.json
  dspalab schema --reference | less`,
		Args: usage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runSchema(cmd, o) },
	}
	cmd.Flags().BoolVar(&o.reference, "reference", false, "print the field reference in Markdown instead of the JSON Schema")
	return cmd
}

func runSchema(cmd *cobra.Command, o schemaOptions) error {
	out := scenario.JSONSchema()
	if o.reference {
		out = []byte(scenario.ReferenceMarkdown())
	}
	if _, err := cmd.OutOrStdout().Write(out); err != nil {
		return fmt.Errorf("printing the schema: %w", err)
	}
	return nil
}
