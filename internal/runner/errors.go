package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/dspalab/dspalab/sim/scenario"
)

// ExitCode returns the exit status of the dspalab command for an error of
// this package: ExitOK for nil, ExitInterrupted for an *InterruptedError,
// ExitUsage for an *OptionError, ExitFailure for any other. (Other usage
// errors are cobra's and the command's: it maps them to ExitUsage itself.)
func ExitCode(err error) int {
	var ie *InterruptedError
	var oe *OptionError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ie), errors.Is(err, context.Canceled):
		return ExitInterrupted // Ctrl-C cancels the command's context
	case errors.As(err, &oe):
		return ExitUsage
	default:
		return ExitFailure
	}
}

// WriteError prints err for a person on w:
//   - the problems of an invalid scenario (scenario.ErrorList) as their
//     "file:line:col: path: message" lines, as compilers print them, so
//     editors and terminals can jump to them;
//   - ErrReported not at all;
//   - any other error as "dspalab: message", each of the errors joined by
//     errors.Join on its own line.
//
// Format characters (Unicode Cf: bidi overrides, zero-width characters)
// are written as \u202e: a file name with an override would reorder the
// terminal's line, and the student would not see the name the message
// is about.
func WriteError(w io.Writer, err error) {
	if err == nil || errors.Is(err, ErrReported) {
		return
	}
	var list scenario.ErrorList
	if errors.As(err, &list) {
		fmt.Fprintln(w, EscapeRunes(list.Error(), isFormatChar))
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("dspalab: ")
		b.WriteString(e.Error())
		b.WriteString("\n")
	}
	io.WriteString(w, EscapeRunes(b.String(), isFormatChar))
}

// isFormatChar reports whether r is a format character (Unicode Cf).
func isFormatChar(r rune) bool { return unicode.Is(unicode.Cf, r) }

// EscapeFormat writes the format characters of s as \uXXXX (see
// WriteError).
func EscapeFormat(s string) string { return EscapeRunes(s, isFormatChar) }

// EscapeRunes writes the runes of s for which esc is true as \uXXXX, so
// that what a screen or a spreadsheet shows is what s holds.
func EscapeRunes(s string, esc func(rune) bool) string {
	if !strings.ContainsFunc(s, esc) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if esc(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
