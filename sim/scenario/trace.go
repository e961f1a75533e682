package scenario

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
)

// Trace is what a source with process trace replays: a named data set of
// the registry (Dataset, with Parts) or a CSV file (File, with Columns),
// each a CSV or gzip-compressed CSV without a header row. The records come
// at the trace's own timestamps, shifted so that the first one is at 0 and
// divided by Speedup, as the DSPA course's sources served them
// (servingSpeedFactor, maxEventDelaySecs).
//
// Parse checks the shape of a trace; whether the data set, its parts and
// its columns exist, and whether the file can be read, is checked by the
// program that opens the trace (the simulator opens no file).
type Trace struct {
	// Dataset is the name of a data set of the registry, such as
	// "clusterdata-2011-2/task_events"; Parts selects its part files
	// ("1", "0-2", "0,3-5", "all"; "" means the data set's default).
	Dataset string
	Parts   string
	// File is a CSV or CSV.gz file, relative to the scenario file's
	// directory; Columns names its columns in order (it has no header
	// row). Give either Dataset or File.
	File    string
	Columns []string
	// TimeColumn holds the event timestamps, in TimeUnit (one of
	// TimeUnits); both default to the data set's and are required with a
	// File.
	TimeColumn string
	TimeUnit   string
	// KeyColumn holds the record keys: an integer id that fits in 32 bits
	// is the key itself, any other value is hashed. "" means the data
	// set's key column, or, for a File, the record's number in the trace.
	KeyColumn string
	// Speedup is how many seconds of the trace one simulated second
	// replays (60: a minute of events per second); default 1.
	Speedup float64
	// MaxDelay bounds a random serving delay added to each event, in trace
	// time (maxEventDelaySecs): the records then arrive out of event-time
	// order, as in the course's sources. Default 0.
	MaxDelay des.Time
	// Filter keeps only the rows whose columns hold one of the values
	// given (all filters must match). A value is the text of the field or,
	// for a data set, the name of a code such as FINISH.
	Filter []TraceFilter
	// Malformed says what a malformed line does: TraceSkip (default:
	// skipped and counted) or TraceStrict (the run stops).
	Malformed string
}

// TraceFilter keeps the rows whose Column holds one of Values.
type TraceFilter struct {
	Column string
	Values []string
}

// What a trace source does with a malformed line.
const (
	TraceSkip   = "skip"   // skip the line and count it (default)
	TraceStrict = "strict" // stop the run with an error naming the line
)

// TimeUnits are the units a trace's time column may be in.
var TimeUnits = []string{"ns", "us", "ms", "s"}

// TimeUnitLength returns the length of one time unit of a trace (one of
// TimeUnits) in nanoseconds, or 0 for an unknown unit.
func TimeUnitLength(unit string) des.Time {
	switch unit {
	case "ns":
		return des.Nanosecond
	case "us":
		return des.Microsecond
	case "ms":
		return des.Millisecond
	case "s":
		return des.Second
	}
	return 0
}

// MaxParts is the largest number of parts a selection may list.
const MaxParts = 100000

// MaxSpeedup is the largest speed-up of a trace replay.
const MaxSpeedup = 1e9

var reParts = regexp.MustCompile(`^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$`)

// traceMapping describes the trace of an arrival; which keys go with a
// data set and which with a file is decodeTrace's.
var traceMapping = &Mapping{
	Path: kSources + "[]." + kArrival + "." + kTrace,
	Doc:  "What process trace replays: a data set of the registry (dataset, parts) or a CSV file (file, columns), CSV or gzip-compressed CSV without a header row. Records come at the trace's timestamps, shifted so that the first is at 0, divided by speedup.",
	Fields: []*Field{
		{Name: kDataset, Go: "Dataset", Kind: KindString,
			Doc: "Name of a data set of the registry, such as clusterdata-2011-2/task_events (dspalab datasets list); from the cache, else the embedded offline sample. Give dataset or file."},
		{Name: kParts, Go: "Parts", Kind: KindString, Schema: obj{"anyOf": []any{
			obj{"type": "string", "pattern": `^\s*(all|\d+\s*(-\s*\d+\s*)?(,\s*\d+\s*(-\s*\d+\s*)?)*)\s*$`}, obj{"type": "integer", "minimum": 0}}},
			DefaultDoc: "the data set's default parts",
			Doc:        "Part files of the data set: 1, 0-2, 0,3-5 or all."},
		{Name: kFile, Go: "File", Kind: KindString,
			Doc: "A CSV or CSV.gz file without a header row, relative to the scenario file's directory. Give dataset or file."},
		{Name: kColumns, Go: "Columns", Kind: KindList, Noun: "column", Example: "[timestamp, machine_id, event_type]",
			Doc: "Names of the file's columns, in order (only with file; a data set's come from the registry)."},
		{Name: kTimeColumn, Go: "TimeColumn", Kind: KindString, DefaultDoc: "the data set's; required with file",
			Doc: "Column of the event timestamps."},
		{Name: kTimeUnit, Go: "TimeUnit", Kind: KindEnum, Noun: "time unit", EmptyOK: true, DefaultDoc: "the data set's; required with file",
			Values: []Value{val(TimeUnits[0], "nanoseconds"), val(TimeUnits[1], "microseconds"), val(TimeUnits[2], "milliseconds"), val(TimeUnits[3], "seconds")},
			Doc:    "Unit of the time column."},
		{Name: kKeyColumn, Go: "KeyColumn", Kind: KindString, DefaultDoc: "the data set's key column; for a file, each record's number",
			Doc: "Column of the record keys (keyBy): an integer id below 2^32 is the key itself, other values are hashed; rows with an empty key are skipped and counted."},
		{Name: kSpeedup, Go: "Speedup", Kind: KindRatio, Default: 1.0,
			Bounds: Bounds{Positive: true, PositiveWhy: "seconds of the trace per simulated second", Max: float64(MaxSpeedup)},
			Doc:    "Seconds of the trace replayed per simulated second (the course's servingSpeedFactor): 60 replays a minute of events per second."},
		{Name: kMaxDelay, Go: "MaxDelay", Kind: KindDuration, Default: "0s", Bounds: Bounds{Min: 0},
			Doc: "Largest random serving delay of an event, in trace time (maxEventDelaySecs): each event is delayed by a draw from a normal distribution with mean and standard deviation max_delay/2, cut to [0, max_delay], so records arrive out of event-time order."},
		{Name: kFilter, Go: "Filter", Kind: KindCustom, Schema: obj{"type": "object", "minProperties": 1,
			"additionalProperties": obj{"anyOf": []any{
				obj{"type": []string{"string", "number", "boolean"}},
				obj{"type": "array", "minItems": 1, "items": obj{"type": []string{"string", "number", "boolean"}}},
			}}},
			Doc: "Keep only rows whose column holds one of the values given, e.g. {event_type: FINISH} or {event_type: [FAIL, KILL]}; a data set's codes may be named. All columns given must match."},
		{Name: kMalformed, Go: "Malformed", Kind: KindEnum, Noun: "mode", Default: TraceSkip,
			Values: []Value{val(TraceSkip, "skipped and counted"), val(TraceStrict, "the run stops with the line's number")},
			Doc:    "What a malformed line does."},
	},
	Custom: func(d *decoder, m *mapping, f *Field, v reflect.Value) {
		if fv, path := d.value(m, f.Name); fv != nil {
			v.FieldByName(f.Go).Set(reflect.ValueOf(d.traceFilter(fv, path)))
		}
	},
	After: decodeTrace,
}

// ParseParts reads a selection of part numbers: a part ("1"), a range
// ("0-2"), a comma-separated list of them ("0,3,5-7"), or "all". count is
// the number of parts of the data set, numbered from 0; with count <= 0
// (unknown) only the syntax is checked and "all" gives nil. It returns the
// parts in increasing order without duplicates, or an error such as
// `part 600 is out of range; the data set has parts 0-499`.
func ParseParts(s string, count int) ([]int, error) {
	in := strings.TrimSpace(s)
	if in == "all" {
		if count <= 0 {
			return nil, nil
		}
		all := make([]int, count)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	seen := map[int]bool{}
	var parts []int
	for item := range strings.SplitSeq(in, ",") {
		m := reParts.FindStringSubmatch(item)
		if m == nil {
			return nil, fmt.Errorf("expected parts such as 1, 0-2, 0,3-5 or all, got %s", quote(s))
		}
		lo, err1 := strconv.Atoi(m[1])
		hi, err2 := lo, error(nil)
		if m[2] != "" {
			hi, err2 = strconv.Atoi(m[2])
		}
		limit := MaxParts
		if count > 0 {
			limit = count
		}
		switch {
		case err1 != nil || err2 != nil || lo >= limit || hi >= limit:
			if count > 0 {
				return nil, fmt.Errorf("part %s is out of range; the data set has parts 0-%d", shorten(strings.TrimSpace(item)), count-1)
			}
			return nil, fmt.Errorf("part %s is out of range; parts are numbered from 0 to at most %d", shorten(strings.TrimSpace(item)), MaxParts-1)
		case hi < lo:
			return nil, fmt.Errorf("range %d-%d is backwards; write %d-%d", lo, hi, hi, lo)
		}
		for p := lo; p <= hi; p++ {
			if !seen[p] {
				seen[p] = true
				parts = append(parts, p)
			}
		}
		if len(parts) > MaxParts {
			return nil, fmt.Errorf("the selection lists more than %d parts", MaxParts)
		}
	}
	slices.Sort(parts)
	return parts, nil
}

// decodeTrace decodes the rules between the keys of a trace: a data set
// or a file, and the keys that go with each.
func decodeTrace(d *decoder, m *mapping, _ reflect.Value) {
	hasData, hasFile := m.has(kDataset), m.has(kFile)
	switch {
	case hasData && hasFile:
		d.Errorf(m.fields[kFile].key, strictyaml.Join(m.path, kFile), "give either dataset or file, not both")
	case !hasData && !hasFile:
		d.missing(m, kDataset, ` (or "`+kFile+`" for a CSV file)`)
	case hasFile:
		if f, ok := m.fields[kParts]; ok {
			d.Errorf(f.key, strictyaml.Join(m.path, kParts), "%q applies only to a dataset; a file is read whole", kParts)
		}
		for _, key := range []string{kColumns, kTimeColumn, kTimeUnit} {
			if !m.has(key) {
				d.missing(m, key, " for a file (it has no header row)")
			}
		}
	case hasData:
		if f, ok := m.fields[kColumns]; ok {
			d.Errorf(f.key, strictyaml.Join(m.path, kColumns), "%q applies only to a file; a data set's columns come from the registry", kColumns)
		}
	}
}

// traceFilter decodes filter: a mapping from column names to a value or a
// list of values.
func (d *decoder) traceFilter(v *yaml.Node, path string) []TraceFilter {
	if strictyaml.IsNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		d.Errorf(v, path, "expected a mapping from a column to its values, such as {event_type: FINISH}, got %s", describe(v))
		return nil
	}
	var out []TraceFilter
	first := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := d.Resolve(v.Content[i]), d.Resolve(v.Content[i+1])
		if k.Kind != yaml.ScalarNode || strictyaml.IsNull(k) || k.Value == "" {
			d.Errorf(k, path, "expected a column name, got %s", describe(k))
			continue
		}
		p := strictyaml.Join(path, keySegment(k.Value))
		d.SetPos(p, val)
		if line, dup := first[k.Value]; dup {
			d.Errorf(k, p, "duplicate column %s; first given at line %d", quote(k.Value), line)
			continue
		}
		first[k.Value] = k.Line
		f := TraceFilter{Column: k.Value}
		switch {
		case val.Kind == yaml.ScalarNode && !strictyaml.IsNull(val):
			f.Values = []string{val.Value}
		case val.Kind == yaml.SequenceNode && len(val.Content) > 0:
			for j, item := range val.Content {
				iv := d.Resolve(item)
				ip := strictyaml.Index(p, j)
				d.SetPos(ip, iv)
				if iv.Kind != yaml.ScalarNode || strictyaml.IsNull(iv) {
					d.Errorf(iv, ip, "expected a value such as FINISH or 4, got %s", describe(iv))
					continue
				}
				f.Values = append(f.Values, iv.Value)
			}
		case val.Kind == yaml.SequenceNode:
			d.Errorf(val, p, "the list of values is empty; give at least one value, such as FINISH or [FAIL, KILL], or leave the column out")
			continue
		default:
			d.Errorf(val, p, "expected a value or a list of values such as FINISH or [FAIL, KILL], got %s", describe(val))
			continue
		}
		out = append(out, f)
	}
	return out
}

// trace checks a trace's values (its shape was checked by the decoder).
func (c *checker) trace(p string, tr *Trace) {
	if tr == nil {
		return // a Scenario built in Go: the opener decides
	}
	switch {
	case tr.Dataset != "" && tr.File != "":
		c.errorf(p+"."+kFile, "give either dataset or file, not both")
	case tr.Dataset == "" && tr.File == "" && !c.isBad(p+"."+kFile) && !c.isBad(p+"."+kDataset):
		// (a file or a dataset written but refused is reported already)
		c.errorf(p+"."+kDataset, "give a dataset or a file to replay")
	}
	if tr.Dataset != "" {
		c.text(p+"."+kDataset, tr.Dataset, 200)
		if tr.Parts != "" {
			if _, err := ParseParts(tr.Parts, 0); err != nil {
				c.errorf(p+"."+kParts, "%s", err.Error())
			}
		}
		if len(tr.Columns) > 0 {
			c.errorf(p+"."+kColumns, "%q applies only to a file; a data set's columns come from the registry", kColumns)
		}
	}
	if tr.File != "" && tr.Dataset == "" {
		c.text(p+"."+kFile, tr.File, 0)
		if tr.Parts != "" {
			c.errorf(p+"."+kParts, "%q applies only to a dataset; a file is read whole", kParts)
		}
		if len(tr.Columns) == 0 {
			c.errorf(p+"."+kColumns, "a file needs its column names (it has no header row)")
		}
		for i, col := range tr.Columns {
			if col == "" {
				c.errorf(strictyaml.Index(p+"."+kColumns, i), "must not be empty")
			}
		}
		if tr.TimeColumn == "" {
			c.errorf(p+"."+kTimeColumn, "a file needs its time column")
		}
		if tr.TimeUnit == "" {
			c.errorf(p+"."+kTimeUnit, "a file needs the unit of its time column (%s)", orList(TimeUnits))
		}
		column := func(path, name string) {
			if name == "" || contains(tr.Columns, name) || len(tr.Columns) == 0 {
				return
			}
			if s := suggest(name, tr.Columns); s != "" {
				c.errorf(path, "unknown column %s; did you mean %q?", quote(name), s)
			} else {
				c.errorf(path, "unknown column %s; columns are %s", quote(name), strings.Join(tr.Columns, ", "))
			}
		}
		column(p+"."+kTimeColumn, tr.TimeColumn)
		column(p+"."+kKeyColumn, tr.KeyColumn)
		for _, f := range tr.Filter {
			column(p+"."+kFilter+"."+keySegment(f.Column), f.Column)
		}
	}
	for _, f := range tr.Filter {
		fp := p + "." + kFilter + "." + keySegment(f.Column)
		if f.Column == "" {
			c.errorf(p+"."+kFilter, "a filter needs a column name")
		}
		if len(f.Values) == 0 {
			c.errorf(fp, "a filter needs at least one value")
		}
	}
}
