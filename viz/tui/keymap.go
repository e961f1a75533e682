package tui

import "charm.land/bubbles/v2/key"

// keyMap holds the live view's keys; it is the help bubble's KeyMap.
type keyMap struct {
	Pause, Step, Faster, Slower key.Binding
	Next, Prev, Left, Right     key.Binding
	Fail, FailWorker, Ckpt      key.Binding
	Restart, Help, Close, Quit  key.Binding
	Interrupt                   key.Binding
	// Instant switches between the values averaged over SmoothWindow and
	// those of the last sample; LogUp and LogDown scroll the event log.
	Instant, LogUp, LogDown key.Binding
	// Topics hides and shows the topics pane.
	Topics key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Pause:      key.NewBinding(key.WithKeys("space", "p"), key.WithHelp("space", "pause/resume")),
		Step:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "step an interval")),
		Faster:     key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:     key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
		Next:       key.NewBinding(key.WithKeys("down", "j", "tab"), key.WithHelp("↓/tab", "next vertex")),
		Prev:       key.NewBinding(key.WithKeys("up", "k", "shift+tab"), key.WithHelp("↑/shift+tab", "prev vertex")),
		Left:       key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", "prev subtask")),
		Right:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→", "next subtask")),
		Fail:       key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fail subtask")),
		FailWorker: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "fail its worker")),
		Ckpt:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "checkpoint now")),
		Restart:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "start over")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Close:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close help")),
		Quit:       key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Interrupt:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "interrupt")),
		Instant:    key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "10s avg / last")),
		LogUp:      key.NewBinding(key.WithKeys("pgup", "["), key.WithHelp("pgup", "older events")),
		LogDown:    key.NewBinding(key.WithKeys("pgdown", "]"), key.WithHelp("pgdn", "newer events")),
		Topics:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "hide/show topics")),
	}
}

// ShortHelp is the footer line.
func (k keyMap) ShortHelp() []key.Binding {
	short := func(b key.Binding, keys, desc string) key.Binding {
		b.SetHelp(keys, desc)
		return b
	}
	return []key.Binding{
		short(k.Pause, "space", "pause"), short(k.Step, "s", "step"), short(k.Faster, "+/-", "speed"),
		short(k.Fail, "f/F", "fail"), short(k.Ckpt, "c", "checkpoint"), short(k.Instant, "i", "avg/instant"), k.Help, k.Quit,
	}
}

// FullHelp is the help overlay, in columns.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Step, k.Faster, k.Slower, k.Restart, k.Instant},
		{k.Next, k.Prev, k.Left, k.Right, k.LogUp, k.LogDown, k.Topics},
		{k.Fail, k.FailWorker, k.Ckpt, k.Help, k.Quit, k.Interrupt},
	}
}
