// Package tui is dspalab's live view: a bubbletea terminal UI that runs a
// simulation while the user watches, the way Flink's web UI shows a real
// job, but slowed down, paused and poked at will (dspalab watch, dspalab
// run --tui).
//
// The simulator is single-threaded, so the simulation runs on a goroutine
// of its own (the engine), never inside bubbletea's Update: the engine
// advances simulated time at the chosen speed (any from 0.1× to 1000×, or
// as fast as possible), applies the user's commands between two steps (pause, step,
// speed, restart, and actions injected with sim.Sim.Inject), and hands the
// UI immutable snapshots, at most 30 a wall second, the latest replacing
// one not yet drawn. The model draws the job graph in topological order,
// one row per task as Flink's web UI draws one node per job vertex (an
// operator chain is one row, "enrich -> out", its operators listed under
// it): rates, busy and back-pressured time, input-buffer occupancy,
// back-pressure status in Flink's colours; scrolled when it does not fit;
// the subtasks of the selected task (busy, back-pressured and idle time),
// sparklines of throughput and p99 latency over the last minute of
// simulated time, a checkpoint timeline, the simulator's delivery counters
// (emitted, delivered, duplicated, lost), source lag and the event log
// (failures, restarts, recoveries, failed checkpoints); for a job with
// event time, a watermark pane: each vertex's watermark, its lag behind
// processing time, its late records dropped and the input that holds it
// back (watermarks.go, from sim.Sim.Watermarks). f and F fail the
// selected subtask or its worker; the header then says what the job is
// going through (a worker down and not noticed yet, RESTARTING, JOB FAILED,
// JOB LOST) and the subtasks that are not running show DOWN (a bar of
// ×), their vertices DOWN* (their figures averages). q quits;
// ctrl+c is an interrupt, as SIGINT is for dspalab run (Options.Interrupt).
//
// Files: engine.go (the simulation's goroutine), snapshot.go (the observer
// and the snapshots), graph.go (the job graph read from the scenario),
// model.go (the bubbletea model), components.go (drawing),
// watermarks.go (the watermark pane), batches.go and batches_view.go
// (a micro-batch run's batch timeline and PID rate: RunBatches, from
// microbatch.Sim.Timeline), keymap.go,
// styles.go, messages.go, run.go (Run).
package tui
