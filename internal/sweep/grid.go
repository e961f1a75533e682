package sweep

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dspalab/dspalab/sim/scenario"
)

// Param is one swept setting: a path in the scenario (see Document.Set) and
// the values it takes, as written in a scenario file.
type Param struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// ParseParam reads a --set flag, "PATH=V1,V2,...". It returns an error for
// a missing "=", an empty path or value, a value given twice, and for the
// path "seed" (sweeps vary seeds with Options.Seeds).
func ParseParam(s string) (Param, error) {
	flag := shownFlag(s)
	path, vals, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Param{}, fmt.Errorf("--set %q: expected PATH=V1,V2,... such as operators.parse.parallelism=1,2,4", flag)
	}
	if path == "seed" {
		return Param{}, fmt.Errorf("--set %q: seeds are not set with --set; use --seeds N to run every point with N seeds, counting up from the scenario's seed", flag)
	}
	p := Param{Path: path}
	seen := map[string]bool{}
	for v := range strings.SplitSeq(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Param{}, fmt.Errorf("--set %q: empty value; give values separated by commas, such as %s=1,2,4", flag, path)
		}
		if seen[v] {
			return Param{}, fmt.Errorf("--set %q: value %s is given twice", flag, v)
		}
		seen[v] = true
		p.Values = append(p.Values, v)
	}
	return p, nil
}

// shownFlag is a --set flag as an error quotes it: its first 80
// characters, and "…" for the rest (a list of 2000 values is not echoed).
func shownFlag(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// Shard is one of Count deterministic slices of a sweep's runs: run i
// belongs to shard i mod Count. Index counts from 0, as Kubernetes'
// JOB_COMPLETION_INDEX does. The zero Shard is the whole sweep.
type Shard struct {
	Index, Count int
}

// ParseShard reads a --shard flag, "I/N" with 0 <= I < N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: expected I/N, such as 0/4 for the first of 4 shards", s)
	}
	if n < 1 {
		return Shard{}, fmt.Errorf("--shard %q: N must be at least 1", s)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: I must be from 0 to %d (shards count from 0, as JOB_COMPLETION_INDEX does)", s, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) norm() Shard {
	if s.Count < 1 {
		return Shard{0, 1}
	}
	return s
}

// String returns "I/N".
func (s Shard) String() string {
	s = s.norm()
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether run i belongs to the shard.
func (s Shard) Has(i int) bool {
	s = s.norm()
	return i%s.Count == s.Index
}

// Grid is the cartesian product of a sweep's parameters and seeds. Runs are
// numbered from 0 with the first parameter varying slowest and the seed
// fastest, so run i has combination i / Seeds and seed FirstSeed + i mod
// Seeds.
type Grid struct {
	Params    []Param
	Seeds     int    // seeds per combination, at least 1
	FirstSeed uint64 // the scenario's seed
}

// maxRuns bounds the runs of a sweep: a typo in a list of values should
// not queue years of work.
const maxRuns = 1_000_000

// NewGrid checks params and seeds: at least one seed, no path given twice,
// seeds that do not overflow, and at most a million runs.
func NewGrid(params []Param, seeds int, firstSeed uint64) (*Grid, error) {
	if seeds < 1 {
		return nil, fmt.Errorf("--seeds must be at least 1, got %d", seeds)
	}
	if uint64(seeds-1) > math.MaxUint64-firstSeed {
		return nil, fmt.Errorf("--seeds %d: the seeds from the scenario's seed %d up would pass %d", seeds, firstSeed, uint64(math.MaxUint64))
	}
	seen := map[string]bool{}
	runs := float64(seeds)
	for _, p := range params {
		if seen[p.Path] {
			return nil, fmt.Errorf("--set %s is given twice; give all its values in one --set", p.Path)
		}
		seen[p.Path] = true
		if len(p.Values) == 0 {
			return nil, fmt.Errorf("--set %s has no values", p.Path)
		}
		runs *= float64(len(p.Values))
	}
	if runs > maxRuns {
		return nil, fmt.Errorf("the sweep has %.0f runs, more than the limit of %d; sweep fewer values or seeds", runs, maxRuns)
	}
	return &Grid{Params: params, Seeds: seeds, FirstSeed: firstSeed}, nil
}

// Combinations returns the number of parameter combinations.
func (g *Grid) Combinations() int {
	n := 1
	for _, p := range g.Params {
		n *= len(p.Values)
	}
	return n
}

// Runs returns the number of runs: combinations times seeds.
func (g *Grid) Runs() int { return g.Combinations() * g.Seeds }

// Combination returns the values of combination c, one per parameter.
func (g *Grid) Combination(c int) []string {
	vals := make([]string, len(g.Params))
	for i := len(g.Params) - 1; i >= 0; i-- {
		n := len(g.Params[i].Values)
		vals[i] = g.Params[i].Values[c%n]
		c /= n
	}
	return vals
}

// Run returns the combination and the seed of run i.
func (g *Grid) Run(i int) (combination int, seed uint64) {
	return i / g.Seeds, g.FirstSeed + uint64(i%g.Seeds)
}

// describe writes a combination as "path=value, path=value" for messages.
func (g *Grid) describe(vals []string) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = g.Params[i].Path + "=" + v
	}
	return strings.Join(parts, ", ")
}

// Apply sets the values of a combination in a copy of doc and parses the
// result under label (as the scenario's file name). A path that Set cannot
// follow, or a value the scenario format refuses, is an error naming the
// --set; the scenario's problems are given as "path: message", since their
// line numbers would refer to the edited text.
func Apply(doc *Document, label string, params []Param, vals []string) (*scenario.Scenario, error) {
	d := doc.Clone()
	for i, p := range params {
		if err := d.Set(p.Path, vals[i]); err != nil {
			return nil, fmt.Errorf("--set %s: %w", p.Path, err)
		}
	}
	data, err := d.Bytes()
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Parse(label, data)
	if err != nil {
		var list scenario.ErrorList
		if !errors.As(err, &list) {
			return nil, err
		}
		var msgs []string
		for _, e := range list {
			if e.Path != "" {
				msgs = append(msgs, e.Path+": "+e.Msg)
			} else {
				msgs = append(msgs, e.Msg)
			}
		}
		set := make([]string, len(params))
		for i, p := range params {
			set[i] = p.Path + "=" + vals[i]
		}
		return nil, fmt.Errorf("the scenario with %s is invalid: %s", strings.Join(set, ", "), strings.Join(msgs, "; "))
	}
	return sc, nil
}

// nearest is the did-you-mean of every dspalab message.
func nearest(typed string, names []string) string { return scenario.Nearest(typed, names) }
