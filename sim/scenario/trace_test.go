package scenario

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

const traceSinks = "sinks: [{name: out, input: src}]\nduration: 10s\n"

func TestParseTraceDataset(t *testing.T) {
	s := mustParse(t, "t.yaml", `duration: 60s
sources:
  - name: src
    parallelism: 4
    arrival:
      process: trace
      trace: {dataset: clusterdata-2011-2/task_events, parts: 1, speedup: 60, key_column: machine_id,
              filter: {event_type: [SCHEDULE, FINISH]}, max_delay: 30s}
sinks: [{name: out, input: src, parallelism: 4}]
`)
	want := &Trace{Dataset: "clusterdata-2011-2/task_events", Parts: "1", Speedup: 60, KeyColumn: "machine_id",
		Filter:    []TraceFilter{{Column: "event_type", Values: []string{"SCHEDULE", "FINISH"}}},
		MaxDelay:  30 * des.Second,
		Malformed: TraceSkip}
	if got := s.Sources[0].Arrival.Trace; !reflect.DeepEqual(got, want) {
		t.Errorf("trace = %+v, want %+v", got, want)
	}
	if line, col := s.Pos("sources[0].arrival.trace.filter.event_type"); line != 8 || col != 36 {
		t.Errorf("Pos(filter.event_type) = %d:%d, want 8:39", line, col)
	}
}

func TestParseTraceFile(t *testing.T) {
	s := mustParse(t, "t.yaml", `duration: 60s
sources:
  - name: src
    arrival:
      process: trace
      trace:
        file: data/rides.csv.gz
        columns: [id, start, end, vendor]
        time_column: start
        time_unit: ms
        filter: {vendor: 2}
        malformed: strict
`+"sinks: [{name: out, input: src}]\n")
	want := &Trace{File: "data/rides.csv.gz", Columns: []string{"id", "start", "end", "vendor"}, TimeColumn: "start",
		TimeUnit: "ms", Speedup: 1, Filter: []TraceFilter{{Column: "vendor", Values: []string{"2"}}}, Malformed: TraceStrict}
	if got := s.Sources[0].Arrival.Trace; !reflect.DeepEqual(got, want) {
		t.Errorf("trace = %+v, want %+v", got, want)
	}
}

// traceErrorCases are trace sources with mistakes and the exact errors
// Parse reports.
var traceErrorCases = []struct {
	name   string
	source string // the source's lines after "  - name: src\n"
	want   []string
}{
	{"no trace", `    arrival: {process: trace}
`, []string{`t.yaml:5:14: sources[0].arrival: missing required field "trace" for process trace`}},
	{"neither dataset nor file", `    arrival: {process: trace, trace: {speedup: 60}}
`, []string{`t.yaml:5:38: sources[0].arrival.trace: missing required field "dataset" (or "file" for a CSV file)`}},
	{"both dataset and file", `    arrival: {process: trace, trace: {dataset: a/b, file: x.csv}}
`, []string{`t.yaml:5:53: sources[0].arrival.trace.file: give either dataset or file, not both`}},
	{"file without columns", `    arrival: {process: trace, trace: {file: x.csv, parts: 0-2}}
`, []string{
		`t.yaml:5:38: sources[0].arrival.trace: missing required field "columns" for a file (it has no header row)`,
		`t.yaml:5:38: sources[0].arrival.trace: missing required field "time_column" for a file (it has no header row)`,
		`t.yaml:5:38: sources[0].arrival.trace: missing required field "time_unit" for a file (it has no header row)`,
		`t.yaml:5:52: sources[0].arrival.trace.parts: "parts" applies only to a dataset; a file is read whole`,
	}},
	{"dataset with columns", `    arrival: {process: trace, trace: {dataset: a/b, columns: [x]}}
`, []string{`t.yaml:5:53: sources[0].arrival.trace.columns: "columns" applies only to a file; a data set's columns come from the registry`}},
	{"unknown columns", `    arrival:
      process: trace
      trace: {file: x.csv, columns: [ts, machine, type], time_column: time, time_unit: us, key_column: machin, filter: {kind: 4}}
`, []string{
		`t.yaml:7:71: sources[0].arrival.trace.time_column: unknown column "time"; did you mean "type"?`,
		`t.yaml:7:104: sources[0].arrival.trace.key_column: unknown column "machin"; did you mean "machine"?`,
		`t.yaml:7:127: sources[0].arrival.trace.filter.kind: unknown column "kind"; columns are ts, machine, type`,
	}},
	{"bad values", `    arrival:
      process: trace
      trace: {dataset: a/b, parts: 3-1, speedup: 0, max_delay: -1s, time_unit: sec, malformed: ignore}
`, []string{
		`t.yaml:7:36: sources[0].arrival.trace.parts: range 3-1 is backwards; write 1-3`,
		`t.yaml:7:50: sources[0].arrival.trace.speedup: must be greater than 0 (seconds of the trace per simulated second), got 0`,
		`t.yaml:7:64: sources[0].arrival.trace.max_delay: must not be negative, got -1s`,
		`t.yaml:7:80: sources[0].arrival.trace.time_unit: unknown time unit "sec"; expected ns, us, ms or s`,
		`t.yaml:7:96: sources[0].arrival.trace.malformed: unknown mode "ignore"; expected skip or strict`,
	}},
	{"bad parts and columns", `    arrival:
      process: trace
      trace: {file: x.csv, columns: [a, a, {b: 1}], time_column: a, time_unit: s, speedup: fast}
`, []string{
		`t.yaml:7:41: sources[0].arrival.trace.columns[1]: column "a" is listed twice`,
		`t.yaml:7:44: sources[0].arrival.trace.columns[2]: expected a column name, got a mapping`,
		`t.yaml:7:92: sources[0].arrival.trace.speedup: expected a number, got "fast"`,
	}},
	{"bad filters", `    arrival:
      process: trace
      trace: {dataset: a/b, parts: "x", filter: {event_type: [], user: {a: 1}, 7: [1, [2]]}}
`, []string{
		`t.yaml:7:36: sources[0].arrival.trace.parts: expected parts such as 1, 0-2, 0,3-5 or all, got "x"`,
		`t.yaml:7:62: sources[0].arrival.trace.filter.event_type: the list of values is empty; give at least one value, such as FINISH or [FAIL, KILL], or leave the column out`,
		`t.yaml:7:72: sources[0].arrival.trace.filter.user: expected a value or a list of values such as FINISH or [FAIL, KILL], got a mapping`,
		`t.yaml:7:87: sources[0].arrival.trace.filter.7[1]: expected a value such as FINISH or 4, got a list`,
	}},
	{"filter not a mapping", `    arrival: {process: trace, trace: {dataset: a/b, filter: FINISH}}
`, []string{`t.yaml:5:61: sources[0].arrival.trace.filter: expected a mapping from a column to its values, such as {event_type: FINISH}, got "FINISH"`}},
	{"keys with a trace", `    arrival: {process: trace, trace: {dataset: a/b}}
    keys: {count: 10}
`, []string{`t.yaml:6:5: sources[0].keys: "keys" does not apply to process trace, topic or queue: a trace source takes its keys from the trace's key_column, a topic's or a queue's reader from its producers`}},
	{"trace with another process", `    arrival: {process: poisson, rate: 1/s, trace: {dataset: a/b}}
`, []string{`t.yaml:5:44: sources[0].arrival.trace: "trace" applies only to process trace, not poisson`}},
	{"unknown trace field", `    arrival: {process: trace, trace: {dataset: a/b, speed_up: 60}}
`, []string{`t.yaml:5:53: sources[0].arrival.trace.speed_up: unknown field "speed_up"; did you mean "speedup"?`}},
}

func TestParseTraceErrors(t *testing.T) {
	for _, c := range traceErrorCases {
		t.Run(c.name, func(t *testing.T) {
			text := traceSinks + "sources:\n  - name: src\n" + c.source
			_, err := Parse("t.yaml", []byte(text))
			if err == nil {
				t.Fatalf("no error; want:\n%s", strings.Join(c.want, "\n"))
			}
			if got := err.Error(); got != strings.Join(c.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(c.want, "\n"))
			}
		})
	}
}

// A Scenario built in Go may leave Trace nil; one that gives it is checked.
func TestValidateBuiltTrace(t *testing.T) {
	s := mustParse(t, "t.yaml", traceSinks+"sources: [{name: src, arrival: {process: constant, rate: 1/s}}]\n")
	s.positions = nil
	s.Sources[0].Arrival = Arrival{Process: ArrivalTrace}
	if err := s.Validate(); err != nil {
		t.Errorf("a trace source without a Trace: %v", err)
	}
	s.Sources[0].Arrival.Trace = &Trace{File: "x.csv", Parts: "1", Columns: []string{"t", ""}, Speedup: -1, Malformed: "skip"}
	want := []string{
		`t.yaml: sources[0].arrival.trace.parts: "parts" applies only to a dataset; a file is read whole`,
		`t.yaml: sources[0].arrival.trace.columns[1]: must not be empty`,
		`t.yaml: sources[0].arrival.trace.time_column: a file needs its time column`,
		`t.yaml: sources[0].arrival.trace.time_unit: a file needs the unit of its time column (ns, us, ms or s)`,
		`t.yaml: sources[0].arrival.trace.speedup: must be greater than 0 (seconds of the trace per simulated second), got -1`,
	}
	if err := s.Validate(); err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("got:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	s.Sources[0].Arrival.Trace = &Trace{Speedup: 1, Malformed: "skip"}
	if err := s.Validate(); err == nil || err.Error() != "t.yaml: sources[0].arrival.trace.dataset: give a dataset or a file to replay" {
		t.Errorf("no dataset or file: %v", err)
	}
}

func TestParseParts(t *testing.T) {
	for _, c := range []struct {
		in    string
		count int
		want  []int
		err   string
	}{
		{"1", 500, []int{1}, ""},
		{"0-2", 500, []int{0, 1, 2}, ""},
		{" 5 , 0-1,1 ", 500, []int{0, 1, 5}, ""},
		{"all", 3, []int{0, 1, 2}, ""},
		{"all", 0, nil, ""},
		{"499", 500, []int{499}, ""},
		{"500", 500, nil, "part 500 is out of range; the data set has parts 0-499"},
		{"0-600", 500, nil, "part 0-600 is out of range; the data set has parts 0-499"},
		{"2-1", 0, nil, "range 2-1 is backwards; write 1-2"},
		{"", 0, nil, `expected parts such as 1, 0-2, 0,3-5 or all, got ""`},
		{"1,", 0, nil, `expected parts such as 1, 0-2, 0,3-5 or all, got "1,"`},
		{"-1", 0, nil, `expected parts such as 1, 0-2, 0,3-5 or all, got "-1"`},
		{"99999999999999999999", 0, nil, "part 99999999999999999999 is out of range; parts are numbered from 0 to at most 99999"},
		{"0-99999", 0, nil, ""},
	} {
		got, err := ParseParts(c.in, c.count)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("ParseParts(%q, %d): err = %v, want %q", c.in, c.count, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("ParseParts(%q, %d): %v", c.in, c.count, err)
		case c.err == "" && c.want != nil && !slices.Equal(got, c.want):
			t.Errorf("ParseParts(%q, %d) = %v, want %v", c.in, c.count, got, c.want)
		}
	}
}

// The schema's trace object has the decoder's fields, and it accepts the
// valid traces and rejects what it can see of the invalid ones.
func TestJSONSchemaTrace(t *testing.T) {
	var top map[string]any
	if err := json.Unmarshal(JSONSchema(), &top); err != nil {
		t.Fatal(err)
	}
	v := any(top)
	for _, p := range []string{"properties", "sources", "items", "properties", "arrival", "properties", "trace", "properties"} {
		v = v.(map[string]any)[p]
	}
	var keys []string
	for k, p := range v.(map[string]any) {
		keys = append(keys, k)
		if d, _ := p.(map[string]any)["description"].(string); d == "" {
			t.Errorf("trace.%s: no description", k)
		}
	}
	slices.Sort(keys)
	want := slices.Sorted(slices.Values(traceMapping.names()))
	if !slices.Equal(keys, want) {
		t.Errorf("schema has %v, decoder %v", keys, want)
	}

	sch := compileSchema(t)
	for _, src := range []string{
		"    arrival: {process: trace, trace: {dataset: a/b}}\n",
		"    arrival: {process: trace, trace: {dataset: a/b, parts: 1}}\n",
		"    arrival: {process: trace, trace: {dataset: a/b, parts: '0-2, 5', speedup: 60, max_delay: 1m, filter: {event_type: [FAIL, 3]}, malformed: strict}}\n",
		"    arrival: {process: trace, trace: {file: x.csv, columns: [t, k], time_column: t, time_unit: us, key_column: k}}\n",
	} {
		text := traceSinks + "sources:\n  - name: src\n" + src
		if _, err := Parse("t.yaml", []byte(text)); err != nil {
			t.Errorf("Parse rejects %q: %v", src, err)
		}
		if err := sch.Validate(instance(t, []byte(text))); err != nil {
			t.Errorf("schema rejects %q: %v", src, err)
		}
	}
	for _, c := range traceErrorCases {
		if c.name == "bad values" || c.name == "unknown columns" || c.name == "bad filters" {
			continue // ranges, column names, a number as a key: Parse's checks, not the schema's
		}
		text := traceSinks + "sources:\n  - name: src\n" + c.source
		if err := sch.Validate(instance(t, []byte(text))); err == nil {
			t.Errorf("%s: schema accepts it", c.name)
		}
	}
}
