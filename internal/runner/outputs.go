package runner

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dspalab/dspalab/sim"
)

// Names of the files Run writes into Options.OutDir.
const (
	SummaryFile    = "summary.json"
	TimeseriesFile = "timeseries.csv"
	EventsFile     = "events.jsonl"
)

// OutputFiles are the files Run writes into Options.OutDir, in order.
var OutputFiles = []string{SummaryFile, TimeseriesFile, EventsFile}

// outputs writes a run's files into a temporary directory inside the
// output directory and moves them over the old ones only when all are
// complete (commit); abort removes them and leaves the old files as they
// were.
type outputs struct {
	dir     string // the output directory
	tmp     string // the temporary directory inside dir
	files   map[string]*os.File
	ts, ev  *bufio.Writer
	writer  *sim.StreamWriter
	removed bool
}

// openOutputs creates dir if missing, a temporary directory inside it, and
// the files of the run there.
func openOutputs(dir string) (*outputs, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".dspalab-tmp-")
	if err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	o := &outputs{dir: dir, tmp: tmp, files: map[string]*os.File{}}
	for _, name := range OutputFiles {
		f, err := os.Create(filepath.Join(tmp, name))
		if err != nil {
			o.abort()
			return nil, fmt.Errorf("writing outputs: %w", err)
		}
		o.files[name] = f
	}
	o.ts = bufio.NewWriterSize(o.files[TimeseriesFile], 64<<10)
	o.ev = bufio.NewWriterSize(o.files[EventsFile], 64<<10)
	o.writer = sim.NewStreamWriter(o.ts, o.ev)
	return o, nil
}

// commit finishes the files with the summary, and moves each over the file
// of the same name in the output directory. On error it removes what it
// wrote; the old files are then untouched unless a rename failed half-way
// (reported in the error).
func (o *outputs) commit(sum *sim.Summary) error {
	err := o.writer.Flush()
	if err == nil {
		err = o.ts.Flush()
	}
	if err == nil {
		err = o.ev.Flush()
	}
	if err == nil {
		err = sim.WriteSummaryJSON(o.files[SummaryFile], sum)
	}
	for _, name := range OutputFiles {
		f := o.files[name]
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	o.files = nil
	if err != nil {
		o.abort()
		return fmt.Errorf("writing outputs: %w", err)
	}
	for i, name := range OutputFiles {
		if err := os.Rename(filepath.Join(o.tmp, name), filepath.Join(o.dir, name)); err != nil {
			o.abort()
			if i > 0 {
				return fmt.Errorf("writing outputs: %w (the output directory now mixes new and old files)", err)
			}
			return fmt.Errorf("writing outputs: %w", err)
		}
	}
	o.abort() // removes the now empty temporary directory
	return nil
}

// abort closes and removes the temporary files. It is safe to call more
// than once.
func (o *outputs) abort() {
	for _, f := range o.files {
		f.Close()
	}
	o.files = nil
	if !o.removed {
		o.removed = true
		os.RemoveAll(o.tmp)
	}
}

// paths returns the output files as "dir/summary.json, dir/..." for the
// closing message.
func (o *outputs) paths() []string {
	var ps []string
	for _, name := range OutputFiles {
		ps = append(ps, filepath.Join(o.dir, name))
	}
	return ps
}

var errNoResult = errors.New("the simulator returned no result")
