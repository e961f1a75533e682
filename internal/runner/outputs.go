package runner

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dspalab/dspalab/internal/runfiles"
	"github.com/dspalab/dspalab/sim"
)

// outputs are the output files of a run being written into a locked
// output directory (runfiles.Lock): a runfiles.Writer, started again for
// each start of a live run.
type outputs struct {
	dir     *runfiles.Dir
	names   []string
	w       *runfiles.Writer
	actions []sim.Action // what commit writes into runfiles.ActionsFile, if among names
	wrote   string       // the directory commit wrote to
}

// openOutputs locks dir (see runfiles.Lock) and starts the files names
// there. It refuses, before anything is simulated, an output directory
// that another dspalab command is writing, or where one of the files
// could not be replaced.
func openOutputs(dir string, names []string) (*outputs, error) {
	d, err := runfiles.Lock(dir)
	if err != nil {
		return nil, err
	}
	o := &outputs{dir: d, names: names}
	if err := o.restart(); err != nil {
		d.Close()
		return nil, err
	}
	return o, nil
}

// restart drops the files written so far and starts them again.
func (o *outputs) restart() error {
	if o.w != nil {
		o.w.Abort()
		o.w = nil
	}
	w, err := o.dir.Create(o.names)
	if err != nil {
		return err
	}
	o.w = w
	return nil
}

// observer returns the observer that writes the files.
func (o *outputs) observer() sim.Observer { return o.w.Observer() }

// commit moves the files into place (runfiles.Writer.Commit); a partial
// run keeps a complete run already in the directory.
func (o *outputs) commit(sum *sim.Summary) error {
	dir, err := o.w.Commit(sum, o.actions)
	o.w = nil
	o.wrote = dir
	return err
}

// close aborts what was not committed and releases the directory.
func (o *outputs) close() {
	if o.w != nil {
		o.w.Abort()
	}
	o.dir.Close()
}

// paths returns the output files as "dir/summary.json, dir/..." for the
// closing message: in the directory commit wrote to.
func (o *outputs) paths() []string {
	dir := o.wrote
	if dir == "" {
		dir = o.dir.Path()
	}
	var ps []string
	for _, n := range o.names {
		ps = append(ps, filepath.Join(dir, n))
	}
	return ps
}

var errNoResult = errors.New("the simulator returned no result")

// KeptError is the error of a run stopped before its end (a
// *QueuedError, *MemoryError, *TraceStoppedError, *StoppedError, ...)
// whose partial outputs went to Partial (Kept/partial), because Kept held
// a complete run, which was kept. (An *InterruptedError says so itself.)
type KeptError struct {
	Err           error
	Kept, Partial string
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("%v; the partial outputs are in %s", e.Err, keptNote(e.Kept, e.Partial))
}

func (e *KeptError) Unwrap() error { return e.Err }

// keptNote is "PARTIAL (KEPT holds a complete earlier run, which was
// kept)".
func keptNote(kept, partial string) string {
	return fmt.Sprintf("%s (%s holds a complete earlier run, which was kept)", partial, kept)
}

// notePartial says where the partial outputs of a run stopped before its
// end went, when dir held a complete run and they went to wrote
// (dir/partial) instead: in stopped, the error that stopped the run, or,
// for a run stopped without one (the live view's q, a replayed stop), on
// stderr. It returns the error to report.
func notePartial(stopped error, dir, wrote string, stderr io.Writer) error {
	if wrote == dir || wrote == "" {
		return stopped
	}
	var ie *InterruptedError
	switch {
	case errors.As(stopped, &ie):
		ie.Kept, ie.Partial = dir, wrote
		return stopped
	case stopped != nil:
		return &KeptError{Err: stopped, Kept: dir, Partial: wrote}
	}
	if _, err := fmt.Fprintf(stderr, "the run stopped before its end: its partial outputs are in %s\n", keptNote(dir, wrote)); err != nil {
		return fmt.Errorf("printing where the outputs are: %w", err)
	}
	return nil
}
