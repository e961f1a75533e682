// Package runfiles owns the files of dspalab's output directories: their
// names, their columns, how they are written (all or nothing, under a
// lock, with a manifest of what was written) and how they are read back
// (regular files only, every read bounded, every value checked, errors
// naming file and line). `dspalab run` writes through it, `plot` and
// `report` read through it, and `sweep` names its files here.
//
// A run directory (`dspalab run --out DIR`) holds:
//
//	summary.json             the statistics (sim.Summary)
//	timeseries.csv           one row per vertex and subtask per metrics interval (sim.TimeseriesColumns)
//	events.jsonl             one JSON event a line (sim.Event)
//	checkpoints.csv          with checkpointing: one row per checkpoint that ended (sim.CheckpointColumns)
//	checkpoint_subtasks.csv  with checkpointing: one row per subtask acknowledgement (sim.CheckpointSubtaskColumns)
//	partitions.csv           of a job reading topics: one row per partition and reader per metrics interval (sim.PartitionColumns)
//	batches.csv              of a micro-batch run: one row per batch or trigger (microbatch.BatchColumns)
//	actions.jsonl            of a live or replayed run: its actions, for --replay
//	run.json                 the manifest: which of these files the run wrote, and whether it was complete
//
// A sweep directory (`dspalab sweep --out DIR`) holds sweep.csv and
// sweep.json, or sweep.partial.csv and sweep.partial.json beside a
// complete sweep that an interrupted one did not replace.
package runfiles

import "slices"

// Names of the files of a run directory.
const (
	SummaryFile    = "summary.json"
	TimeseriesFile = "timeseries.csv"
	EventsFile     = "events.jsonl"
	// ActionsFile holds the actions of a live or replayed run, one JSON
	// sim.Action a line: what --replay reads.
	ActionsFile = "actions.jsonl"
	// CheckpointsFile holds one row per checkpoint that ended
	// (sim.CheckpointColumns) of a scenario with checkpointing.
	CheckpointsFile = "checkpoints.csv"
	// CheckpointSubtasksFile holds one row per subtask that acknowledged a
	// checkpoint (sim.CheckpointSubtaskColumns), beside CheckpointsFile.
	CheckpointSubtasksFile = "checkpoint_subtasks.csv"
	// PartitionsFile holds one row per partition of a topic and reader
	// per metrics sample (sim.PartitionColumns) of a job reading topics.
	PartitionsFile = "partitions.csv"
	// BatchesFile holds one row per completed batch or trigger of a
	// micro-batch run (microbatch.BatchColumns).
	BatchesFile = "batches.csv"
	// ManifestFile is the manifest of a run (Manifest), written last: the
	// files the run wrote, which are the only ones a later run into the
	// same directory may remove, and the only ones plot and report read.
	ManifestFile = "run.json"
	// PartialDir is the subdirectory that receives the outputs of a
	// partial run (interrupted, quit, or stopped by a limit or an error)
	// whose output directory holds a complete run, which is kept.
	PartialDir = "partial"
)

// Names of the files of a sweep directory.
const (
	SweepFile         = "sweep.csv"  // one row per run
	SweepManifestFile = "sweep.json" // what was swept; written last
	// An interrupted sweep whose output directory holds a complete
	// sweep writes these instead, next to it, and leaves the complete
	// one as it was.
	SweepPartialFile         = "sweep.partial.csv"
	SweepPartialManifestFile = "sweep.partial.json"
)

// OutputFiles are the files every run writes, in order (Names adds the
// optional ones).
var OutputFiles = []string{SummaryFile, TimeseriesFile, EventsFile}

// optionalFiles are the files only some runs write: ActionsFile for a live
// or replayed run, the checkpoint files with checkpointing,
// PartitionsFile with topics.
var optionalFiles = []string{ActionsFile, CheckpointsFile, CheckpointSubtasksFile, PartitionsFile, BatchesFile}

// MicroBatchNames are the files of a micro-batch run (engine
// spark-streaming or structured-streaming): OutputFiles, ActionsFile for
// a live or replayed run (actions), and BatchesFile.
func MicroBatchNames(actions bool) []string {
	names := slices.Clone(OutputFiles)
	if actions {
		names = append(names, ActionsFile)
	}
	return append(names, BatchesFile)
}

// Contents says which optional files a run writes (Names).
type Contents struct {
	Actions     bool // a live or replayed run: ActionsFile
	Checkpoints bool // with checkpointing: CheckpointsFile and CheckpointSubtasksFile
	Topics      bool // a job reading topics: PartitionsFile
}

// Names are the files of a run: OutputFiles, then the optional files c
// asks for, in the order of optionalFiles. ManifestFile comes with every
// run and is not among them.
func Names(c Contents) []string {
	names := slices.Clone(OutputFiles)
	if c.Actions {
		names = append(names, ActionsFile)
	}
	if c.Checkpoints {
		names = append(names, CheckpointsFile, CheckpointSubtasksFile)
	}
	if c.Topics {
		names = append(names, PartitionsFile)
	}
	return names
}

// TimeseriesKeyColumns are the columns of timeseries.csv that are not
// metrics: they say which vertex or subtask a row is of, and when.
var TimeseriesKeyColumns = []string{"time_s", "vertex", "kind", "subtask", "status"}

// Fixed columns of sweep.csv: the run's number in the grid comes first,
// then one column per parameter (named by its path), then the seed, then
// the metric columns; SweepPartialColumn is "true" in the row of a run
// stopped before its end (by --max-queued).
const (
	SweepRunColumn     = "run"
	SweepSeedColumn    = "seed"
	SweepPartialColumn = "partial"
)

// OwnedNames are the names dspalab gives the entries of a run directory:
// ManifestFile, every output file (OutputFiles and the optional ones) and
// PartialDir. Another command writing into a run directory (report, plot)
// must not take one of them: it would replace an input of the run.
func OwnedNames() []string {
	names := append(slices.Clone(OutputFiles), optionalFiles...)
	return append(names, ManifestFile, PartialDir)
}
