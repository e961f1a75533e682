package grading

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/exercises"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// tiny loads the test exercise testdata/pack/tiny: a 100 rec/s source
// into an operator that serves 40 rec/s; parallelism 3 keeps up.
func tiny(t testing.TB) *exercises.Exercise {
	t.Helper()
	p, err := exercises.OpenDir("testdata/pack")
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Get("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func read(t testing.TB, e *exercises.Exercise, name string) string {
	t.Helper()
	b, err := e.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in the scenario", old)
	}
	return strings.Replace(s, old, new, 1)
}

// class builds a folder of submissions: good, wrong, broken and hostile.
// It returns the folder and the feedback each must contain.
func class(t *testing.T, e *exercises.Exercise) (string, map[string][]string) {
	dir := filepath.Join(t.TempDir(), "class")
	starter, solution, wrong := read(t, e, "starter.yaml"), read(t, e, "solution.yaml"), read(t, e, "wrong-two.yaml")
	right := "which: work\nrate: 42\n"
	want := map[string][]string{}

	write(t, filepath.Join(dir, "good", "scenario.yaml"), solution)
	write(t, filepath.Join(dir, "good", "answers.yaml"), right)

	// parallelism 2: the sink gets 80 rec/s; one wrong answer, one right
	write(t, filepath.Join(dir, "wrong", "scenario.yaml"), wrong)
	write(t, filepath.Join(dir, "wrong", "answers.yaml"), "which: src\nrate: 43.5\nwhihc: work\n")
	want["wrong"] = []string{"The sink receives 80.6 records/s; it should get 95 (seed 1).", `there is no question "whihc"; did you mean "which"?`}

	// a faster operator: a forbidden edit, whatever it scores
	write(t, filepath.Join(dir, "forbidden", "scenario.yaml"), replace(t, solution, "mean: 25ms", "mean: 10ms"))
	write(t, filepath.Join(dir, "forbidden", "answers.yaml"), right)
	want["forbidden"] = []string{"changed a field you may not change: operators[work].service_time.mean (scenario.yaml:16:53; 25ms in the starter, 10ms here)"}

	// 1 + 4 + 1 subtasks: over the budget of 5
	write(t, filepath.Join(dir, "over-budget", "scenario.yaml"), replace(t, starter, "parallelism: 1", "parallelism: 4"))
	want["over-budget"] = []string{"the total parallelism is 6, over the budget of 5"}

	// invalid YAML: located
	write(t, filepath.Join(dir, "bad-yaml", "scenario.yaml"), replace(t, solution, "  - name: work\n", "  - name: work\n   input: [src\n"))
	want["bad-yaml"] = []string{"invalid scenario:\nscenario.yaml:13:4: invalid YAML: did not find expected '-' indicator (in the block collection that starts at 12:3)"}

	// an invalid scenario: located too
	write(t, filepath.Join(dir, "bad-field", "scenario.yaml"), replace(t, solution, "parallelism: 3", "paralelism: 3"))
	want["bad-field"] = []string{`scenario.yaml:15:5: operators[0].paralelism: unknown field "paralelism"; did you mean "parallelism"?`}

	// a billion laughs through merge keys: refused by scenario.Parse's
	// node budget
	bomb := "x-a: &a {name: src}\n"
	for i, prev := 1, "a"; i < 9; i++ {
		name := string(rune('a' + i))
		bomb += "x-" + name + ": &" + name + " {<<: [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]}\n"
		prev = name
	}
	write(t, filepath.Join(dir, "alias-bomb", "scenario.yaml"), bomb+replace(t, solution, "  - name: src\n", "  - <<: *i\n    name: src\n"))
	want["alias-bomb"] = []string{"scenario.yaml:", "the document expands to too many nodes"}
	// the same never used: the x- fields are ignored, never expanded
	write(t, filepath.Join(dir, "unused-bomb", "scenario.yaml"), bomb+solution)
	write(t, filepath.Join(dir, "unused-bomb", "answers.yaml"), right)

	// absurd rates: refused by validation, by the limits, or stopped by
	// the event budget
	write(t, filepath.Join(dir, "absurd-rate.yaml"), replace(t, solution, "rate: 100/s}", "rate: 1e12/s}"))
	want["absurd-rate"] = []string{"absurd-rate.yaml:9:40: sources[0].arrival.rate: must be at most 1e9/s per subtask"}
	write(t, filepath.Join(dir, "huge-rate.yaml"), replace(t, solution, "rate: 100/s}", "rate: 5e8/s}"))
	want["huge-rate"] = []string{"refused before running", "exceed the limit of 1e8"}
	write(t, filepath.Join(dir, "runaway", "scenario.yaml"), replace(t, solution, "rate: 100/s}", "rate: 1e6/s}\n    replayable: false\n    on_backpressure: drop"))
	want["runaway"] = []string{"the run on seed 1 was stopped at", "it needs more than 2e5 kernel events, the exercise's budget per run (limits.max_events)"}

	// a name that tries to leave the feedback directory
	write(t, filepath.Join(dir, `..\..\etc\passwd`, "scenario.yaml"), solution)
	want["etc_passwd"] = []string{"not answered: there is no answers.yaml"}

	// 50 MB: refused from its size, not read
	big := filepath.Join(dir, "huge", "scenario.yaml")
	write(t, big, "")
	if err := os.Truncate(big, 50<<20); err != nil {
		t.Fatal(err)
	}
	want["huge"] = []string{"scenario.yaml is 50MiB; the limit is 1MiB"}

	// a link out of the class folder, and a link inside a submission
	outside := filepath.Join(t.TempDir(), "outside")
	write(t, filepath.Join(outside, "scenario.yaml"), solution)
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	want["link"] = []string{"link is a symbolic link"}
	if err := os.MkdirAll(filepath.Join(dir, "escape"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "scenario.yaml"), filepath.Join(dir, "escape", "scenario.yaml")); err != nil {
		t.Fatal(err)
	}
	want["escape"] = []string{"scenario.yaml is a symbolic link that leads outside the submission; it is not read"}

	// nothing at all
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	want["empty"] = []string{"no scenario.yaml in the submission"}
	// a hidden entry is left out
	write(t, filepath.Join(dir, ".git", "config"), "")
	return dir, want
}

// TestBatch grades a class of good, wrong, broken and hostile
// submissions in one batch: grades.csv must be the golden one, each
// feedback must say why, and nothing is written outside the output
// directory.
func TestBatch(t *testing.T) {
	e := tiny(t)
	dir, want := class(t, e)
	subs, err := Collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(e, Options{Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	results, err := g.GradeAll(context.Background(), subs, BatchOptions{Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	written, err := g.WriteReports(out, results)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range written {
		if rel, err := filepath.Rel(out, w); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("wrote %s, outside %s", w, out)
		}
	}
	got, err := os.ReadFile(filepath.Join(out, GradesFile))
	if err != nil {
		t.Fatal(err)
	}
	// the source column names each row's folder as given: here, under a
	// temporary directory
	golden(t, "testdata/batch/grades.csv", bytes.ReplaceAll(got, []byte(filepath.Dir(dir)+string(filepath.Separator)), nil))

	byID := map[string]*Result{}
	for _, r := range results {
		byID[r.ID] = r
	}
	for id, texts := range want {
		r, ok := byID[id]
		if !ok {
			t.Errorf("no result for %s; have %v", id, sortedIDs(results))
			continue
		}
		md, err := os.ReadFile(filepath.Join(out, FeedbackDir, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			if !strings.Contains(string(md), jsonText(s)) {
				t.Errorf("feedback of %s lacks %q:\n%s", id, s, md)
			}
		}
		if len(r.Problems) > 0 && r.Score > 4 {
			t.Errorf("%s has problems and scores %s", id, points(r.Score))
		}
	}
	if r := byID["good"]; !r.Full() {
		t.Errorf("good: %s/%s, want full marks:\n%s", points(r.Score), points(r.Max), r.JSON())
	}
	for _, f := range []string{SummaryFile, HistogramFile, filepath.Join(FeedbackDir, "good.md")} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	png, _ := os.ReadFile(filepath.Join(out, HistogramFile))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("histogram.png is not a PNG")
	}
	md, _ := os.ReadFile(filepath.Join(out, FeedbackDir, "forbidden.md"))
	if !strings.Contains(string(md), "operators[work].service_time.mean") {
		t.Errorf("forbidden.md does not name the field:\n%s", md)
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b := bytes.TrimSpace(buf.Bytes())
	return string(b[1 : len(b)-1])
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		write(t, path, string(got))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestDeterministic grades the same class twice, with different numbers
// of workers: every file written must be identical, byte for byte.
func TestDeterministic(t *testing.T) {
	e := tiny(t)
	dir, _ := class(t, e)
	subs, err := Collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var outs []map[string][]byte
	for _, jobs := range []int{1, 3} {
		g, err := New(e, Options{Hidden: true})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := g.GradeAll(context.Background(), subs, BatchOptions{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if _, err := g.WriteReports(out, rs); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(out, p)
				files[rel] = b
			}
			return err
		})
		outs = append(outs, files)
	}
	if len(outs[0]) != len(outs[1]) || len(outs[0]) < 10 {
		t.Fatalf("%d and %d files", len(outs[0]), len(outs[1]))
	}
	for name, b := range outs[0] {
		if !bytes.Equal(b, outs[1][name]) {
			t.Errorf("%s differs between two gradings", name)
		}
	}
}

// TestClassroom checks the JSON that GitHub Classroom's reporter reads.
func TestClassroom(t *testing.T) {
	e := tiny(t)
	g, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := g.GradeYAML(ctx, "w", "scenario.yaml", []byte(read(t, e, "wrong-two.yaml")), []byte("which: work\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := Classroom(r)
	var m map[string]any
	if err := json.Unmarshal(c.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	if m["version"] != 1.0 || m["status"] != "fail" || m["max_score"] != 10.0 {
		t.Errorf("top level: %v", m)
	}
	tests := m["tests"].([]any)
	var names []string
	for _, x := range tests {
		tt := x.(map[string]any)
		for _, k := range []string{"name", "status", "score", "max_score", "message", "test_code", "filename", "line_no", "execution_time"} {
			if _, ok := tt[k]; !ok {
				t.Errorf("test %v lacks %s", tt["name"], k)
			}
		}
		names = append(names, tt["name"].(string)+"="+tt["status"].(string))
	}
	if want := []string{"keeps-up=fail", "calm=pass", "which=pass", "rate=fail"}; !slices.Equal(names, want) {
		t.Errorf("tests %v, want %v", names, want)
	}
	dec, err := base64.StdEncoding.DecodeString(c.Base64())
	if err != nil || !bytes.Equal(dec, c.JSON()) {
		t.Errorf("base64 does not decode to the JSON: %v", err)
	}
	out := filepath.Join(t.TempDir(), "github_output")
	if err := c.WriteGitHubOutput(out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "result="+c.Base64()+"\n" {
		t.Errorf("GITHUB_OUTPUT holds %q", b)
	}

	full, err := g.GradeYAML(ctx, "s", "scenario.yaml", []byte(read(t, e, "solution.yaml")), []byte("which: WORK\nrate: 41\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := Classroom(full); c.Status != "pass" || len(c.Tests) != 4 {
		t.Errorf("full marks: %s", c.JSON())
	}
}

// TestStarterAndSolution grades the exercise's own scenarios as the pack
// tests do, with ValidateExercise.
func TestStarterAndSolution(t *testing.T) {
	lines, ok, err := ValidateExercise(context.Background(), tiny(t))
	if err != nil || !ok {
		t.Fatalf("%v %v\n%s", ok, err, strings.Join(lines, "\n"))
	}
	want := []string{"starter.yaml: 4/10", "solution.yaml: 10/10", "wrong-two.yaml: 6/10"}
	if !slices.Equal(lines, want) {
		t.Errorf("got %q, want %q", lines, want)
	}
}

// sortedIDs returns the ids of results, sorted.
func sortedIDs(rs []*Result) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return ids
}
