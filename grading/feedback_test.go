package grading

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/dspalab/dspalab/exercises"
)

// broken is the solution of tiny with three errors: a misspelt field, a
// duration without a unit and a negative parallelism.
func broken(t *testing.T, e *exercises.Exercise) string {
	s := read(t, e, "solution.yaml")
	s = replace(t, s, "duration: 20s", "duration: 20")
	s = replace(t, s, "    parallelism: 3\n", "    parallelism: -1\n")
	return replace(t, s, "partitioning: rebalance\n    parallelism", "partitioning: rebalance\n    paralelism: 2\n    parallelism")
}

// gradeDir grades the submission directory dir/id holding the given
// files (name to content).
func gradeDir(t *testing.T, g *Grader, dir, id string, fs map[string]string) *Result {
	t.Helper()
	for name, data := range fs {
		write(t, filepath.Join(dir, id, name), data)
	}
	r, err := g.Grade(context.Background(), Submission{ID: id, Path: filepath.Join(dir, id)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mdBlock is a block of a Markdown document: its kind, its parent's kind
// and, for a code block, its text.
type mdBlock struct {
	kind, parent, code string
}

// mdBlocks parses md as GitHub Flavored Markdown (CommonMark with tables)
// and returns its blocks in document order.
func mdBlocks(t *testing.T, md []byte) []mdBlock {
	t.Helper()
	p := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
	doc := p.Parse(text.NewReader(md))
	var out []mdBlock
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() != ast.TypeBlock || n.Kind() == ast.KindDocument {
			return ast.WalkContinue, nil
		}
		b := mdBlock{kind: n.Kind().String(), parent: n.Parent().Kind().String()}
		if n.Kind() == ast.KindFencedCodeBlock || n.Kind() == ast.KindCodeBlock {
			var sb strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				sb.Write(seg.Value(md))
			}
			b.code = sb.String()
		}
		out = append(out, b)
		return ast.WalkContinue, nil
	})
	return out
}

// topLevel returns the kinds of the blocks directly in the document.
func topLevel(bs []mdBlock) []string {
	var k []string
	for _, b := range bs {
		if b.parent == ast.KindDocument.String() {
			k = append(k, b.kind)
		}
	}
	return k
}

// codeBlocks returns the code blocks.
func codeBlocks(bs []mdBlock) []mdBlock {
	var c []mdBlock
	for _, b := range bs {
		if b.code != "" || strings.Contains(b.kind, "CodeBlock") {
			c = append(c, b)
		}
	}
	return c
}

// TestMarkdownOfInvalidScenario: the feedback of an invalid scenario
// lists the errors in a code block inside the problem's list item, and
// the Checks and Questions tables follow as tables (golden file
// testdata/feedback/broken.md).
func TestMarkdownOfInvalidScenario(t *testing.T) {
	e := tiny(t)
	g, err := New(e, Options{Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	r := gradeDir(t, g, t.TempDir(), "broken", map[string]string{
		"scenario.yaml": broken(t, e),
		"answers.yaml":  "which: work\nrate: 42\n",
	})
	if len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], "invalid scenario:\nscenario.yaml:") {
		t.Fatalf("problems %q", r.Problems)
	}
	md := r.Markdown(e)
	golden(t, "testdata/feedback/broken.md", md)

	bs := mdBlocks(t, md)
	want := []string{"Heading", "Paragraph", "Heading", "List", "Heading", "Table", "Heading", "Table", "Paragraph"}
	if got := topLevel(bs); !slices.Equal(got, want) {
		t.Errorf("blocks of the feedback %q, want %q:\n%s", got, want, md)
	}
	code := codeBlocks(bs)
	_, errs, _ := strings.Cut(r.Problems[0], "\n")
	if len(code) != 1 || code[0].kind != "FencedCodeBlock" || code[0].parent != "ListItem" || code[0].code != errs+"\n" {
		t.Errorf("code blocks %q, want the errors in one fenced block of the list item:\n%s", code, md)
	}
}

// TestMarkdownFence: a problem with a line of backticks (a submission
// file named "```.yaml") cannot close the code block early.
func TestMarkdownFence(t *testing.T) {
	e := tiny(t)
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := g.newResult("x")
	errs := "```.yaml:1:1: invalid YAML: bad\n````\n```.yaml:2:1: duration: missing"
	r.fail("invalid scenario:\n" + errs)
	r.total()
	md := r.Markdown(e)
	bs := mdBlocks(t, md)
	want := []string{"Heading", "Paragraph", "Heading", "List", "Heading", "Table", "Heading", "Table", "Paragraph"}
	if got := topLevel(bs); !slices.Equal(got, want) {
		t.Errorf("blocks of the feedback %q, want %q:\n%s", got, want, md)
	}
	if code := codeBlocks(bs); len(code) != 1 || code[0].code != errs+"\n" {
		t.Errorf("code blocks %q:\n%s", code, md)
	}
}

// TestSummaryReasons: summary.md gives each submission's reason: the
// first error with its location, and how many more.
func TestSummaryReasons(t *testing.T) {
	e := tiny(t)
	g, err := New(e, Options{Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rs := []*Result{
		gradeDir(t, g, dir, "broken", map[string]string{"scenario.yaml": broken(t, e)}),
		gradeDir(t, g, dir, "bad-yaml", map[string]string{"scenario.yaml": "name: [src\n"}),
	}
	sum := string(g.Summary(rs))
	for _, want := range []string{
		"\n- **broken** (0): invalid scenario: scenario.yaml:4:11: duration: expected a duration such as 250ms or 2s, got \"20\" (a number needs a unit) (2 more)\n",
		"\n- **bad-yaml** (0): invalid scenario: scenario.yaml:2:1: invalid YAML: did not find expected ',' or ']' (in the flow sequence that starts at 1:7)",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(sum, "invalid scenario:\n") || strings.Contains(sum, "(0 more)") {
		t.Errorf("summary.md:\n%s", sum)
	}
}

// TestBriefProblem summarizes problems on one line.
func TestBriefProblem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"the total parallelism is 6", "the total parallelism is 6"},
		{"invalid scenario:\nf:1:1: a", "invalid scenario: f:1:1: a"},
		{"invalid scenario:\nf:1:1: a\nf:2:1: b\n", "invalid scenario: f:1:1: a (1 more)"},
		{"f:1:1: a\nf:2:1: b\nf:3:1: c", "f:1:1: a (2 more)"},
		{"", ""},
	} {
		if got := briefProblem(tc.in); got != tc.want {
			t.Errorf("briefProblem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// withSubmissionQuestion returns tiny with a third question, about the
// submission's own run.
func withSubmissionQuestion(t *testing.T) *exercises.Exercise {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pack", "tiny")
	e := tiny(t)
	for _, f := range []string{"README.md", "starter.yaml", "solution.yaml", "wrong-two.yaml"} {
		write(t, filepath.Join(dir, f), read(t, e, f))
	}
	write(t, filepath.Join(dir, "exercise.yaml"), read(t, e, "exercise.yaml")+`  - id: mine
    text: How many records per second reach the sink in your scenario?
    truth:
      metric: vertices[out].in_rate_rps
      run: submission
    tolerance: 5%
    points: 1
`)
	p, err := exercises.OpenDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	x, err := p.Get("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// points of the items, by id.
func itemPoints(items []Item) map[string]float64 {
	m := map[string]float64{}
	for _, it := range items {
		m[it.ID] = it.Points
	}
	return m
}

// bigFile writes a file of 50 MiB (sparse) at path.
func bigFile(t *testing.T, path string) {
	t.Helper()
	write(t, path, "")
	if err := os.Truncate(path, 50<<20); err != nil {
		t.Fatal(err)
	}
}

// TestOversizedFile: a file over 1 MiB costs only what depends on it.
func TestOversizedFile(t *testing.T) {
	e := withSubmissionQuestion(t)
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	solution := read(t, e, "solution.yaml")
	right, err := g.AnswersFor(ctx, "scenario.yaml", []byte(solution))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	// a correct scenario next to 50 MiB of answers: the checks count
	write(t, filepath.Join(dir, "big-answers", "scenario.yaml"), solution)
	bigFile(t, filepath.Join(dir, "big-answers", "answers.yaml"))
	r, err := g.Grade(ctx, Submission{ID: "big-answers", Path: filepath.Join(dir, "big-answers")})
	if err != nil {
		t.Fatal(err)
	}
	reason := "answers.yaml is 50MiB; the limit is 1MiB (answers.yaml holds one short answer per question)"
	if r.Score != 6 || !slices.Equal(r.Problems, []string{reason}) {
		t.Errorf("big answers: %s/%s, problems %q", points(r.Score), points(r.Max), r.Problems)
	}
	for _, it := range r.Checks {
		if !it.Passed {
			t.Errorf("big answers: check %s: %s", it.ID, it.Feedback)
		}
	}
	for _, it := range r.Questions {
		if it.Feedback != "not graded: "+reason {
			t.Errorf("big answers: question %s: %q", it.ID, it.Feedback)
		}
	}
	if md := string(r.Markdown(e)); strings.Contains(md, "a scenario is a short YAML file") || !strings.Contains(md, "answers.yaml is 50MiB") {
		t.Errorf("big answers: feedback:\n%s", md)
	}

	// 50 MiB of scenario next to right answers: the questions about the
	// starter count
	bigFile(t, filepath.Join(dir, "big-scenario", "scenario.yaml"))
	write(t, filepath.Join(dir, "big-scenario", "answers.yaml"), string(right))
	r, err = g.Grade(ctx, Submission{ID: "big-scenario", Path: filepath.Join(dir, "big-scenario")})
	if err != nil {
		t.Fatal(err)
	}
	reason = "scenario.yaml is 50MiB; the limit is 1MiB (a scenario is a short YAML file)"
	if r.Score != 4 || !slices.Equal(r.Problems, []string{reason}) {
		t.Errorf("big scenario: %s/%s, problems %q", points(r.Score), points(r.Max), r.Problems)
	}
	if got, want := itemPoints(r.Questions), map[string]float64{"which": 2, "rate": 2, "mine": 0}; !mapsEqual(got, want) {
		t.Errorf("big scenario: questions %v, want %v", got, want)
	}
	if fb := r.Questions[2].Feedback; fb != "not graded: the question is about your scenario's run, which did not take place" {
		t.Errorf("big scenario: mine: %q", fb)
	}
	for _, it := range r.Checks {
		if it.Feedback != "not graded: "+reason {
			t.Errorf("big scenario: check %s: %q", it.ID, it.Feedback)
		}
	}

	// no scenario.yaml at all, only answers: the same
	r = gradeDir(t, g, dir, "answers-only", map[string]string{"answers.yaml": string(right)})
	if r.Score != 4 || len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], "no scenario.yaml in the submission") {
		t.Errorf("answers only: %s/%s, problems %q", points(r.Score), points(r.Max), r.Problems)
	}

	// both too large: both reasons, 0
	bigFile(t, filepath.Join(dir, "both", "scenario.yaml"))
	bigFile(t, filepath.Join(dir, "both", "answers.yaml"))
	r, err = g.Grade(ctx, Submission{ID: "both", Path: filepath.Join(dir, "both")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Score != 0 || len(r.Problems) != 2 {
		t.Errorf("both: %s/%s, problems %q", points(r.Score), points(r.Max), r.Problems)
	}
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestClassroomMessage: a test not graded because of a problem says the
// problem once.
func TestClassroomMessage(t *testing.T) {
	e := withSubmissionQuestion(t)
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.GradeYAML(context.Background(), "b", "scenario.yaml", []byte("name: [src\n"), []byte("which: work\nmine: 100\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 {
		t.Fatalf("problems %q", r.Problems)
	}
	p := r.Problems[0]
	msgs := map[string]string{}
	for _, tt := range Classroom(r).Tests {
		msgs[tt.Name] = tt.Message
		if n := strings.Count(tt.Message, p); tt.Name != "which" && tt.Name != "rate" && n != 1 {
			t.Errorf("%s: the problem %d times in %q", tt.Name, n, tt.Message)
		}
	}
	if want := "not graded: " + p; msgs["keeps-up"] != want {
		t.Errorf("keeps-up: %q, want %q", msgs["keeps-up"], want)
	}
	if want := p + "\nnot graded: the question is about your scenario's run, which did not take place"; msgs["mine"] != want {
		t.Errorf("mine: %q, want %q", msgs["mine"], want)
	}
	if msgs["which"] != "correct" || msgs["rate"] != "not answered" {
		t.Errorf("which %q, rate %q", msgs["which"], msgs["rate"])
	}
}

// TestJSONLists: feedback/ID.json always has problems, checks and
// questions, as lists.
func TestJSONLists(t *testing.T) {
	e := tiny(t)
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.GradeYAML(context.Background(), "s", "scenario.yaml", []byte(read(t, e, "solution.yaml")), []byte("which: work\nrate: 42\n"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(r.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	for k, n := range map[string]int{"problems": 0, "checks": 2, "questions": 2} {
		l, ok := m[k].([]any)
		if !ok || len(l) != n {
			t.Errorf("%s: %v, want a list of %d:\n%s", k, m[k], n, r.JSON())
		}
	}
}
