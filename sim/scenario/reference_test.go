package scenario

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated reference tables of docs/authoring.md and README.md")

// Generated blocks of the docs, between these markers.
const (
	beginRef = "<!-- generated from sim/scenario/fields.go: go test ./sim/scenario -run TestReferenceDocs -update -->\n"
	endRef   = "<!-- end of generated reference -->\n"
)

// TestReferenceDocs fails when a reference table of the docs is not what
// the description of the format gives (-update rewrites it).
func TestReferenceDocs(t *testing.T) {
	for file, body := range map[string]string{
		"../../docs/authoring.md": ReferenceMarkdown(),
		"../../README.md":         FaultToleranceMarkdown(),
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		i, j := strings.Index(text, beginRef), strings.Index(text, endRef)
		if i < 0 || j < i {
			t.Fatalf("%s has no generated block (%q ... %q)", file, beginRef, endRef)
		}
		got := text[i+len(beginRef) : j]
		if got == body {
			continue
		}
		if !*update {
			t.Errorf("%s: the generated reference is stale; run go test ./sim/scenario -run TestReferenceDocs -update", file)
			continue
		}
		if err := os.WriteFile(file, []byte(text[:i+len(beginRef)]+body+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
