// Package scenarios holds dspalab's built-in scenario library: YAML files
// embedded in the binary, each opening with a comment that says what to
// look at.
package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Default is the scenario `dspalab run` runs without arguments.
const Default = "backpressure"

// Names returns the names of the built-in scenarios, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Get returns the YAML of the built-in scenario name, or an error that
// lists the valid names.
func Get(name string) ([]byte, error) {
	b, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("scenarios: no built-in scenario %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}
