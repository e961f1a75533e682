package exercises

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/dspalab/dspalab/internal/strictyaml"
	"github.com/dspalab/dspalab/sim/scenario"
)

// Allowed fields of each mapping of exercise.yaml, in the order of the
// format's documentation.
var (
	exerciseFields = []string{"id", "title", "topics", "goals", "starter", "editable", "limits", "seeds", "hidden_seeds", "checks", "questions"}
	limitsFields   = []string{"total_parallelism", "max_events"}
	checkFields    = []string{"id", "metric", "op", "value", "over", "points", "pass", "fail"}
	questionFields = []string{"id", "text", "choices", "truth", "tolerance", "points"}
	truthFields    = []string{"metric", "run"}
)

// reID is what an exercise, check or question id looks like.
var reID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// MaxFileBytes is the largest exercise.yaml (and answers.yaml) read: 1 MiB.
const MaxFileBytes = 1 << 20

// Parse decodes exercise.yaml data, read from the named file (the name is
// used only in messages), strictly: unknown fields (with the nearest valid
// name), duplicate fields, wrong types, missing required fields and
// invalid values are returned together as a scenario.ErrorList sorted by
// position. It checks what needs nothing else: ids, operators, the syntax
// of metric paths and editable patterns (and their field names against
// the scenario format), seeds, points and tolerances. The pack checks the
// rest (Load). Parse never panics; documents that expand to too many nodes
// through aliases are refused.
func Parse(file string, data []byte) (*Exercise, error) {
	root, errs := parseYAML(file, data)
	if errs != nil {
		return nil, errs
	}
	d := &decoder{file: file, suggested: map[string]bool{}}
	d.Walker = strictyaml.NewWalker(root, 10000, d.add)
	e, err := d.decodeAll(root)
	if err != nil {
		return nil, err
	}
	e.File = file
	e.pos, e.bad = d.Pos, d.Bad
	d.errs = append(d.errs, e.validate()...)
	if len(d.errs) > 0 {
		return nil, sorted(d.errs)
	}
	return e, nil
}

// sorted orders errors by position, keeping the order found among equals.
func sorted(l scenario.ErrorList) scenario.ErrorList {
	slices.SortStableFunc(l, func(a, b *scenario.Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return l
}

// parseYAML reads the single YAML document of data, with syntax errors at
// the offending token (strictyaml.Document).
func parseYAML(file string, data []byte) (*yaml.Node, scenario.ErrorList) {
	root, err := strictyaml.Document(data)
	var se *strictyaml.SyntaxError
	switch {
	case err == nil:
		return root, nil
	case errors.As(err, &se) && se.Msg == strictyaml.ErrSecond:
		return nil, scenario.ErrorList{{File: file, Line: se.Line, Col: se.Col,
			Msg: "the file holds one YAML document, found a second one (remove the ---)"}}
	case errors.As(err, &se):
		msg := "invalid YAML: " + se.Msg
		if reFlowBracket.Match(lineOf(data, se.Line)) || reFlowBracket.Match(lineOf(data, se.Line-1)) {
			msg += ` (inside {...}, a value holding [ or ] must be quoted: {metric: "vertices[out].in_rate_rps"})`
		}
		return nil, scenario.ErrorList{{File: file, Line: se.Line, Col: se.Col, Msg: msg}}
	}
	return nil, scenario.ErrorList{{File: file, Line: 1, Col: 1, Msg: "the file is empty"}}
}

// reFlowBracket finds a plain value with [ inside a flow mapping, which
// YAML reads as the start of a list: {metric: vertices[out].x}.
var reFlowBracket = regexp.MustCompile(`\{[^}"']*:\s*[A-Za-z0-9_.]+\[`)

// lineOf returns the 1-based line of data (nil if there is none).
func lineOf(data []byte, line int) []byte {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return nil
	}
	return lines[line-1]
}

// decoder walks the node tree of exercise.yaml, collecting every error;
// its Walker resolves aliases against a node budget and records errors, the
// paths with an error already and where each path was given.
type decoder struct {
	strictyaml.Walker
	file string
	errs scenario.ErrorList
	// suggested holds the fields suggested for unknown ones ("path.key"),
	// so that a misspelt required field is reported once.
	suggested map[string]bool
}

// add records an error of the file (the Walker's sink).
func (d *decoder) add(line, col int, path, msg string) {
	d.errs = append(d.errs, &scenario.Error{File: d.file, Line: line, Col: col, Path: path, Msg: msg})
}

func (d *decoder) decodeAll(root *yaml.Node) (*Exercise, error) {
	var e *Exercise
	if b := d.Walk(func() { e = d.exercise(root) }); b != nil {
		return nil, scenario.ErrorList{{File: d.file, Line: b.Line, Col: b.Col, Msg: b.Error()}}
	}
	return e, nil
}

// describe says what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case strictyaml.IsNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	s := n.Value
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "..."
	}
	if n.ShortTag() == "!!str" {
		return strconv.Quote(s)
	}
	return s
}

// fields decodes n as a mapping with the allowed keys; unknown and
// duplicate keys are errors. It returns the values by key (unresolved),
// and nil for a node that is not a mapping (an error) or null.
func (d *decoder) fields(n *yaml.Node, path string, allowed []string) map[string]*yaml.Node {
	n = d.Resolve(n)
	d.SetPos(path, n)
	if strictyaml.IsNull(n) {
		return map[string]*yaml.Node{}
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping, got %s", describe(n))
		return nil
	}
	out := map[string]*yaml.Node{}
	lines := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.Resolve(n.Content[i])
		if k.Kind != yaml.ScalarNode {
			d.Errorf(k, path, "expected a field name, got %s", describe(k))
			continue
		}
		name := k.Value
		p := strictyaml.Join(path, name)
		if first, ok := lines[name]; ok {
			d.Errorf(k, p, "duplicate field %q; first given at line %d", name, first)
			continue
		}
		lines[name] = k.Line
		if !slices.Contains(allowed, name) {
			if s := scenario.Nearest(name, allowed); s != "" {
				d.suggested[strictyaml.Join(path, s)] = true
				d.Errorf(k, p, "unknown field %q; did you mean %q?", name, s)
			} else {
				d.Errorf(k, p, "unknown field %q; valid fields are %s", name, strings.Join(allowed, ", "))
			}
			continue
		}
		out[name] = n.Content[i+1]
	}
	return out
}

// value returns the resolved value of key, or nil when absent.
func (d *decoder) value(m map[string]*yaml.Node, path, key string) (*yaml.Node, string) {
	p := strictyaml.Join(path, key)
	v, ok := m[key]
	if !ok {
		return nil, p
	}
	v = d.Resolve(v)
	d.SetPos(p, v)
	return v, p
}

// scalar returns the scalar node of key; nil when absent, null or wrong
// (reported as "expected what").
func (d *decoder) scalar(m map[string]*yaml.Node, path, key, what string) (*yaml.Node, string) {
	v, p := d.value(m, path, key)
	if v == nil {
		return nil, p
	}
	if v.Kind != yaml.ScalarNode || strictyaml.IsNull(v) {
		d.Errorf(v, p, "expected %s, got %s", what, describe(v))
		return nil, p
	}
	return v, p
}

func (d *decoder) str(m map[string]*yaml.Node, path, key string) string {
	v, _ := d.scalar(m, path, key, "a string")
	if v == nil {
		return ""
	}
	return v.Value
}

// text is a one-line string of printable text, as titles and feedback.
func (d *decoder) text(m map[string]*yaml.Node, path, key string, multiline bool) string {
	v, p := d.scalar(m, path, key, "a string")
	if v == nil {
		return ""
	}
	for _, r := range v.Value {
		if r == '\n' && multiline || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			d.Errorf(v, p, "contains a control character (%U)", r)
			break
		}
	}
	return strings.TrimRight(v.Value, "\n")
}

func (d *decoder) number(m map[string]*yaml.Node, path, key string) (float64, bool) {
	v, p := d.scalar(m, path, key, "a number")
	if v == nil {
		return 0, false
	}
	return d.num(v, p)
}

func (d *decoder) num(v *yaml.Node, p string) (float64, bool) {
	switch v.ShortTag() {
	case "!!int", "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
		if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
		if i, err := strconv.ParseInt(v.Value, 0, 64); err == nil {
			return float64(i), true
		}
	}
	d.Errorf(v, p, "expected a number, got %s", describe(v))
	return 0, false
}

// integer decodes a whole number in [lo, hi].
func (d *decoder) integer(v *yaml.Node, p string, lo, hi float64) (int64, bool) {
	f, ok := d.num(v, p)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) {
		d.Errorf(v, p, "expected a whole number, got %s", v.Value)
		return 0, false
	}
	if f < lo || f > hi {
		d.Errorf(v, p, "must be from %s to %s, got %s", FormatNumber(lo), FormatNumber(hi), v.Value)
		return 0, false
	}
	return int64(f), true
}

// list returns the items of the list of key (nil when absent, null or
// not a list).
func (d *decoder) list(m map[string]*yaml.Node, path, key string) ([]*yaml.Node, string) {
	v, p := d.value(m, path, key)
	if v == nil || strictyaml.IsNull(v) {
		return nil, p
	}
	if v.Kind != yaml.SequenceNode {
		d.Errorf(v, p, "expected a list, got %s", describe(v))
		return nil, p
	}
	items := make([]*yaml.Node, len(v.Content))
	for i, it := range v.Content {
		items[i] = d.Resolve(it)
		d.SetPos(strictyaml.Index(p, i), items[i])
	}
	return items, p
}

func (d *decoder) strings(m map[string]*yaml.Node, path, key string) []string {
	items, p := d.list(m, path, key)
	var out []string
	for i, it := range items {
		if it.Kind != yaml.ScalarNode || strictyaml.IsNull(it) {
			d.Errorf(it, strictyaml.Index(p, i), "expected a string, got %s", describe(it))
			continue
		}
		out = append(out, it.Value)
	}
	return out
}

func (d *decoder) seeds(m map[string]*yaml.Node, path, key string) []uint64 {
	items, p := d.list(m, path, key)
	var out []uint64
	for i, it := range items {
		ip := strictyaml.Index(p, i)
		if it.Kind != yaml.ScalarNode || strictyaml.IsNull(it) {
			d.Errorf(it, ip, "expected a seed (a whole number), got %s", describe(it))
			continue
		}
		u, err := strconv.ParseUint(strings.ReplaceAll(it.Value, "_", ""), 0, 64)
		if err != nil || it.ShortTag() != "!!int" {
			d.Errorf(it, ip, "expected a seed (a whole number from 0 to %d), got %s", uint64(math.MaxUint64), describe(it))
			continue
		}
		if slices.Contains(out, u) {
			d.Errorf(it, ip, "seed %d is given twice", u)
			continue
		}
		out = append(out, u)
	}
	return out
}

func (d *decoder) exercise(root *yaml.Node) *Exercise {
	e := &Exercise{}
	m := d.fields(root, "", exerciseFields)
	if m == nil {
		return e
	}
	required := func(key string) {
		if _, ok := m[key]; !ok && !d.suggested[key] {
			d.Errorf(root, "", "missing required field %q", key)
		}
	}
	required("id")
	required("title")
	e.ID = d.str(m, "", "id")
	if v, p := d.value(m, "", "id"); v != nil && e.ID != "" && !reID.MatchString(e.ID) {
		d.Errorf(v, p, "%q is not a valid id: use lower-case letters, digits and dashes (bottleneck, hot-key)", e.ID)
	}
	e.Title = d.text(m, "", "title", false)
	e.Topics = d.strings(m, "", "topics")
	e.Goals = d.strings(m, "", "goals")
	e.Starter = DefaultStarter
	if s := d.str(m, "", "starter"); s != "" {
		e.Starter = s
	}
	e.Editable = d.strings(m, "", "editable")
	e.Limits.MaxEvents = DefaultMaxEvents
	if lm, ok := m["limits"]; ok {
		l := d.fields(lm, "limits", limitsFields)
		if v, p := d.scalar(l, "limits", "total_parallelism", "a whole number"); v != nil {
			if n, ok := d.integer(v, p, 1, 1e6); ok {
				e.Limits.TotalParallelism = int(n)
			}
		}
		if v, p := d.scalar(l, "limits", "max_events", "a whole number"); v != nil {
			if n, ok := d.integer(v, p, 1, 1e15); ok {
				e.Limits.MaxEvents = n
			}
		}
	}
	e.Seeds = d.seeds(m, "", "seeds")
	if _, given := m["seeds"]; given && len(e.Seeds) == 0 {
		v, p := d.value(m, "", "seeds")
		d.Errorf(v, p, "give at least one seed, or leave seeds out for [1]")
	}
	if len(e.Seeds) == 0 {
		e.Seeds = []uint64{1}
	}
	e.HiddenSeeds = d.seeds(m, "", "hidden_seeds")
	checks, cp := d.list(m, "", "checks")
	for i, n := range checks {
		e.Checks = append(e.Checks, d.check(n, strictyaml.Index(cp, i)))
	}
	questions, qp := d.list(m, "", "questions")
	for i, n := range questions {
		e.Questions = append(e.Questions, d.question(n, strictyaml.Index(qp, i)))
	}
	if len(e.Checks)+len(e.Questions) == 0 && m != nil {
		d.Errorf(root, "", "the exercise has no checks and no questions: nothing to grade")
	}
	return e
}

func (d *decoder) check(n *yaml.Node, path string) Check {
	c := Check{Over: OverAll}
	m := d.fields(n, path, checkFields)
	if m == nil {
		return c
	}
	for _, key := range []string{"id", "metric", "op", "value", "points"} {
		if _, ok := m[key]; !ok && !d.suggested[strictyaml.Join(path, key)] {
			d.Errorf(d.Resolve(n), path, "missing required field %q", key)
		}
	}
	c.ID = d.str(m, path, "id")
	c.Metric = d.str(m, path, "metric")
	c.Op = d.str(m, path, "op")
	if v, p := d.scalar(m, path, "value", "a number or a string"); v != nil {
		switch v.ShortTag() {
		case "!!int", "!!float":
			if f, ok := d.num(v, p); ok {
				c.Value = Value{Num: f, IsNum: true}
			}
		case "!!bool":
			b, _ := strconv.ParseBool(strings.ToLower(v.Value))
			c.Value = Value{Str: strconv.FormatBool(b)}
		default:
			c.Value = Value{Str: v.Value}
		}
	}
	if s := d.str(m, path, "over"); s != "" {
		c.Over = s
	}
	c.Points, _ = d.number(m, path, "points")
	c.Pass = d.text(m, path, "pass", true)
	c.Fail = d.text(m, path, "fail", true)
	return c
}

func (d *decoder) question(n *yaml.Node, path string) Question {
	q := Question{Truth: Truth{Run: RunStarter}, Tolerance: Tolerance{Value: DefaultTolerance, Relative: true}}
	m := d.fields(n, path, questionFields)
	if m == nil {
		return q
	}
	for _, key := range []string{"id", "text", "truth", "points"} {
		if _, ok := m[key]; !ok && !d.suggested[strictyaml.Join(path, key)] {
			d.Errorf(d.Resolve(n), path, "missing required field %q", key)
		}
	}
	q.ID = d.str(m, path, "id")
	q.Text = d.text(m, path, "text", true)
	q.Choices = d.strings(m, path, "choices")
	if tn, ok := m["truth"]; ok {
		tp := strictyaml.Join(path, "truth")
		t := d.fields(tn, tp, truthFields)
		if _, ok := t["metric"]; !ok && t != nil {
			d.Errorf(d.Resolve(tn), tp, "missing required field %q", "metric")
		}
		q.Truth.Metric = d.str(t, tp, "metric")
		if r := d.str(t, tp, "run"); r != "" {
			q.Truth.Run = r
		}
	}
	if v, p := d.scalar(m, path, "tolerance", `a tolerance ("5%" or 0.5)`); v != nil {
		if t, err := ParseTolerance(v.Value); err != nil {
			d.Errorf(v, p, "%v", err)
		} else {
			q.Tolerance = t
		}
	}
	q.Points, _ = d.number(m, path, "points")
	return q
}

// ParseTolerance reads a tolerance: "5%" (relative, 0.05) or "0.5"
// (absolute). It must not be negative.
func ParseTolerance(s string) (Tolerance, error) {
	t := strings.TrimSpace(s)
	rel := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return Tolerance{}, fmt.Errorf("expected a tolerance such as \"5%%\" (relative) or 0.5 (absolute), got %q", s)
	}
	if f < 0 {
		return Tolerance{}, fmt.Errorf("a tolerance must not be negative, got %q", s)
	}
	if rel {
		return Tolerance{Value: f / 100, Relative: true}, nil
	}
	return Tolerance{Value: f}, nil
}

// sprintf is fmt.Sprintf (kept short for errorAt).
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
