package exercises

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dspalab/dspalab/datasets"
	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/scenario"
	"go.yaml.in/yaml/v3"
)

// builtinFiles is the built-in pack: exercises/builtin/, one folder per
// exercise (and a README.md describing the folder, so that the pattern
// always matches).
//
//go:embed builtin
var builtinFiles embed.FS

// BuiltinName names the built-in pack in messages and is the prefix of its
// files' names (as in the repository).
const BuiltinName = "exercises/builtin"

var builtinPack = sync.OnceValues(func() (*Pack, error) {
	sub, err := fs.Sub(builtinFiles, "builtin")
	if err != nil {
		return nil, fmt.Errorf("exercises: the built-in pack: %w", err)
	}
	return Load(sub, BuiltinName, "", true)
})

// Builtin returns the built-in pack, loaded once. Its error is a bug of
// the pack (the pack's tests catch it): a scenario.ErrorList located in
// exercises/builtin/.
func Builtin() (*Pack, error) { return builtinPack() }

// OpenDir loads the pack in the directory dir: one sub-folder per
// exercise.
func OpenDir(dir string) (*Pack, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("exercises: opening the pack: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("exercises: the pack %s is not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, ExerciseFile)); err == nil {
		return nil, fmt.Errorf("exercises: %s is an exercise, not a pack (a folder of exercises): use its parent directory as the pack", dir)
	}
	return Load(os.DirFS(dir), dir, dir, false)
}

// OpenExerciseDir loads the single exercise in the directory dir (which
// holds exercise.yaml), as a pack of one: `dspalab grade --exercise DIR`.
func OpenExerciseDir(dir string) (*Exercise, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("exercises: %w", err)
	}
	if _, err := os.Stat(filepath.Join(abs, ExerciseFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("exercises: %s has no %s: an exercise folder holds exercise.yaml, README.md and starter.yaml", dir, ExerciseFile)
		}
		return nil, fmt.Errorf("exercises: %w", err)
	}
	parentDir := filepath.Dir(abs)
	name := filepath.Join(dir, "..") // so that labels are paths from here: ../ID/exercise.yaml
	p := &Pack{Name: name, FS: os.DirFS(parentDir), Dir: parentDir}
	e, errs := p.load(filepath.Base(abs))
	if len(errs) > 0 {
		return nil, sorted(errs)
	}
	p.exercises = []*Exercise{e}
	return e, nil
}

// Load reads the pack in fsys: every folder at its root that holds
// exercise.yaml is an exercise (other folders and files are left out).
// name names the pack in messages and prefixes its files' names; dir is
// its directory on disk ("" if none); builtin marks the built-in pack,
// which may not have hidden seeds. Every problem of every exercise is
// returned together, as a scenario.ErrorList located in the files.
func Load(fsys fs.FS, name, dir string, builtin bool) (*Pack, error) {
	p := &Pack{Name: name, FS: fsys, Dir: dir, Builtin: builtin}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("exercises: reading the pack %s: %w", name, err)
	}
	var errs scenario.ErrorList
	for _, ent := range entries {
		if !ent.IsDir() || strings.HasPrefix(ent.Name(), ".") {
			continue
		}
		if _, err := fs.Stat(fsys, path.Join(ent.Name(), ExerciseFile)); err != nil {
			continue
		}
		e, es := p.load(ent.Name())
		errs = append(errs, es...)
		if e != nil && len(es) == 0 {
			p.exercises = append(p.exercises, e)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	slices.SortFunc(p.exercises, func(a, b *Exercise) int { return strings.Compare(a.ID, b.ID) })
	return p, nil
}

// label names a file of the pack in messages.
func (p *Pack) label(name string) string {
	if p.Name == "" {
		return name
	}
	if p.Dir != "" {
		return filepath.Join(p.Name, filepath.FromSlash(name))
	}
	return path.Join(p.Name, name)
}

// load reads and checks the exercise in folder dir.
func (p *Pack) load(dir string) (*Exercise, scenario.ErrorList) {
	file := p.label(path.Join(dir, ExerciseFile))
	data, err := readFS(p.FS, path.Join(dir, ExerciseFile))
	if err != nil {
		return nil, scenario.ErrorList{{File: file, Msg: err.Error()}}
	}
	e, err := Parse(file, data)
	if err != nil {
		var l scenario.ErrorList
		if errors.As(err, &l) {
			return nil, l
		}
		return nil, scenario.ErrorList{{File: file, Msg: err.Error()}}
	}
	e.Dir, e.pack = dir, p
	var errs scenario.ErrorList
	add := func(path, format string, args ...any) { errs = append(errs, e.errorAt(path, format, args...)) }
	if e.ID != dir {
		add("id", "the id %q must be the exercise's folder name, %q", e.ID, dir)
	}
	if p.Builtin && len(e.HiddenSeeds) > 0 {
		add("hidden_seeds", "the built-in pack is public: it cannot hide seeds (hidden seeds belong in an instructor's own pack)")
	}
	if _, err := fs.Stat(p.FS, path.Join(dir, ReadmeFile)); err != nil {
		errs = append(errs, &scenario.Error{File: p.label(path.Join(dir, ReadmeFile)), Msg: "missing: every exercise has a README.md with the instructions"})
	}
	// the starter, and the instructor's scenarios, must be valid
	var names []string
	var docs []any // the scenarios, as YAML, for the [name] selectors of editable
	for _, f := range append([]string{e.Starter}, e.InstructorFiles()...) {
		sc, data, es := e.parseScenario(f)
		if es != nil {
			if f == e.Starter && errors.Is(es, fs.ErrNotExist) {
				add("starter", "the starter %s does not exist", f)
				continue
			}
			var l scenario.ErrorList
			if errors.As(es, &l) {
				errs = append(errs, l...)
			} else {
				errs = append(errs, &scenario.Error{File: e.Label(f), Msg: es.Error()})
			}
			continue
		}
		for _, n := range vertexNames(sc) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if f == e.Starter {
			e.checkEngine(sc.Engine, add)
		}
		var doc any
		if yaml.Unmarshal(data, &doc) == nil {
			docs = append(docs, doc)
		}
	}
	if len(names) > 0 {
		slices.Sort(names)
		e.checkNames(names, add)
	}
	e.checkEditableNames(docs, add)
	return e, errs
}

// checkEngine checks the metric paths against the summary a run of the
// starter's engine writes (a Spark run's summary.json is not Flink's).
func (e *Exercise) checkEngine(engine string, add func(path, format string, args ...any)) {
	check := func(p, metric string) {
		segs, err := ParseMetric(metric)
		if err != nil || metric == "" {
			return
		}
		if _, err := MetricKind(segs); err != nil {
			return // reported by Parse
		}
		if _, err := MetricKindFor(engine, segs); err != nil {
			add(p, "the starter runs on engine %s, whose summary.json has no %s: %v", engine, metric, err)
		}
	}
	for i, c := range e.Checks {
		check(strictyaml.Index("checks", i)+".metric", c.Metric)
	}
	for i, q := range e.Questions {
		check(strictyaml.Index("questions", i)+".truth.metric", q.Truth.Metric)
	}
}

// checkNames checks the [name] selectors of the metric paths against the
// vertices of the starter and the instructor's scenarios.
func (e *Exercise) checkNames(names []string, add func(path, format string, args ...any)) {
	check := func(p, metric string) {
		segs, err := ParseMetric(metric)
		if err != nil {
			return
		}
		for _, n := range metricNames(segs) {
			if slices.Contains(names, n) {
				continue
			}
			msg := "no vertex named %q in the starter; its vertices are %s"
			if s := scenario.Nearest(n, names); s != "" {
				msg += " (did you mean " + s + "?)"
			}
			add(p, msg, n, strings.Join(names, ", "))
		}
	}
	for i, c := range e.Checks {
		check(strictyaml.Index("checks", i)+".metric", c.Metric)
	}
	for i, q := range e.Questions {
		check(strictyaml.Index("questions", i)+".truth.metric", q.Truth.Metric)
	}
}

// checkEditableNames checks the [name] selectors of the editable patterns
// (operators[enrich].parallelism) against the names of the elements of
// that list in the starter and the instructor's scenarios (docs, decoded
// YAML), as checkNames does for the metric paths: a pattern that names no
// element allows nothing. A list none of them has is not checked.
func (e *Exercise) checkEditableNames(docs []any, add func(path, format string, args ...any)) {
	for i, p := range e.patterns {
		nodes := docs
		for k, s := range p.segs {
			if s.IsName {
				var names []string
				for _, n := range nodes {
					l, _ := n.([]any)
					for _, el := range l {
						if m, ok := el.(map[string]any); ok {
							if name, ok := m["name"].(string); ok && !slices.Contains(names, name) {
								names = append(names, name)
							}
						}
					}
				}
				if len(names) > 0 && !slices.Contains(names, s.Name) {
					slices.Sort(names)
					list := FormatPath(p.segs[:k])
					msg := fmt.Sprintf("no element of %s named %q in the starter (%s would allow nothing); its %s are %s", list, s.Name, p.Raw, list, strings.Join(names, ", "))
					if n := scenario.Nearest(s.Name, names); n != "" {
						msg += " (did you mean " + n + "?)"
					}
					add(strictyaml.Index("editable", e.patternIndex[i]), "%s", msg)
					break
				}
			}
			nodes = follow(nodes, s)
		}
	}
}

// follow returns what segment s selects in each of nodes (decoded YAML):
// a field of a mapping (* any field), an element of a list ([N], [name]
// the element of that name, [*] any).
func follow(nodes []any, s Seg) []any {
	var out []any
	for _, n := range nodes {
		switch {
		case s.IsIndex || s.IsName:
			l, _ := n.([]any)
			for j, el := range l {
				m, _ := el.(map[string]any)
				switch {
				case s.IsName:
					if name, ok := m["name"].(string); ok && name == s.Name {
						out = append(out, el)
					}
				case s.Index < 0 || s.Index == j:
					out = append(out, el)
				}
			}
		default:
			m, _ := n.(map[string]any)
			if s.Key == "*" {
				for _, v := range m {
					out = append(out, v)
				}
			} else if v, ok := m[s.Key]; ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// parseScenario reads and parses a scenario of the exercise's folder, and
// checks the names of its traces (data sets, parts, columns) against the
// built-in registry. File traces must lie in the exercise's folder on
// disk. It returns the file's bytes too (load decodes them as YAML for
// editable's [name] selectors, without reading the file again).
func (e *Exercise) parseScenario(name string) (*scenario.Scenario, []byte, error) {
	data, err := e.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	sc, err := scenario.Parse(e.Label(name), data)
	if err != nil {
		return nil, nil, err
	}
	if err := e.CheckTraces(sc); err != nil {
		return nil, nil, err
	}
	return sc, data, nil
}

// CheckTraces checks the trace sources of a scenario of this exercise (the
// starter or a submission): the data sets against the built-in registry
// (without reading them), and file traces, which must be files of the
// exercise's folder in a pack on disk. Problems come as a
// scenario.ErrorList located in the scenario.
func (e *Exercise) CheckTraces(sc *scenario.Scenario) error {
	var errs scenario.ErrorList
	for i, s := range sc.Sources {
		tr := s.Arrival.Trace
		if s.Arrival.Process != scenario.ArrivalTrace || tr == nil || tr.File == "" {
			continue
		}
		p := fmt.Sprintf("sources[%d].arrival.trace.file", i)
		switch {
		case !filepath.IsLocal(tr.File) || strings.Contains(tr.File, `\`):
			errs = append(errs, sc.Errorf(p, "a trace file of an exercise must be in the exercise's folder: a relative path without .., got %q", tr.File))
		case e.BaseDir() == "":
			errs = append(errs, sc.Errorf(p, "the built-in pack cannot replay files: use a data set (trace.dataset)"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	_, err := datasets.Resolve(sc, datasets.Env{Registry: datasets.Builtin(), NoData: true})
	return err
}

// readFS reads a file of fsys, refusing one over MaxFileBytes.
func readFS(fsys fs.FS, name string) ([]byte, error) {
	f, err := regfile.OpenFS(fsys, name) // a FIFO is refused, not opened
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than 1 MiB", name)
	}
	return data, nil
}

// Exercises returns the pack's exercises, sorted by ID.
func (p *Pack) Exercises() []*Exercise { return slices.Clone(p.exercises) }

// IDs returns the ids of the pack's exercises, sorted.
func (p *Pack) IDs() []string {
	ids := make([]string, len(p.exercises))
	for i, e := range p.exercises {
		ids[i] = e.ID
	}
	return ids
}

// Get returns the exercise id, or an error that lists the pack's ids and
// suggests the nearest.
func (p *Pack) Get(id string) (*Exercise, error) {
	for _, e := range p.exercises {
		if e.ID == id {
			return e, nil
		}
	}
	ids := p.IDs()
	// the built-in pack is named as its users know it, not by the
	// folder it is embedded from
	where := "in the pack " + p.Name
	if p.Builtin {
		where = "among the built-in exercises (dspalab exercise list)"
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no exercise %q: the pack %s has no exercises", id, p.Name)
	}
	msg := fmt.Sprintf("no exercise %q %s; exercises: %s", id, where, strings.Join(ids, ", "))
	if s := scenario.Nearest(id, ids); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return nil, errors.New(msg)
}

// Pack returns the pack the exercise belongs to.
func (e *Exercise) Pack() *Pack { return e.pack }

// Label names a file of the exercise's folder in messages: for the
// built-in pack "exercises/builtin/ID/NAME", for a pack on disk its path.
func (e *Exercise) Label(name string) string {
	if e.pack == nil {
		return name
	}
	return e.pack.label(path.Join(e.Dir, name))
}

// BaseDir returns the exercise's folder on disk, or "" for the built-in
// pack: file traces are read relative to it.
func (e *Exercise) BaseDir() string {
	if e.pack == nil || e.pack.Dir == "" {
		return ""
	}
	return filepath.Join(e.pack.Dir, filepath.FromSlash(e.Dir))
}

// ReadFile reads a file of the exercise's folder (at most 1 MiB).
func (e *Exercise) ReadFile(name string) ([]byte, error) {
	if e.pack == nil {
		return nil, fmt.Errorf("exercises: exercise %s has no pack", e.ID)
	}
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("exercises: invalid file name %q", name)
	}
	data, err := readFS(e.pack.FS, path.Join(e.Dir, name))
	if err != nil {
		return nil, fmt.Errorf("exercises: reading %s: %w", e.Label(name), err)
	}
	return data, nil
}

// StarterYAML returns the starter scenario's YAML text.
func (e *Exercise) StarterYAML() ([]byte, error) { return e.ReadFile(e.Starter) }

// README returns the instructions (Markdown).
func (e *Exercise) README() ([]byte, error) { return e.ReadFile(ReadmeFile) }

// InstructorFiles returns the names of the instructor's scenarios in the
// exercise's folder, sorted: solution.yaml and wrong*.yaml, those that
// exist. They are never copied to students; the pack's tests grade them.
func (e *Exercise) InstructorFiles() []string {
	if e.pack == nil {
		return nil
	}
	entries, err := fs.ReadDir(e.pack.FS, e.Dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, ent := range entries {
		n := ent.Name()
		if ent.Type().IsRegular() && n != e.Starter && (n == SolutionFile || strings.HasPrefix(n, "wrong") && strings.HasSuffix(n, ".yaml")) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// MetricPath returns the parsed metric path of the check (valid once
// the exercise is loaded).
func (c Check) MetricPath() []Seg {
	segs, _ := ParseMetric(c.Metric)
	return segs
}

// MetricPath returns the parsed metric path of the question's truth.
func (q Question) MetricPath() []Seg {
	segs, _ := ParseMetric(q.Truth.Metric)
	return segs
}

// GradingSeeds returns the seeds a submission runs on: Seeds, then, with
// hidden, HiddenSeeds.
func (e *Exercise) GradingSeeds(hidden bool) []uint64 {
	s := slices.Clone(e.Seeds)
	if hidden {
		s = append(s, e.HiddenSeeds...)
	}
	return s
}
