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
in editors. Every field has its documentation there: the job (sources,
operators, sinks), the cluster (workers, network) and how long to run;
and for fault tolerance: operators' keyed state (state.bytes_per_key), the
state_backend (heap or rocksdb), checkpoint (mode none, stop-the-world,
aligned or unaligned; interval, timeout, tolerable_failures, incremental,
aligned_timeout, storage), sinks' delivery (at-least-once, at-most-once,
idempotent, transactional), restart (the restart strategy),
high_availability, workers.memory and workers.heartbeat_timeout, and
failures (scripted at a time, or random with an mtbf). 'dspalab run' then
reports delivery and recovery in summary.json and writes checkpoints.csv
and checkpoint_subtasks.csv.

In VS Code with the YAML extension (redhat.vscode-yaml):

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
