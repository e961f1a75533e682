package scenario

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Patterns of the unit strings, as the parsers in units.go read them
// (non-negative values only; the decoder checks which need to be > 0).
const (
	patNumber    = `([0-9]+(\.[0-9]*)?|\.[0-9]+)`
	patNumberExp = patNumber + `([eE][+-]?[0-9]+)?`

	patSize      = `^\s*\+?` + patNumberExp + `\s*(B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$|^\s*\+?[0-9]+\s*$`
	patBandwidth = `^\s*\+?` + patNumberExp + `\s*((bit|kbit|Kbit|Mbit|Gbit|Tbit|B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*/\s*s|bps|kbps|Kbps|Mbps|Gbps|Tbps)\s*$`
	patName      = `^[A-Za-z0-9_][A-Za-z0-9_.-]*$`
	// patText is one line without control characters (C0, DEL and C1), in
	// the subset of regular expressions that ECMA 262 and Go share; Parse
	// also rejects line separators and bidirectional controls.
	patText = `^[^\x00-\x1F\x7F-\x9F]*$`
)

// Patterns of durations and rates, from the one table of time units.
var (
	patDuration = `^\s*\+?(` + patNumber + `\s*(` + timeUnitPattern() + `)\s*)+$|^\s*\+?0+(\.0*)?\s*$`
	patRate     = `^\s*\+?` + patNumberExp + `\s*/\s*(` + timeUnitPattern() + `)\s*$|^\s*\+?0+(\.0*)?\s*$`
)

// obj is a JSON object of the schema.
type obj = map[string]any

// JSONSchema returns a JSON Schema (draft-07) of the scenario YAML format,
// for editors: VS Code's YAML extension (yaml-language-server) completes
// and checks a scenario that starts with
//
//	# yaml-language-server: $schema=scenario.schema.json
//
// Every field has a description with its unit and default, enum fields list
// their values, unit strings have patterns, and unknown fields are
// rejected. The schema checks shape; Parse remains the authority (ranges
// such as "greater than 0", graph checks). The result is indented JSON
// and the same on every call.
func JSONSchema() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "<=" readable in descriptions
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsSchema()); err != nil {
		panic("scenario: marshal JSON Schema: " + err.Error()) // static data: cannot happen
	}
	return b.Bytes()
}

func jsSchema() obj {
	return obj{
		"$schema":     "http://json-schema.org/draft-07/schema#",
		"$id":         "https://github.com/dspalab/dspalab/scenario.schema.json",
		"title":       "dspalab scenario",
		"description": "A dspalab scenario: one stream-processing job (sources, operators, sinks) on a simulated cluster. Units are in strings: durations such as 250ms, rates such as 100/s, sizes such as 32KiB, bandwidths such as 1Gbit/s.",
		"type":        "object",
		"properties": obj{
			"name": obj{
				"description": "A short identifier of the scenario, used in listings and output files: one line of printable text. Default: the file name without its extension (runs/my-job.yaml is my-job).",
				"type":        "string", "pattern": patText,
			},
			"description": obj{
				"description": "One line of printable text that says what the scenario shows, at most 200 characters.",
				"type":        "string", "pattern": patText, "maxLength": MaxDescriptionLength,
			},
			"seed": obj{
				"description": "Seed of every random stream of the run; the same scenario and seed give identical results. Default 1.",
				"type":        "integer", "minimum": 0, "default": 1,
			},
			"duration": jsDuration("Simulated time to run, such as 120s or 10m. Required, greater than 0.", nil),
			"warmup":   jsDuration("Simulated time at the start left out of summary statistics; shorter than duration. Default 0.", "0s"),
			"workers": jsObject("The simulated cluster: TaskManagers with slots. Subtask i of every vertex runs in slot i, filling worker 0 first, so the job needs its largest parallelism <= count x slots.", obj{
				"count":             jsInteger("Number of workers (TaskManagers). Default 1.", 1, 1),
				"slots":             jsInteger("Task slots per worker. Default 4.", 1, 4),
				"memory":            jsSize("Heap of one worker for the keyed state of the heap state backend; heap state beyond it fails the worker (out of memory). Greater than 0. Default 1GiB.", "1GiB"),
				"heartbeat_timeout": jsDuration("How long the JobManager takes to notice a lost worker (Flink's heartbeat.timeout); a failed task is reported at once. Greater than 0. Default 50s.", "50s"),
			}),
			"network": jsNetwork("Network settings of every edge (Flink's credit-based flow control); a vertex's network overrides them for its input edges.", true),
			"sources": obj{
				"description": "Source vertices: where records enter the job. At least one.",
				"type":        "array", "minItems": 1, "items": jsSource(),
			},
			"operators": obj{
				"description": "Processing vertices, each reading from input (or inputs). May be empty.",
				"type":        "array", "items": jsVertex(false),
			},
			"sinks": obj{
				"description": "Sink vertices: where records leave the job. At least one.",
				"type":        "array", "minItems": 1, "items": jsVertex(true),
			},
			"metrics": jsObject("Metric sampling.", obj{
				"interval": jsDuration("Simulated time between metric samples, at least 1ms (each interval writes a row per subtask). Default 1s.", "1s"),
			}),
			"checkpoint":        jsCheckpoint(),
			"state_backend":     jsStateBackend(),
			"restart":           jsRestart(),
			"high_availability": jsHighAvailability(),
			"failures": obj{
				"description": "Failures to inject, in the order given: each scripted (at) or random (mtbf). Default none.",
				"type":        "array", "items": jsFailure(),
			},
		},
		"allOf": []any{
			obj{
				"description": "Incremental checkpoints need the rocksdb state backend.",
				"if": obj{"properties": obj{"checkpoint": obj{"properties": obj{"incremental": obj{"const": true}}, "required": []string{"incremental"}}},
					"required": []string{"checkpoint"}},
				"then": obj{"properties": obj{"state_backend": obj{"properties": obj{"type": obj{"const": BackendRocksDB}}, "required": []string{"type"}}},
					"required": []string{"state_backend"}},
			},
			obj{
				"description": "A transactional sink needs checkpoints: its output becomes visible when a checkpoint completes.",
				"if": obj{"properties": obj{"sinks": obj{"contains": obj{"properties": obj{"delivery": obj{"const": DeliveryTransactional}},
					"required": []string{"delivery"}}}}, "required": []string{"sinks"}},
				"then": obj{"properties": obj{"checkpoint": obj{"properties": obj{"mode": obj{"not": obj{"const": CheckpointNone}}}, "required": []string{"mode"}}},
					"required": []string{"checkpoint"}},
			},
		},
		"patternProperties":    obj{"^x-": obj{"description": "Ignored: a place for YAML anchors (&name) to reuse with aliases (*name)."}},
		"additionalProperties": false,
		"required":             []string{"duration", "sources", "sinks"},
	}
}

// jsCheckpoint is the schema of the checkpoint setting, as Flink's
// execution.checkpointing.* options.
func jsCheckpoint() obj {
	o := jsObject("Periodic checkpoints, as Flink's execution.checkpointing.* options. Default: none.", obj{
		"mode": jsEnum("none: no checkpoints; stop-the-world: stop ingestion at the sources, wait for the data in flight to be processed, copy every task's state to storage, resume; aligned: asynchronous barrier snapshotting with alignment (Carbone et al. 2015): barriers enter at the sources, a task with several inputs blocks each input whose barrier arrived until all have, then snapshots its state and forwards the barrier; unaligned: barriers overtake buffered data, which is persisted with the state. Default none.",
			checkpointModes, CheckpointNone),
		"interval":           jsDuration("Simulated time between checkpoint triggers, such as 10s. Required with a mode other than none; at least 10ms.", nil),
		"timeout":            jsDuration("A checkpoint not complete this long after its trigger fails (is expired); greater than 0. Default 10m.", "10m"),
		"min_pause":          jsDuration("Least simulated time between the end of one checkpoint and the next trigger. Default 0.", "0s"),
		"max_concurrent":     jsInteger("Most checkpoints in progress at once (aligned and unaligned; stop-the-world takes one at a time). Default 1.", 1, 1),
		"tolerable_failures": jsInteger("How many checkpoints in a row may fail (time out, or lose their storage) before the job fails and restarts by its restart strategy; -1 is no limit. Flink's execution.checkpointing.tolerable-failed-checkpoints, whose own default is 0. Default -1 (no limit).", -1, -1),
		"incremental": obj{
			"description": "Upload only the state changed since the last completed checkpoint (recovery may download more). Only with state_backend type rocksdb. Default false.",
			"type":        "boolean", "default": false,
		},
		"aligned_timeout": jsDuration("Unaligned only: each checkpoint starts aligned and a subtask switches to unaligned once it has aligned this long (Flink's execution.checkpointing.aligned-checkpoint-timeout). Default 0: unaligned from the start.", "0s"),
		"storage": jsObject("The checkpoint storage (a distributed file system) that snapshots are uploaded to and restored from; uploads and downloads queue for its bandwidth, one after another.", obj{
			"bandwidth": jsBandwidth("Bandwidth of the checkpoint storage, greater than 0. Default 100MiB/s.", "100MiB/s"),
			"latency":   jsDuration("Latency of each upload or download. Default 10ms.", "10ms"),
		}),
	})
	o["allOf"] = jsVariants("mode", checkpointModes, checkpointApplies, checkpointRequires, CheckpointNone)
	return o
}

// jsStateBackend is the schema of the state backend.
func jsStateBackend() obj {
	o := jsObject("Flink's state backend: where operators keep their keyed state (operators with state). Default: heap.", obj{
		"type": jsEnum("heap: objects on the JVM heap, fast, bounded by workers.memory, with optional garbage-collection pauses; rocksdb: serialized on local disk, slower access, incremental checkpoints. Default heap.",
			backends, BackendHeap),
		"access_time":      jsDuration("Time added to the service time of every record of an operator with state, for its state access. Default 100ns for heap, 5us for rocksdb.", nil),
		"gc_interval":      jsDuration("Heap only: every gc_interval each worker pauses for gc_pause_per_gib per GiB of heap state it holds (at least 1ms). 0 or at least 10ms. Default 0: no garbage-collection pauses.", "0s"),
		"gc_pause_per_gib": jsDuration("Heap only, with gc_interval: the pause per GiB of heap state of a worker. Default 100ms.", "100ms"),
	})
	o["allOf"] = jsVariants("type", backends, backendApplies, nil, BackendHeap)
	o["dependencies"] = obj{"gc_pause_per_gib": []string{"gc_interval"}}
	return o
}

// jsRestart is the schema of the restart strategy, as Flink's
// restart-strategy.* options.
func jsRestart() obj {
	o := jsObject("What the job does after a failure, as Flink's restart-strategy.* options; the fields depend on type. Default: fixed-delay, no limit on attempts, 1s delay.", obj{
		"type": jsEnum("none: a failure fails the job for good; fixed-delay: restart after delay, at most attempts times; exponential-delay: restart after a backoff that grows from initial_backoff by multiplier up to max_backoff; failure-rate: restart after delay unless more than max_failures_per_interval failures came within failure_rate_interval. Default fixed-delay.",
			restartTypes, RestartFixedDelay),
		"attempts":                  jsInteger("fixed-delay and exponential-delay: restarts before the job fails for good; -1 is no limit. Default -1.", -1, -1),
		"delay":                     jsDuration("fixed-delay and failure-rate: simulated time between the detection of a failure and the restart. Default 1s.", "1s"),
		"initial_backoff":           jsDuration("exponential-delay: the first backoff, greater than 0. Default 1s.", "1s"),
		"max_backoff":               jsDuration("exponential-delay: the largest backoff, at least initial_backoff. Default 1m.", "1m"),
		"multiplier":                obj{"description": "exponential-delay: each backoff is the previous one times multiplier, at least 1. Default 2.", "type": "number", "minimum": 1, "default": defaultMultiplier},
		"jitter":                    obj{"description": "exponential-delay: each backoff is spread uniformly by plus or minus this fraction of it, at least 0 and less than 1. Default 0.1.", "type": "number", "minimum": 0, "exclusiveMaximum": 1, "default": defaultJitter},
		"reset_threshold":           jsDuration("exponential-delay: after this long without a failure the backoff starts again from initial_backoff; greater than 0. Default 1h.", "1h"),
		"max_failures_per_interval": jsInteger("failure-rate: the job fails for good when more failures than this come within failure_rate_interval. Default 1.", 1, defaultFailureRateMax),
		"failure_rate_interval":     jsDuration("failure-rate: the window of max_failures_per_interval; greater than 0. Default 1m.", "1m"),
	})
	o["allOf"] = jsVariants("type", restartTypes, restartApplies, nil, RestartFixedDelay)
	return o
}

// jsHighAvailability is the schema of the JobManager's high availability.
func jsHighAvailability() obj {
	o := jsObject("High availability of the JobManager. Default: none.", obj{
		"type": jsEnum("none: a JobManager failure loses the job; zookeeper: a standby JobManager is elected and recovers the job (graph and checkpoint pointers) from storage. Default none.",
			haTypes, HANone),
		"leader_election": jsDuration("zookeeper: simulated time to elect a new leader after the JobManager fails; at least 0. Default 10s.", "10s"),
	})
	o["allOf"] = jsVariants("type", haTypes, haApplies, nil, HANone)
	return o
}

// jsFailure is the schema of one failure.
func jsFailure() obj {
	o := jsObject("One failure: scripted (at) or random (mtbf); the fields depend on kind.", obj{
		"kind": jsEnum("task: one subtask fails (an exception), reported at once; worker: a TaskManager dies with its subtasks, noticed after workers.heartbeat_timeout; jobmanager: the JobManager dies (see high_availability); slowdown: a straggler, service times times factor for duration; network-partition: a worker is cut off for duration; storage-outage: the checkpoint storage is unavailable for duration. Required.",
			failureKinds, ""),
		"at":       jsDuration("A scripted failure: the simulated time it happens, before the end of the run. Give at or mtbf.", nil),
		"mtbf":     jsDuration("Random failures (kinds task, worker, jobmanager): the mean time between failures of each worker (task: of a random subtask on it; jobmanager: of the JobManager), exponentially distributed and drawn from the seed; at least 1s. Give at or mtbf.", nil),
		"vertex":   obj{"description": "task and slowdown: the vertex whose subtask fails or slows down. Required for task (scripted); for slowdown give vertex or worker.", "type": "string", "pattern": patName, "maxLength": MaxNameLength},
		"subtask":  jsInteger("task and slowdown with vertex: the subtask of vertex, from 0 to its parallelism - 1. Default 0.", 0, 0),
		"worker":   jsInteger("worker, network-partition, and slowdown without vertex: the worker, from 0 to workers.count - 1. Default 0.", 0, 0),
		"duration": jsDuration("slowdown, network-partition and storage-outage: how long it lasts; required, greater than 0.", nil),
		"factor":   obj{"description": "slowdown: service times are multiplied by factor, greater than 1. Default 10.", "type": "number", "exclusiveMinimum": 1, "maximum": MaxSlowdownFactor, "default": defaultSlowdownFactor},
	}, "kind")
	rules := jsVariants("kind", failureKinds, failureApplies, failureRequires, "")
	rules = append(rules,
		obj{"oneOf": []any{obj{"required": []string{"at"}}, obj{"required": []string{"mtbf"}}}},
		obj{"if": obj{"required": []string{"mtbf"}}, "then": obj{"properties": obj{"vertex": false, "subtask": false, "worker": false}}},
		obj{"if": obj{"properties": obj{"kind": obj{"const": FailureTask}}, "required": []string{"kind", "at"}}, "then": obj{"required": []string{"vertex"}}},
		obj{"not": obj{"required": []string{"vertex", "worker"}}},
	)
	o["allOf"] = rules
	o["dependencies"] = obj{"subtask": []string{"vertex"}}
	return o
}

func jsInteger(desc string, min int, def any) obj {
	o := obj{"description": desc, "type": "integer", "minimum": min}
	if def != nil {
		o["default"] = def
	}
	return o
}

func jsEnum(desc string, values []string, def string) obj {
	o := obj{"description": desc, "type": "string", "enum": values}
	if def != "" {
		o["default"] = def
	}
	return o
}

func jsObject(desc string, props obj, required ...string) obj {
	o := obj{"description": desc, "type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// jsUnitValue is a unit string matching pattern, or the number 0.
func jsUnitValue(desc, pattern string, def any, zero bool) obj {
	alts := []any{obj{"type": "string", "pattern": pattern}}
	if zero {
		alts = append(alts, obj{"const": 0})
	}
	o := obj{"description": desc, "anyOf": alts}
	if def != nil {
		o["default"] = def
	}
	return o
}

func jsDuration(desc string, def any) obj {
	return jsUnitValue(desc+" "+strings.ToUpper(timeUnitText("")[:1])+timeUnitText("")[1:]+"; combine as 1h30m; 0 needs no unit.", patDuration, def, true)
}

func jsRate(desc string, def any) obj {
	return jsUnitValue(desc+" A number of records per unit of simulated time: 100/s, 6000/min, 2.5/ms, 3600/h.", patRate, def, true)
}

func jsSize(desc string, def any) obj {
	o := jsUnitValue(desc+" Units: B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024); a plain number is bytes.", patSize, def, false)
	o["anyOf"] = append(o["anyOf"].([]any), obj{"type": "integer", "minimum": 0})
	return o
}

func jsBandwidth(desc string, def any) obj {
	return jsUnitValue(desc+" Bits or bytes per second: 1Gbit/s, 100Mbit/s, 125MB/s, 1GiB/s.", patBandwidth, def, false)
}

// jsNetwork is the schema of a network setting; top says whether it is the
// scenario's (with defaults) or a vertex's override (inheriting them).
func jsNetwork(desc string, top bool) obj {
	text := func(what, def string) string {
		if top {
			return what + " Default " + def + "."
		}
		return what + " Default: the scenario's network setting."
	}
	def := func(v any) any {
		if top {
			return v
		}
		return nil
	}
	capDefault := ""
	if top {
		capDefault = string(Bounded)
	}
	return jsObject(desc, obj{
		"buffer_size":         jsSize(text("Size of a network buffer (Flink's memory segment).", "32KiB"), def("32KiB")),
		"buffers_per_channel": jsInteger(text("Exclusive buffers per input channel: the credit a receiver grants each sender.", "2"), 1, def(2)),
		"floating_buffers":    jsInteger(text("Floating buffers per input gate, shared by its channels.", "8"), 0, def(8)),
		"buffer_timeout":      jsDuration(text("A partly filled buffer is shipped after this time; 0 ships after every record.", "100ms"), def("100ms")),
		"latency":             jsDuration(text("One-way network latency between workers (none within a worker).", "1ms"), def("1ms")),
		"bandwidth":           jsBandwidth(text("Network bandwidth between workers; a transfer takes latency + bytes / bandwidth.", "1Gbit/s"), def("1Gbit/s")),
		"capacity": jsEnum(text("bounded: credit-based flow control (back-pressure); unbounded: no flow control, queues grow without bound (for queueing-theory checks).", "bounded"),
			capacities, capDefault),
	})
}

func jsSource() obj {
	o := jsObject("A source vertex.", obj{
		"name":        jsName(),
		"parallelism": jsInteger("Number of subtasks; each runs the arrival process. Default 1.", 1, 1),
		"arrival":     jsArrival(),
		"keys":        jsKeys(),
		"record_size": jsSize("Size of each record, greater than 0, at most 1GiB. Default 100B.", "100B"),
		"max_rate":    jsRate("Most records per simulated second one subtask can read (fetch from its log or socket): reading a record takes 1/max_rate of busy time. Equal to the arrival rate, it makes a saturated source: behind a bottleneck of rate μ it is back-pressured 1 − μ/max_rate of the time. Greater than 0, at most 1e9/s. Default: no limit (reading costs nothing, so a lagging source catches up as fast as credit allows).", nil),
		"replayable": obj{
			"description": "true: the source reads a log such as Kafka by offset; back-pressure becomes lag, nothing is lost, and it rewinds on recovery. false: a socket; see on_backpressure. Default true.",
			"type":        "boolean", "default": true,
		},
		"on_backpressure": jsEnum("What a non-replayable source (replayable: false) does when back-pressured: block (the producer waits), buffer (arrivals continue into a buffer of buffer_limit records, then are dropped), drop (arrivals are dropped). Default block.", onBackpressures, "block"),
		"buffer_limit":    jsInteger("Records the buffer of on_backpressure: buffer holds. Default 10000.", 1, 10000),
	}, "name", "arrival")
	o["allOf"] = []any{
		obj{
			"if":   obj{"properties": obj{"replayable": obj{"const": false}}, "required": []string{"replayable"}},
			"else": obj{"properties": obj{"on_backpressure": false, "buffer_limit": false}},
		},
		obj{
			"if":   obj{"properties": obj{"on_backpressure": obj{"const": "buffer"}}, "required": []string{"on_backpressure"}},
			"else": obj{"properties": obj{"buffer_limit": false}},
		},
		obj{
			"if": obj{"properties": obj{"arrival": obj{"properties": obj{"process": obj{"const": ArrivalTrace}},
				"required": []string{"process"}}}, "required": []string{"arrival"}},
			"then": obj{"properties": obj{"keys": false}},
		},
	}
	return o
}

func jsKeys() obj {
	o := jsObject("Record keys, drawn independently per record.", obj{
		"count":        jsInteger("Number of distinct keys. Default 1000.", 1, 1000),
		"distribution": jsEnum("uniform: every key equally likely; zipf: the key of rank r has weight 1/r^exponent. Default uniform.", keyDists, "uniform"),
		"exponent":     obj{"description": "Exponent s > 0 of zipf (only with distribution: zipf). Default 1.", "type": "number", "exclusiveMinimum": 0, "default": 1},
	})
	o["if"] = obj{"properties": obj{"distribution": obj{"const": KeysZipf}}, "required": []string{"distribution"}}
	o["else"] = obj{"properties": obj{"exponent": false}}
	return o
}

func jsName() obj {
	return obj{
		"description": "Name of the vertex, unique in the job: ASCII letters, digits, _, - and ., not starting with - or . (at most 64).",
		"type":        "string", "pattern": patName, "maxLength": MaxNameLength,
	}
}

func jsArrival() obj {
	o := jsObject("Arrival process of each subtask; rates are per subtask.", obj{
		"process":  jsEnum("constant: evenly spaced records at rate; poisson: exponential inter-arrival times with mean 1/rate; bursty: on/off (two-state MMPP), Poisson at rate for on_time and at off_rate for off_time, alternately; schedule: piecewise-constant rates; trace: replays a data set or a CSV file at its own timestamps. Required.", processes, ""),
		"rate":     jsRate("Records per simulated second of constant and poisson, and of bursty while on; greater than 0, at most 1e9/s.", nil),
		"off_rate": jsRate("Rate of bursty while off. Default 0.", "0/s"),
		"on_time":  jsDuration("Mean duration of bursty's on periods (exponentially distributed); greater than 0.", nil),
		"off_time": jsDuration("Mean duration of bursty's off periods (exponentially distributed); greater than 0.", nil),
		"schedule": obj{
			"description": "Steps of process schedule, by increasing at; the first at 0s. Records are evenly spaced within a step; a rate of 0 pauses the source.",
			"type":        "array", "minItems": 1,
			"items": jsObject("One step of the schedule.", obj{
				"at":   jsDuration("Simulated time the step starts.", nil),
				"rate": jsRate("Records per simulated second from at until the next step.", nil),
			}, "at", "rate"),
		},
		"trace": jsTrace(),
	}, "process")
	o["allOf"] = jsVariants("process", processes, arrivalApplies, arrivalRequires, "")
	return o
}

// jsVariants builds the if/then rules of a variant field: for each value,
// the fields it requires and those it forbids. deflt is the value assumed
// when the field is absent ("" if required).
func jsVariants(field string, values []string, applies, requires map[string][]string, deflt string) []any {
	var rules []any
	for _, v := range values {
		cond := obj{"properties": obj{field: obj{"const": v}}}
		if v != deflt {
			cond["required"] = []string{field}
		}
		forbid := obj{}
		for _, key := range sortedKeys(applies) {
			if !contains(applies[key], v) {
				forbid[key] = false
			}
		}
		then := obj{"properties": forbid}
		if r := requires[v]; len(r) > 0 {
			then["required"] = r
		}
		rules = append(rules, obj{"if": cond, "then": then})
	}
	return rules
}

func jsServiceTime(sink bool) obj {
	desc := "Time a subtask spends on one record. Required."
	if sink {
		desc = "Time a subtask spends on one record. Default: constant 0 (records leave on arrival)."
	}
	o := jsObject(desc, obj{
		"distribution": jsEnum("constant: always mean; exponential: mean; uniform: between min and max; lognormal: mean and stddev. Default constant.", distributions, "constant"),
		"mean":         jsDuration("Mean service time (constant, exponential, lognormal); greater than 0 except for constant.", nil),
		"min":          jsDuration("Least service time of uniform.", nil),
		"max":          jsDuration("Greatest service time of uniform; at least min.", nil),
		"stddev":       jsDuration("Standard deviation of lognormal; greater than 0.", nil),
	})
	o["allOf"] = jsVariants("distribution", distributions, serviceApplies, serviceRequires, DistConstant)
	return o
}

// jsVertex is the schema of an operator or, with sink, a sink.
func jsVertex(sink bool) obj {
	what := "An operator: processes one record at a time per subtask."
	if sink {
		what = "A sink: takes records out of the job."
	}
	props := obj{
		"name":   jsName(),
		"input":  obj{"description": "Name of the upstream vertex (a source or an operator). Give input or inputs.", "type": "string"},
		"inputs": obj{"description": "Names of several upstream vertices (a join or union). Give input or inputs.", "type": "array", "minItems": 1, "uniqueItems": true, "items": obj{"type": "string"}},
		"partitioning": jsEnum("How records of every input edge are spread over the subtasks: forward (subtask i to subtask i; equal parallelism), rebalance (round-robin), hash (by key group of the record key, keyBy), broadcast (to every subtask), rescale (round-robin over a local subset). Default forward when every input has the same parallelism, else rebalance.",
			partitionings, ""),
		"parallelism":     jsInteger("Number of subtasks. Default 1.", 1, 1),
		"max_parallelism": obj{"description": "Number of key groups of hash partitioning, at least parallelism. Default roundUpToPowerOfTwo(1.5 x parallelism), at least 128 (Flink's default).", "type": "integer", "minimum": 1, "maximum": MaxMaxParallelism},
		"service_time":    jsServiceTime(sink),
		"network":         jsNetwork("Network settings of this vertex's input edges, overriding the scenario's network.", false),
	}
	required := []string{"name", "service_time"}
	if sink {
		required = []string{"name"}
		props["delivery"] = jsEnum("How the sink writes to the outside world: at-least-once (written on arrival; records replayed after a failure are written again), at-most-once (written on arrival; after a restart, replays up to the position written are skipped), idempotent (upsert by record id: replays overwrite), transactional (two-phase commit, what Flink calls exactly-once: output becomes visible when the checkpoint that covers it completes; needs checkpoints). Default at-least-once.",
			deliveries, DeliveryAtLeastOnce)
	} else {
		props["selectivity"] = obj{"description": "Output records per input record: a filter 0.3, a flatMap 2.5. At most 1000 (each input record emits that many). Default 1.", "type": "number", "minimum": 0, "maximum": MaxSelectivity, "default": 1}
		props["state"] = jsObject("Keyed state of the operator: bytes_per_key for every distinct key a subtask has seen, kept in the state backend and snapshotted by checkpoints. Needs partitioning: hash (keyBy). Default: stateless.", obj{
			"bytes_per_key": jsSize("State per key, greater than 0, at most 1GiB. Required.", nil),
		}, "bytes_per_key")
	}
	o := jsObject(what, props, required...)
	o["oneOf"] = []any{
		obj{"required": []string{"input"}},
		obj{"required": []string{"inputs"}},
	}
	if !sink {
		o["if"] = obj{"required": []string{"state"}}
		o["then"] = obj{"properties": obj{"partitioning": obj{"const": PartitionHash}}, "required": []string{"partitioning"}}
	}
	return o
}
