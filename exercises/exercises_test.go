package exercises

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/scenario"
)

const starter = `name: t
duration: 10s
workers: {count: 1, slots: 4}
sources:
  - name: src
    arrival: {process: constant, rate: 100/s}
operators:
  - name: work
    input: src
    service_time: {distribution: constant, mean: 25ms}
sinks:
  - name: out
    input: work
`

const good = `id: ex
title: An exercise
topics: [a, b]
goals: [one]
editable:
  - operators[*].parallelism
  - operators[work].service_time
  - checkpoint
limits: {total_parallelism: 4, max_events: 1e6}
seeds: [1, 2]
checks:
  - id: keeps-up
    metric: vertices[out].in_rate_rps
    op: ">="
    value: 95
    over: mean
    points: 3
    fail: "got {value}, want {want}"
  - id: ok
    metric: vertices[work].status
    op: "=="
    value: OK
    points: 1
questions:
  - id: which
    text: Which?
    choices: [src, work, out]
    truth: {metric: diagnosis.vertex}
    points: 1
  - id: rate
    text: How many?
    truth:
      metric: vertices[out].in_rate_rps
      run: submission
    tolerance: 0.5
    points: 1
`

// pack returns a pack of one exercise "ex" with the given exercise.yaml
// and starter.
func pack(exercise, start string) fstest.MapFS {
	return fstest.MapFS{
		"ex/exercise.yaml": {Data: []byte(exercise)},
		"ex/README.md":     {Data: []byte("# Ex\n\nDo it.\n")},
		"ex/starter.yaml":  {Data: []byte(start)},
		"README.md":        {Data: []byte("a pack\n")},
		"notes/x.txt":      {Data: []byte("not an exercise\n")},
	}
}

func TestLoadGood(t *testing.T) {
	p, err := Load(pack(good, starter), "p", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if ids := p.IDs(); !slices.Equal(ids, []string{"ex"}) {
		t.Fatalf("ids %v", ids)
	}
	e, _ := p.Get("ex")
	if e.Title != "An exercise" || e.Limits.TotalParallelism != 4 || e.Limits.MaxEvents != 1e6 || !slices.Equal(e.Seeds, []uint64{1, 2}) {
		t.Errorf("decoded %+v", e)
	}
	c := e.Checks[0]
	if c.Op != ">=" || !c.Value.IsNum || c.Value.Num != 95 || c.Over != OverMean || c.Points != 3 {
		t.Errorf("check %+v", c)
	}
	if e.Checks[1].Over != OverAll || e.Checks[1].Value.IsNum || e.Checks[1].Value.Str != "OK" {
		t.Errorf("check %+v", e.Checks[1])
	}
	q := e.Questions[1]
	if q.Truth.Run != RunSubmission || q.Tolerance.Relative || q.Tolerance.Value != 0.5 || e.Questions[0].Tolerance != (Tolerance{0.01, true}) {
		t.Errorf("questions %+v", e.Questions)
	}
	if e.MaxPoints() != 6 {
		t.Errorf("max points %v", e.MaxPoints())
	}
	if e.Label("starter.yaml") != "p/ex/starter.yaml" || e.File != "p/ex/exercise.yaml" {
		t.Errorf("labels %s %s", e.Label("starter.yaml"), e.File)
	}
	if _, err := p.Get("exx"); err == nil || !strings.Contains(err.Error(), `no exercise "exx" in the pack p; exercises: ex (did you mean ex?)`) {
		t.Errorf("Get: %v", err)
	}
}

// TestErrors checks that every problem of exercise.yaml is reported,
// located as file:line:col with the field path.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, exercise, starter string
		builtin                 bool
		want                    []string
	}{
		{"unknown field", strings.Replace(good, "topics:", "topcis:", 1), starter, false,
			[]string{`p/ex/exercise.yaml:3:1: topcis: unknown field "topcis"; did you mean "topics"?`}},
		{"unknown check field", strings.Replace(good, "    over: mean", "    ovr: mean", 1), starter, false,
			[]string{`p/ex/exercise.yaml:16:5: checks[0].ovr: unknown field "ovr"; did you mean "over"?`}},
		{"wrong types", strings.Replace(strings.Replace(good, "points: 3", "points: three", 1), "seeds: [1, 2]", "seeds: [1, -2, 1]", 1), starter, false,
			[]string{`p/ex/exercise.yaml:10:12: seeds[1]: expected a seed (a whole number from 0 to 18446744073709551615), got -2`,
				`p/ex/exercise.yaml:10:16: seeds[2]: seed 1 is given twice`,
				`p/ex/exercise.yaml:17:13: checks[0].points: expected a number, got "three"`}},
		{"missing", "id: ex\nchecks:\n  - {id: a, metric: totals.events, op: '>', value: 1}\n", starter, false,
			[]string{`p/ex/exercise.yaml:1:1: missing required field "title"`, `p/ex/exercise.yaml:3:5: checks[0]: missing required field "points"`}},
		{"metric", strings.Replace(good, "vertices[out].in_rate_rps\n    op", "vertices[out].in_rate\n    op", 1), starter, false,
			[]string{`p/ex/exercise.yaml:13:13: checks[0].metric: vertices[out] has no field "in_rate"; did you mean "in_rate_rps"?`}},
		{"metric shape", strings.Replace(good, "vertices[out].in_rate_rps\n    op", "vertices.in_rate_rps\n    op", 1), starter, false,
			[]string{`checks[0].metric: vertices is a list: select an element with [N] or [name] before .in_rate_rps`}},
		{"vertex", strings.Replace(good, "vertices[work].status", "vertices[wrok].status", 1), starter, false,
			[]string{`p/ex/exercise.yaml:20:13: checks[1].metric: no vertex named "wrok" in the starter; its vertices are out, src, work (did you mean work?)`}},
		{"editable vertex", strings.Replace(good, "operators[work].service_time", "operators[wrok].service_time", 1), starter, false,
			[]string{`p/ex/exercise.yaml:7:5: editable[1]: no element of operators named "wrok" in the starter (operators[wrok].service_time would allow nothing); its operators are work (did you mean work?)`}},
		{"editable source", strings.Replace(good, "  - checkpoint\n", "  - checkpoint\n  - sources[srcx].arrival.rate\n  - sinks[out].parallelism\n", 1), starter, false,
			[]string{`p/ex/exercise.yaml:9:5: editable[3]: no element of sources named "srcx" in the starter (sources[srcx].arrival.rate would allow nothing); its sources are src (did you mean src?)`}},
		{"op and value", strings.Replace(strings.Replace(good, `op: ">="`, `op: "=>"`, 1), "value: OK", "value: 3", 1), starter, false,
			[]string{`checks[0].op: unknown operator "=>"; use one of >= <= > < == !=`, `checks[1].value: vertices[work].status is a string; compare it with a string, not a number`}},
		{"placeholder", strings.Replace(good, "{want}", "{wanted}", 1), starter, false,
			[]string{`checks[0].fail: unknown placeholder {wanted}; use {value} (the measured value) or {want} (the threshold)`}},
		{"editable", strings.Replace(good, "operators[*].parallelism", "operators[*].paralelism", 1), starter, false,
			[]string{`p/ex/exercise.yaml:6:5: editable[0]: operators[*] has no field "paralelism"; did you mean "parallelism"?`}},
		{"duplicate ids", strings.Replace(good, "id: rate", "id: ok", 1), starter, false,
			[]string{`questions[1].id: id "ok" is already used by checks[1]`}},
		{"tolerance", strings.Replace(good, "tolerance: 0.5", "tolerance: five%", 1), starter, false,
			[]string{`questions[1].tolerance: expected a tolerance such as "5%" (relative) or 0.5 (absolute), got "five%"`}},
		{"id and folder", strings.Replace(good, "id: ex", "id: other", 1), starter, false,
			[]string{`p/ex/exercise.yaml:1:5: id: the id "other" must be the exercise's folder name, "ex"`}},
		{"hidden seeds in the built-in pack", good + "hidden_seeds: [9]\n", starter, true,
			[]string{`hidden_seeds: the built-in pack is public: it cannot hide seeds`}},
		{"hidden seed also public", good + "hidden_seeds: [2]\n", starter, false,
			[]string{`hidden_seeds[0]: seed 2 is also a grading seed`}},
		{"starter", good, strings.Replace(starter, "duration:", "duraton:", 1), false,
			[]string{`p/ex/starter.yaml:2:1: duraton: unknown field "duraton"; did you mean "duration"?`}},
		{"flow mapping", strings.Replace(good, "truth:\n      metric: vertices[out].in_rate_rps\n      run: submission", "truth: {metric: vertices[out].in_rate_rps, run: submission}", 1), starter, false,
			[]string{`(inside {...}, a value holding [ or ] must be quoted`}},
		{"alias bomb", "x: &a [1,1,1,1,1,1,1,1,1,1]\n" + bombLevels() + "id: ex\ntitle: t\ntopics: *i\n", starter, false,
			[]string{`unknown field "x"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(pack(tc.exercise, tc.starter), "p", "", tc.builtin)
			if err == nil {
				t.Fatal("no error")
			}
			var l scenario.ErrorList
			if !errors.As(err, &l) {
				t.Fatalf("not an ErrorList: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("missing %q in:\n%v", w, err)
				}
			}
		})
	}
}

func bombLevels() string {
	s := ""
	for i, prev := 1, "a"; i < 9; i++ {
		name := string(rune('a' + i))
		s += "x" + name + ": &" + name + " [" + strings.Repeat("*"+prev+",", 9) + "*" + prev + "]\n"
		prev = name
	}
	return s
}

// TestAliasBomb: aliases are followed one level at a time, never
// expanded: a billion laughs gives a few errors, fast.
func TestAliasBomb(t *testing.T) {
	doc := "x: &a [1,1,1,1,1,1,1,1,1,1]\n" + bombLevels() + "id: ex\ntitle: t\ntopics: *i\nchecks: *i\n"
	_, err := Parse("e.yaml", []byte(doc))
	var l scenario.ErrorList
	if !errors.As(err, &l) || len(l) > 40 {
		t.Errorf("got %v", err)
	}
}

func TestMetric(t *testing.T) {
	for _, tc := range []struct{ path, kind, err string }{
		{"vertices[out].in_rate_rps", KindNumber, ""},
		{"vertices[0].subtasks[1].busy_ratio", KindNumber, ""},
		{"vertices[a].backpressured_on[b]", KindNumber, ""},
		{"diagnosis.vertex", KindString, ""},
		{"summary.partial", "", `the summary has no field "summary"`},
		{"partial", KindBool, ""},
		{"delivery.sinks[out].lost", KindNumber, ""},
		{"recovery.failovers[0].recovery_time_s", KindNumber, ""},
		{"recovery.failovers[x].lost", "", "the elements of recovery.failovers have no name: select one with [N]"},
		{"vertices[out]", "", "vertices[out] is an object, not a value"},
		{"totals.events.x", "", "totals.events is a value; it has no x"},
		{"Totals", "", `is not a field name`},
		{"vertices[].x", "", "[] selects nothing"},
	} {
		segs, err := ParseMetric(tc.path)
		kind := ""
		if err == nil {
			kind, err = MetricKind(segs)
		}
		if kind != tc.kind || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %q, %v; want %q, %q", tc.path, kind, err, tc.kind, tc.err)
		}
		if err == nil && FormatPath(segs) != tc.path {
			t.Errorf("%s formats as %s", tc.path, FormatPath(segs))
		}
	}
}

// TestLookup selects metrics in a real summary.
func TestLookup(t *testing.T) {
	sc, err := scenario.Parse("s.yaml", []byte(starter))
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(t.Context(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := SummaryDoc(&res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	get := func(p string) (any, error) {
		segs, err := ParseMetric(p)
		if err != nil {
			t.Fatal(err)
		}
		return Lookup(doc, segs)
	}
	if v, err := get("vertices[out].in_rate_rps"); err != nil || v.(float64) < 38 || v.(float64) > 42 {
		t.Errorf("sink rate %v %v", v, err)
	}
	if v, err := get("diagnosis.vertex"); err != nil || v != "work" {
		t.Errorf("diagnosis %v %v", v, err)
	}
	if v, err := get("vertices[1].name"); err != nil || v != "work" {
		t.Errorf("by index %v %v", v, err)
	}
	if _, err := get("vertices[nope].in_rate_rps"); err == nil || !strings.Contains(err.Error(), `no element named "nope" in this run's summary (there are src, work, out)`) {
		t.Errorf("unknown vertex: %v", err)
	}
	if _, err := get("checkpoints.completed"); err == nil || !strings.Contains(err.Error(), "checkpoints: absent from this run's summary") {
		t.Errorf("no checkpoints: %v", err)
	}
	if _, err := get("vertices[9].name"); err == nil || !strings.Contains(err.Error(), "the list has 3 elements") {
		t.Errorf("index: %v", err)
	}
}

func TestPattern(t *testing.T) {
	path := func(segs ...Seg) []Seg { return segs }
	k := func(s string) Seg { return Seg{Key: s} }
	i := func(n int, name string) Seg { return Seg{Index: n, IsIndex: true, Name: name} }
	op0 := path(k("operators"), i(0, "work"), k("parallelism"))
	for _, tc := range []struct {
		pattern string
		path    []Seg
		match   bool
	}{
		{"operators[*].parallelism", op0, true},
		{"operators[0].parallelism", op0, true},
		{"operators[1].parallelism", op0, false},
		{"operators[work].parallelism", op0, true},
		{"operators[other].parallelism", op0, false},
		{"operators[*]", op0, true},
		{"operators", op0, true},
		{"operators[*].service_time", op0, false},
		{"sinks[*].parallelism", op0, false},
		{"checkpoint", path(k("checkpoint"), k("storage"), k("bandwidth")), true},
		{"checkpoint.*", path(k("checkpoint"), k("mode")), true},
		{"checkpoint.mode", path(k("checkpoint")), false},
	} {
		p, err := ParsePattern(tc.pattern)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if got := p.Match(tc.path); got != tc.match {
			t.Errorf("%s matches %s: %v, want %v", tc.pattern, FormatPath(tc.path), got, tc.match)
		}
	}
	for _, bad := range []string{"operators[*].paralelism", "duration.x", "sources[*].arrival.rte", "name[0]", "x-y"} {
		if _, err := ParsePattern(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	for _, ok := range []string{"sources[*].arrival.trace.speedup", "failures", "operators[*].inputs[1]", "sources[*].arrival.schedule[0].rate", "workers.count"} {
		if _, err := ParsePattern(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestTolerance(t *testing.T) {
	for _, tc := range []struct {
		tol     string
		a, want float64
		ok      bool
	}{{"5%", 104, 100, true}, {"5%", 106, 100, false}, {"0.5", 10.4, 10, true}, {"0.5", 9.4, 10, false}, {"0%", 10, 10, true}} {
		tol, err := ParseTolerance(tc.tol)
		if err != nil || tol.Within(tc.a, tc.want) != tc.ok {
			t.Errorf("%s: %v within %v: %v (%v)", tc.tol, tc.a, tc.want, !tc.ok, err)
		}
	}
	if _, err := ParseTolerance("-1%"); err == nil {
		t.Error("a negative tolerance")
	}
}

func TestFormatNumber(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 4: "4", 42.733333: "42.733", 0.56733: "0.567", 1e20: "1e+20", -2.5: "-2.5", 0.000123456: "0.000123"} {
		if got := FormatNumber(x); got != want {
			t.Errorf("FormatNumber(%v) = %s, want %s", x, got, want)
		}
	}
}

// TestStart copies the starter, README and answer sheet, and never
// overwrites.
func TestStart(t *testing.T) {
	p, err := Load(pack(good, starter), "p", "", false)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := p.Get("ex")
	dir := filepath.Join(t.TempDir(), "work")
	written, err := Start(e, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 4 {
		t.Errorf("wrote %v", written)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "scenario.yaml")); string(b) != starter {
		t.Errorf("scenario.yaml:\n%s", b)
	}
	ans, _ := os.ReadFile(filepath.Join(dir, "answers.yaml"))
	if !strings.Contains(string(ans), "# Which?\n# One of: src, work, out.\nwhich:\n") {
		t.Errorf("answers.yaml:\n%s", ans)
	}
	m, err := ReadMarker(dir)
	if err != nil || m.Exercise != "ex" || m.Pack != "" {
		t.Errorf("marker %+v %v", m, err)
	}
	os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte("my work"), 0o644)
	os.Remove(filepath.Join(dir, "README.md"))
	_, err = Start(e, dir)
	var ee *ExistsError
	if !errors.As(err, &ee) || ee.Path != filepath.Join(dir, "scenario.yaml") {
		t.Errorf("second start: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "scenario.yaml")); string(b) != "my work" {
		t.Error("start overwrote the work")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a refused start wrote a file")
	}
	if _, err := ReadMarker(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no marker: %v", err)
	}
}

// TestBuiltin loads the embedded pack: whatever it holds must be valid,
// without hidden seeds.
func TestBuiltin(t *testing.T) {
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Exercises() {
		if len(e.HiddenSeeds) > 0 || e.Pack() != p || e.BaseDir() != "" {
			t.Errorf("%s: %+v", e.ID, e)
		}
	}
}

// Every built-in exercise's README tells the student what is graded: it
// names every check and every question by its id, as the table of "How
// you are graded" and the list of questions do (kafka-retention's README
// named neither, although answers.yaml asked for two answers).
func TestBuiltinReadmesNameWhatIsGraded(t *testing.T) {
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Exercises() {
		b, err := e.README()
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !strings.Contains(text, "## How you are graded") {
			t.Errorf("%s: README.md has no section How you are graded", e.ID)
		}
		for _, c := range e.Checks {
			if !strings.Contains(text, "`"+c.ID+"`") {
				t.Errorf("%s: README.md does not name check %s", e.ID, c.ID)
			}
		}
		for _, q := range e.Questions {
			if !strings.Contains(text, "`"+q.ID+"`") {
				t.Errorf("%s: README.md does not name question %s", e.ID, q.ID)
			}
		}
	}
}
