// Package grading grades submissions of exercises (package exercises): it
// reads a submission safely, checks that only the editable fields of the
// starter changed and that the limits hold, runs the scenario on every
// grading seed with the exercise's event budget, evaluates the checks
// (aggregated over the seeds) and the questions (against the simulated
// truth), and returns a Result with the points and feedback of each.
//
// A submission that cannot be graded (a file too large, invalid YAML, a
// forbidden edit, over a limit, a run past the event budget) gets 0 on the
// checks it affects, with the reason; only a cancelled context or a
// broken exercise stops grading. Grading is deterministic: the same
// submission always gets the same Result, byte for byte once encoded.
//
// Batch grading (GradeAll, WriteReports) grades many submissions in
// parallel, one simulation engine per goroutine, or per worker process
// under a memory and a wall-clock limit (Isolation: `dspalab grade`), and
// writes, all at once, grades.csv,
// feedback per submission (Markdown and JSON), a class summary and a
// score histogram. Classroom turns a Result into the JSON of GitHub
// Classroom's autograding reporter.
package grading

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/internal/runner"
	"github.com/dspalab/dspalab/sim/microbatch"
	"github.com/dspalab/dspalab/sim/scenario"
)

// DefaultMaxQueued bounds the records queued in one grading run (about
// 100 bytes each): lower than `dspalab run`'s, since many runs go on at
// once.
const DefaultMaxQueued = 2e6

// Options configure a Grader.
type Options struct {
	// Hidden adds the exercise's hidden seeds to its grading seeds:
	// `dspalab grade` sets it, `dspalab exercise check` does not.
	Hidden bool
	// MaxQueued bounds the records queued in one run (default
	// DefaultMaxQueued); past it the run stops and its checks get 0.
	MaxQueued int64
	// MaxMemory bounds the memory of one submission's simulation, in
	// bytes (default: Isolate.MaxMemory with Isolate, which `dspalab
	// grade --max-memory` sets, else runner.DefaultMaxMemory). A
	// submission whose estimated structures need more is refused before
	// it runs (runner.Limits.MaxMemory), and a run whose checkpoints and
	// network buffers pile up past what it leaves beside them is stopped
	// (sim.Options.MaxMemory): either way with a reason naming
	// --max-memory, before the worker's hard limit kills it.
	MaxMemory int64
	// ShowTruth records each question's right answer in Item.Truth, for
	// the instructor (feedback/ID.json, summary.md): `dspalab grade` sets
	// it; `dspalab exercise check` does not, so that a student's own check
	// does not give the answer away. The student's feedback/ID.md never
	// shows it.
	ShowTruth bool
	// Isolate, if non-nil, runs each submission's simulations in a worker
	// process of its own under a memory and a wall-clock limit (`dspalab
	// grade` sets it); nil runs them in process (`dspalab exercise
	// check`, the pack tests).
	Isolate *Isolation
}

func (o Options) maxMemory() int64 {
	switch {
	case o.MaxMemory > 0:
		return o.MaxMemory
	case o.Isolate != nil:
		return o.Isolate.maxMemory()
	}
	return runner.DefaultMaxMemory
}

// limits are the runner's limits of one grading run.
func (o Options) limits() runner.Limits {
	return runner.Limits{MaxQueued: o.maxQueued(), MaxMemory: o.maxMemory()}
}

func (o Options) maxQueued() int64 {
	if o.MaxQueued > 0 {
		return o.MaxQueued
	}
	return DefaultMaxQueued
}

// Grader grades the submissions of one exercise. It is safe for use by
// several goroutines at once.
type Grader struct {
	ex      *exercises.Exercise
	opts    Options
	seeds   []uint64
	starter []byte // the starter's YAML
	tree    *tree  // the starter as generic YAML, for forbidden edits

	truthOnce sync.Once
	truthDoc  any // the starter's summary on the first seed
	truthErr  error
}

// New returns a Grader of the exercise ex (loaded from its pack). It
// fails when the starter cannot be read.
func New(ex *exercises.Exercise, opts Options) (*Grader, error) {
	data, err := ex.StarterYAML()
	if err != nil {
		return nil, fmt.Errorf("grading: %w", err)
	}
	t, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("grading: the starter of %s: %w", ex.ID, err)
	}
	return &Grader{ex: ex, opts: opts, seeds: ex.GradingSeeds(opts.Hidden), starter: data, tree: t}, nil
}

// Exercise returns the exercise graded.
func (g *Grader) Exercise() *exercises.Exercise { return g.ex }

// Seeds returns the grading seeds: the exercise's seeds, then its hidden
// seeds with Options.Hidden.
func (g *Grader) Seeds() []uint64 { return slices.Clone(g.seeds) }

// hidden reports whether seed is one of the hidden seeds.
func (g *Grader) hidden(seed uint64) bool {
	return !slices.Contains(g.ex.Seeds, seed) && slices.Contains(g.ex.HiddenSeeds, seed)
}

// Result is the grade of one submission: feedback/<id>.json.
type Result struct {
	// ID is the submission's id; Exercise the exercise's.
	ID       string `json:"id"`
	Exercise string `json:"exercise"`
	// Source is the submission's path as given (Submission.Path): the
	// source column of grades.csv, for the instructor only (never in the
	// student's feedback).
	Source string `json:"-"`
	// Score and Max are in points.
	Score float64 `json:"score"`
	Max   float64 `json:"max"`
	// Seeds are the public grading seeds; HiddenRuns counts the runs on
	// hidden seeds (which are never shown).
	Seeds      []uint64 `json:"seeds"`
	HiddenRuns int      `json:"hidden_runs,omitempty"`
	// Problems are why checks or questions got 0 without being
	// evaluated: a file of the submission could not be read, the scenario
	// is invalid, changed fields it may not, is over a limit, or a run
	// failed. Always a list (empty when there are none), as are Checks
	// and Questions.
	Problems []string `json:"problems"`
	// Notes are remarks that cost nothing, such as answers to unknown
	// questions.
	Notes []string `json:"notes,omitempty"`
	// Warnings are the submission's scenario's warnings
	// (scenario.Warnings, "file:line:col: field: warning: ..."), as
	// dspalab run prints them on stderr; not in the grade's JSON.
	Warnings  []string `json:"-"`
	Checks    []Item   `json:"checks"`
	Questions []Item   `json:"questions"`
}

// Item is the outcome of one check or question.
type Item struct {
	ID string `json:"id"`
	// Text is a question's text (empty for a check).
	Text   string  `json:"text,omitempty"`
	Passed bool    `json:"passed"`
	Points float64 `json:"points"`
	Max    float64 `json:"max_points"`
	// Value is the measured value (aggregated over the seeds) of a check,
	// or the answer given to a question; Want the check's condition.
	Value string `json:"value,omitempty"`
	Want  string `json:"want,omitempty"`
	// Truth is a question's right answer, the simulated value (with
	// Options.ShowTruth only; empty when it could not be measured).
	Truth string `json:"truth,omitempty"`
	// Feedback says why, for the student.
	Feedback string `json:"feedback"`
}

// Full reports whether the submission got every point.
func (r *Result) Full() bool { return r.Score >= r.Max && r.Max > 0 }

// Grade reads the submission from disk (see Submission and Collect) and
// grades it. Everything wrong with the submission is in the Result; the
// error is ctx's, or a problem of the exercise itself (its starter does
// not run). A scenario that cannot be read costs the checks (and the
// questions about the submission's run), an answers.yaml that cannot be
// read the questions; a submission of which nothing can be read (a
// symbolic link) gets 0 on everything.
func (g *Grader) Grade(ctx context.Context, sub Submission) (*Result, error) {
	f, err := readSubmission(sub)
	if err != nil {
		r := g.newResult(sub.ID)
		r.Source = sub.Path
		r.fail(err.Error())
		for i := range r.Questions {
			r.Questions[i].Feedback = "not graded: " + err.Error()
		}
		r.total()
		return r, nil
	}
	r, err := g.grade(ctx, sub.ID, f)
	if r != nil {
		r.Source = sub.Path
	}
	return r, err
}

// GradeYAML grades a submission given as data: its scenario (parsed under
// label, e.g. "scenario.yaml") and its answers.yaml (nil: none). The pack
// tests grade solution.yaml and wrong*.yaml so.
func (g *Grader) GradeYAML(ctx context.Context, id, label string, scenarioYAML, answersYAML []byte) (*Result, error) {
	return g.grade(ctx, id, files{scenario: scenarioYAML, scenarioLabel: label, answers: answersYAML, answersLabel: AnswersFile})
}

func (g *Grader) newResult(id string) *Result {
	r := &Result{ID: id, Exercise: g.ex.ID, Max: g.ex.MaxPoints(), Seeds: slices.Clone(g.ex.Seeds),
		Problems: []string{}, Checks: []Item{}, Questions: []Item{}}
	if g.opts.Hidden {
		r.HiddenRuns = len(g.ex.HiddenSeeds)
	}
	for _, c := range g.ex.Checks {
		r.Checks = append(r.Checks, Item{ID: c.ID, Max: c.Points, Want: want(c)})
	}
	for _, q := range g.ex.Questions {
		r.Questions = append(r.Questions, Item{ID: q.ID, Text: q.Text, Max: q.Points})
	}
	return r
}

// fail records a problem that stops the checks: every check not yet
// evaluated gets 0 with the reason.
func (r *Result) fail(reason string) {
	r.Problems = append(r.Problems, reason)
	for i := range r.Checks {
		if r.Checks[i].Feedback == "" {
			r.Checks[i].Feedback = "not graded: " + reason
		}
	}
}

// total sums the points.
func (r *Result) total() {
	r.Score = 0
	for _, it := range r.Checks {
		r.Score += it.Points
	}
	for _, it := range r.Questions {
		r.Score += it.Points
	}
	r.Score = math.Round(r.Score*1e6) / 1e6
}

func (g *Grader) grade(ctx context.Context, id string, f files) (res *Result, err error) {
	r := g.newResult(id)
	defer func() {
		// a bug must not stop a batch: the submission gets 0, with the reason
		if p := recover(); p != nil {
			r := g.newResult(id)
			r.fail(fmt.Sprintf("internal error while grading (please report it with the submission): %v", p))
			r.total()
			res, err = r, nil
		}
	}()
	subDoc, err := g.gradeChecks(ctx, r, f)
	if err != nil {
		return nil, err
	}
	if err := g.answer(ctx, r, f, subDoc); err != nil {
		return nil, err
	}
	r.total()
	return r, nil
}

// gradeChecks checks the scenario and runs it; it returns the
// submission's summary on the first seed (nil when there is none).
func (g *Grader) gradeChecks(ctx context.Context, r *Result, f files) (any, error) {
	if f.scenarioErr != nil {
		r.fail(f.scenarioErr.Error())
		return nil, nil
	}
	if len(bytesTrim(f.scenario)) == 0 {
		r.fail(f.scenarioLabel + " is empty")
		return nil, nil
	}
	if _, err := scenario.Parse(f.scenarioLabel, f.scenario); err != nil {
		r.fail("invalid scenario:\n" + err.Error())
		return nil, nil
	}
	sub, err := parseTree(f.scenario)
	if err != nil {
		r.fail(err.Error())
		return nil, nil
	}
	first, _ := scenario.Parse(f.scenarioLabel, f.scenario)
	for _, w := range first.Warnings() {
		r.Warnings = append(r.Warnings, w.Error())
	}
	had := len(r.Problems)
	var forbidden []string
	for _, c := range changes(g.tree, sub) {
		if g.ex.EditableField(c.path) {
			continue
		}
		forbidden = append(forbidden, describeChange(c, first, f.scenarioLabel))
	}
	if len(forbidden) > 0 {
		msg := "changed a field you may not change: " + forbidden[0]
		if len(forbidden) > 1 {
			if len(forbidden) > 10 {
				forbidden = append(forbidden[:10], fmt.Sprintf("and %d more", len(forbidden)-10))
			}
			msg = "changed fields you may not change: " + strings.Join(forbidden, ", ")
		}
		r.fail(msg + "; start again from the starter (dspalab exercise start) and change only " + editableWords(g.ex.Editable))
	}
	if lim := g.ex.Limits.TotalParallelism; lim > 0 {
		total := 0
		for _, p := range first.Parallelisms() {
			total += p
		}
		if total > lim {
			r.fail(fmt.Sprintf("the total parallelism is %d, over the budget of %d (limits.total_parallelism: the sum over all sources, operators and sinks)", total, lim))
		}
	}
	if len(r.Problems) > had {
		return nil, nil // a forbidden edit and the budget, said together
	}
	if err := runner.CheckLimits(f.scenarioLabel, first, g.opts.limits()); err != nil {
		r.fail("refused before running: " + strings.ReplaceAll(err.Error(), "\n", "; "))
		return nil, nil
	}
	if err := g.ex.CheckTraces(first); err != nil {
		r.fail(err.Error())
		return nil, nil
	}
	if err := g.checkTraceFiles(first); err != nil {
		r.fail(err.Error())
		return nil, nil
	}
	docs, err := g.runs(ctx, f.scenarioLabel, f.scenario)
	if err != nil {
		var re *RunError
		if !errors.As(err, &re) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.fail(g.scrub(err.Error()))
			return nil, nil
		}
		re.Hidden = g.hidden(re.Seed)
		r.fail(g.scrub(re.Error()))
		return nil, nil
	}
	for i, c := range g.ex.Checks {
		r.Checks[i] = g.evaluate(c, docs, r.Checks[i])
	}
	return docs[0], nil
}

// editableWords lists the editable patterns for a message.
func editableWords(ps []string) string {
	if len(ps) == 0 {
		return "nothing: this exercise is answered in answers.yaml"
	}
	return strings.Join(ps, ", ")
}

// want formats a check's condition: ">= 95" (with the aggregation when
// it is not all: "mean >= 95").
func want(c exercises.Check) string {
	w := c.Op + " " + c.Value.String()
	if c.Over != exercises.OverAll && c.Over != "" {
		w = c.Over + " " + w
	}
	return w
}

// nullReason says why a metric at segs is absent or null from summary
// doc, when the summary tells: ": " and the diagnosis of a run of Spark's
// engines in which no batch completed (microbatch.DiagnosisNone), or for
// a checkpoint metric of a run in which no checkpoint completed, how many
// were triggered and failed; "" otherwise.
func nullReason(doc any, segs []exercises.Seg) string {
	if r := noBatchReason(doc); r != "" {
		return r
	}
	m, _ := doc.(map[string]any)
	ck, _ := m["checkpoints"].(map[string]any)
	if len(segs) == 0 || segs[0].Key != "checkpoints" || ck == nil || ck["completed"] != 0.0 {
		return ""
	}
	triggered, _ := ck["triggered"].(float64)
	failed, _ := ck["failed"].(float64)
	return fmt.Sprintf(": no checkpoint completed (%s triggered, %d failed)", plural.Count(int64(triggered), "checkpoint"), int64(failed))
}

// noBatchReason is ": " and the diagnosis of a run of Spark's engines in
// which no batch completed (microbatch.DiagnosisNone), whose metrics are
// null for that reason; "" for any other summary.
func noBatchReason(doc any) string {
	m, _ := doc.(map[string]any)
	d, _ := m["diagnosis"].(map[string]any)
	engine, _ := m["engine"].(string)
	msg, _ := d["message"].(string)
	if !scenario.MicroBatchEngine(engine) || d["kind"] != microbatch.DiagnosisNone || msg == "" {
		return ""
	}
	return ": " + msg
}

// evaluate checks c on the summaries of the seeds.
func (g *Grader) evaluate(c exercises.Check, docs []any, it Item) Item {
	segs := c.MetricPath()
	vals := make([]any, len(docs))
	for i, d := range docs {
		v, err := exercises.Lookup(d, segs)
		if err != nil {
			it.Feedback = g.onSeed(i, err.Error()+nullReason(d, segs))
			return it
		}
		vals[i] = v
	}
	var value any
	pass := true
	failedOn := -1
	switch c.Over {
	case exercises.OverMean, exercises.OverMin, exercises.OverMax:
		nums := make([]float64, len(vals))
		for i, v := range vals {
			f, ok := v.(float64)
			if !ok {
				it.Feedback = g.onSeed(i, fmt.Sprintf("%s is %v, not a number", c.Metric, v))
				return it
			}
			nums[i] = f
		}
		value = aggregate(c.Over, nums)
		pass = compare(value, c.Op, c.Value)
	default:
		for i, v := range vals {
			if !compare(v, c.Op, c.Value) {
				pass, failedOn, value = false, i, v
				break
			}
		}
		if pass {
			value = vals[0]
			if nums, ok := numbers(vals); ok {
				value = aggregate(exercises.OverMean, nums)
			}
		}
	}
	it.Passed = pass
	it.Value = formatValue(value)
	text := c.Fail
	if pass {
		it.Points = c.Points
		text = c.Pass
	}
	if text == "" {
		text = fmt.Sprintf("%s is %s; want %s", c.Metric, it.Value, it.Want)
		if pass {
			text = fmt.Sprintf("%s is %s (%s)", c.Metric, it.Value, it.Want)
		}
	} else {
		text = strings.NewReplacer("{value}", it.Value, "{want}", c.Value.String()).Replace(text)
	}
	if failedOn >= 0 && len(docs) > 1 {
		text = g.onSeed(failedOn, text)
	}
	it.Feedback = text
	return it
}

// onSeed adds the seed of run i to a message: "(seed 2)", or "(on a
// hidden seed)".
func (g *Grader) onSeed(i int, msg string) string {
	if i >= len(g.seeds) {
		return msg
	}
	where := fmt.Sprintf(" (seed %d)", g.seeds[i])
	if g.hidden(g.seeds[i]) {
		where = " (on a hidden seed)"
	}
	if body, ok := strings.CutSuffix(msg, "."); ok {
		return body + where + "."
	}
	return msg + where
}

func numbers(vals []any) ([]float64, bool) {
	nums := make([]float64, len(vals))
	for i, v := range vals {
		f, ok := v.(float64)
		if !ok {
			return nil, false
		}
		nums[i] = f
	}
	return nums, true
}

// aggregate returns the mean, min or max of nums.
func aggregate(over string, nums []float64) float64 {
	switch over {
	case exercises.OverMin:
		return slices.Min(nums)
	case exercises.OverMax:
		return slices.Max(nums)
	}
	var s float64
	for _, x := range nums {
		s += x
	}
	return s / float64(len(nums))
}

// compare applies op to a measured value and a check's threshold.
func compare(v any, op string, want exercises.Value) bool {
	if f, ok := v.(float64); ok && want.IsNum {
		switch op {
		case ">=":
			return f >= want.Num
		case "<=":
			return f <= want.Num
		case ">":
			return f > want.Num
		case "<":
			return f < want.Num
		case "==":
			return f == want.Num
		case "!=":
			return f != want.Num
		}
		return false
	}
	s := formatValue(v)
	switch op {
	case "==":
		return s == want.String()
	case "!=":
		return s != want.String()
	}
	return false
}

// formatValue formats a metric value for feedback.
func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return exercises.FormatNumber(x)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// starterTruth returns the starter's summary on the first grading seed,
// simulated once.
func (g *Grader) starterTruth(ctx context.Context) (any, error) {
	g.truthOnce.Do(func() {
		label := g.ex.Label(g.ex.Starter)
		sc, err := scenario.Parse(label, g.starter)
		if err != nil {
			g.truthErr = err
			return
		}
		sc.Seed = g.seeds[0]
		g.truthDoc, g.truthErr = g.simulate(ctx, sc)
		if g.truthErr != nil && ctx.Err() == nil {
			g.truthErr = fmt.Errorf("grading: the starter of exercise %s: %w", g.ex.ID, g.truthErr)
		}
	})
	if g.truthErr != nil && ctx.Err() != nil {
		// a cancelled first attempt is not the exercise's fault; the next
		// Grader starts afresh
		return nil, ctx.Err()
	}
	return g.truthDoc, g.truthErr
}

// Prepare simulates what all submissions share (the starter, for the
// questions about it) and returns the exercise's problem if it fails.
// Grade calls it as needed; GradeAll calls it once before starting.
func (g *Grader) Prepare(ctx context.Context) error {
	if !g.needsStarter() {
		return nil
	}
	_, err := g.starterTruth(ctx)
	return err
}

func (g *Grader) needsStarter() bool {
	for _, q := range g.ex.Questions {
		if q.Truth.Run != exercises.RunSubmission {
			return true
		}
	}
	return false
}

func bytesTrim(b []byte) string { return strings.TrimSpace(string(b)) }

// describeChange names forbidden change c for the feedback: the field's
// path (a vertex by its name), where it is in the submission, and what
// the starter has and the submission has instead
// ("operators[work].service_time.mean (scenario.yaml:16:53; 25ms in the
// starter, 10ms here)").
func describeChange(c change, sub *scenario.Scenario, label string) string {
	s := namedPath(c.path)
	var what []string
	if !c.removed {
		if line, col := sub.Pos(exercises.FormatPath(c.at)); line > 0 {
			what = append(what, fmt.Sprintf("%s:%d:%d", label, line, col))
		}
	}
	switch {
	case c.removed && c.was != "":
		what = append(what, fmt.Sprintf("removed; the starter has %s", quoteValue(c.was)))
	case c.removed:
		what = append(what, "removed")
	case c.was != "" && c.now != "":
		what = append(what, fmt.Sprintf("%s in the starter, %s here", quoteValue(c.was), quoteValue(c.now)))
	case c.now != "":
		what = append(what, fmt.Sprintf("added: %s, not in the starter", quoteValue(c.now)))
	}
	if len(what) == 0 {
		return s
	}
	return s + " (" + strings.Join(what, "; ") + ")"
}

// namedPath formats a field path with a named element by its name
// ("operators[enrich].parallelism"): the same words for the starter and
// for the submission, which may have the element at another index.
func namedPath(p []exercises.Seg) string {
	named := make([]exercises.Seg, len(p))
	for i, s := range p {
		if s.IsIndex && s.Name != "" {
			s = exercises.Seg{Name: s.Name, IsName: true}
		}
		named[i] = s
	}
	return exercises.FormatPath(named)
}

// quoteValue shows a scalar as the YAML has it, quoted when it is empty
// or has spaces (so that the value's end shows), cut to 40 characters.
func quoteValue(v string) string {
	if r := []rune(v); len(r) > 40 {
		v = string(r[:37]) + "..."
	}
	if v == "" || strings.ContainsAny(v, " \t\n") {
		return strconv.Quote(v)
	}
	return v
}
