package grading

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/schollz/progressbar/v3"

	"github.com/dspalab/dspalab/internal/atomicfile"
	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/internal/regfile"
	"github.com/dspalab/dspalab/internal/runner"
)

// Files written by WriteReports.
const (
	GradesFile    = "grades.csv"
	FeedbackDir   = "feedback"
	SummaryFile   = "summary.md"
	HistogramFile = "histogram.png"
)

// BatchOptions configure GradeAll.
type BatchOptions struct {
	// Jobs is how many submissions are graded at once, each with its own
	// simulation engine in its own goroutine, or its own worker process
	// with Options.Isolate (default GOMAXPROCS).
	Jobs int
	// Progress, if non-nil, receives a progress bar (draw it only on a
	// terminal).
	Progress io.Writer
}

// GradeAll grades the submissions in parallel and returns their results
// in the same order. A submission that cannot be graded gets 0 with the
// reason and never stops the batch (with Options.Isolate, neither does one
// that crashes the simulator, runs out of memory or out of time); GradeAll
// fails only when ctx is cancelled (an *InterruptedError) or the exercise
// itself is broken (its starter does not run).
func (g *Grader) GradeAll(ctx context.Context, subs []Submission, opts BatchOptions) ([]*Result, error) {
	if err := g.Prepare(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, &InterruptedError{Total: len(subs), Err: ctx.Err()}
		}
		return nil, err
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, max(len(subs), 1))
	var bar *progressbar.ProgressBar
	if opts.Progress != nil && len(subs) > 0 {
		bar = progressbar.NewOptions(len(subs),
			progressbar.OptionSetWriter(opts.Progress),
			progressbar.OptionSetDescription("grading "+g.ex.ID),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30))
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*Result, len(subs))
	errs := make([]error, len(subs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = g.Grade(ctx, subs[i])
				if errs[i] != nil {
					cancel()
				}
				if bar != nil {
					bar.Add(1)
				}
			}
		})
	}
feed:
	for i := range subs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if bar != nil {
		bar.Finish()
	}
	if parent.Err() != nil {
		done := 0
		for i, r := range results {
			if r != nil && errs[i] == nil {
				done++
			}
		}
		return nil, &InterruptedError{Graded: done, Total: len(subs), Err: parent.Err()}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// InterruptedError is a batch stopped by its context (Ctrl-C): Graded of
// Total submissions were graded when it stopped, and none is returned.
// It wraps the context's error.
type InterruptedError struct {
	Graded, Total int
	Err           error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("grading interrupted after %d of %s", e.Graded, plural.Count(e.Total, "submission"))
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// WriteReports writes the grades of results into dir (created if
// missing): grades.csv (one row per submission, sorted by id: id, source,
// score, max, then the points of each check and question, by id),
// feedback/<id>.md and feedback/<id>.json per submission, summary.md (the
// class summary) and histogram.png (the scores). It returns the paths
// written, grades.csv first.
//
// The batch's outputs replace the previous ones whole, never one file at
// a time: they are written into a temporary directory inside dir first,
// then moved into place; if a write fails (a full disk), or a move does
// (the moves done are undone), dir keeps the previous outputs as they
// were, and the error says so. Files of dir that are not outputs are
// left alone; an output name taken by something dspalab does not write
// (a directory named grades.csv, a file of its own in feedback/) is
// refused before anything is written.
func (g *Grader) WriteReports(dir string, results []*Result) ([]string, error) {
	rs := slices.Clone(results)
	slices.SortFunc(rs, func(a, b *Result) int { return strings.Compare(a.ID, b.ID) })
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("grading: %w", err)
	}
	had, err := checkOutputs(dir)
	if err != nil {
		return nil, err
	}
	kept := "nothing was written"
	if had {
		kept = "the previous grades in " + dir + " were kept"
	}
	tmp, err := os.MkdirTemp(dir, ".dspalab-grades-*")
	if err != nil {
		return nil, fmt.Errorf("grading: writing the grades: %w; %s", err, kept)
	}
	defer os.RemoveAll(tmp)
	if err := g.writeOutputs(tmp, rs); err != nil {
		return nil, fmt.Errorf("grading: writing the grades: %w; %s", err, kept)
	}
	if err := swapIn(dir, tmp); err != nil {
		return nil, fmt.Errorf("grading: moving the grades into place: %w; %s", err, kept)
	}
	written := []string{filepath.Join(dir, GradesFile)}
	for _, r := range rs {
		written = append(written, filepath.Join(dir, FeedbackDir, r.ID+".md"), filepath.Join(dir, FeedbackDir, r.ID+".json"))
	}
	return append(written, filepath.Join(dir, HistogramFile), filepath.Join(dir, SummaryFile)), nil
}

// CheckOutputDir reports what WriteReports would refuse in dir before it
// writes anything (see checkOutputs), so that a batch can be refused
// before it is graded; nil when dir does not exist yet.
func CheckOutputDir(dir string) error {
	_, err := checkOutputs(dir)
	return err
}

// outputNames are the entries of an output directory that WriteReports
// replaces, in the order they are moved in (grades.csv last).
var outputNames = []string{FeedbackDir, HistogramFile, SummaryFile, GradesFile}

// checkOutputs checks that each output of dir is missing or what
// WriteReports writes (a regular file; feedback/ a directory of the .md
// and .json files of the submissions grades.csv lists), and reports
// whether dir holds any. grades.csv is the previous batch's manifest:
// feedback/ is replaced whole, so a file in it that no row of grades.csv
// names (an instructor's RUBRIC.md, a late-days.json) is refused, not
// deleted.
func checkOutputs(dir string) (bool, error) {
	had := false
	refuse := func(p, what string) error {
		return fmt.Errorf("grading: %s %s, which dspalab does not write; nothing was replaced (move it away or choose another --out)", p, what)
	}
	ids, err := previousIDs(filepath.Join(dir, GradesFile))
	if err != nil {
		return false, err
	}
	for _, name := range outputNames {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return false, fmt.Errorf("grading: %w", err)
		case name == FeedbackDir && !fi.IsDir(), name != FeedbackDir && !fi.Mode().IsRegular():
			return false, refuse(p, "is not a "+map[bool]string{true: "directory", false: "regular file"}[name == FeedbackDir])
		case ids == nil && name != GradesFile:
			// without grades.csv, no earlier batch wrote it: an
			// instructor's own summary.md, say
			return false, fmt.Errorf("grading: %s is there without a %s, so dspalab did not write it; nothing was replaced (move it away or choose another --out)", p, filepath.Join(dir, GradesFile))
		}
		had = true
		if name != FeedbackDir {
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return false, fmt.Errorf("grading: %w", err)
		}
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if !e.Type().IsRegular() || ext != ".md" && ext != ".json" {
				return false, refuse(p, "holds "+e.Name())
			}
			if !ids[strings.TrimSuffix(e.Name(), ext)] {
				return false, fmt.Errorf("grading: %s holds %s, which is not the feedback of a submission in %s (dspalab did not write it); nothing was replaced (move it away or choose another --out)",
					p, e.Name(), filepath.Join(dir, GradesFile))
			}
		}
	}
	return had, nil
}

// previousIDs returns the submission ids of the grades.csv at path (the
// first column below the header); none when there is no such file. A
// grades.csv that is not one WriteReports wrote (no "id" header) is an
// error: what feedback/ holds cannot be told apart then.
func previousIDs(path string) (map[string]bool, error) {
	data, err := regfile.ReadFile(path, maxGradesCSV) // never blocks on a FIFO named grades.csv
	var nr *regfile.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.As(err, &nr):
		return nil, nil // none, or not a regular file, which checkOutputs refuses
	case err != nil:
		return nil, fmt.Errorf("grading: %w", err)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 || !slices.Equal(rows[0][:min(len(rows[0]), len(gradesHead))], gradesHead) {
		return nil, fmt.Errorf("grading: %s is not a grades.csv that dspalab wrote (its columns must begin %s); nothing was replaced (move it away or choose another --out)", path, strings.Join(gradesHead, ","))
	}
	ids := map[string]bool{}
	for _, row := range rows[1:] {
		if len(row) > 0 {
			ids[row[0]] = true
		}
	}
	return ids, nil
}

// gradesHead begins the header of every grades.csv WriteReports writes.
var gradesHead = []string{"id", "source", "score", "max"}

// maxGradesCSV bounds the previous grades.csv that checkOutputs reads:
// far above any class's (a row is well under 1 KiB).
const maxGradesCSV = 64 << 20

// writeFile writes one output file (a variable, so that the tests can
// fill the disk).
var writeFile = func(path string, data []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// writeOutputs writes every output of rs into dir (new and empty).
func (g *Grader) writeOutputs(dir string, rs []*Result) error {
	fb := filepath.Join(dir, FeedbackDir)
	if err := os.Mkdir(fb, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, GradesFile), g.GradesCSV(rs)); err != nil {
		return err
	}
	for _, r := range rs {
		if err := writeFile(filepath.Join(fb, r.ID+".md"), r.Markdown(g.ex)); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(fb, r.ID+".json"), r.JSON()); err != nil {
			return err
		}
	}
	png, err := Histogram(g.ex.ID, rs)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, HistogramFile), png); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, SummaryFile), g.Summary(rs))
}

// swapIn moves the outputs of tmp (inside dir) into dir, the previous
// ones aside into tmp first; on a failed move it moves back what it
// moved, so that dir holds the previous outputs again.
func swapIn(dir, tmp string) (err error) {
	old := filepath.Join(tmp, ".previous")
	if err := os.Mkdir(old, 0o755); err != nil {
		return err
	}
	var undo []func() error
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()
	for _, name := range outputNames {
		cur, next, prev := filepath.Join(dir, name), filepath.Join(tmp, name), filepath.Join(old, name)
		if _, err := os.Lstat(cur); err == nil {
			if err := rename(cur, prev); err != nil {
				return err
			}
			undo = append(undo, func() error { return os.Rename(prev, cur) })
		}
		if err := rename(next, cur); err != nil {
			return err
		}
		undo = append(undo, func() error { return os.Rename(cur, next) })
	}
	return nil
}

// rename is os.Rename (a variable, so that the tests can make it fail).
var rename = os.Rename

// GradesCSV returns grades.csv of the results, in their order: a header
// "id,source,score,max,<check ids>,<question ids>", then one row per
// result; source is the submission's path as given (Result.Source), so
// that each row says which folder or file it graded.
func (g *Grader) GradesCSV(rs []*Result) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := slices.Clone(gradesHead)
	for _, c := range g.ex.Checks {
		head = append(head, c.ID)
	}
	for _, q := range g.ex.Questions {
		head = append(head, q.ID)
	}
	w.Write(head)
	for _, r := range rs {
		row := []string{r.ID, csvPath(r.Source), points(r.Score), points(r.Max)}
		for _, it := range r.Checks {
			row = append(row, points(it.Points))
		}
		for _, it := range r.Questions {
			row = append(row, points(it.Points))
		}
		w.Write(row)
	}
	w.Flush()
	return buf.Bytes()
}

// csvPath is a path as a grades.csv cell: a relative path that a
// spreadsheet would read as a formula (=, +, -, @) gets "./" in front, so
// it stays the same path; a format or control character (a bidi override
// that shows "abcod.exe" as "abexe.doc") is written as \u202e.
func csvPath(p string) string {
	p = escapeFormat(p)
	if p != "" && strings.ContainsRune("=+-@\t\r", rune(p[0])) {
		return "." + string(filepath.Separator) + p
	}
	return p
}

// escapeFormat writes the format and control characters of s (Unicode Cf
// and Cc: bidi overrides, zero-width characters, newlines) as \uXXXX, so
// that what a screen or a spreadsheet shows is what s holds.
func escapeFormat(s string) string { return runner.EscapeRunes(s, isFormat) }

func isFormat(r rune) bool { return unicode.In(r, unicode.Cf, unicode.Cc) }

// Summary returns summary.md: the class's scores (count, mean, median,
// min, max, full marks), the histogram, how many passed each check and
// question, and the submissions with problems.
func (g *Grader) Summary(rs []*Result) []byte {
	ex := g.ex
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", ex.ID, mdText(ex.Title))
	n := len(rs)
	fmt.Fprintf(&b, "%s, graded on %s %s", plural.Count(n, "submission"), plural.For(len(ex.Seeds), "seed"), joinSeeds(ex.Seeds))
	if g.opts.Hidden && len(ex.HiddenSeeds) > 0 {
		fmt.Fprintf(&b, " and hidden %s %s", plural.For(len(ex.HiddenSeeds), "seed"), joinSeeds(ex.HiddenSeeds))
	}
	fmt.Fprintf(&b, "; %s points at most.\n\n", points(ex.MaxPoints()))
	if n > 0 {
		scores := make([]float64, n)
		full := 0
		for i, r := range rs {
			scores[i] = r.Score
			if r.Full() {
				full++
			}
		}
		slices.Sort(scores)
		var sum float64
		for _, s := range scores {
			sum += s
		}
		median := scores[n/2]
		if n%2 == 0 {
			median = (scores[n/2-1] + scores[n/2]) / 2
		}
		b.WriteString("| mean | median | min | max | full marks |\n| --- | --- | --- | --- | --- |\n")
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |\n\n", points(math.Round(sum/float64(n)*100)/100), points(median), points(scores[0]), points(scores[n-1]), full)
	}
	fmt.Fprintf(&b, "![score histogram](%s)\n\n", HistogramFile)
	b.WriteString("## Checks and questions\n\n| id | points | passed | condition |\n| --- | --- | --- | --- |\n")
	passed := func(k int, question bool) int {
		c := 0
		for _, r := range rs {
			items := r.Checks
			if question {
				items = r.Questions
			}
			if k < len(items) && items[k].Passed {
				c++
			}
		}
		return c
	}
	for k, c := range ex.Checks {
		fmt.Fprintf(&b, "| %s | %s | %d of %d | `%s %s` |\n", c.ID, points(c.Points), passed(k, false), n, c.Metric, strings.ReplaceAll(want(c), "|", "\\|"))
	}
	for k, q := range ex.Questions {
		fmt.Fprintf(&b, "| %s | %s | %d of %d | %s |\n", q.ID, points(q.Points), passed(k, true), n, mdCell(q.Text))
	}
	b.WriteString(classAnswers(ex, rs))
	var bad []string
	for _, r := range rs {
		if len(r.Problems) > 0 {
			reasons := make([]string, len(r.Problems))
			for i, p := range r.Problems {
				reasons[i] = mdText(briefProblem(p))
			}
			bad = append(bad, fmt.Sprintf("- **%s** (%s): %s", r.ID, points(r.Score), strings.Join(reasons, "; ")))
		}
	}
	if len(bad) > 0 {
		b.WriteString("\n## Submissions with problems\n\n" + strings.Join(bad, "\n") + "\n")
	}
	b.WriteString("\nPer submission: feedback/ID.md (for the student) and feedback/ID.json.\n")
	return []byte(b.String())
}
