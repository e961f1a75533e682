package render

import (
	"bytes"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// tableTransformer turns a paragraph holding a GFM table
// (https://github.github.com/gfm/#tables-extension-) into goldmark's
// table nodes (goldmark/extension/ast), whose cells goldmark then
// parses for inline Markdown like any paragraph. It is what goldmark's
// extension.Table transformer does (extension/table.go), without the
// regular expressions that make that package's init costly: a header
// row, a delimiter row of as many cells (---, :--, --: or :-:), then
// the rows up to the end of the paragraph, padded or cut to the
// header's cells; the paragraph's lines before the header stay a
// paragraph. A | inside a cell is escaped as \|.
type tableTransformer struct{}

// Transform implements parser.ParagraphTransformer.
func (tableTransformer) Transform(p *ast.Paragraph, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	lines := p.Lines()
	for i := 1; i < lines.Len(); i++ {
		line := lines.At(i)
		aligns := delimiterRow(line.Value(src))
		if aligns == nil {
			continue
		}
		header := tableRow(lines.At(i-1), aligns, true, src)
		if header.ChildCount() != len(aligns) {
			return
		}
		t := east.NewTable()
		t.Alignments = aligns
		t.AppendChild(t, east.NewTableHeader(header))
		for j := i + 1; j < lines.Len(); j++ {
			t.AppendChild(t, tableRow(lines.At(j), aligns, false, src))
		}
		parent := p.Parent()
		parent.InsertAfter(parent, p, t)
		lines.SetSliced(0, i-1)
		if lines.Len() == 0 {
			parent.RemoveChild(parent, p)
		} else { // the paragraph's last line loses its line break
			last := lines.At(i - 2)
			lines.Set(i-2, last.TrimRightSpace(src))
		}
		return
	}
}

// delimiterRow returns the alignments of the delimiter row line, or nil
// if it is not one.
func delimiterRow(line []byte) []east.Alignment {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	for _, b := range line {
		if !util.IsSpace(b) && b != '-' && b != '|' && b != ':' {
			return nil
		}
	}
	cols := bytes.Split(line, []byte{'|'})
	if util.IsBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && util.IsBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	var aligns []east.Alignment
	for _, col := range cols {
		c := bytes.TrimSpace(col)
		left, right := bytes.HasPrefix(c, []byte(":")), bytes.HasSuffix(c, []byte(":"))
		dashes := bytes.TrimSuffix(bytes.TrimPrefix(c, []byte(":")), []byte(":"))
		if len(dashes) == 0 || len(bytes.Trim(dashes, "-")) > 0 {
			return nil
		}
		switch {
		case left && right:
			aligns = append(aligns, east.AlignCenter)
		case left:
			aligns = append(aligns, east.AlignLeft)
		case right:
			aligns = append(aligns, east.AlignRight)
		default:
			aligns = append(aligns, east.AlignNone)
		}
	}
	return aligns
}

// tableRow splits the row seg at its unescaped |s into cells: as many
// as aligns has (padded with empty ones, the rest cut), or all of them
// for the header.
func tableRow(seg text.Segment, aligns []east.Alignment, header bool, src []byte) *east.TableRow {
	seg = seg.TrimLeftSpace(src)
	seg = seg.TrimRightSpace(src)
	line := seg.Value(src)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > pos && line[limit-1] == '|' && (limit < 2 || line[limit-2] != '\\') {
		limit--
	}
	row := east.NewTableRow(aligns)
	i := 0
	for ; pos < limit; i++ {
		align := east.AlignNone
		if i < len(aligns) {
			align = aligns[i]
		} else if !header {
			return row
		}
		end := pos
		for end < limit && (line[end] != '|' || end > 0 && line[end-1] == '\\') {
			end++
		}
		cell := east.NewTableCell()
		cell.Alignment = align
		cs := text.NewSegment(seg.Start+pos, seg.Start+end)
		cs = cs.TrimLeftSpace(src)
		cell.Lines().Append(cs.TrimRightSpace(src))
		row.AppendChild(row, cell)
		pos = end + 1
	}
	for ; i < len(aligns); i++ {
		row.AppendChild(row, east.NewTableCell())
	}
	return row
}

// inTableCell says whether n is inside a table's cell.
func inTableCell(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == east.KindTableCell {
			return true
		}
	}
	return false
}

// table draws t with lipgloss/table: the header in bold, a rule under
// it, columns separated by │ and aligned as the delimiter row says,
// narrowed to width columns by wrapping the cells if it is wider.
func (r *renderer) table(t *east.Table, width int) string {
	var header []string
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			st := lipgloss.NewStyle()
			if row.Kind() == east.KindTableHeader {
				st = st.Bold(true)
			}
			var b strings.Builder
			r.inlines(&b, c, st)
			cells = append(cells, b.String())
		}
		if row.Kind() == east.KindTableHeader {
			header = cells
		} else {
			rows = append(rows, cells)
		}
	}
	last := len(t.Alignments) - 1
	tb := table.New().
		Headers(header...).
		Rows(rows...).
		Border(lipgloss.NormalBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderStyle(r.st.table).
		Width(width).FitContent().
		StyleFunc(func(_, col int) lipgloss.Style {
			st := lipgloss.NewStyle().Padding(0, 1)
			switch col {
			case 0:
				st = st.PaddingLeft(0)
			case last:
				st = st.PaddingRight(0)
			}
			switch t.Alignments[col] {
			case east.AlignCenter:
				st = st.Align(lipgloss.Center)
			case east.AlignRight:
				st = st.Align(lipgloss.Right)
			}
			return st
		})
	lines := strings.Split(tb.String(), "\n")
	for i, line := range lines {
		lines[i] = strings.TrimRight(line, " ")
	}
	return strings.Join(lines, "\n")
}
