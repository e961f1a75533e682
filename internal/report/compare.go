package report

import (
	"html/template"

	"github.com/dspalab/dspalab/internal/runner"
)

// compareData is what the compare page shows.
type compareData struct {
	Title, Version string
	Style          template.HTML
	Runs           []string   // the runs' names, the table's columns
	Rows           [][]string // a figure's name, then a cell per run
	Figures        []runner.Figures
}

// WriteCompare writes the page of dspalab compare (--report FILE): the
// figures of every run side by side, in the rows the table prints
// (runner.ComparisonRows), and each run's diagnosis; opts.RunDir is not
// read. The page needs no other file.
func WriteCompare(opts Options, all []runner.Figures) error {
	rows := runner.ComparisonRows(all)
	pd := &compareData{Title: opts.Title, Version: opts.Version, Style: pageStyle(), Figures: all}
	if len(rows) > 0 {
		pd.Runs, pd.Rows = rows[0][1:], rows[1:]
	}
	if pd.Title == "" {
		pd.Title = "compare"
		for i, r := range pd.Runs {
			if i == 0 {
				pd.Title += " "
			} else {
				pd.Title += " · "
			}
			pd.Title += r
		}
	}
	return writePage(opts, batchPage(), "compare", pd)
}
