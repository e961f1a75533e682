// Package render prints an exercise's instructions (README.md): styled
// for a terminal, as plain Markdown elsewhere.
//
// The styled output is this package's own small terminal renderer on
// well-kept libraries: goldmark's CommonMark parser
// (github.com/yuin/goldmark/parser) reads the Markdown, lipgloss styles
// it and wraps it (lipgloss.Wrap, ANSI-aware, which carries a style over
// the line breaks it makes) and draws GFM tables (lipgloss/table). It
// replaced glamour, whose dependencies (the chroma lexers and styles,
// bluemonday, gorilla/css) cost about 15ms of package initialisation in
// every dspalab process, whatever the command: Go runs the init of every
// package linked into the binary. For the same reason tables are
// recognised here (table.go) and not by goldmark/extension, whose init
// (its linkify regular expressions) makes about 2000 allocations, more
// than goldmark's parser itself.
package render

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Options say how Markdown prints.
type Options struct {
	// Styled renders for a terminal (colours, wrapped paragraphs, drawn
	// tables); without it the Markdown is printed as it is. Set it only
	// when the output is a terminal and NO_COLOR is not set.
	Styled bool
	// Width wraps styled text at this many columns (default 80).
	Width int
}

// Markdown writes the Markdown md to w: styled for a terminal, wrapped
// at opts.Width columns, or as plain Markdown, unchanged, when
// opts.Styled is false (a pipe, a file, NO_COLOR). Styled, it shows
// CommonMark (headings with their # marks, emphasis, code spans, code
// blocks verbatim and unwrapped, lists, block quotes, links followed by
// their URL, thematic breaks; HTML as it is) and GFM tables. The only
// error is w's.
func Markdown(w io.Writer, md []byte, opts Options) error {
	out := md
	if opts.Styled {
		width := opts.Width
		if width <= 0 {
			width = 80
		}
		out = []byte(render(md, width))
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out[:len(out):len(out)], '\n')
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("exercises: printing the instructions: %w", err)
	}
	return nil
}

// styles are the looks of the rendered elements: ANSI's basic colours,
// which every colour terminal has and shows in its own theme, and none
// that shows on blanks (underline, background), so that the indentation
// of a wrapped line never carries a colour.
type styles struct {
	heading, code, link, url, rule, table lipgloss.Style
}

func newStyles() styles {
	s := lipgloss.NewStyle()
	return styles{
		heading: s.Bold(true).Foreground(lipgloss.Cyan),
		code:    s.Foreground(lipgloss.Yellow),
		link:    s.Foreground(lipgloss.Blue),
		url:     s.Foreground(lipgloss.BrightBlack),
		rule:    s.Foreground(lipgloss.BrightBlack),
		table:   s.Foreground(lipgloss.BrightBlack),
	}
}

// newParser is goldmark's CommonMark parser (what goldmark.DefaultParser
// builds) with GFM tables.
func newParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200))...),
	)
}

// render returns md styled for a terminal of width columns.
func render(md []byte, width int) string {
	md = sanitize(md)
	doc := newParser().Parse(text.NewReader(md))
	r := &renderer{src: md, st: newStyles()}
	if s := r.blocks(doc, width); s != "" {
		return s + "\n"
	}
	return ""
}

// renderer renders the AST that goldmark parsed from src.
type renderer struct {
	src   []byte
	st    styles
	depth int // of the block quotes and lists around the block rendered
}

// maxNesting is the depth of block quotes and lists that are indented:
// those nested deeper show at the indentation of the last, as their
// blocks in a row. A README of thousands of nested quotes ("> > > ...")
// otherwise indented every line by thousands of columns and took time
// quadratic in the depth to render (4000 quotes: a second).
const maxNesting = 32

// blocks renders the blocks inside n, each at most width columns wide
// (but code), separated by a blank line, or by a line break after the
// text of a tight list's item. The result has no final line break.
func (r *renderer) blocks(n ast.Node, width int) string {
	var b strings.Builder
	var prev ast.Node
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		s := r.block(c, width)
		if s == "" {
			continue
		}
		if prev != nil {
			b.WriteString("\n")
			if prev.Kind() != ast.KindTextBlock {
				b.WriteString("\n")
			}
		}
		b.WriteString(s)
		prev = c
	}
	return b.String()
}

// block renders one block at most width columns wide (code and HTML as
// they are).
func (r *renderer) block(n ast.Node, width int) string {
	switch n := n.(type) {
	case *ast.Heading:
		var b strings.Builder
		b.WriteString(r.st.heading.Render(strings.Repeat("#", n.Level) + " "))
		r.inlines(&b, n, r.st.heading)
		return wrap(b.String(), width)
	case *ast.Paragraph, *ast.TextBlock:
		var b strings.Builder
		r.inlines(&b, n, lipgloss.NewStyle())
		return wrap(b.String(), width)
	case *ast.ThematicBreak:
		return r.st.rule.Render(strings.Repeat("─", width))
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.code(n.Lines())
	case *ast.HTMLBlock:
		lines := r.lines(n.Lines())
		if n.HasClosure() {
			lines = append(lines, strings.TrimRight(string(n.ClosureLine.Value(r.src)), "\r\n"))
		}
		return strings.Join(lines, "\n")
	case *ast.Blockquote, *ast.List:
		if r.depth >= maxNesting {
			return r.blocksIn(n, width)
		}
		r.depth++
		defer func() { r.depth-- }()
		if l, ok := n.(*ast.List); ok {
			return r.list(l, width)
		}
		bar := r.st.rule.Render("│")
		return indent(r.blocks(n, max(width-2, 1)), bar+" ", bar+" ")
	case *east.Table:
		return r.table(n, width)
	default:
		return r.blocks(n, width)
	}
}

// blocksIn renders the blocks inside n, and inside its list items, in a
// row, without markers or indentation.
func (r *renderer) blocksIn(n ast.Node, width int) string {
	if _, ok := n.(*ast.List); !ok {
		return r.blocks(n, width)
	}
	var items []string
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		if s := r.blocks(item, width); s != "" {
			items = append(items, s)
		}
	}
	return strings.Join(items, "\n")
}

// wrap fills lines of at most width columns with the words of s, the
// styled text of a paragraph, keeping its line breaks: a word wider than
// width is cut (ansi.Hardwrap), and the style at the end of a line goes
// on at the start of the next (lipgloss.WrapWriter). Words are split at
// spaces only: the wrappers of x/ansi and lipgloss.Wrap also break after
// every hyphen, which splits a flag such as --out into - and -out.
func wrap(s string, width int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		col := 0
		for _, word := range strings.Split(line, " ") {
			w := ansi.StringWidth(word)
			switch {
			case w == 0: // nothing, or only escape sequences
				b.WriteString(word)
				continue
			case col > 0 && col+1+w <= width:
				b.WriteByte(' ')
				col++
			case col > 0:
				b.WriteByte('\n')
				col = 0
			}
			if w > width {
				word = ansi.Hardwrap(word, width, true)
				w = ansi.StringWidth(word[strings.LastIndexByte(word, '\n')+1:])
			}
			b.WriteString(word)
			col += w
		}
	}
	var out strings.Builder
	ww := lipgloss.NewWrapWriter(&out)
	_, _ = io.WriteString(ww, b.String())
	_ = ww.Close()
	return out.String()
}

// list renders a bullet list with "•" or a numbered one with its
// numbers, right-aligned, each item's lines indented under its text.
func (r *renderer) list(l *ast.List, width int) string {
	markerWidth := 2 // "• "
	if l.IsOrdered() {
		markerWidth = len(strconv.Itoa(l.Start+l.ChildCount()-1)) + 2
	}
	var b strings.Builder
	i := 0
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "•"
		if l.IsOrdered() {
			marker = strconv.Itoa(l.Start+i) + string(l.Marker)
		}
		if i > 0 {
			b.WriteString("\n")
			if !l.IsTight {
				b.WriteString("\n")
			}
		}
		body := r.blocks(item, max(width-markerWidth, 1))
		b.WriteString(indent(body, fmt.Sprintf("%*s ", markerWidth-1, marker), strings.Repeat(" ", markerWidth)))
		i++
	}
	return b.String()
}

// indent prefixes the first line of s with first and the others with
// rest (trimmed of trailing blanks on an empty line).
func indent(s, first, rest string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		prefix := rest
		if i == 0 {
			prefix = first
		}
		if line == "" {
			prefix = strings.TrimRight(prefix, " ")
		}
		lines[i] = prefix + line
	}
	return strings.Join(lines, "\n")
}

// code renders a code block's lines as they are, indented by two
// columns and never wrapped, so that they can be copied.
func (r *renderer) code(segs *text.Segments) string {
	lines := r.lines(segs)
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		if line != "" {
			lines[i] = "  " + r.st.code.Render(line)
		}
	}
	return strings.Join(lines, "\n")
}

// lines returns the source lines of segs without their line breaks.
func (r *renderer) lines(segs *text.Segments) []string {
	lines := make([]string, segs.Len())
	for i := range lines {
		seg := segs.At(i)
		lines[i] = strings.TrimRight(string(seg.Value(r.src)), "\r\n")
	}
	return lines
}

// inlines writes the inline content of n in the style st, which the
// spans inside it add to: a soft line break becomes a space (the
// paragraph is wrapped afterwards), a hard one a line break, a link its
// text followed by its URL.
func (r *renderer) inlines(b *strings.Builder, n ast.Node, st lipgloss.Style) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(r.src)
			if !c.IsRaw() {
				v = unescape(v)
			}
			b.WriteString(st.Render(string(v)))
			if c.HardLineBreak() {
				b.WriteString("\n")
			} else if c.SoftLineBreak() {
				b.WriteString(" ")
			}
		case *ast.String:
			v := c.Value
			if !c.IsCode() && !c.IsRaw() {
				v = unescape(v)
			}
			b.WriteString(st.Render(string(v)))
		case *ast.CodeSpan:
			b.WriteString(r.st.code.Inherit(st).Render(codeText(c, r.src)))
		case *ast.Emphasis:
			if c.Level >= 2 {
				r.inlines(b, c, st.Bold(true))
			} else {
				r.inlines(b, c, st.Italic(true))
			}
		case *ast.Link:
			r.link(b, c, string(unescape(c.Destination)), st)
		case *ast.Image:
			r.link(b, c, string(unescape(c.Destination)), st)
		case *ast.AutoLink:
			b.WriteString(r.st.link.Inherit(st).Render(string(c.Label(r.src))))
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.WriteString(st.Render(string(seg.Value(r.src))))
			}
		default:
			r.inlines(b, c, st)
		}
	}
}

// codeText is the text of the code span c: its line breaks are spaces,
// and in a table's cell \| is | (GFM).
func codeText(c *ast.CodeSpan, src []byte) string {
	var b strings.Builder
	for t := c.FirstChild(); t != nil; t = t.NextSibling() {
		if t, ok := t.(*ast.Text); ok {
			b.WriteString(strings.ReplaceAll(string(t.Segment.Value(src)), "\n", " "))
		}
	}
	if inTableCell(c) {
		return strings.ReplaceAll(b.String(), `\|`, "|")
	}
	return b.String()
}

// link writes the text of a link or the alt text of an image followed by
// its URL in brackets (the URL alone when the text is the URL or empty).
func (r *renderer) link(b *strings.Builder, n ast.Node, url string, st lipgloss.Style) {
	var label strings.Builder
	r.inlines(&label, n, r.st.link.Inherit(st))
	switch plain := ansi.Strip(label.String()); {
	case plain == "" || plain == url:
		b.WriteString(r.st.link.Inherit(st).Render(url))
	case url == "":
		b.WriteString(label.String())
	default:
		b.WriteString(label.String())
		b.WriteString(r.st.url.Inherit(st).Render(" (" + url + ")"))
	}
}

// unescape resolves backslash escapes and character references, in
// goldmark's order (util.URLEscape's).
func unescape(v []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
}

// sanitize makes the README, which a pack's author writes, safe to style
// for a terminal: the control characters that a terminal obeys rather
// than shows (ESC, which starts the escape sequences that move the
// cursor, clear the screen, set the window title or, OSC 52, write the
// clipboard; BEL, backspace, a carriage return alone; the C1 controls
// U+0080..U+009F, which some terminals take as escapes too) become the
// symbols of Unicode's Control Pictures block (ESC shows as U+241B) or,
// for C1, U+FFFD, and so do bytes that are not UTF-8 (which the wrapper
// took for zero-width, losing the space before them). A CRLF line ending
// is a line break as CommonMark says, and so is a lone CR. Tabs and line
// breaks stay.
func sanitize(md []byte) []byte {
	clean := true
	for i := 0; i < len(md); {
		r, n := utf8.DecodeRune(md[i:])
		if r == utf8.RuneError && n == 1 || r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return md
	}
	var b bytes.Buffer
	b.Grow(len(md))
	for i := 0; i < len(md); {
		r, n := utf8.DecodeRune(md[i:])
		switch {
		case r == '\r':
			if i+1 < len(md) && md[i+1] == '\n' {
				n++ // CRLF
			}
			b.WriteByte('\n')
		case r == utf8.RuneError && n == 1, r >= 0x80 && r <= 0x9f:
			b.WriteRune(utf8.RuneError)
		case r < 0x20 && r != '\t' && r != '\n':
			b.WriteRune(0x2400 + r) // ␀..␟
		case r == 0x7f:
			b.WriteRune(0x2421) // ␡
		default:
			b.Write(md[i : i+n])
		}
		i += n
	}
	return b.Bytes()
}
