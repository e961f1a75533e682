package scenario

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeListsEveryUnit checks that the README's table of quantities
// names every spelling the parsers accept: each duration unit, each after
// "/" for rates, each size unit, and each bandwidth unit (bits per second
// with "/s" or as bps; bytes per second as any size unit with "/s").
func TestReadmeListsEveryUnit(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip("no README:", err)
	}
	text := string(data)
	i := strings.Index(text, "| kind | examples | units |")
	if i < 0 {
		t.Fatal("README.md has no table of units (| kind | examples | units |)")
	}
	table := text[i:]
	table = table[:strings.Index(table, "\n\n")]
	rows := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) == 3 {
			kind, _, _ := strings.Cut(strings.TrimPrefix(cells[0], "| "), " ")
			rows[kind] = cells[2]
		}
	}
	lists := func(kind, spelling string) {
		t.Helper()
		if !strings.Contains(rows[kind], "`"+spelling+"`") {
			t.Errorf("README.md's %s row does not list `%s`: %s", kind, spelling, rows[kind])
		}
	}
	for sp := range timeUnit {
		lists("duration", sp)
		lists("rate", "/"+sp)
	}
	for sp := range sizeUnits {
		lists("size", sp)
	}
	for sp := range bpsUnits {
		lists("bandwidth", sp)
	}
	for sp := range bandwidthUnits {
		if _, ok := sizeUnits[sp]; ok {
			if !strings.Contains(rows["bandwidth"], "any size unit with `/s`") {
				t.Errorf("README.md's bandwidth row does not say that any size unit with /s is a bandwidth (%s/s): %s", sp, rows["bandwidth"])
			}
			continue
		}
		lists("bandwidth", sp+"/s")
	}
}
