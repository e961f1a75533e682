package grading

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dspalab/dspalab/exercises"
)

// maxAnswerKinds bounds the distinct answers summary.md lists per
// question; the rest are counted.
const maxAnswerKinds = 8

// classAnswers is summary.md's table of the questions for the instructor:
// each question's right answer (the simulated value, as Item.Truth holds
// it: one for the class when the question is about the starter's run,
// each submission's own otherwise) next to the answers the class gave,
// most frequent first, with how many were right. "" without questions.
func classAnswers(ex *exercises.Exercise, rs []*Result) string {
	if len(ex.Questions) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Questions: the right answers and the class's\n\n| id | right answer | right | the class's answers |\n| --- | --- | --- | --- |\n")
	for k, q := range ex.Questions {
		var truths []string
		count := map[string]int{}
		var order []string
		right := 0
		for _, r := range rs {
			if k >= len(r.Questions) {
				continue
			}
			it := r.Questions[k]
			if it.Truth != "" && !slices.Contains(truths, it.Truth) {
				truths = append(truths, it.Truth)
			}
			if it.Passed {
				right++
			}
			a := strings.TrimSpace(it.Value)
			if a == "" {
				a = "(no answer)"
			}
			if count[a] == 0 {
				order = append(order, a)
			}
			count[a]++
		}
		truth := "(not measured)"
		switch {
		case q.Truth.Run == exercises.RunSubmission:
			truth = "each submission's own run (feedback/ID.json, truth)"
		case len(truths) == 1:
			truth = "`" + mdText(truths[0]) + "`"
		case len(truths) > 1:
			truth = "varies: " + mdText(strings.Join(truths, ", "))
		}
		if len(q.Choices) == 0 && truth != "(not measured)" {
			truth += " within " + mdText(q.Tolerance.String())
		}
		slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
		var given []string
		for i, a := range order {
			if i == maxAnswerKinds {
				rest := 0
				for _, o := range order[i:] {
					rest += count[o]
				}
				given = append(given, fmt.Sprintf("%d more", rest))
				break
			}
			given = append(given, fmt.Sprintf("%s ×%d", mdCell(shorten(a)), count[a]))
		}
		fmt.Fprintf(&b, "| %s | %s | %d of %d | %s |\n", q.ID, truth, right, len(rs), strings.Join(given, ", "))
	}
	return b.String()
}
