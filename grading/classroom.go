package grading

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// ClassroomResult is the result of one autograding step of GitHub
// Classroom, as its reporter (autograding-grading-reporter) reads it from
// the step's output named result, base64-encoded: a test per check and
// question, with its score.
type ClassroomResult struct {
	Version  int             `json:"version"`
	Status   string          `json:"status"` // "pass" (full marks) or "fail"
	MaxScore float64         `json:"max_score"`
	Tests    []ClassroomTest `json:"tests"`
}

// ClassroomTest is one check or question in a ClassroomResult.
type ClassroomTest struct {
	Name          string  `json:"name"`
	Status        string  `json:"status"` // "pass" or "fail"
	Score         float64 `json:"score"`
	MaxScore      float64 `json:"max_score"`
	Message       string  `json:"message"`
	TestCode      string  `json:"test_code"`
	Filename      string  `json:"filename"`
	LineNo        int     `json:"line_no"`
	ExecutionTime int     `json:"execution_time"` // always 0: grading is deterministic
}

// Classroom turns a Result into the reporter's JSON: status pass only
// with full marks; each check and question a test named by its id, its
// feedback as the message. A test not graded because of a problem says
// the problem once ("not graded: " and the problem); one not graded for
// another reason that follows from the problems (a question about a run
// that did not take place) has the problems before its feedback.
func Classroom(r *Result) ClassroomResult {
	c := ClassroomResult{Version: 1, Status: "fail", MaxScore: r.Max, Tests: []ClassroomTest{}}
	if r.Full() {
		c.Status = "pass"
	}
	problems := ""
	if len(r.Problems) > 0 {
		problems = strings.Join(r.Problems, "\n") + "\n"
	}
	add := func(it Item, code, file string) {
		t := ClassroomTest{Name: it.ID, Status: "fail", Score: it.Points, MaxScore: it.Max, Message: it.Feedback, TestCode: code, Filename: file}
		if it.Passed {
			t.Status = "pass"
		} else if problems != "" && strings.HasPrefix(it.Feedback, "not graded") && !r.showsProblem(it) {
			t.Message = problems + it.Feedback
		}
		c.Tests = append(c.Tests, t)
	}
	for _, it := range r.Checks {
		add(it, it.Want, ScenarioFile)
	}
	for _, it := range r.Questions {
		add(it, it.Text, AnswersFile)
	}
	return c
}

// JSON returns c as one line of JSON.
func (c ClassroomResult) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		panic(err) // always encodes
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Base64 returns the JSON base64-encoded: the value of the step output
// result.
func (c ClassroomResult) Base64() string { return base64.StdEncoding.EncodeToString(c.JSON()) }

// WriteGitHubOutput appends "result=<Base64>" to the file of GitHub
// Actions' step outputs (the path in $GITHUB_OUTPUT).
func (c ClassroomResult) WriteGitHubOutput(path string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("grading: writing the step output: %w", err)
	}
	if _, err := fmt.Fprintf(f, "result=%s\n", c.Base64()); err != nil {
		f.Close()
		return fmt.Errorf("grading: writing the step output: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("grading: writing the step output: %w", err)
	}
	return nil
}
