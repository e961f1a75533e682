package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dspalab/dspalab/scenarios"
	"github.com/dspalab/dspalab/sim"
	"github.com/dspalab/dspalab/sim/des"
	"github.com/dspalab/dspalab/sim/scenario"
)

// builtin parses a built-in scenario.
func builtin(t testing.TB, name string) *scenario.Scenario {
	t.Helper()
	data, err := scenarios.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// testJob is a job of sc that starts plain simulations.
func testJob(sc *scenario.Scenario) Job {
	return Job{Label: sc.Name, Scenario: sc, Start: func(obs sim.Observer) (*sim.Sim, error) {
		return sim.New(sc, sim.Options{Observer: obs})
	}}
}

// manualEngine starts an engine in the test mode, at the default speed
// of dspalab watch (1×, which the test mode shows but does not follow),
// and stops it when the test ends.
func manualEngine(t testing.TB, job Job) *engine {
	t.Helper()
	e, err := newEngine(job, engineConfig{manual: true, speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go e.run(ctx)
	t.Cleanup(func() {
		e.send(command{kind: cmdQuit})
		<-e.done
		cancel()
	})
	return e
}

// next returns the engine's next snapshot that satisfies ok, waiting at
// most 20 seconds.
func next(t testing.TB, e *engine, ok func(*Snapshot) bool) *Snapshot {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case s, open := <-e.out:
			if !open {
				t.Fatal("the engine stopped")
			}
			if ok(s) {
				return s
			}
		case <-timeout:
			t.Fatal("no such snapshot in 20s")
		}
	}
}

// at returns a predicate: the snapshot reached simulated time to.
func at(to des.Time) func(*Snapshot) bool {
	return func(s *Snapshot) bool { return s.Now >= to }
}

// press returns the key press message of a key name as bubbletea reports
// it ("space", "tab", "shift+tab", "up", or a printable character).
func press(k string) tea.KeyPressMsg {
	switch k {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}
