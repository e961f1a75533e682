package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/internal/runner"
)

// CheckPageName refuses, with a *runner.OptionError (a usage error), an
// output name that is not an HTML page: the report and the comparison
// page are HTML, written as .html or .htm (as plot takes .png, .svg or
// .pdf).
func CheckPageName(name string) error {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".html", ".htm":
		return nil
	case "":
		return &runner.OptionError{Err: fmt.Errorf("%s has no extension; name the page .html or .htm", name)}
	default:
		return &runner.OptionError{Err: fmt.Errorf("cannot write the page as %s: it is HTML; name it .html or .htm", ext)}
	}
}

// ownedNames are the names dspalab gives the files of run and sweep
// directories.
func ownedNames() []string {
	return append(runfiles.OwnedNames(), runfiles.SweepFile, runfiles.SweepManifestFile,
		runfiles.SweepPartialFile, runfiles.SweepPartialManifestFile)
}

// checkNotInput refuses, with a *runner.OptionError, an output out that
// is one of the files of the inputs (run directories, or a sweep.csv
// whose directory is then the one that counts): a file dspalab wrote
// there, or may write there (runfiles.OwnedNames, the sweep's files).
// Writing it would replace what the command reads, and break every later
// command reading that directory. Names are compared without case, as a
// file system may.
func checkNotInput(out string, inputs []string) error {
	base := filepath.Base(out)
	i := slices.IndexFunc(ownedNames(), func(n string) bool { return strings.EqualFold(n, base) })
	if i < 0 {
		return nil
	}
	pfi, err := os.Stat(filepath.Dir(out))
	if err != nil {
		return nil // writing says why it cannot
	}
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			continue
		}
		dir := in
		if !fi.IsDir() {
			dir = filepath.Dir(in)
			if fi, err = os.Stat(dir); err != nil {
				continue
			}
		}
		if os.SameFile(pfi, fi) {
			return &runner.OptionError{Err: fmt.Errorf("refusing to write %s: it would replace %s of %s, which this command reads; nothing was written (name the output elsewhere)", out, ownedNames()[i], filepath.Clean(in))}
		}
	}
	return nil
}
