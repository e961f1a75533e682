package grading

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dspalab/dspalab/sim/scenario"
)

// dataExts are the names of the files of an exercise's folder that a
// submission's trace may replay: its data, never its other files (the
// solution, exercise.yaml, the README).
var dataExts = []string{".csv", ".csv.gz"}

// isDataFile reports whether name ends in one of dataExts (in any case).
func isDataFile(name string) bool {
	lower := strings.ToLower(name)
	for _, ext := range dataExts {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// checkTraceFiles checks that every trace file of sc (a submission) is a
// data file of the exercise's folder: a .csv or .csv.gz regular file
// found through an os.Root of the folder, so that neither ".." nor a
// symbolic link leads out of it. The reasons name the file as the
// submission wrote it, never where it is on disk. (Exercise.CheckTraces
// has already refused absolute paths, "..", and files in the built-in
// pack.)
func (g *Grader) checkTraceFiles(sc *scenario.Scenario) error {
	var errs scenario.ErrorList
	var root *os.Root
	for i, s := range sc.Sources {
		tr := s.Arrival.Trace
		if s.Arrival.Process != scenario.ArrivalTrace || tr == nil || tr.File == "" {
			continue
		}
		path := fmt.Sprintf("sources[%d].arrival.trace.file", i)
		if !isDataFile(tr.File) {
			errs = append(errs, sc.Errorf(path, "%s is not a data file of the exercise: a trace may replay only the %s files of the exercise's folder", tr.File, strings.Join(dataExts, " and ")))
			continue
		}
		if root == nil {
			var err error
			if root, err = os.OpenRoot(g.ex.BaseDir()); err != nil {
				return fmt.Errorf("grading: the exercise's folder: %w", cleanErr(err))
			}
			defer root.Close()
		}
		fi, err := root.Stat(tr.File)
		switch {
		case isEscape(err):
			errs = append(errs, sc.Errorf(path, "%s leads outside the exercise's folder (a symbolic link); it is not read", tr.File))
		case errors.Is(err, fs.ErrNotExist):
			errs = append(errs, sc.Errorf(path, "the exercise has no data file %s", tr.File))
		case err != nil:
			errs = append(errs, sc.Errorf(path, "cannot read %s", tr.File))
		case !fi.Mode().IsRegular():
			errs = append(errs, sc.Errorf(path, "%s is not a regular file", tr.File))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// scrub removes the exercise's folder from a message of a run (a trace's
// file is named by its path on disk): the feedback names no absolute
// path of the grading machine.
func (g *Grader) scrub(msg string) string {
	base := g.ex.BaseDir()
	if base == "" {
		return msg
	}
	for _, b := range []string{base, filepath.Clean(base)} {
		if abs, err := filepath.Abs(b); err == nil {
			msg = strings.ReplaceAll(msg, abs+string(filepath.Separator), "")
		}
		msg = strings.ReplaceAll(msg, b+string(filepath.Separator), "")
	}
	return msg
}
