package exercises

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MarkerFile is written by Start in the student's directory: it names the
// exercise (and the pack, when not the built-in one), so that
// `dspalab exercise check DIR` knows what DIR is an attempt at.
const MarkerFile = ".dspalab-exercise"

// Files Start writes.
const (
	StartScenario = "scenario.yaml"
	StartReadme   = "README.md"
	StartAnswers  = "answers.yaml"
)

// Marker is what MarkerFile holds.
type Marker struct {
	// Exercise is the exercise's id.
	Exercise string
	// Pack is the pack's directory (absolute), "" for the built-in pack.
	Pack string
}

// ReadMarker reads MarkerFile in dir: lines "exercise: ID" and
// "pack: DIR", comments (#) and blank lines ignored. It returns an error
// wrapping fs.ErrNotExist when there is none.
func ReadMarker(dir string) (Marker, error) {
	p := filepath.Join(dir, MarkerFile)
	data, err := readFS(os.DirFS(dir), MarkerFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Marker{}, fmt.Errorf("exercises: %s: %w", p, fs.ErrNotExist)
		}
		return Marker{}, fmt.Errorf("exercises: reading %s: %w", p, err)
	}
	var m Marker
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		switch k = strings.TrimSpace(k); {
		case ok && k == "exercise":
			m.Exercise = strings.TrimSpace(v)
		case ok && k == "pack":
			m.Pack = strings.TrimSpace(v)
		default:
			return Marker{}, fmt.Errorf("exercises: %s:%d: expected \"exercise: ID\" or \"pack: DIR\", got %q", p, n, line)
		}
	}
	if m.Exercise == "" {
		return Marker{}, fmt.Errorf("exercises: %s names no exercise (a line \"exercise: ID\")", p)
	}
	return m, nil
}

// AnswersTemplate returns the answers.yaml that Start writes: each
// question as a comment with what kind of answer it takes, then its id
// with an empty answer.
func AnswersTemplate(e *Exercise) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Answers to the questions of exercise %s: write each answer after its colon.\n", e.ID)
	for _, q := range e.Questions {
		b.WriteString("\n")
		for line := range strings.Lines(q.Text) {
			b.WriteString("# " + strings.TrimRight(line, "\n") + "\n")
		}
		if len(q.Choices) > 0 {
			b.WriteString("# One of: " + strings.Join(q.Choices, ", ") + ".\n")
		} else {
			b.WriteString("# A number.\n")
		}
		b.WriteString(q.ID + ":\n")
	}
	return []byte(b.String())
}

// ExistsError is Start refusing to overwrite a file.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists: dspalab exercise start never overwrites your work; choose another directory, or move the file away", e.Path)
}

// Start copies what a student needs into dir (created if missing):
// scenario.yaml (the starter), README.md, answers.yaml (when the exercise
// has questions, see AnswersTemplate) and MarkerFile. It never overwrites
// anything: if any of these files exists, it writes none and returns an
// *ExistsError naming it. It returns the paths written. Instructor files
// (solution.yaml, wrong*.yaml) are never copied.
func Start(e *Exercise, dir string) ([]string, error) {
	starter, err := e.StarterYAML()
	if err != nil {
		return nil, err
	}
	readme, err := e.README()
	if err != nil {
		return nil, err
	}
	marker := "# Written by `dspalab exercise start`; `dspalab exercise check` reads it.\nexercise: " + e.ID + "\n"
	if p := e.Pack(); p != nil && !p.Builtin && p.Dir != "" {
		abs, err := filepath.Abs(p.Dir)
		if err != nil {
			return nil, fmt.Errorf("exercises: %w", err)
		}
		marker += "pack: " + abs + "\n"
	}
	type file struct {
		name string
		data []byte
	}
	files := []file{{StartScenario, starter}, {StartReadme, readme}}
	if len(e.Questions) > 0 {
		files = append(files, file{StartAnswers, AnswersTemplate(e)})
	}
	files = append(files, file{MarkerFile, []byte(marker)})
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if _, err := os.Lstat(p); err == nil {
			return nil, &ExistsError{p}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("exercises: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("exercises: %w", err)
	}
	var written []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return written, &ExistsError{p}
			}
			return written, fmt.Errorf("exercises: %w", err)
		}
		_, werr := w.Write(f.data)
		if cerr := w.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return written, fmt.Errorf("exercises: writing %s: %w", p, werr)
		}
		written = append(written, p)
	}
	return written, nil
}
