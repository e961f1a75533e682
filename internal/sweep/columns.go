package sweep

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim"
)

// Metric columns of sweep.csv are the fields of sim.Summary (summary.json)
// under their JSON names, joined by dots: "simulated_s",
// "totals.records_delivered", "diagnosis.kind". The vertices appear by
// name: "vertices.enrich.busy_ratio". Left out are the scenario's name,
// description and seed (the seed has its own column), lists other than the
// vertices (subtasks, evidence) and free text (diagnosis.message). The
// columns follow from the type, not from the values, so every run and
// every shard of a sweep has the same header; new fields of sim.Summary
// become new columns without changes here.

// byVertex are the lists of the summary whose elements become columns by
// vertex name: "vertices.enrich.busy_ratio", and the event-time figures
// of a job with event time, "event_time.vertices.count.num_late_records_dropped"
// (empty cells without event time).
var byVertex = map[string]bool{"vertices": true, "event_time.vertices": true}

// skipColumns are the summary fields that are not metric columns.
var skipColumns = map[string]bool{
	"scenario":          true,
	"description":       true,
	"seed":              true,
	"diagnosis.message": true,
}

// metricColumns returns the metric columns of a summary whose vertices
// have the given names, in the order of sim.Summary's fields.
func metricColumns(vertices []string) []string {
	return metricColumnsOf(reflect.TypeFor[sim.Summary](), vertices)
}

// metricColumnsOf is metricColumns for the summary type t of an engine:
// sim.Summary, or microbatch.Summary for Spark's engines (whose lists,
// such as its stages, are left out as sim's are).
func metricColumnsOf(t reflect.Type, vertices []string) []string {
	var cols []string
	walkType(t, "", vertices, &cols, 0)
	return cols
}

// maxDepth bounds the nesting of the summary's fields that become columns.
const maxDepth = 8

// walkType appends the columns of type t under prefix.
func walkType(t reflect.Type, prefix string, vertices []string, cols *[]string, depth int) {
	if depth > maxDepth {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if inlined(f) {
				walkType(f.Type, prefix, vertices, cols, depth+1)
				continue
			}
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			walkType(f.Type, joinPath(prefix, name), vertices, cols, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if !byVertex[prefix] {
			return
		}
		elem := t.Elem()
		for _, v := range vertices {
			var sub []string
			walkType(elem, "", nil, &sub, depth+1)
			for _, c := range sub {
				if c != "name" {
					*cols = append(*cols, prefix+"."+v+"."+c)
				}
			}
		}
	case reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
	default:
		if !skipColumns[prefix] {
			*cols = append(*cols, prefix)
		}
	}
}

// inlined reports whether encoding/json writes the fields of f in its
// parent's place: an embedded struct without a JSON name (sim.Figures in
// sim.VertexSummary).
func inlined(f reflect.StructField) bool {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct
}

// jsonName returns the JSON name of a struct field, and false for fields
// that JSON leaves out.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, true
}

// flatten returns the values of a summary by column name, as CSV cells.
func flatten(s *sim.Summary) map[string]string { return flattenAny(s) }

// flattenAny is flatten for a pointer to any engine's summary.
func flattenAny(s any) map[string]string {
	out := map[string]string{}
	walkValue(reflect.ValueOf(s).Elem(), "", out, 0)
	return out
}

// walkValue stores the cells of v under prefix.
func walkValue(v reflect.Value, prefix string, out map[string]string, depth int) {
	if depth > maxDepth {
		return
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return // an empty cell
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if inlined(t.Field(i)) {
				walkValue(v.Field(i), prefix, out, depth+1)
				continue
			}
			name, ok := jsonName(t.Field(i))
			if !ok {
				continue
			}
			walkValue(v.Field(i), joinPath(prefix, name), out, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if !byVertex[prefix] {
			return
		}
		for i := range v.Len() {
			e := v.Index(i)
			for e.Kind() == reflect.Pointer && !e.IsNil() {
				e = e.Elem()
			}
			if e.Kind() != reflect.Struct {
				continue
			}
			name := e.FieldByName("Name")
			if !name.IsValid() || name.Kind() != reflect.String {
				continue
			}
			walkValue(e, prefix+"."+name.String(), out, depth+1)
		}
	case reflect.Bool:
		out[prefix] = strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		out[prefix] = strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		out[prefix] = strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		out[prefix] = formatFloat(v.Float())
	case reflect.String:
		out[prefix] = v.String()
	}
}

// formatFloat writes a metric for CSV: the shortest decimal that reads
// back the same, empty for NaN and infinities.
func formatFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	if x != 0 && (math.Abs(x) >= 1e15 || math.Abs(x) < 1e-6) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
