package scenario

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/strictyaml"
)

// The YAML side of decoding: reading the document, mappings with their
// keys (duplicates, merge keys, unknown keys), and scalars of each kind
// with "expected ..., got ..." messages. What the keys mean is
// decode.go's, along the description of the format.

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

// textual reports whether key, if present, is not a number or a boolean
// written bare (see bare). Absent, it is true.
func (d *decoder) textual(m *mapping, key string) bool {
	v, path := d.value(m, key)
	return v == nil || !d.bare(v, path, "expected a string")
}

// bare reports, as an error "expect, got 5; write it in quotes", a number
// or a boolean written bare where text goes: the JSON Schema says string
// there, so that `name: 5`, which an editor checking the schema marks, is
// refused here too, with the quoted form to write instead.
func (d *decoder) bare(v *yaml.Node, path, expect string) bool {
	if v.Kind != yaml.ScalarNode || v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && v.Style&yaml.TaggedStyle == 0 {
		return false // quoted: text (unless tagged, as !!int "5" is a number)
	}
	switch v.ShortTag() {
	case "!!int", "!!float", "!!bool":
		d.Errorf(v, path, "%s, got %s; write it in quotes (%s) to mean the text", expect, describe(v), strconv.Quote(v.Value))
		return true
	}
	return false
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
		if d.bare(v, p, "expected a "+noun+" name") {
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
