package sim

import (
	"strings"
	"testing"

	"github.com/dspalab/dspalab/sim/des"
)

// A run stopped by the memory limit names what holds the memory: here the
// log of a job that fails over again and again, or checkpoint statistics.
func TestMemoryLimitErrorNamesTheCause(t *testing.T) {
	e := &MemoryLimitError{At: 90 * des.Second, Held: 1500 * failoverBytes, Limit: 1 << 20, Failovers: 1500}
	if got := e.Error(); !strings.Contains(got, ": 1500 failovers, each kept with its statistics and events: the job fails over again and again") {
		t.Errorf("failovers: %q", got)
	}
	e = &MemoryLimitError{At: 90 * des.Second, Held: 5000 * statsRowBytes, Limit: 1 << 20, CheckpointRows: 5000}
	if got := e.Error(); !strings.Contains(got, ": the statistics of 5000 checkpoints, kept for checkpoints.csv") {
		t.Errorf("checkpoint rows: %q", got)
	}
	e = &MemoryLimitError{At: 90 * des.Second, Held: 2 << 20, Limit: 1 << 20, Failovers: 3}
	if got := e.Error(); strings.Contains(got, "failovers") {
		t.Errorf("3 failovers named as the cause of 2MiB: %q", got)
	}
}
