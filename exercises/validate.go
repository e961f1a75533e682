package exercises

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/scenario"
)

// placeholder matches {word} in feedback texts.
var placeholder = regexp.MustCompile(`\{[^{}\s]*\}`)

// validate checks what exercise.yaml says on its own (see Parse).
func (e *Exercise) validate() scenario.ErrorList {
	var errs scenario.ErrorList
	add := func(path, format string, args ...any) {
		if !e.bad[path] {
			errs = append(errs, e.errorAt(path, format, args...))
		}
	}

	if e.Starter != DefaultStarter && (!fs.ValidPath(e.Starter) || strings.Contains(e.Starter, "/") || !strings.HasSuffix(e.Starter, ".yaml")) {
		add("starter", "%q must be a .yaml file in the exercise's folder (such as starter.yaml)", e.Starter)
	}
	if slices.Contains([]string{ExerciseFile, "answers.yaml", SolutionFile}, e.Starter) {
		add("starter", "%q cannot be the starter", e.Starter)
	}
	for i, s := range e.Editable {
		p, err := ParsePattern(s)
		if err != nil {
			add(strictyaml.Index("editable", i), "%v", err)
			continue
		}
		e.patterns = append(e.patterns, p)
		e.patternIndex = append(e.patternIndex, i)
	}
	for i, s := range e.HiddenSeeds {
		if slices.Contains(e.Seeds, s) {
			add(strictyaml.Index("hidden_seeds", i), "seed %d is also a grading seed (seeds): a hidden seed must be one the students never ran", s)
		}
	}

	ids := map[string]string{} // id -> path of its first use
	id := func(path, v string) {
		switch {
		case v == "":
			return
		case !reID.MatchString(v):
			add(strictyaml.Join(path, "id"), "%q is not a valid id: use lower-case letters, digits and dashes", v)
		case ids[v] != "":
			add(strictyaml.Join(path, "id"), "id %q is already used by %s: check and question ids must be unique (they are the columns of grades.csv)", v, ids[v])
		case v == "id" || v == "score" || v == "max":
			add(strictyaml.Join(path, "id"), "id %q is a column of grades.csv already; choose another", v)
		default:
			ids[v] = path
		}
	}
	for i, c := range e.Checks {
		p := strictyaml.Index("checks", i)
		id(p, c.ID)
		kind := ""
		if c.Metric != "" {
			segs, err := ParseMetric(c.Metric)
			if err == nil {
				kind, err = MetricKind(segs)
			}
			if err != nil {
				add(strictyaml.Join(p, "metric"), "%v", err)
			}
		}
		if c.Op != "" && !slices.Contains(Ops, c.Op) {
			add(strictyaml.Join(p, "op"), "unknown operator %q; use one of %s", c.Op, strings.Join(Ops, " "))
		}
		if !slices.Contains([]string{OverAll, OverMean, OverMin, OverMax}, c.Over) {
			msg := "unknown aggregation %q; use all, mean, min or max"
			if n := scenario.Nearest(c.Over, []string{OverAll, OverMean, OverMin, OverMax}); n != "" {
				msg += "; did you mean " + n + "?"
			}
			add(strictyaml.Join(p, "over"), msg, c.Over)
		}
		numericOp := c.Op != "==" && c.Op != "!="
		switch {
		case !c.Value.IsNum && numericOp && c.Op != "":
			add(strictyaml.Join(p, "value"), "%s compares numbers; %q is not one (strings compare only with == and !=)", c.Op, c.Value.Str)
		case !c.Value.IsNum && c.Over != OverAll:
			add(strictyaml.Join(p, "over"), "over: %s needs a number; a string value is compared on every seed (over: all)", c.Over)
		case kind == KindNumber && !c.Value.IsNum && c.Metric != "":
			add(strictyaml.Join(p, "value"), "%s is a number; compare it with a number, not %q", c.Metric, c.Value.Str)
		case kind != "" && kind != KindNumber && c.Value.IsNum:
			add(strictyaml.Join(p, "value"), "%s is a %s; compare it with a %s, not a number", c.Metric, kind, kind)
		case kind != "" && kind != KindNumber && c.Over != OverAll:
			add(strictyaml.Join(p, "over"), "%s is a %s: it can only be checked on every seed (over: all)", c.Metric, kind)
		}
		if c.Points <= 0 {
			if _, ok := e.pos[strictyaml.Join(p, "points")]; ok {
				add(strictyaml.Join(p, "points"), "must be positive, got %s", FormatNumber(c.Points))
			}
		}
		for _, f := range []struct{ key, text string }{{"pass", c.Pass}, {"fail", c.Fail}} {
			for _, ph := range placeholder.FindAllString(f.text, -1) {
				if ph != "{value}" && ph != "{want}" {
					add(strictyaml.Join(p, f.key), "unknown placeholder %s; use {value} (the measured value) or {want} (the threshold)", ph)
				}
			}
		}
	}
	for i, q := range e.Questions {
		p := strictyaml.Index("questions", i)
		id(p, q.ID)
		if strings.TrimSpace(q.Text) == "" {
			if _, ok := e.pos[strictyaml.Join(p, "text")]; ok {
				add(strictyaml.Join(p, "text"), "the question is empty")
			}
		}
		seen := map[string]bool{}
		for j, c := range q.Choices {
			cp := strictyaml.Index(strictyaml.Join(p, "choices"), j)
			switch k := strings.ToLower(strings.TrimSpace(c)); {
			case k == "":
				add(cp, "a choice is empty")
			case seen[k]:
				add(cp, "choice %q is given twice", c)
			default:
				seen[k] = true
			}
		}
		if len(q.Choices) == 1 {
			add(strictyaml.Join(p, "choices"), "a multiple-choice question needs at least two choices")
		}
		if q.Truth.Metric != "" {
			segs, err := ParseMetric(q.Truth.Metric)
			kind := ""
			if err == nil {
				kind, err = MetricKind(segs)
			}
			switch {
			case err != nil:
				add(strictyaml.Join(p, "truth.metric"), "%v", err)
			case len(q.Choices) == 0 && kind != KindNumber:
				add(strictyaml.Join(p, "truth.metric"), "%s is a %s: a question without choices needs a numeric truth; give choices", q.Truth.Metric, kind)
			}
		}
		if q.Truth.Run != RunStarter && q.Truth.Run != RunSubmission {
			add(strictyaml.Join(p, "truth.run"), "unknown run %q; use starter or submission", q.Truth.Run)
		}
		if _, ok := e.pos[strictyaml.Join(p, "tolerance")]; ok && len(q.Choices) > 0 {
			add(strictyaml.Join(p, "tolerance"), "a multiple-choice question has no tolerance")
		}
		if q.Points <= 0 {
			if _, ok := e.pos[strictyaml.Join(p, "points")]; ok {
				add(strictyaml.Join(p, "points"), "must be positive, got %s", FormatNumber(q.Points))
			}
		}
	}
	return errs
}

// MaxPoints returns the points of all checks and questions.
func (e *Exercise) MaxPoints() float64 {
	var n float64
	for _, c := range e.Checks {
		n += c.Points
	}
	for _, q := range e.Questions {
		n += q.Points
	}
	return n
}
