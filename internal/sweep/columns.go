package sweep

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim"
	jobplan "github.com/dspalab/dspalab/sim/plan"
)

// Metric columns of sweep.csv are the fields of sim.Summary (summary.json)
// under their JSON names, joined by dots: "simulated_s",
// "totals.records_delivered", "diagnosis.kind". The vertices and the
// consumer groups appear by name: "vertices.enrich.busy_ratio",
// "consumer_groups.billing.lag_records". Left out are the scenario's name,
// description and seed (the seed has its own column), lists other than those
// (subtasks, evidence, a group's members) and free text (diagnosis.message). The
// columns follow from the type, not from the values, so every run and
// every shard of a sweep has the same header; new fields of sim.Summary
// become new columns without changes here.

// byName are the lists of the summary whose elements become columns by
// name, and the list of the plan their names come from: the vertices,
// "vertices.enrich.busy_ratio", the event-time figures of a job with event
// time, "event_time.vertices.count.num_late_records_dropped" (empty cells
// without event time), and the consumer groups of a run with Kafka-like
// consumer groups, "consumer_groups.billing.lag_records".
var byName = map[string]string{"vertices": "vertices", "event_time.vertices": "vertices", "consumer_groups": "consumer_groups"}

// listNames are the names of the elements of the summary's lists that
// become columns, by the list of the plan (byName's values): its vertices
// in the order of the job graph, its consumer groups in declaration order.
type listNames map[string][]string

// namesOf returns the listNames of a compiled scenario.
func namesOf(p *jobplan.Plan) listNames {
	groups := make([]string, len(p.ConsumerGroups))
	for i, g := range p.ConsumerGroups {
		groups[i] = g.Name
	}
	return listNames{"vertices": p.Names(), "consumer_groups": groups}
}

// of returns the names of the elements of the summary's list at prefix,
// and false when the list's elements are no columns.
func (n listNames) of(prefix string) ([]string, bool) {
	list, ok := byName[prefix]
	return n[list], ok
}

// skipColumns are the summary fields that are not metric columns.
var skipColumns = map[string]bool{
	"scenario":          true,
	"description":       true,
	"seed":              true,
	"diagnosis.message": true,
}

// metricColumns returns the metric columns of a summary whose lists hold
// the given names, in the order of sim.Summary's fields.
func metricColumns(names listNames) []string {
	return metricColumnsOf(reflect.TypeFor[sim.Summary](), names)
}

// metricColumnsOf is metricColumns for the summary type t of an engine:
// sim.Summary, or microbatch.Summary for Spark's engines (whose lists,
// such as its stages, are left out as sim's are).
func metricColumnsOf(t reflect.Type, names listNames) []string {
	var cols []string
	walkType(t, "", names, &cols, 0)
	return cols
}

// maxDepth bounds the nesting of the summary's fields that become columns.
const maxDepth = 8

// walkType appends the columns of type t under prefix.
func walkType(t reflect.Type, prefix string, names listNames, cols *[]string, depth int) {
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
				walkType(f.Type, prefix, names, cols, depth+1)
				continue
			}
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			walkType(f.Type, joinPath(prefix, name), names, cols, depth+1)
		}
	case reflect.Slice, reflect.Array:
		elems, ok := names.of(prefix)
		if !ok {
			return
		}
		elem := t.Elem()
		for _, v := range elems {
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
		if _, ok := byName[prefix]; !ok {
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
