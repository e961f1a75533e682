package grading

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/dspalab/dspalab/sim/scenario"
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
// A submission is never a symbolic link, whether given one by one (as
// the shell expands subs/*) or found by expanding a directory: a link is
// a submission that gets 0, with the reason, and its target is never
// opened (inside a submission's directory, a link is followed only while
// it stays inside: readSubmission). The same file or directory given
// twice (subs/a.yaml ./subs/a.yaml, or a file and its folder) is graded
// once; a directory an earlier grade wrote (grades.csv and feedback/) is
// not a submission. So is a .yaml entry that is not a regular file (a FIFO, a
// device); hidden ones, such as an editor's lock files, are left out.
// IDs are sanitized (SanitizeID) and unique without regard to case (see
// uniqueIDs). An argument that does not exist, or is neither a directory
// nor a .yaml file, is an error.
func Collect(args []string) ([]Submission, error) { return CollectSkipping(args, "") }

// CollectSkipping is Collect for a grade whose reports go to outDir
// (WriteReports): what an earlier grade wrote there (outDir itself,
// feedback/, grades.csv, summary.md, histogram.png) is not a submission,
// whether found in a directory of submissions (grade --out subs subs, or
// --out subs/grades subs) or given by the shell (subs/*), unless it holds
// scenario.yaml or answers.yaml. outDir given as an argument is a
// directory of submissions, expanded without those; one holding nothing
// else is left out.
func CollectSkipping(args []string, outDir string) ([]Submission, error) {
	own := ownOutputs(outDir)
	var subs []Submission
	for _, arg := range args {
		name := noSlash(arg)
		li, err := os.Lstat(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("grading: no submission %s: no such file or directory", arg)
			}
			return nil, fmt.Errorf("grading: %w", cleanErr(err))
		}
		if li.Mode()&fs.ModeSymlink != 0 {
			subs = append(subs, Submission{ID: idOf(name), Path: arg, refused: linkReason(arg)})
			continue
		}
		isOut := len(own) > 0 && os.SameFile(li, own[0])
		if !isOut && isOwn(name, li, own) {
			continue
		}
		switch {
		case li.IsDir() && !isOut && isGradeOutput(name):
			continue // the reports of an earlier grade, given by the shell (subs/*)
		case li.IsDir():
			children, err := expand(arg, own)
			if err != nil {
				return nil, err
			}
			if children == nil && isOut && !has(arg, ScenarioFile) && !has(arg, AnswersFile) {
				continue // only the reports of an earlier grade
			}
			if children == nil {
				subs = append(subs, Submission{ID: idOf(arg), Path: arg})
			}
			subs = append(subs, children...)
		case isYAML(arg) && li.Mode().IsRegular():
			subs = append(subs, Submission{ID: idOf(arg), Path: arg})
		case isYAML(arg):
			subs = append(subs, Submission{ID: idOf(arg), Path: arg, refused: fmt.Sprintf("%s is not a regular file", arg)})
		default:
			return nil, fmt.Errorf("grading: submission %s is neither a directory nor a .yaml file", arg)
		}
	}
	subs = distinct(subs)
	uniqueIDs(subs)
	return subs, nil
}

// distinct drops the submissions that are the same file or directory as
// one before them (subs/a.yaml and ./subs/a.yaml, or subs/a.yaml and
// subs, which holds it): each is graded once, in its first place.
func distinct(subs []Submission) []Submission {
	var seen []os.FileInfo
	out := subs[:0]
	for _, s := range subs {
		fi, err := os.Lstat(noSlash(s.Path))
		if err == nil && slices.ContainsFunc(seen, func(o os.FileInfo) bool { return os.SameFile(fi, o) }) {
			continue
		}
		if err == nil {
			seen = append(seen, fi)
		}
		out = append(out, s)
	}
	return out
}

// noSlash is p without trailing slashes, which would make Lstat follow
// a link ("/" stays "/").
func noSlash(p string) string {
	if name := strings.TrimRight(p, string(filepath.Separator)+"/"); name != "" {
		return name
	}
	return p
}

// isGradeOutput reports whether dir is what an earlier grade wrote (its
// grades.csv and feedback/, no scenario.yaml or answers.yaml): not a
// submission, wherever it lies.
func isGradeOutput(dir string) bool {
	return has(dir, GradesFile) && has(dir, FeedbackDir) && !has(dir, ScenarioFile) && !has(dir, AnswersFile)
}

// linkReason is why a symbolic link is not graded.
func linkReason(name string) string {
	return fmt.Sprintf("%s is a symbolic link: a submission is read only from the submissions' directory, never through a link", name)
}

// uniqueIDs sanitizes the ids of subs (SanitizeID) and makes them unique
// without regard to case (feedback/ID.md must be one file on macOS and
// Windows too). An id shared by no other submission is kept as it is,
// whatever else the batch holds; the submissions that share one (alice and
// Alice, or bob smith and bob_smith) each get a suffix that depends only
// on their own raw name (or, for the same name in two folders, their
// path): "alice--5a1c0b2e" (two dashes, so that it never looks like the
// folder alice-5). So an id never takes the name of another
// submission, and the same folder gets the same id in every batch in which
// its name clashes (grades.csv's source column says which folder a row
// graded).
func uniqueIDs(subs []Submission) {
	base := make([]string, len(subs))
	groups := map[string][]int{}
	for i, s := range subs {
		base[i] = SanitizeID(s.ID)
		k := strings.ToLower(base[i])
		groups[k] = append(groups[k], i)
	}
	taken := map[string]bool{}
	var clashed []int
	for i := range subs {
		if len(groups[strings.ToLower(base[i])]) == 1 {
			subs[i].ID = base[i]
			taken[strings.ToLower(base[i])] = true
		} else {
			clashed = append(clashed, i)
		}
	}
	rawCount := map[string]int{}
	for _, i := range clashed {
		rawCount[strings.ToLower(base[i])+"\x00"+subs[i].ID]++
	}
	for _, i := range clashed {
		key := subs[i].ID // the raw name
		if rawCount[strings.ToLower(base[i])+"\x00"+key] > 1 {
			key = filepath.ToSlash(filepath.Clean(subs[i].Path))
		}
		sum := sha256.Sum256([]byte(key))
		h := hex.EncodeToString(sum[:])
		id := ""
		for n := 8; ; n += 4 {
			if n > len(h) {
				// the same path twice: number the copies
				for k := 2; ; k++ {
					suffix := fmt.Sprintf("--%s-%d", h[:8], k)
					id = cutID(base[i], maxIDBytes-len(suffix)) + suffix
					if !taken[strings.ToLower(id)] {
						break
					}
				}
				break
			}
			id = cutID(base[i], maxIDBytes-2-n) + "--" + h[:n]
			if !taken[strings.ToLower(id)] {
				break
			}
		}
		taken[strings.ToLower(id)] = true
		subs[i].ID = id
	}
}

// expand returns the submissions inside dir, or nil when dir is one
// submission itself.
func expand(dir string, own []os.FileInfo) ([]Submission, error) {
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
		if e.Type()&fs.ModeSymlink == 0 && len(own) > 0 {
			if fi, err := os.Lstat(p); err == nil && isOwn(p, fi, own) {
				continue // the reports of an earlier grade
			}
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			subs = append(subs, Submission{ID: idOf(p), Path: p, refused: linkReason(name)})
		case e.IsDir() && isGradeOutput(p):
			// the reports of an earlier grade into another --out
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

// SubmissionID is the id grade gives the submission at path p (before a
// clash with another's adds a suffix): exercise check gives one the same.
func SubmissionID(p string) string { return SanitizeID(idOf(p)) }

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
// letters and digits of any script (with their combining marks, in NFC,
// so that "émile" from macOS's decomposed file names and from elsewhere
// is one id), '.', '_' and '-' are kept, anything else (path separators,
// spaces, control and format characters such as bidi overrides) becomes
// '_'; ".." becomes '_', runs of '_' one, and leading dots, dashes and
// '_' are dropped, so an id is never a path outside the feedback
// directory, a hidden file, or read as a flag or a spreadsheet formula.
// It is at most 100 bytes, cut at a character; an empty id becomes
// "submission".
func SanitizeID(s string) string {
	var b strings.Builder
	for _, r := range norm.NFC.String(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '.' || r == '_' || r == '-' {
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
	id = cutID(id, maxIDBytes)
	if id == "" {
		id = "submission"
	}
	return id
}

// maxIDBytes bounds a submission id, a clash's suffix included.
const maxIDBytes = 100

// cutID cuts id to at most n bytes before a whole character: never inside
// a rune, never before a combining mark (an accent, a vowel sign, a
// virama), never after a zero-width joiner; and trims the '_', '-' and
// '.' the cut leaves at the end.
func cutID(id string, n int) string {
	if len(id) <= n {
		return id
	}
	for n > 0 {
		if utf8.RuneStart(id[n]) {
			next, _ := utf8.DecodeRuneInString(id[n:])
			last, _ := utf8.DecodeLastRuneInString(id[:n])
			// a virama (canonical combining class 9) joins the
			// consonant after it into a conjunct: क् + ष is क्ष
			if !unicode.IsMark(next) && last != '\u200d' && norm.NFC.PropertiesString(string(last)).CCC() != 9 {
				break
			}
		}
		n--
	}
	return strings.TrimRight(id[:n], "_-.")
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
		// the file through a root of its directory: a link to elsewhere
		// (made after Collect looked) is never followed out of it
		label := filepath.Base(sub.Path)
		root, err := os.OpenRoot(filepath.Dir(sub.Path))
		if err != nil {
			return files{}, fmt.Errorf("cannot read the submission: %v", cleanErr(err))
		}
		defer root.Close()
		f := files{scenarioLabel: label}
		f.scenario, f.scenarioErr = readFile(root.Stat, root.Open, label, label, scenarioWhat)
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
		return nil, readErr(label, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", label)
	}
	if fi.Size() > MaxFileBytes {
		size, limit := scenario.FormatByteSize(fi.Size()), scenario.FormatByteSize(MaxFileBytes)
		if size == limit { // not "1MiB" for one byte over
			size = "more than " + limit
		}
		return nil, fmt.Errorf("%s is %s; the limit is %s (%s)", label, size, limit, what)
	}
	f, err := open(name)
	if err != nil {
		return nil, readErr(label, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, readErr(label, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than %s, the limit (%s)", label, scenario.FormatByteSize(MaxFileBytes), what)
	}
	return data, nil
}

// cleanErr strips the path of a *fs.PathError, so that reasons name no
// absolute paths of the grading machine, and says in words what the
// system call's name ("statat", "openat") does not.
func cleanErr(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	name := filepath.Base(pe.Path)
	switch {
	case isEscape(pe.Err):
		return fmt.Errorf("%s is a symbolic link that leads outside the submission; it is not read", name)
	case errors.Is(pe.Err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", name)
	}
	return fmt.Errorf("%s: %w", name, pe.Err)
}

// readErr says why the file label could not be read, naming no path.
func readErr(label string, err error) error {
	if isEscape(err) {
		return fmt.Errorf("%s is a symbolic link that leads outside the submission; it is not read", label)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot read %s: %v", label, err)
}

// isEscape reports whether err is os.Root's refusal of a path that leads
// outside the root (through ".." or a symbolic link); os does not export
// that error.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// ownOutputs are the files WriteReports writes into outDir that exist,
// outDir first; none when outDir is "" or does not exist.
func ownOutputs(outDir string) []os.FileInfo {
	if outDir == "" {
		return nil
	}
	fi, err := os.Stat(outDir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	own := []os.FileInfo{fi}
	for _, name := range []string{FeedbackDir, GradesFile, SummaryFile, HistogramFile} {
		if fi, err := os.Lstat(filepath.Join(outDir, name)); err == nil {
			own = append(own, fi)
		}
	}
	return own
}

// isOwn reports whether p (of Lstat fi) is one of own, and not a
// submission (a directory holding scenario.yaml or answers.yaml).
func isOwn(p string, fi os.FileInfo, own []os.FileInfo) bool {
	if fi.IsDir() && (has(p, ScenarioFile) || has(p, AnswersFile)) {
		return false
	}
	return slices.ContainsFunc(own, func(o os.FileInfo) bool { return os.SameFile(fi, o) })
}
