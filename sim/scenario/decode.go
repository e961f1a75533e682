package scenario

import (
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/strictyaml"
)

// Parse decodes the YAML scenario data, read from the named file (the name
// is used only in messages), fills every default and validates the result.
//
// On success the Scenario is complete (see the package doc). Otherwise Parse
// returns a nil Scenario and an ErrorList holding every problem found in
// the file, each located as file:line:col with its field path, sorted by
// position: syntax errors, unknown fields (with the nearest valid name),
// wrong types, bad unit strings, unknown enum values, missing required
// fields, fields that do not apply to the variant given (restart fields of
// another strategy, failure fields of another kind), out-of-range values,
// job-graph errors (duplicate names, dangling inputs, cycles, forward edges
// between different parallelisms, more parallelism than slots, keyed state
// without keyBy) and failures of vertices, subtasks or workers that do not
// exist. Parse never panics.
func Parse(file string, data []byte) (*Scenario, error) {
	root, errs := parseYAML(file, data)
	if errs != nil {
		return nil, errs
	}
	d := &decoder{file: file}
	d.Walker = strictyaml.NewWalker(root, 100000, d.add)
	var s *Scenario
	if b := d.Walk(func() { s = d.scenario(root) }); b != nil {
		return nil, ErrorList{{File: file, Line: b.Line, Col: b.Col, Msg: b.Error()}}
	}
	d.errs = append(d.errs, s.validate(d.Bad)...)
	if err := finish(d.errs); err != nil {
		return nil, err
	}
	return s, nil
}

// decoder walks a yaml.Node tree along the description of the format
// (fields.go), collecting every error. It checks keys itself, because
// yaml's KnownFields is lost inside Node.Decode. Its Walker resolves
// aliases against a node budget (aliases can make a small file expand to a
// huge tree, "billion laughs"), records errors, the paths of fields that
// already have an error (or are missing), so validation does not report
// them again, and where each field path was given.
type decoder struct {
	strictyaml.Walker
	file string
	errs ErrorList
	s    *Scenario // being decoded, for the defaults items inherit
}

// add records an error of the file (the Walker's sink).
func (d *decoder) add(line, col int, path, msg string) {
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Col: col, Path: path, Msg: msg})
}

// scenario decodes the root mapping.
func (d *decoder) scenario(root *yaml.Node) *Scenario {
	s := &Scenario{File: d.file}
	d.s = s
	fillDefaults(topMapping, reflect.ValueOf(s).Elem(), nil)
	s.positions = d.Pos
	root = d.Resolve(root)
	if root.Kind != yaml.MappingNode {
		d.Errorf(root, "", "expected a mapping with fields such as duration, sources and sinks at the top level, got %s", describe(root))
		return s
	}
	m := d.mapping(root, "", topMapping)
	d.fields(m, topMapping, reflect.ValueOf(s).Elem())
	deriveDefaults(s, d.given)
	return s
}

// decodeMapping decodes data as one mapping described by mp into the
// struct out points to, with its defaults: the walk Parse makes of a
// scenario, for a description of its own (a later engine's job, a test's).
// It returns the errors of the walk, unsorted; the checks of validate.go
// are Parse's.
func decodeMapping(file string, data []byte, mp *Mapping, out any) ErrorList {
	root, errs := parseYAML(file, data)
	if errs != nil {
		return errs
	}
	d := &decoder{file: file, s: &Scenario{}}
	d.Walker = strictyaml.NewWalker(root, 100000, d.add)
	v := reflect.ValueOf(out).Elem()
	fillDefaults(mp, v, nil)
	if b := d.Walk(func() {
		if m := d.mapping(root, "", mp); m != nil {
			d.fields(m, mp, v)
		}
	}); b != nil {
		return ErrorList{{File: file, Line: b.Line, Col: b.Col, Msg: b.Error()}}
	}
	return d.errs
}

// given reports whether the field path was written.
func (d *decoder) given(path string) bool {
	_, ok := d.Pos[path]
	return ok
}

// fields decodes the keys of m into the struct v, as mp describes them:
// each key by its kind, then the keys that apply only to a variant, then
// mp's own rules.
func (d *decoder) fields(m *mapping, mp *Mapping, v reflect.Value) {
	for _, f := range mp.Fields {
		if f.Kind == KindCustom {
			mp.Custom(d, m, f, v)
			continue
		}
		if !m.has(f.Name) {
			if f.Required {
				d.missing(m, f.Name, "")
			}
			continue
		}
		d.field(m, f, v.FieldByName(f.Go))
	}
	d.variants(m, mp, v)
	if mp.After != nil {
		mp.After(d, m, v)
	}
}

// field decodes key f of m into fv.
func (d *decoder) field(m *mapping, f *Field, fv reflect.Value) {
	key := f.Name
	switch f.Kind {
	case KindDuration:
		setUnit(d, m, key, expectDuration, ParseDuration, fv)
	case KindRate:
		setUnit(d, m, key, expectRate, ParseRate, fv)
	case KindSize:
		setUnit(d, m, key, expectSize, ParseByteSize, fv)
	case KindBandwidth:
		setUnit(d, m, key, expectBandwidth, ParseBandwidth, fv)
	case KindEnum, KindText, KindName, KindString:
		var s string
		if f.Kind != KindEnum && f.Schema == nil && !d.textual(m, key) {
			return
		}
		if d.str(m, key, &s) {
			fv.SetString(s)
		}
	case KindInteger:
		var i int
		if d.integer(m, key, &i) {
			fv.SetInt(int64(i))
		}
	case KindSeed:
		d.seed(m, key, fv.Addr().Interface().(*uint64))
	case KindRatio:
		d.float(m, key, fv.Addr().Interface().(*float64))
	case KindBool:
		d.boolean(m, key, fv.Addr().Interface().(*bool))
	case KindMapping:
		sm := d.sub(m, f)
		if sm == nil {
			return
		}
		if fv.Kind() == reflect.Pointer {
			fv.Set(d.newItem(f.Sub, fv.Type().Elem()))
			fv = fv.Elem()
		}
		d.fields(sm, f.Sub, fv)
	case KindList:
		items, path := d.list(m, key, "expected a list of "+listNoun(f))
		if len(items) == 0 {
			if f.Sub == nil {
				d.names(m, f, items, path)
			}
			return
		}
		if f.Sub == nil {
			fv.Set(reflect.ValueOf(d.names(m, f, items, path)))
			return
		}
		list := reflect.MakeSlice(fv.Type(), 0, len(items))
		for i, item := range items {
			p := strictyaml.Index(path, i)
			elem := d.newItem(f.Sub, fv.Type().Elem()).Elem()
			if sm := d.mapping(item, p, f.Sub); sm != nil {
				d.fields(sm, f.Sub, elem)
			} else {
				d.Bad[p] = true
			}
			list = reflect.Append(list, elem)
		}
		fv.Set(list)
	}
}

// listNoun is what a list field holds, for "expected a list of ...":
// "steps such as [{at: 0s, rate: 100/s}]".
func listNoun(f *Field) string {
	if f.Example != "" {
		return f.itemNoun() + "s such as " + f.Example
	}
	return f.itemNoun() + "s"
}

// newItem returns a pointer to a new item of mp of type t, holding its
// defaults.
func (d *decoder) newItem(mp *Mapping, t reflect.Type) reflect.Value {
	p := reflect.New(t)
	fillDefaults(mp, p.Elem(), nil)
	if mp.Prefill != nil {
		mp.Prefill(d, p.Elem())
	}
	return p
}

func setUnit[T any](d *decoder, m *mapping, key, expect string, parse func(string) (T, error), fv reflect.Value) {
	var x T
	if unit(d, m, key, expect, parse, &x) {
		fv.Set(reflect.ValueOf(x).Convert(fv.Type()))
	}
}

// variants reports keys given in m that do not apply to the variant of
// the struct v (process bursty, mode none), or that belong to another
// engine or kind, and the keys a variant requires that m lacks. A variant
// given with an invalid value is left to validation; one not given is the
// default, shown as such.
func (d *decoder) variants(m *mapping, mp *Mapping, v reflect.Value) {
	if m == nil {
		return
	}
	state := func(c *Cond) (val string, ok bool) {
		val, cf := condValue(mp, v, c.Field)
		p := strictyaml.Join(m.path, c.Field)
		first, _, _ := strings.Cut(c.Field, ".")
		if cf == nil || d.Bad[p] || m.suggested[first] || cf.Kind == KindEnum && !slices.Contains(cf.values(), val) {
			return "", false
		}
		return val, true
	}
	for _, f := range mp.Fields {
		p := strictyaml.Join(m.path, f.Name)
		if f.Only != nil && m.has(f.Name) && !d.Bad[p] {
			if val, ok := state(f.Only); ok && !f.Only.holds(val) {
				label := val
				if !d.given(strictyaml.Join(m.path, f.Only.Field)) {
					label += " (the default)"
				}
				if _, cf := condValue(mp, v, f.Only.Field); cf.Kind == KindBool && f.Only.Text != "" {
					label = ""
				}
				d.Errorf(m.fields[f.Name].key, p, "%s", f.Only.notApplies(f.Name, label))
			}
		}
		if c := f.RequiredWhen; c != nil && !m.has(f.Name) {
			if val, ok := state(c); ok && c.holds(val) {
				d.missing(m, f.Name, " for "+c.last()+" "+val)
			}
		}
	}
}

// unknownField reports a key that the mapping mp does not have,
// suggesting the nearest valid one, a field it is a former spelling of, or
// the mapping it belongs in; it returns the key suggested ("" if none).
func (d *decoder) unknownField(k *yaml.Node, path, name string, mp *Mapping) string {
	p := strictyaml.Join(path, keySegment(name))
	if msg, ok := mp.Special[name]; ok {
		d.Errorf(k, p, "%s", msg)
		return ""
	}
	allowed := mp.names()
	s := suggest(name, allowed)
	for _, f := range mp.Fields {
		if s == "" && slices.Contains(f.Former, normalize(name)) {
			s = f.Name
		}
	}
	if s != "" {
		d.Errorf(k, p, "unknown field %s; did you mean %q?", quote(name), s)
		return s
	}
	if where, ok := home(mp, strings.ToLower(name)); ok {
		d.Errorf(k, p, "unknown field %s here; it belongs %s (valid fields here are %s)", quote(name), where, strings.Join(allowed, ", "))
		return ""
	}
	d.Errorf(k, p, "unknown field %s; valid fields are %s", quote(name), strings.Join(allowed, ", "))
	return ""
}

// inheritNetwork starts a vertex's network from the scenario's.
func inheritNetwork(d *decoder, v reflect.Value) {
	v.FieldByName("Network").Set(reflect.ValueOf(d.s.Network))
}

// decodeInputs decodes input (one name) or inputs (a list of names) of an
// operator or sink, on the turn of input.
func decodeInputs(d *decoder, m *mapping, f *Field, v reflect.Value) {
	if f.Name == kInput {
		v.FieldByName("Inputs").Set(reflect.ValueOf(d.inputs(m)))
	}
}

// inputs decodes input (one name) or inputs (a list of names).
func (d *decoder) inputs(m *mapping) []string {
	hasOne, hasMany := m.has(kInput), m.has(kInputs)
	switch {
	case hasOne && hasMany:
		d.Errorf(m.fields[kInputs].key, strictyaml.Join(m.path, kInputs), "give either input or inputs, not both")
	case !hasOne && !hasMany:
		d.missing(m, kInput, " (or \"inputs\" for several)")
		return nil
	}
	if hasOne {
		v, path := d.value(m, kInput)
		if v.Kind == yaml.SequenceNode {
			d.Errorf(v, path, "expected one vertex name, got a list; use inputs: [a, b] for several")
			return nil
		}
		var name string
		if !d.textual(m, kInput) || !d.str(m, kInput, &name) {
			return nil
		}
		return []string{name}
	}
	items, path := d.list(m, kInputs, "expected a list of vertex names such as [a, b]")
	if len(items) == 0 && !d.Bad[path] {
		d.Errorf(d.Resolve(m.fields[kInputs].val), path, "expected at least one vertex name")
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for i, item := range items {
		p := strictyaml.Index(path, i)
		v := d.Resolve(item)
		d.SetPos(p, v)
		if v.Kind != yaml.ScalarNode || strictyaml.IsNull(v) {
			d.Errorf(v, p, "expected a vertex name, got %s", describe(v))
			continue
		}
		if d.bare(v, p, "expected a vertex name") {
			continue
		}
		if seen[v.Value] {
			d.Errorf(v, p, "%s is listed twice", quote(v.Value))
			continue
		}
		seen[v.Value] = true
		names = append(names, v.Value)
	}
	return names
}

// decodeFailure decodes the rules between the keys of a failure: at or
// mtbf, and what a scripted failure targets.
func decodeFailure(d *decoder, m *mapping, v reflect.Value) {
	f := v.Addr().Interface().(*Failure)
	path := m.path
	if !contains(failureMapping.Field(kKind).values(), f.Kind) || d.Bad[strictyaml.Join(path, kKind)] {
		return // an unknown kind is reported by validation
	}
	keyErr := func(key, format string, args ...any) {
		if p := strictyaml.Join(path, key); !d.Bad[p] {
			d.Errorf(m.fields[key].key, p, format, args...)
		}
	}
	random := m.has(kMTBF)
	switch {
	case random && m.has(kAt):
		keyErr(kMTBF, "give either at (one failure at that time) or mtbf (random failures), not both")
	case !random && !m.has(kAt) && contains(randomFailureKinds, f.Kind):
		d.missing(m, kAt, ` (or "`+kMTBF+`" for random failures)`)
	case !random && !m.has(kAt):
		d.missing(m, kAt, "")
	}
	if random && contains(randomFailureKinds, f.Kind) {
		for _, key := range []string{kVertex, kSubtask, kWorker} {
			if m.has(key) {
				keyErr(key, "%q does not apply to random failures (mtbf): they strike every worker at random times", key)
			}
		}
		return
	}
	switch {
	case f.Kind == FailureTask && !m.has(kVertex):
		d.missing(m, kVertex, " for kind task")
	case m.has(kVertex) && m.has(kWorker):
		keyErr(kWorker, "give either vertex (one of its subtasks slows down) or worker (all its subtasks do), not both")
	case m.has(kSubtask) && !m.has(kVertex) && !m.suggested[kVertex]:
		keyErr(kSubtask, "%q needs vertex: it picks a subtask of that vertex", kSubtask)
	}
}

// decodeBackend checks that gc_pause_per_gib comes with gc_interval.
func decodeBackend(d *decoder, m *mapping, _ reflect.Value) {
	bad := d.Bad[strictyaml.Join(m.path, kGCPausePerGiB)] || d.Bad[strictyaml.Join(m.path, kGCInterval)]
	if m.has(kGCPausePerGiB) && !m.has(kGCInterval) && !bad && !m.suggested[kGCInterval] {
		d.Errorf(m.fields[kGCPausePerGiB].key, strictyaml.Join(m.path, kGCPausePerGiB),
			"%q needs gc_interval: garbage collection is off without it", kGCPausePerGiB)
	}
}
