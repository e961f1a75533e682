package scenario

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// compileSchema compiles JSONSchema, which also checks it against the
// draft-07 meta-schema.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return compileSchemaBytes(t, JSONSchema())
}

// compileSchemaOf compiles the schema o of one mapping.
func compileSchemaOf(t *testing.T, o map[string]any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return compileSchemaBytes(t, b)
}

func compileSchemaBytes(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("JSONSchema is not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource("scenario.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("scenario.schema.json")
	if err != nil {
		t.Fatalf("JSONSchema does not compile: %v", err)
	}
	return sch
}

// instance converts a YAML scenario to the JSON value an editor validates.
func instance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestJSONSchemaIsValidAndStable(t *testing.T) {
	a, b := JSONSchema(), JSONSchema()
	if !json.Valid(a) || !bytes.Equal(a, b) {
		t.Fatal("JSONSchema is not valid JSON or not deterministic")
	}
	var top map[string]any
	if err := json.Unmarshal(a, &top); err != nil {
		t.Fatal(err)
	}
	if top["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("$schema = %v", top["$schema"])
	}
	compileSchema(t)
}

// The schema's objects have exactly the keys the decoder accepts, and every
// property has a description.
func TestJSONSchemaMatchesDecoder(t *testing.T) {
	var top map[string]any
	if err := json.Unmarshal(JSONSchema(), &top); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) map[string]any {
		v := any(top)
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v.(map[string]any)
	}
	props := func(o map[string]any) map[string]any { return o["properties"].(map[string]any) }
	cases := []struct {
		path   []string
		fields []string
	}{
		{nil, topMapping.names()},
		{[]string{"properties", "workers"}, workersMapping.names()},
		{[]string{"properties", "network"}, networkMapping.names()},
		{[]string{"properties", "metrics"}, metricsMapping.names()},
		{[]string{"properties", "checkpoint"}, checkpointMapping.names()},
		{[]string{"properties", "checkpoint", "properties", "storage"}, storageMapping.names()},
		{[]string{"properties", "state_backend"}, backendMapping.names()},
		{[]string{"properties", "restart"}, restartMapping.names()},
		{[]string{"properties", "high_availability"}, haMapping.names()},
		{[]string{"properties", "failures", "items"}, failureMapping.names()},
		{[]string{"properties", "operators", "items", "properties", "state"}, keyedStateMapping.names()},
		{[]string{"properties", "sources", "items"}, sourceMapping.names()},
		{[]string{"properties", "sources", "items", "properties", "arrival"}, arrivalMapping.names()},
		{[]string{"properties", "sources", "items", "properties", "arrival", "properties", "schedule", "items"}, stepMapping.names()},
		{[]string{"properties", "sources", "items", "properties", "keys"}, keysMapping.names()},
		{[]string{"properties", "operators", "items"}, operatorMapping.names()},
		{[]string{"properties", "operators", "items", "properties", "service_time"}, serviceTimeMapping.names()},
		{[]string{"properties", "operators", "items", "properties", "network"}, networkMapping.names()},
		{[]string{"properties", "sinks", "items"}, sinkMapping.names()},
		{[]string{"properties", "sinks", "items", "properties", "service_time"}, serviceTimeMapping.names()},
		{[]string{"properties", "sinks", "items", "properties", "network"}, networkMapping.names()},
	}
	for _, c := range cases {
		o := get(c.path...)
		if o["additionalProperties"] != false {
			t.Errorf("%v: additionalProperties is not false", c.path)
		}
		if d, _ := o["description"].(string); d == "" && c.path != nil {
			t.Errorf("%v: no description", c.path)
		}
		var keys []string
		for k, v := range props(o) {
			keys = append(keys, k)
			if d, _ := v.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%v.%s: no description", c.path, k)
			}
		}
		slices.Sort(keys)
		want := slices.Clone(c.fields)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%v: schema has %v, decoder %v", c.path, keys, want)
		}
	}
}

// Every scenario that Parse accepts validates against the schema: the
// testdata, the built-in library and the valid fuzz seeds.
func TestJSONSchemaAcceptsScenarios(t *testing.T) {
	sch := compileSchema(t)
	var files []string
	for _, pattern := range []string{"testdata/*.yaml", "../../scenarios/*.yaml", "testdata/valid/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err != nil {
			t.Errorf("%s does not parse: %v", f, err)
			continue
		}
		if err := sch.Validate(instance(t, data)); err != nil {
			t.Errorf("%s: schema rejects it: %v", f, err)
		}
	}
	for _, c := range errorCases {
		if len(c.want) == 0 {
			if err := sch.Validate(instance(t, []byte(c.yaml))); err != nil {
				t.Errorf("%s: schema rejects it: %v", c.name, err)
			}
		}
	}
	for _, text := range []string{minimal} {
		if err := sch.Validate(instance(t, []byte(text))); err != nil {
			t.Errorf("schema rejects %q: %v", text, err)
		}
	}
}

// The schema rejects the mistakes it can see: unknown fields, wrong types,
// bad unit strings, unknown enum values, missing and inapplicable fields.
func TestJSONSchemaRejects(t *testing.T) {
	sch := compileSchema(t)
	reject := []string{
		"unknown field with suggestion", "unknown field without suggestion", "case and dash typos",
		"wrong types", "bad unit strings", "unknown enum values", "missing required fields",
		"missing per variant", "input and inputs", "no source and no sink", "empty source and sink lists",
		"source not a mapping", "top level not a mapping", "bad names",
		"names not ASCII or starting with - or .", "old bursty field names", "max_rate out of range",
		"name and description not one line", "description too long", "absurd values",
		"fault tolerance unknown fields with suggestions", "fault tolerance fields of another variant",
		"fault tolerance unknown enum values", "failures missing or conflicting fields", "keyed state without keyBy",
		"transactional sink without checkpoints", "fault tolerance wrong types and units",
	}
	for _, c := range errorCases {
		// Every mistake in a checkpoint setting is one the schema sees.
		if !slices.Contains(reject, c.name) && !(strings.HasPrefix(c.name, "checkpoint ") && len(c.want) > 0) {
			continue
		}
		if err := sch.Validate(instance(t, []byte(c.yaml))); err == nil {
			t.Errorf("%s: schema accepts it", c.name)
		}
	}
	// Each inapplicable field alone.
	base := "duration: 10s\nsinks: [{name: out, input: src}]\nsources:\n  - name: src\n"
	for _, extra := range []string{
		"    arrival: {process: constant, rate: 10/s, on_time: 1s}\n",
		"    arrival: {process: bursty, rate: 10/s, on_time: 1s}\n",
		"    arrival: {process: bursty, rate: 10/s, on: 1s, off: 1s}\n",
		"    arrival: {process: schedule, rate: 10/s, schedule: [{at: 0s, rate: 1/s}]}\n",
		"    arrival: {process: constant, rate: 10/s}\n    keys: {exponent: 2}\n",
		"    arrival: {process: constant, rate: 10/s}\n    on_backpressure: drop\n",
		"    arrival: {process: constant, rate: 10/s}\n    replayable: false\n    buffer_limit: 5\n",
		"    arrival: {process: constant, rate: 10/s}\n    record_size: 10 bytes\n",
	} {
		if err := sch.Validate(instance(t, []byte(base+extra))); err == nil {
			t.Errorf("schema accepts %q", extra)
		}
		if _, err := Parse("x.yaml", []byte(base+extra)); err == nil {
			t.Errorf("Parse accepts %q", extra)
		}
	}
	ok := base + "    max_rate: 20/s\n    arrival: {process: bursty, rate: 10/s, on_time: 1s, off_time: 2s}\n    replayable: false\n    on_backpressure: buffer\n    buffer_limit: 5\n    keys: {distribution: zipf, exponent: 1.1}\n"
	if err := sch.Validate(instance(t, []byte(ok))); err != nil {
		t.Errorf("schema rejects %q: %v", ok, err)
	}
	if _, err := Parse("x.yaml", []byte(ok)); err != nil {
		t.Errorf("Parse rejects %q: %v", ok, err)
	}
}

// The patterns of the schema accept what the unit parsers accept.
func TestJSONSchemaPatterns(t *testing.T) {
	var top map[string]any
	if err := json.Unmarshal(JSONSchema(), &top); err != nil {
		t.Fatal(err)
	}
	s := string(JSONSchema())
	for _, p := range []string{patDuration, patRate, patSize, patBandwidth, patName, patText, patZero} {
		q, _ := json.Marshal(p)
		if !strings.Contains(s, string(q)) {
			t.Errorf("pattern %s is not in the schema", p)
		}
	}
	sch := compileSchema(t)
	check := func(field, value string, want bool) {
		t.Helper()
		doc := "duration: 10s\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}]\n" + field + ": " + value + "\n"
		got := sch.Validate(instance(t, []byte(doc))) == nil
		if got != want {
			t.Errorf("%s: %s: schema accepts = %v, want %v", field, value, got, want)
		}
	}
	checkRate := func(value string, want bool) {
		t.Helper()
		doc := "duration: 10s\nsources: [{name: s, arrival: {process: constant, rate: " + value + "}}]\nsinks: [{name: k, input: s}]\n"
		if got := sch.Validate(instance(t, []byte(doc))) == nil; got != want {
			t.Errorf("rate %s: schema accepts = %v, want %v", value, got, want)
		}
	}
	// Durations and rates share one vocabulary of time units (issue 12,
	// point 15): what the parser takes, the schema takes, with or without
	// a space before the unit, and both refuse the same.
	for _, v := range []string{"250ms", "1.5s", "1h30m", "500us", "500µs", "100ns", "0", "250 ms", "2min", "10sec", "10 s", "1h30min", "1 min 30 sec"} {
		check("warmup", v, true)
		if _, err := ParseDuration(v); err != nil {
			t.Errorf("ParseDuration(%q): %v", v, err)
		}
	}
	for _, v := range []string{"5", "2mins", "1s-", "fast", "10 secs", "2S"} {
		check("warmup", v, false)
		if _, err := ParseDuration(v); err == nil {
			t.Errorf("ParseDuration(%q) accepted it", v)
		}
	}
	for _, v := range []string{"100/s", "100/sec", "6000/min", "6000/m", "2.5/ms", "1/µs", "100 / s"} {
		checkRate(v, true)
		if _, err := ParseRate(v); err != nil {
			t.Errorf("ParseRate(%q): %v", v, err)
		}
	}
	for _, v := range []string{"100/mins", "100/d", "100", "100/S"} {
		checkRate(v, false)
		if _, err := ParseRate(v); err == nil {
			t.Errorf("ParseRate(%q) accepted it", v)
		}
	}
	for _, v := range []string{"1Gbit/s", "100Mbit/s", "10kbit/s", "10MB/s", "1GiB/s", "1Gbps", "1 Gbit / s"} {
		check("network", "{bandwidth: "+v+"}", true)
	}
	for _, v := range []string{"1Gbit", "1Gb/s", "1000"} {
		check("network", "{bandwidth: "+v+"}", false)
	}
	for _, v := range []string{"32KiB", "1KB", "100B", "1.5 MiB"} {
		check("network", "{buffer_size: "+v+"}", true)
	}
	for _, v := range []string{"100b", "1.5", "100", "512", "big"} {
		check("network", "{buffer_size: "+v+"}", false)
	}
	for _, v := range []string{`"plain"`, `"Szenario – δοκιμή 🚀"`, `"tabs\tare not"`, `"a\nb"`, `"\e[31mred"`, `"\u0085"`, `"\x7f"`} {
		_, err := Parse("x.yaml", []byte("duration: 10s\nsources: [{name: s, arrival: {process: constant, rate: 1/s}}]\nsinks: [{name: k, input: s}]\ndescription: "+v+"\n"))
		check("description", v, err == nil)
		check("name", v, err == nil)
	}
}

// The schema sees each mistake in the settings of fault tolerance alone,
// as Parse does, and accepts what Parse accepts.
func TestJSONSchemaFaultTolerance(t *testing.T) {
	sch := compileSchema(t)
	base := "duration: 2m\nsources: [{name: src, arrival: {process: constant, rate: 10/s}}]\n"
	sink := "sinks: [{name: out, input: src}]\n"
	for _, bad := range []string{
		sink + "workers: {heartbeat: 5s}\n",
		sink + "restart: {type: none, attempts: 3}\n",
		sink + "restart: {multiplier: 3}\n",
		sink + "restart: {type: exponential-delay, delay: 1s}\n",
		sink + "restart: {type: failure-rate, attempts: 1}\n",
		sink + "restart: {type: exponential-delay, jitter: 1}\n",
		sink + "restart: {type: exponential-delay, multiplier: 0.5}\n",
		sink + "restart: {attempts: -2}\n",
		sink + "restart: {type: fixed}\n",
		sink + "high_availability: {leader_election: 5s}\n",
		sink + "high_availability: {type: none, leader_election: 5s}\n",
		sink + "state_backend: {type: rocksdb, gc_interval: 10s}\n",
		sink + "state_backend: {gc_pause_per_gib: 1s}\n",
		sink + "checkpoint: {mode: aligned, interval: 1s, aligned_timeout: 1s}\n",
		sink + "checkpoint: {mode: stop-the-world, interval: 1s, max_concurrent: 2}\n",
		sink + "checkpoint: {mode: aligned, interval: 1s, tolerable_failures: -2}\n",
		sink + "checkpoint: {incremental: true}\n",
		sink + "checkpoint: {mode: aligned, interval: 1s, incremental: true}\n",
		sink + "checkpoint: {mode: aligned, interval: 1s, incremental: true}\nstate_backend: {type: heap}\n",
		sink + "checkpoint: {mode: aligned, interval: 1s, storage: {bandwidth: 100MiB}}\n",
		"sinks: [{name: out, input: src, delivery: exactly-once}]\n",
		"sinks: [{name: out, input: src, delivery: transactional}]\n",
		"sinks: [{name: out, input: src, delivery: transactional}]\ncheckpoint: {mode: none}\n",
		"operators: [{name: op, input: src, service_time: {mean: 1ms}, state: {bytes_per_key: 1KiB}}]\nsinks: [{name: out, input: op}]\n",
		"operators: [{name: op, input: src, partitioning: rebalance, service_time: {mean: 1ms}, state: {bytes_per_key: 1KiB}}]\nsinks: [{name: out, input: op}]\n",
		"operators: [{name: op, input: src, partitioning: hash, service_time: {mean: 1ms}, state: {}}]\nsinks: [{name: out, input: op}]\n",
		sink + "failures: [{at: 1s}]\n",
		sink + "failures: [{kind: crash, at: 1s}]\n",
		sink + "failures: [{kind: worker}]\n",
		sink + "failures: [{kind: worker, at: 1s, mtbf: 1h}]\n",
		sink + "failures: [{kind: worker, mtbf: 1h, worker: 1}]\n",
		sink + "failures: [{kind: task, mtbf: 1h, vertex: src}]\n",
		sink + "failures: [{kind: slowdown, mtbf: 1h, duration: 1s}]\n",
		sink + "failures: [{kind: task, at: 1s}]\n",
		sink + "failures: [{kind: task, at: 1s, vertex: src, worker: 0}]\n",
		sink + "failures: [{kind: worker, at: 1s, vertex: src}]\n",
		sink + "failures: [{kind: slowdown, at: 1s}]\n",
		sink + "failures: [{kind: slowdown, at: 1s, duration: 1s, vertex: src, worker: 0}]\n",
		sink + "failures: [{kind: slowdown, at: 1s, duration: 1s, subtask: 0}]\n",
		sink + "failures: [{kind: slowdown, at: 1s, duration: 1s, vertex: src, factor: 1}]\n",
		sink + "failures: [{kind: network-partition, at: 1s, duration: 1s, factor: 2}]\n",
		sink + "failures: [{kind: storage-outage, at: 1s}]\n",
		sink + "failures: [{kind: jobmanager, at: 1s, worker: 0}]\n",
		sink + "failures: [{kind: worker, at: 1s, worker: -1}]\n",
		sink + "failures: {kind: worker, at: 1s}\n",
	} {
		if err := sch.Validate(instance(t, []byte(base+bad))); err == nil {
			t.Errorf("schema accepts %q", bad)
		}
		if _, err := Parse("x.yaml", []byte(base+bad)); err == nil {
			t.Errorf("Parse accepts %q", bad)
		}
	}
	for _, ok := range []string{
		sink + "workers: {count: 2, memory: 1GiB, heartbeat_timeout: 50s}\nfailures: [{kind: worker, at: 1s, worker: 1}]\n",
		sink + "restart: {type: none}\n",
		sink + "restart: {type: fixed-delay, attempts: 3, delay: 10s}\n",
		sink + "restart: {attempts: -1}\n",
		sink + "restart: {type: exponential-delay, attempts: 3, initial_backoff: 1s, max_backoff: 1m, multiplier: 2, jitter: 0.1, reset_threshold: 1h}\n",
		sink + "restart: {type: failure-rate, delay: 10s, max_failures_per_interval: 1, failure_rate_interval: 1m}\n",
		sink + "high_availability: {type: zookeeper, leader_election: 5s}\n",
		sink + "state_backend: {type: heap, access_time: 200ns, gc_interval: 10s, gc_pause_per_gib: 200ms}\n",
		sink + "state_backend: {type: rocksdb, access_time: 5us}\n",
		sink + "checkpoint: {mode: unaligned, interval: 10s, aligned_timeout: 2s}\n",
		sink + "checkpoint: {mode: stop-the-world, interval: 10s, tolerable_failures: 3, storage: {bandwidth: 100MiB/s, latency: 10ms}}\n",
		sink + "checkpoint: {mode: aligned, interval: 10s, incremental: true}\nstate_backend: {type: rocksdb}\n",
		sink + "checkpoint: {mode: aligned, interval: 10s, incremental: false}\n",
		"sinks: [{name: out, input: src, delivery: transactional}]\ncheckpoint: {mode: aligned, interval: 10s}\n",
		"sinks: [{name: a, input: src, delivery: idempotent}, {name: b, input: src, delivery: at-most-once}]\n",
		"operators: [{name: op, input: src, partitioning: hash, service_time: {mean: 1ms}, state: {bytes_per_key: 1KiB}}]\nsinks: [{name: out, input: op}]\n",
		sink + "failures: [{kind: task, at: 1s, vertex: src, subtask: 0}, {kind: worker, at: 1s, worker: 0}, {kind: jobmanager, at: 1s}]\n",
		sink + "failures: [{kind: slowdown, at: 1s, vertex: src, subtask: 0, factor: 4, duration: 30s}, {kind: slowdown, at: 1s, worker: 0, duration: 1s}]\n",
		sink + "failures: [{kind: network-partition, at: 50s, worker: 0, duration: 10s}, {kind: storage-outage, at: 40s, duration: 2m}]\n",
		sink + "failures: [{kind: worker, mtbf: 10m}, {kind: task, mtbf: 1h}, {kind: jobmanager, mtbf: 1h}]\n",
	} {
		if err := sch.Validate(instance(t, []byte(base+ok))); err != nil {
			t.Errorf("schema rejects %q: %v", ok, err)
		}
		if _, err := Parse("x.yaml", []byte(base+ok)); err != nil {
			t.Errorf("Parse rejects %q: %v", ok, err)
		}
	}
}

// The scenarios of the validate scripts (cmd/dspalab/testdata/script): the
// schema accepts what Parse accepts, and refuses each bad file whose
// mistakes are of shape (unknown fields, wrong types, bad units, values
// out of the schema's bounds); graph mistakes (a cycle, a dangling input,
// forward between parallelisms) are Parse's alone.
func TestJSONSchemaOnValidateScripts(t *testing.T) {
	sch := compileSchema(t)
	graphOnly := map[string]bool{"validate_cycle.txtar": true, "validate_dangling_input.txtar": true, "validate_forward_parallelism.txtar": true}
	files, _ := filepath.Glob("../../cmd/dspalab/testdata/script/validate_*.txtar")
	if len(files) < 8 {
		t.Fatalf("found %d validate scripts", len(files))
	}
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if !strings.HasSuffix(f.Name, ".yaml") {
				continue
			}
			_, perr := Parse(f.Name, f.Data)
			serr := sch.Validate(instance(t, f.Data))
			switch base := filepath.Base(file); {
			case perr == nil && serr != nil:
				t.Errorf("%s/%s: Parse accepts it, the schema refuses it: %v", base, f.Name, serr)
			case perr != nil && serr == nil && !graphOnly[base]:
				t.Errorf("%s/%s: the schema accepts what Parse refuses:\n%v", base, f.Name, perr)
			}
		}
	}
}
