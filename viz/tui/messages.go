package tui

import "github.com/dspalab/dspalab/sim/des"

// snapshotMsg hands the model the engine's latest snapshot.
type snapshotMsg struct{ s *Snapshot }

// engineDoneMsg says the engine stopped (the program is ending).
type engineDoneMsg struct{}

// advanceMsg drives the test mode: the engine advances the simulation to
// simulated time to, and the model gets the snapshot of that instant.
type advanceMsg struct{ to des.Time }
