// Package render prints an exercise's instructions (README.md): styled
// with glamour on a terminal, as plain Markdown elsewhere.
//
// It is a package of its own so that glamour, and the chroma lexers and
// styles that glamour registers at start-up (about 10ms and 6MB of
// allocations before main), are linked only into the command that shows
// instructions, not into every package that uses exercises (grading and
// its test workers).
package render

import (
	"fmt"
	"io"

	"charm.land/glamour/v2"
)

// Options say how Markdown prints.
type Options struct {
	// Styled renders with glamour (colours, wrapped paragraphs); without
	// it the Markdown is printed as it is. Set it only when the output is
	// a terminal and NO_COLOR is not set.
	Styled bool
	// Width wraps styled text at this many columns (default 80).
	Width int
}

// Markdown writes the Markdown md to w: styled for a terminal with
// glamour (the style of $GLAMOUR_STYLE, default dark), or as plain
// Markdown, unchanged, when opts.Styled is false (a pipe, a file,
// NO_COLOR).
func Markdown(w io.Writer, md []byte, opts Options) error {
	if !opts.Styled {
		out := md
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out[:len(out):len(out)], '\n')
		}
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("exercises: printing the instructions: %w", err)
		}
		return nil
	}
	width := opts.Width
	if width <= 0 {
		width = 80
	}
	r, err := glamour.NewTermRenderer(glamour.WithEnvironmentConfig(), glamour.WithWordWrap(width))
	if err != nil {
		return fmt.Errorf("exercises: rendering the instructions: %w", err)
	}
	out, err := r.RenderBytes(md)
	if err != nil {
		return fmt.Errorf("exercises: rendering the instructions: %w", err)
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("exercises: printing the instructions: %w", err)
	}
	return nil
}
