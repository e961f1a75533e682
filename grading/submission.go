package grading

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files of a submission directory.
const (
	ScenarioFile = "scenario.yaml"
	AnswersFile  = "answers.yaml"
)

// MaxFileBytes is the largest file of a submission that is read: 1 MiB. A
// larger one is refused from its size, without reading it.
const MaxFileBytes = 1 << 20

// Submission is one student's work: a directory holding scenario.yaml
// (and optionally answers.yaml), or a single scenario .yaml file.
type Submission struct {
	// ID names the submission in grades.csv and the feedback files: no
	// path separators, no "..", unique in a batch (see Collect).
	ID string
	// Path is the directory or file as given.
	Path string

	refused string // why it is not read at all (a symbolic link, not a regular file)
}

// Collect turns the command line's SUBMISSION arguments into submissions,
// in order:
//   - a .yaml (or .yml) file is one submission (ID: its name without the
//     extension; for a file named scenario.yaml, its directory's name);
//   - a directory holding scenario.yaml or answers.yaml is one submission
//     (ID: its name);
//   - another directory is expanded to its sub-directories and .yaml
//     files, one submission each, in name order (other files, and hidden
//     directories without scenario.yaml or answers.yaml such as .git, are
//     left out); a directory with none of them is one submission (which
//     then has no scenario.yaml).
//
// Entries found by expanding a directory are not followed through
// symbolic links, and a .yaml entry that is not a regular file (a FIFO, a
// device) is never opened: such an entry is a submission that gets 0,
// with the reason (hidden ones, such as an editor's lock files, are left
// out). IDs are sanitized (SanitizeID) and made unique, without regard to
// case, by appending -2, -3, ... An argument that does not exist, or is
// neither a directory nor a .yaml file, is an error.
func Collect(args []string) ([]Submission, error) {
	var subs []Submission
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("grading: no submission %s: no such file or directory", arg)
			}
			return nil, fmt.Errorf("grading: %w", err)
		}
		switch {
		case fi.IsDir():
			children, err := expand(arg)
			if err != nil {
				return nil, err
			}
			if children == nil {
				subs = append(subs, Submission{ID: idOf(arg), Path: arg})
			}
			subs = append(subs, children...)
		case isYAML(arg):
			subs = append(subs, Submission{ID: idOf(arg), Path: arg})
		default:
			return nil, fmt.Errorf("grading: submission %s is neither a directory nor a .yaml file", arg)
		}
	}
	seen := map[string]bool{}
	for i := range subs {
		id := SanitizeID(subs[i].ID)
		uniq := id
		for n := 2; seen[strings.ToLower(uniq)]; n++ {
			uniq = fmt.Sprintf("%s-%d", id, n)
		}
		seen[strings.ToLower(uniq)] = true
		subs[i].ID = uniq
	}
	return subs, nil
}

// expand returns the submissions inside dir, or nil when dir is one
// submission itself.
func expand(dir string) ([]Submission, error) {
	if has(dir, ScenarioFile) || has(dir, AnswersFile) {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("grading: reading %s: %w", dir, err)
	}
	var subs []Submission
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".") && !(e.IsDir() && (has(p, ScenarioFile) || has(p, AnswersFile)) || e.Type().IsRegular() && isYAML(name)) {
			continue // .git and the like; a hidden submission is still one
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			subs = append(subs, Submission{ID: idOf(p), Path: p,
				refused: fmt.Sprintf("%s is a symbolic link: a submission is read only from the submissions' directory, never through a link", name)})
		case e.IsDir():
			subs = append(subs, Submission{ID: idOf(p), Path: p})
		case e.Type().IsRegular() && isYAML(name):
			subs = append(subs, Submission{ID: idOf(p), Path: p})
		case isYAML(name):
			// a FIFO, a device or a socket named like a submission: never
			// opened, graded 0 with the reason
			subs = append(subs, Submission{ID: idOf(p), Path: p,
				refused: fmt.Sprintf("%s is not a regular file", name)})
		}
	}
	return subs, nil
}

func has(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, name))
	return err == nil
}

func isYAML(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// idOf is the raw id of a submission path: the base name without a
// .yaml extension; for a file named scenario.yaml, its directory's name.
func idOf(p string) string {
	p = filepath.Clean(p)
	base := filepath.Base(p)
	if isYAML(base) {
		stem := strings.TrimSuffix(base, filepath.Ext(base))
		if stem == "scenario" {
			if d := filepath.Base(filepath.Dir(p)); d != "." && d != string(filepath.Separator) {
				return d
			}
		}
		return stem
	}
	if base == "." || base == string(filepath.Separator) {
		if abs, err := filepath.Abs(p); err == nil {
			return filepath.Base(abs)
		}
	}
	return base
}

// SanitizeID makes a submission id safe as a file name and a CSV cell:
// letters, digits, '.', '_' and '-' are kept, anything else (path
// separators, spaces, control characters) becomes '_'; ".." becomes '_',
// runs of '_' one, and leading dots, dashes and '_' are dropped, so an id is never a path
// outside the feedback directory, a hidden file, or read as a flag or a
// spreadsheet formula. It is at most 100 bytes; an empty
// id becomes "submission".
func SanitizeID(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	id := b.String()
	for strings.Contains(id, "..") {
		id = strings.ReplaceAll(id, "..", "_")
	}
	for strings.Contains(id, "__") {
		id = strings.ReplaceAll(id, "__", "_")
	}
	id = strings.Trim(strings.TrimLeft(id, ".-_"), "_")
	if len(id) > 100 {
		id = id[:100]
	}
	if id == "" {
		id = "submission"
	}
	return id
}

// files is what is read of a submission. Each file is read on its own:
// one that cannot be read costs only what depends on it.
type files struct {
	scenario      []byte
	scenarioLabel string // the name to parse it under
	scenarioErr   error  // why the scenario could not be read: the checks get 0
	answers       []byte // nil: none
	answersLabel  string
	answersErr    error // why answers.yaml could not be read: the questions get 0
}

// What a file of a submission is, for the message on a file too large.
const (
	scenarioWhat = "a scenario is a short YAML file"
	answersWhat  = "answers.yaml holds one short answer per question"
)

// readSubmission reads a submission's scenario and answers: a directory
// through an os.Root (nothing outside it is opened, even through symbolic
// links), or a single file. Files over MaxFileBytes and anything but
// regular files are refused without being read. A scenario or answers
// that cannot be read is recorded in files (scenarioErr, answersErr); the
// error is for a submission of which nothing can be read.
func readSubmission(sub Submission) (files, error) {
	if sub.refused != "" {
		return files{}, errors.New(sub.refused)
	}
	fi, err := os.Stat(sub.Path)
	if err != nil {
		return files{}, fmt.Errorf("cannot read the submission: %v", cleanErr(err))
	}
	if !fi.IsDir() {
		label := filepath.Base(sub.Path)
		f := files{scenarioLabel: label}
		f.scenario, f.scenarioErr = readFile(os.Stat, os.Open, sub.Path, label, scenarioWhat)
		return f, nil
	}
	root, err := os.OpenRoot(sub.Path)
	if err != nil {
		return files{}, fmt.Errorf("cannot read the submission: %v", cleanErr(err))
	}
	defer root.Close()
	f := files{scenarioLabel: ScenarioFile, answersLabel: AnswersFile}
	f.scenario, f.scenarioErr = readFile(root.Stat, root.Open, ScenarioFile, ScenarioFile, scenarioWhat)
	if errors.Is(f.scenarioErr, fs.ErrNotExist) {
		f.scenarioErr = fmt.Errorf("no %s in the submission (it holds the scenario: dspalab exercise start creates it)", ScenarioFile)
	}
	f.answers, f.answersErr = readFile(root.Stat, root.Open, AnswersFile, AnswersFile, answersWhat)
	if errors.Is(f.answersErr, fs.ErrNotExist) {
		f.answers, f.answersErr = nil, nil // no answers: each question is not answered
	}
	return f, nil
}

// readFile reads name (shown as label) with the given stat and open,
// refusing non-regular files and files over MaxFileBytes without reading
// them; what says what the file should be, for a file too large.
func readFile(stat func(string) (fs.FileInfo, error), open func(string) (*os.File, error), name, label, what string) ([]byte, error) {
	fi, err := stat(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", label, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("cannot read %s: %v", label, cleanErr(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", label)
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s is %s; the limit is 1 MiB (%s)", label, mebibytes(fi.Size()), what)
	}
	f, err := open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", label, cleanErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", label, cleanErr(err))
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than 1 MiB; the limit is 1 MiB (%s)", label, what)
	}
	return data, nil
}

// mebibytes formats a size as "50.0 MiB".
func mebibytes(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// cleanErr strips the path of a *fs.PathError, so that reasons name no
// absolute paths of the grading machine.
func cleanErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %w", pe.Op, filepath.Base(pe.Path), pe.Err)
	}
	return err
}
