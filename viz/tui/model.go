package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dspalab/dspalab/sim"
)

// controller is what the model needs of the engine: a way to ask, and the
// snapshots it answers with.
type controller interface {
	send(command)
	snapshots() <-chan *Snapshot
}

// model is the bubbletea model of the live view. It never touches the
// simulation: it sends commands to the engine and draws the immutable
// snapshots the engine hands back.
type model struct {
	ctl   controller
	g     graph
	label string
	desc  string
	seed  uint64
	keys  keyMap
	help  help.Model
	st    styles

	width, height int
	snap          *Snapshot
	sel, sub      int // selected task (an index of graph.tasks) and subtask
	showHelp      bool
	// instant shows the last sample's values instead of the averages
	// over SmoothWindow (i)
	instant bool
	// logBack is how many lines the event log is scrolled back from its
	// latest line (pgup, pgdown)
	logBack int
	// hideTopics hides the topics pane (t)
	hideTopics bool
	// interrupted says the user quit with ctrl+c: an interrupt, not q.
	interrupted bool

	// quitWhen, in tests, quits at the first snapshot it accepts.
	quitWhen func(*Snapshot) bool
}

// logPage is how many lines pgup and pgdown scroll the event log.
const logPage = 5

// Default size before the terminal says its own.
const (
	defaultWidth  = 100
	defaultHeight = 30
)

func newModel(job Job, ctl controller) model {
	h := help.New()
	return model{ctl: ctl, g: newGraph(job.Scenario), label: job.Label,
		desc: job.Scenario.Description, seed: job.Scenario.Seed,
		keys: newKeyMap(), help: h, st: newStyles(),
		width: defaultWidth, height: defaultHeight}
}

// Init waits for the first snapshot.
func (m model) Init() tea.Cmd { return m.wait() }

// wait returns a command that takes the next snapshot; one is pending at a
// time, so snapshots arrive in order.
func (m model) wait() tea.Cmd {
	ch := m.ctl.snapshots()
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return engineDoneMsg{}
		}
		return snapshotMsg{s}
	}
}

// Update handles keys, snapshots and resizes.
func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case snapshotMsg:
		m.snap = msg.s
		if m.quitWhen != nil && m.quitWhen(msg.s) {
			return m, tea.Quit
		}
		return m, m.wait()
	case engineDoneMsg:
		return m, tea.Quit
	case advanceMsg:
		m.ctl.send(command{kind: cmdAdvance, to: msg.to})
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

// key handles a key press.
func (m model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Interrupt):
		m.interrupted = true
		return m, tea.Quit
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case key.Matches(msg, k.Close):
		m.showHelp = false
	case m.showHelp:
		// the help is open: only ?, esc, q and ctrl+c act
	case key.Matches(msg, k.Pause):
		m.ctl.send(command{kind: cmdTogglePause})
	case key.Matches(msg, k.Step):
		m.ctl.send(command{kind: cmdStep})
	case key.Matches(msg, k.Faster):
		m.ctl.send(command{kind: cmdFaster})
	case key.Matches(msg, k.Slower):
		m.ctl.send(command{kind: cmdSlower})
	case key.Matches(msg, k.Restart):
		m.ctl.send(command{kind: cmdRestart})
	case key.Matches(msg, k.Next):
		m.sel, m.sub = (m.sel+1)%len(m.g.tasks), 0
	case key.Matches(msg, k.Prev):
		m.sel, m.sub = (m.sel+len(m.g.tasks)-1)%len(m.g.tasks), 0
	case key.Matches(msg, k.Left):
		p := m.g.tasks[m.sel].parallelism
		m.sub = (m.sub + p - 1) % p
	case key.Matches(msg, k.Right):
		m.sub = (m.sub + 1) % m.g.tasks[m.sel].parallelism
	case key.Matches(msg, k.Fail), key.Matches(msg, k.FailWorker):
		// the selected task's head: a failure of it is the task's
		v := m.g.vertices[m.g.tasks[m.sel].members[0]]
		m.ctl.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionFailure,
			Vertex: v.name, Subtask: m.sub, Worker: key.Matches(msg, k.FailWorker)}})
	case key.Matches(msg, k.Instant):
		m.instant = !m.instant
	case key.Matches(msg, k.Topics):
		m.hideTopics = !m.hideTopics
	case key.Matches(msg, k.LogUp):
		m.logBack += logPage
	case key.Matches(msg, k.LogDown):
		m.logBack = max(m.logBack-logPage, 0)
	case key.Matches(msg, k.Ckpt):
		m.ctl.send(command{kind: cmdInject, action: sim.Action{Kind: sim.ActionCheckpoint}})
	}
	return m, nil
}

// View draws the live view on the alternate screen.
func (m model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "dspalab watch " + m.label
	return v
}
