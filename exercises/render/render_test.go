package render

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// styled renders md at width columns and returns it without its escape
// sequences.
func styled(t *testing.T, md string, width int) string {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, []byte(md), Options{Styled: true, Width: width}); err != nil {
		t.Fatal(err)
	}
	return ansi.Strip(b.String())
}

func check(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s\n(got %q)", got, want, got)
	}
}

// TestPlain: without Styled the Markdown prints as it is, with a final
// line break added when it has none.
func TestPlain(t *testing.T) {
	md := "# Title\n\nSome *text* and `code`, a long line that is not wrapped at all whatever Width says.\n"
	for _, in := range []string{md, strings.TrimSuffix(md, "\n")} {
		var b bytes.Buffer
		if err := Markdown(&b, []byte(in), Options{Width: 20}); err != nil || b.String() != md {
			t.Errorf("plain %q: %q %v", in, b.String(), err)
		}
	}
}

// TestHeadingsAndWrapping: headings keep their # marks; paragraphs are
// filled to Width columns at spaces only (never after a hyphen of
// --out), their soft line breaks joined, hard ones kept.
func TestHeadingsAndWrapping(t *testing.T) {
	md := `# Find the *bottleneck*

## What to look at

Run ` + "`dspalab run scenario.yaml --out out/`" + ` and read the
table: which vertex is back-pressured?
A hard\
break, and a word longer than the width: abcdefghijklmnopqrstuvwxyz0123456789.
`
	check(t, styled(t, md, 30), `# Find the bottleneck

## What to look at

Run dspalab run scenario.yaml
--out out/ and read the table:
which vertex is
back-pressured? A hard
break, and a word longer than
the width:
abcdefghijklmnopqrstuvwxyz0123
456789.
`)
	// Width 0 is 80 columns.
	long := strings.Repeat("word ", 30)
	check(t, styled(t, long, 0), strings.TrimSpace(strings.Repeat("word ", 16))+"\n"+strings.TrimSpace(strings.Repeat("word ", 14))+"\n")
}

// TestLists: bullets and numbers (right-aligned) with the item's lines
// indented under its text; a tight list has no blank lines, a loose one
// has; nested lists indent further.
func TestLists(t *testing.T) {
	md := `- the ` + "`parallelism`" + ` of the operators and of the sink, nothing else
- nested:
  - one
  - two

8. eight

9. nine, long enough to wrap

10. ten
`
	check(t, styled(t, md, 30), `• the parallelism of the
  operators and of the sink,
  nothing else
• nested:
  • one
  • two

 8. eight

 9. nine, long enough to wrap

10. ten
`)
}

// TestCodeBlocks: fenced and indented code is kept verbatim, blank lines
// and trailing spaces included, indented by two columns and never
// wrapped, also inside a list item.
func TestCodeBlocks(t *testing.T) {
	md := "Run:\n\n```yaml\nsources:\n  - name: sensors   # a comment far longer than the width of the text\n\n    parallelism: 2\n```\n\n" +
		"    indented code\n\n1. in a list:\n\n   ```\n   dspalab run scenario.yaml --out out/\n   ```\n"
	check(t, styled(t, md, 30), `Run:

  sources:
    - name: sensors   # a comment far longer than the width of the text

      parallelism: 2

  indented code

1. in a list:

     dspalab run scenario.yaml --out out/
`)
}

// TestLinks: a link shows its text and its URL; an autolink, or a link
// whose text is its URL, the URL once; an image its alt text and URL.
func TestLinks(t *testing.T) {
	md := `See [Flink's back-pressure page](https://nightlies.apache.org/flink/back_pressure/ "title"),
<https://example.org/a>, [https://example.org/b](https://example.org/b), ![a plot](plot.png)
and <student@example.org>.
`
	check(t, styled(t, md, 100), `See Flink's back-pressure page (https://nightlies.apache.org/flink/back_pressure/),
https://example.org/a, https://example.org/b, a plot (plot.png) and student@example.org.
`)
}

// TestQuotesRulesEscapes: a block quote is barred and wrapped inside the
// bar; a thematic break is a rule of the width; escapes and character
// references are resolved; HTML prints as it is.
func TestQuotesRulesEscapes(t *testing.T) {
	md := `> A quote long enough to wrap at twenty.
>
> - a list in it

***

\*not emphasis\*, &amp; &copy; &#35; <kbd>q</kbd>

<div>
  as it is
</div>
`
	check(t, styled(t, md, 24), `│ A quote long enough to
│ wrap at twenty.
│
│ • a list in it

────────────────────────

*not emphasis*, & © #
<kbd>q</kbd>

<div>
  as it is
</div>
`)
}

// TestTables: a GFM table is drawn in aligned columns (the delimiter
// row's alignments), its cells' Markdown rendered, \| a pipe even in
// code, missing cells empty and extra ones dropped; a table wider than
// Width wraps its cells to fit; lines before the header stay a
// paragraph; a delimiter row of another count of cells is no table.
func TestTables(t *testing.T) {
	md := `| check | points | wants |
| :--- | :-: | ---: |
| ` + "`faster`" + ` | 2 | at least **300** records/s |
| a \| b | ` + "`x \\| y`" + ` | 3 | dropped |
| one |

Text before
a | b
--|--
1 | 2

| a | b |
| --- |
`
	check(t, styled(t, md, 80), `check  │ points │                  wants
───────┼────────┼───────────────────────
faster │   2    │ at least 300 records/s
a | b  │ x | y  │                      3
one    │        │

Text before

a │ b
──┼──
1 │ 2

| a | b | | --- |
`)
	check(t, styled(t, "| check | wants |\n| --- | --- |\n| `keeps-up` | the sink receives at least 380 records/s |\n", 30), `check    │ wants
─────────┼────────────────────
keeps-up │ the sink receives
         │ at least 380
         │ records/s
`)
}

// TestStyles: the escape sequences themselves: headings bold cyan, code
// yellow, emphasis italic and bold, link URLs grey, nested styles
// combined, and a style that a wrapped line breaks goes on at the start
// of the next line (so that indentation never carries it).
func TestStyles(t *testing.T) {
	var b bytes.Buffer
	md := "## A `b`\n\n*i* **b** ***`c`*** [t](u)\n\n- `one two three`\n"
	if err := Markdown(&b, []byte(md), Options{Styled: true, Width: 10}); err != nil {
		t.Fatal(err)
	}
	want := "\x1b[1;36m## \x1b[m\x1b[1;36mA \x1b[m\x1b[1;33mb\x1b[m\n\n" +
		"\x1b[3mi\x1b[m \x1b[1mb\x1b[m \x1b[1;3;33mc\x1b[m \x1b[34mt\x1b[m\x1b[90m\x1b[m\n\x1b[90m(u)\x1b[m\n\n" +
		"• \x1b[33mone two\x1b[m\n  \x1b[33mthree\x1b[m\n"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestBuiltinREADMEs: every README of the built-in exercises (and the
// test packs) renders as what students see (golden file for one),
// within the width but for code, with no Markdown table left unparsed.
func TestBuiltinREADMEs(t *testing.T) {
	files := readmes(t)
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := styled(t, string(md), 60)
		code := codeLines(md)
		for _, line := range strings.Split(out, "\n") {
			if ansi.StringWidth(line) > 60 && !code[strings.TrimSpace(line)] {
				t.Errorf("%s: a line wider than 60 columns: %q", f, line)
			}
			if strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|--") || strings.HasPrefix(line, "| --") {
				t.Errorf("%s: a table row left as Markdown: %q", f, line)
			}
		}
	}
	md, err := os.ReadFile("../builtin/bottleneck/README.md")
	if err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, styled(t, string(md), 80))
}

// readmes are the README.md files of the built-in pack and of the
// grading test packs.
func readmes(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"../builtin", "../../grading/testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "README.md" {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 15 {
		t.Fatalf("found %d READMEs: %v", len(files), files)
	}
	return files
}

// codeLines are the lines of md's code blocks, trimmed.
func codeLines(md []byte) map[string]bool {
	lines := map[string]bool{}
	doc := newParser().Parse(text.NewReader(md))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && (n.Kind() == ast.KindFencedCodeBlock || n.Kind() == ast.KindCodeBlock) {
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				lines[strings.TrimSpace(string(seg.Value(md)))] = true
			}
		}
		return ast.WalkContinue, nil
	})
	return lines
}

// TestTablesAsGoldmarkExtension: the table transformer parses what
// goldmark's own GFM table extension (extension.Table) parses, to the
// same tree (node kinds, alignments, text), on every README and on the
// GFM specification's table examples.
func TestTablesAsGoldmarkExtension(t *testing.T) {
	docs := map[string][]byte{
		"spec 198":   []byte("| foo | bar |\n| --- | --- |\n| baz | bim |\n"),
		"spec 199":   []byte("| abc | defghi |\n:-: | -----------:\nbar | baz\n"),
		"spec 200":   []byte("| f\\|oo  |\n| ------ |\n| b `\\|` az |\n| b **\\|** im |\n"),
		"spec 201":   []byte("| abc | def |\n| --- | --- |\n| bar | baz |\n> bar\n"),
		"spec 202":   []byte("| abc | def |\n| --- | --- |\n| bar | baz |\nbar\n\nbar\n"),
		"spec 203":   []byte("| abc | def |\n| --- |\n| bar |\n"),
		"spec 204":   []byte("| abc | def |\n| --- | --- |\n| bar |\n| bar | baz | boo |\n"),
		"spec 205":   []byte("| abc | def |\n| --- | --- |\n"),
		"after text": []byte("Text before\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
		"in a list":  []byte("- item\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n"),
	}
	for _, f := range readmes(t) {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = md
	}
	gfm := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser()
	withTables := 0
	for name, md := range docs {
		want := dump(gfm.Parse(text.NewReader(md)), md)
		got := dump(newParser().Parse(text.NewReader(md)), md)
		if got != want {
			t.Errorf("%s: parsed\n%s\ngoldmark's extension.Table parses\n%s", name, got, want)
		}
		if strings.Contains(got, "Table(") {
			withTables++
		}
	}
	if withTables < 20 { // 14 READMEs and 9 examples have one
		t.Errorf("%d documents with a table", withTables)
	}
}

// dump writes the tree under n: each node's kind, a table's alignments,
// a text's value.
func dump(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			b.WriteString(")")
			return ast.WalkContinue, nil
		}
		b.WriteString(n.Kind().String() + "(")
		switch n := n.(type) {
		case *east.Table:
			for _, a := range n.Alignments {
				b.WriteString(a.String() + " ")
			}
		case *east.TableCell:
			b.WriteString(n.Alignment.String() + " ")
		case *ast.Text:
			b.Write(n.Segment.Value(src))
		case *ast.CodeSpan: // extension.Table drops the \ of a \| in a cell's code from the tree, render.go when it prints
			b.WriteString(codeText(n, src))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// A README is a pack author's text: the control characters a terminal
// would obey (escape sequences that clear the screen, set the title or
// write the clipboard; BEL, backspace, a lone CR) show as symbols, bytes
// that are not UTF-8 as U+FFFD, without losing the spaces around them;
// CRLF line endings are line breaks.
func TestHostileText(t *testing.T) {
	var b bytes.Buffer
	md := "hi \x1b[2J\x1b]52;c;cHduZWQ=\x07 bs\x08 cr\rX \x9b31m \xff\xfe end\n\n```\ncode \x1b]0;title\x07\n```\n\n`span \x1b[5m`\r\n"
	if err := Markdown(&b, []byte(md), Options{Styled: true, Width: 80}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []byte(b.String()) {
		if c < 0x20 && c != '\n' && c != 0x1b {
			t.Errorf("control character %q in %q", c, b.String())
		}
	}
	for _, seq := range []string{"\x1b[2J", "\x1b]", "\x1b[5m"} {
		if strings.Contains(b.String(), seq) {
			t.Errorf("%q passed to the terminal: %q", seq, b.String())
		}
	}
	check(t, ansi.Strip(b.String()), "hi ␛[2J␛]52;c;cHduZWQ=␇ bs␈ cr X �31m �� end\n\n  code ␛]0;title␇\n\nspan ␛[5m\n")
	check(t, styled(t, "a\r\nb\r\n\r\n- c\r\n- d\r\n", 80), "a b\n\n• c\n• d\n")
}

// Block quotes and lists nested thousands deep are indented down to
// maxNesting levels only: deeper blocks show at that indentation.
func TestDeepNesting(t *testing.T) {
	const n = 2000
	quotes := styled(t, strings.Repeat("> ", n)+"deep\n", 80)
	check(t, quotes, strings.Repeat("│ ", maxNesting)+"deep\n")
	var md strings.Builder
	for i := range 40 {
		md.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	lists := strings.Split(strings.TrimSuffix(styled(t, md.String(), 80), "\n"), "\n")
	if len(lists) != 40 {
		t.Fatalf("%d lines: %q", len(lists), lists)
	}
	for i, line := range lists {
		want := strings.Repeat("  ", min(i, maxNesting-1)) + "• x"
		if i >= maxNesting {
			want = strings.Repeat("  ", maxNesting) + "x"
		}
		if line != want {
			t.Errorf("line %d: %q, want %q", i, line, want)
		}
	}
}
