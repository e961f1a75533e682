package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agnivade/levenshtein"

	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim/scenario"
)

// MaxScenarioBytes is the largest scenario file Resolve reads: 1 MiB. A
// scenario is a short YAML file; a larger one is almost certainly a mistake
// (a data file named by accident).
const MaxScenarioBytes = 1 << 20

// Resolve finds the scenario an argument names and returns its YAML with
// the label to parse it under and to name it in messages.
//
// If arg names an existing file, the file is read (label: arg as given;
// files over MaxScenarioBytes are refused). Otherwise, if arg is the name of
// a built-in scenario, its embedded YAML is returned (label: the name). An
// empty arg means scenarios.Default. Anything else is an error that lists
// the built-in names and suggests the nearest one.
func Resolve(arg string) (label string, data []byte, err error) {
	if arg == "" {
		arg = scenarios.Default
	}
	fi, statErr := os.Stat(arg)
	switch {
	case statErr == nil && fi.IsDir():
		if slices.Contains(scenarios.Names(), arg) {
			break // a run's output folder named after the built-in: the built-in
		}
		return "", nil, fmt.Errorf("%s is a directory, not a scenario file", arg)
	case statErr == nil:
		data, err := readScenarioFile(arg)
		if err != nil {
			return "", nil, err
		}
		return arg, data, nil
	case !errors.Is(statErr, fs.ErrNotExist) && !isNotDir(statErr):
		return "", nil, fmt.Errorf("reading scenario: %w", statErr)
	}
	if slices.Contains(scenarios.Names(), arg) {
		data, err := scenarios.Get(arg)
		if err != nil {
			return "", nil, err
		}
		return arg, data, nil
	}
	if err := regfile.DanglingLink(arg); err != nil {
		return "", nil, fmt.Errorf("reading scenario: %w", err)
	}
	if f := nearbyFile(arg); f != "" {
		// a file of the user's beside the one typed comes before the
		// built-ins: "myy.yaml" is more likely my.yaml than mm1
		return "", nil, fmt.Errorf("no scenario file or built-in scenario named %q; did you mean %s?", arg, f)
	}
	if looksLikePath(arg) && suggest(arg, scenarios.Names()) == "" {
		// a file name typed, no built-in near it: the file is missing,
		// and the 39 built-in names would bury that
		return "", nil, fmt.Errorf("no scenario file or built-in scenario named %q: there is no file %s ('dspalab scenarios' lists the built-in ones)", arg, arg)
	}
	return "", nil, unknownScenario("no scenario file or built-in scenario named", arg)
}

// looksLikePath reports whether arg names a file rather than a built-in:
// it has a directory or a YAML suffix (built-in names have neither).
func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
}

// nearbyFile returns the YAML file in arg's directory whose name is
// nearest to arg's (see suggest), as a path to type; "" when none is
// close or arg does not look like a file name (a .yaml or .yml suffix).
func nearbyFile(arg string) string {
	ext := strings.ToLower(filepath.Ext(arg))
	if ext != ".yaml" && ext != ".yml" {
		return ""
	}
	dir := filepath.Dir(arg)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) > 10000 {
		return ""
	}
	var names []string
	byName := map[string]string{}
	for _, e := range entries {
		n := e.Name()
		if x := strings.ToLower(filepath.Ext(n)); e.Type().IsRegular() && (x == ".yaml" || x == ".yml") {
			k := strings.ToLower(strings.TrimSuffix(n, filepath.Ext(n)))
			names = append(names, k)
			byName[k] = n
		}
	}
	best := suggest(arg, names)
	if best == "" {
		return ""
	}
	if dir == "." && !strings.HasPrefix(arg, "."+string(filepath.Separator)) {
		return byName[best]
	}
	return filepath.Join(dir, byName[best])
}

// isNotDir reports a stat error of a path whose parent is a file
// ("a.yaml/b"), which means the path does not exist either.
func isNotDir(err error) bool {
	return errors.Is(err, syscall.ENOTDIR)
}

// readScenarioFile reads at most MaxScenarioBytes of a file and refuses a
// larger one.
func readScenarioFile(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxScenarioBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading scenario %s: %w", path, err)
	}
	if len(data) > MaxScenarioBytes {
		limit := scenario.FormatByteSize(MaxScenarioBytes)
		size := "more than " + limit
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && scenario.FormatByteSize(fi.Size()) != limit {
			size = scenario.FormatByteSize(fi.Size()) // not "1MiB" for one byte over
		}
		return nil, fmt.Errorf("scenario file %s is %s; the limit is %s (a scenario is a short YAML file: is this a data file?)", path, size, limit)
	}
	return data, nil
}

// unknownScenario builds "PREFIX X; built-in: a, b, c (did you mean Y?)".
func unknownScenario(prefix, name string) error {
	names := scenarios.Names()
	if s := suggest(name, names); s != "" {
		// the nearest name first, where it is seen, before the list
		// (34 names and growing), as flags say it
		return fmt.Errorf("%s %q; did you mean %s? (built-in: %s)", prefix, name, s, strings.Join(names, ", "))
	}
	return fmt.Errorf("%s %q; built-in: %s", prefix, name, strings.Join(names, ", "))
}

// suggest returns the built-in name nearest to what the user typed, or ""
// when none is close. A path or a .yaml suffix is ignored, so
// "scenarios/backpresure.yaml" suggests "backpressure".
func suggest(typed string, names []string) string {
	word := strings.ToLower(filepath.Base(typed))
	for _, ext := range []string{".yaml", ".yml"} {
		word = strings.TrimSuffix(word, ext)
	}
	if word == "" {
		return ""
	}
	best, bestDist := "", 0
	for _, n := range names {
		if n == word || strings.HasPrefix(n, word) || strings.HasPrefix(word, n) {
			return n
		}
		d := levenshtein.ComputeDistance(word, n)
		if best == "" || d < bestDist {
			best, bestDist = n, d
		}
	}
	if bestDist <= max(2, len(word)/3) {
		return best
	}
	return ""
}

// Load resolves arg (see Resolve) and parses it. It returns the scenario
// and its label; a parse failure is the scenario.ErrorList of Parse,
// unwrapped, so callers can print its file:line:col lines as they are.
func Load(arg string) (*scenario.Scenario, string, error) {
	label, data, err := Resolve(arg)
	if err != nil {
		return nil, "", err
	}
	sc, err := scenario.Parse(label, data)
	if err != nil {
		return nil, label, err
	}
	return sc, label, nil
}
