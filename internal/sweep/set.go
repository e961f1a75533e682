package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/plural"
)

// Document is a scenario's YAML as a node tree that Set edits. Aliases are
// expanded when it is read, so that setting a value reached through an
// alias (or an anchor) changes that one place only.
type Document struct {
	root *yaml.Node // the document's top-level node
}

// maxExpandedNodes bounds the nodes of a document with its aliases
// expanded: aliases of aliases can make a small file huge.
const maxExpandedNodes = 1 << 20

// ReadDocument parses data, a single YAML document, into a Document. It
// returns an error for YAML that does not parse or whose aliases expand to
// more than about a million nodes; the scenario's own validation comes
// later, with scenario.Parse.
func ReadDocument(data []byte) (*Document, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("sweep: reading the scenario's YAML: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errors.New("sweep: the scenario is not one YAML document")
	}
	budget := maxExpandedNodes
	root, err := expand(doc.Content[0], &budget, 0)
	if err != nil {
		return nil, err
	}
	return &Document{root: root}, nil
}

// expand returns a copy of n with every alias replaced by a copy of what it
// refers to, and no anchors.
func expand(n *yaml.Node, budget *int, depth int) (*yaml.Node, error) {
	for i := 0; n.Kind == yaml.AliasNode && i < 100 && n.Alias != nil; i++ {
		n = n.Alias
	}
	*budget--
	if *budget < 0 || depth > 1000 || n.Kind == yaml.AliasNode {
		return nil, errors.New("sweep: the scenario's YAML aliases expand too far to edit")
	}
	c := *n
	c.Anchor, c.Alias = "", nil
	c.Content = nil
	for _, child := range n.Content {
		e, err := expand(child, budget, depth+1)
		if err != nil {
			return nil, err
		}
		c.Content = append(c.Content, e)
	}
	return &c, nil
}

// Clone returns a deep copy of d.
func (d *Document) Clone() *Document {
	budget := maxExpandedNodes
	root, _ := expand(d.root, &budget, 0) // d is already within the bounds
	return &Document{root: root}
}

// Bytes returns the document as YAML text (comments kept).
func (d *Document) Bytes() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d.root); err != nil {
		return nil, fmt.Errorf("sweep: writing the scenario's YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("sweep: writing the scenario's YAML: %w", err)
	}
	return b.Bytes(), nil
}

// vertexLists name the elements of the scenario's vertex lists in messages.
var vertexLists = map[string]string{"sources": "source", "operators": "operator", "sinks": "sink"}

// Set sets the scalar at path to value, written as in a scenario file
// ("4", "50/s", "250ms"). A path is a dotted list of mapping keys
// ("network.buffer_timeout"); in a list, an element is named by its name
// field ("operators.parse.parallelism", "sources.sensors.arrival.rate") or
// by its index from 0 ("sources.0.arrival.schedule.1.rate"). Missing
// mapping keys are created, so a field left to its default can be set;
// whether the key is a field of the format, and the value valid, is for
// scenario.Parse to say. Set returns an error for a list element that does
// not exist (listing those that do), for a path through a value, and for a
// path that ends at a mapping or a list rather than a value.
func (d *Document) Set(path, value string) error {
	segs := strings.Split(path, ".")
	if path == "" || slices.Contains(segs, "") {
		return fmt.Errorf("path %q has an empty part; write keys joined by dots, such as operators.parse.parallelism", path)
	}
	n := d.root
	at := "" // the path walked so far, for messages
	for i := 0; i < len(segs); {
		seg := segs[i]
		last := i == len(segs)-1
		switch n.Kind {
		case yaml.MappingNode:
			v := lookup(n, seg)
			if v == nil {
				// a field not given: create it (as a mapping on the way)
				k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
				v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				if last {
					v = &yaml.Node{Kind: yaml.ScalarNode}
				}
				n.Content = append(n.Content, k, v)
			} else if isNull(v) && !last {
				// "checkpoint:" with nothing under it
				*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: v.Line, Column: v.Column}
			}
			n = v
			at = joinPath(at, seg)
			i++
		case yaml.SequenceNode:
			elem, used, err := element(n, segs[i:], at)
			if err != nil {
				return err
			}
			n = elem
			at = joinPath(at, strings.Join(segs[i:i+used], "."))
			i += used
		default:
			return fmt.Errorf("%s is a value (%s), not a mapping or a list: it has no %s", at, describe(n), seg)
		}
	}
	switch n.Kind {
	case yaml.ScalarNode:
	case yaml.MappingNode:
		return fmt.Errorf("%s is a mapping, not a value: set one of its fields%s", path, fieldHint(n, path))
	case yaml.SequenceNode:
		return fmt.Errorf("%s is a list, not a value: set a field of one of its elements, named by name or by index (%s.0...)", path, path)
	default:
		return fmt.Errorf("%s is not a value that can be set", path)
	}
	n.Value = value
	n.Tag = "" // resolved again when parsed, as a value typed in the file
	n.Style = 0
	return nil
}

// lookup returns the value of key in mapping n: its own key first, then
// those of merged mappings (<<), in order.
func lookup(n *yaml.Node, key string) *yaml.Node {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 {
			merges = append(merges, v)
			continue
		}
		if k.Value == key {
			return v
		}
	}
	for _, m := range merges {
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			if s.Kind == yaml.MappingNode {
				if v := lookup(s, key); v != nil {
					return v
				}
			}
		}
	}
	return nil
}

// element finds the element of list n that segs start with: by name (the
// longest run of segments that, joined by dots, is an element's name, as
// names may hold dots) or by index. It returns the element and how many
// segments named it.
func element(n *yaml.Node, segs []string, at string) (*yaml.Node, int, error) {
	var names []string
	for k := len(segs); k >= 1; k-- {
		want := strings.Join(segs[:k], ".")
		for _, e := range n.Content {
			if e.Kind != yaml.MappingNode {
				continue
			}
			if v := lookup(e, "name"); v != nil && v.Kind == yaml.ScalarNode && v.Value == want {
				return e, k, nil
			}
		}
	}
	for _, e := range n.Content {
		if e.Kind == yaml.MappingNode {
			if v := lookup(e, "name"); v != nil && v.Kind == yaml.ScalarNode {
				names = append(names, v.Value)
			}
		}
	}
	if i, err := strconv.Atoi(segs[0]); err == nil && strconv.Itoa(i) == segs[0] {
		if i >= 0 && i < len(n.Content) {
			return n.Content[i], 1, nil
		}
		return nil, 0, fmt.Errorf("%s has %s (indexes 0 to %d), no element %d", at, plural.Count(len(n.Content), "element"), len(n.Content)-1, i)
	}
	what := "element"
	if v, ok := vertexLists[at]; ok {
		what = v
	}
	if len(names) == 0 {
		return nil, 0, fmt.Errorf("%s has no %s named %q; name an element by its index from 0", at, what, segs[0])
	}
	msg := fmt.Sprintf("%s has no %s named %q; %s: %s", at, what, segs[0], at, strings.Join(names, ", "))
	if s := nearest(segs[0], names); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return nil, 0, errors.New(msg)
}

// fieldHint lists some fields of mapping n as examples.
func fieldHint(n *yaml.Node, path string) string {
	var ex []string
	for i := 0; i+1 < len(n.Content) && len(ex) < 3; i += 2 {
		if k, v := n.Content[i], n.Content[i+1]; k.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode && k.Value != "name" && k.Value != "<<" {
			ex = append(ex, path+"."+k.Value)
		}
	}
	if len(ex) == 0 {
		return ""
	}
	return ", such as " + strings.Join(ex, " or ")
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Tag == "" && (n.Value == "" || n.Value == "~" || n.Value == "null") && n.Style == 0)
}

// describe says what a scalar node holds, for messages.
func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return "not a mapping"
}
