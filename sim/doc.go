// Package sim is dspalab's simulator of pipelined (Flink-like) stream
// processing: sources with arrival processes, operators with service-time
// distributions, sinks, and the network between them with Flink's
// credit-based flow control, so that back-pressure arises, travels upstream
// and can be measured as Flink measures it (busyTimeMsPerSecond,
// idleTimeMsPerSecond, backPressuredTimeMsPerSecond).
//
// The simulator is a library: it prints nothing, opens no file and starts no
// goroutine. A scenario arrives as a *scenario.Scenario; results leave as a
// Result, as rows handed to an Observer while the run goes on, and as
// encodings written to io.Writers (summary JSON, timeseries CSV, events
// JSONL). The same scenario and seed give byte-identical outputs.
//
// The modelled mechanisms and their sources:
//   - credit-based flow control: exclusive buffers per channel, floating
//     buffers per input gate, backlog announcements ("Credit-based
//     network flow control", Flink 1.5; "A Deep-Dive into Flink's Network
//     Stack", flink.apache.org blog, 2019);
//   - buffer timeout: a partially filled buffer is shipped at the latest one
//     buffer_timeout after its first record (Flink's output flusher);
//   - back-pressure monitoring: per-subtask busy / idle / back-pressured time
//     and the OK (<= 10%), LOW (<= 50%), HIGH thresholds of Flink's web UI
//     ("Monitoring Back Pressure", Flink documentation);
//   - aligned checkpoints: barriers injected at the sources travel with the
//     records; a subtask with several inputs blocks each input whose
//     barrier arrived until all have (asynchronous barrier snapshotting,
//     Carbone et al. 2015); snapshots take no time yet;
//   - key groups: key group = murmurHash(key) mod max parallelism, subtask =
//     key group * parallelism / max parallelism (Flink's
//     KeyGroupRangeAssignment).
//
// Simplifications, stated so that nobody mistakes them for Flink: every
// vertex is its own task (no operator chaining); channels inside one worker
// use the same credit protocol as remote ones, with zero latency and no
// bandwidth limit; the sender of an edge has a buffer pool of
// channels*buffers_per_channel + floating_buffers buffers, and a sent buffer
// returns to it when it reaches the receiver.
package sim
