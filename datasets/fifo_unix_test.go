//go:build unix

package datasets

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/dspalab/dspalab/sim/scenario"
)

// TestResolveRefusesFIFO: a trace file that is a named pipe (or a device)
// is refused when the scenario's traces are resolved, before the run, not
// at its first read.
func TestResolveRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.csv"), 0o600); err != nil {
		t.Skip(err)
	}
	sc, err := scenario.Parse("s.yaml", []byte(`duration: 10s
sources:
  - name: s
    arrival: {process: trace, trace: {file: fifo.csv, columns: [t], time_column: t, time_unit: s}}
sinks: [{name: out, input: s}]
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(sc, Env{Registry: Builtin(), Cache: Cache{Dir: t.TempDir()}, BaseDir: dir})
	if want := "s.yaml:4:45: sources[0].arrival.trace.file: " + filepath.Join(dir, "fifo.csv") + " is not a regular file (a named pipe), not a CSV file"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
