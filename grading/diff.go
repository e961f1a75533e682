package grading

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/sim/scenario"
)

// tree is a YAML document as generic data: mappings by key, sequences by
// index, scalars by value, with aliases and merge keys (<<) resolved.
type tree struct {
	kind  yaml.Kind // MappingNode, SequenceNode or ScalarNode; 0 for null
	keys  []string  // mapping keys in order
	vals  map[string]*tree
	items []*tree
	value string
	tag   string
}

// errTooLarge is returned for a document that expands past its node
// budget through aliases.
var errTooLarge = errors.New("the document expands to too many nodes (aliases that refer to aliases?)")

// parseTree reads data (one YAML document, already accepted by
// scenario.Parse) as a tree. Expanding aliases is bounded like
// scenario.Parse bounds it: twice the document's nodes plus some slack.
func parseTree(data []byte) (*tree, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return &tree{}, nil
	}
	n := 0
	stack := []*yaml.Node{doc.Content[0]}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		stack = append(stack, top.Content...)
	}
	b := &builder{budget: 2*n + 100000}
	t := b.build(doc.Content[0], 0)
	if b.err != nil {
		return nil, b.err
	}
	return t, nil
}

type builder struct {
	budget int
	err    error
}

func (b *builder) build(n *yaml.Node, depth int) *tree {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	b.budget--
	if b.err != nil || b.budget < 0 || depth > 1000 {
		b.err = errTooLarge
		return &tree{}
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return &tree{}
	}
	switch n.Kind {
	case yaml.MappingNode:
		t := &tree{kind: yaml.MappingNode, vals: map[string]*tree{}}
		b.mapping(n, t, depth, map[*yaml.Node]bool{})
		return t
	case yaml.SequenceNode:
		t := &tree{kind: yaml.SequenceNode}
		for _, c := range n.Content {
			t.items = append(t.items, b.build(c, depth+1))
		}
		return t
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return &tree{}
		}
		return &tree{kind: yaml.ScalarNode, value: n.Value, tag: n.ShortTag()}
	}
	return &tree{}
}

// mapping adds the keys of n to t: its own, then those of merged mappings
// that are not there yet.
func (b *builder) mapping(n *yaml.Node, t *tree, depth int, merging map[*yaml.Node]bool) {
	if merging[n] {
		return
	}
	merging[n] = true
	defer delete(merging, n)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		for j := 0; k.Kind == yaml.AliasNode && j < 100; j++ {
			k = k.Alias
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, n.Content[i+1])
			continue
		}
		if _, ok := t.vals[k.Value]; ok {
			continue
		}
		if depth == 0 && strings.HasPrefix(k.Value, "x-") {
			continue // ignored by the format, never expanded
		}
		t.keys = append(t.keys, k.Value)
		t.vals[k.Value] = b.build(n.Content[i+1], depth+1)
	}
	for _, m := range merges {
		for j := 0; m.Kind == yaml.AliasNode && j < 100; j++ {
			m = m.Alias
		}
		list := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			list = m.Content
		}
		for _, it := range list {
			for j := 0; it.Kind == yaml.AliasNode && j < 100; j++ {
				it = it.Alias
			}
			b.budget--
			if b.budget < 0 {
				b.err = errTooLarge
				return
			}
			if it.Kind == yaml.MappingNode {
				b.mapping(it, t, depth+1, merging)
			}
		}
	}
}

// name returns the "name" field of a mapping, or "".
func (t *tree) name() string {
	if t == nil || t.kind != yaml.MappingNode {
		return ""
	}
	if v := t.vals["name"]; v != nil && v.kind == yaml.ScalarNode {
		return v.value
	}
	return ""
}

func (t *tree) empty() bool {
	return t == nil || t.kind == 0 ||
		t.kind == yaml.MappingNode && len(t.keys) == 0 ||
		t.kind == yaml.SequenceNode && len(t.items) == 0
}

// change is a leaf that differs between the starter and a submission.
type change struct {
	// path is the field as the starter has it: a vertex in a list
	// matched by name has the starter's index there, so that [N]
	// patterns mean the starter's elements; at is the field where the
	// submission has it (nil when removed), for its line and column
	path, at []exercises.Seg
	removed  bool // in the starter only
	// the starter's scalar and the submission's, as written ("" where
	// one has none: added or removed, or a value whose shape changed)
	was, now string
}

// changes returns the leaves that differ between the starter's tree a and
// the submission's tree b: changed scalars, fields and list elements
// added or removed (each of their leaves), values whose shape changed
// (the value's path). The top-level seed and x- fields are left out:
// grading replaces the seed, and x- fields are ignored by the format.
//
// Lists of named elements (sources, operators, sinks: every element a
// mapping with a name of its own in both trees) are compared by name, not
// by index: a submission that lists the vertices in another order is the
// same job graph, since vertices are wired by name (input:). An element
// of the submission that the starter does not have is added, and the
// other way round removed.
func changes(a, b *tree) []change {
	var out []change
	diffTree(a, b, nil, nil, &out)
	return out
}

func diffTree(a, b *tree, path, at []exercises.Seg, out *[]change) {
	switch {
	case a.empty() && b.empty():
		return
	case a.empty():
		leaves(b, path, at, false, out)
		return
	case b.empty():
		leaves(a, path, nil, true, out)
		return
	case a.kind != b.kind:
		*out = append(*out, change{path: clone(path), at: clone(at)})
		return
	}
	switch a.kind {
	case yaml.ScalarNode:
		if !sameScalar(a, b) && !scenario.SameValue(fieldPath(path), a.value, b.value) {
			*out = append(*out, change{path: clone(path), at: clone(at), was: a.value, now: b.value})
		}
	case yaml.MappingNode:
		seen := map[string]bool{}
		for _, keys := range [][]string{a.keys, b.keys} {
			for _, k := range keys {
				if seen[k] {
					continue
				}
				seen[k] = true
				if len(path) == 0 && (k == "seed" || strings.HasPrefix(k, "x-")) {
					continue
				}
				seg := exercises.Seg{Key: k}
				diffTree(a.vals[k], b.vals[k], append(path, seg), append(at, seg), out)
			}
		}
	case yaml.SequenceNode:
		if byName(a, b) {
			diffNamed(a, b, path, at, out)
			return
		}
		for i := range max(len(a.items), len(b.items)) {
			var x, y *tree
			if i < len(a.items) {
				x = a.items[i]
			}
			if i < len(b.items) {
				y = b.items[i]
			}
			name := x.name()
			if name == "" {
				name = y.name()
			}
			seg := exercises.Seg{Index: i, IsIndex: true, Name: name}
			diffTree(x, y, append(path, seg), append(at, seg), out)
		}
	}
}

// byName reports whether lists a and b are to be compared by name: every
// element of both a mapping with a name, no name twice in either.
func byName(a, b *tree) bool {
	for _, t := range []*tree{a, b} {
		seen := make(map[string]bool, len(t.items))
		for _, it := range t.items {
			n := it.name()
			if n == "" || seen[n] {
				return false
			}
			seen[n] = true
		}
	}
	return true
}

// diffNamed compares lists of named elements by name: the starter's
// elements in its order (at the starter's index, so that a pattern's [N]
// is the starter's Nth element wherever the student moved it), then those
// only the submission has (at index -1: an [N] pattern does not let a new
// vertex in).
func diffNamed(a, b *tree, path, at []exercises.Seg, out *[]change) {
	where := make(map[string]int, len(b.items))
	for j, it := range b.items {
		where[it.name()] = j
	}
	inA := make(map[string]bool, len(a.items))
	for i, x := range a.items {
		name := x.name()
		inA[name] = true
		seg := exercises.Seg{Index: i, IsIndex: true, Name: name}
		j, ok := where[name]
		if !ok {
			diffTree(x, nil, append(path, seg), nil, out)
			continue
		}
		diffTree(x, b.items[j], append(path, seg), append(at, exercises.Seg{Index: j, IsIndex: true, Name: name}), out)
	}
	for j, y := range b.items {
		if name := y.name(); !inA[name] {
			// none of the starter's elements: index -1, which only [*]
			// and [name] patterns (and the list's own) match
			seg := exercises.Seg{Index: -1, IsIndex: true, Name: name}
			diffTree(nil, y, append(path, seg), append(at, exercises.Seg{Index: j, IsIndex: true, Name: name}), out)
		}
	}
}

// leaves appends t's leaves (t's own path when it is a scalar or empty);
// at is where the submission has t (nil when t is removed).
func leaves(t *tree, path, at []exercises.Seg, removed bool, out *[]change) {
	switch {
	case t.kind == yaml.ScalarNode && scenario.IsDefault(fieldPath(path), t.value):
		// a default written out (or taken out): the same scenario
	case t.empty() || t.kind == yaml.ScalarNode:
		c := change{path: clone(path), at: clone(at), removed: removed}
		if t.kind == yaml.ScalarNode && removed {
			c.was = t.value
		} else if t.kind == yaml.ScalarNode {
			c.now = t.value
		}
		*out = append(*out, c)
	case t.kind == yaml.MappingNode:
		for _, k := range t.keys {
			if len(path) == 0 && (k == "seed" || strings.HasPrefix(k, "x-")) {
				continue
			}
			seg := exercises.Seg{Key: k}
			leaves(t.vals[k], append(path, seg), extend(at, seg), removed, out)
		}
	default:
		for i, it := range t.items {
			seg := exercises.Seg{Index: i, IsIndex: true, Name: it.name()}
			leaves(it, append(path, seg), extend(at, seg), removed, out)
		}
	}
}

// sameScalar compares scalars by value, numbers by their numeric value
// (2 and 2.0 are the same).
func sameScalar(a, b *tree) bool {
	if a.value == b.value {
		return true
	}
	num := func(t *tree) (float64, bool) {
		if t.tag != "!!int" && t.tag != "!!float" {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(t.value, "_", ""), 64)
		return f, err == nil
	}
	x, ok1 := num(a)
	y, ok2 := num(b)
	return ok1 && ok2 && x == y
}

func clone(p []exercises.Seg) []exercises.Seg {
	if p == nil {
		return nil
	}
	return append([]exercises.Seg(nil), p...)
}

// extend is append for a submission path, nil (removed) staying nil.
func extend(at []exercises.Seg, s exercises.Seg) []exercises.Seg {
	if at == nil {
		return nil
	}
	return append(at, s)
}

// fieldPath is path as the scenario format names the field there: keys
// joined by dots, a list item as [] ("operators[].service_time.mean").
func fieldPath(path []exercises.Seg) string {
	var b strings.Builder
	for _, s := range path {
		if s.IsIndex || s.IsName {
			b.WriteString("[]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}
