package scenario

import (
	"strings"
	"testing"
)

// errorCases are scenarios with mistakes and the exact errors Parse
// reports for them, in order.
var errorCases = []struct {
	name string
	yaml string
	want []string // empty: the scenario is valid
}{
	// the JSON Schema says string: a bare number or boolean is refused as
	// an editor checking the schema refuses it; quoted, it is the text
	{"a number tagged so, quoted, and text tagged so, bare", `name: !!int "5"
duration: 10s
sources:
  - name: !!str 7
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: "7"
`,
		[]string{
			`t.yaml:1:7: name: expected a string, got 5; write it in quotes ("5") to mean the text`,
		}},
	{"a number or a boolean where a string goes", `name: 5
duration: 10s
sources:
  - name: 7
    arrival: {process: constant, rate: 10/s}
  - name: "8"
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: 8
    delivery: true
  - name: log
    inputs: ["8", 7]
failures:
  - {at: 1s, kind: task, vertex: 2.5}
`,
		[]string{
			`t.yaml:1:7: name: expected a string, got 5; write it in quotes ("5") to mean the text`,
			`t.yaml:4:11: sources[0].name: expected a string, got 7; write it in quotes ("7") to mean the text`,
			`t.yaml:10:12: sinks[0].input: expected a string, got 8; write it in quotes ("8") to mean the text`,
			`t.yaml:11:15: sinks[0].delivery: unknown delivery "true"; expected at-least-once, at-most-once, idempotent or transactional`,
			`t.yaml:13:19: sinks[1].inputs[1]: expected a vertex name, got 7; write it in quotes ("7") to mean the text`,
			`t.yaml:15:34: failures[0].vertex: expected a string, got 2.5; write it in quotes ("2.5") to mean the text`,
		}},
	// the refused file is the one error: not also "give a dataset or a file"
	{"a trace file written as a number", `duration: 10s
sources:
  - name: src
    arrival: {process: trace, trace: {file: 2024, columns: [t], time_column: t, time_unit: s}}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:4:45: sources[0].arrival.trace.file: expected a string, got 2024; write it in quotes ("2024") to mean the text`,
		}},
	// nor "unknown topic; the scenario declares no topics" for the topic
	// whose name was refused
	{"a topic named by a number", "duration: 10s\ntopics:\n  - name: 8\nsources:\n  - name: app\n    arrival: {process: constant, rate: 10/s}\n    writes: {topic: \"8\"}\n  - name: src\n    arrival: {process: constant, rate: 10/s}\nsinks:\n  - name: out\n    input: src\n",
		[]string{
			`t.yaml:3:11: topics[0].name: expected a string, got 8; write it in quotes ("8") to mean the text`,
		}},
	{"an interval under Flink's minimum checkpoint interval", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
checkpoint: {mode: aligned, interval: 1ms}
`,
		[]string{
			`t.yaml:8:39: checkpoint.interval: must be at least 10ms (Flink's minimum checkpoint interval), got 1ms`,
		}},
	{"queues: zero sizes, an unknown queue, a queue with no producer, a producer of both", `duration: 10s
queues:
  - name: orders
    memory_bound: 0
    delivery_cost: 0s
    visibility_timeout: 0s
  - name: idle
    page_in_cost: -1ms
topics:
  - name: clicks
sources:
  - name: app
    arrival: {process: constant, rate: 10/s}
    writes: {queue: ordres}
  - name: both
    arrival: {process: constant, rate: 10/s}
    writes: {topic: clicks, queue: orders, partitioner: sticky}
  - name: etl
    arrival: {process: queue, queue: order}
    shedding: {lag_over: 10}
sinks:
  - name: out
    input: etl
  - name: pub
    input: etl
    writes: {queue: orders}
`,
		[]string{
			`t.yaml:4:19: queues[0].memory_bound: must be at least 1 (a broker holds some messages in memory), got 0`,
			`t.yaml:5:20: queues[0].delivery_cost: must be greater than 0 (a broker takes time to deliver a message), got 0s`,
			`t.yaml:6:25: queues[0].visibility_timeout: must be greater than 0, got 0s`,
			`t.yaml:7:11: queues[1].name: queue "idle" has no producer: give a source writes: {queue: idle}`,
			`t.yaml:8:19: queues[1].page_in_cost: must not be negative, got -1ms`,
			`t.yaml:14:21: sources[0].writes.queue: unknown queue "ordres"; did you mean "orders"?`,
			`t.yaml:17:36: sources[1].writes.queue: a producer writes one topic or one queue, not both (topic clicks is given)`,
			`t.yaml:19:38: sources[2].arrival.queue: unknown queue "order"; did you mean "orders"?`,
			`t.yaml:20:15: sources[2].shedding: load shedding at a queue's consumer is not simulated: shed at a source that reads a log or a topic`,
			`t.yaml:26:21: sinks[1].writes.queue: a sink publishing to a queue is not simulated yet: publish with a producer source (writes: {queue: orders})`,
		}},
	{"a topic's retention.size of 0 (leave it out for no limit) and a partition count echoed as written", `duration: 10s
topics:
  - name: clicks
    partitions: 1000000000
    retention: {size: 0B}
sources:
  - name: app
    arrival: {process: constant, rate: 10/s}
    writes: {topic: clicks}
  - name: etl
    arrival: {process: topic, topic: clicks}
sinks:
  - name: out
    input: etl
`,
		[]string{
			`t.yaml:4:17: topics[0].partitions: must be at most 100000, got 1000000000`,
			`t.yaml:5:23: topics[0].retention.size: must be greater than 0 (leave size out for no limit, as Kafka's retention.bytes -1), got 0B`,
		}},
	{"zipf with too many keys", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
    keys: {count: 20000000, distribution: zipf}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:5:19: sources[0].keys.count: must be at most 10000000 for zipf (the simulator keeps a table of every key's share), got 20000000`,
		}},
	{"unknown field with suggestion", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: op
    input: src
    paralelism: 2
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: op
`,
		[]string{
			`t.yaml:8:5: operators[0].paralelism: unknown field "paralelism"; did you mean "parallelism"?`,
		}},
	{"unknown field without suggestion", `duration: 10s
colour: blue
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:2:1: colour: unknown field "colour"; valid fields are name, description, seed, duration, warmup, engine, spark, chaining, workers, network, sources, operators, sinks, topics, queues, consumer_groups, metrics, checkpoint, state_backend, restart, high_availability, failures`,
		}},
	{"case and dash typos", `Duration: 10s
sources:
  - name: src
    record-size: 1KiB
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:1:1: Duration: unknown field "Duration"; did you mean "duration"?`,
			`t.yaml:4:5: sources[0].record-size: unknown field "record-size"; did you mean "record_size"?`,
		}},
	{"wrong types", `duration: 10s
name: {a: 1}
workers: [1, 2]
sources:
  - name: src
    parallelism: 2.5
    replayable: yes
    arrival: {process: constant, rate: 10/s}
    keys: {count: many, exponent: true}
operators:
  - name: op
    input: src
    selectivity: high
    service_time: 5ms
sinks:
  - name: out
    input: op
`,
		[]string{
			`t.yaml:2:7: name: expected a string, got a mapping`,
			`t.yaml:3:10: workers: expected a mapping, got a list`,
			`t.yaml:6:18: sources[0].parallelism: expected a whole number, got 2.5`,
			`t.yaml:7:17: sources[0].replayable: expected true or false, got "yes"`,
			`t.yaml:9:19: sources[0].keys.count: expected a whole number, got "many"`,
			`t.yaml:9:35: sources[0].keys.exponent: expected a number, got true`,
			`t.yaml:13:18: operators[0].selectivity: expected a number, got "high"`,
			`t.yaml:14:19: operators[0].service_time: expected a mapping, got "5ms"`,
		}},
	{"bare number sizes", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
    record_size: 8
operators:
  - name: op
    input: src
    partitioning: hash
    service_time: {distribution: constant, mean: 5ms}
    state: {bytes_per_key: 1.5}
sinks:
  - name: out
    input: op
network: {buffer_size: 32}
workers: {memory: 512}
`,
		[]string{
			`t.yaml:5:18: sources[0].record_size: expected a size such as 100B or 32KiB, got "8" (a number needs a unit, such as 8B or 8MiB)`,
			`t.yaml:11:28: operators[0].state.bytes_per_key: expected a size such as 100B or 32KiB, got "1.5" (a number needs a unit, such as 1.5B or 1.5MiB)`,
			`t.yaml:15:24: network.buffer_size: expected a size such as 100B or 32KiB, got "32" (a number needs a unit, such as 32B or 32MiB)`,
			`t.yaml:16:19: workers.memory: expected a size such as 100B or 32KiB, got "512" (a number needs a unit, such as 512B or 512MiB)`,
		}},
	{"bad unit strings", `duration: 10 seconds
sources:
  - name: src
    arrival: {process: constant, rate: 10}
    record_size: 1 ton
operators:
  - name: op
    input: src
    service_time: {distribution: constant, mean: 25 parsecs}
sinks:
  - name: out
    input: op
    network: {bandwidth: 1Gbit, buffer_size: 32KB/s}
`,
		[]string{
			`t.yaml:1:11: duration: expected a duration such as 250ms or 2s, got "10 seconds" (unknown unit "seconds"; units are ns, us (or µs), ms, s (or sec), m (or min) and h)`,
			`t.yaml:4:40: sources[0].arrival.rate: expected a rate such as 100/s or 6000/min, got "10" (a number needs a unit)`,
			`t.yaml:5:18: sources[0].record_size: expected a size such as 100B or 32KiB, got "1 ton" (unknown unit "ton"; units are B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024))`,
			`t.yaml:9:50: operators[0].service_time.mean: expected a duration such as 250ms or 2s, got "25 parsecs" (unknown unit "parsecs"; units are ns, us (or µs), ms, s (or sec), m (or min) and h)`,
			`t.yaml:13:26: sinks[0].network.bandwidth: expected a bandwidth such as 1Gbit/s or 125MB/s, got "1Gbit" (missing "/s" after "Gbit")`,
			`t.yaml:13:46: sinks[0].network.buffer_size: expected a size such as 100B or 32KiB, got "32KB/s" (unknown unit "KB/s"; units are B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024))`,
		}},
	{"unknown enum values", `duration: 10s
network: {capacity: infinite}
sources:
  - name: src
    arrival: {process: replay, rate: 10/s}
    keys: {distribution: zipfian}
operators:
  - name: op
    input: src
    partitioning: hsah
    service_time: {distribution: exponentail, mean: 1ms}
sinks:
  - name: out
    input: op
    partitioning: keyBy
`,
		[]string{
			`t.yaml:2:21: network.capacity: unknown capacity "infinite"; expected bounded or unbounded`,
			`t.yaml:5:24: sources[0].arrival.process: unknown process "replay"; expected constant, poisson, bursty, schedule, trace, topic or queue`,
			`t.yaml:6:26: sources[0].keys.distribution: unknown distribution "zipfian"; expected uniform or zipf`,
			`t.yaml:10:19: operators[0].partitioning: unknown partitioning "hsah"; did you mean "hash"?`,
			`t.yaml:11:34: operators[0].service_time.distribution: unknown distribution "exponentail"; did you mean "exponential"?`,
			`t.yaml:15:19: sinks[0].partitioning: unknown partitioning "keyBy"; expected forward, rebalance, hash, broadcast or rescale`,
		}},
	{"missing required fields", `sources:
  - arrival: {rate: 10/s}
  - name: src2
operators:
  - name: op
    input: src2
  - name: op2
    service_time: {distribution: uniform, min: 1ms}
sinks:
  - name: out
    input: op
`,
		[]string{
			`t.yaml:1:1: missing required field "duration"`,
			`t.yaml:2:5: sources[0]: missing required field "name"`,
			`t.yaml:2:14: sources[0].arrival: missing required field "process"`,
			`t.yaml:3:5: sources[1]: missing required field "arrival"`,
			`t.yaml:5:5: operators[0]: missing required field "service_time"`,
			`t.yaml:7:5: operators[1]: missing required field "input" (or "inputs" for several)`,
			`t.yaml:8:19: operators[1].service_time: missing required field "max" for distribution uniform`,
		}},
	{"missing per variant", `duration: 10s
sources:
  - name: a
    arrival: {process: constant}
  - name: b
    arrival: {process: bursty, rate: 10/s}
  - name: c
    arrival: {process: schedule}
  - name: d
    arrival:
      process: schedule
      schedule:
        - {at: 0s}
        - {rate: 5/s}
sinks:
  - name: out
    inputs: [a, b, c, d]
    service_time: {distribution: lognormal, mean: 1ms}
`,
		[]string{
			`t.yaml:4:14: sources[0].arrival: missing required field "rate" for process constant`,
			`t.yaml:6:14: sources[1].arrival: missing required field "on_time" for process bursty`,
			`t.yaml:6:14: sources[1].arrival: missing required field "off_time" for process bursty`,
			`t.yaml:8:14: sources[2].arrival: missing required field "schedule" for process schedule`,
			`t.yaml:13:11: sources[3].arrival.schedule[0]: missing required field "rate"`,
			`t.yaml:14:11: sources[3].arrival.schedule[1]: missing required field "at"`,
			`t.yaml:18:19: sinks[0].service_time: missing required field "stddev" for distribution lognormal`,
		}},
	{"fields that do not apply", `duration: 10s
sources:
  - name: a
    arrival: {process: constant, rate: 10/s, on_time: 1s, schedule: []}
    keys: {exponent: 1.2}
  - name: b
    on_backpressure: drop
    buffer_limit: 10
    arrival: {process: poisson, rate: 10/s}
  - name: c
    replayable: false
    on_backpressure: drop
    buffer_limit: 10
    arrival: {process: poisson, rate: 10/s}
operators:
  - name: op
    inputs: [a, b, c]
    service_time: {distribution: exponential, mean: 1ms, stddev: 1ms}
sinks:
  - name: out
    input: op
    selectivity: 0.5
`,
		[]string{
			`t.yaml:4:46: sources[0].arrival.on_time: "on_time" applies only to process bursty, not constant`,
			`t.yaml:4:59: sources[0].arrival.schedule: "schedule" applies only to process schedule, not constant`,
			`t.yaml:5:12: sources[0].keys.exponent: "exponent" applies only to distribution zipf, not uniform (the default)`,
			`t.yaml:7:5: sources[1].on_backpressure: "on_backpressure" applies only to sources with replayable: false (a replayable source turns back-pressure into lag)`,
			`t.yaml:13:5: sources[2].buffer_limit: "buffer_limit" applies only to on_backpressure: buffer, not drop`,
			`t.yaml:18:58: operators[0].service_time.stddev: "stddev" applies only to distribution lognormal, not exponential`,
			`t.yaml:22:5: sinks[0].selectivity: a sink has no output, so no selectivity`,
		}},
	{"zero and negative values", `duration: 0s
workers: {count: 0, slots: -1}
network: {buffer_size: 0B, buffers_per_channel: 0, floating_buffers: -1, buffer_timeout: -1ms, latency: -1ms, bandwidth: 0}
metrics: {interval: 0}
sources:
  - name: src
    parallelism: 0
    arrival: {process: bursty, rate: 0/s, off_rate: -1/s, on_time: 0s, off_time: -1s}
    keys: {count: 0, distribution: zipf, exponent: 0}
    record_size: 0
  - name: src2
    replayable: false
    on_backpressure: buffer
    buffer_limit: 0
    arrival: {process: constant, rate: 2e9/s}
operators:
  - name: op
    inputs: [src, src2]
    parallelism: -2
    max_parallelism: 0
    selectivity: -0.5
    service_time: {distribution: exponential, mean: 0s}
sinks:
  - name: out
    input: op
    max_parallelism: 40000
    service_time: {distribution: lognormal, mean: 1ms, stddev: 0s}
`,
		[]string{
			`t.yaml:1:11: duration: must be greater than 0, got 0s`,
			`t.yaml:2:18: workers.count: must be at least 1, got 0`,
			`t.yaml:2:28: workers.slots: must be at least 1, got -1`,
			`t.yaml:3:24: network.buffer_size: must be greater than 0, got 0B`,
			`t.yaml:3:49: network.buffers_per_channel: must be at least 1, got 0`,
			`t.yaml:3:70: network.floating_buffers: must be at least 0, got -1`,
			`t.yaml:3:90: network.buffer_timeout: must not be negative, got -1ms`,
			`t.yaml:3:105: network.latency: must not be negative, got -1ms`,
			`t.yaml:3:122: network.bandwidth: must be greater than 0, got 0B/s`,
			`t.yaml:4:21: metrics.interval: must be at least 1ms (each interval writes a metrics row per subtask), got 0s`,
			`t.yaml:7:18: sources[0].parallelism: must be at least 1, got 0`,
			`t.yaml:8:38: sources[0].arrival.rate: must be greater than 0, got 0/s`,
			`t.yaml:8:53: sources[0].arrival.off_rate: must not be negative, got -1/s`,
			`t.yaml:8:68: sources[0].arrival.on_time: must be greater than 0, got 0s`,
			`t.yaml:8:82: sources[0].arrival.off_time: must be greater than 0, got -1s`,
			`t.yaml:9:19: sources[0].keys.count: must be at least 1, got 0`,
			`t.yaml:9:52: sources[0].keys.exponent: must be greater than 0, got 0`,
			`t.yaml:10:18: sources[0].record_size: must be greater than 0, got 0B`,
			`t.yaml:14:19: sources[1].buffer_limit: must be at least 1, got 0`,
			`t.yaml:15:40: sources[1].arrival.rate: must be at most 1e9/s per subtask (one record per nanosecond), got 2e9/s`,
			`t.yaml:19:18: operators[0].parallelism: must be at least 1, got -2`,
			`t.yaml:20:22: operators[0].max_parallelism: must be at least 1, got 0`,
			`t.yaml:21:18: operators[0].selectivity: must be at least 0 (output records per input record), got -0.5`,
			`t.yaml:22:53: operators[0].service_time.mean: must be greater than 0, got 0s`,
			`t.yaml:26:22: sinks[0].max_parallelism: must be at most 32768, got 40000`,
			`t.yaml:27:64: sinks[0].service_time.stddev: must be greater than 0, got 0s`,
		}},
	{"zero allowed where it means something", `duration: 10s
network: {buffer_timeout: 0, latency: 0s, floating_buffers: 0}
sources:
  - name: src
    arrival:
      process: schedule
      schedule:
        - {at: 0, rate: 0}
        - {at: 5s, rate: 10/s}
  - name: src2
    arrival: {process: bursty, rate: 10/s, off_rate: 0, on_time: 1s, off_time: 1s}
operators:
  - name: op
    inputs: [src, src2]
    selectivity: 0
    service_time: {distribution: uniform, min: 0s, max: 0s}
sinks:
  - name: out
    input: op
    service_time: {mean: 0s}
`,
		[]string{}},
	{"warmup not shorter than duration", `duration: 10s
warmup: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:2:9: warmup: must be shorter than duration (10s), got 10s`,
		}},
	{"duplicate names and fields", `duration: 10s
duration: 20s
sources:
  - name: x
    arrival: {process: constant, rate: 10/s}
operators:
  - name: x
    input: x
    service_time: {mean: 1ms}
sinks:
  - name: out
    name: out2
    input: x
`,
		[]string{
			`t.yaml:2:1: duration: duplicate field "duration"; first given at line 1`,
			`t.yaml:7:11: operators[0].name: duplicate vertex name "x"; first declared at line 4`,
			`t.yaml:12:5: sinks[0].name: duplicate field "name"; first given at line 11`,
		}},
	{"dangling inputs and sink inputs", `duration: 10s
sources:
  - name: sensors
    input: nowhere
    arrival: {process: constant, rate: 10/s}
operators:
  - name: parse
    input: sensor
    service_time: {mean: 1ms}
  - name: enrich
    inputs: [parse, out, zzz, parse]
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: enrich
`,
		[]string{
			`t.yaml:4:5: sources[0].input: a source has no input; it reads records from outside the job`,
			`t.yaml:8:12: operators[0].input: unknown vertex "sensor"; did you mean "sensors"?`,
			`t.yaml:11:21: operators[1].inputs[1]: "out" is a sink; a sink has no output to read from`,
			`t.yaml:11:26: operators[1].inputs[2]: unknown vertex "zzz"; vertices are sensors, parse, enrich, out`,
			`t.yaml:11:31: operators[1].inputs[3]: "parse" is listed twice`,
		}},
	{"input and inputs", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: op
    input: src
    inputs: [src]
    service_time: {mean: 1ms}
  - name: op2
    inputs: []
    service_time: {mean: 1ms}
  - name: op3
    inputs: src
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: [op]
`,
		[]string{
			`t.yaml:8:5: operators[0].inputs: give either input or inputs, not both`,
			`t.yaml:11:13: operators[1].inputs: expected at least one vertex name`,
			`t.yaml:14:13: operators[2].inputs: expected a list of vertex names such as [a, b], got "src"`,
			`t.yaml:18:12: sinks[0].input: expected one vertex name, got a list; use inputs: [a, b] for several`,
		}},
	{"cycles", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: a
    inputs: [src, c]
    service_time: {mean: 1ms}
  - name: b
    input: a
    service_time: {mean: 1ms}
  - name: c
    input: b
    service_time: {mean: 1ms}
  - name: self
    input: self
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: c
`,
		[]string{
			`t.yaml:7:19: operators[0].inputs[1]: cycle in the job graph: a -> b -> c -> a`,
			`t.yaml:16:12: operators[3].input: cycle in the job graph: self -> self`,
		}},
	{"forward with unequal parallelism", `duration: 10s
workers: {count: 2, slots: 4}
sources:
  - name: src
    parallelism: 2
    arrival: {process: constant, rate: 10/s}
operators:
  - name: fwd
    input: src
    partitioning: forward
    parallelism: 3
    service_time: {mean: 1ms}
  - name: resc
    input: fwd
    partitioning: rescale
    parallelism: 6
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: resc
`,
		[]string{
			`t.yaml:10:19: operators[0].partitioning: forward needs equal parallelism, but "src" has 2 and "fwd" has 3; use rebalance, rescale or hash`,
		}},
	{"schedule order", `duration: 10s
sources:
  - name: src
    arrival:
      process: schedule
      schedule:
        - {at: 1s, rate: 10/s}
        - {at: 5s, rate: 20/s}
        - {at: 5s, rate: 30/s}
        - {at: 2s, rate: 30/s}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:7:16: sources[0].arrival.schedule[0].at: the first step must be at 0s, got 1s`,
			`t.yaml:9:16: sources[0].arrival.schedule[2].at: steps must be in increasing order of at, but 5s is not after 5s`,
			`t.yaml:10:16: sources[0].arrival.schedule[3].at: steps must be in increasing order of at, but 2s is not after 5s`,
		}},
	{"uniform min greater than max", `duration: 10s
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: op
    input: src
    service_time: {distribution: uniform, min: 30ms, max: 20ms}
sinks:
  - name: out
    input: op
`,
		[]string{
			`t.yaml:8:59: operators[0].service_time.max: must not be less than min (30ms), got 20ms`,
		}},
	{"no source and no sink", `duration: 10s
operators: []
`,
		[]string{
			`t.yaml:1:1: sources: the job has no source; add one under sources`,
			`t.yaml:1:1: sinks: the job has no sink; add one under sinks`,
		}},
	{"empty source and sink lists", `duration: 10s
sources: []
sinks:
`,
		[]string{
			`t.yaml:2:10: sources: the job has no source; add one under sources`,
			`t.yaml:3:7: sinks: the job has no sink; add one under sinks`,
		}},
	{"not enough slots", `duration: 10s
workers: {count: 2, slots: 4}
sources:
  - name: src
    parallelism: 4
    arrival: {process: constant, rate: 10/s}
operators:
  - name: op
    input: src
    parallelism: 16
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: op
    parallelism: 9
`,
		[]string{
			`t.yaml:10:18: operators[0].parallelism: needs 16 slots, the cluster has 8 (workers.count 2 x workers.slots 4)`,
		}},
	{"null values", `duration:
name:
sources:
  - name: src
    parallelism:
    arrival:
sinks:
  - name: out
    input:
`,
		[]string{
			`t.yaml:1:10: duration: expected a duration such as 250ms or 2s, got nothing`,
			`t.yaml:2:6: name: expected a string, got nothing`,
			`t.yaml:5:17: sources[0].parallelism: expected a whole number, got nothing`,
			`t.yaml:6:13: sources[0].arrival: missing required field "process"`,
			`t.yaml:9:11: sinks[0].input: expected a string, got nothing`,
		}},
	{"top level not a mapping", `- duration: 10s
`,
		[]string{
			`t.yaml:1:1: expected a mapping with fields such as duration, sources and sinks at the top level, got a list`,
		}},
	{"source not a mapping", `duration: 10s
sources:
  - src
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:3:5: sources[0]: expected a mapping, got "src"`,
		}},
	// issue 13 F19: the message said "got 976562500000KiB".
	{"huge record size", `duration: 10s
sources:
  - name: src
    record_size: 1000TB
    arrival: {process: constant, rate: 10/s}
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:4:18: sources[0].record_size: must be at most 1GiB, got 1000TB`,
		}},
	{"syntax error", `duration: 10s
sources: [
`,
		[]string{
			`t.yaml:3:1: invalid YAML: did not find expected node content`,
		}},
	// yaml.v3 says "line 4" for this (the 0-based line of the {): the
	// error is at the token where the mapping should have closed.
	{"unclosed flow mapping", `duration: 10s
sources:
  - name: src
    parallelism: 2
    arrival: {process: constant, rate: 10/s
    keys: {count: 10}
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:6:9: invalid YAML: did not find expected ',' or '}' (in the flow mapping that starts at 5:14)`,
		}},
	{"mapping value in a plain value", "duration: 10s\nsources: a: b\n",
		[]string{
			`t.yaml:2:11: invalid YAML: mapping values are not allowed in this context`,
		}},
	{"unclosed quote", "duration: 10s\nname: 'abc\nsources: []\n",
		[]string{
			`t.yaml:4:1: invalid YAML: found unexpected end of stream (in the quoted scalar that starts at 2:7)`,
		}},
	{"tab indentation", "duration: 10s\nsources:\n\t- name: src\n",
		[]string{
			`t.yaml:3:1: invalid YAML: found character that cannot start any token (tabs are not allowed in indentation; use spaces)`,
		}},
	{"empty document", ``,
		[]string{
			`t.yaml:1:1: the scenario is empty; it needs at least duration, sources and sinks`,
		}},
	{"only comments", `# nothing here
`,
		[]string{
			`t.yaml:1:1: the scenario is empty; it needs at least duration, sources and sinks`,
		}},
	{"null document", `~
`,
		[]string{
			`t.yaml:1:1: the scenario is empty; it needs at least duration, sources and sinks`,
		}},
	{"two documents", `duration: 10s
---
duration: 20s
`,
		[]string{
			`t.yaml:2:1: a scenario file holds one YAML document, found a second one (remove the ---)`,
		}},
	{"invalid utf-8", "duration: 10s\nname: \xff\n",
		[]string{
			`t.yaml:2:7: invalid YAML: the file is not valid UTF-8 text`,
		}},
	{"too large numbers", `duration: 10s
seed: -1
sources:
  - name: src
    parallelism: 99999999999
    arrival: {process: constant, rate: 10/s}
    keys: {count: 1, distribution: zipf, exponent: .inf}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:2:7: seed: expected a whole number from 0 to 18446744073709551615, got -1`,
			`t.yaml:5:18: sources[0].parallelism: expected a whole number, got 99999999999, which is too large (at most 2147483647)`,
			`t.yaml:7:52: sources[0].keys.exponent: expected a finite number, got .inf`,
		}},
	{"quoted and huge whole numbers", `duration: 10s
workers: {count: "2", slots: 1e3}
sources:
  - name: src
    parallelism: 99999999999999999999999
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
`,
		[]string{
			`t.yaml:2:18: workers.count: expected a whole number, got "2"`,
			`t.yaml:2:30: workers.slots: expected a whole number, got 1e3`,
			`t.yaml:5:18: sources[0].parallelism: expected a whole number, got 99999999999999999999999, which is too large (at most 2147483647)`,
		}},
	{"bad names", `duration: 10s
sources:
  - name: my source
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: ""
    input: my source
`,
		[]string{
			`t.yaml:3:11: sources[0].name: expected a name of ASCII letters, digits, _, - and . such as parse_2, got "my source"`,
			`t.yaml:6:11: sinks[0].name: must not be empty`,
		}},
	{"names not ASCII or starting with - or .", `duration: 10s
sources:
  - name: δεδομένα
    arrival: {process: constant, rate: 10/s}
operators:
  - name: -parse
    input: δεδομένα
    service_time: {mean: 1ms}
sinks:
  - name: .out
    input: -parse
`,
		[]string{
			`t.yaml:3:11: sources[0].name: expected a name of ASCII letters, digits, _, - and . such as parse_2, got "δεδομένα"`,
			`t.yaml:6:11: operators[0].name: must not start with - or . (it would read as a flag or a hidden file), got "-parse"`,
			`t.yaml:10:11: sinks[0].name: must not start with - or . (it would read as a flag or a hidden file), got ".out"`,
		}},
	{"old bursty field names", `duration: 10s
sources:
  - name: src
    arrival: {process: bursty, rate: 10/s, on: 1s, off: 3s}
  - name: src2
    arrival:
      process: bursty
      rate: 10/s
      On: 1s
      offtime: 3s
sinks:
  - name: out
    inputs: [src, src2]
`,
		[]string{
			`t.yaml:4:44: sources[0].arrival.on: unknown field "on"; did you mean "on_time"?`,
			`t.yaml:4:52: sources[0].arrival.off: unknown field "off"; did you mean "off_time"?`,
			`t.yaml:9:7: sources[1].arrival.On: unknown field "On"; did you mean "on_time"?`,
			`t.yaml:10:7: sources[1].arrival.offtime: unknown field "offtime"; did you mean "off_time"?`,
		}},
	{"max_rate out of range", `duration: 10s
sources:
  - name: a
    max_rate: 0
    arrival: {process: constant, rate: 10/s}
  - name: b
    max_rate: -5/s
    arrival: {process: constant, rate: 10/s}
  - name: c
    max_rate: 1e300/s
    arrival: {process: constant, rate: 10/s}
  - name: d
    max_rate: 100
    arrival: {process: constant, rate: 10/s}
  - name: e
    maxrate: 100/s
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    inputs: [a, b, c, d, e]
`,
		[]string{
			`t.yaml:4:15: sources[0].max_rate: must be greater than 0 (leave max_rate out for no limit), got 0/s`,
			`t.yaml:7:15: sources[1].max_rate: must be greater than 0 (leave max_rate out for no limit), got -5/s`,
			`t.yaml:10:15: sources[2].max_rate: must be at most 1e9/s per subtask (one record per nanosecond), got 1e300/s`,
			`t.yaml:13:15: sources[3].max_rate: expected a rate such as 100/s or 6000/min, got "100" (a number needs a unit)`,
			`t.yaml:16:5: sources[4].maxrate: unknown field "maxrate"; did you mean "max_rate"?`,
		}},
	{"max_rate in range", `duration: 10s
sources:
  - name: a
    max_rate: 1e9/s
    arrival: {process: constant, rate: 10/s}
  - name: b
    max_rate: 2.5/ms
    replayable: false
    arrival: {process: poisson, rate: 5000/s}
  - name: c
    max_rate: 1/h
    arrival: {process: bursty, rate: 10/s, on_time: 1s, off_time: 1s}
sinks:
  - name: out
    inputs: [a, b, c]
`,
		[]string{}},
	{"name and description not one line", "duration: 10s\nname: \"job\\e[31m\"\ndescription: |\n  first line\n  second line\nsources:\n  - name: src\n    arrival: {process: constant, rate: 10/s}\nsinks:\n  - name: out\n    input: src\n",
		[]string{
			`t.yaml:2:7: name: must be one line of printable text (found a control character U+001B)`,
			`t.yaml:3:14: description: must be one line of printable text (found a control character U+000A)`,
		}},
	{"description with a bidirectional control", "duration: 10s\ndescription: \"safe \u202e txt.exe\"\nsources:\n  - name: src\n    arrival: {process: constant, rate: 10/s}\nsinks:\n  - name: out\n    input: src\n",
		[]string{
			`t.yaml:2:14: description: must be one line of printable text (found a bidirectional control character U+202E)`,
		}},
	{"description too long", "duration: 10s\ndescription: " + strings.Repeat("é", 201) + "\nsources:\n  - name: src\n    arrival: {process: constant, rate: 10/s}\nsinks:\n  - name: out\n    input: src\n",
		[]string{
			`t.yaml:2:14: description: must be at most 200 characters long (one line of a listing), got 201`,
		}},
	{"printable text in any script", `duration: 10s
name: Szenario – δοκιμή 1
description: "Quelle → Senke, 100 Datensätze/s 🚀 (200 chars ok: ` + strings.Repeat("x", 140) + `)"
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
`,
		[]string{}},
	{"absurd values", `duration: 10s
network: {bandwidth: -1e300Gbit/s, buffer_size: -1e18B, latency: 1e3s}
metrics: {interval: 999us}
sources:
  - name: src
    arrival: {process: poisson, rate: 1e300/s}
    record_size: 1e300B
  - name: src1
    record_size: 3GiB
    arrival: {process: constant, rate: 10/s}
  - name: src2
    arrival:
      process: schedule
      schedule: [{at: 0s, rate: 1e-300/s}, {at: 1s, rate: -1e-300/s}]
operators:
  - name: op
    inputs: [src, src1, src2]
    selectivity: 1e300
    service_time: {mean: 1ms}
  - name: op2
    input: op
    selectivity: 1000.5
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: op2
    parallelism: -99999999999999999999999
`,
		[]string{
			`t.yaml:2:22: network.bandwidth: must be greater than 0, got -1.25e308B/s`,
			`t.yaml:2:49: network.buffer_size: must be greater than 0, got -1e18B`,
			`t.yaml:2:66: network.latency: expected a duration such as 250ms or 2s, got "1e3s" (a duration takes no exponent; use a unit such as ms, s, m or h)`,
			`t.yaml:3:21: metrics.interval: must be at least 1ms (each interval writes a metrics row per subtask), got 999µs`,
			`t.yaml:6:39: sources[0].arrival.rate: must be at most 1e9/s per subtask (one record per nanosecond), got 1e300/s`,
			`t.yaml:7:18: sources[0].record_size: expected a size such as 100B or 32KiB, got "1e300B" (too large)`,
			`t.yaml:9:18: sources[1].record_size: must be at most 1GiB, got 3GiB`,
			`t.yaml:14:59: sources[2].arrival.schedule[1].rate: must not be negative, got -1e-300/s`,
			`t.yaml:18:18: operators[0].selectivity: must be at most 1000 (each input record emits that many output records), got 1e300`,
			`t.yaml:22:18: operators[1].selectivity: must be at most 1000 (each input record emits that many output records), got 1000.5`,
			`t.yaml:27:18: sinks[0].parallelism: expected a whole number, got -99999999999999999999999, which is too small (at least -2147483648)`,
		}},
	{"checkpoint mode unknown", `duration: 10s
checkpoint: {mode: algined, interval: 10s}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:20: checkpoint.mode: unknown mode "algined"; did you mean "aligned"?`,
		}},
	{"checkpoint unaligned", `duration: 10s
checkpoint: {mode: unaligned, interval: 10s, aligned_timeout: 2s, max_concurrent: 1, tolerable_failures: 0}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{}},
	{"checkpoint stop-the-world without interval", `duration: 10s
checkpoint:
  mode: stop-the-world
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:3:3: checkpoint: missing required field "interval" for mode stop-the-world`,
		}},
	{"checkpoint mode with underscores", `duration: 10s
checkpoint: {mode: stop_the_world, interval: 10s}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:20: checkpoint.mode: unknown mode "stop_the_world"; did you mean "stop-the-world"?`,
		}},
	{"checkpoint mode empty", `duration: 10s
checkpoint: {mode: "", interval: 10s}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:20: checkpoint.mode: unknown mode ""; expected none, stop-the-world, aligned or unaligned`,
		}},
	{"checkpoint mode not a string", `duration: 10s
checkpoint: {mode: [aligned], interval: 10s}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:20: checkpoint.mode: expected a string, got a list`,
		}},
	{"checkpoint unknown fields", `duration: 10s
checkpoint:
  mode: aligned
  interval: 10s
  min-pause: 1s
  max_concurent: 2
  tolerable-failed-checkpoints: 3
  unaligned: true
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:5:3: checkpoint.min-pause: unknown field "min-pause"; did you mean "min_pause"?`,
			`t.yaml:6:3: checkpoint.max_concurent: unknown field "max_concurent"; did you mean "max_concurrent"?`,
			`t.yaml:7:3: checkpoint.tolerable-failed-checkpoints: unknown field "tolerable-failed-checkpoints"; did you mean "tolerable_failures"?`,
			`t.yaml:8:3: checkpoint.unaligned: unknown field "unaligned"; valid fields are mode, interval, timeout, min_pause, max_concurrent, tolerable_failures, incremental, aligned_timeout, storage`,
		}},
	{"checkpoint interval missing", `duration: 10s
checkpoint: {mode: aligned, timeout: 1m}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:13: checkpoint: missing required field "interval" for mode aligned`,
		}},
	{"checkpoint misspelt interval reported once", `duration: 10s
checkpoint: {mode: aligned, intervall: 10s}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:29: checkpoint.intervall: unknown field "intervall"; did you mean "interval"?`,
		}},
	{"checkpoint fields without a mode", `duration: 10s
checkpoint:
  interval: 10s
  max_concurrent: 2
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:3:3: checkpoint.interval: "interval" applies only to mode stop-the-world, aligned or unaligned, not none (the default)`,
			`t.yaml:4:3: checkpoint.max_concurrent: "max_concurrent" applies only to mode aligned or unaligned, not none (the default)`,
		}},
	{"checkpoint fields with mode none", `duration: 10s
checkpoint: {mode: none, min_pause: 1s, timeout: 1m}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:26: checkpoint.min_pause: "min_pause" applies only to mode stop-the-world, aligned or unaligned, not none`,
			`t.yaml:2:41: checkpoint.timeout: "timeout" applies only to mode stop-the-world, aligned or unaligned, not none`,
		}},
	{"checkpoint misspelt mode reported once", `duration: 10s
checkpoint: {mdoe: aligned, interval: 10s}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:14: checkpoint.mdoe: unknown field "mdoe"; did you mean "mode"?`,
		}},
	{"checkpoint values out of range", `duration: 10s
checkpoint: {mode: aligned, interval: 0s, timeout: 0, min_pause: -1s, max_concurrent: 0}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:39: checkpoint.interval: must be greater than 0, got 0s`,
			`t.yaml:2:52: checkpoint.timeout: must be greater than 0, got 0s`,
			`t.yaml:2:66: checkpoint.min_pause: must not be negative, got -1s`,
			`t.yaml:2:87: checkpoint.max_concurrent: must be at least 1, got 0`,
		}},
	{"checkpoint wrong types and units", `duration: 10s
checkpoint: {mode: aligned, interval: 10, timeout: 1 minute, max_concurrent: 1.5, min_pause: [1s]}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:39: checkpoint.interval: expected a duration such as 250ms or 2s, got "10" (a number needs a unit)`,
			`t.yaml:2:52: checkpoint.timeout: expected a duration such as 250ms or 2s, got "1 minute" (unknown unit "minute"; units are ns, us (or µs), ms, s (or sec), m (or min) and h)`,
			`t.yaml:2:78: checkpoint.max_concurrent: expected a whole number, got 1.5`,
			`t.yaml:2:94: checkpoint.min_pause: expected a duration such as 250ms or 2s, got a list`,
		}},
	{"checkpoint not a mapping", `duration: 10s
checkpoint: aligned
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:13: checkpoint: expected a mapping, got "aligned"`,
		}},
	{"checkpoint settings", `duration: 10s
checkpoint: {mode: aligned, interval: 10s, timeout: 1m, min_pause: 0s, max_concurrent: 1}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{}},
	{"checkpoint none or empty", `duration: 10s
checkpoint: {mode: none}
x-empty: {checkpoint: {}}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{}},
	{"fault tolerance unknown fields with suggestions", `duration: 2m
workers: {count: 2, heartbeat: 5s, memory_size: 2GiB}
restart-strategy: {type: none}
ha: {type: zookeeper}
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: count
    input: src
    partitioning: hash
    service_time: {mean: 1ms}
    state: {bytes_per_kay: 1KiB}
sinks:
  - name: out
    input: count
    deliver: idempotent
checkpoint: {mode: unaligned, interval: 10s, alignment_timeout: 1s, storage: {bandwith: 1GiB/s}}
state_backend: {tpye: rocksdb, acces_time: 1us}
restart: {type: exponential-delay, backoff_multiplier: 1.5, jitter_factor: 0.2}
failures:
  - {kind: worker, at: 30s, wroker: 1}
`,
		[]string{
			`t.yaml:2:21: workers.heartbeat: unknown field "heartbeat"; did you mean "heartbeat_timeout"?`,
			`t.yaml:2:36: workers.memory_size: unknown field "memory_size"; valid fields are count, slots, memory, heartbeat_timeout`,
			`t.yaml:3:1: restart-strategy: unknown field "restart-strategy"; did you mean "restart"?`,
			`t.yaml:4:1: ha: unknown field "ha"; did you mean "high_availability"?`,
			`t.yaml:13:13: operators[0].state.bytes_per_kay: unknown field "bytes_per_kay"; did you mean "bytes_per_key"?`,
			`t.yaml:17:5: sinks[0].deliver: unknown field "deliver"; did you mean "delivery"?`,
			`t.yaml:18:46: checkpoint.alignment_timeout: unknown field "alignment_timeout"; did you mean "aligned_timeout"?`,
			`t.yaml:18:79: checkpoint.storage.bandwith: unknown field "bandwith"; did you mean "bandwidth"?`,
			`t.yaml:19:17: state_backend.tpye: unknown field "tpye"; did you mean "type"?`,
			`t.yaml:19:32: state_backend.acces_time: unknown field "acces_time"; did you mean "access_time"?`,
			`t.yaml:20:36: restart.backoff_multiplier: unknown field "backoff_multiplier"; did you mean "multiplier"?`,
			`t.yaml:20:61: restart.jitter_factor: unknown field "jitter_factor"; did you mean "jitter"?`,
			`t.yaml:22:29: failures[0].wroker: unknown field "wroker"; did you mean "worker"?`,
		}},
	{"fault tolerance fields of another variant", `duration: 2m
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
checkpoint: {mode: aligned, interval: 10s, aligned_timeout: 1s}
state_backend: {type: rocksdb, gc_interval: 10s}
restart: {multiplier: 3, max_failures_per_interval: 2}
high_availability: {leader_election: 5s}
failures:
  - {kind: network-partition, at: 10s, worker: 0, duration: 1s, factor: 2}
  - {kind: slowdown, mtbf: 1h, duration: 1s}
  - {kind: storage-outage, at: 10s, duration: 1s, vertex: src}
  - {kind: worker, mtbf: 1h, worker: 1}
`,
		[]string{
			`t.yaml:8:44: checkpoint.aligned_timeout: "aligned_timeout" applies only to mode unaligned, not aligned`,
			`t.yaml:9:32: state_backend.gc_interval: "gc_interval" applies only to type heap, not rocksdb`,
			`t.yaml:10:11: restart.multiplier: "multiplier" applies only to type exponential-delay, not fixed-delay (the default)`,
			`t.yaml:10:26: restart.max_failures_per_interval: "max_failures_per_interval" applies only to type failure-rate, not fixed-delay (the default)`,
			`t.yaml:11:21: high_availability.leader_election: "leader_election" applies only to type zookeeper, not none (the default)`,
			`t.yaml:13:65: failures[0].factor: "factor" applies only to kind slowdown, not network-partition`,
			`t.yaml:14:22: failures[1].mtbf: "mtbf" applies only to kind task, worker or jobmanager, not slowdown`,
			`t.yaml:15:51: failures[2].vertex: "vertex" applies only to kind task or slowdown, not storage-outage`,
			`t.yaml:16:30: failures[3].worker: "worker" does not apply to random failures (mtbf): they strike every worker at random times`,
		}},
	{"a random failure of mtbf 0s is refused once, not asked for a vertex as a scripted one", `duration: 2m
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
failures:
  - {kind: task, mtbf: 0s}
`,
		[]string{
			`t.yaml:9:24: failures[0].mtbf: must be greater than 0, got 0s`,
		}},
	{"fault tolerance unknown enum values", `duration: 2m
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: a
    input: src
    delivery: exactly-once
  - name: b
    input: src
    delivery: exactly_once
  - name: c
    input: src
    delivery: atleastonce
  - name: d
    input: src
    delivery: ""
state_backend: {type: rocks}
restart: {type: fixed}
high_availability: {type: zk}
failures:
  - {kind: tsak, at: 1s}
  - {kind: crash, at: 1s}
`,
		[]string{
			`t.yaml:8:15: sinks[0].delivery: unknown delivery "exactly-once"; did you mean "transactional"? (the two-phase-commit sink that Flink calls exactly-once; idempotent also gives exactly-once results)`,
			`t.yaml:11:15: sinks[1].delivery: unknown delivery "exactly_once"; did you mean "transactional"? (the two-phase-commit sink that Flink calls exactly-once; idempotent also gives exactly-once results)`,
			`t.yaml:14:15: sinks[2].delivery: unknown delivery "atleastonce"; did you mean "at-least-once"?`,
			`t.yaml:17:15: sinks[3].delivery: unknown delivery ""; expected at-least-once, at-most-once, idempotent or transactional`,
			`t.yaml:18:23: state_backend.type: unknown type "rocks"; did you mean "rocksdb"?`,
			`t.yaml:19:17: restart.type: unknown type "fixed"; expected none, fixed-delay, exponential-delay or failure-rate`,
			`t.yaml:20:27: high_availability.type: unknown type "zk"; expected none or zookeeper`,
			`t.yaml:22:12: failures[0].kind: unknown kind "tsak"; did you mean "task"?`,
			`t.yaml:23:12: failures[1].kind: unknown kind "crash"; expected task, worker, jobmanager, slowdown, network-partition, storage-outage or consumer`,
		}},
	{"fault tolerance values out of range", `duration: 2m
workers: {count: 2, memory: 0, heartbeat_timeout: 0s}
sources:
  - name: src
    arrival: {process: constant, rate: 10/s}
operators:
  - name: count
    input: src
    partitioning: hash
    service_time: {mean: 1ms}
    state: {bytes_per_key: 2GiB}
sinks:
  - name: out
    input: count
checkpoint: {mode: aligned, interval: 10s, tolerable_failures: -2, storage: {bandwidth: 0B/s, latency: -1ms}}
state_backend: {gc_interval: 1ms}
restart: {type: exponential-delay, attempts: -2, initial_backoff: 10s, max_backoff: 5s, multiplier: 0.5, jitter: 1, reset_threshold: 0s}
high_availability: {type: zookeeper, leader_election: -1s}
failures:
  - {kind: worker, at: 2m, worker: 1}
  - {kind: task, at: -1s, vertex: src}
  - {kind: slowdown, at: 1s, worker: 1, duration: 0s, factor: 1}
  - {kind: worker, mtbf: 500ms}
  - {kind: jobmanager, mtbf: 0s}
`,
		[]string{
			`t.yaml:2:29: workers.memory: must be greater than 0, got 0B`,
			`t.yaml:2:51: workers.heartbeat_timeout: must be greater than 0, got 0s`,
			`t.yaml:11:28: operators[0].state.bytes_per_key: must be at most 1GiB, got 2GiB`,
			`t.yaml:15:64: checkpoint.tolerable_failures: must be at least -1 (-1 for no limit), got -2`,
			`t.yaml:15:89: checkpoint.storage.bandwidth: must be greater than 0, got 0B/s`,
			`t.yaml:15:104: checkpoint.storage.latency: must not be negative, got -1ms`,
			`t.yaml:16:30: state_backend.gc_interval: must be 0 (off) or at least 10ms (each interval pauses every worker), got 1ms`,
			`t.yaml:17:46: restart.attempts: must be at least -1 (-1 for no limit), got -2`,
			`t.yaml:17:85: restart.max_backoff: must not be less than initial_backoff (10s), got 5s`,
			`t.yaml:17:101: restart.multiplier: must be at least 1 (each backoff is the previous one times multiplier), got 0.5`,
			`t.yaml:17:114: restart.jitter: must be at least 0 and less than 1 (a fraction of the backoff), got 1`,
			`t.yaml:17:134: restart.reset_threshold: must be greater than 0, got 0s`,
			`t.yaml:18:55: high_availability.leader_election: must not be negative, got -1s`,
			`t.yaml:20:24: failures[0].at: must be before the end of the run (duration 120s), got 120s`,
			`t.yaml:21:22: failures[1].at: must not be negative, got -1s`,
			`t.yaml:22:51: failures[2].duration: must be greater than 0, got 0s`,
			`t.yaml:22:63: failures[2].factor: must be greater than 1 (service times are multiplied by it), got 1`,
			`t.yaml:23:26: failures[3].mtbf: must be at least 1s (failures more often than that would only keep the job restarting), got 500ms`,
			`t.yaml:24:30: failures[4].mtbf: must be greater than 0, got 0s`,
		}},
	{"failure targets that do not exist", `duration: 2m
workers: {count: 2, slots: 4}
sources:
  - name: src
    parallelism: 2
    arrival: {process: constant, rate: 10/s}
operators:
  - name: enrich
    input: src
    parallelism: 2
    service_time: {mean: 1ms}
sinks:
  - name: out
    input: enrich
failures:
  - {kind: task, at: 30s, vertex: enrch}
  - {kind: task, at: 30s, vertex: enrich, subtask: 2}
  - {kind: slowdown, at: 30s, vertex: sink, duration: 1s}
  - {kind: worker, at: 30s, worker: 2}
  - {kind: network-partition, at: 30s, worker: -1, duration: 1s}
  - {kind: task, at: 30s, vertex: out, subtask: 1}
`,
		[]string{
			`t.yaml:16:35: failures[0].vertex: unknown vertex "enrch"; did you mean "enrich"?`,
			`t.yaml:17:52: failures[1].subtask: must be from 0 to 1 ("enrich" has parallelism 2), got 2`,
			`t.yaml:18:39: failures[2].vertex: unknown vertex "sink"; vertices are src, enrich, out`,
			`t.yaml:19:37: failures[3].worker: must be from 0 to 1 (workers.count is 2), got 2`,
			`t.yaml:20:48: failures[4].worker: must be from 0 to 1 (workers.count is 2), got -1`,
			`t.yaml:21:49: failures[5].subtask: must be 0 ("out" has parallelism 1), got 1`,
		}},
	{"keyed state without keyBy", `duration: 2m
sources:
  - name: src
    parallelism: 2
    arrival: {process: constant, rate: 10/s}
operators:
  - name: same
    input: src
    parallelism: 2
    service_time: {mean: 1ms}
    state: {bytes_per_key: 100B}
  - name: spread
    input: same
    partitioning: rebalance
    service_time: {mean: 1ms}
    state: {bytes_per_key: 100B}
sinks:
  - name: out
    input: spread
`,
		[]string{
			`t.yaml:11:12: operators[0].state: keyed state needs keyBy (partitioning: hash), but the partitioning is forward (the default)`,
			`t.yaml:16:12: operators[1].state: keyed state needs keyBy (partitioning: hash), but the partitioning is rebalance`,
		}},
	{"checkpoint incremental with the heap backend", `duration: 2m
checkpoint: {mode: aligned, interval: 10s, incremental: true}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
`,
		[]string{
			`t.yaml:2:57: checkpoint.incremental: incremental checkpoints need state_backend type rocksdb (heap state is snapshotted in full), got heap (the default)`,
		}},
	{"transactional sink without checkpoints", `duration: 2m
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src, delivery: transactional}]
`,
		[]string{
			`t.yaml:3:43: sinks[0].delivery: transactional needs checkpoints: its output becomes visible when the checkpoint that covers it completes, but checkpoint.mode is none (the default)`,
		}},
	{"failures missing or conflicting fields", `duration: 2m
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src}]
state_backend: {gc_pause_per_gib: 1s}
failures:
  - {at: 1s}
  - {kind: jobmanager}
  - {kind: network-partition, worker: 0, duration: 1s}
  - {kind: task, at: 1s}
  - {kind: storage-outage, at: 1s}
  - {kind: worker, at: 1s, mtbf: 1h}
  - {kind: slowdown, at: 1s, vertex: src, worker: 0, duration: 1s}
  - {kind: slowdown, at: 1s, subtask: 0, duration: 1s}
  - {kind: task, mtbf: 1h, vertex: src}
`,
		[]string{
			`t.yaml:4:17: state_backend.gc_pause_per_gib: "gc_pause_per_gib" needs gc_interval: garbage collection is off without it`,
			`t.yaml:6:5: failures[0]: missing required field "kind"`,
			`t.yaml:7:5: failures[1]: missing required field "at" (or "mtbf" for random failures)`,
			`t.yaml:8:5: failures[2]: missing required field "at"`,
			`t.yaml:9:5: failures[3]: missing required field "vertex" for kind task`,
			`t.yaml:10:5: failures[4]: missing required field "duration" for kind storage-outage`,
			`t.yaml:11:28: failures[5].mtbf: give either at (one failure at that time) or mtbf (random failures), not both`,
			`t.yaml:12:43: failures[6].worker: give either vertex (one of its subtasks slows down) or worker (all its subtasks do), not both`,
			`t.yaml:13:30: failures[7].subtask: "subtask" needs vertex: it picks a subtask of that vertex`,
			`t.yaml:14:28: failures[8].vertex: "vertex" does not apply to random failures (mtbf): they strike every worker at random times`,
		}},
	{"fault tolerance wrong types and units", `duration: 2m
workers: {count: one, memory: lots, heartbeat_timeout: 10}
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
operators:
  - {name: op, input: src, partitioning: hash, service_time: {mean: 1ms}, state: keyed}
  - {name: op2, input: op, partitioning: hash, service_time: {mean: 1ms}, state: {bytes_per_key: 1KB/s}}
sinks: [{name: out, input: op2, delivery: true}]
checkpoint: {mode: aligned, interval: 10s, tolerable_failures: many, incremental: "yes", storage: {bandwidth: 100MiB, latency: [1ms]}}
state_backend: [heap]
restart: {type: exponential-delay, attempts: 1.5, multiplier: fast, jitter: 10%}
high_availability: zookeeper
failures:
  - {kind: task, at: soon, vertex: [op], subtask: first}
  - {kind: slowdown, at: 1s, vertex: op, factor: 4x, duration: 1s}
`,
		[]string{
			`t.yaml:2:18: workers.count: expected a whole number, got "one"`,
			`t.yaml:2:31: workers.memory: expected a size such as 100B or 32KiB, got "lots"`,
			`t.yaml:2:56: workers.heartbeat_timeout: expected a duration such as 250ms or 2s, got "10" (a number needs a unit)`,
			`t.yaml:5:82: operators[0].state: expected a mapping, got "keyed"`,
			`t.yaml:6:98: operators[1].state.bytes_per_key: expected a size such as 100B or 32KiB, got "1KB/s" (unknown unit "KB/s"; units are B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024))`,
			`t.yaml:7:43: sinks[0].delivery: unknown delivery "true"; expected at-least-once, at-most-once, idempotent or transactional`,
			`t.yaml:8:64: checkpoint.tolerable_failures: expected a whole number, got "many"`,
			`t.yaml:8:83: checkpoint.incremental: expected true or false, got "yes"`,
			`t.yaml:8:111: checkpoint.storage.bandwidth: expected a bandwidth such as 1Gbit/s or 125MB/s, got "100MiB" (missing "/s" after "MiB")`,
			`t.yaml:8:128: checkpoint.storage.latency: expected a duration such as 250ms or 2s, got a list`,
			`t.yaml:9:16: state_backend: expected a mapping, got a list`,
			`t.yaml:10:46: restart.attempts: expected a whole number, got 1.5`,
			`t.yaml:10:63: restart.multiplier: expected a number, got "fast"`,
			`t.yaml:10:77: restart.jitter: expected a number, got "10%"`,
			`t.yaml:11:20: high_availability: expected a mapping, got "zookeeper"`,
			`t.yaml:13:22: failures[0].at: expected a duration such as 250ms or 2s, got "soon"`,
			`t.yaml:13:36: failures[0].vertex: expected a string, got a list`,
			`t.yaml:13:51: failures[0].subtask: expected a whole number, got "first"`,
			`t.yaml:14:50: failures[1].factor: expected a number, got "4x"`,
		}},
	{"fault tolerance settings", `duration: 2m
workers: {count: 2, slots: 2, memory: 512MiB, heartbeat_timeout: 5s}
sources: [{name: src, parallelism: 2, arrival: {process: constant, rate: 10/s}}]
operators:
  - {name: count, input: src, partitioning: hash, parallelism: 2, service_time: {mean: 1ms}, state: {bytes_per_key: 64B}}
sinks: [{name: out, input: count, delivery: transactional}]
checkpoint: {mode: stop-the-world, interval: 30s, tolerable_failures: 0, incremental: true, storage: {bandwidth: 1Gbit/s, latency: 0}}
state_backend: {type: rocksdb, access_time: 0}
restart: {type: none}
high_availability: {type: zookeeper}
failures:
  - {kind: task, at: 0s, vertex: src}
  - {kind: task, at: 10s, vertex: out}
  - {kind: jobmanager, at: 1m}
  - {kind: slowdown, at: 20s, duration: 1m, factor: 1.5}
  - {kind: storage-outage, at: 119s, duration: 1h}
`,
		[]string{}},
	{"fixed-delay restart and heap garbage collection", `duration: 2m
sources: [{name: src, arrival: {process: constant, rate: 10/s}}]
sinks: [{name: out, input: src, delivery: at-most-once}]
state_backend: {gc_interval: 10ms}
restart: {attempts: 0, delay: 0s}
high_availability: {type: none}
failures: []
`,
		[]string{}},
	{"merge key errors", `duration: 10s
x-base: &base {paralelism: 2}
sources:
  - name: src
    <<: *base
    arrival: {process: constant, rate: 10/s}
sinks:
  - name: out
    input: src
    <<: [1]
`,
		[]string{
			`t.yaml:2:16: sources[0].paralelism: unknown field "paralelism"; did you mean "parallelism"?`,
			`t.yaml:10:10: sinks[0]: << expects a mapping or a list of mappings, got 1`,
		}},
	{"timers need keyBy", `duration: 10s
sources: [{name: a, arrival: {process: constant, rate: 10/s}}]
operators:
  - {name: t, input: a, service_time: {mean: 1ms}, timer: {delay: 1s}}
sinks: [{name: out, input: t}]
`,
		[]string{
			`t.yaml:4:59: operators[0].timer: timers are per key: they need keyBy (partitioning: hash), but the partitioning is forward (the default)`,
		}},
	{"joins: keyed inputs, two of them", `duration: 10s
sources:
  - {name: a, arrival: {process: constant, rate: 10/s}}
  - {name: b, arrival: {process: constant, rate: 10/s}}
operators:
  - {name: j, inputs: [a, b], service_time: {mean: 1ms}, join: {kind: interval, after: 1s}}
  - {name: k, input: a, partitioning: hash, service_time: {mean: 1ms}, join: {kind: window, size: 1s}}
sinks:
  - {name: out, input: j}
  - {name: out2, input: k}
`,
		[]string{
			`t.yaml:6:64: operators[0].join: a join needs both inputs keyed (partitioning: hash), but the partitioning is forward (the default)`,
			`t.yaml:7:78: operators[1].join: a join needs two inputs (inputs: [left, right]), got 1`,
		}},
	{"event time: delays, watermarks and windows", `duration: 10s
sources:
  - name: src
    parallelism: 2
    arrival: {process: constant, rate: 10/s}
    event_delay: {distribution: uniform, min: 2s, max: 1s}
    watermarks: {strategy: bounded_out_of_orderness, bounded_out_of_orderness: 1s, idleness: 100ms}
operators:
  - name: win
    input: src
    parallelism: 2
    service_time: {mean: 1ms}
    window: {kind: sliding, size: 1s, slide: 2s, time: processing, allowed_lateness: 1s}
  - name: zero
    input: src
    partitioning: hash
    parallelism: 2
    service_time: {mean: 1ms}
    window: {kind: tumbling, size: 0s}
  - name: glob
    input: src
    partitioning: hash
    service_time: {mean: 1ms}
    window: {kind: global, count: 0, sise: 1s}
sinks:
  - name: out
    input: win
  - name: out2
    input: zero
  - name: out3
    input: glob
`,
		[]string{
			`t.yaml:6:56: sources[0].event_delay.max: must not be less than min (2s), got 1s`,
			`t.yaml:7:94: sources[0].watermarks.idleness: must be at least auto_watermark_interval (200ms): idleness is checked at every watermark emission, got 100ms`,
			`t.yaml:13:13: operators[0].window: a keyed window needs keyBy (partitioning: hash), but the partitioning is forward (the default); a window without keyBy (windowAll) runs at parallelism 1`,
			`t.yaml:13:46: operators[0].window.slide: must not be larger than size (1s), got 2s`,
			`t.yaml:13:86: operators[0].window.allowed_lateness: applies to event-time windows only (no record is late in processing time), but time is processing`,
			`t.yaml:19:36: operators[1].window.size: must be greater than 0, got 0s`,
			`t.yaml:24:35: operators[2].window.count: must be at least 1, got 0`,
			`t.yaml:24:38: operators[2].window.sise: unknown field "sise"; did you mean "size"?`,
		}},
	{"late side outputs", `duration: 10s
sources:
  - {name: src, arrival: {process: constant, rate: 10/s}, watermarks: {strategy: punctuated}}
operators:
  - {name: win, input: src, partitioning: hash, service_time: {mean: 1ms}, window: {kind: tumbling, size: 1s, time: processing, late_output: late}}
  - {name: glob, input: src, partitioning: hash, service_time: {mean: 1ms}, window: {kind: global, count: 2, late_output: glob-late}}
  - {name: ev, input: src, partitioning: hash, service_time: {mean: 1ms}, window: {kind: tumbling, size: 1s, late_output: src}}
  - {name: ev2, input: src, partitioning: hash, service_time: {mean: 1ms}, window: {kind: tumbling, size: 1s, late_output: ev2-late}}
sinks:
  - {name: out, inputs: [win, glob, ev, ev2]}
  - {name: late-sink, input: ev2-lat}
`,
		[]string{
			`t.yaml:5:142: operators[0].window.late_output: applies to event-time windows only (no record is late in processing time), but time is processing`,
			`t.yaml:6:123: operators[1].window.late_output: applies to event-time windows only, but a global window fires by count`,
			`t.yaml:7:123: operators[2].window.late_output: "src" is already the name of a vertex (line 3) or of another late output; a late output needs a name of its own`,
			`t.yaml:11:30: sinks[1].input: unknown vertex "ev2-lat"; did you mean "ev2-late"?`,
		}},
	{"consumer groups", `duration: 60s
topics:
  - {name: orders, partitions: 4}
sources:
  - {name: shop, arrival: {process: constant, rate: 10/s}, writes: {topic: orders}}
consumer_groups:
  - {name: billing, topic: ordres, service_time: {mean: 1ms}}
  - {name: billing, topic: orders, service_time: {mean: 1ms}, heartbeat_interval: 45s}
  - {name: shop, topic: orders, members: 0, service_time: {mean: 1ms}}
  - {name: audit, topic: orders}
failures:
  - {kind: consumer, at: 10s, group: biling, member: 1}
  - {kind: consumer, at: 10s, group: billing, member: 1}
  - {kind: consumer, at: 10s}
`,
		[]string{
			`t.yaml:7:28: consumer_groups[0].topic: unknown topic "ordres"; did you mean "orders"?`,
			`t.yaml:8:12: consumer_groups[1].name: duplicate consumer group name "billing"; first declared at line 7`,
			`t.yaml:8:83: consumer_groups[1].heartbeat_interval: must be lower than session_timeout (45s), as Kafka's heartbeat.interval.ms must be lower than session.timeout.ms, got 45s`,
			`t.yaml:9:12: consumer_groups[2].name: "shop" names a vertex of the job already; give the consumer group a name of its own (its rows in timeseries.csv go by it)`,
			`t.yaml:9:42: consumer_groups[2].members: must be at least 1, got 0`,
			`t.yaml:10:5: consumer_groups[3]: missing required field "service_time"`,
			`t.yaml:12:38: failures[0].group: unknown consumer group "biling"; did you mean "billing"?`,
			`t.yaml:13:55: failures[1].member: must be 0 (group "billing" has 1 member), got 1`,
			`t.yaml:14:5: failures[2]: missing required field "group" for kind consumer`,
		}},
	{"shedding: a trigger with a bad value or a misspelt name is not also reported missing", `duration: 10s
sources:
  - name: a
    arrival: {process: constant, rate: 10/s}
    replayable: true
    shedding: {lag_over: 2000records}
  - name: b
    arrival: {process: constant, rate: 10/s}
    replayable: true
    shedding: {latency_ovr: 2s}
  - name: c
    arrival: {process: constant, rate: 10/s}
    replayable: true
    shedding: {lag_over: 0}
operators:
  - name: op
    inputs: [a, b, c]
    service_time: {mean: 1ms}
    shedding: {queue_over: 1.5}
sinks:
  - name: out
    input: op
`,
		[]string{
			`t.yaml:6:26: sources[0].shedding.lag_over: expected a whole number, got "2000records"`,
			`t.yaml:10:16: sources[1].shedding.latency_ovr: unknown field "latency_ovr"; did you mean "latency_over"?`,
			`t.yaml:14:26: sources[2].shedding.lag_over: must be at least 1, got 0`,
			`t.yaml:19:28: operators[0].shedding.queue_over: expected a whole number, got 1.5`,
		}},
}

func TestParseErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(c.yaml))
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error:\n%v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; want:\n%s", strings.Join(c.want, "\n"))
			}
			if s != nil {
				t.Errorf("got a Scenario with an error")
			}
			list, ok := err.(ErrorList)
			if !ok {
				t.Fatalf("error is %T, want ErrorList", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if err.Error() != strings.Join(c.want, "\n") {
				t.Errorf("ErrorList.Error() does not join the lines:\n%s", err)
			}
		})
	}
}
