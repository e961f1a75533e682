package runner

import (
	"errors"
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

// commit moves the files into place (runfiles.Writer.Commit); an
// interrupted run keeps a complete run already in the directory.
func (o *outputs) commit(sum *sim.Summary, interrupted bool) error {
	dir, err := o.w.Commit(sum, o.actions, interrupted)
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
