package grading

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestClassroomWorkflowDoc checks the GitHub Classroom workflow of
// docs/authoring.md against what the reporter
// (classroom-resources/autograding-grading-reporter) needs: the result of
// the dspalab step in the environment variable named after its id, in
// capitals, with _RESULTS; the runner's id in runners; the checks: write
// permission; and a dspalab step that lets the reporter run below full
// marks (--classroom exits 0 once graded; the reporter fails the run).
func TestClassroomWorkflowDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/authoring.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n### GitHub Classroom\n")
	if !ok {
		t.Fatal("docs/authoring.md has no section GitHub Classroom")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```yaml\n")
	if !ok {
		t.Fatal("the GitHub Classroom section has no YAML block")
	}
	block, _, _ = strings.Cut(block, "\n```\n")
	var wf struct {
		Permissions map[string]string
		Jobs        map[string]struct {
			Steps []struct {
				ID              string
				Name            string
				Uses            string
				Run             string
				If              string
				ContinueOnError bool `yaml:"continue-on-error"`
				Env             map[string]string
				With            map[string]string
			}
		}
	}
	if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
		t.Fatalf("the workflow does not parse: %v\n%s", err, block)
	}
	if wf.Permissions["checks"] != "write" {
		t.Errorf("permissions %v: the reporter needs checks: write", wf.Permissions)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(wf.Jobs))
	}
	for _, job := range wf.Jobs {
		grader, reporter := -1, -1
		for i, s := range job.Steps {
			switch {
			case strings.Contains(s.Run, "dspalab exercise check --classroom"):
				grader = i
			case strings.HasPrefix(s.Uses, "classroom-resources/autograding-grading-reporter@"):
				reporter = i
			}
		}
		if grader < 0 || reporter < grader {
			t.Fatalf("want a step running dspalab exercise check --classroom, then the reporter:\n%s", block)
		}
		id := job.Steps[grader].ID
		r := job.Steps[reporter]
		if id == "" {
			t.Errorf("the dspalab step has no id")
		}
		if v := r.Env[strings.ToUpper(id)+"_RESULTS"]; v != "${{ steps."+id+".outputs.result }}" {
			t.Errorf("reporter env %v: want %s_RESULTS set to the step's output result", r.Env, strings.ToUpper(id))
		}
		if runners := strings.Split(r.With["runners"], ","); !slices.Contains(runners, id) {
			t.Errorf("reporter runners %q lack %s", r.With["runners"], id)
		}
		for _, s := range job.Steps[grader+1 : reporter] {
			if s.If != "" {
				t.Errorf("step %q between dspalab and the reporter is conditional", s.Name)
			}
		}
	}
	// --classroom exits 0 once graded: the doc must not promise otherwise
	flat := strings.Join(strings.Fields(section), " ")
	if strings.Contains(flat, "exits 0 only on full marks") && !strings.Contains(flat, "Without `--classroom`, `exercise check` keeps its exit status: 0 only on full marks") {
		t.Errorf("the GitHub Classroom section says --classroom exits 0 only on full marks")
	}
	if !strings.Contains(flat, "`--classroom` exits 0 once it has graded, whatever the score") {
		t.Errorf("the GitHub Classroom section does not say that --classroom exits 0 once it has graded")
	}
}
