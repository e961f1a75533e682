package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"github.com/dspalab/dspalab/sim"
)

// Flink's web UI colours for back-pressure status.
var (
	colorOK    = lipgloss.Color("#4CAF50") // green
	colorLow   = lipgloss.Color("#F2C037") // yellow
	colorHigh  = lipgloss.Color("#E5534B") // red
	colorFaint = lipgloss.Color("#808080")
	colorTitle = lipgloss.Color("#7AA2F7")
	colorBusy  = lipgloss.Color("#5B8DEF")
	colorBP    = lipgloss.Color("#B267E6")
)

// styles are the view's lipgloss styles. Colours go through the program's
// colour profile: with NO_COLOR, or on a terminal without colours, the
// renderer drops them and the words (OK, LOW, HIGH) remain.
type styles struct {
	title, faint, bold, selected, err, action lipgloss.Style
	ok, low, high                             lipgloss.Style
	busy, bp, idle                            lipgloss.Style
	box                                       lipgloss.Style
}

func newStyles() styles {
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	return styles{
		title:    fg(colorTitle).Bold(true),
		faint:    fg(colorFaint),
		bold:     lipgloss.NewStyle().Bold(true),
		selected: lipgloss.NewStyle().Bold(true),
		err:      fg(colorHigh),
		action:   fg(colorBP),
		ok:       fg(colorOK),
		low:      fg(colorLow),
		high:     fg(colorHigh).Bold(true),
		busy:     fg(colorBusy),
		bp:       fg(colorBP),
		idle:     fg(colorFaint),
		box:      lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colorTitle).Padding(0, 1),
	}
}

// status returns the style of a back-pressure status.
func (s styles) status(st string) lipgloss.Style {
	switch st {
	case sim.StatusHigh, statusDown:
		return s.high
	case sim.StatusLow:
		return s.low
	}
	return s.ok
}
