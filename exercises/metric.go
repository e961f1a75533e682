package exercises

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/plan"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Seg is one step of a metric path or a scenario field path: a field Key,
// an element Index of a list, or the element of a list whose "name" is
// Name (a key of a mapping for summary metrics such as backpressured_on).
type Seg struct {
	Key     string
	Index   int
	Name    string
	IsIndex bool
	IsName  bool
}

// String formats s as in a path: "key", "[3]", "[out]".
func (s Seg) String() string {
	switch {
	case s.IsIndex && s.Index < 0:
		return "[*]"
	case s.IsIndex:
		return "[" + strconv.Itoa(s.Index) + "]"
	case s.IsName:
		return "[" + s.Name + "]"
	}
	return s.Key
}

// FormatPath joins segments as "vertices[out].in_rate_rps".
func FormatPath(segs []Seg) string {
	var b strings.Builder
	for i, s := range segs {
		if i > 0 && !s.IsIndex && !s.IsName {
			b.WriteByte('.')
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// ParseMetric reads a metric path into summary.json: field names joined by
// dots; after a field, [N] selects the N-th element of a list and [name]
// the element whose "name" is name (or the key name of a mapping):
//
//	vertices[out].in_rate_rps   diagnosis.vertex   delivery.sinks[0].lost
func ParseMetric(path string) ([]Seg, error) {
	return parsePath(path, false)
}

// parsePath reads "a.b[1].c[x]"; with star, "*" may stand for a name
// segment or an index ("[*]").
func parsePath(path string, star bool) ([]Seg, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("the path is empty")
	}
	var segs []Seg
	rest := path
	for first := true; rest != ""; first = false {
		if !first {
			if rest[0] != '.' {
				return nil, fmt.Errorf("%q: expected . or [ after %q", path, FormatPath(segs))
			}
			rest = rest[1:]
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		key := rest[:end]
		if key == "" {
			return nil, fmt.Errorf("%q: a field name is missing", path)
		}
		if !(star && key == "*") && !validKey(key) {
			return nil, fmt.Errorf("%q: %q is not a field name (lower-case letters, digits and _)", path, key)
		}
		segs = append(segs, Seg{Key: key})
		rest = rest[end:]
		for strings.HasPrefix(rest, "[") {
			close := strings.IndexByte(rest, ']')
			if close < 0 {
				return nil, fmt.Errorf("%q: [ without ]", path)
			}
			sel := rest[1:close]
			rest = rest[close+1:]
			switch n, err := strconv.Atoi(sel); {
			case sel == "":
				return nil, fmt.Errorf("%q: [] selects nothing; write [0] for the first element or [name]", path)
			case err == nil && n >= 0 && sel[0] != '+':
				segs = append(segs, Seg{Index: n, IsIndex: true})
			case star && sel == "*":
				segs = append(segs, Seg{Key: "*", IsIndex: true, Index: -1})
			default:
				segs = append(segs, Seg{Name: sel, IsName: true})
			}
		}
	}
	return segs, nil
}

func validKey(k string) bool {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Kinds of metric values.
const (
	KindNumber = "number"
	KindString = "string"
	KindBool   = "bool"
)

// MetricKind checks a parsed metric path against the shape of sim.Summary
// (its JSON field names), or else of microbatch.Summary (a run of Spark's
// engines; the pack checks which one the starter's engine writes,
// MetricKindFor), and returns the kind of its value: KindNumber,
// KindString or KindBool. An unknown field comes with the nearest valid
// name (in sim.Summary); a path that stops at a list or object, or goes on
// past a value, is an error.
func MetricKind(segs []Seg) (string, error) {
	kind, err := MetricKindFor(scenario.EngineFlink, segs)
	if err != nil {
		if k, err2 := MetricKindFor(scenario.EngineSparkStreaming, segs); err2 == nil {
			return k, nil
		}
	}
	return kind, err
}

// MetricKindFor is MetricKind against the summary that a run of engine
// (scenario.Engine*) writes: sim.Summary for flink, microbatch.Summary for
// Spark's engines.
func MetricKindFor(engine string, segs []Seg) (string, error) {
	t := reflect.TypeFor[sim.Summary]()
	if engine == scenario.EngineSparkStreaming || engine == scenario.EngineStructuredStreaming {
		t = reflect.TypeFor[microbatch.Summary]()
	}
	where := "the summary"
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			if s.IsIndex || s.IsName {
				return "", fmt.Errorf("%s is an object, not a list: select a field with .name", where)
			}
			f, ok := jsonField(t, s.Key)
			if !ok {
				names := jsonFields(t)
				msg := fmt.Sprintf("%s has no field %q", where, s.Key)
				if n := nearest(s.Key, names); n != "" {
					return "", fmt.Errorf("%s; did you mean %q?", msg, n)
				}
				return "", fmt.Errorf("%s; its fields are %s", msg, strings.Join(names, ", "))
			}
			t = f
		case reflect.Slice:
			if !s.IsIndex && !s.IsName {
				return "", fmt.Errorf("%s is a list: select an element with [N] or [name] before .%s", where, s.Key)
			}
			e := t.Elem()
			for e.Kind() == reflect.Pointer {
				e = e.Elem()
			}
			if s.IsName {
				if _, ok := jsonField(e, "name"); e.Kind() != reflect.Struct || !ok {
					return "", fmt.Errorf("the elements of %s have no name: select one with [N]", where)
				}
			}
			t = e
		case reflect.Map:
			if s.IsIndex {
				return "", fmt.Errorf("%s is a mapping by name: select an entry with [name]", where)
			}
			t = t.Elem()
		default:
			return "", fmt.Errorf("%s is a value; it has no %s", where, s.String())
		}
		where = FormatPath(segs[:i+1])
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return KindNumber, nil
	case reflect.String:
		return KindString, nil
	case reflect.Bool:
		return KindBool, nil
	case reflect.Slice:
		return "", fmt.Errorf("%s is a list, not a value: select an element with [N] or [name] and one of its fields", where)
	case reflect.Map:
		return "", fmt.Errorf("%s is a mapping, not a value: select an entry with [name]", where)
	}
	return "", fmt.Errorf("%s is an object, not a value: select one of its fields (%s)", where, strings.Join(jsonFields(t), ", "))
}

// jsonField returns the type of the field of struct t whose JSON name is
// name.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for _, f := range jsonVisible(t) {
		if n, ok := jsonName(f); ok && n == name {
			return f.Type, true
		}
	}
	return nil, false
}

// jsonFields lists the JSON names of the fields of struct t.
func jsonFields(t reflect.Type) []string {
	var names []string
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, f := range jsonVisible(t) {
		if n, ok := jsonName(f); ok {
			names = append(names, n)
		}
	}
	return names
}

// jsonVisible returns the fields of struct t as encoding/json sees them:
// the fields of an embedded struct without a JSON name (sim.Figures in
// VertexSummary and TaskSummary) in its place, not the struct itself.
func jsonVisible(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if !inlined(f) && (len(f.Index) == 1 || !f.Anonymous) {
			out = append(out, f)
		}
	}
	return out
}

// inlined reports whether encoding/json writes the fields of f in its
// parent's place: an embedded struct without a JSON name.
func inlined(f reflect.StructField) bool {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct
}

func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	switch name {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return name, true
}

// metricNames returns the [name] selectors of a metric path.
func metricNames(segs []Seg) []string {
	var out []string
	for _, s := range segs {
		if s.IsName {
			out = append(out, s.Name)
		}
	}
	return out
}

// SummaryDoc returns summary.json of s as generic JSON (maps, lists,
// float64, string, bool, nil): what metric paths select from.
func SummaryDoc(s *sim.Summary) (any, error) {
	var buf bytes.Buffer
	if err := sim.WriteSummaryJSON(&buf, s); err != nil {
		return nil, err
	}
	return summaryDoc(buf.Bytes())
}

// MicroBatchSummaryDoc is SummaryDoc for a run of Spark's engines.
func MicroBatchSummaryDoc(s *microbatch.Summary) (any, error) {
	var buf bytes.Buffer
	if err := microbatch.WriteSummaryJSON(&buf, s); err != nil {
		return nil, err
	}
	return summaryDoc(buf.Bytes())
}

func summaryDoc(b []byte) (any, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("exercises: decoding the summary: %w", err)
	}
	return doc, nil
}

// Lookup selects the value of a metric path in a summary document
// (SummaryDoc): a float64, string or bool. A path that selects nothing,
// or null (a metric without a value in this run, such as the latency of a
// vertex that saw no record), is an error that says where it stopped.
func Lookup(doc any, segs []Seg) (any, error) {
	cur := doc
	for i, s := range segs {
		at := FormatPath(segs[:i+1])
		switch {
		case s.IsIndex:
			l, ok := cur.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: not a list in this run's summary", at)
			}
			if s.Index >= len(l) {
				return nil, fmt.Errorf("%s: the list has %d elements in this run's summary", at, len(l))
			}
			cur = l[s.Index]
		case s.IsName:
			switch c := cur.(type) {
			case []any:
				var found any
				var names []string
				for _, el := range c {
					if m, ok := el.(map[string]any); ok {
						if n, ok := m["name"].(string); ok {
							names = append(names, n)
							if n == s.Name && found == nil {
								found = m
							}
						}
					}
				}
				if found == nil {
					msg := fmt.Sprintf("%s: no element named %q in this run's summary", at, s.Name)
					if len(names) > 0 {
						msg += " (there are " + strings.Join(names, ", ") + ")"
					}
					return nil, fmt.Errorf("%s", msg)
				}
				cur = found
			case map[string]any:
				v, ok := c[s.Name]
				if !ok {
					return nil, fmt.Errorf("%s: absent from this run's summary", at)
				}
				cur = v
			default:
				return nil, fmt.Errorf("%s: not a list in this run's summary", at)
			}
		default:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an object in this run's summary", at)
			}
			v, ok := m[s.Key]
			if !ok || v == nil {
				return nil, fmt.Errorf("%s: absent from this run's summary (null)", at)
			}
			cur = v
		}
		if cur == nil {
			return nil, fmt.Errorf("%s: absent from this run's summary (null)", at)
		}
	}
	switch cur.(type) {
	case float64, string, bool:
		return cur, nil
	}
	return nil, fmt.Errorf("%s: not a value in this run's summary", FormatPath(segs))
}

// vertexNames returns the names of the vertices of sc's job graph
// (plan.Compile) and of its topics, sorted, what a metric's [name] may
// select; none for a scenario that does not compile.
func vertexNames(sc *scenario.Scenario) []string {
	p, err := plan.Compile(sc)
	if err != nil {
		return nil
	}
	names := p.Names()
	for _, t := range p.Topics {
		names = append(names, t.Name) // topics[NAME] selects a topic of summary.json
	}
	slices.Sort(names)
	return names
}

// nearest is scenario.Nearest, or else the only option that starts with
// word (in_rate for in_rate_rps).
func nearest(word string, options []string) string {
	if n := scenario.Nearest(word, options); n != "" {
		return n
	}
	var found string
	for _, o := range options {
		if len(word) >= 3 && strings.HasPrefix(o, word) {
			if found != "" {
				return ""
			}
			found = o
		}
	}
	return found
}
