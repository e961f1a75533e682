package scenario

import (
	"errors"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/des"
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

// parseYAML reads the single YAML document of data into a node tree, with
// syntax errors at the offending token (strictyaml.Document).
func parseYAML(file string, data []byte) (*yaml.Node, ErrorList) {
	root, err := strictyaml.Document(data)
	var se *strictyaml.SyntaxError
	switch {
	case err == nil:
		return root, nil
	case errors.As(err, &se) && se.Msg == strictyaml.ErrSecond:
		return nil, ErrorList{{File: file, Line: se.Line, Col: se.Col,
			Msg: "a scenario file holds one YAML document, found a second one (remove the ---)"}}
	case errors.As(err, &se):
		return nil, ErrorList{{File: file, Line: se.Line, Col: se.Col, Msg: "invalid YAML: " + se.Msg}}
	}
	return nil, ErrorList{{File: file, Line: 1, Col: 1,
		Msg: "the scenario is empty; it needs at least duration, sources and sinks"}}
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

// describe says what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case strictyaml.IsNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!int", "!!float", "!!bool":
		return shorten(n.Value)
	default:
		return quote(n.Value)
	}
}

// quote quotes a user's string for a message, shortening a long one.
func quote(s string) string { return strconv.Quote(shorten(s)) }

func shorten(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

// reInteger is a decimal integer, which YAML tags !!float when it does not
// fit in 64 bits.
var reInteger = regexp.MustCompile(`^[-+]?[0-9]+$`)

var reSimpleKey = regexp.MustCompile(`^[A-Za-z0-9_-]{1,60}$`)

// keySegment is how a key the user wrote appears in a path: as is when it
// is a plain word, else quoted (no newlines or huge keys in messages).
func keySegment(name string) string {
	if reSimpleKey.MatchString(name) {
		return name
	}
	return quote(name)
}

// displayName is how a vertex name appears in a list or a cycle: as is
// when it is a valid name, else quoted.
func displayName(name string) string {
	if len(name) <= MaxNameLength && reName.MatchString(name) {
		return name
	}
	return quote(name)
}

// field is one key of a mapping and its (unresolved) value.
type field struct {
	key, val *yaml.Node
}

// mapping is a decoded YAML mapping: its known fields by name.
type mapping struct {
	path   string
	node   *yaml.Node
	fields map[string]field
	// suggested holds the valid keys suggested for unknown ones, so a
	// misspelt required field is reported once.
	suggested map[string]bool
}

func (m *mapping) has(key string) bool {
	if m == nil {
		return false
	}
	_, ok := m.fields[key]
	return ok
}

// mapping decodes n as a mapping with the keys of mp, reporting unknown
// and duplicate keys and following merge keys (<<). A null node is an empty
// mapping; any other non-mapping is an error and gives nil.
func (d *decoder) mapping(n *yaml.Node, path string, mp *Mapping) *mapping {
	n = d.Resolve(n)
	d.SetPos(path, n)
	m := &mapping{path: path, node: n, fields: map[string]field{}}
	if strictyaml.IsNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping, got %s", describe(n))
		return nil
	}
	d.collect(n, m, mp, map[*yaml.Node]bool{})
	return m
}

// collect adds the keys of mapping node n to m: its own keys, then those of
// merged mappings that are not already there.
func (d *decoder) collect(n *yaml.Node, m *mapping, mp *Mapping, merging map[*yaml.Node]bool) {
	merging[n] = true
	defer delete(merging, n)
	own := map[string]*yaml.Node{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.Resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.Report(k, m.path, "expected a field name, got %s", describe(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		name := k.Value
		if first, ok := own[name]; ok {
			d.Errorf(k, strictyaml.Join(m.path, keySegment(name)), "duplicate field %s; first given at line %d", quote(name), first.Line)
			continue
		}
		own[name] = k
		if mp.Extensions && strings.HasPrefix(name, "x-") {
			continue
		}
		if mp.Field(name) == nil {
			if sug := d.unknownField(k, m.path, name, mp); sug != "" {
				if m.suggested == nil {
					m.suggested = map[string]bool{}
				}
				m.suggested[sug] = true
			}
			continue
		}
		m.fields[name] = field{key: k, val: v}
	}
	for _, mv := range merges {
		src := d.Resolve(mv)
		var list []*yaml.Node
		switch src.Kind {
		case yaml.MappingNode:
			list = []*yaml.Node{src}
		case yaml.SequenceNode:
			for _, item := range src.Content {
				list = append(list, d.Resolve(item))
			}
		}
		if len(list) == 0 {
			d.Errorf(src, m.path, "<< expects a mapping or a list of mappings, got %s", describe(src))
			continue
		}
		for _, item := range list {
			if item.Kind != yaml.MappingNode {
				d.Errorf(item, m.path, "<< expects a mapping or a list of mappings, got %s", describe(item))
				continue
			}
			if merging[item] {
				d.Errorf(item, m.path, "<< merges a mapping into itself")
				continue
			}
			sub := &mapping{path: m.path, node: item, fields: map[string]field{}}
			d.collect(item, sub, mp, merging)
			for name, f := range sub.fields {
				if _, ok := m.fields[name]; !ok {
					m.fields[name] = f
				}
			}
			for name := range sub.suggested {
				if m.suggested == nil {
					m.suggested = map[string]bool{}
				}
				m.suggested[name] = true
			}
		}
	}
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// normalize folds a spelling for comparison with former ones: lower case,
// dashes and spaces as underscores.
func normalize(s string) string {
	return strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
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

// suggest returns the option nearest to word by edit distance (ignoring
// case), or "" if none is near enough to be a likely typo.
func suggest(word string, options []string) string { return Nearest(word, options) }

// Nearest returns the option nearest to word by edit distance (ignoring
// case), or "" if none is near enough to be a likely typo: the did-you-mean
// of every dspalab message (field names, vertices, metrics, parameters).
func Nearest(word string, options []string) string {
	n := utf8.RuneCountInString(word)
	if n == 0 || n > 100 {
		return ""
	}
	limit := max(2, n/3)
	if n <= 3 {
		limit = 1
	}
	w := strings.ToLower(word)
	best, bestDist := "", math.MaxInt
	for _, o := range options {
		m := utf8.RuneCountInString(o)
		if m-n > limit || n-m > limit {
			continue // the distance is at least the difference in length
		}
		dist := levenshtein.ComputeDistance(w, strings.ToLower(o))
		if dist < bestDist {
			best, bestDist = o, dist
		}
	}
	if bestDist > limit || bestDist >= utf8.RuneCountInString(best) {
		return ""
	}
	return best
}

// value returns the resolved value of key in m and its path; nil if the
// key is absent.
func (d *decoder) value(m *mapping, key string) (*yaml.Node, string) {
	if m == nil {
		return nil, ""
	}
	f, ok := m.fields[key]
	if !ok {
		return nil, strictyaml.Join(m.path, key)
	}
	p := strictyaml.Join(m.path, key)
	v := d.Resolve(f.val)
	d.SetPos(p, v)
	return v, p
}

// missing reports a required field that m does not have, unless an unknown
// key was already reported as its likely misspelling.
func (d *decoder) missing(m *mapping, key, extra string) {
	d.Bad[strictyaml.Join(m.path, key)] = true
	if m.suggested[key] {
		return
	}
	d.Report(m.node, m.path, "missing required field %q%s", key, extra)
}

// scalar returns the scalar value of key, reporting a non-scalar or null
// value as "expect, got ...". ok is false when absent or wrong.
func (d *decoder) scalar(m *mapping, key, expect string) (v *yaml.Node, path string, ok bool) {
	v, path = d.value(m, key)
	if v == nil {
		return nil, path, false
	}
	if v.Kind != yaml.ScalarNode || strictyaml.IsNull(v) {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return v, path, false
	}
	return v, path, true
}

// str decodes a string field; any scalar is taken as its text.
func (d *decoder) str(m *mapping, key string, out *string) bool {
	v, _, ok := d.scalar(m, key, "expected a string")
	if ok {
		*out = v.Value
	}
	return ok
}

// integer decodes a whole-number field that fits in 32 bits.
func (d *decoder) integer(m *mapping, key string, out *int) bool {
	const expect = "expected a whole number"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	if t := v.ShortTag(); t != "!!int" && !(t == "!!float" && reInteger.MatchString(v.Value)) {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return false
	}
	var i int64
	if err := v.Decode(&i); err != nil || i > math.MaxInt32 || i < math.MinInt32 {
		if strings.HasPrefix(v.Value, "-") {
			d.Errorf(v, path, "%s, got %s, which is too small (at least %d)", expect, describe(v), math.MinInt32)
		} else {
			d.Errorf(v, path, "%s, got %s, which is too large (at most %d)", expect, describe(v), math.MaxInt32)
		}
		return false
	}
	*out = int(i)
	return true
}

// seed decodes the seed, an unsigned 64-bit number.
func (d *decoder) seed(m *mapping, key string, out *uint64) {
	const expect = "expected a whole number from 0 to 18446744073709551615"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return
	}
	var u uint64
	if v.ShortTag() != "!!int" || v.Decode(&u) != nil {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return
	}
	*out = u
}

// float decodes a finite number.
func (d *decoder) float(m *mapping, key string, out *float64) bool {
	const expect = "expected a number"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	var f float64
	if t := v.ShortTag(); t != "!!int" && t != "!!float" || v.Decode(&f) != nil {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		d.Errorf(v, path, "expected a finite number, got %s", describe(v))
		return false
	}
	*out = f
	return true
}

// boolean decodes true or false.
func (d *decoder) boolean(m *mapping, key string, out *bool) bool {
	const expect = "expected true or false"
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	var b bool
	if v.ShortTag() != "!!bool" || v.Decode(&b) != nil {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return false
	}
	*out = b
	return true
}

// unit decodes a unit string with parse; expect is parse's message prefix
// for non-scalars.
func unit[T any](d *decoder, m *mapping, key, expect string, parse func(string) (T, error), out *T) bool {
	v, path, ok := d.scalar(m, key, expect)
	if !ok {
		return false
	}
	x, err := parse(v.Value)
	if err != nil {
		d.Errorf(v, path, "%s", err.Error())
		return false
	}
	*out = x
	return true
}

func (d *decoder) duration(m *mapping, key string, out *des.Time) bool {
	return unit(d, m, key, expectDuration, ParseDuration, out)
}

func (d *decoder) rate(m *mapping, key string, out *float64) bool {
	return unit(d, m, key, expectRate, ParseRate, out)
}

func (d *decoder) size(m *mapping, key string, out *int64) bool {
	return unit(d, m, key, expectSize, ParseByteSize, out)
}

func (d *decoder) bandwidth(m *mapping, key string, out *float64) bool {
	return unit(d, m, key, expectBandwidth, ParseBandwidth, out)
}

// list decodes a sequence field; a null value is an empty list.
func (d *decoder) list(m *mapping, key, expect string) ([]*yaml.Node, string) {
	v, path := d.value(m, key)
	if v == nil || strictyaml.IsNull(v) {
		return nil, path
	}
	if v.Kind != yaml.SequenceNode {
		d.Errorf(v, path, "%s, got %s", expect, describe(v))
		return nil, path
	}
	return v.Content, path
}

// sub decodes the nested mapping of key f of m; absent gives an empty
// mapping at the parent's position.
func (d *decoder) sub(m *mapping, f *Field) *mapping {
	if m == nil {
		return nil
	}
	kv, ok := m.fields[f.Name]
	if !ok {
		return &mapping{path: strictyaml.Join(m.path, f.Name), node: m.node, fields: map[string]field{}}
	}
	return d.mapping(kv.val, strictyaml.Join(m.path, f.Name), f.Sub)
}

// names decodes a list of distinct names (trace columns).
func (d *decoder) names(m *mapping, f *Field, items []*yaml.Node, path string) []string {
	noun, key := f.itemNoun(), f.Name
	var out []string
	seen := map[string]bool{}
	for i, item := range items {
		p := strictyaml.Index(path, i)
		v := d.Resolve(item)
		d.SetPos(p, v)
		if v.Kind != yaml.ScalarNode || strictyaml.IsNull(v) || v.Value == "" {
			d.Errorf(v, p, "expected a %s name, got %s", noun, describe(v))
			out = append(out, "")
			continue
		}
		if seen[v.Value] {
			d.Errorf(v, p, "%s %s is listed twice", noun, quote(v.Value))
		}
		seen[v.Value] = true
		out = append(out, v.Value)
	}
	if m.has(key) && len(items) == 0 && !d.Bad[path] {
		d.Errorf(d.Resolve(m.fields[key].val), path, "expected at least one %s name", noun)
	}
	return out
}

// inheritNetwork starts a vertex's network from the scenario's.
func inheritNetwork(d *decoder, v reflect.Value) {
	v.FieldByName("Network").Set(reflect.ValueOf(d.s.Network))
}

// decodeInputs decodes input (one name) or inputs (a list of names) of an
// operator or sink, on the turn of input.
func decodeInputs(d *decoder, m *mapping, f *Field, v reflect.Value) {
	if f.Name == "input" {
		v.FieldByName("Inputs").Set(reflect.ValueOf(d.inputs(m)))
	}
}

// inputs decodes input (one name) or inputs (a list of names).
func (d *decoder) inputs(m *mapping) []string {
	hasOne, hasMany := m.has("input"), m.has("inputs")
	switch {
	case hasOne && hasMany:
		d.Errorf(m.fields["inputs"].key, strictyaml.Join(m.path, "inputs"), "give either input or inputs, not both")
	case !hasOne && !hasMany:
		d.missing(m, "input", " (or \"inputs\" for several)")
		return nil
	}
	if hasOne {
		v, path := d.value(m, "input")
		if v.Kind == yaml.SequenceNode {
			d.Errorf(v, path, "expected one vertex name, got a list; use inputs: [a, b] for several")
			return nil
		}
		var name string
		if !d.str(m, "input", &name) {
			return nil
		}
		return []string{name}
	}
	items, path := d.list(m, "inputs", "expected a list of vertex names such as [a, b]")
	if len(items) == 0 && !d.Bad[path] {
		d.Errorf(d.Resolve(m.fields["inputs"].val), path, "expected at least one vertex name")
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
	if !contains(failureMapping.Field("kind").values(), f.Kind) || d.Bad[strictyaml.Join(path, "kind")] {
		return // an unknown kind is reported by validation
	}
	keyErr := func(key, format string, args ...any) {
		if p := strictyaml.Join(path, key); !d.Bad[p] {
			d.Errorf(m.fields[key].key, p, format, args...)
		}
	}
	random := m.has("mtbf")
	switch {
	case random && m.has("at"):
		keyErr("mtbf", "give either at (one failure at that time) or mtbf (random failures), not both")
	case !random && !m.has("at") && contains(randomFailureKinds, f.Kind):
		d.missing(m, "at", ` (or "mtbf" for random failures)`)
	case !random && !m.has("at"):
		d.missing(m, "at", "")
	}
	if random && contains(randomFailureKinds, f.Kind) {
		for _, key := range []string{"vertex", "subtask", "worker"} {
			if m.has(key) {
				keyErr(key, "%q does not apply to random failures (mtbf): they strike every worker at random times", key)
			}
		}
		return
	}
	switch {
	case f.Kind == FailureTask && !m.has("vertex"):
		d.missing(m, "vertex", " for kind task")
	case m.has("vertex") && m.has("worker"):
		keyErr("worker", "give either vertex (one of its subtasks slows down) or worker (all its subtasks do), not both")
	case m.has("subtask") && !m.has("vertex") && !m.suggested["vertex"]:
		keyErr("subtask", "%q needs vertex: it picks a subtask of that vertex", "subtask")
	}
}

// decodeBackend checks that gc_pause_per_gib comes with gc_interval.
func decodeBackend(d *decoder, m *mapping, _ reflect.Value) {
	bad := d.Bad[strictyaml.Join(m.path, "gc_pause_per_gib")] || d.Bad[strictyaml.Join(m.path, "gc_interval")]
	if m.has("gc_pause_per_gib") && !m.has("gc_interval") && !bad && !m.suggested["gc_interval"] {
		d.Errorf(m.fields["gc_pause_per_gib"].key, strictyaml.Join(m.path, "gc_pause_per_gib"),
			"%q needs gc_interval: garbage collection is off without it", "gc_pause_per_gib")
	}
}
