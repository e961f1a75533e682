package scenario

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Error is one problem in a scenario file, located at a 1-based line and
// column (in characters) of the YAML text, with the path of the field in the
// YAML names (for example "sources[0].arrival.rate"; empty for the whole
// document).
//
// It prints as "file:line:col: path: message", the format editors and
// compilers use, so terminals and editors can jump to it.
type Error struct {
	File string // file name the scenario was parsed under
	Line int    // 1-based line, 0 if unknown
	Col  int    // 1-based column, 0 if unknown
	Path string // field path in YAML names, "" for the document
	Msg  string // what is wrong and, where possible, what was expected
}

// Error formats e as "file:line:col: path: message", leaving out the parts
// that are empty or unknown.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(":")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, "%d:", e.Col)
		}
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in one scenario file, sorted by line and
// column. Parse and Validate return it (as an error) when it is not empty.
type ErrorList []*Error

// Error joins the errors, one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the errors of the list, so errors.As finds an *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// sortErrors orders errors by line and column, keeping the order in which
// they were found among equal positions.
func sortErrors(l ErrorList) {
	slices.SortStableFunc(l, func(a, b *Error) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Col, b.Col); c != 0 || a.Line > 0 {
			return c
		}
		return slices.Compare(pathRank(a.Path), pathRank(b.Path))
	})
}

// pathRank orders field paths as the description of the format lists
// them (fields.go), list items by index: the order of errors that have no
// position (a Scenario built in Go).
func pathRank(path string) []int {
	var rank []int
	mp := topMapping
	for path != "" {
		var name string
		if strings.HasPrefix(path, "[") {
			end := strings.IndexByte(path, ']')
			if end < 0 {
				break
			}
			n, _ := strconv.Atoi(path[1:end])
			rank, path = append(rank, n), strings.TrimPrefix(path[end+1:], ".")
			continue
		}
		end := strings.IndexAny(path, ".[")
		if end < 0 {
			end = len(path)
		}
		name, path = path[:end], strings.TrimPrefix(path[end:], ".")
		i := len(rank) // unknown keys last
		if mp != nil {
			i = len(mp.Fields)
			for j, f := range mp.Fields {
				if f.Name == name {
					i, mp = j, f.Sub
					break
				}
			}
		}
		rank = append(rank, i)
	}
	return rank
}

// maxErrors bounds the number of errors reported for one file; past it the
// list ends with a note of how many more were found.
const maxErrors = 100

// finish sorts the errors and truncates an overlong list. It returns nil for
// an empty list so that callers can return it as an error.
func finish(l ErrorList) error {
	if len(l) == 0 {
		return nil
	}
	sortErrors(l)
	if len(l) > maxErrors {
		rest := len(l) - maxErrors
		last := l[maxErrors]
		l = append(l[:maxErrors:maxErrors], &Error{
			File: last.File, Line: last.Line, Col: last.Col,
			Msg: fmt.Sprintf("too many errors; %d more not shown", rest),
		})
	}
	return l
}
