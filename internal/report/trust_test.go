package report

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dspalab/dspalab/internal/runner"
)

// builtinReport runs the built-in scenario name into a run directory and
// returns the report page of it, and the run directory.
func builtinReport(t *testing.T, name string) (page, run string) {
	t.Helper()
	dir := t.TempDir()
	run = filepath.Join(dir, name)
	if err := runner.Run(context.Background(), runner.Options{Scenario: name, OutDir: run}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	if err := Write(Options{RunDir: run, Output: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), run
}

// TestReportShowsSkew checks that the report of a run diagnosed as skew
// (hot-key) draws the busy time of the hot vertex's subtasks, which shows
// it, besides the back-pressure heatmap, which cannot.
func TestReportShowsSkew(t *testing.T) {
	page, _ := builtinReport(t, "hot-key")
	for _, want := range []string{"Busy time per subtask: the skew", "Busy milliseconds per second of each subtask of count over time",
		"--heatmap --subtasks -m busy_ms_per_s --vertex count"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg "); n != 4 {
		t.Errorf("%d figures, want 4 (time series, back-pressure and busy heatmaps, CDF)", n)
	}
}

// TestReportReadsAndPrints checks the page's layout: a table of contents
// whose every link has its anchor, CSV columns headed in words (the name
// in the file on hover), the whole event log with no fixed-height box,
// and a print stylesheet under which no table scrolls sideways and closed
// details print.
func TestReportReadsAndPrints(t *testing.T) {
	page, run := builtinReport(t, "exactly-once")
	nav := page[strings.Index(page, `<nav class="toc">`):]
	nav = nav[:strings.Index(nav, "</nav>")]
	links := regexp.MustCompile(`href="#([a-z0-9-]+)"`).FindAllStringSubmatch(nav, -1)
	if len(links) < 8 {
		t.Errorf("the contents have %d links, want the sections and figures:\n%s", len(links), nav)
	}
	for _, l := range links {
		if !strings.Contains(page, `id="`+l[1]+`"`) {
			t.Errorf("the contents link to #%s, which no heading has", l[1])
		}
	}
	for _, want := range []string{
		`<th title="end_to_end_duration_ms in the CSV file">end-to-end duration</th>`,
		`<th title="start_delay_max_ms in the CSV file">start delay (max)</th>`,
		"@media print", "@page", ".scroll { overflow: visible; }", "details::details-content",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<wbr>") || strings.Contains(page, "max-height: 520px") {
		t.Errorf("the page still breaks headings at underscores or boxes the event log")
	}
	events, _ := os.ReadFile(filepath.Join(run, "events.jsonl"))
	n := strings.Count(string(events), "\n")
	if rows := strings.Count(page[strings.Index(page, `id="event-log"`):], "<tr><td>"); rows != min(n, maxEventRows) {
		t.Errorf("the event log shows %d rows, want %d", rows, min(n, maxEventRows))
	}
}

// TestReportSubtasksAndUnits checks two things of exactly-once's page: in
// the Subtasks table a source has a dash, not 0, for its input rate and
// its queue (L, λ, W) and a sink for its output rate, as the vertex rows
// have; and durations and latencies are written as dspalab run writes
// them (sim.FormatTime, sim.FormatLatency): "2s" for the restart delay,
// "5.08s" and "77.8ms" for latencies, with no space before the unit.
func TestReportSubtasksAndUnits(t *testing.T) {
	page, _ := builtinReport(t, "exactly-once")
	cells := func(row string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(row, -1) {
			out = append(out, regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], ""))
		}
		return out
	}
	rows := map[string][]string{}
	for _, m := range regexp.MustCompile(`(?s)<tr>\s*<td class="l">((?:sensors|aggregate|out)\[0\])</td>(.*?)</tr>`).FindAllStringSubmatch(page, -1) {
		rows[m[1]] = cells(m[2])
	}
	// worker, in/s, out/s, busy, idle, back-pressured, status, L, λ, W
	for name, want := range map[string]map[int]string{
		"sensors[0]":   {1: "–", 2: "560", 7: "–", 8: "–", 9: "–"},
		"aggregate[0]": {1: "543", 2: "543", 7: "16.15", 8: "543", 9: "26.556ms"},
		"out[0]":       {1: "543", 2: "–", 8: "543"},
	} {
		got := rows[name]
		if len(got) != 10 {
			t.Errorf("%s: cells %q, want 10", name, got)
			continue
		}
		for i, w := range want {
			if got[i] != w {
				t.Errorf("%s: cell %d is %q, want %q (row %q)", name, i, got[i], w, got)
			}
		}
	}
	for _, want := range []string{"<td>76.2ms</td>", "<td>5.08s</td>", "<td>2s</td>", "<td>1000KiB</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`[0-9] (ms|s|µs|KiB|MiB)<`).FindString(page); m != "" {
		t.Errorf("the page writes a unit apart from its number: %q", m)
	}
}
