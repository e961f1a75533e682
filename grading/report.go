package grading

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dspalab/dspalab/exercises"
	"github.com/dspalab/dspalab/internal/plural"
)

// JSON returns r as indented JSON with a final newline: feedback/<id>.json.
func (r *Result) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		panic(err) // a Result always encodes
	}
	return buf.Bytes()
}

// points formats points: "4", "2.5".
func points(x float64) string { return exercises.FormatNumber(x) }

// status is PASS or FAIL.
func status(passed bool) string {
	if passed {
		return "PASS"
	}
	return "FAIL"
}

// WriteText prints r for a terminal (dspalab exercise check): the
// problems, then one line per check and question (PASS or FAIL, the
// points, the feedback) and the total.
func (r *Result) WriteText(w io.Writer, ex *exercises.Exercise) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", ex.ID, ex.Title)
	fmt.Fprintf(&b, "graded on %s %s\n", plural.For(len(r.Seeds), "seed"), joinSeeds(r.Seeds))
	for _, p := range r.Problems {
		b.WriteString("\n" + hangingIndent("problem: "+p, "  ") + "\n")
	}
	for _, n := range r.Notes {
		b.WriteString("\nnote: " + n + "\n")
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	for _, it := range append(slices.Clone(r.Checks), r.Questions...) {
		fmt.Fprintf(tw, "%s\t%s\t%s/%s\t%s\n", status(it.Passed), it.ID, points(it.Points), points(it.Max), oneLine(r.feedback(it, "the problem above")))
	}
	tw.Flush()
	fmt.Fprintf(&b, "\ntotal: %s/%s\n", points(r.Score), points(r.Max))
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown returns r as Markdown: feedback/<id>.md.
func (r *Result) Markdown(ex *exercises.Exercise) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", ex.ID, mdText(ex.Title))
	fmt.Fprintf(&b, "Submission **%s**: **%s of %s points**.\n", r.ID, points(r.Score), points(r.Max))
	if len(r.Problems) > 0 {
		b.WriteString("\n## Problems\n\n")
		for _, p := range r.Problems {
			first, rest, _ := strings.Cut(p, "\n")
			b.WriteString("- " + mdText(first) + "\n")
			if rest != "" {
				// the rest (one located error a line) as a code block
				// inside the list item: every line indented as the item's
				// text, the block closed before what follows
				fence := codeFence(rest)
				b.WriteString("\n" + indentLines(fence+"\n"+rest+"\n"+fence, "  ") + "\n")
			}
		}
	}
	if len(r.Checks) > 0 {
		b.WriteString("\n## Checks\n\n| | check | points | feedback |\n| --- | --- | --- | --- |\n")
		for _, it := range r.Checks {
			fmt.Fprintf(&b, "| %s | %s | %s/%s | %s |\n", status(it.Passed), it.ID, points(it.Points), points(it.Max), mdCell(r.feedback(it, "see Problems")))
		}
	}
	if len(r.Questions) > 0 {
		b.WriteString("\n## Questions\n\n| | question | answer | points | feedback |\n| --- | --- | --- | --- | --- |\n")
		for _, it := range r.Questions {
			fmt.Fprintf(&b, "| %s | %s | %s | %s/%s | %s |\n", status(it.Passed), mdCell(it.Text), mdCell(it.Value), points(it.Points), points(it.Max), mdCell(r.feedback(it, "see Problems")))
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.Notes {
			b.WriteString("- " + mdText(n) + "\n")
		}
	}
	seeds := plural.For(len(r.Seeds), "seed") + " " + joinSeeds(r.Seeds)
	if r.HiddenRuns > 0 {
		seeds += " and " + plural.Count(r.HiddenRuns, "hidden seed")
	}
	fmt.Fprintf(&b, "\nGraded on %s.\n", seeds)
	return []byte(b.String())
}

// feedback is it's feedback, with a problem already shown replaced by
// "not graded (where)".
func (r *Result) feedback(it Item, where string) string {
	if r.showsProblem(it) {
		return "not graded (" + where + ")"
	}
	return it.Feedback
}

// showsProblem reports whether it's feedback is one of the problems:
// "not graded: " and the problem.
func (r *Result) showsProblem(it Item) bool {
	for _, p := range r.Problems {
		if it.Feedback == "not graded: "+p {
			return true
		}
	}
	return false
}

func joinSeeds(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, x := range seeds {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// indentLines puts prefix before every line of s.
func indentLines(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

// hangingIndent puts prefix before every line of s but the first.
func hangingIndent(s, prefix string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	return first + "\n" + indentLines(rest, prefix)
}

// codeFence returns a fence of backticks longer than any run of
// backticks in s (at least three), so that no line of s closes the code
// block it opens.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// briefProblem is a problem on one line, for summary.md: its first line
// and, when that line heads a list of errors ("invalid scenario:", then one
// located error a line), the first error with its file:line:col; "(N more)"
// counts the other errors.
func briefProblem(p string) string {
	var lines []string
	for _, l := range strings.Split(p, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	s, rest := lines[0], lines[1:]
	if len(rest) > 0 && strings.HasSuffix(s, ":") {
		s, rest = s+" "+rest[0], rest[1:]
	}
	if len(rest) > 0 {
		s += fmt.Sprintf(" (%d more)", len(rest))
	}
	return s
}

// mdText escapes what Markdown would read as HTML, code, a table's
// column, emphasis with * or a link in text that comes from a
// submission or a pack, and leaves the
// rest readable as it is in the .md file: a "<" is escaped (as `\<`)
// only where CommonMark could read a tag, a comment or an autolink (a
// letter, "/", "!" or "?" follows), so "<= 0.2" stays as it is.
func mdText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '`', '|', '*':
			// code, a column, emphasis: a file named "**x**.yaml"
			// stays text
			b.WriteByte('\\')
		case '(':
			if i > 0 && s[i-1] == ']' {
				b.WriteByte('\\') // "[y](javascript:…)" is no link; operators[work] stays as it is
			}
		case '<':
			if i+1 < len(s) {
				if n := s[i+1]; n == '/' || n == '!' || n == '?' || ('a' <= n && n <= 'z') || ('A' <= n && n <= 'Z') {
					b.WriteByte('\\')
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mdCell is mdText on one line, for a table cell.
func mdCell(s string) string { return mdText(oneLine(s)) }
