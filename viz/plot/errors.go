package plot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/internal/plural"
	"github.com/dspalab/dspalab/sim/scenario"
)

// UnknownError is a name asked for (a metric, vertex or parameter) that
// the data does not have. Its message lists the valid names and suggests
// the nearest.
type UnknownError struct {
	What  string   // "metric", "vertex", "parameter"
	Name  string   // the name asked for
	Valid []string // the names the data has
	In    string   // where it was looked for (a run directory), if known
	// Note, if set, is said after the list (for example how to name an
	// ambiguous metric).
	Note string
	// Names, if set, are the full names the did-you-mean draws from when
	// Valid lists them in short (a sweep's vertex metrics as
	// vertices.VERTEX.FIELD); otherwise it draws from Valid.
	Names []string
	// Ambiguous: the name is the ending of several of Valid, not unknown.
	Ambiguous bool
}

func (e *UnknownError) Error() string {
	var b strings.Builder
	if e.Ambiguous {
		fmt.Fprintf(&b, "ambiguous %s %q", e.What, e.Name)
	} else {
		fmt.Fprintf(&b, "unknown %s %q", e.What, e.Name)
	}
	if e.In != "" {
		fmt.Fprintf(&b, " in %s", e.In)
	}
	if len(e.Valid) == 0 {
		fmt.Fprintf(&b, "; there are no %s", plural.Of(e.What))
	} else {
		fmt.Fprintf(&b, "; %s: %s", plural.Of(e.What), strings.Join(e.Valid, ", "))
		names := e.Names
		if names == nil {
			names = e.Valid
		}
		if ss := suggestions(e.Name, names); len(ss) == 1 {
			fmt.Fprintf(&b, " (did you mean %s?)", ss[0])
		} else if len(ss) > 1 {
			fmt.Fprintf(&b, " (did you mean one of %s?)", strings.Join(ss, ", "))
		}
	}
	if e.Note != "" {
		b.WriteString("; " + e.Note)
	}
	return b.String()
}

// NoDataError says that there is nothing to draw: every value asked for
// is missing or not a number.
type NoDataError struct{ Msg string }

func (e *NoDataError) Error() string { return "no data to plot: " + e.Msg }

// suggestions returns the names nearest to typed: the nearest by edit
// distance (nearest), else those nearestByWords finds. A dotted name is
// also matched by each of its endings after a ".", as a sweep's columns
// may be named ("out.latency_p99_ms", "latency_p99_ms" for
// "vertices.out.latency_p99_ms"), and an ending that several names share
// suggests them all: "latency_p99" suggests the latency_p99_ms column of
// every vertex.
func suggestions(typed string, names []string) []string {
	byEnding := map[string][]string{}
	var endings []string
	add := func(end, name string) {
		if _, ok := byEnding[end]; !ok {
			endings = append(endings, end)
		}
		if !slices.Contains(byEnding[end], name) {
			byEnding[end] = append(byEnding[end], name)
		}
	}
	for _, n := range names {
		add(n, n)
		for i := 0; i < len(n); i++ {
			if n[i] == '.' && i+1 < len(n) {
				add(n[i+1:], n)
			}
		}
	}
	if s := nearest(typed, endings); s != "" {
		return byEnding[s]
	}
	var out []string
	for _, end := range nearestByWords(typed, endings) {
		for _, n := range byEnding[end] {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// nearestByWords suggests the names whose leading words are nearest to
// typed, for a name typed short or misspelt, such as "latncy" for the
// latency_* columns: the names are cut at each "_" or ".", and the names
// that share the nearest such beginning are returned, in order.
func nearestByWords(typed string, names []string) []string {
	byPrefix := map[string][]string{}
	var prefixes []string
	for _, n := range names {
		for i := 1; i < len(n); i++ {
			if n[i] != '_' && n[i] != '.' {
				continue
			}
			p := n[:i]
			if _, ok := byPrefix[p]; !ok {
				prefixes = append(prefixes, p)
			}
			if !slices.Contains(byPrefix[p], n) {
				byPrefix[p] = append(byPrefix[p], n)
			}
		}
	}
	if p := nearest(typed, prefixes); p != "" {
		return byPrefix[p]
	}
	return nil
}

// nearest is the did-you-mean of every dspalab message.
func nearest(typed string, names []string) string { return scenario.Nearest(typed, names) }
