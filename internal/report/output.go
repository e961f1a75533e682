package report

import (
	"fmt"
	"path/filepath"
	"strings"

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
