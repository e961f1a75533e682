package exercises

import (
	"fmt"
	"io"

	"charm.land/glamour/v2"
)

// RenderOptions say how RenderMarkdown prints.
type RenderOptions struct {
	// Styled renders with glamour (colours, wrapped paragraphs); without
	// it the Markdown is printed as it is. Set it only when the output is
	// a terminal and NO_COLOR is not set.
	Styled bool
	// Width wraps styled text at this many columns (default 80).
	Width int
}

// RenderMarkdown writes the Markdown md to w: styled for a terminal with
// glamour (the style of $GLAMOUR_STYLE, default dark), or as plain
// Markdown, unchanged, when opts.Styled is false (a pipe, a file,
// NO_COLOR).
func RenderMarkdown(w io.Writer, md []byte, opts RenderOptions) error {
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
