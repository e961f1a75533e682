package strictyaml

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// An alias bomb stops the walk at the node that exhausts the budget.
func TestWalkBudget(t *testing.T) {
	src := "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	w := NewWalker(doc.Content[0], 10, func(line, col int, path, msg string) { msgs = append(msgs, msg) })
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		n = w.Resolve(n)
		for _, c := range n.Content {
			walk(c)
		}
	}
	b := w.Walk(func() { walk(doc.Content[0]) })
	if b == nil || b.Line == 0 || !strings.Contains(b.Error(), "too many nodes") {
		t.Fatalf("Walk = %v, want a budget error", b)
	}
	w.Errorf(nil, "x", "bad %d", 1)
	w.Report(doc.Content[0], "y", "note")
	if len(msgs) != 2 || !w.Bad["x"] || w.Bad["y"] {
		t.Errorf("msgs %q, bad %v", msgs, w.Bad)
	}
}

func TestPaths(t *testing.T) {
	if got := Index(Join(Join("", "sources"), "keys"), 2); got != "sources.keys[2]" {
		t.Errorf("Join/Index = %q", got)
	}
	pos := map[string]Position{"": {1, 1}, "sources[0]": {3, 5}}
	if p, ok := Lookup(pos, "sources[0].arrival.rate"); !ok || p != (Position{3, 5}) {
		t.Errorf("Lookup = %v, %v", p, ok)
	}
	if _, ok := Lookup(map[string]Position{}, "a.b"); ok {
		t.Error("Lookup found a position in an empty map")
	}
}

// Document locates a syntax error at the offending token (libyaml's
// problem mark), not at yaml.v3's 0-based line of the enclosing construct.
func TestDocumentSyntaxError(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"a: 1\nb: 2\nc: 3\nd: 4\ne: {x: 1, y: 2\nf: 3\n", "6:2: did not find expected ',' or '}' (in the flow mapping that starts at 5:4)"},
		{"- a\nb: 1\n", "2:1: did not find expected '-' indicator"},
		{"a: 1\nb:\n\t- 1\n", "3:1: found character that cannot start any token (tabs are not allowed in indentation; use spaces)"},
		{"a: 1\n---\nb: 2\n", "2:1: " + ErrSecond},
		{"a: \xff\n", "1:4: the file is not valid UTF-8 text"},
	} {
		_, err := Document([]byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("Document(%q) = %v, want %s", c.src, err, c.want)
		}
	}
	if _, err := Document([]byte("# nothing\n")); err != ErrEmpty {
		t.Errorf("a comment only: %v, want ErrEmpty", err)
	}
}
