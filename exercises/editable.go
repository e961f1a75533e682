package exercises

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/dspalab/dspalab/sim/scenario"
)

// Pattern is a scenario field path that a student may change (an entry of
// editable): YAML field names joined by dots, list elements selected by
// [N], by [name] (the element whose name field is name: the vertex named
// so) or by [*] (any element), and * standing for any one field name:
//
//	operators[*].parallelism   operators[enrich].parallelism   checkpoint   sources[0].arrival.*
//
// A pattern allows the field it names and everything inside it:
// "checkpoint" allows checkpoint.mode and checkpoint.storage.bandwidth.
type Pattern struct {
	Raw  string
	segs []Seg
}

// ParsePattern reads an editable pattern and checks its field names
// against the scenario format (the JSON Schema of sim/scenario), with the
// nearest valid name for a typo.
func ParsePattern(s string) (Pattern, error) {
	segs, err := parsePath(s, true)
	if err != nil {
		return Pattern{}, err
	}
	if err := checkSchema(segs); err != nil {
		return Pattern{}, err
	}
	return Pattern{Raw: s, segs: segs}, nil
}

// Match reports whether the field path (as the forbidden-edit check builds
// it: keys, and list indices carrying the element's name when it has one)
// is the pattern's field or inside it.
func (p Pattern) Match(path []Seg) bool {
	if len(p.segs) > len(path) {
		return false
	}
	for i, ps := range p.segs {
		s := path[i]
		switch {
		case ps.IsName:
			if !s.IsIndex || s.Name != ps.Name {
				return false
			}
		case ps.IsIndex:
			if !s.IsIndex || ps.Index >= 0 && ps.Index != s.Index {
				return false
			}
		default:
			if s.IsIndex || s.IsName || ps.Key != "*" && ps.Key != s.Key {
				return false
			}
		}
	}
	return true
}

// Patterns returns the exercise's editable patterns, parsed.
func (e *Exercise) Patterns() []Pattern { return e.patterns }

// EditableField reports whether the student may change the scenario field
// at path: whether an editable pattern matches it.
func (e *Exercise) EditableField(path []Seg) bool {
	for _, p := range e.patterns {
		if p.Match(path) {
			return true
		}
	}
	return false
}

// schemaDoc is the scenario format's JSON Schema, decoded.
var schemaDoc = sync.OnceValue(func() map[string]any {
	var m map[string]any
	if err := json.Unmarshal(scenario.JSONSchema(), &m); err != nil {
		return nil
	}
	return m
})

// checkSchema follows the pattern's segments through the schema. Where
// the schema does not say (a node without properties or items of its
// own, such as a choice of shapes), it accepts the rest.
func checkSchema(segs []Seg) error {
	node := schemaDoc()
	if node == nil {
		return nil
	}
	for i, s := range segs {
		where := "the scenario"
		if i > 0 {
			where = FormatPath(segs[:i])
		}
		if s.IsIndex || s.IsName {
			items := collect(node, "items")
			if len(items) == 0 {
				if opaque(node) {
					return nil
				}
				return fmt.Errorf("%s is not a list: %s selects nothing", where, s.String())
			}
			node = items[0]
			continue
		}
		if s.Key == "*" {
			return nil
		}
		props := map[string]any{}
		for _, p := range collect(node, "properties") {
			for k, v := range p {
				if _, ok := props[k]; !ok {
					props[k] = v
				}
			}
		}
		if len(props) == 0 {
			if opaque(node) {
				return nil
			}
			return fmt.Errorf("%s is a value; it has no field %q", where, s.Key)
		}
		child, ok := props[s.Key].(map[string]any)
		if !ok {
			names := make([]string, 0, len(props))
			for k := range props {
				names = append(names, k)
			}
			slices.Sort(names)
			msg := fmt.Sprintf("%s has no field %q", where, s.Key)
			if n := nearest(s.Key, names); n != "" {
				return fmt.Errorf("%s; did you mean %q?", msg, n)
			}
			return fmt.Errorf("%s; its fields are %s", msg, strings.Join(names, ", "))
		}
		node = child
	}
	return nil
}

// collect returns the values of key (objects) in node and in its
// alternatives (anyOf, oneOf, allOf, then, else), depth first.
func collect(node map[string]any, key string) []map[string]any {
	var out []map[string]any
	if v, ok := node[key].(map[string]any); ok {
		out = append(out, v)
	}
	for _, alt := range []string{"anyOf", "oneOf", "allOf"} {
		if l, ok := node[alt].([]any); ok {
			for _, a := range l {
				if m, ok := a.(map[string]any); ok {
					out = append(out, collect(m, key)...)
				}
			}
		}
	}
	for _, alt := range []string{"then", "else"} {
		if m, ok := node[alt].(map[string]any); ok {
			out = append(out, collect(m, key)...)
		}
	}
	return out
}

// opaque reports whether the schema node does not describe its shape
// (no type, or an object with arbitrary properties), so nothing can be
// said of what is inside.
func opaque(node map[string]any) bool {
	t, has := node["type"]
	if !has {
		return len(collect(node, "properties")) == 0 && len(collect(node, "items")) == 0 && node["anyOf"] == nil && node["oneOf"] == nil
	}
	if s, ok := t.(string); ok && s == "object" {
		ap, ok := node["additionalProperties"].(bool)
		return !ok || ap
	}
	return false
}
