// Package strictyaml holds the machinery shared by the module's strict YAML
// decoders (sim/scenario's scenario files, exercises' exercise.yaml): a
// Walker that follows aliases against a node budget, so that a small
// document that expands to a huge tree (an alias bomb) is refused, records
// errors at nodes with their field paths and remembers where each path was
// given; and the helpers that build and walk field paths
// ("sources[0].arrival.rate").
package strictyaml

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Position is a 1-based line and column of the YAML text.
type Position struct{ Line, Col int }

// Walker walks a yaml.v3 node tree for a decoder, collecting every error
// rather than stopping at the first. A decoder embeds it and runs its walk
// inside Walk.
type Walker struct {
	// Bad holds the paths of fields that already have an error (Errorf),
	// so that later checks do not report them again.
	Bad map[string]bool
	// Pos holds where each field path was given (SetPos).
	Pos map[string]Position
	// budget is the number of nodes left to resolve.
	budget int
	// add records one error; line and col are 0 when there is no node.
	add func(line, col int, path, msg string)
}

// NewWalker returns a Walker for the tree under root that passes each error
// to add. It may resolve the nodes of the document (aliases not followed)
// twice, plus slack more, before Walk gives up.
func NewWalker(root *yaml.Node, slack int, add func(line, col int, path, msg string)) Walker {
	return Walker{Bad: map[string]bool{}, Pos: map[string]Position{}, budget: nodeBudget(root, slack), add: add}
}

// nodeBudget counts the nodes under root (aliases not followed) twice, plus
// slack.
func nodeBudget(root *yaml.Node, slack int) int {
	n := 0
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		stack = append(stack, top.Content...)
	}
	return 2*n + slack
}

// BudgetError is what Walk returns when the walk resolved more nodes than
// its budget; Line and Col are those of the node that exhausted it.
type BudgetError struct{ Line, Col int }

func (*BudgetError) Error() string {
	return "the document expands to too many nodes (aliases that refer to aliases?)"
}

// errBudget is the panic value that stops a walk past its budget.
type errBudget struct{ line, col int }

// Walk calls walk, stopping it when Resolve exhausts the budget; it returns
// nil when walk finished, else where the budget ran out. Other panics go on.
func (w *Walker) Walk(walk func()) (err *BudgetError) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(errBudget)
			if !ok {
				panic(r)
			}
			err = &BudgetError{Line: b.line, Col: b.col}
		}
	}()
	walk()
	return nil
}

// Errorf records an error at node n (nil: unknown position) for the field
// path and marks the path as bad.
func (w *Walker) Errorf(n *yaml.Node, path, format string, args ...any) {
	w.Report(n, path, format, args...)
	w.Bad[path] = true
}

// Report records an error at node n (nil: unknown position) for the field
// path without marking the path as bad (for errors about one key of a
// mapping reported at the mapping).
func (w *Walker) Report(n *yaml.Node, path, format string, args ...any) {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	w.add(line, col, path, fmt.Sprintf(format, args...))
}

// Resolve follows aliases (a missing or too deep one reads as null) and
// charges the node against the budget; past the budget it stops the Walk.
func (w *Walker) Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	w.budget--
	if w.budget < 0 {
		panic(errBudget{n.Line, n.Column})
	}
	return n
}

// SetPos records where the value of path is, unless it is known already or
// n has no position.
func (w *Walker) SetPos(path string, n *yaml.Node) {
	if _, ok := w.Pos[path]; !ok && n != nil && n.Line > 0 {
		w.Pos[path] = Position{n.Line, n.Column}
	}
}

// IsNull reports whether n is null: a null scalar, a zero node or an empty
// document.
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" ||
		n.Kind == 0 || n.Kind == yaml.DocumentNode && len(n.Content) == 0
}

// Join returns the path of field key of the mapping at path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index returns the path of item i of the list at path.
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Parent strips the last ".field" or "[i]" of a path ("" for a top-level
// one).
func Parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// Lookup returns the position of path in pos or, when it has none (a
// default), that of the nearest enclosing path that has one.
func Lookup(pos map[string]Position, path string) (Position, bool) {
	for {
		if p, ok := pos[path]; ok {
			return p, true
		}
		if path == "" {
			return Position{}, false
		}
		path = Parent(path)
	}
}
